package match

import (
	"context"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/store/memory"
)

// Targets (reported, never asserted in unit tests):
//   - Suggest at national size: p99 at most 10 ms per keystroke.
//   - Validate and Lookup on the memory store: well under a millisecond, so that the
//     checkout answer is dominated by the network.

var nationalStore struct {
	once  sync.Once
	store *memory.Store
	err   error
}

// nationalEngine serves the national-size street catalog (nationalAddresses) from the
// memory store, with the index already built, as a worker has it after Warm.
func nationalEngine(b testing.TB) *Engine {
	b.Helper()
	addrs := nationalAddresses(b)
	nationalStore.once.Do(func() {
		ctx := context.Background()
		s := memory.New(memory.Options{})
		w, err := s.Begin(ctx, adreswijzer.NL)
		if err != nil {
			nationalStore.err = err
			return
		}
		for _, a := range addrs {
			if err := w.Add(a); err != nil {
				nationalStore.err = err
				return
			}
		}
		if _, err := w.Commit(ctx, "bag:2019-01-14"); err != nil {
			nationalStore.err = err
			return
		}
		nationalStore.store = s
	})
	if nationalStore.err != nil {
		b.Fatal(nationalStore.err)
	}
	e := New(nationalStore.store, Options{})
	if err := e.Warm(context.Background()); err != nil {
		b.Fatal(err)
	}
	return e
}

// typedQueries are what people send while typing real national street names: every
// keystroke from the third letter on, and the whole name with one letter dropped or two
// letters swapped (the typo tier), drawn evenly from the 131,727 names.
func typedQueries(b testing.TB) []string {
	names, _ := nationalStreetNames(b)
	var qs []string
	for i := 0; i < len(names); i += 331 {
		r := []rune(names[i])
		for n := 3; n <= len(r); n++ {
			qs = append(qs, string(r[:n]))
		}
		if t, ok := typo(names[i]); ok {
			qs = append(qs, t)
		}
		if t, ok := transpose(names[i]); ok {
			qs = append(qs, t)
		}
	}
	return qs
}

// timedCalls runs call(0) … call(b.N-1), timing each, and reports allocations and the
// latency distribution beside the mean.
func timedCalls(b *testing.B, call func(i int) error) {
	lat := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if err := call(i); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	percentiles(b, lat)
}

// percentiles reports the latency distribution of the timed calls.
func percentiles(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	at := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) }
	b.ReportMetric(at(0.50), "p50-µs")
	b.ReportMetric(at(0.99), "p99-µs")
	b.ReportMetric(float64(lat[len(lat)-1].Microseconds()), "max-µs")
}

func BenchmarkSuggestNational(b *testing.B) {
	e := nationalEngine(b)
	qs := typedQueries(b)
	ctx := context.Background()
	timedCalls(b, func(i int) error {
		_, err := e.Suggest(ctx, SuggestQuery{Country: adreswijzer.NL, Q: qs[i%len(qs)]})
		return err
	})
	b.ReportMetric(float64(len(qs)), "distinct-queries")
}

// BenchmarkValidateNational validates addresses of the national catalog as customers type
// them: as the register writes them, with a letter dropped or two swapped in the street,
// the street without its titles and initials, and each of those at a postcode of the same
// area where the number is not (the right street, the wrong postcode). A street found only
// by similarity sends validate looking for the town's streets named exactly or by their
// core (strongStreets). The synthetic catalog spreads its streets evenly over its places, far
// fewer to a place than a real city has, so this does not show a big city's cost.
func BenchmarkValidateNational(b *testing.B) {
	e := nationalEngine(b)
	reqs := nationalValidateRequests(b)
	ctx := context.Background()
	timedCalls(b, func(i int) error {
		_, err := e.Validate(ctx, reqs[i%len(reqs)])
		return err
	})
	b.ReportMetric(float64(len(reqs)), "distinct-inputs")
}

// nationalValidateRequests draws every 97th national address and types it in each way
// BenchmarkValidateNational describes.
func nationalValidateRequests(tb testing.TB) []adreswijzer.ValidateRequest {
	addrs := nationalAddresses(tb)
	byArea := map[string][]string{} // PC4 area: its postcodes, in address order
	for i := range addrs {
		pc := addrs[i].Postcode
		if l := byArea[pc[:4]]; !slices.Contains(l, pc) {
			byArea[pc[:4]] = append(l, pc)
		}
	}
	var reqs []adreswijzer.ValidateRequest
	for i := 0; i < len(addrs); i += 97 {
		a := &addrs[i]
		base := clean(a, false)
		num := strconv.Itoa(a.HouseNumber)
		streets := []string{a.Street.NL}
		if t, ok := typo(a.Street.NL); ok {
			streets = append(streets, t)
		}
		if t, ok := transpose(a.Street.NL); ok {
			streets = append(streets, t)
		}
		if t := withoutTitles(a.Street.NL); t != a.Street.NL {
			streets = append(streets, t)
		}
		other := ""
		for _, pc := range byArea[a.Postcode[:4]] {
			if pc != a.Postcode {
				other = adreswijzer.FormatPostcode(adreswijzer.NL, pc)
				break
			}
		}
		for _, s := range streets {
			r := base
			r.Address1 = s + " " + num
			reqs = append(reqs, r)
			if other != "" {
				r.Zip = other
				reqs = append(reqs, r)
			}
		}
	}
	return reqs
}

// BenchmarkIndexNational builds the suggest index of the national catalog and reports the
// heap it keeps.
func BenchmarkIndexNational(b *testing.B) {
	nationalEngine(b)
	ds, err := nationalStore.store.Active(context.Background(), adreswijzer.NL)
	if err != nil {
		b.Fatal(err)
	}
	cat := ds.Catalog()
	var ix *index
	var before, after runtime.MemStats
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		runtime.GC()
		runtime.ReadMemStats(&before)
		ix = buildIndex(cat)
		runtime.GC()
		runtime.ReadMemStats(&after)
	}
	b.StopTimer()
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "heap-MiB")
	b.ReportMetric(float64(len(ix.cat.Streets)), "streets")
}

func BenchmarkValidate(b *testing.B) {
	e, s := sampleEngine(b)
	cases := qualityCases(s)
	ctx := context.Background()
	for _, c := range cases[:50] {
		// Warm the indexes so the first iterations do not pay for them.
		if _, err := e.Validate(ctx, c.req); err != nil {
			b.Fatal(err)
		}
	}
	timedCalls(b, func(i int) error {
		_, err := e.Validate(ctx, cases[i%len(cases)].req)
		return err
	})
	b.ReportMetric(float64(len(cases)), "distinct-inputs")
}

// BenchmarkLookup looks up every seventh sample address, by country: Dutch lookups by
// postcode and number read one postcode's addresses, Belgian ones match the typed street
// among the streets of a municipality first.
func BenchmarkLookup(b *testing.B) {
	e, s := sampleEngine(b)
	var nl, be []LookupQuery
	for i, a := range s.nl {
		if i%7 == 0 && a.Postcode != "" {
			nl = append(nl, LookupQuery{Country: adreswijzer.NL, Postcode: a.Postcode, Number: a.HouseNumber})
		}
	}
	for i, a := range s.be {
		if i%7 == 0 {
			be = append(be, LookupQuery{Country: adreswijzer.BE, Postcode: a.Postcode, Street: streetName(&a, a.Street.NL == ""), Number: a.HouseNumber})
		}
	}
	ctx := context.Background()
	for _, c := range []struct {
		name string
		qs   []LookupQuery
	}{{"NL", nl}, {"BE", be}} {
		b.Run(c.name, func(b *testing.B) {
			timedCalls(b, func(i int) error {
				_, err := e.Lookup(ctx, c.qs[i%len(c.qs)])
				return err
			})
			b.ReportMetric(float64(len(c.qs)), "distinct-queries")
		})
	}
}

func BenchmarkAutocomplete(b *testing.B) {
	e, s := sampleEngine(b)
	var qs []string
	for i, a := range s.nl {
		if i%53 == 0 && a.Postcode != "" {
			qs = append(qs, a.Street.NL+" "+strconv.Itoa(a.HouseNumber), a.Postcode+" "+strconv.Itoa(a.HouseNumber))
		}
	}
	ctx := context.Background()
	timedCalls(b, func(i int) error {
		_, err := e.Autocomplete(ctx, AutocompleteQuery{Country: adreswijzer.NL, Q: qs[i%len(qs)]})
		return err
	})
}
