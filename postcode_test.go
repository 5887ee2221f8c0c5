package adreswijzer_test

import (
	"errors"
	"os"
	"strings"
	"testing"
	"unicode"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/store/storetest"
)

func TestNormalizePostcode(t *testing.T) {
	NL, BE := adreswijzer.NL, adreswijzer.BE
	empty, format := adreswijzer.ErrPostcodeEmpty, adreswijzer.ErrPostcodeFormat
	tests := []struct {
		c    adreswijzer.Country
		in   string
		want string
		err  error
	}{
		// Real postcodes: Amsterdam (bagadres.csv), Weesp (BAG extract), PostNL's own examples.
		{NL, "1011AB", "1011AB", nil},
		{NL, "1011ab", "1011AB", nil},
		{NL, "1011 AB", "1011AB", nil},
		{NL, " 1398  pn ", "1398PN", nil},
		{NL, "1398-PN", "1398PN", nil},
		{NL, "1398.PN", "1398PN", nil},
		{NL, "1398 - PN", "1398PN", nil},
		{NL, "NL-1381 AT", "1381AT", nil},
		{NL, "NL 1381AT", "1381AT", nil},
		{NL, "nl-1381at", "1381AT", nil},
		{NL, "NL1381AT", "1381AT", nil},
		{NL, "2500 CC.", "2500CC", nil},
		{NL, "(6049 HD)", "6049HD", nil},
		{NL, "\"8011 PK\",", "8011PK", nil},
		{NL, "1000\u00a0AP", "1000AP", nil},
		{NL, "１０１１ＡＢ", "1011AB", nil},
		{NL, "１０１１　ａｂ", "1011AB", nil},
		{NL, "9104 br", "9104BR", nil},
		{NL, "1234 SB", "1234SB", nil},
		{NL, "", "", empty},
		{NL, "   ", "", empty},
		{NL, ".", "", empty},
		{NL, "\u200b", "", empty},
		{NL, "0123 AB", "", format},
		{NL, "1234 SA", "", format},
		{NL, "1234 sd", "", format},
		{NL, "1234SS", "", format},
		{NL, "1011", "", format},
		{NL, "1011 A", "", format},
		{NL, "1011 ABC", "", format},
		{NL, "101 AB", "", format},
		{NL, "10111 AB", "", format},
		{NL, "10 11 AB", "", format},
		{NL, "1011 ÄB", "", format},
		{NL, "1011AB Amsterdam", "", format},
		{NL, "B-1011 AB", "", format},
		{NL, "NLD 1011 AB", "", format},
		{NL, "\xff1011AB", "1011AB", nil},
		{NL, "1011\xffAB", "", format},
		// Real Belgian postcodes (BeST postals.csv).
		{BE, "1130", "1130", nil},
		{BE, "B-1130", "1130", nil},
		{BE, "BE-1130", "1130", nil},
		{BE, "BE1130", "1130", nil},
		{BE, "be 1130", "1130", nil},
		{BE, "b1130", "1130", nil},
		{BE, "1502.", "1502", nil},
		{BE, " 4960 ", "4960", nil},
		{BE, "1000", "1000", nil},
		{BE, "1049", "1049", nil},
		{BE, "９９９２", "9992", nil},
		{BE, "0612", "", format},
		{BE, "612", "", format},
		{BE, "999", "", format},
		{BE, "0999", "", format},
		{BE, "9993", "", format},
		{BE, "11300", "", format},
		{BE, "1130 AB", "", format},
		{BE, "NL-1130", "", format},
		{BE, "11 30", "", format},
		{BE, "", "", empty},
		{"DE", "10115", "", format},
		{"", "1011AB", "", format},
	}
	for _, tt := range tests {
		got, err := adreswijzer.NormalizePostcode(tt.c, tt.in)
		if got != tt.want || !errors.Is(err, tt.err) || (tt.err == nil) != (err == nil) {
			t.Errorf("NormalizePostcode(%q, %q) = %q, %v; want %q, %v", tt.c, tt.in, got, err, tt.want, tt.err)
		}
	}
}

func TestFormatPostcode(t *testing.T) {
	tests := []struct {
		c        adreswijzer.Country
		in, want string
	}{
		{adreswijzer.NL, "1011AB", "1011 AB"},
		{adreswijzer.NL, "1011ab", "1011 AB"},
		{adreswijzer.NL, "nl-1381-at", "1381 AT"},
		{adreswijzer.NL, "1011 AB", "1011 AB"},
		{adreswijzer.BE, "B-1130", "1130"},
		{adreswijzer.BE, "4960", "4960"},
		{adreswijzer.NL, "0123", "0123"},
		{adreswijzer.NL, " 1011 ", " 1011 "},
		{adreswijzer.BE, "0612", "0612"},
		{"DE", "10115", "10115"},
	}
	for _, tt := range tests {
		if got := adreswijzer.FormatPostcode(tt.c, tt.in); got != tt.want {
			t.Errorf("FormatPostcode(%q, %q) = %q, want %q", tt.c, tt.in, got, tt.want)
		}
	}
}

func TestPostcodeCountry(t *testing.T) {
	tests := []struct {
		in     string
		nl, be bool
	}{
		{"1011 AB", true, false},
		{"1011ab", true, false},
		{"1130", true, true},
		{"4960", true, true},
		{"9992", true, true},
		{"9999", true, false},
		{"0612", false, false},
		{"0999", false, false},
		{"B-1130", false, true},
		{"BE 1130", false, true},
		{"NL-1130", true, false},
		{"NL-1011 AB", true, false},
		{"1234 SA", false, false},
		{"Kerkstraat", false, false},
		{"", false, false},
	}
	for _, tt := range tests {
		if nl, be := adreswijzer.PostcodeCountry(tt.in); nl != tt.nl || be != tt.be {
			t.Errorf("PostcodeCountry(%q) = %v, %v; want %v, %v", tt.in, nl, be, tt.nl, tt.be)
		}
	}
}

// TestRegisterPostcodes: every postcode of the register samples, typed the ways people type it,
// normalizes to its register form.
func TestRegisterPostcodes(t *testing.T) {
	nl := map[string]bool{}
	for _, b := range bagNumbers(t) {
		if b.Postcode != "" {
			nl[b.Postcode] = true
		}
	}
	be := map[string]bool{}
	for _, a := range bestAddresses(t) {
		be[a.Postcode] = true
	}
	b, err := os.ReadFile(storetest.File(t, "be", "postals.csv"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if f := strings.Split(line, ";"); len(f) > 1 {
			be[f[1]] = true
		}
	}
	if len(nl) < 600 || len(be) < 1000 {
		t.Fatalf("read %d Dutch and %d Belgian postcodes, want the whole samples", len(nl), len(be))
	}
	for pc := range nl {
		for _, typed := range []string{pc, strings.ToLower(pc), pc[:4] + " " + pc[4:], "NL-" + pc[:4] + " " + strings.ToLower(pc[4:]), pc + "."} {
			if got, err := adreswijzer.NormalizePostcode(adreswijzer.NL, typed); got != pc || err != nil {
				t.Errorf("NormalizePostcode(NL, %q) = %q, %v; want %q", typed, got, err, pc)
			}
		}
		if nl, be := adreswijzer.PostcodeCountry(pc); !nl || be {
			t.Errorf("PostcodeCountry(%q) = %v, %v", pc, nl, be)
		}
	}
	for pc := range be {
		for _, typed := range []string{pc, "B-" + pc, "BE " + pc} {
			if got, err := adreswijzer.NormalizePostcode(adreswijzer.BE, typed); got != pc || err != nil {
				t.Errorf("NormalizePostcode(BE, %q) = %q, %v; want %q", typed, got, err, pc)
			}
		}
		if _, be := adreswijzer.PostcodeCountry(pc); !be {
			t.Errorf("PostcodeCountry(%q) does not say BE", pc)
		}
	}
}

// FuzzNormalizePostcode checks, for any text and both countries: no panic; an error is one of
// the two postcode errors; an accepted postcode has the register pattern, normalizes to itself,
// survives FormatPostcode, and agrees with PostcodeCountry.
func FuzzNormalizePostcode(f *testing.F) {
	for _, s := range []string{"1011AB", "1011 ab", "NL-1381 AT", "B-1130", "BE1130", "0612", "1234 SA", "１０１１ＡＢ",
		"", ".", "1130.", "\xff1011AB", "nl 1011-ab", "9992"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		nlFlag, beFlag := adreswijzer.PostcodeCountry(s)
		for _, c := range adreswijzer.Countries {
			pc, err := adreswijzer.NormalizePostcode(c, s)
			if err != nil {
				if pc != "" || !errors.Is(err, adreswijzer.ErrPostcodeEmpty) && !errors.Is(err, adreswijzer.ErrPostcodeFormat) {
					t.Fatalf("NormalizePostcode(%s, %q) = %q, %v", c, s, pc, err)
				}
				// U+02BC counts as a letter but is the apostrophe phones type: it is punctuation here.
				alnum := func(r rune) bool { return unicode.IsDigit(r) || unicode.IsLetter(r) && r != '\u02bc' }
				if errors.Is(err, adreswijzer.ErrPostcodeEmpty) && strings.IndexFunc(s, alnum) >= 0 {
					t.Errorf("NormalizePostcode(%s, %q): empty, but the text has letters or digits", c, s)
				}
				if c == adreswijzer.BE && beFlag {
					t.Errorf("PostcodeCountry(%q) says BE but NormalizePostcode fails: %v", s, err)
				}
				continue
			}
			if !registerPostcode(c, pc) {
				t.Errorf("NormalizePostcode(%s, %q) = %q: not a register postcode", c, s, pc)
			}
			if again, err := adreswijzer.NormalizePostcode(c, pc); again != pc || err != nil {
				t.Errorf("%s %q: normalizing %q again gives %q, %v", c, s, pc, again, err)
			}
			printed := adreswijzer.FormatPostcode(c, pc)
			if again, err := adreswijzer.NormalizePostcode(c, printed); again != pc || err != nil {
				t.Errorf("%s %q: printed %q normalizes to %q, %v", c, s, printed, again, err)
			}
			if adreswijzer.FormatPostcode(c, s) != printed || adreswijzer.FormatPostcode(c, printed) != printed {
				t.Errorf("%s %q: FormatPostcode not stable: %q", c, s, printed)
			}
			if c == adreswijzer.NL && !nlFlag || c == adreswijzer.BE && !beFlag {
				t.Errorf("PostcodeCountry(%q) = %v, %v, but it is a %s postcode", s, nlFlag, beFlag, c)
			}
		}
	})
}

// registerPostcode is the register pattern written out: NL ^[1-9][0-9]{3}[A-Z]{2}$ without SA,
// SD, SS; BE 1000 to 9992.
func registerPostcode(c adreswijzer.Country, pc string) bool {
	switch c {
	case adreswijzer.NL:
		if len(pc) != 6 || pc[0] < '1' || pc[0] > '9' || !isDigits(pc[:4]) {
			return false
		}
		for _, l := range pc[4:] {
			if l < 'A' || l > 'Z' {
				return false
			}
		}
		return pc[4:] != "SA" && pc[4:] != "SD" && pc[4:] != "SS"
	case adreswijzer.BE:
		return len(pc) == 4 && isDigits(pc) && pc >= "1000" && pc <= "9992"
	}
	return false
}
