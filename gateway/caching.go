package gateway

import (
	"net/http"

	"github.com/adreswijzer/adreswijzer/gateway/answercache"
	"github.com/adreswijzer/adreswijzer/gateway/versions"
)

// CacheHeader tells the caller whether a lookup was answered from the gateway's cache.
const CacheHeader = "X-Cache"

// Observe learns the dataset version from an answer of the routed country.
func (g *Gateway) Observe(d *Decision, h http.Header) {
	if g.Versions == nil || d.Country == "" {
		return
	}
	if v := h.Get(versions.Header); v != "" {
		g.Versions.Observe(d.Country, v)
	}
}

// Cached returns the stored answer for a cacheable lookup, if one of the current dataset
// version exists.
func (g *Gateway) Cached(d *Decision) (*answercache.Entry, bool) {
	if d.Cache == nil {
		return nil, false
	}
	v := g.Versions.Current(d.Country)
	if v == "" {
		return nil, false
	}
	return g.Cache.Get(d.Cache.Key(v))
}

// Store keeps a 200 answer of a cacheable lookup, under the version it names, when that is
// the current version (answers of an older version, from a worker not yet updated, would
// never be served).
func (g *Gateway) Store(d *Decision, h http.Header, body []byte) {
	if d.Cache == nil {
		return
	}
	v := h.Get(versions.Header)
	if v == "" || v != g.Versions.Current(d.Country) {
		return
	}
	keep := make(http.Header, 4)
	for _, k := range storedHeaders {
		if vs := h.Values(k); len(vs) > 0 {
			keep[k] = append([]string(nil), vs...)
		}
	}
	g.Cache.Put(d.Cache.Key(v), &answercache.Entry{Header: keep, Body: append([]byte(nil), body...)})
}

// storedHeaders are the worker's headers that belong to the answer itself, including the
// ones that keep browsers and proxies from storing or reinterpreting an answer about a
// person's address; CORS and connection headers are set per request.
var storedHeaders = []string{"Content-Type", "Content-Language", "Cache-Control",
	"X-Content-Type-Options", versions.Header}
