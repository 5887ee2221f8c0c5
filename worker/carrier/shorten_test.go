package carrier

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/store/storetest"
)

func TestShorten(t *testing.T) {
	tests := []struct {
		street string
		lang   adreswijzer.Language
		want   string
	}{
		// BeST streets_part.csv, Brussels, Halle and Malmedy.
		{"Chaussée Romaine", fr, "Chée Romaine"}, // BS/5718, bpost's own example
		{"Romeinsesteenweg", nl, "Romeinsestwg."},
		{"Chaussée de Charleroi", fr, "Chée de Charleroi"}, // BS/939
		{"Avenue des Abeilles", fr, "Av. des Abeilles"},    // BS/3776
		{"Avenue des Alliés", fr, "Av. des Alliés"},        // WS/7736816
		{"Bijenlaan", nl, "Bijenln"},
		{"Emile Bockstaellaan", nl, "Emile Bockstaelln"},
		{"Albertinaplein", nl, "Albertinapl."},
		{"Onze-Lieve-Vrouw van Gratiestraat", nl, "Onze-Lieve-Vrouw van Gratiestr."},
		{"Jean de Brouchoven de Bergeyckstraat", nl, "Jean de Brouchoven de Bergeyckstr."},
		{"Kasteelbrakelsesteenweg", nl, "Kasteelbrakelsestwg."},
		// "Stwg. op Lebbeke" is how Belgian street data writes this Dendermonde street.
		{"Steenweg op Lebbeke", nl, "Stwg. op Lebbeke"},
		// Left whole: a type word inside the name, names with no type, unapproved forms.
		{"Ancienne chaussée de Haecht", fr, "Ancienne chaussée de Haecht"},
		{"Tunnel SNCB Chaussée de Louvain - Rue Stevin", fr, "Tunnel SNCB Chaussée de Louvain - Rue Stevin"},
		{"Boulevard Emile Bockstael", fr, "Boulevard Emile Bockstael"},
		{"Le Sentier de la Ferme à Chicons", fr, "Le Sentier de la Ferme à Chicons"},
		{"Witloofboerderijpad", nl, "Witloofboerderijpad"},
		{"Prinsenbos", nl, "Prinsenbos"},
		// Abbreviations follow the language of the line, never cross it.
		{"Avenue des Alliés", nl, "Avenue des Alliés"},
		{"Bijenlaan", fr, "Bijenlaan"},
		{"Bergensesteenweg", de, "Bergensesteenweg"},
	}
	for _, tt := range tests {
		if got := shorten(tt.street, tt.lang); got != tt.want {
			t.Errorf("shorten(%q, %s) = %q, want %q", tt.street, tt.lang, got, tt.want)
		}
	}
}

// TestShortenEveryBeSTStreet runs over every street name in the BeST sample: a short form
// is never longer, shortening twice changes nothing, and a name changes only when it holds
// one of the street types bpost lets us abbreviate.
func TestShortenEveryBeSTStreet(t *testing.T) {
	f, err := os.Open(filepath.Join(storetest.DataDir(t), "be", "streets_part.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comma = ';'
	rows, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	changed := 0
	for _, row := range rows {
		for _, c := range []struct {
			name string
			lang adreswijzer.Language
		}{{row[2], nl}, {row[3], fr}, {row[4], de}} {
			if c.name == "" {
				continue
			}
			s := shorten(c.name, c.lang)
			if utf8.RuneCountInString(s) > utf8.RuneCountInString(c.name) {
				t.Errorf("shorten(%q) = %q is longer", c.name, s)
			}
			if again := shorten(s, c.lang); again != s {
				t.Errorf("shorten(%q) is not stable: %q then %q", c.name, s, again)
			}
			if s != c.name {
				changed++
				if !hasType(c.name, c.lang) {
					t.Errorf("shorten(%q, %s) = %q, but the name has no street type we abbreviate", c.name, c.lang, s)
				}
			}
		}
	}
	if len(rows) < 2000 || changed < 1000 {
		t.Errorf("read %d streets and shortened %d; the sample has 2,166 streets, most with a type", len(rows), changed)
	}
}

func hasType(name string, lang adreswijzer.Language) bool {
	if lang == fr {
		first, _, _ := strings.Cut(name, " ")
		return first == "Avenue" || first == "Chaussée"
	}
	for _, w := range strings.Fields(name) {
		for _, typ := range []string{"steenweg", "straat", "laan", "plein"} {
			if strings.HasSuffix(w, typ) && w != typ || w == "Steenweg" {
				return true
			}
		}
	}
	return false
}
