package match

import (
	"strings"
	"unicode/utf8"

	"github.com/adreswijzer/adreswijzer"
)

// The other readings of a request's lines, tried when the parser's own finds nothing or
// finds the address only on a street other than the one typed.

// reread tries the other readings of the lines (otherReadings) after the first reading's
// outcome out, and returns the first that finds the address on a street named as typed, or v
// and out when none does. A street whose name ends in a number is a name the customer copies,
// not one they misspell, and a looser match would turn "Hugo de Grootlaan 16 1" (number 16,
// toevoeging 1) into number 1 of a "Hugo de Grootlaan 16" that is only similar to the street.
// Validate calls it when the first reading found nothing, or found the address only by
// correcting the street (a Dutch postcode and number find it whatever street line was read).
func (v *validation) reread(line adreswijzer.AddressLine, out outcome) (*validation, outcome) {
	for _, other := range otherReadings(v.c, line, v.r) {
		alt := &validation{e: v.e, ctx: v.ctx, ds: v.ds, ix: v.ix, c: v.c, r: other.r, moved: v.moved, altered: v.altered}
		alt.parse(other.line)
		if altOut, err := alt.run(); err == nil && altOut.foundAsTyped() {
			return alt, altOut
		}
	}
	return v, out
}

// otherReadings are the readings of address1 to try when the parser's own finds nothing:
//   - "Punter 46 15": not Punter 46 with toevoeging 15, but perhaps number 15 in the street
//     "Punter 46" (line.Alt);
//   - "Rue du 17 Décembre 1944" with "3" in address2: the whole line is the street, and the
//     house number is in address2. The parser reads a trailing number as the house number;
//     only the register can tell that it belongs to the name.
//   - "Jansen Bouw BV" in address1 and "1 Horn" in address2, read as number 1 with
//     toevoeging HORN after a street "Jansen Bouw BV" (as "16 bov" is read after "Hugo de
//     Grootlaan"), is a company name above the street line "1 Horn" (Weesp's Horn):
//     address2 as the line, address1 aside.
func otherReadings(c adreswijzer.Country, line adreswijzer.AddressLine, r adreswijzer.ValidateRequest) []reading {
	var out []reading
	if line.Alt != nil {
		out = append(out, reading{*line.Alt, r})
	}
	addr2 := ""
	if r.Address2 != nil {
		addr2 = strings.TrimSpace(*r.Address2)
	}
	switch {
	case addr2 == "" || line.PoBox:
	case line.HasNumber:
		out = append(out, reading{adreswijzer.AddressLine{Street: collapseSpaces(strings.ToValidUTF8(r.Address1, "\uFFFD"))}, r})
	default:
		if l2 := adreswijzer.ParseAddressLine(c, addr2); l2.HasNumber && additionLike(l2.Street) {
			only := r
			only.Address2 = nil
			out = append(out, reading{l2, only})
		}
	}
	return out
}

// reading is one way to read a request: its street line, and the request with what that
// line took out of it.
type reading struct {
	line adreswijzer.AddressLine
	r    adreswijzer.ValidateRequest
}

// additionLike reports whether what follows a house number may be its toevoeging rather
// than a street: one word of at most four characters, the most a BAG huisnummertoevoeging
// has.
func additionLike(s string) bool {
	return s != "" && utf8.RuneCountInString(s) <= 4 && !strings.ContainsAny(s, " \t")
}
