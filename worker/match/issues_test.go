package match

import (
	"context"
	"slices"
	"sort"
	"strconv"
	"testing"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/worker/messages"
)

// The issues of an answer are findings about the register, so each must be true of it: an
// answer names what was typed differently (the street, with the register's) and what the
// register lacks, never a house number "not found" at a postcode that has it. The answers
// that weigh two readings (the typed street at another postcode, the typed postcode on
// another street) are where that went wrong: Achtergracht 16, bov, 1381 CS was rightly
// ambiguous, but said HOUSE_NUMBER_NOT_FOUND while Hugo de Grootlaan 16 bov is at 1381 CS.

// readingCase is an address typed so that the register reads it two ways, with what the
// answer must say.
type readingCase struct {
	name   string
	req    adreswijzer.ValidateRequest
	status adreswijzer.Verdict
	issues []adreswijzer.IssueCode // exactly these, in any order
	// match is the address a correction must choose, nil for none.
	match *adreswijzer.Address
	// here is the address at the typed postcode, number and unit, on another street than
	// the typed one: a suggestion, and the street STREET_MISMATCH names. elsewhere is on
	// the typed street at another postcode: a suggestion too.
	here, elsewhere *adreswijzer.Address
}

// readingLangs cycle through the cases so that every wording is checked on real rows.
var readingLangs = []adreswijzer.Language{adreswijzer.LangNL, adreswijzer.LangFR, adreswijzer.LangDE, adreswijzer.LangEN}

// readingCases builds three families from the Dutch sample, at most perFamily each, drawn
// evenly from its rows in ID order:
//   - the typed street has the number at another postcode of the PC4 area without the
//     toevoeging typed, and the typed postcode has the number with exactly that toevoeging
//     on another street: ambiguous, both offered, STREET_MISMATCH naming the street at the
//     postcode, nothing "not found";
//   - the postcode of another street of the PC4 area, which has the number too: corrected
//     to the typed street, and no issue says the number is not at that postcode;
//   - the postcode of another street of the PC4 area without the number: corrected, and
//     HOUSE_NUMBER_NOT_FOUND says so.
func readingCases(s *sample, perFamily int) []readingCase {
	rows := append([]adreswijzer.Address{}, s.nl...)
	sort.Slice(rows, func(i, j int) bool { return rows[i].ID < rows[j].ID })
	idx := indexSample(rows)
	inUse := func(a *adreswijzer.Address) bool {
		return a.Status == adreswijzer.StatusInUse && len(a.Postcode) == 6 && idx.uniqueExtension(a)
	}
	// postcodes of each PC4 area, sorted, with the streets each has.
	pc4 := map[string][]string{}
	streetsAt := map[string]map[string]bool{}
	for i := range rows {
		a := &rows[i]
		if len(a.Postcode) != 6 {
			continue
		}
		if streetsAt[a.Postcode] == nil {
			streetsAt[a.Postcode] = map[string]bool{}
			pc4[a.Postcode[:4]] = append(pc4[a.Postcode[:4]], a.Postcode)
		}
		streetsAt[a.Postcode][a.StreetID] = true
	}
	for _, pcs := range pc4 {
		slices.Sort(pcs)
	}
	hasUnit := func(pc string, n int, ext string) bool {
		return slices.ContainsFunc(idx.atNumber[pc+"|"+strconv.Itoa(n)], func(x adreswijzer.Address) bool {
			return adreswijzer.LooseExtensionOf(x.HouseNumberSuffix, x.Unit()) == ext
		})
	}
	request := func(street string, n int, addition, pc string) adreswijzer.ValidateRequest {
		r := adreswijzer.ValidateRequest{CountryCode: "NL", Address1: street + " " + strconv.Itoa(n), Zip: adreswijzer.FormatPostcode(adreswijzer.NL, pc), City: str("Weesp")}
		if addition != "" {
			r.Address2 = str(addition)
		}
		return r
	}

	var two, withNumber, without []readingCase
	seen := map[string]bool{}
	for i := range rows {
		b := &rows[i]
		if !inUse(b) {
			continue
		}
		n := b.HouseNumber
		if b.Addition != "" && b.HouseNumberSuffix == "" {
			// Another street with the number at another postcode of the area, without b's
			// toevoeging; one case per pair of streets.
			for j := range rows {
				o := &rows[j]
				if o.HouseNumber != n || o.StreetID == b.StreetID || o.Postcode == b.Postcode || o.Postcode[:4] != b.Postcode[:4] ||
					o.Status != adreswijzer.StatusInUse || hasUnit(o.Postcode, n, adreswijzer.LooseExtensionOf(b.Addition)) || seen[b.StreetID+"|"+o.StreetID] {
					continue
				}
				seen[b.StreetID+"|"+o.StreetID] = true
				two = append(two, readingCase{
					name: "two readings: " + o.Street.NL + " " + strconv.Itoa(n) + " / " + b.Addition + " at " + b.Postcode,
					req:  request(o.Street.NL, n, b.Addition, b.Postcode), status: adreswijzer.VerdictAmbiguous,
					issues: []adreswijzer.IssueCode{adreswijzer.IssueStreetMismatch}, here: b, elsewhere: o,
				})
				break
			}
		}
		if b.Addition != "" || b.HouseNumberSuffix != "" || len(idx.at(b)) != 1 {
			continue
		}
		// The first postcode of another street of the area, with and the first without the
		// number.
		var with, wout bool
		for _, pc := range pc4[b.Postcode[:4]] {
			if pc == b.Postcode || streetsAt[pc][b.StreetID] {
				continue
			}
			name := b.Street.NL + " " + strconv.Itoa(n) + " at " + pc
			switch at := len(idx.atNumber[pc+"|"+strconv.Itoa(n)]) > 0; {
			case at && !with:
				with = true
				withNumber = append(withNumber, readingCase{
					name: "postcode of another street with the number: " + name,
					req:  request(b.Street.NL, n, "", pc), status: adreswijzer.VerdictCorrected, match: b,
				})
			case !at && !wout:
				wout = true
				without = append(without, readingCase{
					name: "postcode of another street without the number: " + name,
					req:  request(b.Street.NL, n, "", pc), status: adreswijzer.VerdictCorrected, match: b,
					issues: []adreswijzer.IssueCode{adreswijzer.IssueHouseNumberNotFound},
				})
			}
		}
	}
	two = spread(two, perFamily)
	for i := range two {
		// Every wording of the street at the postcode, on real rows.
		lang := readingLangs[i%len(readingLangs)]
		two[i].req.Lang = string(lang)
		two[i].name += " (" + string(lang) + ")"
	}
	return slices.Concat(two, spread(withNumber, perFamily), spread(without, perFamily))
}

// spread keeps at most n cases, evenly spaced, so that a family covers the whole sample
// rather than its first streets.
func spread(cs []readingCase, n int) []readingCase {
	if len(cs) <= n {
		return cs
	}
	out := make([]readingCase, 0, n)
	for i := range n {
		out = append(out, cs[i*len(cs)/n])
	}
	return out
}

func TestValidateIssuesOfTwoReadings(t *testing.T) {
	e, s := sampleEngine(t)
	cases := readingCases(s, 12)
	count := map[adreswijzer.Verdict]int{}
	for _, tc := range cases {
		count[tc.status]++
	}
	if count[adreswijzer.VerdictAmbiguous] < 8 || count[adreswijzer.VerdictCorrected] < 16 {
		t.Fatalf("the sample gives %v cases: the families need real rows", count)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := e.Validate(context.Background(), tc.req)
			if err != nil {
				t.Fatal(err)
			}
			got := issueCodes(resp.Issues)
			if resp.Status != tc.status || !sameCodes(got, tc.issues) {
				t.Fatalf("%s: %s %v, want %s %v", describe(tc.req), resp.Status, got, tc.status, tc.issues)
			}
			if tc.match != nil && !matches(resp.Match, tc.match) {
				t.Errorf("match %+v, want %s %d", resp.Match, tc.match.Postcode, tc.match.HouseNumber)
			}
			for _, a := range []*adreswijzer.Address{tc.here, tc.elsewhere} {
				if a != nil && !slices.ContainsFunc(resp.Suggestions, func(n adreswijzer.NormalizedAddress) bool { return suggests(n, a) }) {
					t.Errorf("suggestions %+v lack %s %d at %s", resp.Suggestions, a.Street.NL, a.HouseNumber, a.Postcode)
				}
			}
			if tc.here != nil {
				lang := adreswijzer.Language(tc.req.Lang)
				want := messages.Issue(lang, adreswijzer.IssueStreetMismatch, messages.Details{Street: tc.here.Street.NL, AtPostcode: true})
				if is := resp.Issues[0]; is.Message != want || is.Field != adreswijzer.FieldAddress1 {
					t.Errorf("%s on %s: %q, want %q on address1", is.Code, is.Field, is.Message, want)
				}
			}
			checkValidateShape(t, tc.req, resp)
		})
	}
}

// suggests reports whether a suggestion is the register address a, by street, number,
// toevoeging and postcode.
func suggests(n adreswijzer.NormalizedAddress, a *adreswijzer.Address) bool {
	addition := ""
	if n.Address2 != nil {
		addition = *n.Address2
	}
	return n.Address1 == a.Street.NL+" "+strconv.Itoa(a.HouseNumber)+a.HouseNumberSuffix && addition == a.Addition &&
		n.Zip == adreswijzer.FormatPostcode(adreswijzer.NL, a.Postcode)
}

func sameCodes(a, b []adreswijzer.IssueCode) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// TestValidateNotFoundIsTrue answers every case of the validate table, the quality set and
// the two-reading families, and checks each HOUSE_NUMBER_NOT_FOUND of a Dutch answer
// against the register rows: the typed postcode, when the register knows it, has no address
// at the typed number.
func TestValidateNotFoundIsTrue(t *testing.T) {
	e, s := sampleEngine(t)
	idx := indexSample(s.nl)
	var reqs []adreswijzer.ValidateRequest
	for _, tc := range validateCases {
		reqs = append(reqs, tc.req)
	}
	for _, c := range slices.Concat(qualityCases(s), messyCases(s)) {
		reqs = append(reqs, c.req)
	}
	for _, c := range readingCases(s, 1000) {
		reqs = append(reqs, c.req)
	}
	checked := 0
	for _, r := range reqs {
		if r.CountryCode != "NL" {
			continue
		}
		resp, err := e.Validate(context.Background(), r)
		if err != nil {
			t.Fatal(err)
		}
		pc, err := adreswijzer.NormalizePostcode(adreswijzer.NL, r.Zip)
		line := adreswijzer.ParseAddressLine(adreswijzer.NL, r.Address1)
		if err != nil || !idx.postcodes[pc] || !line.HasNumber {
			continue
		}
		for _, is := range resp.Issues {
			if is.Code != adreswijzer.IssueHouseNumberNotFound {
				continue
			}
			checked++
			if there := idx.atNumber[pc+"|"+strconv.Itoa(line.Number.Number)]; len(there) > 0 {
				t.Errorf("%s: %s %q on %s, but %s %d is at that postcode", describe(r), is.Code, is.Message, is.Field,
					there[0].Street.NL, there[0].HouseNumber)
			}
		}
	}
	if checked < 20 {
		t.Errorf("only %d HOUSE_NUMBER_NOT_FOUND answers checked: the sets no longer reach the issue", checked)
	}
}
