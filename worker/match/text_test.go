package match

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/adreswijzer/adreswijzer/store/storetest"
)

// nationalStreetNames reads the 131,727 distinct Dutch street names with the number of
// public spaces that carry each name, nationwide (OpenTaal, from the full BAG).
func nationalStreetNames(tb testing.TB) (names []string, counts []int) {
	tb.Helper()
	f, err := os.Open(storetest.File(tb, "nl", "bagadres.csv.openbareruimte-frequency.tsv"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		cnt, name, ok := strings.Cut(sc.Text(), "\t")
		if !ok {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(cnt))
		if err != nil {
			tb.Fatalf("frequency line %q: %v", sc.Text(), err)
		}
		names = append(names, name)
		counts = append(counts, n)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return names, counts
}

func TestFold(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Kerkstraat", "kerkstraat"},
		{"'s-Gravenhage", "s gravenhage"},
		{"’s Gravenhage", "s gravenhage"},
		{"Henriëtte Roland Holsthof", "henriette roland holsthof"},
		{"Rue du Pré aux Oies", "rue du pre aux oies"},
		{"Chaussée de Mons - Bergense Steenweg", "chaussee de mons bergense steenweg"},
		{"Petit Vinâve", "petit vinave"},
		{"Dr. Schaepmanstraat", "dr schaepmanstraat"},
		{"  Sint-Jansstraat  ", "sint jansstraat"},
		{"Straße", "strasse"},
		{"Ærøskøbing", "aeroskobing"},
		{"ＫＥＲＫ", "kerk"},
		{"Kerk\u00adstraat", "kerkstraat"},
		{"B&W-1774", "b w 1774"},
		{"", ""},
		{"---", ""},
	}
	for _, tt := range tests {
		if got := fold(tt.in); got != tt.want {
			t.Errorf("fold(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestSameText(t *testing.T) {
	tests := []struct {
		typed, register string
		want            bool
	}{
		{"kerkstraat", "Kerkstraat", true},
		{"Rue  du Pré aux Oies ", "Rue du Pré aux Oies", true},
		{"Rue du Pre aux Oies", "Rue du Pré aux Oies", false},
		{"Dr Schaepmanstraat", "Dr. Schaepmanstraat", false},
		{"'S-GRAVENHAGE", "'s-Gravenhage", true},
		{"Rue du Pré aux Oies", "Rue du\u00a0Pré aux Oies", true},
		{"Kerkstraat", "Kerkstraat ", true},
		{"Kerkstraat", "Kerk straat", false},
	}
	for _, tt := range tests {
		if got := sameText(tt.typed, tt.register); got != tt.want {
			t.Errorf("sameText(%q, %q) = %v, want %v", tt.typed, tt.register, got, tt.want)
		}
		// The matcher's form for typed text it has collapsed already must agree.
		if got := sameRegisterText(collapseSpaces(tt.typed), tt.register); got != tt.want {
			t.Errorf("sameRegisterText(%q, %q) = %v, want %v", collapseSpaces(tt.typed), tt.register, got, tt.want)
		}
	}
}

// TestCanonRealPairs checks that names the BAG itself holds in abbreviated and written-out
// form, nationwide, share one canonical key, and that distinct streets do not.
func TestCanonRealPairs(t *testing.T) {
	names, _ := nationalStreetNames(t)
	have := make(map[string]bool, len(names))
	for _, n := range names {
		have[n] = true
	}
	same := [][2]string{
		{"Dr Schaepmanstraat", "Dr. Schaepmanstraat"},
		{"Doctor Schaepmanstraat", "Dr. Schaepmanstraat"},
		{"Sint Janstraat", "St. Janstraat"},
		{"Sint-Janstraat", "St. Janstraat"},
		{"Prof. Lorentzlaan", "Professor Lorentzlaan"},
		{"Onze Lieve Vrouwestraat", "O.L. Vrouwestraat"},
	}
	for _, p := range same {
		for _, n := range p {
			if !have[n] {
				t.Fatalf("%q is not a national street name; the pair proves nothing", n)
			}
		}
		if a, b := canon(p[0]), canon(p[1]); a != b {
			t.Errorf("canon(%q) = %q, canon(%q) = %q; want equal", p[0], a, p[1], b)
		}
	}
	// Typed abbreviations of real names.
	typed := [][2]string{
		{"Kon. Wilhelminalaan", "Koningin Wilhelminalaan"},
		{"Pr. Bernhardln", "Prins Bernhardlaan"},
		{"Burg Hogguerstr", "Burgemeester Hogguerstraat"},
		{"Meester Troelstrastraat", "Mr. Troelstrastraat"},
		{"Vd Helststraat", "Van der Helststraat"},
		{"Kerk straat", "Kerkstraat"},
		{"Molenwg", "Molenweg"},
		{"Herengr.", "Herengracht"},
		{"Prins Hendrikkd", "Prins Hendrikkade"},
	}
	for _, p := range typed {
		if !have[p[1]] {
			t.Fatalf("%q is not a national street name", p[1])
		}
		if a, b := canon(p[0]), canon(p[1]); a != b {
			t.Errorf("canon(%q) = %q, canon(%q) = %q; want equal", p[0], a, p[1], b)
		}
	}
	different := [][2]string{
		{"Kerkstraat", "Kerkweg"},
		{"Herengracht", "Herenweg"},
		{"Molenstraat", "Molenweg"},
		{"Prins Bernhardlaan", "Prinses Beatrixlaan"},
	}
	for _, p := range different {
		if canon(p[0]) == canon(p[1]) {
			t.Errorf("canon(%q) == canon(%q); distinct streets must stay apart", p[0], p[1])
		}
	}
}

// TestCanonAmbiguous: "Ch." abbreviates Chaussée as often as Chemin (BeST streets_part:
// "Chaussée de Haecht" in Haren, "Chemin du Lêfa" in Malmedy); a typed name is compared in
// both readings, and the register's names stay apart.
func TestCanonAmbiguous(t *testing.T) {
	for _, c := range []struct{ typed, register string }{
		{"Ch. de Haecht", "Chaussée de Haecht"},
		{"Ch. du Lêfa", "Chemin du Lêfa"},
	} {
		tn := newTypedName(c.typed)
		if rc := canon(c.register); tn.canon != rc && tn.canonAlt != rc {
			t.Errorf("%q reads as %q or %q, neither is %q (%q)", c.typed, tn.canon, tn.canonAlt, rc, c.register)
		}
	}
	if canon("Chaussée de Haecht") == canon("Chemin de Haecht") {
		t.Error("Chaussée and Chemin must stay apart")
	}
	if newTypedName("Rue Haute").canonAlt != "" {
		t.Error("a name without an ambiguous abbreviation has no other reading")
	}
}

// TestCanonOrdinals: an ordinal in figures and the register's roman or written form share
// one canonical key (BeST streets_part: "Place Albert Ier" and "Rue du 2ème Cyclistes" in
// Malmedy), and different ordinals stay apart.
func TestCanonOrdinals(t *testing.T) {
	for _, tt := range []struct {
		typed, register string
		same            bool
	}{
		{"Place Albert 1er", "Place Albert Ier", true},
		{"place albert 1re", "Place Albert Ier", true},
		{"Place Albert I er", "Place Albert Ier", false}, // "I" alone is no ordinal
		{"Place Albert 2e", "Place Albert Ier", false},
		{"Rue du 2e Cyclistes", "Rue du 2ème Cyclistes", true},
		{"Rue du IIe Cyclistes", "Rue du 2ème Cyclistes", true},
		{"Rue du 2ieme Cyclistes", "Rue du 2ème Cyclistes", true},
		{"Rue du 3e Cyclistes", "Rue du 2ème Cyclistes", false},
		{"2de Lageveldsweg", "2e Lageveldsweg", true},
		{"1ste Kruisstraat", "1e Kruisstraat", true},
		{"2e Kruisstraat", "1e Kruisstraat", false},
		{"Rue de la Vie", "Rue de la 6e", false},
	} {
		if got := canon(tt.typed) == canon(tt.register); got != tt.same {
			t.Errorf("canon(%q) = %q, canon(%q) = %q; equal = %v, want %v", tt.typed, canon(tt.typed), tt.register, canon(tt.register), got, tt.same)
		}
	}
}

func TestSimilarity(t *testing.T) {
	tests := []struct {
		a, b  string
		match bool
	}{
		{"Kerkstraat", "Kerkstrat", true},
		{"Kerkstraat", "Krekstraat", true},
		{"Achterstraat", "Achtrestraat", true},
		{"Herengracht", "Heerengracht", true},
		{"Rue du Pré aux Oies", "Rue du Pres aux Oies", true},
		{"Ganzenweidestraat", "Ganzeweidestraat", true},
		{"Kerkstraat", "Kerkweg", false},
		{"Kerkstraat", "Molenstraat", false},
		{"1e Vogelstraat", "2e Vogelstraat", false},
		{"Nieuwstraat", "Nieuweweg", false},
	}
	for _, tt := range tests {
		s := similarity(fold(tt.a), fold(tt.b))
		if got := s >= similarityThreshold; got != tt.match {
			t.Errorf("similarity(%q, %q) = %.3f, match %v, want %v", tt.a, tt.b, s, got, tt.match)
		}
		if r := similarity(fold(tt.b), fold(tt.a)); r != s {
			t.Errorf("similarity not symmetric for %q, %q: %.3f vs %.3f", tt.a, tt.b, s, r)
		}
	}
	if s := similarity("kerkstraat", "kerkstraat"); s != 1 {
		t.Errorf("identical strings score %v, want 1", s)
	}
}

func TestOSADistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"kerkstraat", "kerkstraat", 0},
		{"kerkstraat", "kerkstrat", 1},
		{"kerkstraat", "krekstraat", 1},
		{"kerkstraat", "kekrstraat", 1},
		{"downing", "dwoning", 1},
		{"", "abc", 3},
	}
	for _, tt := range tests {
		if got := osaDistance(tt.a, tt.b, 10); got != tt.want {
			t.Errorf("osaDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
	if got := osaDistance("kerkstraat", "molenweg", 2); got != 3 {
		t.Errorf("bounded distance = %d, want limit+1 = 3", got)
	}
}

func TestCityAliases(t *testing.T) {
	tests := []struct {
		typed, register string
		want            bool
	}{
		{"Den Haag", "'s-Gravenhage", true},
		{"den bosch", "'s-Hertogenbosch", true},
		{"Ljouwert", "Leeuwarden", true},
		{"Anjum", "Eanjum", true},
		{"Luik", "Liège", true},
		{"Bergen", "Mons", true},
		{"Bruxelles", "Brussel", true},
		{"Brussels", "Bruxelles", true},
		{"Brüssel", "Bruxelles", true},
		{"Lembecq", "Lembeek", true},
		{"Hal", "Halle", true},
		{"Den Haag", "'s-Hertogenbosch", false},
		{"Weesp", "Amsterdam", false},
	}
	for _, tt := range tests {
		if got := isAlias(cityKey(tt.typed), cityKey(tt.register)); got != tt.want {
			t.Errorf("isAlias(%q, %q) = %v, want %v", tt.typed, tt.register, got, tt.want)
		}
	}
	if cityKey("Krimpen a/d IJssel") != cityKey("Krimpen aan den IJssel") {
		t.Error("a/d must match aan den")
	}
	if cityKey("St. Oedenrode") != cityKey("Sint-Oedenrode") {
		t.Error("St. must match Sint-")
	}
}

func TestPlaceNameParts(t *testing.T) {
	got := placeNameParts("Brussel (Haren)")
	if len(got) != 2 || got[0] != "Brussel" || got[1] != "Haren" {
		t.Errorf("placeNameParts = %q", got)
	}
	got = placeNameParts("Chaussée de Mons - Bergense Steenweg")
	if len(got) != 2 || got[1] != "Bergense Steenweg" {
		t.Errorf("placeNameParts = %q", got)
	}
	if got := placeNameParts("Weesp"); len(got) != 0 {
		t.Errorf("placeNameParts(Weesp) = %q, want none", got)
	}
}

func FuzzCollapseSpaces(f *testing.F) {
	for _, s := range []string{"", " ", "Kerkstraat", " Kerk  straat ", "a\vb", "a\u00a0b", "a\u0085b", "Rue du Pré", "\xff \xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := collapseSpaces(s), strings.Join(strings.Fields(s), " "); got != want {
			t.Errorf("collapseSpaces(%q) = %q, want %q", s, got, want)
		}
	})
}
