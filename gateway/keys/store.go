package keys

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/adreswijzer/adreswijzer/gateway/breaker"
)

// ErrNotFound: no key with this hash or id.
var ErrNotFound = errors.New("key not found")

// ErrUnavailable: the store could not say whether the key exists, and nothing known of it
// may stand in. The gateway answers 503, and the caller accepts the address as typed.
var ErrUnavailable = errors.New("key store unavailable")

// Store keeps keys. FileStore is the embedded default; the gateway's Postgres package
// provides one for deployments with several gateways.
type Store interface {
	// Lookup finds a key by the hash of its credential, revoked keys included (the caller
	// refuses those), or returns ErrNotFound.
	Lookup(ctx context.Context, h Hash) (*Key, error)
	Create(ctx context.Context, k *Key) error
	// List returns every key, oldest first.
	List(ctx context.Context) ([]*Key, error)
	// ListAccount returns the keys of one account, oldest first, revoked ones included.
	ListAccount(ctx context.Context, account string) ([]*Key, error)
	// SetPlan gives every key of an account the account's plan: the plan travels with the
	// key, so that the request path never reads the account.
	SetPlan(ctx context.Context, account, plan string) error
	// Revoke marks the key revoked at the time given, or returns ErrNotFound.
	Revoke(ctx context.Context, id string, at time.Time) error
}

// CacheConfig tunes a Cache.
type CacheConfig struct {
	// Size is the most keys kept (DefaultCacheSize when not positive).
	Size int
	// TTL is how long a looked-up key is trusted without asking the store again, and so how
	// long a revocation takes to reach every gateway.
	TTL time.Duration
	// MaxStale is how long past its TTL a key is still served while the store fails: a
	// checkout must not stop because the key database is away for a while, but a revoked
	// key must not live on for ever either.
	MaxStale time.Duration
	// Timeout is the longest a lookup waits for the store; a request has a client waiting on
	// a budget of 1.5 s.
	Timeout time.Duration
	// Retry is how often a store that failed is asked again; meanwhile requests are answered
	// from the cache or refused at once, instead of each waiting on a dead connection.
	Retry time.Duration
	Log   *slog.Logger
}

// Defaults of a Cache.
const (
	DefaultCacheSize     = 1 << 14
	DefaultCacheTTL      = 10 * time.Second
	DefaultMaxStale      = 10 * time.Minute
	DefaultLookupTimeout = 250 * time.Millisecond
	DefaultRetry         = time.Second
)

func (c *CacheConfig) defaults() {
	if c.Size <= 0 {
		c.Size = DefaultCacheSize
	}
	if c.TTL <= 0 {
		c.TTL = DefaultCacheTTL
	}
	if c.MaxStale < 0 {
		c.MaxStale = 0
	} else if c.MaxStale == 0 {
		c.MaxStale = DefaultMaxStale
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultLookupTimeout
	}
	if c.Retry <= 0 {
		c.Retry = DefaultRetry
	}
	if c.Log == nil {
		c.Log = slog.Default()
	}
}

// Cache keeps recent lookups of a remote store in memory, because a database round trip per
// request would cost as much as the request itself. A revocation takes effect once the
// entry's TTL has passed and the store answers. Unknown hashes are remembered too, so that
// a client repeating a wrong key does not reach the database each time.
//
// The store is never waited on for longer than the timeout, and concurrent lookups of one
// hash share one query, so that a key expiring under load is one query and not one per
// request. When the store fails or times out, requests are served from what the cache
// knows, up to MaxStale past the TTL (stale-if-error), and the store is asked again only
// once per retry interval; a key the cache does not know is then ErrUnavailable at once.
type Cache struct {
	Store
	lru     *lru.Cache[Hash, entry]
	breaker *breaker.Breaker
	now     func() time.Time

	ttl, maxStale, timeout atomic.Int64

	mu       sync.Mutex
	inflight map[Hash]*fetch
}

// entry is what the store said of a hash, and when; key is nil for ErrNotFound.
type entry struct {
	key *Key
	at  time.Time
}

func (e entry) result() (*Key, error) {
	if e.key == nil {
		return nil, ErrNotFound
	}
	return e.key, nil
}

// fetch is one query of the store that lookups of the same hash wait on together.
type fetch struct {
	done chan struct{}
	key  *Key
	err  error
}

// NewCache wraps s.
func NewCache(s Store, cfg CacheConfig) *Cache {
	cfg.defaults()
	l, _ := lru.New[Hash, entry](cfg.Size) // fails only for a size below 1
	c := &Cache{Store: s, lru: l, breaker: breaker.New("key store", cfg.Retry, cfg.Log), now: time.Now,
		inflight: map[Hash]*fetch{}}
	c.Tune(cfg)
	return c
}

// Tune changes the TTL, the staleness allowed and the timeout of a running cache, on a
// configuration reload (zero values are the defaults; a negative MaxStale serves nothing
// stale). Size and Retry stay as made.
func (c *Cache) Tune(cfg CacheConfig) {
	cfg.defaults()
	c.ttl.Store(int64(cfg.TTL))
	c.maxStale.Store(int64(cfg.MaxStale))
	c.timeout.Store(int64(cfg.Timeout))
}

// Lookup answers from memory when it can, and otherwise asks the store, within the timeout.
func (c *Cache) Lookup(ctx context.Context, h Hash) (*Key, error) {
	now := c.now()
	ttl := time.Duration(c.ttl.Load())
	e, known := c.lru.Get(h)
	if known && now.Sub(e.at) >= ttl+time.Duration(c.maxStale.Load()) {
		c.lru.Remove(h)
		known = false
	}
	if known && now.Sub(e.at) < ttl {
		return e.result()
	}
	if !c.breaker.Use(now) {
		// The store failed a moment ago; the next probe is not due yet.
		if known {
			return e.result()
		}
		return nil, ErrUnavailable
	}
	k, err := c.fetch(ctx, h)
	if err == nil || errors.Is(err, ErrNotFound) {
		return k, err
	}
	if known {
		return e.result()
	}
	return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
}

// fetch waits for the query of h, starting it when none is running. The query runs under
// its own timeout and not the caller's context, so a caller that gives up does not waste
// the answer for the others, and the answer still reaches the cache.
func (c *Cache) fetch(ctx context.Context, h Hash) (*Key, error) {
	c.mu.Lock()
	f, ok := c.inflight[h]
	if !ok {
		f = &fetch{done: make(chan struct{})}
		c.inflight[h] = f
		go c.query(context.WithoutCancel(ctx), h, f)
	}
	c.mu.Unlock()
	// Also bounded here, for a store that does not heed its context.
	wait := time.NewTimer(time.Duration(c.timeout.Load()))
	defer wait.Stop()
	select {
	case <-f.done:
		return f.key, f.err
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-wait.C:
		c.breaker.Fail(c.now(), errTimeout)
		return nil, errTimeout
	}
}

var errTimeout = errors.New("no answer within the lookup timeout")

func (c *Cache) query(ctx context.Context, h Hash, f *fetch) {
	ctx, cancel := context.WithTimeout(ctx, time.Duration(c.timeout.Load()))
	defer cancel()
	k, err := c.Store.Lookup(ctx, h)
	now := c.now()
	switch {
	case err == nil:
		c.lru.Add(h, entry{key: k, at: now})
		c.breaker.Succeed()
	case errors.Is(err, ErrNotFound):
		k = nil
		c.lru.Add(h, entry{at: now})
		c.breaker.Succeed()
	default:
		// The error names the store and the key id at most, never the secret.
		c.breaker.Fail(now, err)
	}
	c.mu.Lock()
	delete(c.inflight, h)
	c.mu.Unlock()
	f.key, f.err = k, err
	close(f.done)
}

// Revoke also forgets the key here at once, for the process that revokes it.
func (c *Cache) Revoke(ctx context.Context, id string, at time.Time) error {
	err := c.Store.Revoke(ctx, id, at)
	c.lru.Purge()
	return err
}
