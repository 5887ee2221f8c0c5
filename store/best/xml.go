package best

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/store/internal/xmlscan"
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
	var d xmlDecoder
	imp.startPhase(PhaseReferences, sizeOf(refSources))
	for _, s := range refSources {
		if err := imp.readXMLFile(s, func(sc *xmlscan.Scanner) error {
			return imp.scanRef(&d, sc, s, rf)
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
		if err := imp.readXMLFile(s, func(sc *xmlscan.Scanner) error {
			rec = xmlAddress{}
			if err := d.address(sc, &rec); err != nil {
				return err
			}
			line := sc.Line()
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
func (imp *importer) readXMLFile(s *source, fn func(*xmlscan.Scanner) error) error {
	rc, err := s.open()
	if err != nil {
		return fmt.Errorf("import BeST %s: %w", s.name, err)
	}
	defer rc.Close()
	if err := imp.scanXMLStream(s.kind, countingReader{rc, &imp.done}, fn); err != nil {
		return fmt.Errorf("import BeST %s: %w", s.name, err)
	}
	return nil
}

// scanXMLStream reads one full-download document; fn gets the scanner just after the start
// tag of each record and must consume the record up to its end tag.
func (imp *importer) scanXMLStream(k kind, r io.Reader, fn func(*xmlscan.Scanner) error) error {
	record := xmlRecords[k]
	var wantRoot string
	for root, rk := range xmlRoots {
		if rk == k {
			wantRoot = root
		}
	}
	sc := xmlscan.NewSize(r, 256<<10, 16<<20)
	var d xmlDecoder
	depth := 0
	sawRoot := false
	for {
		tok, err := sc.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		switch tok {
		case xmlscan.StartElement:
			space, local := sc.Name()
			switch depth {
			case 0:
				if string(local) != wantRoot || string(space) != tnsNamespace {
					return fmt.Errorf("root element is {%s}%s, want {%s}%s", space, local, tnsNamespace, wantRoot)
				}
				sawRoot = true
				depth++
			case 1:
				if err := imp.tick(); err != nil {
					return err
				}
				switch {
				case string(local) == record && string(space) == tnsNamespace:
					if err := fn(sc); err != nil {
						return err
					}
				case string(local) == record:
					return fmt.Errorf("record element <%s> is in namespace %q, want %q", record, space, tnsNamespace)
				case string(local) == "timestamp" && string(space) == tnsNamespace:
					ts, err := d.text(sc)
					if err != nil {
						return err
					}
					imp.noteHeaderDate(ts)
				default:
					if err := sc.Skip(); err != nil {
						return err
					}
				}
			default:
				depth++
			}
		case xmlscan.EndElement:
			depth--
		}
	}
	if !sawRoot {
		return fmt.Errorf("no root element <%s>", wantRoot)
	}
	return nil
}

// noteHeaderDate keeps the newest root timestamp as the dataset date.
func (imp *importer) noteHeaderDate(ts string) {
	if tm, ok := parseTimestamp(ts); ok {
		if d := tm.Format(time.DateOnly); d > imp.headerDate {
			imp.headerDate = d
		}
	} else {
		imp.warnings = append(imp.warnings, "root timestamp is not a date; the dataset date comes from the records")
	}
}

// scanRef reads one reference record (street, municipality, part of municipality or postal
// info) into rf.
func (imp *importer) scanRef(d *xmlDecoder, sc *xmlscan.Scanner, s *source, rf *refs) error {
	if s.kind == kindXMLStreets {
		var st xmlStreet
		if err := d.street(sc, &st); err != nil {
			return err
		}
		imp.addStreet(&st, rf, s.name, sc.Line())
		return nil
	}
	element := string(sc.Local())
	var n xmlNamed
	if err := d.named(sc, &n); err != nil {
		return err
	}
	imp.addNamed(s.kind, element, &n, rf, s.name, sc.Line())
	return nil
}

// addStreet files a decoded street; line is where its record ends, for the warning about a
// street without identifier.
func (imp *importer) addStreet(st *xmlStreet, rf *refs, file string, line int) {
	imp.noteDate(st.Status.ValidFrom)
	imp.noteDate(st.BeginLifeSpanVersion)
	if id, ok := imp.xmlID(st.Code); ok {
		rf.streets[id] = streetRef{id: id, names: imp.xmlNames(st.Names)}
	} else {
		imp.xmlRefProblem(file, line, "streetName")
	}
}

// addNamed files a decoded municipality, part of municipality or postal info.
func (imp *importer) addNamed(k kind, element string, n *xmlNamed, rf *refs, file string, line int) {
	id, ok := imp.xmlID(n.Code)
	if !ok {
		imp.xmlRefProblem(file, line, element)
		return
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
}

func (imp *importer) xmlRefProblem(file string, line int, element string) {
	imp.problem(fmt.Sprintf("%s line %d: <%s> has no namespace or objectIdentifier; ignored", file, line, element))
}

// xmlDecoder fills the record structs from a scanner the way encoding/xml's Unmarshal fills
// them through their tags, which the oracle in the tests still does: a child element or an
// attribute matches a field by local name in any namespace, a string gets the text directly
// inside its element, a repeated element overwrites (or, for a slice, appends), and unknown
// children are skipped.
type xmlDecoder struct {
	buf []byte
}

// children calls fn for each child element of the element just started, with the scanner
// on the child's start tag; fn must consume the child. It returns after the end tag.
func (d *xmlDecoder) children(sc *xmlscan.Scanner, fn func(local []byte) error) error {
	for {
		tok, err := sc.Next()
		if err != nil {
			if err == io.EOF {
				return io.ErrUnexpectedEOF
			}
			return err
		}
		switch tok {
		case xmlscan.StartElement:
			if err := fn(sc.Local()); err != nil {
				return err
			}
		case xmlscan.EndElement:
			return nil
		}
	}
}

// text reads the text directly inside the element just started, up to its end tag.
func (d *xmlDecoder) text(sc *xmlscan.Scanner) (string, error) {
	d.buf = d.buf[:0]
	for {
		tok, err := sc.Next()
		if err != nil {
			if err == io.EOF {
				return "", io.ErrUnexpectedEOF
			}
			return "", err
		}
		switch tok {
		case xmlscan.Text:
			d.buf = append(d.buf, sc.Text()...)
		case xmlscan.StartElement:
			if err := sc.Skip(); err != nil {
				return "", err
			}
		case xmlscan.EndElement:
			return string(d.buf), nil
		}
	}
}

func (d *xmlDecoder) code(sc *xmlscan.Scanner, c *xmlCode) error {
	return d.children(sc, func(local []byte) (err error) {
		switch string(local) {
		case "namespace":
			c.Namespace, err = d.text(sc)
		case "objectIdentifier":
			c.ObjectIdentifier, err = d.text(sc)
		case "versionIdentifier":
			c.VersionIdentifier, err = d.text(sc)
		default:
			err = sc.Skip()
		}
		return err
	})
}

func (d *xmlDecoder) status(sc *xmlscan.Scanner, st *xmlStatus) error {
	return d.children(sc, func(local []byte) (err error) {
		switch string(local) {
		case "status":
			st.Status, err = d.text(sc)
		case "validFrom":
			st.ValidFrom, err = d.text(sc)
		case "validTo":
			st.ValidTo, err = d.text(sc)
		default:
			err = sc.Skip()
		}
		return err
	})
}

// name appends the name element just started to list.
func (d *xmlDecoder) name(sc *xmlscan.Scanner, list *[]xmlName) error {
	*list = append(*list, xmlName{})
	n := &(*list)[len(*list)-1]
	return d.children(sc, func(local []byte) (err error) {
		switch string(local) {
		case "language":
			n.Language, err = d.text(sc)
		case "spelling":
			n.Spelling, err = d.text(sc)
		default:
			err = sc.Skip()
		}
		return err
	})
}

// lifeSpan takes the life span attributes of the record element just started; the last of
// repeated ones wins, as in encoding/xml.
func lifeSpan(sc *xmlscan.Scanner, begin, end *string) {
	for i := range sc.NumAttr() {
		a := sc.Attr(i)
		switch string(a.Local) {
		case "beginLifeSpanVersion":
			*begin = string(a.Value)
		case "endLifeSpanVersion":
			if end != nil {
				*end = string(a.Value)
			}
		}
	}
}

func (d *xmlDecoder) address(sc *xmlscan.Scanner, a *xmlAddress) error {
	lifeSpan(sc, &a.BeginLifeSpanVersion, &a.EndLifeSpanVersion)
	return d.children(sc, func(local []byte) (err error) {
		switch string(local) {
		case "code":
			err = d.code(sc, &a.Code)
		case "addressStatus":
			err = d.status(sc, &a.Status)
		case "boxNumber":
			a.BoxNumber, err = d.text(sc)
		case "houseNumber":
			a.HouseNumber, err = d.text(sc)
		case "hasStreetName":
			err = d.code(sc, &a.Street)
		case "hasMunicipality":
			err = d.code(sc, &a.Municipality)
		case "hasPartOfMunicipality":
			err = d.code(sc, &a.Part)
		case "hasPostalInfo":
			err = d.code(sc, &a.Postal)
		default:
			err = sc.Skip()
		}
		return err
	})
}

func (d *xmlDecoder) street(sc *xmlscan.Scanner, st *xmlStreet) error {
	lifeSpan(sc, &st.BeginLifeSpanVersion, nil)
	return d.children(sc, func(local []byte) (err error) {
		switch string(local) {
		case "code":
			err = d.code(sc, &st.Code)
		case "name":
			err = d.name(sc, &st.Names)
		case "streetNameStatus":
			err = d.status(sc, &st.Status)
		default:
			err = sc.Skip()
		}
		return err
	})
}

func (d *xmlDecoder) named(sc *xmlscan.Scanner, n *xmlNamed) error {
	return d.children(sc, func(local []byte) (err error) {
		switch string(local) {
		case "code":
			err = d.code(sc, &n.Code)
		case "name":
			err = d.name(sc, &n.Names)
		default:
			err = sc.Skip()
		}
		return err
	})
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
