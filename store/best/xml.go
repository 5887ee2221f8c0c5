package best

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/adreswijzer/adreswijzer"
)

// tnsNamespace is the namespace of the full download's roots and records. The children use a
// second namespace that has changed prefix and URI over the years (com: = http://fsb.belgium.be/data/common,
// earlier add:), so they are matched by local name, as encoding/xml does for untagged names.
const tnsNamespace = "http://fsb.belgium.be/mappingservices/FullDownload/v1_00"

// xmlRecords names the record element of each kind of file.
var xmlRecords = map[kind]string{
	kindXMLAddresses:      "address",
	kindXMLStreets:        "streetName",
	kindXMLMunicipalities: "municipality",
	kindXMLParts:          "partOfMunicipality",
	kindXMLPostals:        "postalInfo",
}

// xmlCode is the identifier block of every object and every reference.
type xmlCode struct {
	Namespace         string `xml:"namespace"`
	ObjectIdentifier  string `xml:"objectIdentifier"`
	VersionIdentifier string `xml:"versionIdentifier"`
}

type xmlName struct {
	Language string `xml:"language"`
	Spelling string `xml:"spelling"`
}

type xmlStatus struct {
	Status    string `xml:"status"`
	ValidFrom string `xml:"validFrom"`
	ValidTo   string `xml:"validTo"`
}

type xmlAddress struct {
	BeginLifeSpanVersion string    `xml:"beginLifeSpanVersion,attr"`
	EndLifeSpanVersion   string    `xml:"endLifeSpanVersion,attr"`
	Code                 xmlCode   `xml:"code"`
	Status               xmlStatus `xml:"addressStatus"`
	BoxNumber            string    `xml:"boxNumber"`
	HouseNumber          string    `xml:"houseNumber"`
	Street               xmlCode   `xml:"hasStreetName"`
	Municipality         xmlCode   `xml:"hasMunicipality"`
	Part                 xmlCode   `xml:"hasPartOfMunicipality"`
	Postal               xmlCode   `xml:"hasPostalInfo"`
}

type xmlStreet struct {
	BeginLifeSpanVersion string    `xml:"beginLifeSpanVersion,attr"`
	Code                 xmlCode   `xml:"code"`
	Names                []xmlName `xml:"name"`
	Status               xmlStatus `xml:"streetNameStatus"`
}

// xmlNamed is a municipality, part of municipality or postal info.
type xmlNamed struct {
	Code  xmlCode   `xml:"code"`
	Names []xmlName `xml:"name"`
}

func (imp *importer) xmlNames(list []xmlName) adreswijzer.Names {
	var n adreswijzer.Names
	for _, x := range list {
		s := strings.TrimSpace(x.Spelling)
		switch strings.ToLower(strings.TrimSpace(x.Language)) {
		case "nl":
			n.NL = s
		case "fr":
			n.FR = s
		case "de":
			n.DE = s
		}
	}
	return imp.internNames(n)
}

// xmlID turns an identifier block into the id the load layout would give the same object:
// the region's namespace shortened to BOSA's prefix, then the object identifier, without the
// version. An unknown namespace is kept in full so ids stay unique, with a warning.
func (imp *importer) xmlID(c xmlCode) (string, bool) {
	obj := strings.TrimSpace(c.ObjectIdentifier)
	ns := normNamespace(c.Namespace)
	if obj == "" || ns == "" {
		return "", false
	}
	prefix, ok := namespacePrefixes[ns]
	if !ok {
		prefix = strings.TrimRight(strings.TrimSpace(c.Namespace), "/")
		imp.unknownNamespaces[prefix] = true
	}
	return prefix + "/" + obj, true
}

func (imp *importer) readXML(in *inputSet) error {
	rf := newRefs()
	var refSources []*source
	for _, k := range []kind{kindXMLStreets, kindXMLMunicipalities, kindXMLParts, kindXMLPostals} {
		refSources = append(refSources, in.of(k)...)
	}
	imp.startPhase(PhaseReferences, sizeOf(refSources))
	for _, s := range refSources {
		if err := imp.readXMLFile(s, func(dec *xml.Decoder, se *xml.StartElement) error {
			return imp.xmlRef(dec, se, s, rf)
		}); err != nil {
			return err
		}
	}
	imp.endPhase()

	addrs := in.of(kindXMLAddresses)
	imp.startPhase(PhaseAddresses, sizeOf(addrs))
	var rec xmlAddress
	var r row
	for _, s := range addrs {
		if err := imp.readXMLFile(s, func(dec *xml.Decoder, se *xml.StartElement) error {
			rec = xmlAddress{}
			if err := dec.DecodeElement(&rec, se); err != nil {
				return err
			}
			line, _ := dec.InputPos()
			if !imp.xmlAddressRow(&rec, rf, &r) {
				imp.malformed(s.name, int64(line), "address has no namespace or objectIdentifier")
				return nil
			}
			if err := imp.emit(&r); err != nil {
				return fmt.Errorf("line %d: %w", line, err)
			}
			return nil
		}); err != nil {
			return err
		}
	}
	imp.endPhase()
	return nil
}

// readXMLFile streams one full-download file: it checks the root, keeps the root timestamp as
// dataset date and hands each record element to fn, one at a time, so memory does not grow
// with the file.
func (imp *importer) readXMLFile(s *source, fn func(*xml.Decoder, *xml.StartElement) error) error {
	rc, err := s.open()
	if err != nil {
		return fmt.Errorf("import BeST %s: %w", s.name, err)
	}
	defer rc.Close()
	if err := imp.readXMLStream(s.kind, countingReader{bufio.NewReaderSize(rc, 256<<10), &imp.done}, fn); err != nil {
		return fmt.Errorf("import BeST %s: %w", s.name, err)
	}
	return nil
}

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
					if tm, ok := parseTimestamp(ts); ok {
						if d := tm.Format(time.DateOnly); d > imp.headerDate {
							imp.headerDate = d
						}
					} else {
						imp.warnings = append(imp.warnings, "root timestamp is not a date; the dataset date comes from the records")
					}
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

func (imp *importer) xmlRef(dec *xml.Decoder, se *xml.StartElement, s *source, rf *refs) error {
	k := s.kind
	if k == kindXMLStreets {
		var st xmlStreet
		if err := dec.DecodeElement(&st, se); err != nil {
			return err
		}
		imp.noteDate(st.Status.ValidFrom)
		imp.noteDate(st.BeginLifeSpanVersion)
		if id, ok := imp.xmlID(st.Code); ok {
			rf.streets[id] = streetRef{id: id, names: imp.xmlNames(st.Names)}
		} else {
			imp.xmlRefProblem(dec, s.name, "streetName")
		}
		return nil
	}
	var n xmlNamed
	if err := dec.DecodeElement(&n, se); err != nil {
		return err
	}
	id, ok := imp.xmlID(n.Code)
	if !ok {
		imp.xmlRefProblem(dec, s.name, se.Name.Local)
		return nil
	}
	names := imp.xmlNames(n.Names)
	switch k {
	case kindXMLMunicipalities:
		rf.municipalities[id] = names
	case kindXMLParts:
		rf.parts[id] = names
	case kindXMLPostals:
		// A postal info's object identifier is its postcode.
		rf.postals[id] = postalRef{code: imp.intern(strings.TrimSpace(n.Code.ObjectIdentifier)), names: names}
	}
	return nil
}

func (imp *importer) xmlRefProblem(dec *xml.Decoder, file, element string) {
	line, _ := dec.InputPos()
	imp.problem(fmt.Sprintf("%s line %d: <%s> has no namespace or objectIdentifier; ignored", file, line, element))
}

// xmlAddressRow resolves an address record against the references. ok is false when the
// address itself has no id.
func (imp *importer) xmlAddressRow(a *xmlAddress, rf *refs, r *row) bool {
	id, ok := imp.xmlID(a.Code)
	if !ok {
		return false
	}
	*r = row{
		id:          id,
		houseNumber: a.HouseNumber,
		box:         a.BoxNumber,
		status:      a.Status.Status,
		validFrom:   a.Status.ValidFrom,
		validTo:     a.Status.ValidTo,
		beginLife:   a.BeginLifeSpanVersion,
		endLife:     a.EndLifeSpanVersion,
	}
	if sid, ok := imp.xmlID(a.Street); ok {
		if st, found := rf.streets[sid]; found {
			r.streetID, r.street = st.id, st.names
		}
	}
	r.streetMissing = r.streetID == ""
	r.municipalityMissing = true
	if mid, ok := imp.xmlID(a.Municipality); ok {
		r.municipality, ok = rf.municipalities[mid]
		r.municipalityMissing = !ok
	}
	if pid, ok := imp.xmlID(a.Part); ok {
		if n, found := rf.parts[pid]; found {
			r.sub = n
		} else {
			imp.partMissing++
		}
	}
	if pid, ok := imp.xmlID(a.Postal); ok {
		if p, found := rf.postals[pid]; found {
			r.postcode, r.postName = p.code, p.names
		} else {
			r.postcode = strings.TrimSpace(a.Postal.ObjectIdentifier)
			imp.postalNamesMissing++
		}
	}
	return true
}
