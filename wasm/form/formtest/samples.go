//go:build !wasip1

// Package formtest drives the address form's core through whole customer journeys over the
// real register samples, with every answer made by the real worker (the importers, the memory
// store, the matching engine and the HTTP handlers) and checked against openapi.json.
//
// The same journeys run against the core compiled natively (package form's tests) and as
// WebAssembly under wazero (package wasm's tests), through Core, so the two cannot drift
// apart; the browser tests of the widget reuse API and the sample rows.
//
// It is built for the test host only, not for wasip1: it runs the worker over the register
// samples, with the store interfaces the wasip1 build of the domain leaves out.
package formtest

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"sort"
	"sync"
	"testing"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/store/memory"
	"github.com/adreswijzer/adreswijzer/store/storetest"
	"github.com/adreswijzer/adreswijzer/store/storetest/samples"
	"github.com/adreswijzer/adreswijzer/worker/httpapi"
	"github.com/adreswijzer/adreswijzer/worker/match"
)

// Samples is what the real importers made of the register samples: the Weesp extract of the
// BAG and BOSA's BeST sample (Haren, Lembeek, Malmedy), in the memory store behind the
// worker's HTTP handler, and the rows themselves to pick test addresses from.
type Samples struct {
	Store *memory.Store
	API   http.Handler
	Rows  map[adreswijzer.Country][]adreswijzer.Address
}

var (
	once    sync.Once
	loaded  *Samples
	loadErr error
)

// Load imports the samples once per test binary.
func Load(tb testing.TB) *Samples {
	tb.Helper()
	imps := map[adreswijzer.Country]storetest.Importer{
		adreswijzer.NL: samples.BAGWeesp(tb),
		adreswijzer.BE: samples.BeSTSample(tb),
	}
	once.Do(func() { loaded, loadErr = load(imps) })
	if loadErr != nil {
		tb.Fatalf("import the register samples: %v", loadErr)
	}
	return loaded
}

func load(imps map[adreswijzer.Country]storetest.Importer) (*Samples, error) {
	ctx := context.Background()
	s := &Samples{Store: memory.New(memory.Options{}), Rows: map[adreswijzer.Country][]adreswijzer.Address{}}
	for _, c := range adreswijzer.Countries {
		w, err := s.Store.Begin(ctx, c)
		if err != nil {
			return nil, fmt.Errorf("begin %s: %w", c, err)
		}
		v, _, err := imps[c](ctx, func(a adreswijzer.Address) error {
			s.Rows[c] = append(s.Rows[c], a)
			return w.Add(a)
		})
		if err != nil {
			return nil, fmt.Errorf("import %s: %w", c, err)
		}
		if _, err := w.Commit(ctx, v); err != nil {
			return nil, fmt.Errorf("commit %s: %w", c, err)
		}
	}
	e := match.New(s.Store, match.Options{})
	if err := e.Warm(ctx); err != nil {
		return nil, err
	}
	s.API = httpapi.New(e, s.Store, httpapi.Options{Logger: slog.New(slog.DiscardHandler), InMemory: true})
	return s, nil
}

// Number is every register address at one house number: what a lookup answers.
type Number struct {
	Country  adreswijzer.Country
	Postcode string
	Number   int
	Street   string // in the register's first language
	Rows     []adreswijzer.Address
}

// HasBare reports whether the number without any letter, toevoeging or box is an address.
func (n Number) HasBare() bool {
	for _, a := range n.Rows {
		if a.HouseNumberSuffix == "" && a.Unit() == "" {
			return true
		}
	}
	return false
}

// Numbers groups a country's rows by postcode, street and number, sorted, so tests pick the
// same addresses on every run.
func (s *Samples) Numbers(c adreswijzer.Country) []Number {
	type key struct {
		pc, street string
		n          int
	}
	groups := map[key]*Number{}
	for _, a := range s.Rows[c] {
		st := a.Street.PickPrimary(a.Street.NL == "")
		k := key{a.Postcode, st, a.HouseNumber}
		g := groups[k]
		if g == nil {
			g = &Number{Country: c, Postcode: a.Postcode, Number: a.HouseNumber, Street: st}
			groups[k] = g
		}
		g.Rows = append(g.Rows, a)
	}
	out := make([]Number, 0, len(groups))
	for _, g := range groups {
		out = append(out, *g)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Postcode != b.Postcode {
			return a.Postcode < b.Postcode
		}
		if a.Street != b.Street {
			return a.Street < b.Street
		}
		return a.Number < b.Number
	})
	return out
}

// Find returns the first number that fits, failing the test when the samples hold none.
func (s *Samples) Find(tb testing.TB, c adreswijzer.Country, what string, fits func(Number) bool) Number {
	tb.Helper()
	for _, n := range s.Numbers(c) {
		if fits(n) {
			return n
		}
	}
	tb.Fatalf("the %s sample has no %s", c, what)
	return Number{}
}

// PostcodeNumbers counts the addresses at each postcode and number, across streets: a Dutch
// lookup keys on these two alone.
func (s *Samples) PostcodeNumbers(c adreswijzer.Country) map[string]int {
	out := map[string]int{}
	for _, a := range s.Rows[c] {
		out[fmt.Sprintf("%s %d", a.Postcode, a.HouseNumber)]++
	}
	return out
}
