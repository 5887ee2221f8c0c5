package adreswijzer

import (
	"errors"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Postcode errors. They name the field, never the value, because error strings may reach a log
// and nothing a customer typed may.
var (
	// ErrPostcodeEmpty: nothing but spaces or punctuation was typed. Kept apart from a format
	// error so a form can say "fill in the postcode" instead of "this postcode is wrong".
	ErrPostcodeEmpty = errors.New("postcode is empty")
	// ErrPostcodeFormat: the text cannot be a postcode of the country (wrong shape, a number
	// range that was never issued, the other country's prefix, or a country without a register).
	ErrPostcodeFormat = errors.New("postcode does not have the country's format")
)

// maxPostcodeInput bounds the text we look at: the longest accepted form ("NL - 1234 - AB" with
// padding) is far shorter, and a bound keeps a pasted paragraph from costing anything.
const maxPostcodeInput = 64

// postcodeParts is a postcode split into what people type: an optional country prefix, the four
// digits and the Dutch letters.
type postcodeParts struct {
	prefix  Country // country named by a prefix ("NL-", "B-", "BE "), "" when none
	digits  string  // always four ASCII digits
	letters string  // two upper-case ASCII letters, or "" (Belgium, or a Dutch PC4)
}

// NormalizePostcode returns the register form of a typed postcode: NL "1234AB" (upper case, no
// space), BE "1130". It accepts what people type in a checkout field: any letter case, spaces,
// a hyphen or a dot between digits and letters, a country prefix ("NL-1234 AB", "NL 1234AB",
// "B-1130", "BE-1130", "BE1130"), surrounding punctuation such as a trailing dot, and
// full-width digits and letters (U+FF10 and on), which Japanese and Chinese input methods
// produce and which are never ambiguous.
//
// NL follows the BAG pattern ^[1-9][0-9]{3}[A-Z]{2}$ and also rejects the letter pairs SA, SD
// and SS, which PostNL never issued (their associations with the occupation). A Dutch PC4 alone
// ("1234") is rejected: the register keys every address on the full postcode.
//
// BE accepts 1000 to 9992, the range bpost issues. 0612, the Sinterklaas/Saint-Nicolas
// postcode, is rejected on purpose: it only serves letters to Saint Nicholas, no register
// address carries it, and a parcel sent there never arrives.
//
// A prefix naming the other country is a format error rather than being ignored: "B-1130"
// typed into a Dutch form means the country field is wrong, and saying so beats a lookup that
// cannot succeed. Countries other than NL and BE give ErrPostcodeFormat: we know no pattern.
func NormalizePostcode(c Country, s string) (string, error) {
	p, err := splitPostcode(s)
	if err != nil {
		return "", err
	}
	switch c {
	case NL:
		if p.nl() && p.letters != "" {
			if len(s) == 6 && s[:4] == p.digits && s[4:] == p.letters {
				return s, nil // already the register form: no copy
			}
			return p.digits + p.letters, nil
		}
	case BE:
		if p.be() {
			return p.digits, nil
		}
	}
	return "", ErrPostcodeFormat
}

// FormatPostcode gives the printed form: NL "1234 AB" (one space, as PostNL prints it), BE
// "1130". Text that is not a valid postcode of the country comes back unchanged, so a display
// never loses what the customer typed; the validation answer says what is wrong with it.
func FormatPostcode(c Country, pc string) string {
	norm, err := NormalizePostcode(c, pc)
	if err != nil {
		return pc
	}
	if c == NL {
		return norm[:4] + " " + norm[4:]
	}
	return norm
}

// PostcodeCountry tells which countries a typed postcode can belong to, for answers that must
// ask the customer (COUNTRY_AMBIGUOUS) rather than guess. Four digits and two letters are Dutch
// only. Four digits alone may be Belgian or the four-digit part (PC4) of a Dutch postcode, so
// both flags can be set. A country prefix settles it. Both flags are false when the text fits
// neither country.
func PostcodeCountry(s string) (nl, be bool) {
	p, err := splitPostcode(s)
	if err != nil {
		return false, false
	}
	return p.nl(), p.be()
}

// nl reports whether the parts can be a Dutch postcode or, without letters, a Dutch PC4.
func (p postcodeParts) nl() bool {
	if p.prefix == BE || p.digits[0] == '0' {
		return false
	}
	switch p.letters {
	case "SA", "SD", "SS":
		return false
	}
	return true
}

// be reports whether the parts are a Belgian postcode bpost issues for delivery.
func (p postcodeParts) be() bool {
	if p.prefix == NL || p.letters != "" {
		return false
	}
	return p.digits >= "1000" && p.digits <= "9992"
}

// splitPostcode does the shape checks shared by both countries; the country rules are in nl and
// be. It returns ErrPostcodeEmpty or ErrPostcodeFormat.
func splitPostcode(s string) (postcodeParts, error) {
	if p, ok := registerForm(s); ok {
		return p, nil
	}
	return splitTyped(s)
}

// splitTyped splits a postcode as typed, folding what people type around it.
func splitTyped(s string) (postcodeParts, error) {
	if len(s) > 16*maxPostcodeInput {
		return postcodeParts{}, ErrPostcodeFormat
	}
	t := trimToAlnum(foldTyped(s))
	if t == "" {
		return postcodeParts{}, ErrPostcodeEmpty
	}
	if len(t) > maxPostcodeInput {
		return postcodeParts{}, ErrPostcodeFormat
	}
	t = strings.ToUpper(t)
	var p postcodeParts
	switch {
	case hasCountryPrefix(t, "NL"):
		p.prefix, t = NL, t[2:]
	case hasCountryPrefix(t, "BE"):
		p.prefix, t = BE, t[2:]
	case hasCountryPrefix(t, "B"):
		p.prefix, t = BE, t[1:]
	}
	t = strings.TrimLeft(t, postcodeSeparators)
	if len(t) < 4 || !asciiDigits(t[:4]) {
		return postcodeParts{}, ErrPostcodeFormat
	}
	p.digits = t[:4]
	rest := strings.TrimLeft(t[4:], postcodeSeparators)
	switch {
	case rest == "" && len(t) == 4:
	case len(rest) == 2 && asciiUpper(rest[0]) && asciiUpper(rest[1]):
		p.letters = rest
	default:
		return postcodeParts{}, ErrPostcodeFormat
	}
	return p, nil
}

// registerForm splits a postcode already in the register's form ("1234AB", "1130"): every
// stored postcode an answer formats, and most typed ones, need none of the folding, which
// would cost an answer several allocations per address.
func registerForm(s string) (postcodeParts, bool) {
	if (len(s) != 4 && len(s) != 6) || !asciiDigits(s[:4]) {
		return postcodeParts{}, false
	}
	if len(s) == 6 && !(asciiUpper(s[4]) && asciiUpper(s[5])) {
		return postcodeParts{}, false
	}
	return postcodeParts{digits: s[:4], letters: s[4:]}, true
}

// postcodeSeparators may stand after a country prefix and between digits and letters: people
// type "1234 AB", "1234-AB" and "1234.AB" (foldTyped already made every space a single ' ').
const postcodeSeparators = " -."

// hasCountryPrefix reports whether t starts with the prefix followed by something that is not
// a letter, so "B-1130" and "BE1130" count but a word that merely starts with B does not.
func hasCountryPrefix(t, prefix string) bool {
	if len(t) <= len(prefix) || !strings.HasPrefix(t, prefix) {
		return false
	}
	return !asciiUpper(t[len(prefix)])
}

func asciiDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func asciiUpper(b byte) bool { return b >= 'A' && b <= 'Z' }

// trimToAlnum drops everything before the first and after the last letter or digit, because
// people paste postcodes with quotes, brackets and a trailing dot or comma.
func trimToAlnum(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// foldTyped is the first step for every typed field. It makes the text valid UTF-8 (invalid
// bytes become U+FFFD, so callers can put results in JSON), turns full-width ASCII forms into
// ASCII, every kind of space and control character into one ' ' (collapsed and trimmed), the
// Unicode dashes, slashes and apostrophes that word processors and phones substitute into
// their ASCII forms, and drops invisible format characters (zero-width space, soft hyphen,
// BOM). It does not fold diacritics: that is a matching decision, made in the matching engine.
func foldTyped(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		i += w
		switch {
		case r >= 0xFF01 && r <= 0xFF5E:
			r -= 0xFEE0
		case r == 0x3000:
			r = ' '
		case r >= 0x2010 && r <= 0x2015, r == 0x2212, r == 0xFE58, r == 0xFE63:
			r = '-'
		case r == 0x2044, r == 0x2215:
			r = '/'
		case r == 0x2018, r == 0x2019, r == 0x02BC, r == 0x2032:
			r = '\''
		}
		switch {
		case unicode.IsSpace(r), unicode.IsControl(r):
			space = true
			continue
		case unicode.Is(unicode.Cf, r):
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}
