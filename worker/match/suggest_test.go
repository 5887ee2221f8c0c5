package match

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/adreswijzer/adreswijzer"
)

func TestSuggest(t *testing.T) {
	e, _ := sampleEngine(t)
	tests := []struct {
		name     string
		q        SuggestQuery
		first    adreswijzer.StreetSuggestion // zero when no suggestion is expected
		postcode string                       // the first suggestion's postcode, "" for null
		issues   []adreswijzer.IssueCode
		lang     adreswijzer.Language
		golden   string
	}{
		{name: "nl prefix country-wide", q: SuggestQuery{Country: "NL", Q: "hugo de gr"},
			first: adreswijzer.StreetSuggestion{Street: "Hugo de Grootlaan", Locality: "Weesp"}, lang: "nl", golden: "suggest_nl"},
		{name: "nl typo", q: SuggestQuery{Country: "NL", Q: "bloemendalrweg"},
			first: adreswijzer.StreetSuggestion{Street: "Bloemendalerweg", Locality: "Weesp"}, postcode: "", lang: "nl"},
		{name: "nl diacritics not typed", q: SuggestQuery{Country: "NL", Q: "henriette"},
			first: adreswijzer.StreetSuggestion{Street: "Henriëtte Roland Holsthof", Locality: "Weesp"}, lang: "nl"},
		{name: "nl later word", q: SuggestQuery{Country: "NL", Q: "grootlaan"},
			first: adreswijzer.StreetSuggestion{Street: "Hugo de Grootlaan", Locality: "Weesp"}, postcode: "", lang: "nl"},
		{name: "nl too short country-wide", q: SuggestQuery{Country: "NL", Q: "hu"}, lang: "nl"},
		{name: "nl one letter within a postcode", q: SuggestQuery{Country: "NL", Q: "h", Postcode: "1381 cs"},
			first: adreswijzer.StreetSuggestion{Street: "Hugo de Grootlaan", Locality: "Weesp"}, postcode: "1381CS", lang: "nl"},
		{name: "nl invalid postcode", q: SuggestQuery{Country: "NL", Q: "hugo", Postcode: "1381"},
			issues: []adreswijzer.IssueCode{"FORMAT_INVALID"}, lang: "nl"},
		{name: "nl unknown postcode", q: SuggestQuery{Country: "NL", Q: "hugo", Postcode: "9999 ZZ", Lang: "en"},
			issues: []adreswijzer.IssueCode{"POSTCODE_NOT_FOUND"}, lang: "en", golden: "suggest_postcode_not_found"},
		{name: "be french name answers in french", q: SuggestQuery{Country: "BE", Q: "rue du pre"},
			first: adreswijzer.StreetSuggestion{Street: "Rue du Pré aux Oies", Locality: "Bruxelles (Haren)"}, postcode: "1130", lang: "fr", golden: "suggest_be_fr"},
		{name: "be dutch name answers in dutch", q: SuggestQuery{Country: "BE", Q: "ganzenw"},
			first: adreswijzer.StreetSuggestion{Street: "Ganzenweidestraat", Locality: "Brussel (Haren)"}, postcode: "1130", lang: "nl"},
		{name: "be wallonia", q: SuggestQuery{Country: "BE", Q: "route du barr"},
			first: adreswijzer.StreetSuggestion{Street: "Route du Barrage", Locality: "Bevercé"}, postcode: "4960", lang: "fr"},
		{name: "be word within a postcode", q: SuggestQuery{Country: "BE", Q: "pre aux", Postcode: "1130"},
			first: adreswijzer.StreetSuggestion{Street: "Rue du Pré aux Oies", Locality: "Bruxelles (Haren)"}, postcode: "1130", lang: "fr"},
		{name: "be typo within a postcode", q: SuggestQuery{Country: "BE", Q: "stevns-de", Postcode: "1502"},
			first: adreswijzer.StreetSuggestion{Street: "Stevens-de Waelplein", Locality: "Lembeek"}, postcode: "1502", lang: "nl"},
		{name: "be abbreviation written out", q: SuggestQuery{Country: "BE", Q: "Chée de Haecht"},
			first: adreswijzer.StreetSuggestion{Street: "Chaussée de Haecht", Locality: "Bruxelles (Haren)"}, postcode: "1130", lang: "fr"},
		{name: "be abbreviation within a postcode", q: SuggestQuery{Country: "BE", Q: "chee de h", Postcode: "1130"},
			first: adreswijzer.StreetSuggestion{Street: "Chaussée de Haecht", Locality: "Bruxelles (Haren)"}, postcode: "1130", lang: "fr"},
		{name: "nl abbreviation written out", q: SuggestQuery{Country: "NL", Q: "St Annastr"},
			first: adreswijzer.StreetSuggestion{Street: "Sint Annastraat", Locality: "Weesp"}, postcode: "1381XR", lang: "nl"},
		{name: "unsupported country", q: SuggestQuery{Country: "DE", Q: "unter"},
			issues: []adreswijzer.IssueCode{"UNSUPPORTED_COUNTRY"}, lang: "nl"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := e.Suggest(context.Background(), tc.q)
			if err != nil {
				t.Fatal(err)
			}
			if tc.first.Street == "" {
				if len(resp.Suggestions) != 0 {
					t.Errorf("suggestions %+v, want none", resp.Suggestions)
				}
			} else {
				if len(resp.Suggestions) == 0 {
					t.Fatal("no suggestions")
				}
				got := resp.Suggestions[0]
				pc := ""
				if got.Postcode != nil {
					pc = *got.Postcode
				}
				if got.Street != tc.first.Street || got.Locality != tc.first.Locality || pc != tc.postcode {
					t.Errorf("first = %+v (postcode %q), want %+v (postcode %q)", got, pc, tc.first, tc.postcode)
				}
			}
			if len(resp.Suggestions) > adreswijzer.MaxSuggestions {
				t.Errorf("%d suggestions", len(resp.Suggestions))
			}
			if got := issueCodes(resp.Issues); !slices.Equal(got, tc.issues) && len(got)+len(tc.issues) > 0 {
				t.Errorf("issues = %v, want %v", got, tc.issues)
			}
			if resp.Meta.Language != tc.lang {
				t.Errorf("language = %s, want %s", resp.Meta.Language, tc.lang)
			}
			v := url.Values{"country": {strings.ToLower(string(tc.q.Country))}, "q": {tc.q.Q}}
			if tc.q.Postcode != "" {
				v.Set("postcode", tc.q.Postcode)
			}
			if tc.q.Lang != "" {
				v.Set("lang", string(tc.q.Lang))
			}
			conforms(t, "GET", "/v1/suggest?"+v.Encode(), nil, resp, resp.Meta)
			if tc.golden != "" {
				goldenJSON(t, tc.golden, resp)
			}
		})
	}
}

// TestSuggestEveryStreetFindsItself types every street of both samples letter by letter
// within its postcode: each must be suggested once its whole name is typed at the latest, and
// typing the whole name must put it first.
func TestSuggestEveryStreetFindsItself(t *testing.T) {
	e, s := sampleEngine(t)
	seen := map[string]bool{}
	letters := 0
	for _, rows := range [][]adreswijzer.Address{s.nl, s.be} {
		for _, a := range rows {
			name := streetName(&a, a.Street.NL == "")
			if a.Postcode == "" || seen[a.StreetID] {
				continue
			}
			seen[a.StreetID] = true
			typed := []rune(name)
			found := 0
			for n := 1; n <= len(typed) && found == 0; n++ {
				resp, err := e.Suggest(context.Background(), SuggestQuery{Country: a.Country, Q: string(typed[:n]), Postcode: a.Postcode})
				if err != nil {
					t.Fatal(err)
				}
				if hasStreet(resp.Suggestions, name) {
					found = n
				}
			}
			if found == 0 {
				t.Errorf("%q in %s is never suggested", name, a.Postcode)
				continue
			}
			letters += found
			resp, err := e.Suggest(context.Background(), SuggestQuery{Country: a.Country, Q: name, Postcode: a.Postcode})
			if err != nil {
				t.Fatal(err)
			}
			if len(resp.Suggestions) == 0 || resp.Suggestions[0].Street != name {
				t.Errorf("%q in %s typed in full is not first: %+v", name, a.Postcode, resp.Suggestions)
			}
		}
	}
	if len(seen) < 600 {
		t.Fatalf("only %d streets checked", len(seen))
	}
	t.Logf("%d streets, suggested after %.1f letters on average", len(seen), float64(letters)/float64(len(seen)))
}

func hasStreet(ss []adreswijzer.StreetSuggestion, name string) bool {
	for _, s := range ss {
		if s.Street == name {
			return true
		}
	}
	return false
}

// TestSuggestAbbreviated types every real street name that opens with a word people
// abbreviate ("Chaussée", "Avenue", "Sint", "Burgemeester") in its abbreviated form, as
// validation accepts it: the street must be suggested, country-wide and within its postcode.
func TestSuggestAbbreviated(t *testing.T) {
	e, s := sampleEngine(t)
	short := map[string]string{}
	for w, c := range canonWord {
		if len(w) > len(c) {
			short[w] = c
		}
	}
	seen := map[string]bool{}
	n := 0
	for _, rows := range [][]adreswijzer.Address{s.nl, s.be} {
		for _, a := range rows {
			name := streetName(&a, a.Street.NL == "")
			first, rest, ok := strings.Cut(fold(name), " ")
			if !ok || short[first] == "" || a.Postcode == "" || seen[a.StreetID] {
				continue
			}
			seen[a.StreetID] = true
			n++
			typed := short[first] + " " + rest
			for _, pc := range []string{"", a.Postcode} {
				resp, err := e.Suggest(context.Background(), SuggestQuery{Country: a.Country, Q: typed, Postcode: pc})
				if err != nil {
					t.Fatal(err)
				}
				if !hasStreet(resp.Suggestions, name) {
					t.Errorf("%q typed %q (postcode %q) is not suggested: %+v", name, typed, pc, resp.Suggestions)
				}
			}
		}
	}
	if n < 30 {
		t.Fatalf("only %d abbreviated streets checked", n)
	}
}
