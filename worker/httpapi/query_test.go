package httpapi

import (
	"net/url"
	"testing"
)

// queryNames are the parameters the tests read: some a route has, one it does not.
var queryNames = []string{"postcode", "number", "q", "lang"}

// parsedQuery is what url.ParseQuery makes of query for queryNames: the reading readQuery
// must keep.
func parsedQuery(query string) map[string]value {
	vs, _ := url.ParseQuery(query) // a malformed pair is skipped, the rest kept
	out := make(map[string]value)
	for _, n := range queryNames {
		if v, ok := vs[n]; ok && len(v) > 0 {
			out[n] = value{kind: text, s: v[0]}
		}
	}
	return out
}

func readQueryNames(query string) map[string]value {
	got := make(map[string]*value)
	readQuery(query, func(name, s string) {
		for _, n := range queryNames {
			if n == name {
				if got[n] == nil {
					got[n] = new(value)
				}
				keepFirst(got[n], s)
			}
		}
	})
	out := make(map[string]value)
	for n, v := range got {
		if v.kind != absent {
			out[n] = *v
		}
	}
	return out
}

func TestReadQuery(t *testing.T) {
	for query, want := range map[string]map[string]value{
		"postcode=1381AA&number=2":        {"postcode": {text, "1381AA"}, "number": {text, "2"}},
		"postcode=1381+AA&number=%32":     {"postcode": {text, "1381 AA"}, "number": {text, "2"}},
		"number=2&number=3":               {"number": {text, "2"}},
		"number=%zz&number=3":             {"number": {text, "3"}}, // a bad escape is skipped, the next value counts
		"number=2;lang=nl&lang=fr":        {"lang": {text, "fr"}},  // a pair with a semicolon is skipped
		"q=Rue+de+l%27%C3%89glise&&lang":  {"q": {text, "Rue de l'Église"}, "lang": {text, ""}},
		"%6Eumber=7&street=Nieuwe+Gracht": {"number": {text, "7"}},
		"":                                {},
		"q=":                              {"q": {text, ""}},
		"postcode&postcode=1381AA":        {"postcode": {text, ""}},
	} {
		got := readQueryNames(query)
		if len(got) != len(want) {
			t.Errorf("readQuery(%q) = %v, want %v", query, got, want)
			continue
		}
		for n, v := range want {
			if got[n] != v {
				t.Errorf("readQuery(%q)[%s] = %+v, want %+v", query, n, got[n], v)
			}
		}
		if p := parsedQuery(query); len(p) != len(want) {
			t.Errorf("url.ParseQuery(%q) reads %v; the table is wrong", query, p)
		}
	}
}
