// Package query reads a URL's query string as net/url does, without building a map.
//
// The gateway and the worker read a handful of named parameters of every request, and the
// gateway looks at every parameter once (for credentials in the URL); url.Values would cost
// a map and a slice per parameter on each request, a visible share of either's cost. The
// pairs of a short query are kept inline, so that a Values on the stack allocates nothing,
// and the strings are those of the raw query unless a parameter is escaped.
package query

import (
	"net/url"
	"strings"
)

// inline is the most pairs kept without an allocation: a lookup has at most six parameters.
const inline = 16

// Pair is one parameter as it appears in the query, unescaped.
type Pair struct{ Key, Value string }

// Values are the parameters of a query string, in their order. The pairs of a short query
// are in buf (a slice of it kept here would make every Values escape to the heap), those
// of a long one in long.
type Values struct {
	buf  [inline]Pair
	n    int
	long []Pair
}

// sameAsNetURL reports whether a query of inline parameters is one url.ParseQuery reads
// in full: it refuses queries over a limit that a GODEBUG setting can lower to below inline,
// and a Values must then see what url.Values sees (nothing) and not more.
var sameAsNetURL = func() bool {
	_, err := url.ParseQuery(strings.Repeat("a&", inline-1) + "a")
	return err == nil
}()

// Parse reads raw as url.ParseQuery does, keeping the parameters it keeps (it drops a pair
// with an unescaped semicolon or a bad escape, and everything past its parameter limit).
func (v *Values) Parse(raw string) {
	v.n, v.long = 0, nil
	if raw == "" {
		return
	}
	if !sameAsNetURL || strings.Count(raw, "&") >= inline {
		v.fromNetURL(raw)
		return
	}
	for raw != "" {
		var kv string
		kv, raw, _ = strings.Cut(raw, "&")
		if kv == "" || strings.Contains(kv, ";") {
			continue
		}
		k, val, _ := strings.Cut(kv, "=")
		k, err := url.QueryUnescape(k)
		if err != nil {
			continue
		}
		if val, err = url.QueryUnescape(val); err != nil {
			continue
		}
		v.buf[v.n] = Pair{k, val} // fewer than inline separators: at most inline pairs
		v.n++
	}
}

// fromNetURL leaves a long query to net/url, which also applies its parameter limit. The
// order of keys is lost (a map has none) but not that of a key's values, which is what Get
// and Lookup depend on.
func (v *Values) fromNetURL(raw string) {
	m, _ := url.ParseQuery(raw) // as url.URL.Query: what could be read, errors aside
	v.long = make([]Pair, 0, len(m))
	for k, vs := range m {
		for _, val := range vs {
			v.long = append(v.long, Pair{k, val})
		}
	}
}

// All returns every parameter, a repeated one as often as it appears.
func (v *Values) All() []Pair {
	if v.long != nil {
		return v.long
	}
	return v.buf[:v.n]
}

// Get returns the first value of key, or "", as url.Values.Get.
func (v *Values) Get(key string) string {
	s, _ := v.Lookup(key)
	return s
}

// Lookup returns the first value of key and whether key appears at all.
func (v *Values) Lookup(key string) (first string, ok bool) {
	for _, p := range v.All() {
		if p.Key == key {
			return p.Value, true
		}
	}
	return "", false
}
