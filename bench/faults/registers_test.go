//go:build faults

package faults_test

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode"

	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/store/bag"
	"github.com/adreswijzer/adreswijzer/store/best"
	"github.com/adreswijzer/adreswijzer/store/storetest"
)

// register is one dataset version as the importers read it from the samples: what the
// workers must answer from while that version is active. Answers are judged against it, so
// a fault that makes a worker serve the wrong data (or half of a dataset) is caught even
// when the answer is well-formed.
type register struct {
	country adreswijzer.Country
	version string
	files   []string // what `worker import --from` takes
	date    string   // --date of a BeST import
	addrs   []adreswijzer.Address

	byID       map[string]int
	at         map[atKey][]int // (postcode, number) → addresses
	streets    map[string]bool // street|locality, folded, every language
	localities map[string]bool
	places     map[string]bool // postcode|street|locality of every address
}

type atKey struct {
	postcode string
	number   int
}

// The samples, by role: Weesp is the main NL dataset; Doesburg, a national-layout extract
// with five addresses and an older date, is the other NL version; BeST Lembeek/Haren/Malmedy
// is BE, once whole and once with a third of its addresses left out under a later date.
const (
	weespFile    = "BAGGEM0457L-15102021.zip"
	doesburgFile = "BAGNLDL-15092020-small.zip"
	beDate1      = "2026-10-01"
	beDate2      = "2026-11-01"
)

var beFiles = []string{"addresses_part.csv", "streets_part.csv", "municipalities.csv", "municipalityparts.csv", "postals.csv"}

var (
	registersMu sync.Mutex
	registers   = map[string]*register{}
)

func weesp(t testing.TB) *register {
	return loadRegister(t, "weesp", adreswijzer.NL, []string{storetest.File(t, "nl", weespFile)}, "")
}

func doesburg(t testing.TB) *register {
	return loadRegister(t, "doesburg", adreswijzer.NL, []string{storetest.File(t, "nl", doesburgFile)}, "")
}

func beWhole(t testing.TB) *register {
	var files []string
	for _, f := range beFiles {
		files = append(files, storetest.File(t, "be", f))
	}
	return loadRegister(t, "be-whole", adreswijzer.BE, files, beDate1)
}

// beThinned is the BeST sample without every third address record: a later delivery in
// which addresses have gone, so that answers of the two BE versions differ.
func beThinned(t testing.TB) *register {
	registersMu.Lock()
	r, ok := registers["be-thinned"]
	registersMu.Unlock()
	if ok {
		return r
	}
	dir, err := os.MkdirTemp("", "faults-best-")
	if err != nil {
		t.Fatal(err)
	}
	tempDirs = append(tempDirs, dir) // shared by the tests of this run
	var files []string
	for _, f := range beFiles {
		src := storetest.File(t, "be", f)
		dst := filepath.Join(dir, f)
		if f == "addresses_part.csv" {
			thin(t, src, dst)
		} else if err := os.Symlink(src, dst); err != nil {
			t.Fatal(err)
		}
		files = append(files, dst)
	}
	return loadRegister(t, "be-thinned", adreswijzer.BE, files, beDate2)
}

func thin(t testing.TB, src, dst string) {
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(out)
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for i := 0; sc.Scan(); i++ {
		if i%3 != 2 {
			w.WriteString(sc.Text())
			w.WriteByte('\n')
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

func loadRegister(t testing.TB, name string, c adreswijzer.Country, files []string, date string) *register {
	t.Helper()
	registersMu.Lock()
	defer registersMu.Unlock()
	if r, ok := registers[name]; ok {
		return r
	}
	r := &register{country: c, files: files, date: date, byID: map[string]int{}, at: map[atKey][]int{},
		streets: map[string]bool{}, localities: map[string]bool{}, places: map[string]bool{}}
	add := func(a adreswijzer.Address) error {
		r.addrs = append(r.addrs, a)
		return nil
	}
	ctx := context.Background()
	switch c {
	case adreswijzer.NL:
		res, err := bag.Import(ctx, files, add, bag.Options{})
		if err != nil {
			t.Fatalf("import %s: %v", name, err)
		}
		r.version = string(res.Version)
	case adreswijzer.BE:
		res, err := best.Import(ctx, files, add, best.Options{Date: date})
		if err != nil {
			t.Fatalf("import %s: %v", name, err)
		}
		r.version = string(res.Version)
	}
	for i := range r.addrs {
		a := &r.addrs[i]
		r.byID[a.ID] = i
		k := atKey{a.Postcode, a.HouseNumber}
		r.at[k] = append(r.at[k], i)
		for _, loc := range a.Locality.All() {
			r.localities[fold(loc)] = true
			for _, st := range a.Street.All() {
				r.streets[fold(st)+"|"+fold(loc)] = true
				r.places[a.Postcode+"|"+fold(st)+"|"+fold(loc)] = true
			}
		}
	}
	if len(r.addrs) == 0 {
		t.Fatalf("import %s: no addresses", name)
	}
	registers[name] = r
	return r
}

// streetsAt lists the (folded) street names of a postcode.
func (r *register) streetsAt(postcode string) map[string]bool {
	out := map[string]bool{}
	for i := range r.addrs {
		if r.addrs[i].Postcode == postcode {
			for _, st := range r.addrs[i].Street.All() {
				out[fold(st)] = true
			}
		}
	}
	return out
}

// lookup is what a lookup of (postcode, number), and for BE the street, must answer.
func (r *register) lookup(postcode string, number int, streetID string) []*adreswijzer.Address {
	var out []*adreswijzer.Address
	for _, i := range r.at[atKey{postcode, number}] {
		if streetID == "" || r.addrs[i].StreetID == streetID {
			out = append(out, &r.addrs[i])
		}
	}
	return out
}

// fold compares names as people read them: letter case, accents and spacing aside.
func fold(s string) string {
	t := transform.Chain(norm.NFKD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)
	out, _, err := transform.String(t, s)
	if err != nil {
		out = s
	}
	return strings.Join(strings.Fields(strings.ToLower(out)), " ")
}
