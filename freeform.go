package adreswijzer

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// FreeForm is an address written as text, split into the fields of a checkout form.
type FreeForm struct {
	Address1, Address2, Zip, City string
	// Country is what a country word in the text named: NL, BE, another ISO code (which
	// gets UNSUPPORTED_COUNTRY), or "" when there was none.
	Country string
}

// PlaceKnown reports whether a text names a locality or municipality of a loaded register.
// The reader asks it where only the registers can tell a town from the rest of a line:
// "Achtergracht 1 Weesp" has no comma before its town, and "1502 Lembeek Stevens-de
// Waelplein 9" none after it. A nil PlaceKnown knows no place, and the reader then cuts
// by commas, lines and postcodes alone.
type PlaceKnown func(name string) bool

func (k PlaceKnown) has(words []string) bool {
	return k != nil && len(words) > 0 && k(strings.Join(words, " "))
}

// SplitFreeForm reads an address as people write it on one line with commas or on several
// lines: name and company lines, the street line, perhaps a line with the apartment or box,
// the postcode with the city, perhaps the country, and the postcode with the city may as
// well come first, as platforms that print the locality first write it. It finds the
// postcode (the rightmost text that can be one, because a street may hold numbers), takes
// the city from beside it, and the street line from the lines before it or, when none of
// those has a house number, after it; the parsers of the street line and the matching
// engine do the rest, so this only has to cut the text, never to judge it. It is the one
// reader of such text: the agent's free-form address and the fields of a validate request
// whose postcode is not where it belongs (ReadFields) both go through it.
func SplitFreeForm(s string, known PlaceKnown) FreeForm {
	var f FreeForm
	var segs [][]string // segments of the text, each as its words
	for _, seg := range strings.FieldsFunc(s, isSegmentBreak) {
		for _, words := range splitAtDashes(strings.Fields(seg)) {
			if words = trimWords(words); len(words) == 0 {
				continue
			}
			if c := countryWord(strings.Join(words, " ")); c != "" {
				f.Country = c
				continue
			}
			segs = append(segs, words)
		}
	}
	// A country written after the city without a comma: "1130 Haren Belgique",
	// "1381 BC Weesp NL".
	if n := len(segs); n > 0 {
		var c string
		if segs[n-1], c = cutCountry(segs[n-1], known); f.Country == "" {
			f.Country = c
		}
	}
	if len(segs) == 0 {
		return f
	}
	var pre, post [][]string // the lines before and after the postcode's
	switch si, wi, k := findPostcode(segs); {
	case si >= 0:
		seg := segs[si]
		f.Zip = strings.Join(seg[wi:wi+k], " ")
		before, after, rest := seg[:wi], seg[wi+k:], segs[si+1:]
		switch {
		case len(after) > 0:
			city, street := cutLeadingPlace(after, known)
			f.City = strings.Join(city, " ")
			if len(street) > 0 {
				post = append(post, street)
			}
		case len(before) > 0 && !isStreetLine(before):
			// "Weesp 1381 BN" on a line of its own.
			f.City, before = strings.Join(before, " "), nil
		case len(rest) > 0 && !isStreetLine(rest[0]):
			// "Achtergracht 1, 1381 BK, Weesp".
			f.City, rest = strings.Join(rest[0], " "), rest[1:]
		}
		pre = append(pre, segs[:si]...)
		if len(before) > 0 {
			pre = append(pre, before)
		}
		post = append(post, rest...)
	case len(segs) > 1 && known.has(segs[0]) && isStreetLine(segs[len(segs)-1]):
		// "Weesp, Achtergracht 1": the town first, and no postcode.
		f.City, post = strings.Join(segs[0], " "), segs[1:]
	case len(segs) > 1:
		f.City, pre = strings.Join(segs[len(segs)-1], " "), segs[:len(segs)-1]
	default:
		pre = segs
	}
	f.Address1, f.Address2 = pickStreetLine(pre, post)
	if f.City == "" {
		f.Address1, f.City = cutTrailingPlace(f.Address1, known)
	}
	// "1381 BC Weesp NL, Nieuwstraat 12a": the city need not be the last segment.
	if city, c := cutCountry(strings.Fields(f.City), known); c != "" {
		f.City = strings.Join(city, " ")
		if f.Country == "" {
			f.Country = c
		}
	}
	f.Address1, f.Address2, f.City = trimEdges(f.Address1), trimEdges(f.Address2), trimEdges(f.City)
	return f
}

// isSegmentBreak separates the lines of an address: line breaks, and the commas and
// semicolons people put in their place on one line.
func isSegmentBreak(r rune) bool { return r == '\n' || r == '\r' || r == ',' || r == ';' }

// splitAtDashes cuts a segment at a dash standing alone between spaces where people use it
// as a comma ("Rue du Pré aux Oies 134 bte 1 - 1130 Bruxelles - Belgique"): before a word
// or a postcode with its town. A dash before another number or a single letter stays, for
// it joins a range or a toevoeging ("Kerkstraat 12 - 14", "Bloemendalerweg 51 - A").
func splitAtDashes(words []string) [][]string {
	var out [][]string
	start := 0
	for i, w := range words {
		if !isDash(w) || !dashSeparates(words[i+1:]) {
			continue
		}
		if i > start {
			out = append(out, words[start:i])
		}
		start = i + 1
	}
	if start < len(words) {
		out = append(out, words[start:])
	}
	return out
}

func isDash(w string) bool {
	switch w {
	case "-", "--", "\u2013", "\u2014", "\u2212":
		return true
	}
	return false
}

// dashSeparates reports whether what follows a lone dash starts a new segment: nothing, a
// word of two or more letters, or a postcode followed by more.
func dashSeparates(rest []string) bool {
	if len(rest) == 0 {
		return true
	}
	if r, _ := utf8.DecodeRuneInString(rest[0]); unicode.IsLetter(r) {
		return utf8.RuneCountInString(rest[0]) >= 2
	}
	for k := 2; k >= 1; k-- {
		if len(rest) > k {
			if nl, be := PostcodeCountry(strings.Join(rest[:k], " ")); nl || be {
				return true
			}
		}
	}
	return false
}

// isEdgePunct is what ends or starts a segment as sentence punctuation ("Weesp.",
// "12a."), never part of a name or number; the apostrophe stays for "'s-Gravenhage".
func isEdgePunct(r rune) bool {
	return strings.ContainsRune(".:!?\"\u00ab\u00bb\u201c\u201d-\u2013\u2014\u2212", r)
}

// trimWords takes the punctuation off the ends of a segment, dropping words of nothing else.
func trimWords(words []string) []string {
	for len(words) > 0 {
		if w := strings.TrimLeftFunc(words[0], isEdgePunct); w != "" {
			words[0] = w
			break
		}
		words = words[1:]
	}
	for len(words) > 0 {
		if w := strings.TrimRightFunc(words[len(words)-1], isEdgePunct); w != "" {
			words[len(words)-1] = w
			break
		}
		words = words[:len(words)-1]
	}
	return words
}

func trimEdges(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return unicode.IsSpace(r) || isEdgePunct(r) })
}

// cutCountry takes a country name or code off the end of words ("Weesp NL", "Haren
// Belgique"). A code of two or three letters counts only after a word with a letter in it,
// because "1381 BE" is a Dutch postcode with the letters BE; and nothing is cut from the
// name of a place the registers know.
func cutCountry(words []string, known PlaceKnown) (rest []string, code string) {
	for k := min(3, len(words)-1); k >= 1; k-- {
		tail := strings.Join(words[len(words)-k:], " ")
		c := countryWord(tail)
		if c == "" {
			continue
		}
		rest = words[:len(words)-k]
		if len(tail) <= 3 && !wordHasLetter(rest[len(rest)-1]) || known.has(words) {
			return words, ""
		}
		return rest, c
	}
	return words, ""
}

// findPostcode returns the segment, the word and the number of words (1 or 2) of the
// rightmost text that can be a Dutch or Belgian postcode, or si = -1. A bare four-digit
// number that ends a street line ("Kerkstraat 1000") is taken for the house number when
// the address reads better so: when a town follows on a line without a street, or when an
// earlier line starts with a postcode ("1000 Brussel, Kerkstraat 1000").
func findPostcode(segs [][]string) (si, wi, k int) {
	for si = len(segs) - 1; si >= 0; si-- {
		seg := segs[si]
		for wi = len(seg) - 1; wi >= 0; wi-- {
			for k = 2; k >= 1; k-- {
				if wi+k > len(seg) {
					continue
				}
				if nl, be := PostcodeCountry(strings.Join(seg[wi:wi+k], " ")); !nl && !be {
					continue
				}
				if k == 1 && endsStreetLine(seg, wi) && houseNumberRather(segs, si) {
					continue
				}
				return si, wi, k
			}
		}
	}
	return -1, 0, 0
}

// endsStreetLine reports whether the word at wi is a bare number after a segment's words
// without digits that is the house number of the segment read as a street line, as in
// "Kerkstraat 1000" and "Haachtsesteenweg 1677 bus 8".
func endsStreetLine(seg []string, wi int) bool {
	if wi == 0 || !asciiDigits(seg[wi]) || hasDigit(seg[:wi]) {
		return false
	}
	if wi == len(seg)-1 {
		return true
	}
	l := ParseAddressLine(BE, strings.Join(seg, " "))
	return l.HasNumber && strconv.Itoa(l.Number.Number) == strings.TrimLeft(seg[wi], "0") && l.Street == strings.Join(seg[:wi], " ")
}

// houseNumberRather decides for a number that ends a street line in segment si.
func houseNumberRather(segs [][]string, si int) bool {
	if si+1 < len(segs) {
		// "Kerkstraat 1000, Brussel", unlike "Brussel 1000, Kerkstraat 12".
		for _, seg := range segs[si+1:] {
			if isStreetLine(seg) {
				return false
			}
		}
		return true
	}
	for _, seg := range segs[:si] {
		for k := 1; k <= min(2, len(seg)); k++ {
			if nl, be := PostcodeCountry(strings.Join(seg[:k], " ")); nl || be {
				return true
			}
		}
	}
	return false
}

// isStreetLine reports whether words hold a street and a house number.
func isStreetLine(words []string) bool {
	p := ParseAddressLine(NL, strings.Join(words, " "))
	return p.HasNumber && p.Street != ""
}

// cutLeadingPlace splits the text after a postcode into the town and a street line that
// follows it without a comma ("1502 Lembeek Stevens-de Waelplein 9"). Only a place the
// registers know is cut off; otherwise it is all the town.
func cutLeadingPlace(after []string, known PlaceKnown) (city, street []string) {
	if known != nil && isStreetLine(after) {
		for k := min(3, len(after)-1); k >= 1; k-- {
			if known.has(after[:k]) && isStreetLine(after[k:]) {
				return after[:k], after[k:]
			}
		}
	}
	return after, nil
}

// cutTrailingPlace splits a street line into the street line and a town after the house
// number without a comma ("Achtergracht 1 Weesp"). The town must be a place the registers
// know, and the line without it must read as the same street and house number: the words
// were then no part of the number ("Kerkstraat 12 Ee" has the toevoeging EE, not the town
// Ee).
func cutTrailingPlace(line string, known PlaceKnown) (street, city string) {
	words := strings.Fields(line)
	if known == nil || len(words) < 2 {
		return line, ""
	}
	whole := ParseAddressLine(NL, line)
	if !whole.HasNumber || whole.Street == "" {
		return line, ""
	}
	for k := min(3, len(words)-1); k >= 1; k-- {
		if !known.has(words[len(words)-k:]) {
			continue
		}
		rest := strings.Join(words[:len(words)-k], " ")
		if p := ParseAddressLine(NL, rest); p.HasNumber && p.Street == whole.Street && p.Number == whole.Number {
			return rest, strings.Join(words[len(words)-k:], " ")
		}
	}
	return line, ""
}

// pickStreetLine takes the first line with a street and a house number as address1 and
// what follows it (an apartment or box line) as address2: from the lines before the
// postcode, or when none of them has one, from the lines after it. Lines before the street
// line are names and companies, which the registers do not hold. Without such a line the
// lines are joined, so that "Hugo de Grootlaan" and "16" on two lines still make a street
// line.
func pickStreetLine(pre, post [][]string) (address1, address2 string) {
	for _, lines := range [][][]string{pre, post} {
		for i, l := range lines {
			if isStreetLine(l) {
				return strings.Join(l, " "), joinLines(lines[i+1:])
			}
		}
	}
	if len(pre) > 0 {
		return joinLines(pre), ""
	}
	return joinLines(post), ""
}

func joinLines(lines [][]string) string {
	var parts []string
	for _, l := range lines {
		parts = append(parts, strings.Join(l, " "))
	}
	return strings.Join(parts, " ")
}

func hasDigit(words []string) bool {
	for _, w := range words {
		if strings.IndexFunc(w, unicode.IsDigit) >= 0 {
			return true
		}
	}
	return false
}

func wordHasLetter(w string) bool { return strings.IndexFunc(w, unicode.IsLetter) >= 0 }

// countryNames maps what people write for a country, folded (lower case, no diacritics),
// to its ISO code. The neighbours are listed so that their addresses are answered with
// UNSUPPORTED_COUNTRY instead of a search of the Dutch or Belgian register.
var countryNames = map[string]string{
	"nl": "NL", "nld": "NL", "nederland": "NL", "netherlands": "NL", "the netherlands": "NL",
	"holland": "NL", "pays-bas": "NL", "pays bas": "NL", "niederlande": "NL", "koninkrijk der nederlanden": "NL",
	"be": "BE", "bel": "BE", "belgie": "BE", "belgium": "BE", "belgique": "BE", "belgien": "BE",
	"belgica": "BE", "belgio": "BE", "koninkrijk belgie": "BE", "royaume de belgique": "BE",
	"de": "DE", "deu": "DE", "deutschland": "DE", "germany": "DE", "duitsland": "DE", "allemagne": "DE",
	"fr": "FR", "fra": "FR", "france": "FR", "frankrijk": "FR", "frankreich": "FR",
	"lu": "LU", "lux": "LU", "luxembourg": "LU", "luxemburg": "LU",
	"gb": "GB", "uk": "GB", "united kingdom": "GB", "england": "GB", "verenigd koninkrijk": "GB", "royaume-uni": "GB",
}

// CountryOfName returns the ISO code a text names as a country ("Nederland", "Belgique",
// "be", "Deutschland"), or "" when it names none.
func CountryOfName(s string) string { return countryWord(s) }

// countryWord returns the ISO code a text names as a country, or "".
func countryWord(s string) string {
	return countryNames[foldCountry(s)]
}

var diacritics = strings.NewReplacer(
	"ë", "e", "é", "e", "è", "e", "ê", "e", "É", "e", "Ë", "e",
	"ï", "i", "í", "i", "î", "i", "ü", "u", "ú", "u", "û", "u",
	"ä", "a", "á", "a", "à", "a", "â", "a", "ö", "o", "ó", "o", "ô", "o", "ç", "c",
)

func foldCountry(s string) string {
	s = strings.Trim(strings.TrimSpace(s), ".()")
	return diacritics.Replace(strings.ToLower(strings.Join(strings.Fields(s), " ")))
}
