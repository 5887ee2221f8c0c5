// Package cache keeps recent lookup answers in the gateway, because the hop to a worker
// costs about ten times what the worker spends on a lookup (see the performance
// baselines), and checkout forms repeat the same postcode and number while a person types.
//
// Only lookups are cached: their answer depends on nothing but the query and the dataset
// version. The version is part of every key, so once the gateway knows a new version no
// entry of the old one can match; old entries age out on their own.
package cache

import (
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/hashicorp/golang-lru/v2/expirable"

	"github.com/adreswijzer/adreswijzer"
)

// Entry is one stored answer (always a 200).
type Entry struct {
	Header http.Header
	Body   []byte
}

// MaxEntryBytes keeps single huge answers out; a lookup answer is a few kilobytes.
const MaxEntryBytes = 256 << 10

// Cache is an LRU with one TTL.
type Cache struct {
	lru *expirable.LRU[string, *Entry]
}

// New makes a cache of up to size entries kept up to ttl. The LRU starts a goroutine that
// cannot be stopped: make one per process (or per pooled configuration), not per reload.
func New(size int, ttl time.Duration) *Cache {
	return &Cache{lru: expirable.NewLRU[string, *Entry](size, nil, ttl)}
}

// Get returns the entry under key.
func (c *Cache) Get(key string) (*Entry, bool) { return c.lru.Get(key) }

// Put stores an entry; entries over MaxEntryBytes are not stored.
func (c *Cache) Put(key string, e *Entry) {
	if len(e.Body) <= MaxEntryBytes {
		c.lru.Add(key, e)
	}
}

// Len is the number of entries.
func (c *Cache) Len() int { return c.lru.Len() }

// Query is a lookup in normalised form: two queries the worker answers alike have the same
// Query.
type Query struct {
	Country                                 adreswijzer.Country
	Postcode, Number, Street, Lang, Carrier string
}

// lookupParams are the parameters a lookup answer depends on, plus sessionId, which
// only counting uses.
var lookupParams = map[string]bool{
	"postcode": true, "number": true, "street": true, "lang": true, "carrier": true, "sessionId": true,
}

// ParseQuery reads a lookup's query string. It refuses (ok false) anything it is not sure
// the answer depends on only through the normalised fields: unknown or repeated parameters.
func ParseQuery(c adreswijzer.Country, q url.Values) (Query, bool) {
	for k, v := range q {
		if !lookupParams[k] || len(v) != 1 {
			return Query{}, false
		}
	}
	pc, err := adreswijzer.NormalizePostcode(c, q.Get("postcode"))
	if err != nil {
		// Malformed postcodes are rare and answered with an issue; not worth a cache entry.
		return Query{}, false
	}
	out := Query{
		Country:  c,
		Postcode: pc,
		Number:   strings.TrimSpace(q.Get("number")),
		Lang:     strings.ToLower(strings.TrimSpace(q.Get("lang"))),
		Carrier:  strings.ToLower(strings.TrimSpace(q.Get("carrier"))),
	}
	street := q.Get("street")
	if c == adreswijzer.BE {
		// Belgian lookups match the street by name; case and spacing do not change the match.
		out.Street = strings.ToLower(strings.Join(strings.Fields(street), " "))
	} else {
		out.Street = strings.TrimSpace(street)
	}
	return out, true
}

// Key is the cache key of q answered from dataset version v.
func (q Query) Key(version string) string {
	var b strings.Builder
	b.Grow(len(version) + len(q.Postcode) + len(q.Number) + len(q.Street) + len(q.Lang) + len(q.Carrier) + 10)
	for i, s := range [...]string{version, string(q.Country), q.Postcode, q.Number, q.Street, q.Lang, q.Carrier} {
		if i > 0 {
			b.WriteByte(0)
		}
		b.WriteString(s)
	}
	return b.String()
}
