package match

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/worker/carrier"
	"github.com/adreswijzer/adreswijzer/worker/messages"
)

// Register names and the credit line the BeST licence (CC BY 4.0) asks for. They are part of
// every answer's meta so a caller can show where a verdict came from.
const (
	SourceBAG        = "BAG (Kadaster)"
	SourceBeST       = "BeST Address (FPS BOSA)"
	AttributionBeST  = "Contains BeST Address data of FPS BOSA, licensed under CC BY 4.0"
	defaultCarrierNL = adreswijzer.PostNL
	defaultCarrierBE = adreswijzer.Bpost
)

// unsupported is what every answer about a country without a register carries: the
// language of its messages, the UNSUPPORTED_COUNTRY issue and a meta naming no register.
func unsupported(requested string) (adreswijzer.Language, []adreswijzer.Issue, adreswijzer.Meta) {
	lang := answerLanguage(requested, "", "", nil)
	return lang, []adreswijzer.Issue{issue(lang, adreswijzer.IssueUnsupportedCountry, adreswijzer.FieldCountryCode, messages.Details{})}, meta("", nil, lang)
}

// Every answer's meta points to these rather than to copies of its own: answers are only
// ever read, and every request makes one.
var sourceBAG, sourceBeST, attributionBeST = SourceBAG, SourceBeST, AttributionBeST

// meta describes the dataset an answer came from. ds may be nil (unsupported country, or
// nothing looked up), which leaves the register fields null as the spec allows.
func meta(c adreswijzer.Country, ds adreswijzer.Dataset, lang adreswijzer.Language) adreswijzer.Meta {
	m := adreswijzer.Meta{Language: lang}
	switch c {
	case adreswijzer.NL:
		m.Source = &sourceBAG
	case adreswijzer.BE:
		m.Source = &sourceBeST
		m.Attribution = &attributionBeST
	}
	if ds != nil {
		if v := string(ds.Info().Version); v != "" {
			m.DatasetVersion = &v
		}
	}
	return m
}

// answerLanguage is the language of messages and names when the caller asks for none. A
// customer who typed a street name in one register language is answered in it: in Brussels,
// where every street has a Dutch and a French name, that is the only clue to the customer's
// language. Otherwise (nothing typed yet, or a name the same in both languages such as
// "Kasteelhof") the region decides, as carrier.DisplayLanguage orders the regions: Dutch for
// the Netherlands and Flanders, French for Wallonia and for Brussels (the language of most of
// its residents and of nearly all its international mail), German for the German-speaking
// municipalities.
func answerLanguage(requested string, c adreswijzer.Country, postcode string, typed *nameMatch) adreswijzer.Language {
	if l, ok := adreswijzer.ParseLanguage(requested); ok {
		return l
	}
	if c != adreswijzer.BE {
		return adreswijzer.DefaultLanguage
	}
	region := carrier.DisplayLanguage(&adreswijzer.Address{Country: c, Postcode: postcode}, "")
	if typed == nil || typed.level < levelFuzzy || typed.bilingual {
		return region
	}
	switch typed.kind {
	case kindNL:
		return adreswijzer.LangNL
	case kindFR:
		return adreswijzer.LangFR
	case kindDE:
		return adreswijzer.LangDE
	}
	return region
}

// carrierFor is the carrier whose fields a lookup or validation shows when the caller names
// none: the national postal operator of the address's country, whose limits every shop must
// meet anyway. LookupAddress.carrier is required, so it cannot be left out.
func carrierFor(requested string, c adreswijzer.Country) adreswijzer.Carrier {
	if k, ok := adreswijzer.ParseCarrier(requested); ok {
		return k
	}
	if c == adreswijzer.BE {
		return defaultCarrierBE
	}
	return defaultCarrierNL
}

// normalized writes a register address as checkout fields: the street and the house number
// with its letter (or bis) in address1, the toevoeging or the box after its marker in
// address2, the printed postcode. Names follow carrier.DisplayLanguage, so the fields agree
// with formatted and carrier. Validating these fields again gives "valid".
func normalized(a *adreswijzer.Address, lang adreswijzer.Language) adreswijzer.NormalizedAddress {
	cf := carrier.Fields(a, "", lang)
	n := adreswijzer.NormalizedAddress{
		Address1:    strings.TrimSpace(cf.Street + " " + cf.HouseNumber + a.HouseNumberSuffix),
		Zip:         adreswijzer.FormatPostcode(a.Country, a.Postcode),
		City:        cf.City,
		CountryCode: a.Country,
	}
	if u := unitText(a, cf); u != "" {
		n.Address2 = &u
	}
	return n
}

// unitText is the toevoeging, or the box with its marker in the display language ("bus 3",
// "bte 3"): the carrier's addition without the letter that normalized puts in address1.
func unitText(a *adreswijzer.Address, cf adreswijzer.CarrierAddress) string {
	if a.Unit() == "" || cf.HouseNumberAddition == nil {
		return ""
	}
	if a.Country == adreswijzer.NL {
		return a.Addition
	}
	return strings.TrimPrefix(*cf.HouseNumberAddition, a.HouseNumberSuffix+" ")
}

// optionalFields holds what the nullable number fields of one answer address point to,
// allocated together, and for a lookup together with the other addresses': an answer lists
// up to dozens of addresses.
type optionalFields struct {
	number   int
	suffix   string
	unit     string
	unitType adreswijzer.UnitType
}

// optionalsOf returns pointers to a's house number, suffix, unit and unit type, kept in o,
// each nil when a has none.
func optionalsOf(a *adreswijzer.Address, o *optionalFields) (number *int, suffix, unit *string, unitType *adreswijzer.UnitType) {
	*o = optionalFields{number: a.HouseNumber, suffix: a.HouseNumberSuffix, unit: a.Unit(), unitType: a.UnitType()}
	if o.number > 0 {
		number = &o.number
	}
	if o.suffix != "" {
		suffix = &o.suffix
	}
	if o.unit != "" {
		unit = &o.unit
	}
	if o.unitType != adreswijzer.UnitNone {
		unitType = &o.unitType
	}
	return number, suffix, unit, unitType
}

func addressMatch(a *adreswijzer.Address, lang adreswijzer.Language) *adreswijzer.AddressMatch {
	cf := carrier.Fields(a, "", lang)
	m := &adreswijzer.AddressMatch{Street: cf.Street, Locality: cf.City, Postcode: a.Postcode}
	m.HouseNumber, m.HouseNumberSuffix, m.Unit, m.UnitType = optionalsOf(a, new(optionalFields))
	return m
}

// lookupAddress is one address of a lookup answer, written by the answer's w and with its
// optional fields in o. Its addition is the carrier's houseNumberAddition, so what a form
// offers to pick is exactly what it later sends on.
func lookupAddress(w *carrier.Writer, a *adreswijzer.Address, o *optionalFields, k adreswijzer.Carrier, lang adreswijzer.Language) adreswijzer.LookupAddress {
	cf := w.Fields(a, k, lang)
	la := adreswijzer.LookupAddress{
		Street:    cf.Street,
		Addition:  cf.HouseNumberAddition,
		Postcode:  a.Postcode,
		Locality:  cf.City,
		Planned:   a.Planned(),
		Formatted: w.Lines(a, lang),
		Carrier:   cf,
	}
	la.HouseNumber, la.HouseNumberSuffix, la.Unit, la.UnitType = optionalsOf(a, o)
	return la
}

// sortAddresses orders the addresses at one number the way people read them: the bare
// number first, then by letter, then by unit with numbers compared as numbers ("2" before
// "10"), so a form's list of additions reads naturally.
//
// It sorts positions and then moves each address once. An Address is a large value holding
// pointers: a stable sort of the values themselves copies two of them per comparison and
// moves them again in every rotation, behind write barriers while the collector runs: on a
// number with hundreds of units, more than anything else in an autocomplete request but its
// street search.
func sortAddresses(as []adreswijzer.Address) {
	if len(as) < 2 {
		return
	}
	var buf [32]int32
	order := buf[:0]
	for i := range as {
		order = append(order, int32(i))
	}
	slices.SortStableFunc(order, func(i, j int32) int { return compareAddresses(&as[i], &as[j]) })
	permute(as, order)
}

// firstAddresses returns the first k addresses of sortAddresses' order, sorted. A type-ahead
// answer shows ten addresses and a block of flats has hundreds; keeping the best k as they
// pass compares most addresses once, with the last kept.
func firstAddresses(as []adreswijzer.Address, k int) []adreswijzer.Address {
	if len(as) <= k {
		sortAddresses(as)
		return as
	}
	top := make([]int32, 0, k) // positions in as, in order
	for i := range as {
		a := &as[i]
		if len(top) == k && compareAddresses(a, &as[top[k-1]]) >= 0 {
			continue
		}
		// After every kept address not greater than a: an earlier address wins a tie, as in
		// a stable sort.
		j, _ := slices.BinarySearchFunc(top, a, func(t int32, a *adreswijzer.Address) int {
			if compareAddresses(&as[t], a) <= 0 {
				return -1
			}
			return 1
		})
		if len(top) < k {
			top = append(top, 0)
		}
		copy(top[j+1:], top[j:len(top)-1])
		top[j] = int32(i)
	}
	out := make([]adreswijzer.Address, len(top))
	for x, i := range top {
		out[x] = as[i]
	}
	return out
}

// permute rearranges as so that as[k] becomes the old as[order[k]], following the cycles of
// the permutation with one spare value; order is used up.
func permute[T any](as []T, order []int32) {
	for k := range order {
		if int(order[k]) == k {
			continue
		}
		spare, j := as[k], k
		for {
			next := int(order[j])
			order[j] = int32(j)
			if next == k {
				as[j] = spare
				break
			}
			as[j] = as[next]
			j = next
		}
	}
}

// compareAddresses is the order of sortAddresses.
func compareAddresses(a, b *adreswijzer.Address) int {
	if c := cmp.Compare(a.HouseNumber, b.HouseNumber); c != 0 {
		return c
	}
	if c := naturalCompare(a.HouseNumberSuffix, b.HouseNumberSuffix); c != 0 {
		return c
	}
	if c := naturalCompare(unitKey(a), unitKey(b)); c != 0 {
		return c
	}
	if c := strings.Compare(a.Postcode, b.Postcode); c != 0 {
		return c
	}
	if c := strings.Compare(a.Street.PickPrimary(false), b.Street.PickPrimary(false)); c != 0 {
		return c
	}
	return strings.Compare(a.ID, b.ID)
}

// unitKey is the toevoeging, or the box as people write it (adreswijzer.BoxNumber), which
// orders boxes as they read ("b002" as 2, "Be.4" as 4) and puts one box the register wrote
// twice ("21", "bs21") side by side.
func unitKey(a *adreswijzer.Address) string {
	if a.Country == adreswijzer.BE {
		return adreswijzer.BoxNumber(a.Box)
	}
	return a.Addition
}

// naturalCompare compares case-insensitively with digit runs taken as numbers; the empty
// string sorts first.
func naturalCompare(a, b string) int {
	if a == b {
		return 0
	}
	if a == "" || b == "" {
		return cmp.Compare(len(a), len(b))
	}
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		ca, cb := a[i], b[j]
		if isDigit(ca) && isDigit(cb) {
			ei, ej := i, j
			for ei < len(a) && isDigit(a[ei]) {
				ei++
			}
			for ej < len(b) && isDigit(b[ej]) {
				ej++
			}
			if c := compareNumbers(a[i:ei], b[j:ej]); c != 0 {
				return c
			}
			if c := cmp.Compare(ei-i, ej-j); c != 0 {
				return c
			}
			i, j = ei, ej
			continue
		}
		if c := cmp.Compare(lower(ca), lower(cb)); c != 0 {
			return c
		}
		i++
		j++
	}
	return cmp.Compare(len(a)-i, len(b)-j)
}

// compareNumbers compares two runs of digits as numbers. Up to 17 digits past the leading
// zeros (more than any register number has), the longer run is the greater and runs of one
// length compare as text, which parses nothing: sorting a block of flats compares its units
// thousands of times. Longer runs are parsed as they always were, so every number beyond an
// int's range compares equal.
func compareNumbers(a, b string) int {
	a, b = strings.TrimLeft(a, "0"), strings.TrimLeft(b, "0")
	if len(a) <= 17 && len(b) <= 17 {
		if c := cmp.Compare(len(a), len(b)); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	}
	na, _ := strconv.Atoi(a + "0")
	nb, _ := strconv.Atoi(b + "0")
	return cmp.Compare(na, nb)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// optionText is how an address at a number is offered to choose from in a message: the
// house number as the register writes it, with the box after its marker.
func optionText(a *adreswijzer.Address, lang adreswijzer.Language) string {
	if a.Country == adreswijzer.NL {
		return a.NumberText()
	}
	cf := carrier.Fields(a, "", lang)
	s := a.NumberText()
	if u := unitText(a, cf); u != "" {
		s += " " + u
	}
	return s
}

// options lists every choice; messages names ten and counts the rest.
func options(as []adreswijzer.Address, lang adreswijzer.Language) []string {
	out := make([]string, 0, len(as))
	for i := range as {
		out = append(out, optionText(&as[i], lang))
	}
	return out
}

func issue(lang adreswijzer.Language, code adreswijzer.IssueCode, f adreswijzer.Field, d messages.Details) adreswijzer.Issue {
	return messages.NewIssue(lang, code, f, d)
}

func ptr[T any](v T) *T { return &v }
