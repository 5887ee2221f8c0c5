// Package addresscache puts an in-memory LRU cache of register addresses in front of a
// Store's address queries, so that a worker backed by Postgres answers the addresses people
// look up again and again (the same checkout validated on every keystroke of a form, a
// shop's own warehouse) without a database round trip. The gateway's cache, of whole
// answers, is gateway/answercache.
//
// Entries are keyed by the dataset they came from (country, version and activation time) as
// well as by the query, so a newly activated dataset is never answered from the old one's
// entries: those simply age out. The memory store needs no cache; it answers as fast as a
// cache would.
package addresscache

import (
	"context"
	"slices"
	"sync/atomic"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/adreswijzer/adreswijzer"
)

// Options size the caches.
type Options struct {
	// Entries is how many query answers each of the two caches (by postcode and number, by
	// street and number) keeps. Zero means DefaultEntries.
	Entries int
}

// DefaultEntries keeps about a hundred thousand answers per cache: a few tens of megabytes,
// enough for the hot addresses of a busy day.
const DefaultEntries = 100_000

// datasetKey identifies one activation of a dataset. The activation time is part of it
// because an operator may activate a fixed import again under the same version.
type datasetKey struct {
	country   adreswijzer.Country
	version   adreswijzer.DatasetVersion
	activated int64
}

type atKey struct {
	ds       datasetKey
	postcode string
	number   int
}

type streetKey struct {
	ds     datasetKey
	street uint32
	number int
}

// Store is an adreswijzer.Store whose datasets answer address queries from the caches when
// they can. It is safe for concurrent use.
type Store struct {
	inner    adreswijzer.Store
	at       *lru.Cache[atKey, []adreswijzer.Address]
	onStreet *lru.Cache[streetKey, []adreswijzer.Address]
	// last holds the wrapper of the dataset most recently seen per country, so that Active,
	// called on every request, does not build a new one each time.
	last  map[adreswijzer.Country]*atomic.Pointer[dataset]
	stats stats
}

type stats struct{ hits, misses atomic.Int64 }

// Stats counts cache use since New, for metrics and tests.
type Stats struct {
	Hits, Misses int64
}

var _ adreswijzer.Store = (*Store)(nil)

// New wraps s.
func New(s adreswijzer.Store, opts Options) *Store {
	n := opts.Entries
	if n <= 0 {
		n = DefaultEntries
	}
	at, err := lru.New[atKey, []adreswijzer.Address](n)
	if err != nil {
		// lru.New fails only for a size below one, which the default rules out.
		panic(err)
	}
	on, err := lru.New[streetKey, []adreswijzer.Address](n)
	if err != nil {
		panic(err)
	}
	c := &Store{inner: s, at: at, onStreet: on, last: make(map[adreswijzer.Country]*atomic.Pointer[dataset])}
	for _, country := range adreswijzer.Countries {
		c.last[country] = new(atomic.Pointer[dataset])
	}
	return c
}

// Active returns the inner store's active dataset behind the caches.
func (s *Store) Active(ctx context.Context, c adreswijzer.Country) (adreswijzer.Dataset, error) {
	ds, err := s.inner.Active(ctx, c)
	if err != nil {
		return nil, err
	}
	p := s.last[c]
	if p == nil {
		// A country without a register: nothing to remember it by.
		return s.wrap(ds), nil
	}
	if d := p.Load(); d != nil && d.inner == ds {
		return d, nil
	}
	d := s.wrap(ds)
	p.Store(d)
	return d, nil
}

func (s *Store) wrap(ds adreswijzer.Dataset) *dataset {
	info := ds.Info()
	return &dataset{Dataset: ds, inner: ds, s: s, key: datasetKey{info.Country, info.Version, info.ActivatedAt.UnixNano()}}
}

// Ping asks the inner store.
func (s *Store) Ping(ctx context.Context) error { return s.inner.Ping(ctx) }

// Stats returns the hits and misses so far.
func (s *Store) Stats() Stats { return Stats{Hits: s.stats.hits.Load(), Misses: s.stats.misses.Load()} }

// Purge empties both caches, for an operator who wants memory back at once.
func (s *Store) Purge() {
	s.at.Purge()
	s.onStreet.Purge()
}

// dataset answers Info and Catalog from the inner dataset and the address queries from the
// caches first.
type dataset struct {
	adreswijzer.Dataset
	inner adreswijzer.Dataset
	s     *Store
	key   datasetKey
}

// AddressesAt is the inner dataset's answer, cached. Empty answers are cached too (an
// address that does not exist is asked for again as often as one that does); errors are not.
// The slice returned is the caller's own.
func (d *dataset) AddressesAt(ctx context.Context, postcode string, number int) ([]adreswijzer.Address, error) {
	return cachedAnswer(d, d.s.at, atKey{d.key, postcode, number}, func() ([]adreswijzer.Address, error) {
		return d.inner.AddressesAt(ctx, postcode, number)
	})
}

// AddressesOnStreet is the inner dataset's answer, cached like AddressesAt.
func (d *dataset) AddressesOnStreet(ctx context.Context, street uint32, number int) ([]adreswijzer.Address, error) {
	return cachedAnswer(d, d.s.onStreet, streetKey{d.key, street, number}, func() ([]adreswijzer.Address, error) {
		return d.inner.AddressesOnStreet(ctx, street, number)
	})
}

// cachedAnswer answers from c, or asks the inner dataset and keeps a copy of its answer.
func cachedAnswer[K comparable](d *dataset, c *lru.Cache[K, []adreswijzer.Address], k K, ask func() ([]adreswijzer.Address, error)) ([]adreswijzer.Address, error) {
	if as, ok := c.Get(k); ok {
		d.s.stats.hits.Add(1)
		return slices.Clone(as), nil
	}
	d.s.stats.misses.Add(1)
	as, err := ask()
	if err != nil {
		return nil, err
	}
	c.Add(k, slices.Clone(as))
	return as, nil
}
