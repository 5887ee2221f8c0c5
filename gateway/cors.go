package gateway

import (
	"net/http"
	"strconv"

	"github.com/adreswijzer/adreswijzer/gateway/keys"
)

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

// corsOrigin returns the Origin to echo (exactly as the browser sent it, which is what the
// browser compares), or "" when it is not a well-formed origin.
func corsOrigin(origin string) string {
	if origin == "" {
		return ""
	}
	if _, err := keys.NormaliseOrigin(origin); err != nil {
		return ""
	}
	return origin
}

// originAllowed reports whether origin is one of a publishable key's origins, both
// normalised as keys stores them.
func originAllowed(allowed []string, origin string) bool {
	o, err := keys.NormaliseOrigin(origin)
	if err != nil {
		return false
	}
	for _, a := range allowed {
		if a == o {
			return true
		}
	}
	return false
}
