package adreswijzer

import (
	"strconv"
	"strings"
)

// Fields are the address fields of a checkout form, as a validate request carries them.
type Fields struct {
	Address1, Address2, Zip, City string
}

// ReadFields puts the postcode and the town of a checkout's fields where they belong when
// the postcode field does not hold a postcode of the country. Shop platforms and agents
// send a whole address in address1 or address2 ("Hugo de Grootlaan 16 bov, 1381 CS
// Weesp"), customers swap the postcode and town fields, or type the town into the postcode
// field. Each field is read by SplitFreeForm, the reader of addresses written as text, so
// that the fields of a form and the agent's free text follow the same rules:
//
//   - the postcode field, else the city field ("1381 CS Weesp" in either, or "Weesp" and
//     "1381 CS" swapped);
//   - else address1, then address2, as a line that may hold the postcode and town, the
//     street line before them staying in its field;
//   - else, when no postcode is anywhere and the city is empty, a town the registers know
//     at the end of address1 ("Achtergracht 1 Weesp"), or in the postcode field.
//
// A postcode counts only when it has the country's form. A postcode field that is already
// one is left alone, and so are the others, except a city that repeats the postcode before
// the town ("1381 CS Weesp"). moved reports whether anything was moved: the input was then
// typed differently from the address it names, however well it names it.
func ReadFields(c Country, f Fields, known PlaceKnown) (out Fields, moved bool) {
	if _, err := NormalizePostcode(c, f.Zip); err == nil {
		if city, ok := cityAfterPostcode(c, f.Zip, f.City, known); ok {
			f.City = city
			return f, true
		}
		return f, false
	}
	if zip, city, ok := postcodeAndTown(c, f.Zip, f.City, known); ok {
		f.Zip, f.City = zip, city
		return f, true
	}
	if g, ok := postcodeInLines(c, f, known); ok {
		return g, true
	}
	return townInLines(f, known)
}

// cityAfterPostcode reads a city field that repeats the postcode ("1381 CS Weesp" beside
// "1381 CS"): the town is what follows it. Only a city with a digit is read.
func cityAfterPostcode(c Country, zip, city string, known PlaceKnown) (string, bool) {
	if strings.IndexFunc(city, isASCIIDigitRune) < 0 {
		return "", false
	}
	r := SplitFreeForm(city, known)
	if r.City == "" || r.Address1 != "" || r.Address2 != "" || !samePostcode(c, r.Zip, zip) {
		return "", false
	}
	return r.City, true
}

// postcodeAndTown reads the postcode field, and else the city field, as a line that may
// hold the postcode and the town: "1381 CS Weesp" in either, or the two swapped ("Weesp"
// and "1381 CS"). A town typed in the other field stays the city.
func postcodeAndTown(c Country, zip, city string, known PlaceKnown) (string, string, bool) {
	if r, ok := postcodeField(c, zip, known); ok {
		if strings.TrimSpace(city) != "" {
			return r.Zip, city, true
		}
		return r.Zip, r.City, true
	}
	if r, ok := postcodeField(c, city, known); ok {
		if r.City == "" {
			return r.Zip, zip, true
		}
		return r.Zip, r.City, true
	}
	return "", "", false
}

// postcodeField reads a field that holds a postcode of the country and perhaps a town,
// nothing else.
func postcodeField(c Country, s string, known PlaceKnown) (FreeForm, bool) {
	if strings.IndexFunc(s, isASCIIDigitRune) < 0 {
		return FreeForm{}, false
	}
	r := SplitFreeForm(s, known)
	return r, isPostcodeOf(c, r.Zip) && r.Address1 == "" && r.Address2 == ""
}

// postcodeInLines finds the postcode in address1 or else address2, read as a line of text.
// The rest of that line stays in its field; the town fills an empty city, and what the
// postcode field held instead of a postcode does so otherwise.
func postcodeInLines(c Country, f Fields, known PlaceKnown) (Fields, bool) {
	for i, line := range [2]string{f.Address1, f.Address2} {
		if !hasFourDigits(line) {
			continue // "Hugo de Grootlaan 16 bov": no postcode to find
		}
		r := SplitFreeForm(line, known)
		if !isPostcodeOf(c, r.Zip) {
			continue
		}
		rest := joinNonEmpty(r.Address1, r.Address2)
		if (i == 0 || !ParseAddressLine(c, f.Address1).HasNumber) && postcodeIsNumber(c, line, rest, r, known) {
			continue
		}
		g := f
		if i == 0 {
			g.Address1 = rest
			if rest == "" {
				// Only the postcode and town were in address1: the street line is in
				// address2.
				g.Address1, g.Address2 = f.Address2, ""
			}
		} else {
			g.Address2 = rest
		}
		g.Zip = r.Zip
		switch {
		case strings.TrimSpace(f.City) != "":
		case r.City != "":
			g.City = r.City
		default:
			g.City = f.Zip
		}
		return g, true
	}
	return f, false
}

// postcodeIsNumber reports whether the postcode the reader found in a street line is the
// line's house number: "Haachtsesteenweg 1420" and "Chaussée de Haecht 1369 Haren" are a
// street and number (and town), not a street without a number before a Belgian postcode.
// It is, when the line has no house number left without it, unless all the line held was
// the postcode and a town the registers know ("1130 Haren").
func postcodeIsNumber(c Country, line, rest string, r FreeForm, known PlaceKnown) bool {
	l := ParseAddressLine(c, line)
	pc, err := NormalizePostcode(c, r.Zip)
	if err != nil || !l.HasNumber || strconv.Itoa(l.Number.Number) != strings.TrimLeft(pc[:4], "0") {
		return false
	}
	if rest == "" && r.City != "" && known != nil && known(r.City) {
		return false
	}
	return rest == "" || !ParseAddressLine(c, rest).HasNumber
}

// townInLines takes the town a street line ends with ("Achtergracht 1 Weesp",
// "Achtergracht 1, Weesp"), or that stands in the postcode field, into an empty city.
func townInLines(f Fields, known PlaceKnown) (Fields, bool) {
	if known == nil || strings.TrimSpace(f.City) != "" {
		return f, false
	}
	if zip := strings.TrimSpace(f.Zip); zip != "" && known(zip) {
		f.Zip, f.City = "", zip
		return f, true
	}
	if strings.IndexByte(strings.TrimSpace(f.Address1), ' ') < 0 {
		return f, false
	}
	// The reader's own cut, without the postcode it may have read where none was taken
	// ("Chaussée de Haecht 1369 Haren").
	street, town := cutTrailingPlace(f.Address1, known)
	if town == "" {
		return f, false
	}
	f.Address1, f.City = strings.TrimRight(street, " ,;"), town
	return f, true
}

// isPostcodeOf reports whether s is a postcode of country c.
func isPostcodeOf(c Country, s string) bool {
	if s == "" {
		return false
	}
	_, err := NormalizePostcode(c, s)
	return err == nil
}

// samePostcode reports whether a and b are the same postcode of country c.
func samePostcode(c Country, a, b string) bool {
	pa, err := NormalizePostcode(c, a)
	if err != nil {
		return false
	}
	pb, err := NormalizePostcode(c, b)
	return err == nil && pa == pb
}

func joinNonEmpty(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + " " + b
}

func isASCIIDigitRune(r rune) bool { return r >= '0' && r <= '9' }

// hasFourDigits reports whether s has a run of exactly four digits, as every postcode of
// either country has.
func hasFourDigits(s string) bool {
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && isASCIIDigit(s[j]) {
			j++
		}
		if j-i == 4 {
			return true
		}
		i = max(j, i+1)
	}
	return false
}
