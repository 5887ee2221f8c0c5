package adreswijzer

import "strings"

// AddressLine is a typed street line (address1) split into street and house number.
type AddressLine struct {
	// Street is the street part as typed: folded to valid UTF-8 with spaces collapsed, trimmed,
	// with the house number and a "nr" or "n°" before it removed ("Kerkstraat",
	// "Rue de la Loi"). For a PO box it is the PO-box word as typed ("Postbus").
	Street    string
	Number    HouseNumber
	HasNumber bool
	// PoBox: the line is a PO box or business-reply number, not a street address: Postbus,
	// Antwoordnummer, PB, Boîte postale, BP, Postfach, P.O. Box. Such lines have no register
	// address (the BAG only numbers buildings, berths and pitches), so the matcher answers
	// PO_BOX_NOT_ALLOWED or accepts them unverified.
	PoBox bool
	// Alt is the other reading of a line with two spaced numbers in a row, when there is
	// one: "Punter 46 15" is read as street "Punter" with number 46 and toevoeging 15, and
	// Alt as street "Punter 46" with number 15 (Lelystad names its streets so). A line that
	// starts like an ordinal street ("15e Achtergracht") has as Alt number 15 with letter E.
	// Only the register can tell which is right; the matcher tries Alt when the reading
	// fails.
	Alt *AddressLine
}

// ParseAddressLine splits a typed street line. It never fails: a line without a house number
// gives HasNumber false and the whole line as Street, which the caller reports as
// MISSING_HOUSE_NUMBER. Like ParseHouseNumber and ParseUnit it reads at most the first 4096
// bytes, far beyond the API's field limits.
//
// Where the number is, and why:
//   - Street first is the Dutch and Belgian norm: "Kerkstraat 12a", "Kerkstraat 12 A",
//     "Kerkstraat12a", "Rue de la Loi 16 bte 3", "Rue de la Loi, 16/3". The house number is
//     the first number after which everything up to the end belongs to a house number
//     (suffix, unit, box, floor, or words such as "links" that are dropped); text after a
//     comma that follows a complete number is ignored ("Kerkstraat 12, Amsterdam").
//   - A number can be part of the street: after an article ("Rue du 8 Mai 12", and
//     "Rue du 8 Mai" has no house number), as an ordinal ("2e Hugo de Grootstraat 12"), in a
//     year range ("Laan 1940-1945 12": a number followed by another bare number is no house
//     number), or glued to one or two letters as a road name ("Autosnelweg A12").
//   - Of two numbers in a row the first belongs to the street when the street is a lone
//     street noun ("Plein 1813 4": a street called just "Plein" with toevoeging 4 at 1813 is
//     the less likely reading, while "Plein 1" in The Hague keeps its number) or when it is a
//     year ("Esplanade Solidarnosc 1980 5": house numbers 1800 to 2099 with a spaced
//     toevoeging are rarer than streets named after a year). A street that ends in a number
//     and comes without a house number ("Plein 1813") is read as having one; the matcher,
//     which knows the street names, must try the whole line as a street when that fails.
//   - Number first, as in French and in English habit: "12 Kerkstraat", "12, rue de la Loi",
//     "12bis rue X". Only what is glued or joined to a leading number ("12-2", "12A")
//     belongs to it, or everything before a comma.
//   - Ranges give the first number ("Kerkstraat 12-14" is 12): see ParseHouseNumber for when
//     "12-14" is a range (BE) and when a toevoeging (NL).
//   - A floor after the number follows ParseHouseNumber: "Kerkstraat 12 2 hoog" is number 12
//     with unit 2 in NL, number 12 alone in BE.
//   - Text after the number that is neither part of it nor after a comma is ignored when no
//     better reading exists ("Kerkstraat 12 Amsterdam" gives 12): a house number should not
//     be lost to a city typed in the wrong field.
func ParseAddressLine(c Country, s string) AddressLine {
	f, toks := typedTokens(s)
	if end, ok := poBoxEnd(toks); ok {
		return parsePoBox(c, f, toks, end)
	}
	start := 0
	for start < len(toks) && toks[start].kind == tokSep {
		start++
	}
	type cand struct {
		k int
		p numParse
	}
	var complete []cand
	partial := cand{k: -1}
	for k := start; k < len(toks) && len(complete) < 2; k++ {
		if !isNumberCandidate(c, toks, k) {
			continue
		}
		mode := modeLine
		if k == start {
			mode = modeLineStart
		}
		p := parseNumberAt(c, toks, k, mode)
		switch {
		case p.h.Number == 0:
		case p.complete || p.atComma && k > start:
			complete = append(complete, cand{k, p})
		case partial.k < 0 && k > start:
			partial = cand{k, p}
		}
	}
	if len(complete) > 0 {
		pick, other := complete[0], cand{k: -1}
		if len(complete) > 1 {
			// Two numbers in a row, spaced: either may be the house number.
			if s, next := sepAt(toks, pick.k+1); s.onlySpace() && next == complete[1].k {
				other = complete[1]
				if !pick.p.h.Floor && (loneStreetNoun(toks, start, pick.k) || yearLike(toks[pick.k].key)) {
					// "Plein 1813 4": the next number is the house number. Not when it
					// is a floor ("Singel 2 2e", "Singel 2 3 hoog").
					pick, other = other, pick
				}
			}
		}
		line := AddressLine{Street: streetBefore(f, toks, pick.k), Number: pick.p.h, HasNumber: true}
		if other.k >= 0 {
			line.Alt = &AddressLine{Street: streetBefore(f, toks, other.k), Number: other.p.h, HasNumber: true}
		}
		return line
	}
	if a, ok := leadingNumber(c, f, toks, start); ok {
		return a
	}
	if partial.k >= 0 {
		return AddressLine{Street: streetBefore(f, toks, partial.k), Number: partial.p.h, HasNumber: true}
	}
	line := AddressLine{Street: trimStreet(f)}
	if alt, ok := leadingLetterE(c, f, toks, start); ok {
		line.Alt = &alt
	}
	return line
}

// leadingLetterE reads "15e Achtergracht" as number 15 with letter E before the street, the
// other reading of a line that starts like an ordinal ("2e Hugo de Grootstraat"). The line
// is read first as a street without a number; only the register can tell, and the
// matcher tries this reading when that one finds nothing.
func leadingLetterE(c Country, f string, toks []token, k int) (AddressLine, bool) {
	if k+1 >= len(toks) || toks[k].kind != tokNum || toks[k+1].kind != tokWord || toks[k+1].key != "E" || toks[k+1].start != toks[k].end {
		return AddressLine{}, false
	}
	return numberThenStreet(c, f, toks, k)
}

// leadingNumber reads a line that starts with its house number: "12 Kerkstraat",
// "12, rue de la Loi", "12 bte 3, rue de la Loi", "12bis rue X".
func leadingNumber(c Country, f string, toks []token, k int) (AddressLine, bool) {
	if k >= len(toks) || !isNumberCandidate(c, toks, k) {
		return AddressLine{}, false
	}
	for j := k + 1; j < len(toks); j++ {
		if toks[j].kind != tokSep || !strings.ContainsAny(toks[j].key, ",;") {
			continue
		}
		street := trimStreet(f[withApostrophe(f, toks[j].end):])
		if !hasLetter(street) {
			break
		}
		p := parseNumberAt(c, toks[:j], k, modeField)
		if p.h.Number == 0 {
			return AddressLine{}, false
		}
		return AddressLine{Street: street, Number: p.h, HasNumber: true}, true
	}
	return numberThenStreet(c, f, toks, k)
}

// numberThenStreet reads the house number at toks[k] and the street that follows it.
func numberThenStreet(c Country, f string, toks []token, k int) (AddressLine, bool) {
	p := parseNumberAt(c, toks, k, modeLeading)
	if p.h.Number == 0 || p.next >= len(toks) {
		return AddressLine{}, false
	}
	street := trimStreet(f[withApostrophe(f, toks[p.next].start):])
	if !hasLetter(street) {
		return AddressLine{}, false
	}
	return AddressLine{Street: street, Number: p.h, HasNumber: true}, true
}

// isNumberCandidate reports whether the number at toks[k] can start the house number of a
// line rather than belong to the street or to a number before it.
func isNumberCandidate(c Country, toks []token, k int) bool {
	t := toks[k]
	if t.kind != tokNum || numberValue(t.key) == 0 {
		return false
	}
	if joinedToNumber(toks, k) {
		return false
	}
	if w := k - 1; w >= 0 {
		// Glued to a letter or two it is a road number ("Autosnelweg A12", "N201"); glued to a
		// street name it is the house number ("Kerkstraat12a").
		if toks[w].kind == tokWord && len([]rune(toks[w].key)) < 3 {
			return false
		}
		if toks[w].kind == tokSep && strings.Trim(toks[w].key, " '") == "" {
			w--
		}
		if w >= 0 && toks[w].kind == tokWord {
			switch key := toks[w].key; {
			case isArticle(key):
				// After an article the number is part of the name: "Rue du 8 Mai",
				// "Place des 3 Rois".
				return false
			case isBoxWord(BE, key), isAptWord(BE, key):
				// A box number, not a house number: "12 bte 3, rue de la Loi".
				return false
			case key == "TM", key == "TOT", key == "M" && w >= 2 && toks[w-1].key == "/" && toks[w-2].key == "T":
				// The end of a range: "12 t/m 14".
				return false
			}
		}
	}
	// An ordinal that starts a street name: "2e Hugo de Grootstraat", "1ste Kruisstraat"; but
	// "1E bus 2" is house number 1E, and so is "11e" after a street ("Stationsweg 11e
	// Weesp", the town after the number), where an E is a letter far more often than an
	// ordinal inside a name.
	if k+1 < len(toks) && toks[k+1].kind == tokWord && isOrdinal(toks[k+1].key) && !(toks[k+1].key == "E" && wordBefore(toks, k)) {
		if s, w := sepAt(toks, k+2); s.onlySpace() && w < len(toks) && toks[w].kind == tokWord && !isUnitWord(toks[w].key) {
			return false
		}
	}
	// An ordinal inside or at the end of a street name: "Place Albert 1er 24" (BeST writes
	// "Place Albert Ier"), "Avenue Léopold 1er, 12". Ordinal endings other than a lone E
	// are no house-number suffix in either register (BeST has no house number "1ER" or
	// "2EME", BAG letters are single), so the number is the street's when a number follows
	// to be the house number, and in Belgium, where a French ordinal ending can be nothing
	// else, even when none does.
	if k+1 < len(toks) && toks[k+1].kind == tokWord && toks[k+1].start == t.end && isStreetOrdinal(toks[k+1].key) {
		if laterNumber(toks, k+2) || c == BE && isFrenchOrdinal(toks[k+1].key) {
			return false
		}
	}
	return true
}

// wordBefore reports whether a word stands before toks[k].
func wordBefore(toks []token, k int) bool {
	for j := k - 1; j >= 0; j-- {
		if toks[j].kind == tokWord {
			return true
		}
	}
	return false
}

// isStreetOrdinal: the endings that make a number an ordinal and nothing else ("1er",
// "1re", "2ème", "1ste", "2de"); a lone E is left out, as "9E" is a house number.
func isStreetOrdinal(k string) bool {
	return isFrenchOrdinal(k) || k == "STE" || k == "DE"
}

// isFrenchOrdinal: the French ordinal endings, which no Belgian house number takes.
func isFrenchOrdinal(k string) bool {
	switch k {
	case "ER", "ERE", "RE", "EME", "IEME":
		return true
	}
	return false
}

// laterNumber reports whether a number token stands at toks[i] or after it.
func laterNumber(toks []token, i int) bool {
	for ; i < len(toks); i++ {
		if toks[i].kind == tokNum {
			return true
		}
	}
	return false
}

// joinedToNumber reports whether toks[k] continues a number before it, glued or joined by a
// hyphen, slash or dot, as the second half of "1940-1945", "12/3", "3.21", "1A/101" does.
func joinedToNumber(toks []token, k int) bool {
	for j := k - 1; j >= 0 && k-j <= 2*maxUnitLen; j-- {
		switch t := toks[j]; t.kind {
		case tokNum:
			return true
		case tokSep:
			s, _ := sepAt(toks, j)
			if !s.tight() {
				return false
			}
		}
	}
	return false
}

// isUnitWord: words of the house-number grammar, which cannot start a street name.
func isUnitWord(k string) bool {
	return isFloorWord(k) || isBoxWord(BE, k) || isAptWord(BE, k) || isNoise(k) || isSuffixWord(k)
}

// loneStreetNoun reports whether the street before toks[k] is a single generic street noun
// ("Plein", "Laan", "Rue"), which needs the number after it to be a name.
func loneStreetNoun(toks []token, start, k int) bool {
	w := -1
	for j := start; j < k; j++ {
		switch toks[j].kind {
		case tokSep:
		case tokWord:
			if w >= 0 {
				return false
			}
			w = j
		default:
			return false
		}
	}
	return w >= 0 && isStreetNoun(toks[w].key)
}

// yearLike: a number that names a year in a street ("Esplanade Solidarnosc 1980",
// "Rue du 17 décembre 1944") when another number after it can be the house number.
func yearLike(digits string) bool {
	return len(digits) == 4 && digits >= "1800" && digits <= "2099"
}

// streetBefore cuts the street out of the folded line: everything before the number at toks[k],
// without a "nr", "nr." or "n°" right before it.
func streetBefore(f string, toks []token, k int) string {
	cut := toks[k].start
	for j := k - 1; j >= 0; j-- {
		if toks[j].kind == tokSep {
			continue
		}
		if toks[j].kind == tokWord && numberPrefixAt(toks, j) {
			cut = toks[j].start
			continue
		}
		break
	}
	return trimStreet(f[:cut])
}

// numberPrefixAt reports whether the word at toks[j] introduces the number after it. "NO",
// "N" and "NUM" need a dot or a sign after them, as they may end a street name.
func numberPrefixAt(toks []token, j int) bool {
	switch toks[j].key {
	case "NR", "NUMMER", "HUISNUMMER", "HUISNR", "NUMERO":
		return true
	case "NO", "N", "NUM":
		return j+1 < len(toks) && toks[j+1].kind == tokSep && strings.ContainsAny(toks[j+1].key, ".°º:#")
	}
	return false
}

// trimStreet removes the punctuation that separated the street from the number.
// withApostrophe moves the start of a street back over an apostrophe that begins its name
// ("22b 's-Gravelandseweg", "12, 't Zand"): the tokenizer puts it in the separator before
// the first word, but it belongs to the name.
func withApostrophe(f string, from int) int {
	for from > 0 && f[from-1] == '\'' {
		from--
	}
	return from
}

func trimStreet(s string) string { return strings.Trim(s, " ,;:-/#") }

func hasLetter(s string) bool {
	for _, t := range tokenize(s) {
		if t.kind == tokWord {
			return true
		}
	}
	return false
}

// poBoxForms are the PO-box words of NL, BE and the neighbours, split into tokens. The short
// ones (PB, BP) only count when a number follows, because they are common letter pairs.
var poBoxForms = []struct {
	words      []string
	needNumber bool
}{
	{[]string{"POSTBUS"}, false}, {[]string{"PASTBUS"}, false}, {[]string{"POSTBOX"}, false},
	{[]string{"POBOX"}, false}, {[]string{"ANTWOORDNUMMER"}, false}, {[]string{"POSTFACH"}, false},
	{[]string{"PO", "BOX"}, false}, {[]string{"P", "O", "BOX"}, false},
	{[]string{"BOITE", "POSTALE"}, false}, {[]string{"CASE", "POSTALE"}, false},
	{[]string{"PB"}, true}, {[]string{"BP"}, true}, {[]string{"P", "B"}, true}, {[]string{"B", "P"}, true},
}

// poBoxEnd reports whether the line starts with a PO-box word and returns the index after it.
func poBoxEnd(toks []token) (int, bool) {
	for _, form := range poBoxForms {
		i, ok := 0, true
		for _, w := range form.words {
			_, j := sepAt(toks, i)
			if j >= len(toks) || toks[j].kind != tokWord || toks[j].key != w {
				ok = false
				break
			}
			i = j + 1
		}
		if !ok {
			continue
		}
		if form.needNumber {
			if _, j := sepAt(toks, i); j >= len(toks) || toks[j].kind != tokNum {
				continue
			}
		}
		return i, true
	}
	return 0, false
}

// parsePoBox reads "Postbus 123": the number is the PO-box number, the word the street.
func parsePoBox(c Country, f string, toks []token, end int) AddressLine {
	a := AddressLine{PoBox: true}
	k := end
	for k < len(toks) && (toks[k].kind == tokSep || toks[k].kind == tokWord && isNumberPrefixWord(toks[k].key)) {
		k++
	}
	if k < len(toks) && toks[k].kind == tokNum {
		if p := parseNumberAt(c, toks, k, modeField); p.h.Number > 0 {
			a.Number, a.HasNumber = p.h, true
			a.Street = streetBefore(f, toks, k)
			return a
		}
	}
	a.Street = trimStreet(f)
	return a
}

// isArticle: words after which a number is part of a street name rather than a house number.
func isArticle(k string) bool {
	switch k {
	case "DU", "DE", "DES", "VAN", "DER", "DEN", "HET", "T", "AU", "AUX", "LA", "LE", "L", "D":
		return true
	}
	return false
}

func isStreetNoun(k string) bool {
	switch k {
	case "PLEIN", "LAAN", "STRAAT", "WEG", "PAD", "KADE", "DIJK", "SINGEL", "GRACHT", "MARKT",
		"PARK", "HOF", "DREEF", "LEI", "STEENWEG", "PLAATS", "RUE", "PLACE", "AVENUE",
		"BOULEVARD", "CHEMIN", "CHAUSSEE", "SQUARE", "ALLEE", "QUAI", "PLATZ", "STRASSE":
		return true
	}
	return false
}
