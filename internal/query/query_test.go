package query

import (
	"net/url"
	"slices"
	"strings"
	"testing"
)

// sameAsURLValues fails unless v holds exactly what url.ParseQuery reads from raw: the same
// values per key, in the same order.
func sameAsURLValues(t *testing.T, raw string) {
	t.Helper()
	want, _ := url.ParseQuery(raw)
	var v Values
	v.Parse(raw)
	got := url.Values{}
	for _, p := range v.All() {
		got[p.Key] = append(got[p.Key], p.Value)
	}
	if len(got) != len(want) {
		t.Fatalf("%q: %v, url.ParseQuery reads %v", raw, got, want)
	}
	for k, vs := range want {
		if !slices.Equal(got[k], vs) {
			t.Fatalf("%q: %s is %q, url.ParseQuery reads %q", raw, k, got[k], vs)
		}
		if first, ok := v.Lookup(k); !ok || first != vs[0] || v.Get(k) != vs[0] {
			t.Fatalf("%q: Lookup(%s) = %q %v, want %q", raw, k, first, ok, vs[0])
		}
	}
	if s, ok := v.Lookup("absent"); ok || s != "" {
		t.Fatalf("%q: an absent key is found", raw)
	}
}

func TestParseAsNetURL(t *testing.T) {
	for _, raw := range []string{
		"", "&", "&&", "=", "a", "a=", "=b", "a=1&a=2&b=3", "postcode=1381CS&number=16&sessionId=chk-1",
		"a=1;b=2&c=3", "a%3Bb=1", "a=%zz&b=2", "a%=1&b=2", "q=a+b%20c", "a+b=c", "k=v=w", "a=1&&b=2&",
		"%E2%82%AC=%E2%82%AC", "API_KEY=x", "x=" + strings.Repeat("a&", inline-2) + "a",
		strings.Repeat("a=1&", inline-1) + "b=2",
		strings.Repeat("a=1&", inline) + "b=2",
		strings.Repeat("k=v&", 10_001), // over net/url's limit: no parameters at all
	} {
		sameAsURLValues(t, raw)
	}
}

func FuzzParseAsNetURL(f *testing.F) {
	for _, s := range []string{"a=1&b=2", "a=1;b", "q=%20+x", strings.Repeat("a&", inline+1)} {
		f.Add(s)
	}
	f.Fuzz(sameAsURLValues)
}

// A short query is read without an allocation when nothing in it is escaped.
func TestParseAllocations(t *testing.T) {
	raw := "postcode=1381CS&number=16&sessionId=chk-1"
	if n := testing.AllocsPerRun(100, func() {
		var v Values
		v.Parse(raw)
		if v.Get("number") != "16" {
			t.Fatal("number not read")
		}
	}); n != 0 {
		t.Errorf("%v allocations", n)
	}
}
