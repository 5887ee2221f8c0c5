package match

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/adreswijzer/adreswijzer"
)

func TestCleanText(t *testing.T) {
	for _, c := range []struct {
		in, want string
		altered  bool
	}{
		{"Rue Abbé Bastin", "Rue Abbé Bastin", false},
		{"Rue Abbe\u0301 Bastin", "Rue Abbé Bastin", false}, // NFD is the same text
		{"Rue Abbé\u200b Bastin", "Rue Abbé Bastin", true},  // zero-width space
		{"\ufeffWeesp", "Weesp", true},                      // byte-order mark
		{"Weesp\u200e", "Weesp", true},                      // left-to-right mark
		{"\u202bWeesp\u202c", "Weesp", true},                // bidi embedding
		{"Achter\u00adgracht", "Achtergracht", true},        // soft hyphen
		{"Achtergracht 1\x00", "Achtergracht 1", true},      // NUL
		{"Achtergracht\t1", "Achtergracht 1", true},
		{"Achtergracht\n1", "Achtergracht 1", true},
		{"1381\u00a0CS", "1381\u00a0CS", false}, // a space, as other spaces
		{"", "", false},
		{"\xff12", "\uFFFD12", true},
	} {
		got, altered := cleanText(c.in)
		if got != c.want || altered != c.altered {
			t.Errorf("cleanText(%q) = %q, %v; want %q, %v", c.in, got, altered, c.want, c.altered)
		}
	}
}

// FuzzCleanText holds the door all typed text comes through to its promise: NFC out, no
// control or format character left, the same text twice cleaned, and text reported as not
// altered canonically equal to what came in.
//
//	go test ./worker/match -run '^$' -fuzz FuzzCleanText
func FuzzCleanText(f *testing.F) {
	for _, s := range []string{"Rue Abbe\u0301 Bastin 2", "Weesp\u200e", "a\x00b\tc\r\nd", "\ufeff\u202a1381\u00adCS", "\xff\xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, altered := cleanText(s)
		for _, r := range out {
			if r != utf8.RuneError && (unicode.IsControl(r) || unicode.Is(unicode.Cf, r)) {
				t.Fatalf("%q left in %q", r, out)
			}
		}
		if utf8.ValidString(s) && !norm.NFC.IsNormalString(out) {
			t.Fatalf("%q is not NFC", out)
		}
		if again, a := cleanText(out); again != out || a {
			t.Fatalf("cleaning %q again gives %q, %v", out, again, a)
		}
		if !altered && utf8.ValidString(s) && out != norm.NFC.String(s) {
			t.Fatalf("%q not altered but %q is not its NFC", s, out)
		}
	})
}

// TestPlainPostcode: the fast check before reading misplaced fields never lets through
// what NormalizePostcode would not take, over every postcode of the samples as typed.
func TestPlainPostcode(t *testing.T) {
	s := loadSamples(t)
	plain := 0
	for _, as := range [][]adreswijzer.Address{s.nl, s.be} {
		for _, a := range as {
			f := adreswijzer.FormatPostcode(a.Country, a.Postcode)
			for _, typed := range []string{a.Postcode, f, strings.ToLower(f), " " + f, f + ".", strings.ReplaceAll(f, " ", "-"), "B-" + f, f + "X"} {
				if !plainPostcode(a.Country, typed) {
					continue
				}
				plain++
				if pc, err := adreswijzer.NormalizePostcode(a.Country, typed); err != nil || pc != a.Postcode {
					t.Fatalf("plainPostcode(%s, %q) but NormalizePostcode gives %q, %v", a.Country, typed, pc, err)
				}
			}
		}
	}
	for _, c := range []struct {
		c  adreswijzer.Country
		in string
	}{{adreswijzer.NL, "1381 SA"}, {adreswijzer.NL, "0381 CS"}, {adreswijzer.NL, "1381"}, {adreswijzer.BE, "0612"}, {adreswijzer.BE, "9999"}, {adreswijzer.BE, "1381 CS"}} {
		if plainPostcode(c.c, c.in) {
			t.Errorf("plainPostcode(%s, %q)", c.c, c.in)
		}
	}
	if plain == 0 {
		t.Fatal("no postcode checked")
	}
}
