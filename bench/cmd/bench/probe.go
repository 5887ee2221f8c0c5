package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/store/memory"
)

// probeResult is what the probe subcommand prints.
type probeResult struct {
	Addresses map[string]int64 `json:"addresses"`
	// HeapBytes is the live heap the loaded snapshots hold: the memory store's own footprint,
	// without the matching engine's indexes or a server around it.
	HeapBytes     int64          `json:"heap_bytes"`
	SnapshotBytes int64          `json:"snapshot_bytes"`
	LoadSeconds   float64        `json:"load_s"`
	Keys          map[string]int `json:"keys"`
}

// Key files the probe writes, one request per line: "GET <target>" or
// "POST <target> <json body>", read by bench/wrk/requests.lua.
const (
	keysLookup       = "lookup.txt"
	keysLookupHot    = "lookup-hot.txt"
	keysLookupNL     = "lookup-nl.txt"
	keysLookupBE     = "lookup-be.txt"
	keysValidate     = "validate.txt"
	keysSuggest      = "suggest.txt"
	keysAutocomplete = "autocomplete.txt"
)

// probeCmd loads the snapshots in a process of its own, so that the heap they take is
// measured without the driver's, and draws the benchmark's requests from them: only
// addresses that exist, sampled over the whole country.
func probeCmd(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("probe", flag.ContinueOnError)
	out := fs.String("out", "", "directory for the key files")
	n := fs.Int("keys", 50000, "requests per key file")
	hot := fs.Int("hot", 1000, "lookups in the small (cached) key file")
	seed := fs.Uint64("seed", 1, "seed of the draw")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" || fs.NArg() == 0 {
		return fmt.Errorf("usage: probe -out DIR SNAPSHOT...")
	}
	res := probeResult{Addresses: map[string]int64{}, Keys: map[string]int{}}
	before := liveHeap()
	start := time.Now()
	var sets []*memory.Dataset
	for _, path := range fs.Args() {
		d, err := memory.ReadSnapshot(path)
		if err != nil {
			return err
		}
		fi, err := os.Stat(path)
		if err != nil {
			return err
		}
		res.SnapshotBytes += fi.Size()
		res.Addresses[string(d.Info().Country)] += int64(d.Len())
		sets = append(sets, d)
	}
	res.LoadSeconds = time.Since(start).Seconds()
	res.HeapBytes = int64(liveHeap() - before)

	var total int64
	for _, d := range sets {
		total += int64(d.Len())
	}
	w, err := newKeyWriter(*out)
	if err != nil {
		return err
	}
	for i, d := range sets {
		// Each country in proportion to its addresses, as traffic would roughly be.
		want := int(float64(*n)*float64(d.Len())/float64(total) + 0.5)
		r := rand.New(rand.NewPCG(*seed, uint64(i)))
		if err := sample(d, want, r, w.add); err != nil {
			return err
		}
	}
	if err := w.close(*hot, *seed); err != nil {
		return err
	}
	res.Keys = w.counts
	runtime.KeepAlive(sets)
	return json.NewEncoder(stdout).Encode(res)
}

func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	debug.FreeOSMemory()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// sample draws want addresses: a random street of the catalog, then the addresses along
// it (house numbers probed upwards until a long gap), then a few of those at random. The
// catalog has no list of numbers, and probing from a street keeps the draw spread over the
// country instead of over the biggest postcodes.
func sample(d *memory.Dataset, want int, r *rand.Rand, emit func(*adreswijzer.Address, *rand.Rand)) error {
	ctx := context.Background()
	places := d.Catalog().Places
	if len(places) == 0 || want <= 0 {
		return nil
	}
	got := 0
	for tries := 0; got < want && tries < want*20; tries++ {
		p := places[r.IntN(len(places))]
		var along []adreswijzer.Address
		for num, misses := 1, 0; misses < 60 && num < 100000; num++ {
			as, err := d.AddressesOnStreet(ctx, p.Street, num)
			if err != nil {
				return err
			}
			if len(as) == 0 {
				misses++
				continue
			}
			misses = 0
			along = append(along, as...)
		}
		for k := 0; k < 2 && len(along) > 0 && got < want; k++ {
			emit(&along[r.IntN(len(along))], r)
			got++
		}
	}
	return nil
}

// keyWriter writes the key files, one line per request.
type keyWriter struct {
	dir    string
	files  map[string]*os.File
	bufs   map[string]*bufio.Writer
	counts map[string]int
}

func newKeyWriter(dir string) (*keyWriter, error) {
	w := &keyWriter{dir: dir, files: map[string]*os.File{}, bufs: map[string]*bufio.Writer{}, counts: map[string]int{}}
	for _, name := range []string{keysLookup, keysValidate, keysSuggest, keysAutocomplete} {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		w.files[name], w.bufs[name] = f, bufio.NewWriter(f)
	}
	return w, nil
}

func (w *keyWriter) line(name, s string) {
	w.bufs[name].WriteString(s)
	w.bufs[name].WriteByte('\n')
	w.counts[name]++
}

// add writes the requests one address gives: a lookup, a validation as a checkout sends it
// (one in five with a typo in the street), a street suggestion for what someone has typed
// so far (or a typo), and an address completion.
func (w *keyWriter) add(a *adreswijzer.Address, r *rand.Rand) {
	c := strings.ToLower(string(a.Country))
	street := a.Street.Pick(adreswijzer.LangNL)
	num := strconv.Itoa(a.HouseNumber)
	q := url.Values{"postcode": {a.Postcode}, "number": {num}}
	if a.Country == adreswijzer.BE {
		q.Set("street", street)
	}
	w.line(keysLookup, "GET /v1/"+c+"/lookup?"+q.Encode())

	v := adreswijzer.ValidateRequest{
		CountryCode: string(a.Country),
		Address1:    street + " " + num + a.HouseNumberSuffix,
		Zip:         adreswijzer.FormatPostcode(a.Country, a.Postcode),
	}
	// A few Belgian postal names list every village of the postcode and run past the
	// length a field may have; a checkout would not send those, so they are left out.
	if city := a.Locality.Pick(adreswijzer.LangNL); city != "" && len([]rune(city)) <= adreswijzer.MaxFieldLength {
		v.City = &city
	}
	if u := a.Unit(); u != "" {
		if a.Country == adreswijzer.BE {
			u = "bus " + u
		}
		v.Address2 = &u
	}
	if r.IntN(5) == 0 {
		if t, ok := typo(street, r); ok {
			v.Address1 = t + " " + num + a.HouseNumberSuffix
		}
	}
	body, _ := json.Marshal(v)
	w.line(keysValidate, "POST /v1/validate "+string(body))

	typed := street
	if t, ok := typo(street, r); ok && r.IntN(4) == 0 {
		typed = t
	} else if rs := []rune(street); len(rs) > 3 {
		typed = string(rs[:3+r.IntN(len(rs)-2)])
	}
	if rs := []rune(typed); len(rs) > adreswijzer.MaxQueryLength {
		typed = string(rs[:adreswijzer.MaxQueryLength])
	}
	w.line(keysSuggest, "GET /v1/suggest?"+url.Values{"country": {c}, "q": {typed}}.Encode())

	whole := street + " " + num
	if r.IntN(2) == 0 || len([]rune(whole)) > adreswijzer.MaxQueryLength {
		whole = a.Postcode + " " + num
	}
	w.line(keysAutocomplete, "GET /v1/autocomplete?"+url.Values{"country": {c}, "q": {whole}}.Encode())
}

// typo drops one interior letter of the longest word, as people mistype a street; words
// shorter than five letters are left alone.
func typo(name string, r *rand.Rand) (string, bool) {
	words := strings.Fields(name)
	best := -1
	for i, w := range words {
		if n := len([]rune(w)); n >= 5 && (best < 0 || n > len([]rune(words[best]))) {
			best = i
		}
	}
	if best < 0 {
		return "", false
	}
	rs := []rune(words[best])
	i := 1 + r.IntN(len(rs)-2)
	words[best] = string(append(rs[:i:i], rs[i+1:]...))
	return strings.Join(words, " "), true
}

// close flushes the files and writes the hot key file: the first hot lookups, which the
// cached gateway load repeats so that it answers from its cache.
func (w *keyWriter) close(hot int, seed uint64) error {
	for name, b := range w.bufs {
		if err := b.Flush(); err != nil {
			return err
		}
		if err := w.files[name].Close(); err != nil {
			return err
		}
	}
	// The draw went country by country: shuffle the lines so that a prefix mixes them.
	path := filepath.Join(w.dir, keysLookup)
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	r := rand.New(rand.NewPCG(seed, 99))
	r.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
	if err := w.write(keysLookup, lines); err != nil {
		return err
	}
	// Per country, to tell which one a lookup's cost comes from.
	for name, prefix := range map[string]string{keysLookupNL: "GET /v1/nl/", keysLookupBE: "GET /v1/be/"} {
		var sel []string
		for _, l := range lines {
			if strings.HasPrefix(l, prefix) {
				sel = append(sel, l)
			}
		}
		if err := w.write(name, sel); err != nil {
			return err
		}
	}
	return w.write(keysLookupHot, lines[:min(hot, len(lines))])
}

func (w *keyWriter) write(name string, lines []string) error {
	w.counts[name] = len(lines)
	return os.WriteFile(filepath.Join(w.dir, name), []byte(strings.Join(lines, "\n")+"\n"), 0o644)
}

// mapProbeCmd builds the simplest index of the same number of addresses, a Go map from a
// packed postcode and number to a 12-byte record, and reports its heap per entry: the
// baseline the memory store's bytes per address are compared with.
func mapProbeCmd(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("mapprobe", flag.ContinueOnError)
	n := fs.Int("n", 1_000_000, "entries")
	if err := fs.Parse(args); err != nil {
		return err
	}
	type rec struct{ street, lat, lon int32 }
	before := liveHeap()
	start := time.Now()
	m := make(map[uint64]rec, *n)
	for i := range *n {
		// Multiplying by an odd constant is a bijection: distinct keys, spread over the map.
		m[uint64(i)*0x9E3779B97F4A7C15] = rec{int32(i), int32(i), int32(i)}
	}
	took := time.Since(start)
	heap := liveHeap() - before
	runtime.KeepAlive(m)
	return json.NewEncoder(stdout).Encode(map[string]float64{
		"entries": float64(len(m)), "heap_bytes": float64(heap), "build_s": took.Seconds(),
	})
}
