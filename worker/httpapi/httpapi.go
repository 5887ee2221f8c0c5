// Package httpapi is the register worker's REST interface: the handlers of /v1, /health,
// /openapi.json and /docs, exactly as openapi.json describes them, in front of the matching
// engine.
//
// Three promises shape it. Callers fail open, so every data request runs under a deadline
// well inside their 1.5 s budget and a store that does not answer turns into 503 at once,
// never into a hanging connection. Nothing submitted is kept: the access log and the metrics
// carry the method, the route pattern, the status and the duration, never a path, a query
// or a body. And input is judged before the engine sees it: a parameter the document does
// not allow is 422 naming the parameter, never its value.
package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/worker/match"
)

// DefaultRequestTimeout leaves a caller with a 1.5 s budget the time for the gateway, the
// network and a 503 to travel back before it gives up on its own.
const DefaultRequestTimeout = 800 * time.Millisecond

// DefaultHealthTimeout answers /health well inside the gateway's 500 ms health timeout.
const DefaultHealthTimeout = 300 * time.Millisecond

// DefaultSlowRequest is an eighth of the request deadline: the memory store answers in a
// fraction of a millisecond and Postgres in a few, so an answer this late means a register,
// a database or the machine is in trouble well before callers start to get 503s.
const DefaultSlowRequest = 100 * time.Millisecond

// Options configure the handler; the zero value serves with the defaults.
type Options struct {
	// RequestTimeout bounds each data request; DefaultRequestTimeout when zero.
	RequestTimeout time.Duration
	// HealthTimeout bounds the database check of /health; DefaultHealthTimeout when zero.
	// It is shorter than a data request's deadline so that the gateway's health checks
	// (500 ms) read a 503 from a worker whose database hangs, rather than time out.
	HealthTimeout time.Duration
	// Logger receives the access log and faults; slog.Default() when nil.
	Logger *slog.Logger
	// LogEvery writes an access log line for every request. Without it a line is written
	// only for what needs an operator: a fault or an unavailable register (any 5xx) and an
	// answer slower than SlowRequest. Every request already has its line in the gateway's
	// access log and is counted in the metrics by route, method, status and duration, so a
	// second line per request here would add nothing an operator reads, yet cost the
	// worker a formatted record per request and its log a line per request.
	LogEvery bool
	// SlowRequest is the duration beyond which a request is logged even without LogEvery;
	// DefaultSlowRequest when zero.
	SlowRequest time.Duration
	// Registry receives the request metrics; the handler keeps a registry of its own when
	// nil (then only MetricsPath can show them).
	Registry *prometheus.Registry
	// MetricsPath serves Registry in Prometheus' text format on this path of the handler
	// itself (e.g. "/metrics"). Leave it empty when the metrics are served on a listener of
	// their own, so that they are not reachable wherever the API is.
	MetricsPath string
	// MCP is the agent interface, mounted at /mcp. It runs without the request deadline
	// (its batch tool takes longer than one lookup and keeps its own limits); the access
	// log, metrics and panic recovery apply. Without it /mcp is 404.
	MCP http.Handler
	// InMemory says the store answers from memory and never waits on I/O (the embedded
	// default): computations then run on the request's goroutine, still under the deadline.
	// Leave it false for Postgres, whose calls may hang past any deadline.
	InMemory bool
	// LookupCache is the number of lookup answers kept whole, to answer the same question
	// again within one activation of the register without the engine (DefaultLookupCache
	// is the worker's default); 0 keeps none.
	LookupCache int
}

// Handler serves the worker's HTTP interface. It is safe for concurrent use.
type Handler struct {
	engine        *match.Engine
	store         adreswijzer.Store
	timeout       time.Duration
	healthTimeout time.Duration
	inMemory      bool
	log           *slog.Logger
	logEvery      bool
	slowRequest   time.Duration
	metrics       *metrics
	lookups       *lookupCache // nil without a cache
	routes        map[string]*route
	generic       *route // /v1/{country}/lookup
	notFnd        *route // anything else
}

// route is one path of the interface: its pattern (the only form of the path that reaches
// logs and metrics) and a handler per method.
type route struct {
	pattern string
	get     func(w http.ResponseWriter, r *http.Request, p pathParams)
	post    func(w http.ResponseWriter, r *http.Request, p pathParams)
	any     http.Handler // serves every method itself (/mcp, /metrics)
	allow   string
}

// pathParams carries what a route pattern captured; only the generic lookup captures.
type pathParams struct{ country string }

// New returns the handler over engine, which must answer from store (health pings the
// store and lists its datasets).
func New(engine *match.Engine, store adreswijzer.Store, opts Options) *Handler {
	if opts.RequestTimeout <= 0 {
		opts.RequestTimeout = DefaultRequestTimeout
	}
	if opts.HealthTimeout <= 0 {
		opts.HealthTimeout = DefaultHealthTimeout
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.SlowRequest <= 0 {
		opts.SlowRequest = DefaultSlowRequest
	}
	if opts.Registry == nil {
		opts.Registry = prometheus.NewRegistry()
	}
	h := &Handler{
		engine:        engine,
		store:         store,
		timeout:       opts.RequestTimeout,
		healthTimeout: opts.HealthTimeout,
		inMemory:      opts.InMemory,
		log:           opts.Logger,
		logEvery:      opts.LogEvery,
		slowRequest:   opts.SlowRequest,
		metrics:       newMetrics(opts.Registry),
		lookups:       newLookupCache(engine, opts.LookupCache, opts.Registry),
		routes:        make(map[string]*route),
	}
	h.add(&route{pattern: "/health", get: h.health})
	h.add(&route{pattern: "/openapi.json", get: serveOpenAPI})
	h.add(&route{pattern: "/docs", get: serveDocs})
	for _, c := range adreswijzer.Countries {
		h.add(&route{pattern: "/v1/" + c.Lower() + "/lookup",
			get:  func(w http.ResponseWriter, r *http.Request, _ pathParams) { h.lookupGET(w, r, c.Lower(), false) },
			post: func(w http.ResponseWriter, r *http.Request, _ pathParams) { h.lookupPOST(w, r, c) }})
	}
	h.generic = &route{pattern: "/v1/{country}/lookup",
		get: func(w http.ResponseWriter, r *http.Request, p pathParams) { h.lookupGET(w, r, p.country, true) }}
	h.generic.allow = allowOf(h.generic)
	h.add(typeaheadRoute(h, "/v1/suggest", h.suggest, finishSuggest))
	h.add(typeaheadRoute(h, "/v1/autocomplete", h.autocomplete, finishAutocomplete))
	h.add(&route{pattern: "/v1/validate", post: h.validate})
	if opts.MCP != nil {
		h.add(&route{pattern: "/mcp", any: opts.MCP})
	}
	if opts.MetricsPath != "" {
		h.add(&route{pattern: opts.MetricsPath, any: promhttp.HandlerFor(opts.Registry, promhttp.HandlerOpts{})})
	}
	h.notFnd = &route{pattern: "unmatched"}
	return h
}

func (h *Handler) add(rt *route) {
	rt.allow = allowOf(rt)
	h.routes[rt.pattern] = rt
}

// allowOf lists the methods of a route for the Allow header of a 405. HEAD goes with GET,
// as net/http and RFC 9110 have it.
func allowOf(rt *route) string {
	var m []string
	if rt.get != nil {
		m = append(m, http.MethodGet, http.MethodHead)
	}
	if rt.post != nil {
		m = append(m, http.MethodPost)
	}
	return strings.Join(m, ", ")
}

// match finds the route of a path. Paths are compared as they are, without cleaning or
// redirects: a client that sends "/v1//validate" gets 404, not a 301 the document does
// not have. "/v1//lookup" is the generic lookup with an empty country, as the contract
// check routes it, and so a 422.
func (h *Handler) match(path string) (*route, pathParams) {
	if rt, ok := h.routes[path]; ok {
		return rt, pathParams{}
	}
	if rest, ok := strings.CutPrefix(path, "/v1/"); ok {
		if country, ok := strings.CutSuffix(rest, "/lookup"); ok && !strings.Contains(country, "/") {
			return h.generic, pathParams{country: country}
		}
	}
	return h.notFnd, pathParams{}
}

// ServeHTTP routes the request, and logs and counts it by its route pattern.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	rt, params := h.match(r.URL.Path)
	rec := &recorder{ResponseWriter: w, route: rt.pattern}
	defer h.finish(rec, r, rt, start)
	switch {
	case rt.any != nil:
		rt.any.ServeHTTP(rec, r)
	case rt == h.notFnd:
		writeError(rec, http.StatusNotFound, adreswijzer.ErrNotFound, adreswijzer.LangEN, "")
	case (r.Method == http.MethodGet || r.Method == http.MethodHead) && rt.get != nil:
		rt.get(rec, r, params)
	case r.Method == http.MethodPost && rt.post != nil:
		rt.post(rec, r, params)
	default:
		rec.Header().Set("Allow", rt.allow)
		writeMethodNotAllowed(rec, rt.allow)
	}
}

// finish recovers a panic of the handler into 500 (when nothing was written yet), counts the
// request in the metrics and writes its access log line (see Options.LogEvery). The panic
// value is not logged unless the runtime made it: a value a handler panicked with may hold
// what the caller sent.
func (h *Handler) finish(rec *recorder, r *http.Request, rt *route, start time.Time) {
	if p := recover(); p != nil {
		if p == http.ErrAbortHandler {
			panic(p)
		}
		h.logPanic(rec, p, debug.Stack())
		if !rec.wrote {
			writeError(rec, http.StatusInternalServerError, adreswijzer.ErrInternal, adreswijzer.LangEN, "")
		}
	}
	status := rec.status
	if status == 0 {
		status = http.StatusOK
	}
	d := time.Since(start)
	h.metrics.observe(rt.pattern, method(r.Method), status, d)
	level := slog.LevelInfo
	switch {
	case status >= 500 && status != http.StatusServiceUnavailable:
		level = slog.LevelError
	case status == http.StatusServiceUnavailable:
		level = slog.LevelWarn
	case !h.logEvery && d <= h.slowRequest:
		return
	}
	attrs := []slog.Attr{
		slog.String("method", method(r.Method)),
		slog.String("route", rt.pattern),
		slog.Int("status", status),
		slog.Float64("durationMs", float64(d.Microseconds())/1000),
	}
	if rec.err != nil {
		attrs = append(attrs, slog.String("err", rec.err.Error()))
	}
	h.log.LogAttrs(context.Background(), level, "request", attrs...)
}

// recorder notes the status and whether anything was written, for the log, the metrics
// and panic recovery.
type recorder struct {
	http.ResponseWriter
	route  string
	status int
	wrote  bool
	err    error // why the answer is an error, for the log line
}

func (r *recorder) WriteHeader(code int) {
	if !r.wrote {
		r.status, r.wrote = code, true
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if !r.wrote {
		r.status, r.wrote = http.StatusOK, true
	}
	return r.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection (flushes, deadlines), which the
// agent interface's event streams need.
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// Flush passes flushes on for handlers that test for http.Flusher directly.
func (r *recorder) Flush() {
	if !r.wrote {
		r.status, r.wrote = http.StatusOK, true
	}
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}
