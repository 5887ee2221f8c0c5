package match

import (
	"bufio"
	"context"
	"fmt"
	"hash/fnv"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/store/memory"
	"github.com/adreswijzer/adreswijzer/store/storetest"
)

// nationalAddresses gives the catalog its national shape from real data: every one of the
// 131,727 distinct Dutch street names, repeated as often as the BAG has public spaces with
// that name (235,794 streets), each in a real woonplaats name. The register does not publish
// which woonplaats each street lies in together with these counts, so the woonplaats, the
// postcode and the single house number per street are assigned deterministically from the
// name: they only decide how the answers are spread, never which street a query finds.
func nationalAddresses(tb testing.TB) []adreswijzer.Address {
	tb.Helper()
	names, counts := nationalStreetNames(tb)
	places := woonplaatsNames(tb)
	out := make([]adreswijzer.Address, 0, 240000)
	for i, name := range names {
		for k := 0; k < counts[i]; k++ {
			h := fnv.New32a()
			fmt.Fprintf(h, "%s/%d", name, k)
			v := h.Sum32()
			pc := fmt.Sprintf("%04d%c%c", 1000+v%9000, 'A'+rune(v>>13)%26, 'A'+rune(v>>18)%26)
			loc := places[int(v>>7)%len(places)]
			out = append(out, adreswijzer.Address{
				Country:     adreswijzer.NL,
				ID:          fmt.Sprintf("%016d", len(out)+1),
				StreetID:    fmt.Sprintf("%016d", 3000000000000000+i*1000+k),
				Street:      adreswijzer.Names{NL: name},
				HouseNumber: 1 + int(v%200),
				Postcode:    pc,
				Locality:    adreswijzer.Names{NL: loc},
				Status:      adreswijzer.StatusInUse,
			})
		}
	}
	return out
}

func woonplaatsNames(tb testing.TB) []string {
	tb.Helper()
	f, err := os.Open(storetest.File(tb, "nl", "bagadres.csv.woonplaats-sorted.txt"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if s := strings.TrimSpace(sc.Text()); s != "" {
			out = append(out, s)
		}
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

var national struct {
	once sync.Once
	cat  *adreswijzer.Catalog
	ix   *index
}

// nationalIndex builds the national catalog and index once per test binary.
func nationalIndex(tb testing.TB) *index {
	tb.Helper()
	national.once.Do(func() {
		b := memory.NewCatalogBuilder()
		for _, a := range nationalAddresses(tb) {
			b.Add(&a)
		}
		national.cat = b.Catalog()
		national.ix = buildIndex(national.cat)
	})
	if national.ix == nil {
		tb.Fatal("national index failed to build")
	}
	return national.ix
}

// belgianStreetIndex indexes the 2,166 real BeST streets (Brussels nl+fr, Halle, Malmedy)
// from the BOSA sample, each as one street with its names.
func belgianStreetIndex(tb testing.TB) *index {
	tb.Helper()
	f, err := os.Open(storetest.File(tb, "be", "streets_part.csv"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	b := memory.NewCatalogBuilder()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		col := strings.Split(sc.Text(), ";")
		if len(col) < 5 {
			continue
		}
		a := adreswijzer.Address{
			Country:  adreswijzer.BE,
			StreetID: col[0],
			Street:   adreswijzer.Names{NL: col[2], FR: col[3], DE: col[4]},
			Postcode: "1130",
			Locality: adreswijzer.Names{NL: "Brussel", FR: "Bruxelles"},
		}
		b.Add(&a)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return buildIndex(b.Catalog())
}

func hitNames(ix *index, hits []hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = ix.streetName(h.street, h.kind, adreswijzer.LangNL)
	}
	return out
}

func TestSearchStreetsNational(t *testing.T) {
	ix := nationalIndex(t)
	if got := len(ix.cat.Streets); got != 235794 {
		t.Fatalf("national catalog has %d streets, want 235,794 (the BAG public spaces behind the names)", got)
	}
	tests := []struct {
		q         string
		first     string // the name of the first suggestion
		tier      uint8
		allPrefix bool // every suggestion's name starts with q (folded)
	}{
		{q: "kerkstr", first: "Kerkstraat", tier: tierName, allPrefix: true},
		{q: "Kerkstraat", first: "Kerkstraat", tier: tierName, allPrefix: true},
		{q: "kerkstrat", first: "Kerkstraat", tier: tierFuzzy},
		{q: "krekstraat", first: "Kerkstraat", tier: tierFuzzy},
		{q: "schaepmanstr", first: "Schaepmanstraat", tier: tierName, allPrefix: true},
		{q: "henriette roland holsth", first: "Henriëtte Roland Holsthof", tier: tierName},
		{q: "henriëtte roland", first: "Henriëtte Roland Holst-erf", tier: tierName},
		{q: "sint janst", first: "Sint Janstraat", tier: tierName, allPrefix: true},
		{q: "s gravendijkwal", first: "'s-Gravendijkwal", tier: tierName},
		{q: "molenwge", first: "Molenweg", tier: tierFuzzy},
	}
	for _, tt := range tests {
		hits := ix.searchStreets(fold(tt.q), 10)
		if len(hits) == 0 {
			t.Errorf("%q: no suggestions", tt.q)
			continue
		}
		names := hitNames(ix, hits)
		if names[0] != tt.first || hits[0].tier != tt.tier {
			t.Errorf("%q: first = %q (tier %d), want %q (tier %d); all %q", tt.q, names[0], hits[0].tier, tt.first, tt.tier, names)
		}
		if len(hits) > 10 {
			t.Errorf("%q: %d suggestions, want at most 10", tt.q, len(hits))
		}
		if tt.allPrefix {
			for _, n := range names {
				if !strings.HasPrefix(fold(n), fold(tt.q)) {
					t.Errorf("%q: %q does not start with the query", tt.q, n)
				}
			}
		}
		for i := 1; i < len(hits); i++ {
			if hits[i].tier < hits[i-1].tier {
				t.Errorf("%q: tier order broken at %d: %q", tt.q, i, names)
			}
		}
	}
}

// TestSearchStreetsTiers checks the tier order over a long list: the 46 Schaepmanstraten
// start with the query, the 31 Dr. Schaepmanstraten only have a word that does.
func TestSearchStreetsTiers(t *testing.T) {
	ix := nationalIndex(t)
	hits := ix.searchStreets("schaepmanstraat", 100)
	names := hitNames(ix, hits)
	if len(hits) < 77 {
		t.Fatalf("got %d streets, want at least 46 + 31: %q", len(hits), names)
	}
	for i, h := range hits {
		if i < 46 {
			if names[i] != "Schaepmanstraat" || h.tier != tierName {
				t.Fatalf("hit %d = %q tier %d, want Schaepmanstraat tier %d", i, names[i], h.tier, tierName)
			}
			continue
		}
		if h.tier != tierWord || !strings.Contains(fold(names[i]), " schaepmanstraat") {
			t.Fatalf("hit %d = %q tier %d, want a later word Schaepmanstraat, tier %d", i, names[i], h.tier, tierWord)
		}
	}
}

func TestSearchStreetsBelgianLanguages(t *testing.T) {
	ix := belgianStreetIndex(t)
	tests := []struct {
		q, first string
		kind     nameKind
	}{
		{"ganzenweide", "Ganzenweidestraat", kindNL},
		{"rue du pre aux", "Rue du Pré aux Oies", kindFR},
		{"impasse des boe", "Impasse des Boeufs", kindFR},
		{"bockstael", "Emile Bockstaellaan", kindNL},
		{"boulevard emile", "Boulevard Emile Bockstael", kindFR},
		{"petit vinave", "Petit Vinâve", kindFR},
		{"drijverswge", "Drijversweg", kindNL},
	}
	for _, tt := range tests {
		hits := ix.searchStreets(fold(tt.q), 10)
		if len(hits) == 0 {
			t.Errorf("%q: no suggestions", tt.q)
			continue
		}
		h := hits[0]
		if got := ix.streetName(h.street, h.kind, adreswijzer.LangNL); got != tt.first || h.kind != tt.kind {
			t.Errorf("%q: first = %q (kind %d), want %q (kind %d)", tt.q, got, h.kind, tt.first, tt.kind)
		}
	}
}

func TestFuzzyPrefixAgreesWithScan(t *testing.T) {
	ix := belgianStreetIndex(t)
	// One scratch for every query, longer and shorter ones, as the index's pool hands them
	// out: tables left by one query must not leak into the next.
	sc := &scratch{}
	for _, q := range []string{"chemin des trq", "ganzenwiede", "ruue du", "boulvard", "kerkstr", "malmedy", "chemin des trq"} {
		q = fold(q)
		budget := editBudget(q)
		got := map[uint32]bool{}
		ix.fuzzyPrefix(sc, q, budget, 0, len(ix.keys), func(from, to, _ int) {
			for _, k := range ix.keys[from:to] {
				got[k.text] = true
			}
		})
		for t2 := 0; t2 < len(ix.textOff)-1; t2++ {
			text := ix.text(uint32(t2))
			want := fuzzyPrefixDistance(q, text, budget) <= budget
			if got[uint32(t2)] != want {
				t.Errorf("%q vs %q: index says %v, scan says %v", q, text, got[uint32(t2)], want)
			}
		}
	}
}

// subtreeEnd gallops over large subtrees; it must find what reading every lcp value finds, for
// every key of the national street list and every depth up to the key's length.
func TestSubtreeEndAgreesWithScan(t *testing.T) {
	ix := nationalIndex(t)
	byScan := func(i, depth, to int) (int, int) {
		common := 255
		for j := i + 1; j < to; j++ {
			common = min(common, int(ix.lcp[j]))
			if int(ix.lcp[j]) < depth {
				return j, common
			}
		}
		return to, 0
	}
	long := 0
	for i := range ix.keys {
		for depth := 1; depth <= min(len(ix.sortedKey(i)), 255); depth++ {
			for _, to := range []int{len(ix.keys), min(len(ix.keys), i+40)} {
				end, common := ix.subtreeEnd(i, depth, to)
				wantEnd, wantCommon := byScan(i, depth, to)
				if end != wantEnd || common != wantCommon {
					t.Fatalf("subtreeEnd(%d %q, %d, %d) = %d, %d; want %d, %d", i, ix.sortedKey(i), depth, to, end, common, wantEnd, wantCommon)
				}
				if end-i > 16 {
					long++
				}
			}
		}
	}
	if long == 0 {
		t.Fatal("no subtree longer than the scanned part: the gallop was not tested")
	}
	t.Logf("%d keys; %d subtrees crossed by galloping", len(ix.keys), long)
}

// TestPostcodeStreets checks the index's street list of every postcode of the real samples
// (Weesp; Brussels, Halle, Malmedy) against placeStreets over the catalog's places, which
// the lists replace on every request, and of the national address list.
func TestPostcodeStreets(t *testing.T) {
	s := loadSamples(t)
	indexes := []*index{nationalIndex(t)}
	for _, c := range []adreswijzer.Country{adreswijzer.NL, adreswijzer.BE} {
		ds, err := s.store.Active(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		indexes = append(indexes, buildIndex(ds.Catalog()))
	}
	for _, ix := range indexes {
		places := ix.cat.Places
		postcodes := 0
		for i := 0; i < len(places); postcodes++ {
			pc := places[i].Postcode
			want := placeStreets(ix.cat.PlacesIn(pc))
			if got := ix.postcodeStreets(pc); !slices.Equal(got, want) || len(got) == 0 {
				t.Fatalf("postcode %s: streets %v, want %v", pc, got, want)
			}
			if got, want := ix.placesIn(pc), ix.cat.PlacesIn(pc); !slices.Equal(got, want) || !ix.hasPostcode(pc) {
				t.Fatalf("postcode %s: places %v, want %v", pc, got, want)
			}
			i += len(ix.cat.PlacesIn(pc))
		}
		for _, pc := range []string{"0000ZZ", "", "1011", "9999ZZ", "10110", "1011ab", "1O11AB"} {
			if len(ix.postcodeStreets(pc)) != 0 || len(ix.placesIn(pc)) != 0 || ix.hasPostcode(pc) != ix.cat.HasPostcode(pc) {
				t.Fatalf("postcode %q: the index and the catalog disagree", pc)
			}
		}
		if postcodes == 0 {
			t.Fatal("no postcodes")
		}
		t.Logf("%d postcodes, %d streets", postcodes, len(ix.streets))
	}
}
