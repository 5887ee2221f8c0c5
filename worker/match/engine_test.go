package match

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/store/memory"
)

// TestConcurrentAnswers runs validate, lookup and suggest from many goroutines on a fresh
// engine, so that the index is built while requests race for it (go test -race).
func TestConcurrentAnswers(t *testing.T) {
	s := loadSamples(t)
	e := New(s.store, Options{})
	cases := qualityCases(s)
	var wg sync.WaitGroup
	for g := 0; g < 6; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			ctx := context.Background()
			for i := g; i < len(cases); i += 6 * 7 {
				want, err := e.Validate(ctx, cases[i].req)
				if err != nil {
					t.Error(err)
					return
				}
				if want.Status != cases[i].want {
					t.Errorf("%s: %s, want %s", cases[i].name, want.Status, cases[i].want)
				}
				if _, err := e.Suggest(ctx, SuggestQuery{Country: adreswijzer.Country(cases[i].req.CountryCode), Q: cases[i].req.Address1}); err != nil {
					t.Error(err)
				}
				if _, err := e.Lookup(ctx, LookupQuery{Country: adreswijzer.Country(cases[i].req.CountryCode), Postcode: cases[i].req.Zip, Number: 1, Street: "a"}); err != nil {
					t.Error(err)
				}
			}
		}(g)
	}
	wg.Wait()
}

// TestActivationHandsOver activates a new dataset under a running engine: every answer comes
// from one of the two versions, none fails, and the new one takes over once its index is
// built, without any request waiting for it.
func TestActivationHandsOver(t *testing.T) {
	ctx := context.Background()
	s := loadSamples(t)
	st := memory.New(memory.Options{})
	load := func(v adreswijzer.DatasetVersion) {
		w, err := st.Begin(ctx, adreswijzer.BE)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range s.be {
			if err := w.Add(a); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := w.Commit(ctx, v); err != nil {
			t.Fatal(err)
		}
	}
	const v1, v2 = "best:2021-10-20", "best:2026-11-01"
	load(v1)
	e := New(st, Options{})
	if err := e.Warm(ctx); err != nil {
		t.Fatal(err)
	}
	q := LookupQuery{Country: adreswijzer.BE, Postcode: "1130", Number: 134, Street: "Ganzenweidestraat"}
	version := func() string {
		t.Helper()
		resp, err := e.Lookup(ctx, q)
		if err != nil || len(resp.Addresses) == 0 || resp.Meta.DatasetVersion == nil {
			t.Fatalf("lookup: %v, %d addresses", err, len(resp.Addresses))
		}
		return *resp.Meta.DatasetVersion
	}
	if v := version(); v != v1 {
		t.Fatalf("answered from %s before the activation", v)
	}
	gen1, ok := e.Serving(ctx, adreswijzer.BE)
	if !ok {
		t.Fatal("Serving: not ok with the index built")
	}
	if _, ok := e.Serving(ctx, adreswijzer.NL); ok {
		t.Error("Serving: ok for a country without a dataset")
	}
	load(v2)
	deadline := time.Now().Add(10 * time.Second)
	for v := version(); v != v2; v = version() {
		if v != v1 {
			t.Fatalf("answered from %s", v)
		}
		if time.Now().After(deadline) {
			t.Fatal("the new dataset never took over")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if ds, err := e.Dataset(ctx, adreswijzer.BE); err != nil || string(ds.Info().Version) != v2 {
		t.Errorf("engine reports %v, %v", ds.Info().Version, err)
	}
	// What was kept under the first activation must not pass for the second, nor for the
	// first version activated again.
	gen2, ok := e.Serving(ctx, adreswijzer.BE)
	if !ok || gen2 == gen1 {
		t.Errorf("Serving after the activation: %d, %v; before it: %d", gen2, ok, gen1)
	}
	load(v1)
	deadline = time.Now().Add(10 * time.Second)
	for v := version(); v != v1; v = version() {
		if time.Now().After(deadline) {
			t.Fatal("the version activated again never took over")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if gen3, ok := e.Serving(ctx, adreswijzer.BE); !ok || gen3 == gen1 || gen3 == gen2 {
		t.Errorf("Serving after activating %s again: %d, %v; earlier %d and %d", v1, gen3, ok, gen1, gen2)
	}
}
