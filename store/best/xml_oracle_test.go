package best

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/adreswijzer/adreswijzer/store/internal/xmlscan"
)

// readXMLStream is the full-download reader as it was written on encoding/xml, kept as an
// independent check of the scanner-based one: the record structs carry the encoding/xml tags
// it decodes with.
func (imp *importer) readXMLStream(k kind, r io.Reader, fn func(*xml.Decoder, *xml.StartElement) error) error {
	record := xmlRecords[k]
	var wantRoot string
	for root, rk := range xmlRoots {
		if rk == k {
			wantRoot = root
		}
	}
	dec := xml.NewDecoder(r)
	depth := 0
	sawRoot := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch depth {
			case 0:
				if t.Name.Local != wantRoot || t.Name.Space != tnsNamespace {
					return fmt.Errorf("root element is {%s}%s, want {%s}%s", t.Name.Space, t.Name.Local, tnsNamespace, wantRoot)
				}
				sawRoot = true
				depth++
			case 1:
				if err := imp.tick(); err != nil {
					return err
				}
				switch {
				case t.Name.Local == record && t.Name.Space == tnsNamespace:
					if err := fn(dec, &t); err != nil {
						return err
					}
				case t.Name.Local == record:
					return fmt.Errorf("record element <%s> is in namespace %q, want %q", record, t.Name.Space, tnsNamespace)
				case t.Name.Local == "timestamp" && t.Name.Space == tnsNamespace:
					var ts string
					if err := dec.DecodeElement(&ts, &t); err != nil {
						return err
					}
					imp.noteHeaderDate(ts)
				default:
					if err := dec.Skip(); err != nil {
						return err
					}
				}
			default:
				depth++
			}
		case xml.EndElement:
			depth--
		}
	}
	if !sawRoot {
		return fmt.Errorf("no root element <%s>", wantRoot)
	}
	return nil
}

// xmlRef is scanRef on encoding/xml.
func (imp *importer) xmlRef(dec *xml.Decoder, se *xml.StartElement, s *source, rf *refs) error {
	line := func() int {
		l, _ := dec.InputPos()
		return l
	}
	if s.kind == kindXMLStreets {
		var st xmlStreet
		if err := dec.DecodeElement(&st, se); err != nil {
			return err
		}
		imp.addStreet(&st, rf, s.name, line())
		return nil
	}
	var n xmlNamed
	if err := dec.DecodeElement(&n, se); err != nil {
		return err
	}
	imp.addNamed(s.kind, se.Name.Local, &n, rf, s.name, line())
	return nil
}

// decoded is what one reader made of a document: each record as decoded with the line it
// ends on, the importer's header date and warnings, and the error it stopped with.
type decoded struct {
	records  []string
	header   string
	warnings []string
	err      error
}

// decodeBoth reads one document of kind k with the scanner and with encoding/xml.
func decodeBoth(k kind, content string) (got, want decoded) {
	record := func(v any, line int) string { return fmt.Sprintf("%+v line %d", v, line) }
	newRecord := func() any {
		switch k {
		case kindXMLAddresses:
			return &xmlAddress{}
		case kindXMLStreets:
			return &xmlStreet{}
		}
		return &xmlNamed{}
	}
	imp := newImporter(context.Background(), nil, nil, time.Time{})
	var d xmlDecoder
	// A record that ends in an error is dropped by the importer, so only whole ones count.
	got.err = imp.scanXMLStream(k, strings.NewReader(content), func(sc *xmlscan.Scanner) error {
		v := newRecord()
		var err error
		switch v := v.(type) {
		case *xmlAddress:
			err = d.address(sc, v)
		case *xmlStreet:
			err = d.street(sc, v)
		case *xmlNamed:
			err = d.named(sc, v)
		}
		if err == nil {
			got.records = append(got.records, record(v, sc.Line()))
		}
		return err
	})
	got.header, got.warnings = imp.headerDate, imp.warnings

	imp = newImporter(context.Background(), nil, nil, time.Time{})
	want.err = imp.readXMLStream(k, strings.NewReader(content), func(dec *xml.Decoder, se *xml.StartElement) error {
		v := newRecord()
		if err := dec.DecodeElement(v, se); err != nil {
			return err
		}
		l, _ := dec.InputPos()
		want.records = append(want.records, record(v, l))
		return nil
	})
	want.header, want.warnings = imp.headerDate, imp.warnings
	return got, want
}

// The scanner-based reader decodes every record of the sample written as the full download,
// in both namespace styles, exactly as encoding/xml decodes it into the tagged structs.
func TestXMLReadersAgree(t *testing.T) {
	raw := loadRaw(t)
	older := documentedStyle
	older.childPrefix, older.childURI, older.timestamp = "add", "http://vocab.belgif.be/ns/inspire/", ""
	n := 0
	for _, style := range []xmlStyle{documentedStyle, older} {
		for name, content := range sampleXML(t, raw, style) {
			k, err := sniffXML(func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(content)), nil })
			if err != nil || k == kindUnknown {
				t.Fatalf("%s: kind %v, %v", name, k, err)
			}
			got, want := decodeBoth(k, content)
			if want.err != nil || len(want.records) == 0 {
				t.Fatalf("%s: encoding/xml read %d records, error %v", name, len(want.records), want.err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: scanner %d records, error %v, header %q; encoding/xml %d, %v, %q",
					name, len(got.records), got.err, got.header, len(want.records), want.err, want.header)
			}
			n += len(got.records)
		}
	}
	// Addresses 11,879, streets, municipalities, parts and postal infos, in two styles.
	if n < 2*11879 {
		t.Errorf("%d records compared", n)
	}
}

// FuzzXMLReadersAgree feeds the same bytes to both readers as an address and as a street
// file. The records both read and the dates noted must agree. Where the two stop
// differently, the one that stopped first must have stopped on a tokenizer error: xmlscan
// refuses a DOCTYPE or an unbound prefix that encoding/xml lets through, and encoding/xml
// checks the characters of the elements both skip.
func FuzzXMLReadersAgree(f *testing.F) {
	raw := loadRaw(f)
	files := sampleXML(f, raw, documentedStyle)
	for _, name := range []string{"BrusselsAddress20211020L72.xml", "WalloniaStreetname20211020.xml", "WalloniaPartOfMunicipality20211020.xml"} {
		f.Add(files[name][:3000])
	}
	f.Add(`<tns:addressResponseBySource xmlns:tns="http://fsb.belgium.be/mappingservices/FullDownload/v1_00"><tns:address beginLifeSpanVersion="a" beginLifeSpanVersion="b"><code><objectIdentifier>1</objectIdentifier></code><code><namespace>x<!-- -->y<z/>w</namespace></code></tns:address></tns:addressResponseBySource>`)
	f.Fuzz(func(t *testing.T, content string) {
		for _, k := range []kind{kindXMLAddresses, kindXMLStreets} {
			got, want := decodeBoth(k, content)
			n := min(len(got.records), len(want.records))
			if !slices.Equal(got.records[:n], want.records[:n]) {
				t.Fatalf("records differ:\n got %q\nwant %q", got.records[:n], want.records[:n])
			}
			var scanErr *xmlscan.SyntaxError
			var xmlErr *xml.SyntaxError
			gotTok, wantTok := errors.As(got.err, &scanErr), errors.As(want.err, &xmlErr)
			if gotTok || wantTok {
				if len(got.records) < len(want.records) && !gotTok || len(got.records) > len(want.records) && !wantTok {
					t.Fatalf("%d records (error %v), encoding/xml %d (error %v)", len(got.records), got.err, len(want.records), want.err)
				}
				continue
			}
			if len(got.records) != len(want.records) || fmt.Sprint(got.err) != fmt.Sprint(want.err) ||
				got.header != want.header || !slices.Equal(got.warnings, want.warnings) {
				t.Fatalf("scanner %d records, error %v, header %q %q; encoding/xml %d, %v, %q %q",
					len(got.records), got.err, got.header, got.warnings, len(want.records), want.err, want.header, want.warnings)
			}
		}
	})
}
