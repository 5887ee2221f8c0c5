package match

import (
	"strings"
	"testing"

	"github.com/adreswijzer/adreswijzer"
)

// exactlyWithoutKeys is exactLevel without its key check: the comparisons the keys must
// never veto.
func exactlyWithoutKeys(t typedName, v nameVariant) bool {
	return sameRegisterText(t.raw, v.name) || equalWithoutSpaces(t.compact, v.folded) || t.canon == v.canon
}

// typedForms are ways people type a register name that still match it at an exact level:
// another letter case, spaces lost or doubled, a no-break space, a hyphen for a space,
// accents left out, the street word abbreviated.
func typedForms(name string) []string {
	return []string{
		name, strings.ToUpper(name), strings.ToLower(name),
		strings.ReplaceAll(name, " ", ""), strings.ReplaceAll(name, " ", "  "),
		" " + strings.ReplaceAll(name, " ", "\u00a0") + "\t",
		strings.ReplaceAll(name, "-", " "), strings.ReplaceAll(name, " ", "-"),
		fold(name), strings.Replace(strings.ToLower(name), "straat", "str.", 1),
		strings.Replace(name, "Burgemeester", "Burg.", 1),
		// Runes strings.EqualFold takes for ASCII letters: the long s and the Kelvin sign.
		strings.ReplaceAll(name, "s", "ſ"), strings.ReplaceAll(name, "k", "\u212a"),
	}
}

// TestExactKeysNeverHideAMatch holds every real Dutch street name, typed the ways
// typedForms lists, against its register name: wherever exactLevel's comparisons find a
// match the keys must let it through. Against other streets the keys must reject nearly
// every pair, or they save nothing.
func TestExactKeysNeverHideAMatch(t *testing.T) {
	names, _ := nationalStreetNames(t)
	matched := 0
	for _, name := range names {
		var buf [4]nameVariant
		v := variantsOf(adreswijzer.Names{NL: name}, "", &buf)
		if len(v) == 0 {
			continue
		}
		for _, typed := range typedForms(name) {
			tn := newTypedName(typed)
			if !exactlyWithoutKeys(tn, v[0]) {
				continue
			}
			matched++
			if !tn.keys.mayMatchExactly(v[0].keys) {
				t.Fatalf("typed %q, register %q: the keys veto an exact match", typed, name)
			}
		}
	}
	// Where fold and strings.EqualFold part ways only the text key carries the match: fold
	// keeps a Greek final sigma apart from σ, EqualFold does not.
	for _, p := range [][2]string{{"ΟΔΟΣ", "οδος"}, {"STRAẞE  X", "straße x"}} {
		tn := newTypedName(p[0])
		var buf [4]nameVariant
		v := variantsOf(adreswijzer.Names{NL: p[1]}, "", &buf)[0]
		if !exactlyWithoutKeys(tn, v) || tn.keys.compact == v.keys.compact || tn.keys.canon == v.keys.canon {
			t.Fatalf("typed %q, register %q: not a case for the text key", p[0], p[1])
		}
		if !tn.keys.mayMatchExactly(v.keys) {
			t.Fatalf("typed %q, register %q: the keys veto an exact match", p[0], p[1])
		}
	}
	if matched < len(names)*5 {
		t.Fatalf("only %d exact matches among %d names: the forms do not exercise the keys", matched, len(names))
	}

	passed, pairs := 0, 0
	for i := 0; i < len(names); i += 101 {
		tn := newTypedName(names[i])
		for j := 7; j < len(names); j += 499 {
			var buf [4]nameVariant
			v := variantsOf(adreswijzer.Names{NL: names[j]}, "", &buf)
			if len(v) == 0 || exactlyWithoutKeys(tn, v[0]) {
				continue
			}
			pairs++
			if tn.keys.mayMatchExactly(v[0].keys) {
				passed++
			}
		}
	}
	if pairs == 0 || passed*1000 > pairs {
		t.Fatalf("the keys let %d of %d unrelated pairs through", passed, pairs)
	}
	t.Logf("%d exact matches kept; %d of %d unrelated pairs passed the keys", matched, passed, pairs)
}

// FuzzExactKeys: for any typed text and register name, an exact-level match is never vetoed
// by the keys.
//
//	go test ./worker/match -run '^$' -fuzz FuzzExactKeys
func FuzzExactKeys(f *testing.F) {
	for _, s := range [][2]string{
		{"Burg. de Withstraat", "Burgemeester de Withstraat"}, {"KERKSTRAAT", "Kerkstraat"},
		{"sint  jansstraat", "Sint-Jansstraat"}, {"Chaussée de Louvain", "Chaussee de Louvain"},
		{"ſtraat", "Straat"}, {"\u212aade", "Kade"}, {"Ǆemal", "ǆemal"}, {"\u00a0a\u2003b ", "A B"},
		{"\xff", "\xfe"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, typed, register string) {
		tn := newTypedName(typed)
		var buf [4]nameVariant
		for _, v := range variantsOf(adreswijzer.Names{NL: register}, "", &buf) {
			if exactlyWithoutKeys(tn, v) && !tn.keys.mayMatchExactly(v.keys) {
				t.Fatalf("typed %q, register %q: the keys veto an exact match", typed, register)
			}
		}
	})
}
