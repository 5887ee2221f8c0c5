package bag

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/adreswijzer/adreswijzer/store/internal/xmlscan"
)

// oracleReader is the record reader as it was written on encoding/xml, kept as an
// independent check of the tokenizer the package reads with. The values themselves go
// through the same leaf function.
type oracleReader struct {
	d    *xml.Decoder
	text []byte
	skip string
}

func (r *oracleReader) next(rec *record) error {
	for {
		tok, err := r.d.Token()
		if err != nil {
			return err
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		switch se.Name.Space {
		case nsMutaties:
			if se.Name.Local == r.skip {
				if err := r.d.Skip(); err != nil {
					return err
				}
			}
		case nsObjecten:
			k := kindOf([]byte(se.Name.Local))
			if k == kindNone {
				if se.Name.Local == "Pand" {
					if err := r.d.Skip(); err != nil {
						return err
					}
				}
				continue
			}
			return r.object(k, rec)
		default:
			if kindOf([]byte(se.Name.Local)) != kindNone {
				return fmt.Errorf("element %s in unknown namespace %q", se.Name.Local, se.Name.Space)
			}
		}
	}
}

func (r *oracleReader) object(k kind, rec *record) error {
	rec.reset(k)
	depth := 0
	f := fieldOther
	for {
		tok, err := r.d.Token()
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			r.text = r.text[:0]
			if depth == 1 {
				f = fieldOf([]byte(t.Name.Space), []byte(t.Name.Local))
				if f == fieldSkipped {
					if err := r.d.Skip(); err != nil {
						return err
					}
					depth--
				}
			}
		case xml.CharData:
			r.text = append(r.text, t...)
		case xml.EndElement:
			if depth == 0 {
				return rec.check()
			}
			if err := leaf(rec, r.text, f, depth, []byte(t.Name.Space), []byte(t.Name.Local)); err != nil {
				return err
			}
			r.text = r.text[:0]
			depth--
		}
	}
}

// flat is a record written out with the contents of its slices, for comparison.
type flat string

func flatten(rec *record) flat {
	r := *rec
	r.name, r.short, r.neven = nil, nil, nil
	return flat(fmt.Sprintf("%+v name %q short %q neven %v", r, rec.name, rec.short, rec.neven))
}

// readBoth reads a document with the package's reader and with the oracle, up to limit
// records each, and returns the records and the error each stopped with (nil at the end).
func readBoth(data []byte, skip string, limit int) (got, want []flat, gotErr, wantErr error) {
	r := newReader(bytes.NewReader(data))
	r.skip = skip
	o := &oracleReader{d: xml.NewDecoder(bytes.NewReader(data)), skip: skip}
	var rec record
	for range limit {
		if gotErr = r.next(&rec); gotErr != nil {
			break
		}
		got = append(got, flatten(&rec))
	}
	for range limit {
		if wantErr = o.next(&rec); wantErr != nil {
			break
		}
		want = append(want, flatten(&rec))
	}
	if gotErr == io.EOF {
		gotErr = nil
	}
	if wantErr == io.EOF {
		wantErr = nil
	}
	return got, want, gotErr, wantErr
}

// Every XML file of the three real deliveries, both sides of the mutations, gives the same
// records through the package's tokenizer as through encoding/xml.
func TestReaderMatchesEncodingXML(t *testing.T) {
	total := 0
	for _, name := range []string{"BAGGEM0457L-15102021.zip", "BAGNLDL-15092020-small.zip", "BAGNLDM-13112021-14112021.zip"} {
		d := openTest(t, name)
		for _, j := range d.jobs {
			rc, err := j.file.Open()
			if err != nil {
				t.Fatal(err)
			}
			data, err := io.ReadAll(rc)
			rc.Close()
			if err != nil {
				t.Fatal(err)
			}
			for _, skip := range []string{"was", "wordt"} {
				got, want, gotErr, wantErr := readBoth(data, skip, 1<<30)
				if gotErr != nil || wantErr != nil {
					t.Fatalf("%s %s: errors %v, %v", name, j.name, gotErr, wantErr)
				}
				if !slices.Equal(got, want) {
					t.Fatalf("%s %s (%s skipped): %d records, encoding/xml %d, or different ones", name, j.name, skip, len(got), len(want))
				}
				total += len(got)
			}
		}
	}
	// Weesp 42,982 twice (no mutation sides), the small national stand 225 voorkomens of
	// NUM, OPR, WPL, VBO, LIG and STA twice, the mutations 5,458 + 10,924 once each side.
	if total < 2*42982+5458+10924 {
		t.Errorf("%d records compared", total)
	}
}

// FuzzReaderMatchesEncodingXML feeds the same bytes to the package's reader and to the
// oracle, seeded with the openings of the real files and records from their middle. The
// records both read must agree. Where the two stop differently, the one that stopped first
// must have stopped on a tokenizer error: xmlscan refuses a DOCTYPE or an unbound prefix
// that encoding/xml lets through, and encoding/xml checks the characters of the
// geometries both skip.
func FuzzReaderMatchesEncodingXML(f *testing.F) {
	for _, name := range []string{"BAGGEM0457L-15102021.zip", "BAGNLDL-15092020-small.zip", "BAGNLDM-13112021-14112021.zip"} {
		d := openTest(f, name)
		for _, j := range d.jobs {
			rc, err := j.file.Open()
			if err != nil {
				f.Fatal(err)
			}
			data, err := io.ReadAll(rc)
			rc.Close()
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data[:min(len(data), 4<<10)])
			if i := bytes.Index(data[len(data)/2:], []byte("<sl:stand>")); i >= 0 {
				head := data[:bytes.Index(data, []byte(">"))+1]
				mid := data[len(data)/2+i:]
				f.Add(append(slices.Clip(head), mid[:min(len(mid), 6<<10)]...))
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, want, gotErr, wantErr := readBoth(data, "was", 1000)
		n := min(len(got), len(want))
		if !slices.Equal(got[:n], want[:n]) {
			t.Fatalf("records differ:\n got %+v\nwant %+v", got[:n], want[:n])
		}
		var scanErr *xmlscan.SyntaxError
		var xmlErr *xml.SyntaxError
		gotTok, wantTok := errors.As(gotErr, &scanErr), errors.As(wantErr, &xmlErr)
		switch {
		case len(got) < len(want) && !gotTok, len(got) > len(want) && !wantTok:
			t.Fatalf("%d records (error %v), encoding/xml %d (error %v)", len(got), gotErr, len(want), wantErr)
		case len(got) != len(want):
		case gotErr == nil && wantErr != nil && !wantTok, wantErr == nil && gotErr != nil && !gotTok:
			t.Fatalf("error %v, encoding/xml %v", gotErr, wantErr)
		case gotErr != nil && wantErr != nil && !gotTok && !wantTok && !strings.HasSuffix(gotErr.Error(), wantErr.Error()):
			t.Fatalf("error %v, encoding/xml %v", gotErr, wantErr)
		}
	})
}
