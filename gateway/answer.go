package gateway

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/adreswijzer/adreswijzer"

	"github.com/adreswijzer/adreswijzer/gateway/cache"
	"github.com/adreswijzer/adreswijzer/gateway/versions"
)

// CacheHeader tells the caller whether a lookup was answered from the gateway's cache.
const CacheHeader = "X-Cache"

// exposed are the answer headers a page may read: how long to wait, which register
// version answered, and whether the cache did.
const exposed = "Retry-After, X-Dataset-Version, X-Cache"

// SetCORS adds the CORS headers of an answer (answers and refusals alike).
func SetCORS(h http.Header, d *Decision) {
	if d.Route.browser() {
		// The answer differs by Origin (the allow header), so shared caches must key on it.
		h.Add("Vary", "Origin")
	}
	if d.Origin != "" {
		h.Set("Access-Control-Allow-Origin", d.Origin)
		h.Set("Access-Control-Expose-Headers", exposed)
	}
}

// preflightMaxAge lets a browser reuse a preflight for ten minutes.
const preflightMaxAge = 600

// WritePreflight answers an OPTIONS preflight. A preflight carries no credential, so it
// cannot be checked against a key's allowed origins; it is answered for any well-formed
// origin, and the actual request, which carries the key, is refused with 403 FORBIDDEN when
// its origin is not allowed. That refusal carries CORS headers for its origin, so that the
// embedded form can read it and tell the shopper the form is not available on this site,
// where a refused preflight would leave it with a bare network error. Nothing leaks by it:
// the page already holds the publishable key (keys are public by design), the refusal names
// no allowed origin, and no register data is in it. A platform's session token is
// accepted from any origin (see Principal.Browser), so its calls get the headers this
// preflight promised; a secret key's do not, and the browser keeps their answers from the
// page.
func WritePreflight(w http.ResponseWriter, d *Decision) {
	h := w.Header()
	SetCORS(h, d)
	h.Set("Access-Control-Allow-Methods", "GET, POST")
	h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type")
	h.Set("Access-Control-Max-Age", strconv.Itoa(preflightMaxAge))
	h.Add("Vary", "Access-Control-Request-Method")
	h.Add("Vary", "Access-Control-Request-Headers")
	w.WriteHeader(http.StatusNoContent)
}

// WriteHealthDown answers GET /health when no worker answered it in time: 503 with the
// health body (status degraded, database down), as the spec gives /health when the register
// is unreachable, so that monitors and load balancers read one shape whatever failed. No
// dataset is listed: none can be said to be served while no worker answers; the gateway's
// last known versions would pass for live ones.
func WriteHealthDown(w http.ResponseWriter, now time.Time) {
	body, _ := json.Marshal(adreswijzer.HealthResponse{Status: "degraded", Database: "down",
		Datasets: []adreswijzer.DatasetStatus{}, CheckedAt: now.UTC().Format(time.RFC3339)}) // plain values; cannot fail
	body = append(body, '\n')
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusServiceUnavailable)
	_, _ = w.Write(body)
}

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
func (g *Gateway) Cached(d *Decision) (*cache.Entry, bool) {
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
	g.Cache.Put(d.Cache.Key(v), &cache.Entry{Header: keep, Body: append([]byte(nil), body...)})
}

// storedHeaders are the worker's headers that belong to the answer itself, including the
// ones that keep browsers and proxies from storing or reinterpreting an answer about a
// person's address; CORS and connection headers are set per request.
var storedHeaders = []string{"Content-Type", "Content-Language", "Cache-Control",
	"X-Content-Type-Options", versions.Header}
