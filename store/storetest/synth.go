package storetest

import (
	"bufio"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/adreswijzer/adreswijzer"
)

// Synth generates a SYNTHETIC Dutch-like dataset for benchmarks and for tests that need more
// addresses than the samples hold, the same for every store. The strings are real: street
// names from the national public-space name list (bagadres.csv.openbareruimte-frequency.tsv,
// 131,727 names), woonplaats and gemeente names from the national lists of the samples. The layout is made
// up, shaped like the BAG's national figures (about 10 million addresses on 250,000 streets in
// 2,500 woonplaatsen and 340 gemeenten, 20 addresses per postcode): street lengths are drawn
// from an exponential distribution around 36 numbers (capped at 300), each side of a street
// changes postcode every 8 to 27 numbers, and 15% of the numbers carry two to four letters or
// toevoegingen.
type Synth struct {
	streets, places, gemeenten []string
}

// LoadSynth reads the name lists the generator draws from.
func LoadSynth(tb testing.TB) *Synth {
	tb.Helper()
	s := &Synth{
		streets:   readLines(tb, "bagadres.csv.openbareruimte-frequency.tsv", true),
		places:    readLines(tb, "bagadres.csv.woonplaats-sorted.txt", false),
		gemeenten: readLines(tb, "bagadres.csv.gemeente-sorted.txt", false),
	}
	if len(s.streets) < 100000 || len(s.places) < 2000 || len(s.gemeenten) < 300 {
		tb.Fatalf("name lists too short: %d streets, %d woonplaatsen, %d gemeenten", len(s.streets), len(s.places), len(s.gemeenten))
	}
	return s
}

func readLines(tb testing.TB, name string, afterTab bool) []string {
	tb.Helper()
	f, err := os.Open(filepath.Join(DataDir(tb), "nl", name))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if afterTab {
			_, line, _ = strings.Cut(line, "\t")
		}
		if line = strings.TrimSpace(line); line != "" {
			out = append(out, line)
		}
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

var unitForms = []struct{ letter, addition string }{
	{"A", ""}, {"B", ""}, {"C", ""}, {"a", ""}, {"", "1"}, {"", "2"}, {"", "3"}, {"", "hs"}, {"", "bis"}, {"A", "1"}, {"A", "2"},
}

// Each calls fn for n addresses, street by street as an importer would; the same seed gives
// the same addresses.
func (s *Synth) Each(n int, seed uint64, fn func(adreswijzer.Address) error) error {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	var (
		count, pcSeq, addrSeq int
		pc                    [2]string
		left                  [2]int
	)
	nextPostcode := func() string {
		pcSeq++
		d := 1000 + (pcSeq/676)%9000
		l := pcSeq % 676
		return strconv.Itoa(d) + string(rune('A'+l/26)) + string(rune('A'+l%26))
	}
	for street := 1; count < n; street++ {
		g := (street / 730) % len(s.gemeenten)
		gcode := 1 + g
		name := s.streets[r.IntN(len(s.streets))]
		short := ""
		if len(name) > 24 {
			short = truncate(name, 24)
		}
		a := adreswijzer.Address{
			Country:      adreswijzer.NL,
			StreetID:     bagID(gcode, 30, street),
			Street:       adreswijzer.Names{NL: name},
			StreetShort:  short,
			Locality:     adreswijzer.Names{NL: s.places[(street/100)%len(s.places)]},
			Municipality: adreswijzer.Names{NL: s.gemeenten[g]},
		}
		length := min(300, 1+int(r.ExpFloat64()*35))
		left = [2]int{}
		for num := 1; num <= length && count < n; num++ {
			side := num % 2
			if left[side] == 0 {
				pc[side] = nextPostcode()
				left[side] = 8 + r.IntN(20)
			}
			left[side]--
			units := 1
			if r.IntN(100) < 15 {
				units = 2 + r.IntN(3)
			}
			first := r.IntN(len(unitForms))
			for u := 0; u < units && count < n; u++ {
				addrSeq++
				a.ID = bagID(gcode, 20, addrSeq)
				a.HouseNumber = num
				a.Postcode = pc[side]
				a.HouseNumberSuffix, a.Addition = "", ""
				if units > 1 {
					f := unitForms[(first+u)%len(unitForms)]
					a.HouseNumberSuffix, a.Addition = f.letter, f.addition
				}
				a.Status = adreswijzer.StatusInUse
				if r.IntN(100) < 3 {
					a.Status = adreswijzer.StatusPlanned
				}
				if err := fn(a); err != nil {
					return err
				}
				count++
			}
		}
	}
	return nil
}

// bagID composes a 16-digit BAG-style identificatie: gemeente code, object type, sequence.
func bagID(gemeente, kind, seq int) string {
	var b [16]byte
	put := func(at, width, v int) {
		for i := at + width - 1; i >= at; i-- {
			b[i] = byte('0' + v%10)
			v /= 10
		}
	}
	put(0, 4, gemeente)
	put(4, 2, kind)
	put(6, 10, seq)
	return string(b[:])
}

func truncate(s string, n int) string {
	for len(s) > n {
		_, size := utf8.DecodeLastRuneInString(s)
		s = s[:len(s)-size]
	}
	return s
}
