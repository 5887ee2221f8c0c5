package best

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/adreswijzer/adreswijzer"
)

// Column counts and positions of BOSA's load layout, from the COPY targets in BOSA's postgis.sql.
const (
	layoutAddressFields      = 17
	layoutStreetFields       = 12
	layoutMunicipalityFields = 5
	layoutPartFields         = 4
	layoutPostalFields       = 5
)

// Address columns: identifier;mIdentifier;mpIdentifier;sIdentifier;pIdentifier;housenumber;
// boxnumber;officiallyAssigned;status;validFrom;validTo;beginLifeSpanVersion;endLifeSpanVersion;
// point;positionGeometryMethod;positionSpecification;firstAddress
const (
	laID = iota
	laMunicipality
	laPart
	laStreet
	laPostal
	laHouseNumber
	laBox
	laOfficiallyAssigned
	laStatus
	laValidFrom
	laValidTo
	laBeginLife
	laEndLife
)

// refs are the objects addresses point to, keyed by id without version.
type refs struct {
	streets        map[string]streetRef
	municipalities map[string]adreswijzer.Names
	parts          map[string]adreswijzer.Names
	postals        map[string]postalRef
}

type streetRef struct {
	id    string
	names adreswijzer.Names
}

type postalRef struct {
	code  string
	names adreswijzer.Names
}

func newRefs() *refs {
	return &refs{
		streets:        map[string]streetRef{},
		municipalities: map[string]adreswijzer.Names{},
		parts:          map[string]adreswijzer.Names{},
		postals:        map[string]postalRef{},
	}
}

// layoutReader reads one file of the load layout: ';'-separated, no header, empty = NULL, and
// double quotes as PostgreSQL's COPY … CSV QUOTE '"' reads them.
type layoutReader struct {
	name   string
	cr     *csv.Reader
	fields int
}

func newLayoutReader(name string, r io.Reader, fields int) *layoutReader {
	cr := csv.NewReader(bufio.NewReaderSize(r, 256<<10))
	cr.Comma = ';'
	cr.FieldsPerRecord = fields
	cr.ReuseRecord = true
	return &layoutReader{name: name, cr: cr, fields: fields}
}

// errRowSkipped marks a record with the wrong number of fields: the reader can go on with the
// next line, the caller counts the row as malformed.
var errRowSkipped = errors.New("row skipped")

// next returns the next record, io.EOF at the end, errRowSkipped after noting a malformed row,
// or an error that ends the import (a quote the file never closes, a read failure).
func (lr *layoutReader) next(imp *importer, countRow bool) ([]string, error) {
	rec, err := lr.cr.Read()
	if err == nil {
		return rec, nil
	}
	if err == io.EOF {
		return nil, io.EOF
	}
	var pe *csv.ParseError
	if errors.As(err, &pe) && errors.Is(pe.Err, csv.ErrFieldCount) {
		msg := fmt.Sprintf("%d fields, want %d", len(rec), lr.fields)
		if countRow {
			imp.malformed(lr.name, int64(pe.StartLine), msg)
		} else {
			imp.problem(fmt.Sprintf("%s line %d: %s; row ignored", lr.name, pe.StartLine, msg))
		}
		return nil, errRowSkipped
	}
	return nil, fmt.Errorf("import BeST %s: %w", lr.name, err)
}

func (lr *layoutReader) line() int64 {
	l, _ := lr.cr.FieldPos(0)
	return int64(l)
}

func names(nl, fr, de string) adreswijzer.Names {
	return adreswijzer.Names{NL: strings.TrimSpace(nl), FR: strings.TrimSpace(fr), DE: strings.TrimSpace(de)}
}

func (imp *importer) readLayout(in *inputSet) error {
	rf := newRefs()
	refKinds := []kind{kindLayoutStreets, kindLayoutMunicipalities, kindLayoutParts, kindLayoutPostals}
	var refSources []*source
	for _, k := range refKinds {
		refSources = append(refSources, in.of(k)...)
	}
	imp.startPhase(PhaseReferences, sizeOf(refSources))
	for _, s := range refSources {
		if err := imp.readLayoutRefs(s, rf); err != nil {
			return err
		}
	}
	imp.endPhase()

	addrs := in.of(kindLayoutAddresses)
	imp.startPhase(PhaseAddresses, sizeOf(addrs))
	for _, s := range addrs {
		if err := imp.eachLayoutRecord(s, layoutAddressFields, true, func(rec []string, lr *layoutReader) error {
			return imp.layoutAddress(rec, lr, rf)
		}); err != nil {
			return err
		}
	}
	imp.endPhase()
	return nil
}

// eachLayoutRecord opens a source and calls fn for every well-formed record.
func (imp *importer) eachLayoutRecord(s *source, fields int, addresses bool, fn func([]string, *layoutReader) error) error {
	rc, err := s.open()
	if err != nil {
		return fmt.Errorf("import BeST %s: %w", s.name, err)
	}
	defer rc.Close()
	lr := newLayoutReader(s.name, countingReader{rc, &imp.done}, fields)
	for {
		if err := imp.tick(); err != nil {
			return fmt.Errorf("import BeST %s: %w", s.name, err)
		}
		rec, err := lr.next(imp, addresses)
		switch {
		case err == io.EOF:
			return nil
		case errors.Is(err, errRowSkipped):
			continue
		case err != nil:
			return err
		}
		if err := fn(rec, lr); err != nil {
			return err
		}
	}
}

func (imp *importer) readLayoutRefs(s *source, rf *refs) error {
	switch s.kind {
	case kindLayoutStreets:
		// identifier;mIdentifier;nameNL;nameFR;nameDE;homonymAddition;streetnameType;status;
		// validFrom;validTo;beginLifeSpanVersion;endLifeSpanVersion
		return imp.eachLayoutRecord(s, layoutStreetFields, false, func(rec []string, lr *layoutReader) error {
			id, ok := layoutID(rec[0])
			if !ok {
				imp.problem(fmt.Sprintf("%s line %d: street identifier is not <prefix>/<id>/<version>; row ignored", s.name, lr.line()))
				return nil
			}
			imp.noteDate(rec[8])
			imp.noteDate(rec[10])
			id = strings.Clone(id)
			rf.streets[id] = streetRef{id: id, names: imp.internNames(names(rec[2], rec[3], rec[4]))}
			return nil
		})
	case kindLayoutMunicipalities:
		// identifier;refnisCode;nameNL;nameFR;nameDE
		return imp.eachLayoutRecord(s, layoutMunicipalityFields, false, func(rec []string, lr *layoutReader) error {
			return imp.layoutNamed(rec[0], names(rec[2], rec[3], rec[4]), rf.municipalities, s.name, lr)
		})
	case kindLayoutParts:
		// identifier;nameNL;nameFR;nameDE
		return imp.eachLayoutRecord(s, layoutPartFields, false, func(rec []string, lr *layoutReader) error {
			return imp.layoutNamed(rec[0], names(rec[1], rec[2], rec[3]), rf.parts, s.name, lr)
		})
	case kindLayoutPostals:
		// identifier;postalCode;nameNL;nameFR;nameDE
		return imp.eachLayoutRecord(s, layoutPostalFields, false, func(rec []string, lr *layoutReader) error {
			id, ok := layoutID(rec[0])
			if !ok {
				imp.problem(fmt.Sprintf("%s line %d: postal info identifier is not <prefix>/<id>/<version>; row ignored", s.name, lr.line()))
				return nil
			}
			rf.postals[strings.Clone(id)] = postalRef{code: imp.intern(strings.TrimSpace(rec[1])), names: imp.internNames(names(rec[2], rec[3], rec[4]))}
			return nil
		})
	}
	return nil
}

func (imp *importer) layoutNamed(rawID string, n adreswijzer.Names, into map[string]adreswijzer.Names, file string, lr *layoutReader) error {
	id, ok := layoutID(rawID)
	if !ok {
		imp.problem(fmt.Sprintf("%s line %d: identifier is not <prefix>/<id>/<version>; row ignored", file, lr.line()))
		return nil
	}
	into[strings.Clone(id)] = imp.internNames(n)
	return nil
}

// layoutAddress resolves one address record of the load layout and emits it.
func (imp *importer) layoutAddress(rec []string, lr *layoutReader, rf *refs) error {
	id, ok := layoutID(rec[laID])
	if !ok {
		imp.malformed(lr.name, lr.line(), "address identifier is not <prefix>/<id>/<version>")
		return nil
	}
	r := row{
		id:          id,
		houseNumber: rec[laHouseNumber],
		box:         rec[laBox],
		status:      rec[laStatus],
		validFrom:   rec[laValidFrom],
		validTo:     rec[laValidTo],
		beginLife:   rec[laBeginLife],
		endLife:     rec[laEndLife],
	}
	if sid, ok := layoutID(rec[laStreet]); ok {
		if st, found := rf.streets[sid]; found {
			r.streetID, r.street = st.id, st.names
		}
	}
	r.streetMissing = r.streetID == ""
	if mid, ok := layoutID(rec[laMunicipality]); ok {
		r.municipality, ok = rf.municipalities[mid]
		r.municipalityMissing = !ok
	} else {
		r.municipalityMissing = true
	}
	if strings.TrimSpace(rec[laPart]) != "" {
		pid, _ := layoutID(rec[laPart])
		if n, found := rf.parts[pid]; found {
			r.sub = n
		} else {
			imp.partMissing++
		}
	}
	if strings.TrimSpace(rec[laPostal]) != "" {
		pid, _ := layoutID(rec[laPostal])
		if p, found := rf.postals[pid]; found {
			r.postcode, r.postName = p.code, p.names
		} else {
			// A postal info's object identifier is its postcode ("BP/1130/2").
			r.postcode = objectPart(rec[laPostal])
			imp.postalNamesMissing++
		}
	}
	if err := imp.emit(&r); err != nil {
		return fmt.Errorf("import BeST %s line %d: %w", lr.name, lr.line(), err)
	}
	return nil
}
