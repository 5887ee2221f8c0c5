package match

import (
	"context"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/adreswijzer/adreswijzer"
)

func TestLookup(t *testing.T) {
	e, _ := sampleEngine(t)
	tests := []struct {
		name      string
		q         LookupQuery
		additions []string // "-" stands for the bare number (null)
		issues    []adreswijzer.IssueCode
		lang      adreswijzer.Language
		planned   bool
		golden    string
	}{
		{name: "nl toevoegingen", q: LookupQuery{Country: "NL", Postcode: "1381 CS", Number: 16},
			additions: []string{"ben", "bov"}, lang: "nl", golden: "lookup_nl"},
		{name: "nl letters and toevoegingen in natural order", q: LookupQuery{Country: "NL", Postcode: "1382kb", Number: 51},
			additions: []string{"A1", "A2", "A3", "A4", "A5", "A6", "A7", "A8", "A9", "A10", "B1", "B2", "B3", "B4", "B5", "B6", "B7", "B8", "B9", "B10", "B11", "B12", "B13", "B14", "B15", "C1", "D1", "D2", "E1", "E2", "E3", "F1", "F2", "F3", "F4", "G1", "G2", "H1"}, lang: "nl"},
		{name: "nl one address, new build", q: LookupQuery{Country: "NL", Postcode: "1384AH", Number: 1, Carrier: "dhl"},
			additions: []string{"-"}, lang: "nl", planned: true, golden: "lookup_nl_planned"},
		{name: "nl unknown postcode", q: LookupQuery{Country: "NL", Postcode: "9999 ZZ", Number: 1},
			issues: []adreswijzer.IssueCode{"POSTCODE_NOT_FOUND"}, lang: "nl", golden: "lookup_nl_postcode_not_found"},
		{name: "nl number not at postcode", q: LookupQuery{Country: "NL", Postcode: "1381 CS", Number: 999, Lang: "en"},
			issues: []adreswijzer.IssueCode{"HOUSE_NUMBER_NOT_FOUND"}, lang: "en"},
		{name: "nl malformed postcode", q: LookupQuery{Country: "NL", Postcode: "1381", Number: 16},
			issues: []adreswijzer.IssueCode{"FORMAT_INVALID"}, lang: "nl"},
		{name: "be building with boxes", q: LookupQuery{Country: "BE", Postcode: "1502", Street: "Stevens-de Waelplein", Number: 9},
			additions: []string{"-", "bus 1", "bus 2", "bus 11"}, lang: "nl", golden: "lookup_be"},
		{name: "be french street with a typo", q: LookupQuery{Country: "BE", Postcode: "1130", Street: "rue du pre aux oie", Number: 134},
			additions: []string{"-", "bte 1"}, issues: []adreswijzer.IssueCode{"STREET_MISMATCH"}, lang: "fr", golden: "lookup_be_fr_corrected"},
		{name: "be street in decomposed unicode", q: LookupQuery{Country: "BE", Postcode: "1130", Street: "Rue du Pre\u0301 aux\u200b Oies", Number: 134},
			additions: []string{"-", "bte 1"}, lang: "fr"},
		{name: "be dutch street in brussels", q: LookupQuery{Country: "BE", Postcode: "1130", Street: "Ganzenweidestraat", Number: 134},
			additions: []string{"-", "bus 1"}, lang: "nl"},
		// Two current BeST records of one postal address (89A): a customer chooses from
		// what is printed, so it is listed once.
		{name: "be one postal address in two register records", q: LookupQuery{Country: "BE", Postcode: "1130", Street: "Harenheidestraat", Number: 89},
			additions: []string{"-", "A"}, lang: "nl"},
		{name: "be german answer", q: LookupQuery{Country: "BE", Postcode: "4960", Street: "Route du Barrage", Number: 83, Lang: "de"},
			additions: []string{"-"}, lang: "de"},
		{name: "be street not in postcode", q: LookupQuery{Country: "BE", Postcode: "1502", Street: "Rue de la Loi", Number: 9},
			issues: []adreswijzer.IssueCode{"STREET_MISMATCH"}, lang: "nl", golden: "lookup_be_street_mismatch"},
		{name: "be number not on street", q: LookupQuery{Country: "BE", Postcode: "1502", Street: "Stevens-de Waelplein", Number: 999},
			issues: []adreswijzer.IssueCode{"HOUSE_NUMBER_NOT_FOUND"}, lang: "nl"},
		{name: "unsupported country", q: LookupQuery{Country: "FR", Postcode: "75001", Number: 1},
			issues: []adreswijzer.IssueCode{"UNSUPPORTED_COUNTRY"}, lang: "nl"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := e.Lookup(context.Background(), tc.q)
			if err != nil {
				t.Fatal(err)
			}
			var adds []string
			for _, a := range resp.Additions {
				if a == nil {
					adds = append(adds, "-")
				} else {
					adds = append(adds, *a)
				}
			}
			if !slices.Equal(adds, tc.additions) {
				t.Errorf("additions = %q, want %q", adds, tc.additions)
			}
			if len(resp.Addresses) < len(resp.Additions) {
				t.Errorf("%d addresses for %d additions", len(resp.Addresses), len(resp.Additions))
			}
			printed := map[string]bool{}
			for _, a := range resp.Addresses {
				p := strings.Join(a.Formatted, "\n")
				if printed[p] {
					t.Errorf("address %q listed twice", p)
				}
				printed[p] = true
			}
			if got := issueCodes(resp.Issues); !slices.Equal(got, tc.issues) && len(got)+len(tc.issues) > 0 {
				t.Errorf("issues = %v, want %v", got, tc.issues)
			}
			if resp.Meta.Language != tc.lang {
				t.Errorf("language = %s, want %s", resp.Meta.Language, tc.lang)
			}
			if resp.NextStep == "" {
				t.Error("nextStep missing")
			}
			for _, a := range resp.Addresses {
				if a.Planned != tc.planned {
					t.Errorf("%s %v: planned = %v, want %v", a.Street, *a.HouseNumber, a.Planned, tc.planned)
				}
				if len(a.Formatted) != 2 || a.Carrier.CountryCode != tc.q.Country || a.Carrier.Warnings == nil {
					t.Errorf("address %+v: formatted lines or carrier fields incomplete", a)
				}
				if (a.Addition == nil) != (a.Unit == nil && a.HouseNumberSuffix == nil) {
					t.Errorf("address %+v: addition does not agree with suffix and unit", a)
				}
			}
			conforms(t, "GET", lookupTarget(tc.q), nil, resp, resp.Meta)
			if tc.golden != "" {
				goldenJSON(t, tc.golden, resp)
			}
		})
	}
}

func lookupTarget(q LookupQuery) string {
	v := url.Values{"postcode": {q.Postcode}, "number": {strconv.Itoa(q.Number)}}
	if q.Street != "" {
		v.Set("street", q.Street)
	}
	if q.Lang != "" {
		v.Set("lang", string(q.Lang))
	}
	if q.Carrier != "" {
		v.Set("carrier", string(q.Carrier))
	}
	path := "/v1/" + adreswijzer.Country(q.Country).Lower() + "/lookup"
	return path + "?" + v.Encode()
}

// TestLookupEveryAddressAtNumber checks lookup against the sample itself: for postcodes
// and numbers drawn from the imported rows, exactly the register's addresses come back.
func TestLookupEveryAddressAtNumber(t *testing.T) {
	e, s := sampleEngine(t)
	want := map[string]int{}
	for _, a := range s.nl {
		if a.Postcode != "" {
			want[a.Postcode+"|"+strconv.Itoa(a.HouseNumber)]++
		}
	}
	checked := 0
	for i, a := range s.nl {
		if i%97 != 0 || a.Postcode == "" {
			continue
		}
		resp, err := e.Lookup(context.Background(), LookupQuery{Country: "NL", Postcode: a.Postcode, Number: a.HouseNumber})
		if err != nil {
			t.Fatal(err)
		}
		if n := want[a.Postcode+"|"+strconv.Itoa(a.HouseNumber)]; len(resp.Addresses) != n {
			t.Errorf("%s %d: %d addresses, the register has %d", a.Postcode, a.HouseNumber, len(resp.Addresses), n)
		}
		checked++
	}
	if checked < 100 {
		t.Fatalf("only %d lookups checked", checked)
	}
}

// Past a few addresses the additions are deduplicated in a set; the list must be what
// comparing each with those before it gives.
func TestAdditionsOfManyAddresses(t *testing.T) {
	for _, n := range []int{0, 1, 16, 17, 300} {
		as := make([]adreswijzer.LookupAddress, n)
		for i := range as {
			if i%5 != 0 { // the bare number, repeated
				s := strconv.Itoa(i % 7) // and the units, repeated
				as[i].Addition = &s
			}
		}
		want := []*string{}
		for i := range as {
			if !containsAddition(want, as[i].Addition) {
				want = append(want, as[i].Addition)
			}
		}
		// The same values, as the first address with each holds them, and [] rather than null.
		if got := additionsOf(as); got == nil || !slices.Equal(got, want) {
			t.Errorf("%d addresses: additions %v, want %v", n, got, want)
		}
	}
}
