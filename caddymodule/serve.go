package caddymodule

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/adreswijzer/adreswijzer/gateway"
	"github.com/adreswijzer/adreswijzer/gateway/apierr"
)

// ServeHTTP applies the gateway's decision, in phases: the gateway decides within the
// request's deadline; what it answers itself (refusals, preflights, its own pages, cache
// hits) is answered here; the rest goes to the next handler (reverse_proxy to the workers),
// and the call is settled by the answer that came back (see finalizeResponse).
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	clientCtx := r.Context()
	ctx, cancel := context.WithTimeout(clientCtx, h.timeoutOf(r))
	defer cancel()
	clientIP, _ := caddyhttp.GetVar(clientCtx, caddyhttp.ClientIPVarKey).(string)
	d, refusal := h.decide(ctx, w, r, clientIP)
	gateway.SetCORS(w.Header(), d)
	switch {
	case refusal != nil:
		apierr.Write(w, refusal)
		return nil
	case d.Preflight:
		gateway.WritePreflight(w, d)
		return nil
	case d.Answer != nil:
		d.Answer.ServeHTTP(w, r.WithContext(gateway.WithClientIP(clientCtx, clientIP)))
		return nil
	}
	setVars(r, d)
	if h.fromCache(clientCtx, w, d) {
		return nil
	}
	return h.proxy(clientCtx, w, forUpstream(r.WithContext(ctx)), d, next)
}

// timeoutOf is how long r may take from its arrival, whatever it waits on (the key store,
// the usage totals, Redis, the workers): a person may be waiting on a data call, which must
// answer quickly or not at all; an agent's batch takes seconds.
func (h *Handler) timeoutOf(r *http.Request) time.Duration {
	if route, _ := gateway.Classify(r.Method, r.URL.Path); route == gateway.RouteAgent {
		return h.agentTimeout
	}
	return h.timeout
}

// decide has the gateway decide on r with the body read under ctx's deadline (Decide reads
// a POST's body whole): a caller that sends its headers and then trickles or withholds the
// body would otherwise hold the request until the server's read timeout. The read deadline
// is lifted once the body is in: while it stands, its passing under net/http's background
// read would cancel the request's context as if the caller had left. Caddy wraps every
// request's body, even a GET's absent one, so it is the length that says whether one comes
// (-1: chunked, of unknown length).
func (h *Handler) decide(ctx context.Context, w http.ResponseWriter, r *http.Request, clientIP string) (*gateway.Decision, *apierr.Error) {
	var rc *http.ResponseController
	if r.ContentLength != 0 && r.Body != nil && r.Body != http.NoBody {
		deadline, _ := ctx.Deadline()
		if rc = http.NewResponseController(w); rc.SetReadDeadline(deadline) != nil {
			rc = nil
		}
	}
	d, refusal := h.gw.Decide(ctx, r, clientIP)
	if rc != nil {
		_ = rc.SetReadDeadline(time.Time{})
	}
	return d, refusal
}

// setVars gives the handlers after this one the route and the routed country, for their
// matchers (see RouteVar and CountryVar).
func setVars(r *http.Request, d *gateway.Decision) {
	caddyhttp.SetVar(r.Context(), RouteVar, d.Route.String())
	if d.Country != "" {
		caddyhttp.SetVar(r.Context(), CountryVar, d.Country.Lower())
	}
}

// fromCache answers a cacheable lookup from the answer cache when it holds one of the
// current register version, and marks the answer to come as a miss otherwise.
func (h *Handler) fromCache(ctx context.Context, w http.ResponseWriter, d *gateway.Decision) bool {
	if d.Cache == nil {
		return false
	}
	e, ok := h.gw.Cached(d)
	if !ok {
		w.Header().Set(gateway.CacheHeader, "MISS")
		return false
	}
	hdr := w.Header()
	for k, v := range e.Header {
		hdr[k] = slices.Clip(v) // shared by every hit: an Add must not write into it
	}
	hdr.Set(gateway.CacheHeader, "HIT")
	hdr.Set("Content-Length", strconv.Itoa(len(e.Body)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(e.Body)
	h.gw.Finish(ctx, d, http.StatusOK)
	return true
}

// forUpstream keeps what no worker needs and no log line may print out of r. Caddy's own
// log lines about the request from here on print r.RequestURI, and a query holds what a
// customer typed: reverse_proxy's "aborting with incomplete response" (WARN) when a
// worker's answer breaks off, its debug lines. The handlers after this one build what they
// send from r.URL (reverse_proxy's upstream request, the {http.request.uri*} placeholders),
// so the path alone is kept here; lb_policy uri_hash, which reads it, hashes the path
// alone. Caddy's lines with the request as it arrived are the access log, which the
// Caddyfile filters, and the error log of a handler error, which never comes: this handler
// answers every failure itself and returns no error. Those lines print the request's
// headers as well, and a Referer is the page the caller came from, whose URL may hold a
// checkout's address fields; a Cookie is the caller's session with a shop. No worker needs
// either, so neither goes on, whatever the Caddyfile's header_up lines say.
func forUpstream(r *http.Request) *http.Request {
	r.RequestURI = r.URL.EscapedPath()
	for _, k := range strippedHeaders {
		r.Header.Del(k)
	}
	return r
}

// strippedHeaders are request headers no worker needs and no log line may print (see
// forUpstream).
var strippedHeaders = []string{"Referer", "Cookie"}
