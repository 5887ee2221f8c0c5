// Package match is the matching engine of the register worker: it answers lookup, suggest,
// autocomplete and validate from an adreswijzer.Store with the wire types of the REST
// interface, for the HTTP handlers and the agent tools alike.
//
// Everything about the input is an answer (a verdict with issues), never an error: a shop
// must be able to show something to its customer. Errors are reserved for the store not
// answering (wrapping adreswijzer.ErrUnavailable or ErrNoDataset), which callers turn into
// 503 so that checkouts fail open.
package match

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/adreswijzer/adreswijzer"
)

// Options tune the engine. The zero value is usable.
type Options struct {
	// AutocompleteBudget bounds the time one autocomplete call may take; what is found by
	// then is answered with degraded set. Zero means DefaultAutocompleteBudget.
	AutocompleteBudget time.Duration
}

// DefaultAutocompleteBudget keeps a type-ahead answer well inside the 100 ms people perceive
// as instant, leaving room for the network.
const DefaultAutocompleteBudget = 30 * time.Millisecond

// Engine answers from the store's active datasets. It is safe for concurrent use.
type Engine struct {
	store adreswijzer.Store
	opts  Options

	mu      sync.Mutex
	serving map[adreswijzer.Country]*countryIndex
	gens    uint64 // activations seen, under mu: the generation of the newest indexEntry
}

// countryIndex is what the engine serves for one country: the newest dataset whose index is
// ready, and the one whose index is being built.
type countryIndex struct {
	ready    *indexEntry
	building *indexEntry
}

// indexEntry is a dataset with its index; ready is closed once ix is built. gen numbers
// the entries of an engine in the order they were made, never twice.
type indexEntry struct {
	ds    adreswijzer.Dataset
	ready chan struct{}
	ix    *index
	gen   uint64
}

// New returns an engine over s.
func New(s adreswijzer.Store, opts Options) *Engine {
	if opts.AutocompleteBudget <= 0 {
		opts.AutocompleteBudget = DefaultAutocompleteBudget
	}
	return &Engine{store: s, opts: opts, serving: make(map[adreswijzer.Country]*countryIndex)}
}

// sameDataset reports whether a and b are the same activation of a dataset.
func sameDataset(a, b adreswijzer.Dataset) bool {
	return a.Info().Version == b.Info().Version && a.Catalog() == b.Catalog()
}

// active returns the dataset to answer from and its index. A newly activated dataset takes
// over once its index is built (seconds at national size): until then the previous one keeps
// answering, so an activation never makes requests wait past their deadline. Only when
// there is no previous one (the first start) does a request wait for the build.
func (e *Engine) active(ctx context.Context, c adreswijzer.Country) (adreswijzer.Dataset, *index, error) {
	prev, next, err := e.entries(ctx, c)
	if err != nil {
		return nil, nil, err
	}
	if prev != nil {
		return prev.ds, prev.ix, nil
	}
	select {
	case <-next.ready:
		return next.ds, next.ix, nil
	case <-ctx.Done():
		return nil, nil, fmt.Errorf("index of the %s dataset not built yet: %w: %w", c, adreswijzer.ErrUnavailable, ctx.Err())
	}
}

// entries returns the entry answering now for the country (nil before the first index is
// built) and, when the store's active dataset is another one, the entry being built for it,
// whose build it starts when the store's activation is new.
func (e *Engine) entries(ctx context.Context, c adreswijzer.Country) (prev, next *indexEntry, err error) {
	ds, err := e.store.Active(ctx, c)
	if err != nil {
		return nil, nil, fmt.Errorf("active %s dataset: %w", c, err)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	ci := e.serving[c]
	if ci == nil {
		ci = &countryIndex{}
		e.serving[c] = ci
	}
	if ci.ready != nil && sameDataset(ci.ready.ds, ds) {
		return ci.ready, nil, nil
	}
	if ci.building == nil || !sameDataset(ci.building.ds, ds) {
		e.gens++
		ent := &indexEntry{ds: ds, ready: make(chan struct{}), gen: e.gens}
		ci.building = ent
		go e.build(ci, ent)
	}
	return ci.ready, ci.building, nil
}

// Serving names the activation the engine answers the country from now without waiting for
// anything: a number that changes whenever another dataset takes over and never returns to
// an earlier value, even when an activation is rolled back. Answers kept under it stay
// right as long as it is unchanged. ok is false when the engine has no index of the country
// yet (the first start, a country without a register): then nothing may be kept.
func (e *Engine) Serving(ctx context.Context, c adreswijzer.Country) (gen uint64, ok bool) {
	prev, _, err := e.entries(ctx, c)
	if err != nil || prev == nil {
		return 0, false
	}
	return prev.gen, true
}

// build makes the index of ent and lets it take over, unless a newer activation has
// replaced it meanwhile.
func (e *Engine) build(ci *countryIndex, ent *indexEntry) {
	ent.ix = buildIndex(ent.ds.Catalog())
	e.mu.Lock()
	if ci.building == ent {
		ci.ready, ci.building = ent, nil
	}
	e.mu.Unlock()
	// Closed once it serves: whoever waited for it finds it in Serving as well.
	close(ent.ready)
}

// Dataset returns the dataset the engine answers from now for the country, which /health and
// the agent's country list report: after an activation it stays the previous one until the
// new index is ready.
func (e *Engine) Dataset(ctx context.Context, c adreswijzer.Country) (adreswijzer.Dataset, error) {
	ds, _, err := e.active(ctx, c)
	return ds, err
}

// PlaceNames returns what the active register of c calls a place, as validation recognises
// a typed city: any name, part of a name or municipality of a locality in any of its
// languages, or an alias of one, letter case and accents aside. The agent's splitter asks
// it about every trailing word group of a line, so the answer is bound to the index once
// rather than looked up per question.
func (e *Engine) PlaceNames(ctx context.Context, c adreswijzer.Country) (func(name string) bool, error) {
	_, ix, err := e.active(ctx, c)
	if err != nil {
		return nil, err
	}
	return ix.knowsPlace, nil
}

// Warm builds the indexes of the active datasets ahead of the first request, so the first
// customer after a start does not wait for it. Countries without a dataset are skipped.
func (e *Engine) Warm(ctx context.Context) error {
	for _, c := range adreswijzer.Countries {
		if _, _, err := e.active(ctx, c); err != nil && ctx.Err() != nil {
			return ctx.Err()
		}
	}
	return ctx.Err()
}

// Follow starts building the index of a newly activated dataset as soon as it appears,
// rather than at the first request after it, until ctx ends.
func (e *Engine) Follow(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			for _, c := range adreswijzer.Countries {
				e.active(ctx, c) // starts a build when the active dataset is new
			}
		}
	}
}
