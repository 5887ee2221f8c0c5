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
	indexes map[adreswijzer.Country]*indexEntry
}

// indexEntry is the index of one dataset version; once is per entry, so building the index
// of a new version never blocks requests still reading the old one.
type indexEntry struct {
	version adreswijzer.DatasetVersion
	cat     *adreswijzer.Catalog
	once    sync.Once
	ix      *index
}

// New returns an engine over s.
func New(s adreswijzer.Store, opts Options) *Engine {
	if opts.AutocompleteBudget <= 0 {
		opts.AutocompleteBudget = DefaultAutocompleteBudget
	}
	return &Engine{store: s, opts: opts, indexes: make(map[adreswijzer.Country]*indexEntry)}
}

// active returns the dataset serving the country now.
func (e *Engine) active(ctx context.Context, c adreswijzer.Country) (adreswijzer.Dataset, error) {
	ds, err := e.store.Active(ctx, c)
	if err != nil {
		return nil, fmt.Errorf("active %s dataset: %w", c, err)
	}
	return ds, nil
}

// index returns the index of the dataset, building it on first use of its version. The
// previous version's index is dropped as soon as a newer version asks for one; requests that
// still hold it finish on it.
func (e *Engine) index(ds adreswijzer.Dataset) *index {
	info := ds.Info()
	cat := ds.Catalog()
	e.mu.Lock()
	ent := e.indexes[info.Country]
	if ent == nil || ent.version != info.Version || ent.cat != cat {
		ent = &indexEntry{version: info.Version, cat: cat}
		e.indexes[info.Country] = ent
	}
	e.mu.Unlock()
	ent.once.Do(func() { ent.ix = buildIndex(cat) })
	return ent.ix
}

// Warm builds the indexes of the active datasets ahead of the first request, so the first
// customer after a start or an import does not wait for it. Countries without a dataset are
// skipped.
func (e *Engine) Warm(ctx context.Context) error {
	for _, c := range adreswijzer.Countries {
		ds, err := e.store.Active(ctx, c)
		if err != nil {
			continue
		}
		e.index(ds)
	}
	return ctx.Err()
}
