package gen

import (
	"testing"
	"unicode/utf8"

	"github.com/adreswijzer/adreswijzer/store/storetest"
)

func TestShortName(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Kerkstraat", ""},
		{"Henriëtte Roland Holsthof", "H Roland Holsthof"}, // the real Weesp short name
		{"Burgemeester van Nispen van Sevenaerstraat", "Burg v N v Sevenaerstr"},
		{"Abcdefghijklmnopqrstuvwxyzabcdefg", "Abcdefghijklmnopqrstuvwx"},
	} {
		if got := shortName(c.in); got != c.want {
			t.Errorf("shortName(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// Every long name in the national list must get a short name that fits and is not empty.
func TestShortNameNational(t *testing.T) {
	refs, err := loadNL(storetest.DataDir(t))
	if err != nil {
		t.Fatal(err)
	}
	long := 0
	for _, s := range refs.streets {
		sh := shortName(s.name)
		if utf8.RuneCountInString(s.name) <= maxShortName {
			if sh != "" {
				t.Fatalf("%q needs no short name, got %q", s.name, sh)
			}
			continue
		}
		long++
		if sh == "" || utf8.RuneCountInString(sh) > maxShortName {
			t.Fatalf("%q: short name %q", s.name, sh)
		}
	}
	if long < 1000 {
		t.Errorf("only %d long names in the national list", long)
	}
}
