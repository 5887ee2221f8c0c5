package keys

import (
	"context"
	"errors"
	"time"

	"github.com/hashicorp/golang-lru/v2/expirable"
)

// ErrNotFound: no key with this hash or id.
var ErrNotFound = errors.New("key not found")

// Store keeps keys. FileStore is the embedded default; the gateway's Postgres package
// provides one for deployments with several gateways.
type Store interface {
	// Lookup finds a key by the hash of its credential, revoked keys included (the caller
	// refuses those), or returns ErrNotFound.
	Lookup(ctx context.Context, h Hash) (*Key, error)
	Create(ctx context.Context, k *Key) error
	// List returns every key, oldest first.
	List(ctx context.Context) ([]*Key, error)
	// Revoke marks the key revoked at the time given, or returns ErrNotFound.
	Revoke(ctx context.Context, id string, at time.Time) error
}

// Cache keeps recent lookups of a remote store in memory, because a database round trip per
// request would cost as much as the request itself. A revocation takes effect once the
// entry expires. Unknown hashes are remembered too, so that a client repeating a wrong key
// does not reach the database each time.
type Cache struct {
	Store
	lru *expirable.LRU[Hash, *Key]
}

// NewCache wraps s. The LRU starts a goroutine that cannot be stopped: create one Cache per
// store per process.
func NewCache(s Store, size int, ttl time.Duration) *Cache {
	return &Cache{Store: s, lru: expirable.NewLRU[Hash, *Key](size, nil, ttl)}
}

// Lookup answers from memory when it can.
func (c *Cache) Lookup(ctx context.Context, h Hash) (*Key, error) {
	if k, ok := c.lru.Get(h); ok {
		if k == nil {
			return nil, ErrNotFound
		}
		return k, nil
	}
	k, err := c.Store.Lookup(ctx, h)
	switch {
	case errors.Is(err, ErrNotFound):
		c.lru.Add(h, nil)
	case err == nil:
		c.lru.Add(h, k)
	}
	return k, err
}

// Revoke also forgets the key here at once, for the process that revokes it.
func (c *Cache) Revoke(ctx context.Context, id string, at time.Time) error {
	err := c.Store.Revoke(ctx, id, at)
	c.lru.Purge()
	return err
}
