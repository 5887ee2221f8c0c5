package bag

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/adreswijzer/adreswijzer/store/internal/xmlscan"
)

// Namespace URIs exactly as Kadaster writes them. The IMBAG ones have no "http://" scheme;
// the tokenizer resolves prefixes to these strings, so they must match byte for byte.
const (
	nsObjecten    = "www.kadaster.nl/schemas/lvbag/imbag/objecten/v20200601"
	nsObjectenRef = "www.kadaster.nl/schemas/lvbag/imbag/objecten-ref/v20200601"
	nsHistorie    = "www.kadaster.nl/schemas/lvbag/imbag/historie/v20200601"
	nsNEN5825     = "www.kadaster.nl/schemas/lvbag/imbag/nen5825/v20200601"
	nsMutaties    = "http://www.kadaster.nl/schemas/mutatielevering-generiek/1.0"
)

// kind is the BAG object type of a record.
type kind uint8

const (
	kindNone kind = iota
	kindNUM       // Nummeraanduiding
	kindOPR       // OpenbareRuimte
	kindWPL       // Woonplaats
	kindVBO       // Verblijfsobject
	kindLIG       // Ligplaats
	kindSTA       // Standplaats
)

func (k kind) String() string {
	switch k {
	case kindNUM:
		return "Nummeraanduiding"
	case kindOPR:
		return "OpenbareRuimte"
	case kindWPL:
		return "Woonplaats"
	case kindVBO:
		return "Verblijfsobject"
	case kindLIG:
		return "Ligplaats"
	case kindSTA:
		return "Standplaats"
	}
	return "unknown"
}

func kindOf(local []byte) kind {
	switch string(local) {
	case "Nummeraanduiding":
		return kindNUM
	case "OpenbareRuimte":
		return kindOPR
	case "Woonplaats":
		return kindWPL
	case "Verblijfsobject":
		return kindVBO
	case "Ligplaats":
		return kindLIG
	case "Standplaats":
		return kindSTA
	}
	return kindNone
}

// date is a calendar date as yyyymmdd, so that dates compare as integers without parsing
// into time.Time for each of millions of voorkomens. 0 means absent.
type date uint32

func parseDate(b []byte) (date, bool) {
	// xs:date, optionally followed by a time or zone; only the day matters for validity.
	if len(b) < 10 || b[4] != '-' || b[7] != '-' {
		return 0, false
	}
	var v uint32
	for i, c := range b[:10] {
		if i == 4 || i == 7 {
			continue
		}
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + uint32(c-'0')
	}
	m, d := v/100%100, v%100
	if m < 1 || m > 12 || d < 1 || d > 31 {
		return 0, false
	}
	return date(v), true
}

// String gives the ISO form used in dataset versions.
func (d date) String() string {
	return fmt.Sprintf("%04d-%02d-%02d", d/10000, d/100%100, d%100)
}

// status is the register status of one voorkomen, reduced to what decides an address.
type status uint8

const (
	stUnknown status = iota
	stNaamgevingUitgegeven
	stNaamgevingIngetrokken
	stWoonplaatsAangewezen
	stWoonplaatsIngetrokken
	stVBOGevormd
	stVBONietGerealiseerd
	stVBOInGebruikNietIngemeten
	stVBOInGebruik
	stVBOVerbouwing
	stVBOIngetrokken
	stVBOBuitenGebruik
	stVBOTenOnrechte
	stPlaatsAangewezen
	stPlaatsIngetrokken
)

var statusByText = map[string]status{
	"Naamgeving uitgegeven":                       stNaamgevingUitgegeven,
	"Naamgeving ingetrokken":                      stNaamgevingIngetrokken,
	"Woonplaats aangewezen":                       stWoonplaatsAangewezen,
	"Woonplaats ingetrokken":                      stWoonplaatsIngetrokken,
	"Verblijfsobject gevormd":                     stVBOGevormd,
	"Niet gerealiseerd verblijfsobject":           stVBONietGerealiseerd,
	"Verblijfsobject in gebruik (niet ingemeten)": stVBOInGebruikNietIngemeten,
	"Verblijfsobject in gebruik":                  stVBOInGebruik,
	"Verbouwing verblijfsobject":                  stVBOVerbouwing,
	"Verblijfsobject ingetrokken":                 stVBOIngetrokken,
	"Verblijfsobject buiten gebruik":              stVBOBuitenGebruik,
	"Verblijfsobject ten onrechte opgevoerd":      stVBOTenOnrechte,
	"Plaats aangewezen":                           stPlaatsAangewezen,
	"Plaats ingetrokken":                          stPlaatsIngetrokken,
}

// Record flags.
const (
	flagEndReg      uint8 = 1 << iota // eindRegistratie present
	flagInactive                      // tijdstipInactief(LV) or tijdstipNietBagLV present
	flagBadNumber                     // huisnummer, huisletter or toevoeging breaks its pattern
	flagBadPostcode                   // postcode breaks [1-9][0-9]{3}[A-Z]{2}
	flagNeven                         // the object has nevenadressen (kept in a side table)
)

// record is one decoded object voorkomen. The reader reuses it between calls, so slices
// and byte fields are only valid until the next call.
type record struct {
	kind   kind
	id     uint64
	vk     uint32
	begin  date
	end    date
	flags  uint8
	status status
	// statusText holds the status when it is not one the package knows, for a warning.
	statusText string

	// Nummeraanduiding
	number   uint32
	letter   byte
	addition uint32 // packed, see packAddition
	postcode uint32 // packed, see packPostcode
	street   uint64 // ligtAan OpenbareRuimteRef
	// wpl is the woonplaats: ligtIn of a Nummeraanduiding or OpenbareRuimte, or the
	// identificatie of a Woonplaats.
	wpl uint16

	// OpenbareRuimte and Woonplaats
	name  []byte
	short []byte

	// Verblijfsobject, Ligplaats, Standplaats
	main  uint64
	neven []uint64
}

func (r *record) reset(k kind) {
	*r = record{kind: k, name: r.name[:0], short: r.short[:0], neven: r.neven[:0]}
}

// reader pulls object voorkomens out of one BAG XML document, stand or mutation, token by
// token, so that a file of any size is read in constant memory. In a mutation document it
// returns only the "wordt" side: the new state of each voorkomen; "was" carries nothing
// that wordt does not repeat.
type reader struct {
	s    *xmlscan.Scanner
	text []byte
	n    int // objects returned, for error messages
	// skip is the mutation side left unread: "was" normally; "wordt" to read the state
	// before the mutation instead, which tests use to rebuild a stand the mutations
	// apply to.
	skip string
}

func newReader(r io.Reader) *reader {
	return &reader{s: xmlscan.New(r), skip: "was"}
}

// next decodes the next object voorkomen into rec. It returns io.EOF at the end of the
// document.
func (r *reader) next(rec *record) error {
	for {
		tok, err := r.s.Next()
		if err != nil {
			if err == io.EOF {
				return io.EOF
			}
			return fmt.Errorf("after object %d: %w", r.n, err)
		}
		if tok != xmlscan.StartElement {
			continue
		}
		space, local := r.s.Name()
		switch string(space) {
		case nsMutaties:
			if string(local) == r.skip {
				if err := r.s.Skip(); err != nil {
					return fmt.Errorf("after object %d: %w", r.n, err)
				}
			}
			continue
		case nsObjecten:
			k := kindOf(local)
			if k == kindNone {
				// Pand and anything else with no address: skip the subtree whole.
				if string(local) == "Pand" {
					if err := r.s.Skip(); err != nil {
						return fmt.Errorf("after object %d: %w", r.n, err)
					}
				}
				continue
			}
			r.n++
			if err := r.object(k, rec); err != nil {
				return fmt.Errorf("%s record %d: %w", k, r.n, err)
			}
			return nil
		default:
			if kindOf(local) != kindNone {
				// An object element under another namespace means a schema version this
				// package does not know; reading on would silently import nothing.
				return fmt.Errorf("after object %d: element %s in unknown namespace %q", r.n, local, space)
			}
		}
	}
}

var (
	errNoID    = errors.New("no identificatie")
	errNoVK    = errors.New("no voorkomenidentificatie")
	errNoBegin = errors.New("no beginGeldigheid")
)

// object reads the children of one object element, whose start tag was just read. Child
// order differs between object types and versions, so each value is recognised by its
// element name and by the top-level child (the "field") it sits in, never by position.
func (r *reader) object(k kind, rec *record) error {
	rec.reset(k)
	depth := 0
	f := fieldOther
	for {
		tok, err := r.s.Next()
		if err != nil {
			if err == io.EOF {
				return io.ErrUnexpectedEOF
			}
			return err
		}
		switch tok {
		case xmlscan.StartElement:
			depth++
			r.text = r.text[:0]
			if depth == 1 {
				f = fieldOf(r.s.Name())
				if f == fieldSkipped {
					if err := r.s.Skip(); err != nil {
						return err
					}
					depth--
				}
			}
		case xmlscan.Text:
			r.text = append(r.text, r.s.Text()...)
		case xmlscan.EndElement:
			if depth == 0 {
				return rec.check()
			}
			space, local := r.s.Name()
			if err := leaf(rec, r.text, f, depth, space, local); err != nil {
				return err
			}
			r.text = r.text[:0]
			depth--
		}
	}
}

// field is the top-level child of an object element that a value sits in, as far as it
// decides what the value means.
type field uint8

const (
	fieldOther field = iota
	fieldLigtAan
	fieldLigtIn
	fieldHoofdadres
	fieldNevenadres
	fieldVerkorteNaam
	fieldVoorkomen
	// fieldSkipped names the children that carry nothing an address needs; skipping them
	// whole saves the per-element work for geometries (a woonplaats polygon runs to
	// hundreds of kilobytes).
	fieldSkipped
)

func fieldOf(space, local []byte) field {
	if string(space) != nsObjecten {
		return fieldOther
	}
	switch string(local) {
	case "ligtAan":
		return fieldLigtAan
	case "ligtIn":
		return fieldLigtIn
	case "heeftAlsHoofdadres":
		return fieldHoofdadres
	case "heeftAlsNevenadres":
		return fieldNevenadres
	case "verkorteNaam":
		return fieldVerkorteNaam
	case "voorkomen":
		return fieldVoorkomen
	case "geometrie", "gebruiksdoel", "oppervlakte", "maaktDeelUitVan", "geconstateerd",
		"documentdatum", "documentnummer", "type", "typeAdresseerbaarObject", "oorspronkelijkBouwjaar":
		return fieldSkipped
	}
	return fieldOther
}

// leaf stores the text of an element that just ended.
func leaf(rec *record, text []byte, f field, depth int, space, local []byte) error {
	v := bytes.TrimSpace(text)
	switch string(space) {
	case nsObjecten:
		if depth != 1 {
			return nil
		}
		switch string(local) {
		case "identificatie":
			if rec.kind == kindWPL {
				w, ok := parseWPL(v)
				if !ok {
					return errors.New("malformed Woonplaats identificatie")
				}
				rec.wpl = w
				rec.id = uint64(w)
				return nil
			}
			id, ok := parseID(v)
			if !ok {
				return errors.New("malformed identificatie")
			}
			rec.id = id
		case "status":
			st, ok := statusByText[string(v)]
			if !ok {
				st = stUnknown
				rec.statusText = string(v)
			}
			rec.status = st
		case "huisnummer":
			n, ok := parseNumber(v)
			if !ok {
				rec.flags |= flagBadNumber
			}
			rec.number = n
		case "huisletter":
			if len(v) != 1 || !isLetter(v[0]) {
				rec.flags |= flagBadNumber
				return nil
			}
			rec.letter = v[0]
		case "huisnummertoevoeging":
			a, ok := packAddition(v)
			if !ok {
				rec.flags |= flagBadNumber
			}
			rec.addition = a
		case "postcode":
			p, ok := packPostcode(v)
			if !ok {
				rec.flags |= flagBadPostcode
			}
			rec.postcode = p
		case "naam":
			rec.name = append(rec.name[:0], v...)
		}
	case nsObjectenRef:
		switch string(local) {
		case "OpenbareRuimteRef":
			if f == fieldLigtAan {
				id, ok := parseID(v)
				if !ok {
					return errors.New("malformed OpenbareRuimteRef")
				}
				rec.street = id
			}
		case "WoonplaatsRef":
			if f == fieldLigtIn {
				w, ok := parseWPL(v)
				if !ok {
					return errors.New("malformed WoonplaatsRef")
				}
				rec.wpl = w
			}
		case "NummeraanduidingRef":
			id, ok := parseID(v)
			if !ok {
				return errors.New("malformed NummeraanduidingRef")
			}
			switch f {
			case fieldHoofdadres:
				rec.main = id
			case fieldNevenadres:
				rec.neven = append(rec.neven, id)
				rec.flags |= flagNeven
			}
		}
	case nsNEN5825:
		if string(local) == "verkorteNaam" && f == fieldVerkorteNaam {
			rec.short = append(rec.short[:0], v...)
		}
	case nsHistorie:
		if f != fieldVoorkomen {
			return nil
		}
		switch string(local) {
		case "voorkomenidentificatie":
			n, ok := parseUint(v, 9)
			if !ok || n == 0 || n > 0xffff {
				return errors.New("malformed voorkomenidentificatie")
			}
			rec.vk = uint32(n)
		case "beginGeldigheid":
			d, ok := parseDate(v)
			if !ok {
				return errors.New("malformed beginGeldigheid")
			}
			rec.begin = d
		case "eindGeldigheid":
			d, ok := parseDate(v)
			if !ok {
				return errors.New("malformed eindGeldigheid")
			}
			rec.end = d
		case "eindRegistratie":
			rec.flags |= flagEndReg
		case "tijdstipInactief", "tijdstipInactiefLV", "tijdstipNietBagLV":
			rec.flags |= flagInactive
		}
	}
	return nil
}

// check rejects a record that lacks what every voorkomen has; the register's schema makes
// these mandatory, so their absence means a damaged or foreign file.
func (rec *record) check() error {
	switch {
	case rec.id == 0:
		return errNoID
	case rec.vk == 0:
		return errNoVK
	case rec.begin == 0:
		return errNoBegin
	}
	return nil
}

// parseID reads a 16-digit BAG object identificatie. Sixteen decimal digits fit in a
// uint64, which halves the memory of string ids over ten million objects.
func parseID(b []byte) (uint64, bool) {
	if len(b) != 16 {
		return 0, false
	}
	n, ok := parseUint(b, 16)
	return n, ok && n != 0
}

// parseWPL reads a 4-digit woonplaats identificatie.
func parseWPL(b []byte) (uint16, bool) {
	if len(b) != 4 {
		return 0, false
	}
	n, ok := parseUint(b, 4)
	return uint16(n), ok && n != 0
}

func parseUint(b []byte, max int) (uint64, bool) {
	if len(b) == 0 || len(b) > max {
		return 0, false
	}
	var n uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	return n, true
}

// parseNumber checks the huisnummer pattern [1-9][0-9]{0,4}.
func parseNumber(b []byte) (uint32, bool) {
	if len(b) == 0 || b[0] == '0' {
		return 0, false
	}
	n, ok := parseUint(b, 5)
	return uint32(n), ok
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isAlnum(c byte) bool { return isLetter(c) || c >= '0' && c <= '9' }

// packAddition stores a huisnummertoevoeging ([0-9a-zA-Z]{1,4}) in four bytes, so that the
// record needs no string header and no allocation for it.
func packAddition(b []byte) (uint32, bool) {
	if len(b) == 0 || len(b) > 4 {
		return 0, false
	}
	var v uint32
	for i, c := range b {
		if !isAlnum(c) {
			return 0, false
		}
		v |= uint32(c) << (8 * i)
	}
	return v, true
}

func unpackAddition(v uint32) string {
	var b [4]byte
	n := 0
	for ; n < 4 && v != 0; n++ {
		b[n] = byte(v)
		v >>= 8
	}
	return string(b[:n])
}

// packPostcode stores a postcode [1-9][0-9]{3}[A-Z]{2} as a number, 0 meaning none.
func packPostcode(b []byte) (uint32, bool) {
	if len(b) != 6 || b[0] < '1' || b[0] > '9' {
		return 0, false
	}
	var v uint32
	for _, c := range b[:4] {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + uint32(c-'0')
	}
	for _, c := range b[4:] {
		if c < 'A' || c > 'Z' {
			return 0, false
		}
		v = v*26 + uint32(c-'A')
	}
	return v + 1, true
}

func unpackPostcode(v uint32) string {
	v--
	var b [6]byte
	b[5] = byte('A' + v%26)
	v /= 26
	b[4] = byte('A' + v%26)
	v /= 26
	for i := 3; i >= 0; i-- {
		b[i] = byte('0' + v%10)
		v /= 10
	}
	return string(b[:])
}
