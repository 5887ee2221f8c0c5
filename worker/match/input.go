package match

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/adreswijzer/adreswijzer"
)

// Typed text comes in through one door. Every text field of every call (validate's four,
// the street and postcode of a lookup, the query and postcode of suggest and autocomplete)
// is cleaned here, before anything reads it: to NFC, so that text typed or pasted in
// decomposed form ("Abbe" and a combining acute) is the text the register holds ("Abbé"),
// and without the characters nobody sees: zero-width spaces and joiners, bidi marks and
// embeddings, the byte-order mark, soft hyphens, and control characters (NUL and the
// like are dropped, a tab or line break becomes a space). Canonically equal text is the
// same input; text that only equals the register once invisible characters are gone was
// not typed as the register writes it, and a validation says so (never "valid").

// cleanText returns s in NFC without invisible characters, and whether anything other
// than the normal form changed (altered).
func cleanText(s string) (clean string, altered bool) {
	if plainASCII(s) {
		return s, false // nearly all input: nothing to clean, nothing allocated
	}
	if !hasUnseen(s) {
		if norm.NFC.IsNormalString(s) {
			return s, false // names with accents, typed composed
		}
		return norm.NFC.String(s), false
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && w == 1:
			// Invalid UTF-8, as the parsers would have it: a byte kept could join
			// another into a character once what stood between them is gone.
			b.WriteRune(utf8.RuneError)
			altered = true
		case r == '\t', r == '\n', r == '\r', r == '\v', r == '\f', r == 0x85, r == 0x2028, r == 0x2029:
			b.WriteByte(' ')
			altered = true
		case unicode.IsControl(r), unicode.Is(unicode.Cf, r):
			altered = true
		default:
			b.WriteString(s[i : i+w])
		}
		i += w
	}
	clean = b.String()
	if !norm.NFC.IsNormalString(clean) {
		clean = norm.NFC.String(clean)
	}
	return clean, altered
}

// hasUnseen reports whether s holds what cleanText removes or replaces: invalid UTF-8,
// control and format characters.
func hasUnseen(s string) bool {
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && w == 1 || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return true
		}
		i += w
	}
	return false
}

// plainASCII reports whether s is printable ASCII only, which needs no cleaning.
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e {
			return false
		}
	}
	return true
}

// cleanField cleans *p in place and reports whether it was altered.
func cleanField(p *string) bool {
	c, altered := cleanText(*p)
	*p = c
	return altered
}

// alteredFields records which fields of a validate request held invisible characters.
type alteredFields struct {
	address1, address2, zip, city bool
}

func (a alteredFields) any() bool { return a.address1 || a.address2 || a.zip || a.city }

// cleanOptional cleans an optional field, pointing to a new string only when it changed.
func cleanOptional(p *string) (*string, bool) {
	if p == nil {
		return nil, false
	}
	c, altered := cleanText(*p)
	if c == *p {
		return p, altered
	}
	q := new(string)
	*q = c
	return q, altered
}

// cleanRequest cleans a validate request's fields (cleanText).
func cleanRequest(r adreswijzer.ValidateRequest) (adreswijzer.ValidateRequest, alteredFields) {
	var a alteredFields
	a.address1, a.zip = cleanField(&r.Address1), cleanField(&r.Zip)
	r.Address2, a.address2 = cleanOptional(r.Address2)
	r.City, a.city = cleanOptional(r.City)
	return r, a
}

// readRequest is how a validate request comes in: its postcode and town are read where
// the customer or the platform put them (adreswijzer.ReadFields, the reader the agent's
// free-form text goes through too). moved reports that they were elsewhere than in their
// fields, which makes the input differ from the address it names.
func readRequest(c adreswijzer.Country, r adreswijzer.ValidateRequest, known adreswijzer.PlaceKnown) (adreswijzer.ValidateRequest, bool) {
	if plainPostcode(c, r.Zip) && (r.City == nil || strings.IndexFunc(*r.City, unicode.IsDigit) < 0) {
		return r, false // the postcode in its place, as nearly always
	}
	f := adreswijzer.Fields{Address1: r.Address1, Zip: r.Zip}
	if r.Address2 != nil {
		f.Address2 = *r.Address2
	}
	if r.City != nil {
		f.City = *r.City
	}
	g, moved := adreswijzer.ReadFields(c, f, known)
	if !moved {
		return r, false
	}
	r.Address1, r.Zip = g.Address1, g.Zip
	r.Address2, r.City = optional(g.Address2), optional(g.City)
	return r, true
}

// plainPostcode reports whether s is a postcode of the country as it is usually typed
// ("1381 CS", "1381cs", "1130"), which ReadFields would leave in place, without the
// folding NormalizePostcode does for every other form.
func plainPostcode(c adreswijzer.Country, s string) bool {
	if len(s) < 4 || !digits4(s[:4]) || s[0] == '0' {
		return false
	}
	if c == adreswijzer.BE {
		return len(s) == 4 && s >= "1000" && s <= "9992"
	}
	rest := s[4:]
	if len(rest) == 3 && rest[0] == ' ' {
		rest = rest[1:]
	}
	if len(rest) != 2 || !isASCIILetter(rest[0]) || !isASCIILetter(rest[1]) {
		return false
	}
	return !strings.EqualFold(rest, "SA") && !strings.EqualFold(rest, "SD") && !strings.EqualFold(rest, "SS")
}

func digits4(s string) bool {
	for i := 0; i < 4; i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func isASCIILetter(b byte) bool { return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' }

// optional is s as a request's optional field: nil when empty.
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
