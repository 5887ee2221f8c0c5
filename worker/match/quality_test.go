package match

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"

	"github.com/adreswijzer/adreswijzer"
)

// The matching-quality set: real register rows from both samples, drawn deterministically,
// each typed the way people really type addresses (register form, lower case, typos,
// abbreviations, no diacritics, the other register language, number first, the unit in
// either field, Belgian box notations, wrong or alias or missing city, wrong or missing
// postcode, missing unit, a number or letter that does not exist). Every case names its
// expected verdict and, when one address must match, that address.

type qualityCase struct {
	name string
	req  adreswijzer.ValidateRequest
	want adreswijzer.Verdict
	// addr is the register address that must be matched (valid, corrected), nil when none.
	addr *adreswijzer.Address
}

func str(s string) *string { return &s }

// sampleIndex groups the sample's addresses the ways the expectations need.
type sampleIndex struct {
	atNumber  map[string][]adreswijzer.Address // postcode|number
	onStreet  map[string][]adreswijzer.Address // street id|number
	postcodes map[string]bool
}

func indexSample(as []adreswijzer.Address) *sampleIndex {
	s := &sampleIndex{atNumber: map[string][]adreswijzer.Address{}, onStreet: map[string][]adreswijzer.Address{}, postcodes: map[string]bool{}}
	for _, a := range as {
		k := a.Postcode + "|" + strconv.Itoa(a.HouseNumber)
		s.atNumber[k] = append(s.atNumber[k], a)
		sk := a.StreetID + "|" + strconv.Itoa(a.HouseNumber)
		s.onStreet[sk] = append(s.onStreet[sk], a)
		s.postcodes[a.Postcode] = true
	}
	return s
}

func (s *sampleIndex) at(a *adreswijzer.Address) []adreswijzer.Address {
	return s.atNumber[a.Postcode+"|"+strconv.Itoa(a.HouseNumber)]
}

// boxesAt reports whether the address's number has Belgian boxes.
func (s *sampleIndex) boxesAt(a *adreswijzer.Address) bool {
	for _, b := range s.at(a) {
		if b.Box != "" {
			return true
		}
	}
	return false
}

// uniqueExtension reports whether no other address at the number has the same extension.
func (s *sampleIndex) uniqueExtension(a *adreswijzer.Address) bool {
	n := 0
	for _, b := range s.at(a) {
		if adreswijzer.LooseExtensionOf(b.HouseNumberSuffix, b.Unit()) == adreswijzer.LooseExtensionOf(a.HouseNumberSuffix, a.Unit()) {
			n++
		}
	}
	return n == 1
}

// streetName is the name a resident types: Dutch in Flanders and the Netherlands, French in
// Wallonia and (for half the Brussels rows) in Brussels.
func streetName(a *adreswijzer.Address, french bool) string {
	if french && a.Street.FR != "" || a.Street.NL == "" {
		return a.Street.FR
	}
	return a.Street.NL
}

func localityName(a *adreswijzer.Address, french bool) string {
	if french && a.Locality.FR != "" || a.Locality.NL == "" {
		return a.Locality.FR
	}
	return a.Locality.NL
}

// clean is the address typed exactly as the register writes it.
func clean(a *adreswijzer.Address, french bool) adreswijzer.ValidateRequest {
	r := adreswijzer.ValidateRequest{
		CountryCode: string(a.Country),
		Address1:    streetName(a, french) + " " + strconv.Itoa(a.HouseNumber) + a.HouseNumberSuffix,
		Zip:         adreswijzer.FormatPostcode(a.Country, a.Postcode),
		City:        str(localityName(a, french)),
	}
	switch {
	case a.Addition != "":
		r.Address2 = str(a.Addition)
	case a.Box != "":
		r.Address2 = str("bus " + a.Box)
	}
	return r
}

func stripDiacritics(s string) string {
	t := transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)
	out, _, _ := transform.String(t, s)
	return out
}

// typo drops one interior letter of the longest word (at least seven letters).
func typo(name string) (string, bool) {
	words := strings.Fields(name)
	bi := -1
	for i, w := range words {
		if len(w) >= 7 && (bi < 0 || len(w) > len(words[bi])) {
			bi = i
		}
	}
	if bi < 0 {
		return "", false
	}
	w := words[bi]
	k := len(w) / 2
	words[bi] = w[:k] + w[k+1:]
	return strings.Join(words, " "), true
}

// transpose swaps two interior letters of the longest word.
func transpose(name string) (string, bool) {
	words := strings.Fields(name)
	bi := -1
	for i, w := range words {
		if len(w) >= 7 && (bi < 0 || len(w) > len(words[bi])) {
			bi = i
		}
	}
	if bi < 0 {
		return "", false
	}
	b := []byte(words[bi])
	k := len(b)/2 - 1
	if b[k] == b[k+1] || b[k] >= 0x80 || b[k+1] >= 0x80 {
		return "", false
	}
	b[k], b[k+1] = b[k+1], b[k]
	words[bi] = string(b)
	return strings.Join(words, " "), true
}

// abbreviate writes the street word the way people shorten it.
func abbreviate(name string) (string, bool) {
	for _, s := range []struct{ full, short string }{
		{"steenweg", "stwg."}, {"straat", "str."}, {"laan", "ln"}, {"Rue ", "R. "}, {"Avenue ", "Av. "},
		{"Chaussée ", "Chée "}, {"Burgemeester ", "Burg. "}, {"Sint-", "St-"}, {"Boulevard ", "Bd "},
	} {
		if i := strings.LastIndex(name, s.full); i >= 0 {
			if s.full == "Rue " && i != 0 {
				continue
			}
			return name[:i] + s.short + name[i+len(s.full):], true
		}
	}
	return "", false
}

// boxNumber is a box as a customer types it: without BeST's "b" prefix and zero padding.
func boxNumber(box string) string {
	b := strings.ToLower(box)
	if len(b) > 1 && b[0] == 'b' && isDigit(b[1]) {
		b = b[1:]
	}
	if allDigits(b) {
		if t := strings.TrimLeft(b, "0"); t != "" {
			return t
		}
	}
	return b
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return s != ""
}

// qualityCases builds the set from every n-th address of each sample, sorted by register id
// so the draw does not depend on import order.
func qualityCases(s *sample) []qualityCase {
	var cases []qualityCase
	for _, country := range []struct {
		rows  []adreswijzer.Address
		every int
	}{{s.nl, 0}, {s.be, 0}} {
		rows := append([]adreswijzer.Address{}, country.rows...)
		sort.Slice(rows, func(i, j int) bool { return rows[i].ID < rows[j].ID })
		idx := indexSample(rows)
		picked := pickRows(rows, idx)
		for i := range picked {
			cases = append(cases, perturb(&picked[i], i, idx, rows)...)
		}
	}
	return cases
}

// pickRows draws rows in strata so that every kind the samples hold is covered: plain
// numbers, letters, toevoegingen and boxes, the three Belgian regions, bilingual Brussels
// streets.
func pickRows(rows []adreswijzer.Address, idx *sampleIndex) []adreswijzer.Address {
	type stratum struct {
		name string
		keep func(a *adreswijzer.Address) bool
		n    int
	}
	strata := []stratum{
		{"NL plain", func(a *adreswijzer.Address) bool {
			return a.Country == adreswijzer.NL && a.HouseNumberSuffix == "" && a.Addition == ""
		}, 18},
		{"NL letter", func(a *adreswijzer.Address) bool {
			return a.Country == adreswijzer.NL && a.HouseNumberSuffix != "" && a.Addition == ""
		}, 6},
		{"NL toevoeging", func(a *adreswijzer.Address) bool { return a.Country == adreswijzer.NL && a.Addition != "" }, 8},
		{"NL planned", func(a *adreswijzer.Address) bool { return a.Country == adreswijzer.NL && a.Planned() }, 3},
		{"NL titled street", func(a *adreswijzer.Address) bool {
			return a.Country == adreswijzer.NL && withoutTitles(a.Street.NL) != a.Street.NL
		}, 8},
		{"Brussels", func(a *adreswijzer.Address) bool { return a.Postcode == "1130" && a.Box == "" && !idx.boxesAt(a) }, 8},
		{"Brussels box", func(a *adreswijzer.Address) bool { return a.Postcode == "1130" && a.Box != "" }, 6},
		{"Flanders", func(a *adreswijzer.Address) bool { return a.Postcode == "1502" && a.Box == "" && !idx.boxesAt(a) }, 8},
		{"Flanders box", func(a *adreswijzer.Address) bool { return a.Postcode == "1502" && a.Box != "" }, 4},
		{"Wallonia", func(a *adreswijzer.Address) bool { return a.Postcode == "4960" && a.Box == "" && !idx.boxesAt(a) }, 8},
		{"Wallonia box", func(a *adreswijzer.Address) bool { return a.Postcode == "4960" && a.Box != "" }, 3},
	}
	var out []adreswijzer.Address
	for _, st := range strata {
		var pool []adreswijzer.Address
		for i := range rows {
			if a := &rows[i]; st.keep(a) && a.Postcode != "" && idx.uniqueExtension(a) {
				pool = append(pool, *a)
			}
		}
		if len(pool) == 0 {
			continue
		}
		step := max(1, len(pool)/st.n)
		for i := 0; i < len(pool) && i/step < st.n; i += step {
			out = append(out, pool[i])
		}
	}
	return out
}

// perturb types one address in every way that applies to it.
func perturb(a *adreswijzer.Address, i int, idx *sampleIndex, rows []adreswijzer.Address) []qualityCase {
	french := a.Country == adreswijzer.BE && (a.Street.NL == "" || a.Postcode == "1130" && i%2 == 1)
	base := clean(a, french)
	var cases []qualityCase
	add := func(name string, r adreswijzer.ValidateRequest, want adreswijzer.Verdict, match bool) {
		c := qualityCase{name: name, req: r, want: want}
		if match {
			c.addr = a
		}
		cases = append(cases, c)
	}
	valid, corrected := adreswijzer.VerdictValid, adreswijzer.VerdictCorrected
	street := streetName(a, french)
	num := strconv.Itoa(a.HouseNumber) + a.HouseNumberSuffix

	add("register form", base, valid, true)

	r := base
	r.Address1, r.Zip = strings.ToLower(r.Address1), strings.ToLower(r.Zip)
	r.City = str(strings.ToUpper(*r.City))
	add("letter case", r, valid, true)

	r = base
	r.Zip = "  " + strings.ReplaceAll(r.Zip, " ", "  ") + " "
	add("extra spaces in postcode", r, valid, true)

	if a.Country == adreswijzer.NL {
		r = base
		r.Zip = a.Postcode
		add("postcode without space", r, corrected, true)
		r = base
		r.Zip = strings.ToLower(a.Postcode[:4] + "-" + a.Postcode[4:])
		add("postcode with hyphen", r, corrected, true)
	} else {
		r = base
		r.Zip = "B-" + a.Postcode
		add("postcode with country prefix", r, corrected, true)
	}

	if t, ok := typo(street); ok {
		r = base
		r.Address1 = t + " " + num
		add("street typo: letter dropped", r, corrected, true)
	}
	if t, ok := transpose(street); ok {
		r = base
		r.Address1 = t + " " + num
		add("street typo: letters swapped", r, corrected, true)
	}
	if t, ok := abbreviate(street); ok {
		r = base
		r.Address1 = t + " " + num
		add("street abbreviated", r, corrected, true)
	}
	if s := stripDiacritics(street); s != street {
		r = base
		r.Address1 = s + " " + num
		add("street without diacritics", r, corrected, true)
	}
	if strings.ContainsAny(street, " -") {
		r = base
		r.Address1 = strings.NewReplacer(" ", "", "-", "").Replace(street) + " " + num
		add("street without spaces", r, corrected, true)
	}
	if a.Street.NL != "" && a.Street.FR != "" && a.Street.NL != a.Street.FR {
		other := a.Street.NL
		if !french {
			other = a.Street.FR
		}
		r = base
		r.Address1 = other + " " + num
		add("street in the other register language", r, valid, true)
	}

	r = base
	r.City = nil
	add("city missing", r, valid, true)
	r = base
	r.City = str("")
	add("city empty", r, valid, true)

	r = base
	if a.Country == adreswijzer.NL {
		r.City = str("Amsterdam")
	} else {
		r.City = str("Namur")
	}
	add("wrong city", r, corrected, true)

	switch {
	case a.Country == adreswijzer.BE && a.Postcode == "1130":
		// Belgian places are named in every national language, and the register's names
		// and the other languages' count alike.
		r = base
		r.City = str("Brussels")
		add("city in another language (English)", r, valid, true)
		r = base
		r.City = str("Brüssel")
		add("city in another language (German)", r, valid, true)
		r = base
		r.City = str("Haren")
		add("city as the part of the postal name", r, valid, true)
	case a.Postcode == "1502":
		r = base
		r.City = str("Halle")
		add("city as the municipality", r, valid, true)
		r = base
		r.City = str("Lembecq")
		add("city in another language (French)", r, valid, true)
	case a.Postcode == "4960" && stripDiacritics(*base.City) != *base.City:
		r = base
		r.City = str(stripDiacritics(*base.City))
		add("city without diacritics", r, corrected, true)
	}

	r = base
	r.Address1 = num + " " + street
	add("number first", r, valid, true)

	r = base
	r.Address1 = street + " nr. " + num
	add("number after nr.", r, valid, true)

	if a.HouseNumberSuffix != "" && !isDigit(a.HouseNumberSuffix[0]) && a.HouseNumberSuffix[0] != '/' {
		r = base
		r.Address1 = street + " " + strconv.Itoa(a.HouseNumber) + " " + strings.ToLower(a.HouseNumberSuffix)
		add("letter apart and in lower case", r, valid, true)
	}

	if t, ok := typo(street); ok {
		r = base
		r.Address1 = t + " " + num
		if a.Country == adreswijzer.NL {
			r.Zip = a.Postcode
		}
		r.City = str(strings.ToLower(*base.City))
		add("street typo, postcode and city reformatted", r, corrected, true)
	}
	if c, ok := typo(*base.City); ok {
		r = base
		r.City = str(c)
		add("city typo", r, corrected, true)
	}
	if a.StreetShort != "" && a.StreetShort != street {
		r = base
		r.Address1 = a.StreetShort + " " + num
		add("street as its NEN 5825 short name", r, corrected, true)
	}

	r = base
	r.Address1 = street + " " + num + ", " + *base.City
	add("city repeated after a comma", r, valid, true)

	if a.Addition != "" {
		r = base
		r.Address2 = nil
		sep := " "
		if isDigit(a.Addition[0]) {
			sep = "-"
		}
		r.Address1 = street + " " + num + sep + a.Addition
		add("toevoeging in address1", r, valid, true)
	}
	if a.Box != "" {
		b := boxNumber(a.Box)
		forms := []string{" bus " + b, " bte " + b, "/" + b, " boîte " + b}
		if allDigits(b) {
			forms = append(forms, " b"+b)
		}
		for _, form := range forms {
			r = base
			r.Address2 = nil
			r.Address1 = street + " " + num + form
			add("box written as"+strings.SplitN(form, b, 2)[0], r, valid, true)
		}
		r = base
		r.Address2 = str("Bte " + b)
		add("box in address2 with bte", r, valid, true)
	}
	others := idx.at(a)
	if a.Unit() != "" && len(others) > 1 {
		// Dutch: the bare number is an address of its own. Belgian: a building with
		// boxes needs the box.
		bare := false
		for _, o := range others {
			if a.Country == adreswijzer.NL && adreswijzer.LooseExtensionOf(o.HouseNumberSuffix, o.Unit()) == adreswijzer.LooseExtensionOf(a.HouseNumberSuffix) {
				bare = true
			}
		}
		if !bare {
			r = base
			r.Address2 = nil
			add("unit missing", r, adreswijzer.VerdictAmbiguous, false)
		}
	}

	// Postcode wrong or missing: street, number and city must find the address.
	if unique := len(idx.onStreet[a.StreetID+"|"+strconv.Itoa(a.HouseNumber)]) == len(others); unique {
		r = base
		r.Zip = ""
		add("postcode missing", r, corrected, true)
		if t, ok := transpose(street); ok {
			r = base
			r.Zip = ""
			r.Address1 = t + " " + num
			add("postcode missing and street typo", r, corrected, true)
		}
		if a.Country == adreswijzer.NL {
			if other := otherPostcode(a, rows); other != "" {
				r = base
				r.Zip = adreswijzer.FormatPostcode(a.Country, other)
				add("postcode of a neighbouring street", r, corrected, true)
			}
			if other := otherPartOfTown(a, rows); other != "" {
				r = base
				r.Zip, r.City = adreswijzer.FormatPostcode(a.Country, other), nil
				add("postcode of another part of the town, no city", r, corrected, true)
			}
			r = base
			r.Zip = a.Postcode[:4] + " " + unusedLetters(a.Postcode, idx)
			add("postcode letters mistyped", r, corrected, true)
		} else {
			r = base
			r.Zip = strconv.Itoa(mustAtoi(a.Postcode) + 1)
			add("postcode one off", r, corrected, true)
		}
	}

	// A street named after a person, typed without the person's titles and initials
	// ("Bührmannlaan" for Mr.J.C.Bührmannlaan), also with the postcode of the street's
	// other side, where the number is not.
	if short := withoutTitles(street); short != street {
		r = base
		r.Address1 = short + " " + num
		add("street without titles and initials", r, corrected, true)
		if other := sameStreetOtherPostcode(a, rows); other != "" && len(idx.onStreet[a.StreetID+"|"+strconv.Itoa(a.HouseNumber)]) == len(others) {
			r.Zip = adreswijzer.FormatPostcode(a.Country, other)
			add("street without titles, postcode of its other side", r, corrected, true)
		}
	}

	// What does not exist.
	if missing := missingNumber(a, idx); missing > 0 {
		r = base
		r.Address1, r.Address2 = street+" "+strconv.Itoa(missing), nil
		add("house number that does not exist", r, adreswijzer.VerdictInvalid, false)
	}
	if a.HouseNumberSuffix == "" && a.Unit() == "" {
		r = base
		r.Address1 = street + " " + num + "Q"
		add("letter that does not exist", r, adreswijzer.VerdictInvalid, false)
	}
	return cases
}

func mustAtoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		panic(fmt.Sprintf("postcode %q is not numeric", s))
	}
	return n
}

// otherPostcode is a real postcode of the same PC4 area on another street.
func otherPostcode(a *adreswijzer.Address, rows []adreswijzer.Address) string {
	for i := range rows {
		b := &rows[i]
		if b.Postcode != a.Postcode && b.StreetID != a.StreetID && len(b.Postcode) == 6 && b.Postcode[:4] == a.Postcode[:4] {
			return b.Postcode
		}
	}
	return ""
}

// leadingTitles are the abbreviated titles and initials a BAG street name opens with
// ("Mr.J.C.", "Dr.J.Th.", "Mgr.Dr.W.H."): a word of up to four letters and a dot.
var leadingTitles = regexp.MustCompile(`^(\p{L}{1,4}\.\s*)+`)

// withoutTitles is the street name as its residents often write it, without the leading
// titles and initials; the name itself when it has none.
func withoutTitles(name string) string {
	if short := leadingTitles.ReplaceAllString(name, ""); len(short) >= 5 {
		return short
	}
	return name
}

// sameStreetOtherPostcode is another postcode of the address's street (the other side, or
// another stretch) where the address's number is not.
func sameStreetOtherPostcode(a *adreswijzer.Address, rows []adreswijzer.Address) string {
	other := ""
	for i := range rows {
		b := &rows[i]
		if b.StreetID != a.StreetID || b.Postcode == a.Postcode {
			continue
		}
		if b.HouseNumber == a.HouseNumber {
			return ""
		}
		if other == "" || b.Postcode < other {
			other = b.Postcode
		}
	}
	return other
}

// otherPartOfTown is a real postcode of the same place in another PC4 area.
func otherPartOfTown(a *adreswijzer.Address, rows []adreswijzer.Address) string {
	for i := range rows {
		b := &rows[i]
		if len(b.Postcode) == 6 && b.Postcode[:4] != a.Postcode[:4] && b.Locality == a.Locality {
			return b.Postcode
		}
	}
	return ""
}

// unusedLetters are postcode letters that no address of the sample has in the PC4 area.
func unusedLetters(pc string, idx *sampleIndex) string {
	for _, l := range []string{"ZZ", "ZY", "YZ", "ZX"} {
		if !idx.postcodes[pc[:4]+l] {
			return l
		}
	}
	return "ZZ"
}

// missingNumber is a house number the address's postcode does not have.
func missingNumber(a *adreswijzer.Address, idx *sampleIndex) int {
	for n := a.HouseNumber + 1000; n < a.HouseNumber+1100; n++ {
		if len(idx.atNumber[a.Postcode+"|"+strconv.Itoa(n)]) == 0 {
			return n
		}
	}
	return 0
}

// matches reports whether the answer's match is the address.
func matches(m *adreswijzer.AddressMatch, a *adreswijzer.Address) bool {
	if m == nil || m.HouseNumber == nil {
		return false
	}
	s := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	return m.Postcode == a.Postcode && *m.HouseNumber == a.HouseNumber &&
		s(m.HouseNumberSuffix) == a.HouseNumberSuffix && s(m.Unit) == a.Unit()
}

// TestMatchingQuality scores both halves of the set, the way people type into the right
// fields (qualityCases) and the way forms, platforms and agents send addresses
// (messyCases), for each country: the share of correct verdicts (the verdict wanted and,
// where one address must match, that address) and of false blocks (a real address, however
// typed, answered blocking: true), which must be none.
//
//	go test ./worker/match -run TestMatchingQuality -v
func TestMatchingQuality(t *testing.T) {
	e, s := sampleEngine(t)
	plain, messy := qualityCases(s), messyCases(s)
	if len(plain) < 500 || len(messy) < 600 {
		t.Fatalf("%d plain and %d messy cases; the set needs at least 500 and 600", len(plain), len(messy))
	}
	ctx := context.Background()
	type tally struct{ cases, correct, blocked int }
	perCountry := map[adreswijzer.Country]*tally{adreswijzer.NL: {}, adreswijzer.BE: {}}
	perName := map[string][2]int{}
	for _, c := range append(plain, messy...) {
		resp, err := e.Validate(ctx, c.req)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		country, _ := adreswijzer.ParseCountry(c.req.CountryCode)
		tl := perCountry[country]
		tl.cases++
		ok := resp.Status == c.want && (c.addr == nil || matches(resp.Match, c.addr))
		st := perName[c.name]
		st[1]++
		if ok {
			tl.correct++
			st[0]++
		} else {
			t.Logf("MISS %-40s %s → %s (want %s) issues %v", c.name, describe(c.req), resp.Status, c.want, issueCodes(resp.Issues))
		}
		perName[c.name] = st
		if resp.Blocking {
			tl.blocked++
			t.Errorf("%s: a real address answered blocking: %s, issues %v", c.name, describe(c.req), issueCodes(resp.Issues))
		}
	}
	names := make([]string, 0, len(perName))
	for n := range perName {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		t.Logf("%-62s %3d/%3d", n, perName[n][0], perName[n][1])
	}
	t.Logf("quality set: %d cases typed into the right fields, %d typed as forms, platforms and agents send them", len(plain), len(messy))
	for _, country := range adreswijzer.Countries {
		tl := perCountry[country]
		correct, blocked := float64(tl.correct)/float64(tl.cases), float64(tl.blocked)/float64(tl.cases)
		t.Logf("matching quality %s: %d cases, %d correct (%.1f %%), %d false blocks (%.1f %%)",
			country, tl.cases, tl.correct, 100*correct, tl.blocked, 100*blocked)
		if correct < 0.99 {
			t.Errorf("matching quality %s: %.1f %% correct is below 99 %%", country, 100*correct)
		}
	}
}

// describe writes a request's fields for a log line, invisible characters made visible.
func describe(r adreswijzer.ValidateRequest) string {
	s := func(p *string) string {
		if p == nil {
			return "<nil>"
		}
		return strconv.Quote(*p)
	}
	return fmt.Sprintf("%s %q | %s | %q | %s", r.CountryCode, r.Address1, s(r.Address2), r.Zip, s(r.City))
}

func issueCodes(is []adreswijzer.Issue) []adreswijzer.IssueCode {
	out := make([]adreswijzer.IssueCode, len(is))
	for i, x := range is {
		out[i] = x.Code
	}
	return out
}
