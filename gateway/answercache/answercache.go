// Package answercache keeps recent lookup answers in the gateway, because the hop to a worker
// costs about ten times what the worker spends on a lookup (see the performance
// baselines), and checkout forms repeat the same postcode and number while a person types.
//
// Only lookups are cached: their answer depends on nothing but the query and the dataset
// version. The version is part of every key, so once the gateway knows a new version no
// entry of the old one can match; old entries age out on their own.
//
// It is the gateway's cache, of whole answers. A worker backed by Postgres has its own, of
// register addresses in front of the database (store/addresscache).
package answercache

import (
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hashicorp/golang-lru/v2/expirable"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/internal/query"
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

// lookupParam reports whether k is a parameter a lookup answer depends on, or sessionId,
// which only counting uses.
func lookupParam(k string) bool {
	switch k {
	case "postcode", "number", "street", "lang", "carrier", "sessionId":
		return true
	}
	return false
}

// ParseQuery reads a lookup's query string. It refuses (ok false) anything it is not sure
// the answer depends on only through the normalised fields: unknown or repeated parameters,
// and every parameter the worker would refuse as sent (worker/httpapi's rules: number of 1 to
// 6 ASCII digits, lang and carrier exactly one of their enum values, postcode and street at
// most 200 characters, a Belgian street not empty). The key folds only what the worker
// itself accepts in several forms (a postcode's spacing and letter case, a Belgian street's
// case and spacing); were a form the worker refuses to share the key of one it answered, the
// cache would answer 200, and count it, where the worker answers 422.
func ParseQuery(c adreswijzer.Country, q *query.Values) (Query, bool) {
	all := q.All()
	for i, p := range all {
		if !lookupParam(p.Key) {
			return Query{}, false
		}
		for _, o := range all[:i] {
			if o.Key == p.Key {
				return Query{}, false
			}
		}
	}
	postcode := q.Get("postcode")
	if tooLong(postcode) {
		return Query{}, false
	}
	pc, err := adreswijzer.NormalizePostcode(c, postcode)
	if err != nil {
		// Malformed postcodes are rare and answered with an issue; not worth a cache entry.
		return Query{}, false
	}
	number := q.Get("number")
	street, hasStreet := q.Lookup("street")
	lang, hasLang := q.Lookup("lang")
	carrier, hasCarrier := q.Lookup("carrier")
	session, hasSession := q.Lookup("sessionId")
	switch {
	case !houseNumber(number),
		hasStreet && tooLong(street),
		c == adreswijzer.BE && street == "",
		hasLang && !exactLanguage(lang),
		hasCarrier && !exactCarrier(carrier),
		hasSession && !adreswijzer.ValidSessionID(session):
		return Query{}, false
	}
	// Absent parameters are "" here, as they are in the Query.
	out := Query{Country: c, Postcode: pc, Number: number, Lang: lang, Carrier: carrier}
	if hasStreet {
		if c == adreswijzer.BE {
			// Belgian lookups match the street by name; case and spacing do not change the match.
			out.Street = strings.ToLower(strings.Join(strings.Fields(street), " "))
		} else {
			out.Street = strings.TrimSpace(street)
		}
	}
	return out, true
}

// houseNumber is the worker's rule for number: 1 to 6 ASCII digits, nothing around them.
func houseNumber(s string) bool {
	if s == "" || len(s) > adreswijzer.MaxNumberDigits {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// exactLanguage and exactCarrier accept only the enum's values as written: the worker
// refuses "NL" or " nl" where it takes "nl".
func exactLanguage(s string) bool {
	l, ok := adreswijzer.ParseLanguage(s)
	return ok && string(l) == s
}

func exactCarrier(s string) bool {
	k, ok := adreswijzer.ParseCarrier(s)
	return ok && string(k) == s
}

// tooLong counts characters as the worker (and JSON Schema's maxLength) does: code points.
func tooLong(s string) bool {
	return len(s) > adreswijzer.MaxFieldLength && utf8.RuneCountInString(s) > adreswijzer.MaxFieldLength
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
