package match

import (
	"sort"
	"strconv"
	"strings"

	"golang.org/x/text/unicode/norm"

	"github.com/adreswijzer/adreswijzer"
)

// The second half of the matching-quality set: real register rows typed the way checkout
// forms, shop platforms and agents really send them, beyond what a person types into the
// right fields. The whole address in address1 or in address2 (under a company name, or the
// postcode and town alone), the postcode and town fields swapped or joined, towns with
// their province or country, floors in every notation, a letter and toevoeging together,
// BeST boxes with every box word, text in decomposed Unicode or with invisible
// characters, and two or three of these at once. Every expectation follows from the
// register rows at the number (which addresses exist there), never from what the engine
// answers.

// messyCases builds the families from their own draw of the samples.
func messyCases(s *sample) []qualityCase {
	var cases []qualityCase
	for _, rows := range [][]adreswijzer.Address{s.nl, s.be} {
		rows = append([]adreswijzer.Address{}, rows...)
		sort.Slice(rows, func(i, j int) bool { return rows[i].ID < rows[j].ID })
		idx := indexSample(rows)
		picked := pickMessyRows(rows, idx)
		for i := range picked {
			cases = append(cases, messy(&picked[i], i, idx)...)
		}
	}
	return cases
}

// pickMessyRows draws rows in strata, as pickRows does, but from the middle of each
// stratum's steps, so that the two halves of the set type different rows.
func pickMessyRows(rows []adreswijzer.Address, idx *sampleIndex) []adreswijzer.Address {
	type stratum struct {
		keep func(a *adreswijzer.Address) bool
		n    int
	}
	nlKind := func(letter, addition bool) func(a *adreswijzer.Address) bool {
		return func(a *adreswijzer.Address) bool {
			return a.Country == adreswijzer.NL && (a.HouseNumberSuffix != "") == letter && (a.Addition != "") == addition
		}
	}
	place := func(pc string, box bool) func(a *adreswijzer.Address) bool {
		return func(a *adreswijzer.Address) bool {
			return a.Postcode == pc && (a.Box != "") == box && (box || !idx.boxesAt(a))
		}
	}
	strata := []stratum{
		{nlKind(false, false), 24}, {nlKind(true, false), 10}, {nlKind(false, true), 10}, {nlKind(true, true), 10},
		{place("1130", false), 10}, {place("1130", true), 10},
		{place("1502", false), 8}, {place("1502", true), 8},
		{place("4960", false), 10}, {place("4960", true), 12},
	}
	var out []adreswijzer.Address
	for _, st := range strata {
		var pool []adreswijzer.Address
		for i := range rows {
			if a := &rows[i]; st.keep(a) && a.Postcode != "" && a.Status == adreswijzer.StatusInUse && idx.uniqueExtension(a) && !idx.twinBox(a) {
				pool = append(pool, *a)
			}
		}
		step := max(1, len(pool)/st.n)
		for i := step / 2; i < len(pool) && i/step < st.n; i += step {
			out = append(out, pool[i])
		}
	}
	return out
}

// twinBox reports whether another box at the address's number reads the same once typed
// ("J--2" and "J/2", "b1.3" and "b013": the grammar drops separators), so that no typed
// form can name this one.
func (s *sampleIndex) twinBox(a *adreswijzer.Address) bool {
	if a.Box == "" {
		return false
	}
	k := adreswijzer.LooseExtensionOf(a.HouseNumberSuffix, adreswijzer.BoxNumber(a.Box))
	n := 0
	for _, b := range s.at(a) {
		if b.StreetID == a.StreetID && adreswijzer.LooseExtensionOf(b.HouseNumberSuffix, adreswijzer.BoxNumber(b.Box)) == k {
			n++
		}
	}
	return n > 1
}

// typedUnit is the toevoeging or box as a customer types it after the number.
func typedUnit(a *adreswijzer.Address) string {
	switch {
	case a.Addition != "" && isDigit(a.Addition[0]):
		return "-" + a.Addition
	case a.Addition != "":
		return " " + a.Addition
	case a.Box != "":
		return " bus " + adreswijzer.BoxNumber(a.Box)
	}
	return ""
}

// messy types one address in every messy way that applies to it. A Belgian building
// whose boxes are addresses of their own is left out: typed without a box it is a
// question whatever else is typed (UNIT_REQUIRED), which the first half covers.
func messy(a *adreswijzer.Address, i int, idx *sampleIndex) []qualityCase {
	if a.Country == adreswijzer.BE && a.Box == "" && idx.boxesAt(a) {
		return nil
	}
	french := a.Country == adreswijzer.BE && (a.Street.NL == "" || a.Postcode == "1130" && i%2 == 1)
	base := clean(a, french)
	street, city := streetName(a, french), localityName(a, french)
	num := strconv.Itoa(a.HouseNumber) + a.HouseNumberSuffix
	line := street + " " + num + typedUnit(a) // the street line with the unit in it
	pc := adreswijzer.FormatPostcode(a.Country, a.Postcode)
	valid, corrected := adreswijzer.VerdictValid, adreswijzer.VerdictCorrected
	var cases []qualityCase
	add := func(name string, r adreswijzer.ValidateRequest, want adreswijzer.Verdict, match bool) {
		c := qualityCase{name: name, req: r, want: want}
		if match {
			c.addr = a
		}
		cases = append(cases, c)
	}
	oneLine := func(r adreswijzer.ValidateRequest) adreswijzer.ValidateRequest {
		r.Address2, r.Zip, r.City = nil, "", nil
		return r
	}

	// One line in address1, with and without commas, the postcode and town first.
	r := oneLine(base)
	r.Address1 = line + ", " + pc + " " + city
	add("one line in address1", r, corrected, true)
	r.Address1 = line + " " + a.Postcode + " " + city
	add("one line in address1, no commas", r, corrected, true)
	r.Address1 = pc + " " + city + ", " + line
	add("one line in address1, postcode first", r, corrected, true)
	if a.Country == adreswijzer.NL {
		r.Address1 = line + ", " + pc + " " + city + ", Nederland"
	} else {
		r.Address1 = line + ", " + pc + " " + city + ", Belgique"
	}
	add("one line in address1 with the country", r, corrected, true)

	// One line in address2, under a company name; the postcode and town alone there.
	r = oneLine(base)
	r.Address1, r.Address2 = "Bakkerij De Vries", str(line+", "+pc+" "+city)
	add("one line in address2 under a company", r, corrected, true)
	r = oneLine(base)
	r.Address1, r.Address2 = line, str(pc+" "+city)
	add("postcode and town in address2", r, corrected, true)

	// The postcode and town fields swapped, or together in one.
	r = base
	r.Zip, r.City = city, str(pc)
	add("postcode and town swapped", r, corrected, true)
	r = base
	r.Zip, r.City = pc+" "+city, nil
	add("postcode and town in the postcode field", r, corrected, true)
	r = base
	r.Zip, r.City = "", str(pc+" "+city)
	add("postcode and town in the city field", r, corrected, true)

	// A town with its province or country.
	for _, q := range townSuffixes(a) {
		r = base
		r.City = str(city + q)
		add("town with"+suffixKind(q), r, corrected, true)
	}

	// Floors, where the register has no such toevoeging.
	cases = append(cases, floorCases(a, base, street, idx)...)

	// A letter and a toevoeging together, in address1 or split over both lines.
	if a.Country == adreswijzer.NL && a.HouseNumberSuffix != "" && a.Addition != "" {
		n, l, t := strconv.Itoa(a.HouseNumber), a.HouseNumberSuffix, a.Addition
		for _, f := range []struct{ name, a1, a2 string }{
			{"letter in address1, toevoeging in address2", street + " " + n + l, t},
			{"letter and toevoeging in address2", street + " " + n, l + " " + t},
			{"letter and toevoeging glued in address2", street + " " + n, l + t},
			{"letter and toevoeging with a hyphen in address1", street + " " + n + l + "-" + t, ""},
			{"letter and toevoeging spaced in address1", street + " " + n + " " + l + " " + t, ""},
		} {
			r = base
			r.Address1, r.Address2 = f.a1, optional(f.a2)
			add(f.name, r, valid, true)
		}
	}

	// BeST boxes after every box word, and as the register writes them.
	if a.Box != "" {
		b := adreswijzer.BoxNumber(a.Box)
		for _, w := range []string{"bus ", "bte ", "box ", "boîte ", "bt. ", "Bus: ", ""} {
			r = base
			r.Address2 = str(w + b)
			add("box after "+strings.TrimSpace(w+"\u2026"), r, valid, true)
		}
		r = base
		r.Address2 = str(a.Box)
		add("box as the register writes it", r, valid, true)
		r = base
		r.Address1, r.Address2 = street+" "+num+" bte "+b, nil
		add("box in address1", r, valid, true)
	}

	// Unicode: decomposed text is the same text; invisible characters make it another.
	if nfd := norm.NFD.String(street); nfd != street {
		r = base
		r.Address1 = nfd + " " + num
		add("street in decomposed unicode", r, valid, true)
	}
	if nfd := norm.NFD.String(city); nfd != city {
		r = base
		r.City = str(nfd)
		add("town in decomposed unicode", r, valid, true)
	}
	for _, inv := range []struct{ name, a1, city string }{
		{"zero-width space in the street", insertMid(street, "\u200b") + " " + num, city},
		{"byte-order mark before the street", "\ufeff" + street + " " + num, city},
		{"tab before the number", street + "\t" + num, city},
		{"line break before the number", street + "\n" + num, city},
		{"bidi mark after the town", street + " " + num, city + "\u200f"},
		{"NUL after the town", street + " " + num, city + "\x00"},
	} {
		r = base
		r.Address1, r.City = inv.a1, str(inv.city)
		add(inv.name, r, corrected, true)
	}
	r = base
	r.Zip = strings.Replace(pc, " ", "\u00a0", 1) + "\u00a0"
	add("no-break spaces in the postcode", r, valid, true)

	// Two and three at once.
	if t, ok := typoRunes(street); ok {
		r = oneLine(base)
		r.Address1 = t + " " + num + typedUnit(a) + ", " + pc + " " + city
		add("one line with a street typo", r, corrected, true)
		r = base
		r.Address1 = t + " " + num
		r.City = str(city + townSuffixes(a)[0])
		if a.Country == adreswijzer.NL {
			r.Zip = a.Postcode[:4] + " " + unusedLetters(a.Postcode, idx)
			add("street typo, town with province, postcode letters mistyped", r, corrected, true)
		} else {
			r.Zip = "B-" + a.Postcode
			add("street typo, town with country, postcode with prefix", r, corrected, true)
		}
	}
	r = base
	r.Zip, r.City = city+townSuffixes(a)[0], str(strings.ReplaceAll(pc, " ", ""))
	add("swapped, town with its province", r, corrected, true)
	r = oneLine(base)
	r.Address1 = "\u200b" + norm.NFD.String(line) + " " + strings.ReplaceAll(pc, " ", "") + " " + strings.ToUpper(city)
	add("one line in decomposed unicode, with a zero-width space", r, corrected, true)
	if t, ok := transpose(street); ok {
		r = base
		r.Address1, r.Address2 = "Jansen BV", str(t+" "+num+typedUnit(a))
		r.Zip, r.City = city+townSuffixes(a)[0], str(pc)
		add("company above the street with a typo, swapped, town with province", r, corrected, true)
	}
	return cases
}

// townSuffixes are what people add to the town: province or country.
func townSuffixes(a *adreswijzer.Address) []string {
	if a.Country == adreswijzer.NL {
		return []string{" NH", " (NH)", ", Noord-Holland", " N.H.", " NL"}
	}
	return []string{" BE", " (Belgique)", ", België", " - Belgium"}
}

// suffixKind names a town suffix for the tally.
func suffixKind(q string) string {
	switch {
	case strings.Contains(q, "("):
		return " a qualifier in brackets"
	case strings.Contains(q, ","), strings.Contains(q, " - "):
		return " a qualifier after a comma or dash"
	case strings.Contains(q, "."):
		return " an abbreviated province"
	}
	return " a province or country code"
}

// insertMid puts x in the middle of s's longest word.
func insertMid(s, x string) string {
	words := strings.Fields(s)
	bi := 0
	for i, w := range words {
		if len(w) > len(words[bi]) {
			bi = i
		}
	}
	w := []rune(words[bi])
	words[bi] = string(w[:len(w)/2]) + x + string(w[len(w)/2:])
	return strings.Join(words, " ")
}

// floorCases types a floor after the number, in every notation, where the number has no
// such toevoeging: the floor is a remark. Read without it, the number is the bare address
// when that exists (NL: corrected, the floor dropped; BE drops floors as it reads them:
// valid), else the only address there, else a question among them.
func floorCases(a *adreswijzer.Address, base adreswijzer.ValidateRequest, street string, idx *sampleIndex) []qualityCase {
	if a.HouseNumberSuffix != "" || a.Unit() != "" {
		return nil
	}
	at := idx.at(a)
	var bare []adreswijzer.Address
	for _, b := range at {
		if b.HouseNumberSuffix == "" && b.Unit() == "" && b.StreetID == a.StreetID {
			bare = append(bare, b)
		}
	}
	if len(bare) != 1 {
		return nil
	}
	has := func(unit string) bool {
		for _, b := range at {
			if strings.EqualFold(b.Unit(), unit) || strings.EqualFold(b.HouseNumberSuffix, unit) {
				return true
			}
		}
		return false
	}
	n := strconv.Itoa(a.HouseNumber)
	type notation struct{ a1, a2, unit string }
	var notations []notation
	if a.Country == adreswijzer.NL {
		notations = []notation{
			{n + " 2 hoog", "", "2"}, {n + " 3-hoog", "", "3"}, {n + " 2e", "", "2"}, {n + ", 3de", "", "3"},
			{n + " 2e verdieping", "", "2"}, {n + "-III", "", "III"}, {n + " II", "", "II"}, {n + " huis", "", "HUIS"},
			{n + "-hs", "", "HS"}, {n, "1e etage", "1"}, {n, "3 hoog", "3"}, {n, "IV", "IV"}, {n, "huis", "HUIS"},
		}
	} else {
		notations = []notation{
			{n + " 2e étage", "", ""}, {n + " 1er étage", "", ""}, {n, "3ème étage", ""}, {n, "2e verdieping", ""},
			{n + " 1 hoog", "", ""}, {n, "étage 2", ""},
		}
	}
	want := adreswijzer.VerdictCorrected
	if a.Country == adreswijzer.BE {
		want = adreswijzer.VerdictValid
	}
	var out []qualityCase
	for _, f := range notations {
		if f.unit != "" && has(f.unit) {
			continue
		}
		r := base
		r.Address1, r.Address2 = street+" "+f.a1, optional(f.a2)
		out = append(out, qualityCase{name: "floor " + floorKind(f.a1+" "+f.a2), req: r, want: want, addr: a})
	}
	return out
}

// floorKind names a floor notation for the tally.
func floorKind(s string) string {
	switch {
	case strings.Contains(s, "hoog"):
		return "as N hoog"
	case strings.Contains(s, "verdieping"), strings.Contains(s, "etage"), strings.Contains(s, "étage"):
		return "as Ne verdieping or étage"
	case strings.Contains(s, "hs"), strings.Contains(s, "huis"):
		return "as huis"
	case strings.ContainsAny(s, "IV"):
		return "in Roman numerals"
	}
	return "as an ordinal"
}

// typoRunes drops one interior letter of the longest word (at least seven letters), as
// typo does, counting letters rather than bytes: "Chôdes" loses a letter, not half of one.
func typoRunes(name string) (string, bool) {
	words := strings.Fields(name)
	bi := -1
	for i, w := range words {
		if n := len([]rune(w)); n >= 7 && (bi < 0 || n > len([]rune(words[bi]))) {
			bi = i
		}
	}
	if bi < 0 {
		return "", false
	}
	w := []rune(words[bi])
	k := len(w) / 2
	words[bi] = string(w[:k]) + string(w[k+1:])
	return strings.Join(words, " "), true
}
