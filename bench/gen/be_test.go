package gen

import (
	"bufio"
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/store/best"
	"github.com/adreswijzer/adreswijzer/store/storetest"
)

// The three regional files must import with the project's BeST importer, which reads the
// official CSV, keeping exactly the current and proposed rows the generator wrote.
func TestBEImportsWithBeSTImporter(t *testing.T) {
	st := beSample(t)
	var files []string
	var rows, proposed, retired int64
	for _, r := range st.Regions {
		files = append(files, r.Path)
		rows += r.Rows
		proposed += r.Proposed
		retired += r.Retired
	}
	if rows != testBE {
		t.Errorf("%d rows written, asked for %d", rows, testBE)
	}
	var planned int64
	byRegion := map[string]int64{}
	res, err := best.Import(context.Background(), files, func(a adreswijzer.Address) error {
		if a.Status == adreswijzer.StatusPlanned {
			planned++
		}
		byRegion[a.ID[:1]]++
		if a.Street.IsZero() || a.Municipality.IsZero() || a.Locality.IsZero() {
			return fmt.Errorf("%s: street, municipality or locality missing", a.ID)
		}
		return nil
	}, best.Options{Date: "2025-09-15"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Read != rows || res.Kept != st.Kept() || planned != proposed || len(res.Warnings) != 0 {
		t.Errorf("read %d kept %d planned %d warnings %q; generator wrote %d rows, %d to keep, %d proposed",
			res.Read, res.Kept, planned, res.Warnings, rows, st.Kept(), proposed)
	}
	if want := map[string]int64{"retired": retired}; !maps.Equal(res.Skipped, want) {
		t.Errorf("skipped %v, want %v", res.Skipped, want)
	}
	for i, letter := range []string{"B", "V", "W"} {
		r := st.Regions[i]
		if byRegion[letter] != r.Current+r.Proposed {
			t.Errorf("region %s: imported %d, generator kept %d", r.Region, byRegion[letter], r.Current+r.Proposed)
		}
	}
}

// Rows have the official header and twenty fields, real names, four-digit postcodes of
// their municipality, and the regional shares of box numbers and statuses.
func TestBEContent(t *testing.T) {
	st := beSample(t)
	refs, err := loadBE(storetest.DataDir(t))
	if err != nil {
		t.Fatal(err)
	}
	boxRange := [3][2]float64{{22, 30}, {25, 33}, {16, 24}} // BOSA: 26.9, 29.9, 20.9 %
	for i, r := range st.Regions {
		rr := &refs.regions[i]
		streets := map[string]bool{}
		for _, s := range rr.streets {
			streets[s.nl+"|"+s.fr] = true
		}
		munis := map[string]beMuni{}
		for _, m := range rr.munis {
			munis[m.nis] = m
		}
		f, err := os.Open(r.Path)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Scan()
		if sc.Text()+"\n" != beHeader {
			t.Fatalf("%s: header %q", r.Region, sc.Text())
		}
		var n, box, suffix int64
		seen := map[string]bool{}
		for sc.Scan() {
			n++
			c := strings.Split(sc.Text(), ",")
			if len(c) != 20 {
				t.Fatalf("%s line %d: %d fields", r.Region, n+1, len(c))
			}
			m, ok := munis[c[7]]
			if !ok || c[8] != m.de || c[9] != m.fr || c[10] != m.nl {
				t.Fatalf("%s line %d: municipality %q %q %q %q is not BeST's", r.Region, n+1, c[7], c[8], c[9], c[10])
			}
			if !hasPostcode(m, c[11]) {
				t.Fatalf("%s line %d: postcode %s is not one of municipality %s", r.Region, n+1, c[11], c[7])
			}
			if !streets[c[17]+"|"+c[16]] || c[15] != "" {
				t.Fatalf("%s line %d: street %q / %q is not a real name of the region", r.Region, n+1, c[17], c[16])
			}
			if c[18] != beRegions[i].code {
				t.Fatalf("%s line %d: region %q", r.Region, n+1, c[18])
			}
			if key := c[14] + "|" + c[6] + "|" + c[5]; seen[key] {
				t.Fatalf("%s line %d: street %s, number %s, box %s twice", r.Region, n+1, c[14], c[6], c[5])
			} else {
				seen[key] = true
			}
			if _, err := strconv.ParseFloat(c[2], 64); err != nil || c[2] != "0.00000" && (c[2] < "49.4" || c[2] > "51.6") {
				t.Fatalf("%s line %d: latitude %q", r.Region, n+1, c[2])
			}
			if c[5] != "" {
				box++
			}
			if h := c[6]; h[len(h)-1] < '0' || h[len(h)-1] > '9' {
				suffix++
			}
		}
		f.Close()
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
		if n != r.Rows || box != r.WithBox || suffix != r.WithSuffix {
			t.Errorf("%s: %d rows, %d boxes, %d suffixes; generator reported %d, %d, %d", r.Region, n, box, suffix, r.Rows, r.WithBox, r.WithSuffix)
		}
		within(t, r.Region+" rows with a box", box, n, boxRange[i][0], boxRange[i][1])
		within(t, r.Region+" rows with a suffix", suffix, n, float64(rr.suffixPPM)/10_000-1.5, float64(rr.suffixPPM)/10_000+1.5)
		within(t, r.Region+" retired", r.Retired, n, float64(beRegions[i].retiredPPM)/10_000-0.5, float64(beRegions[i].retiredPPM)/10_000+0.5)
		if r.Municipalities < len(rr.munis)*9/10 {
			t.Errorf("%s: only %d of %d municipalities used", r.Region, r.Municipalities, len(rr.munis))
		}
	}
}

func hasPostcode(m beMuni, pc string) bool {
	for _, p := range m.postcodes {
		if p.code == pc {
			return true
		}
	}
	return false
}

func TestBEDeterministic(t *testing.T) {
	dir := t.TempDir()
	var hashes [3][3][32]byte
	for i, seed := range []uint64{7, 7, 8} {
		st, err := WriteBE(context.Background(), filepath.Join(dir, fmt.Sprint(i)), BEOptions{Addresses: 5000, Seed: seed, DataDir: storetest.DataDir(t)})
		if err != nil {
			t.Fatal(err)
		}
		for j, r := range st.Regions {
			hashes[i][j] = fileHash(t, r.Path)
		}
	}
	if hashes[0] != hashes[1] {
		t.Error("the same seed gave different files")
	}
	for j := range 3 {
		if hashes[0][j] == hashes[2][j] {
			t.Errorf("region %d: different seeds gave the same file", j)
		}
	}
}

func TestBoxSeries(t *testing.T) {
	for _, c := range []struct {
		tmpl string
		k    int
		want string
	}{
		{"1", 3, "1 2 3"},
		{"0101", 3, "0101 0102 0103"},
		{"b001", 2, "b001 b002"},
		{"BU09", 2, "BU09 BU10"},
		{"A", 3, "A B C"},
		{"Y", 4, "Y Z 1 2"},
		{"GLVL", 3, "GLVL 1 2"},
		{"1.0", 2, "1.0 1.1"},
		{"1A", 2, "1A 1B"},
		{"(2)", 2, "(2) (3)"},
	} {
		if got := strings.Join(boxSeries(c.tmpl, c.k, nil), " "); got != c.want {
			t.Errorf("boxSeries(%q, %d) = %q, want %q", c.tmpl, c.k, got, c.want)
		}
	}
	starts := seriesStarts([]counted{{"1", 9}, {"2", 8}, {"0101", 7}, {"b002", 6}, {"A", 5}, {"B", 4}, {"GLVL", 3}, {"A000", 2}})
	var names []string
	for _, s := range starts {
		names = append(names, s.name)
	}
	if got := strings.Join(names, " "); got != "1 0101 A GLVL A000" {
		t.Errorf("series starts %q", got)
	}
}
