package adreswijzer

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzSplitFreeForm holds the splitter to cutting, never inventing: every word it returns
// is in the input, no word is used twice, a postcode it returns has a Dutch or Belgian form,
// a country is one a country word names, and no field starts or ends with a space or
// sentence punctuation. It knows a few real place names, so that the cuts that need the
// registers run too.
func FuzzSplitFreeForm(f *testing.F) {
	for _, s := range []string{
		"Rue du Pré aux Oies 134 bte 1, 1130 Bruxelles, Belgique",
		"Bakkerij De Vries\nHugo de Grootlaan 16\nbov\n1381 CS Weesp\nNederland",
		"1502 Lembeek, Stevens-de Waelplein 9 bus 2",
		"1502 Lembeek Stevens-de Waelplein 9 bus 2",
		"Achtergracht 1 Weesp",
		"Weesp, Achtergracht 1",
		"Nieuwstraat 12a. 1381 BC Weesp. NL",
		"Rue du Pré aux Oies 134 bte 1 - 1130 Bruxelles - Belgique",
		"Brussel 1000, Kerkstraat 1000",
		"Kerkstraat 12 - 14 - 1000 Brussel",
	} {
		f.Add(s)
	}
	places := map[string]bool{}
	for _, p := range []string{"Weesp", "Lembeek", "Haren", "Brussel", "Bruxelles", "Malmedy", "Halle", "Ee"} {
		places[foldCountry(p)] = true
	}
	known := PlaceKnown(func(name string) bool { return places[foldCountry(name)] })
	countries := map[string]bool{}
	for _, c := range countryNames {
		countries[c] = true
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 4*MaxFreeFormLength {
			return // the tools refuse longer text before splitting it
		}
		f := SplitFreeForm(s, known)
		used := 0
		for _, field := range []string{f.Address1, f.Address2, f.Zip, f.City} {
			if field != strings.TrimSpace(field) || field != "" && field != f.Zip && trimEdges(field) != field {
				t.Fatalf("field %q not trimmed: %+v", field, f)
			}
			for _, w := range strings.Fields(field) {
				used++
				if !strings.Contains(s, w) {
					t.Fatalf("word %q is not in the input: %+v", w, f)
				}
			}
		}
		if total := len(strings.Fields(strings.Map(func(r rune) rune {
			if isSegmentBreak(r) {
				return ' '
			}
			return r
		}, s))); used > total {
			t.Fatalf("%d words out of %d in: %+v", used, total, f)
		}
		if f.Zip != "" {
			if nl, be := PostcodeCountry(f.Zip); !nl && !be {
				t.Fatalf("zip %q is no postcode: %+v", f.Zip, f)
			}
		}
		if f.Country != "" && !countries[f.Country] {
			t.Fatalf("country %q", f.Country)
		}
		if utf8.ValidString(s) && !utf8.ValidString(f.Address1+f.Address2+f.Zip+f.City) {
			t.Fatalf("invalid UTF-8 out of valid input: %+v", f)
		}
	})
}
