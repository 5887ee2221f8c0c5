package match

import (
	"context"
	"slices"
	"strconv"
	"testing"

	"github.com/adreswijzer/adreswijzer"
)

// duplicateSets finds the postal addresses the samples hold more than once (7 in Weesp, such
// as Blomstraat 17, 1382 AJ: an office in use and a dwelling planned; 24 in Brussels, such
// as Rue Harenheyde 89A: two current ids).
func duplicateSets(rows []adreswijzer.Address) [][]adreswijzer.Address {
	byKey := map[string][]adreswijzer.Address{}
	var keys []string
	for _, a := range rows {
		k := postalKey(&a)
		if byKey[k] == nil {
			keys = append(keys, k)
		}
		byKey[k] = append(byKey[k], a)
	}
	var out [][]adreswijzer.Address
	for _, k := range keys {
		if len(byKey[k]) > 1 {
			out = append(out, byKey[k])
		}
	}
	return out
}

// postalKey is what a postal address is made of: two records with the same key print as one.
func postalKey(a *adreswijzer.Address) string {
	return a.Postcode + "|" + a.StreetID + "|" + strconv.Itoa(a.HouseNumber) + "|" + a.HouseNumberSuffix + "|" + a.Addition + "|" + a.Box
}

// TestDuplicateRecordsCountOnce validates, looks up and autocompletes every address the
// samples hold twice: each answers it once (the record in use when one is), and lookup
// offers its addition once.
func TestDuplicateRecordsCountOnce(t *testing.T) {
	e, s := sampleEngine(t)
	ctx := context.Background()
	nl, be := duplicateSets(s.nl), duplicateSets(s.be)
	t.Logf("postal addresses held more than once: %d in Weesp, %d in Brussels", len(nl), len(be))
	if len(nl) != 7 || len(be) != 24 {
		t.Fatalf("%d + %d duplicated addresses in the samples, want 7 + 24", len(nl), len(be))
	}
	sets := append(nl, be...)
	for _, set := range sets {
		a := set[0]
		name := a.Street.PickPrimary(false) + " " + a.NumberText() + " " + a.Unit() + ", " + a.Postcode
		best := a
		for _, b := range set {
			if statusRank(b.Status) > statusRank(best.Status) {
				best = b
			}
		}
		r := clean(&a, a.Street.NL == "")
		resp, err := e.Validate(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		wantStatus := adreswijzer.VerdictValid
		for _, b := range sameNumber(s, &a) {
			if a.Country == adreswijzer.BE && a.Box == "" && b.Box != "" && b.HouseNumberSuffix == a.HouseNumberSuffix {
				wantStatus = adreswijzer.VerdictAmbiguous // a Belgian building with boxes asks for one
			}
		}
		if resp.Status != wantStatus {
			t.Errorf("%s: %s %v, want %s", name, resp.Status, issueCodes(resp.Issues), wantStatus)
		}
		if resp.Status == adreswijzer.VerdictValid {
			if planned := slices.Contains(issueCodes(resp.Issues), adreswijzer.IssueAddressPlanned); planned != best.Planned() {
				t.Errorf("%s: ADDRESS_PLANNED %v, but the best record is planned %v", name, planned, best.Planned())
			}
		}
		for i, x := range resp.Suggestions {
			for _, y := range resp.Suggestions[:i] {
				if x.Address1 == y.Address1 && x.Zip == y.Zip && ptrEq(x.Address2, y.Address2) {
					t.Errorf("%s: suggestion %+v twice", name, x)
				}
			}
		}

		q := LookupQuery{Country: a.Country, Postcode: a.Postcode, Number: a.HouseNumber, Street: a.Street.PickPrimary(false)}
		lr, err := e.Lookup(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := len(lr.Addresses), postalAddresses(sameNumber(s, &a)); got != want {
			t.Errorf("%s: lookup lists %d addresses, the register has %d postal addresses at the number", name, got, want)
		}

		for i, x := range lr.Additions {
			for _, y := range lr.Additions[:i] {
				if ptrEq(x, y) {
					t.Errorf("%s: lookup offers addition %v twice", name, ptrStr(x))
				}
			}
		}

		ac, err := e.Autocomplete(ctx, AutocompleteQuery{Country: a.Country, Q: a.Street.PickPrimary(false) + " " + strconv.Itoa(a.HouseNumber), Postcode: a.Postcode, Budget: 10e9})
		if err != nil {
			t.Fatal(err)
		}
		for i, x := range ac.Suggestions {
			for _, y := range ac.Suggestions[:i] {
				if x.Label == y.Label {
					t.Errorf("%s: autocomplete suggests %q twice", name, x.Label)
				}
			}
		}
	}
}

// sameNumber returns every record at the address's street, number and postcode.
func sameNumber(s *sample, a *adreswijzer.Address) []adreswijzer.Address {
	rows := s.nl
	if a.Country == adreswijzer.BE {
		rows = s.be
	}
	var out []adreswijzer.Address
	for _, b := range rows {
		if b.StreetID == a.StreetID && b.Postcode == a.Postcode && b.HouseNumber == a.HouseNumber {
			out = append(out, b)
		}
	}
	return out
}

// postalAddresses counts the distinct postal addresses among rows.
func postalAddresses(rows []adreswijzer.Address) int {
	keys := map[string]bool{}
	for _, a := range rows {
		keys[postalKey(&a)] = true
	}
	return len(keys)
}

func ptrEq(a, b *string) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }

func ptrStr(p *string) string {
	if p == nil {
		return "null"
	}
	return *p
}
