// Package caddymodule is the thin Caddy adapter of the gateway: the `adreswijzer` HTTP
// handler (module http.handlers.adreswijzer), its Caddyfile directive, the agent interface's
// extension (module http.handlers.adreswijzer.extensions.agent, `extension agent { … }`),
// and the `keys` subcommand of bin/gateway. All policy lives in the gateway packages; this
// package turns Caddy requests into gateway decisions and decisions into answers, and keeps
// the gateway's long-lived state across configuration reloads.
package caddymodule

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/adreswijzer/adreswijzer/gateway"
	"github.com/adreswijzer/adreswijzer/gateway/apierr"
	"github.com/adreswijzer/adreswijzer/gateway/backend"
	"github.com/adreswijzer/adreswijzer/gateway/limit"
	"github.com/adreswijzer/adreswijzer/gateway/oplog"
	"github.com/adreswijzer/adreswijzer/gateway/platform"
	"github.com/adreswijzer/adreswijzer/gateway/versions"
)

func init() {
	caddy.RegisterModule(Handler{})
}

// CountryVar is the Caddy variable that holds the routed country ("nl", "be", or unset),
// for matchers: `@nl vars adreswijzer.country nl`.
const CountryVar = "adreswijzer.country"

// RouteVar holds the route class (lookup, suggest, autocomplete, validate, agent, public).
const RouteVar = "adreswijzer.route"

// Handler authenticates, limits, counts and caches in front of the register workers. Put
// it before reverse_proxy; it answers refusals, preflights and cache hits itself, turns a
// failed proxy attempt into 503 SERVICE_UNAVAILABLE, and an error answer that is not the
// spec's ErrorResponse (a web server's or proxy's page) into the one of its status (502 and
// 504 into 503).
type Handler struct {
	// Postgres URL for keys and usage, shared by several gateways. Placeholders such as
	// {env.DATABASE_URL} are expanded; empty after expansion means the local files.
	DatabaseURL string `json:"database_url,omitempty"`
	// Key file when no database is used. Default ./var/keys.json.
	KeyFile string `json:"key_file,omitempty"`
	// Usage file when no database is used. Default ./var/usage.json.
	UsageFile string `json:"usage_file,omitempty"`
	// Account file of the dashboard when no database is used. Default ./var/accounts.json.
	AccountFile string `json:"account_file,omitempty"`
	// Redis URL for limits, sessions and counters shared by several gateways; empty after
	// expansion keeps them in memory.
	RedisURL string `json:"redis_url,omitempty"`
	// Prefix of every Redis key. Default "aw:".
	RedisPrefix string `json:"redis_prefix,omitempty"`
	// Longest wait for Redis before deciding locally. Default 50ms.
	RedisTimeout caddy.Duration `json:"redis_timeout,omitempty"`
	// Longest a request waits for Postgres (a key, an account's usage totals) before the
	// gateway decides on what it knows, or answers 503 for a key it does not know. Default
	// 250ms.
	StoreTimeout caddy.Duration `json:"store_timeout,omitempty"`
	// How long a key read from Postgres is trusted, and so how long a revocation takes to
	// reach every gateway. Default 10s.
	KeyCacheTTL caddy.Duration `json:"key_cache_ttl,omitempty"`
	// How long past key_cache_ttl a known key is still accepted while Postgres fails; a
	// negative value accepts none. Default 10m.
	KeyMaxStale caddy.Duration `json:"key_max_stale,omitempty"`

	// Rate limits per credential kind: live, test, pk_live, pk_test, platform, agent (agents
	// signed in with OAuth; per HTTP request, beside the agent extension's limits per tool
	// call). Unset kinds keep the defaults: live 50/s burst 100, test 5/s burst 10,
	// publishable 10/s burst 20 per key and client address, platform and agent 50/s burst 100.
	Limits map[string]Limit `json:"limits,omitempty"`
	// Monthly verifications per plan; -1 for unlimited. "free" is 2500 unless set.
	Plans map[string]int64 `json:"plans,omitempty"`
	// Plan whose quota applies to keys of an unknown plan. Default "free".
	DefaultPlan string `json:"default_plan,omitempty"`
	// Sent with QUOTA_EXCEEDED. Default: the dashboard's plans page when `extension
	// dashboard` is configured.
	UpgradeURL string `json:"upgrade_url,omitempty"`
	// Calls a day per test key. Default 100. On /mcp with the agent extension these are the
	// key's counted tool calls (a batch one per address), not its HTTP requests.
	TestDailyCap int `json:"test_daily_cap,omitempty"`
	// Idle time after which a session's next call counts again. Default 30m. Whatever the
	// idle time, a session covers at most 50 calls (usage.SessionCalls): the next call of
	// the same sessionId counts again, so that a sessionId kept for ever is not one
	// verification for any number of addresses. A validate ends its session, and the next call
	// of the sessionId counts again; the session is still remembered for the idle time, so
	// that the one validate with customerConfirmed right after it (the customer confirming
	// the address as typed) counts nothing instead of being a second verification.
	SessionIdle caddy.Duration `json:"session_idle,omitempty"`

	// Lookup answer cache. Default on: 10000 answers, 1h.
	Cache *CacheConfig `json:"cache,omitempty"`
	// Base or /health URLs of the workers, polled for dataset versions.
	Workers []string `json:"workers,omitempty"`
	// How often workers' health is polled. Default 1s.
	PollInterval caddy.Duration `json:"poll_interval,omitempty"`
	// Longest a data request takes, from its arrival, before the gateway answers 503 (the
	// caller then accepts the address as typed): reading the request body, waits on the
	// stores count toward it, and the workers get what is left. A body not received by then
	// is answered 400 BAD_REQUEST. Default 1s, inside the 1.5s the spec recommends callers
	// wait.
	UpstreamTimeout caddy.Duration `json:"upstream_timeout,omitempty"`
	// Longest a request to the agent interface (/mcp) takes, from its arrival. Default 12s:
	// a batch of 100 addresses takes seconds, and a worker gives up on one after 10s.
	AgentTimeout caddy.Duration `json:"agent_timeout,omitempty"`

	// E-commerce platforms whose session tokens are accepted on checkout routes.
	Platforms []PlatformConfig `json:"platforms,omitempty"`

	// Extensions add credential kinds and checks (module namespace
	// http.handlers.adreswijzer.extensions); they implement gateway.Extension.
	ExtensionsRaw []json.RawMessage `json:"extensions,omitempty" caddy:"namespace=http.handlers.adreswijzer.extensions inline_key=extension"`

	gw           *gateway.Gateway
	timeout      time.Duration
	agentTimeout time.Duration
	log          *slog.Logger
	ops          *oplog.Throttle // lines that may come with every request
	poolKeys     []string
}

// Limit is a rate rule: Rate calls per Period, Burst at once.
type Limit struct {
	Rate   int            `json:"rate"`
	Period caddy.Duration `json:"period,omitempty"` // default 1s
	Burst  int            `json:"burst,omitempty"`  // default Rate
}

// CacheConfig sizes the lookup cache.
type CacheConfig struct {
	Disabled bool           `json:"disabled,omitempty"`
	Size     int            `json:"size,omitempty"`
	TTL      caddy.Duration `json:"ttl,omitempty"`
}

// PlatformConfig registers our app on one e-commerce platform. Its session tokens are
// accepted from any web page, with CORS headers for the calling origin on answers and
// refusals: the platform's checkout extension calls from the shopper's browser, on an origin
// the platform chooses, and the signed, short-lived token is the credential.
type PlatformConfig struct {
	Name string `json:"name"`
	// App secret the platform signs session tokens with (HS256). Placeholders expanded.
	Secret string `json:"secret"`
	// The app's client id, required in the token's aud.
	Audience string `json:"audience"`
	// Account billed, when Shops is empty.
	Account string `json:"account,omitempty"`
	Plan    string `json:"plan,omitempty"`
	// Shop host to account; when set, only these shops are accepted.
	Shops map[string]string `json:"shops,omitempty"`
}

// CaddyModule returns the Caddy module information.
func (Handler) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.handlers.adreswijzer",
		New: func() caddy.Module { return new(Handler) },
	}
}

// Defaults of the adapter.
const (
	defaultCacheSize       = 10000
	defaultCacheTTL        = time.Hour
	defaultPollInterval    = time.Second
	defaultUpstreamTimeout = time.Second
	defaultAgentTimeout    = 12 * time.Second
)

// Provision builds the policy on state kept in pools across reloads, in phases: the
// backend (keys, usage, limits), the answer cache, the platforms, the extensions, then the
// gateway over them. What a phase took from the pools is released when a later one fails.
func (h *Handler) Provision(ctx caddy.Context) error {
	h.log = ctx.Slogger()
	h.ops = oplog.New(h.log, 0)
	repl := caddy.NewReplacer()
	expand := func(s string) string { return repl.ReplaceAll(s, "") }
	if err := h.provision(ctx, expand); err != nil {
		h.Cleanup()
		return fmt.Errorf("adreswijzer: %w", err)
	}
	h.timeout = defaultUpstreamTimeout
	if h.UpstreamTimeout > 0 {
		h.timeout = time.Duration(h.UpstreamTimeout)
	}
	h.agentTimeout = defaultAgentTimeout
	if h.AgentTimeout > 0 {
		h.agentTimeout = time.Duration(h.AgentTimeout)
	}
	return nil
}

// provision runs the phases of Provision; expand fills in placeholders.
func (h *Handler) provision(ctx caddy.Context, expand func(string) string) error {
	bcfg, err := h.backendConfig(expand)
	if err != nil {
		return err
	}
	be, key, err := loadBackend(bcfg)
	if err != nil {
		return err
	}
	h.poolKeys = append(h.poolKeys, key)
	be.Tune(bcfg)
	parts := partsOf(be, bcfg, h.log)
	if err := h.answerCache(expand, &parts); err != nil {
		return err
	}
	if parts.Platforms, err = h.platforms(expand); err != nil {
		return err
	}
	if parts.Extensions, err = h.extensions(ctx); err != nil {
		return err
	}
	cfg := h.policy(parts.Extensions)
	if err := attachExtensions(parts.Extensions, be, cfg); err != nil {
		return err
	}
	h.gw, err = gateway.New(cfg, parts)
	return err
}

// backendConfig is the configuration of the stores, placeholders expanded and files made
// absolute, so that a reload that names the same ones finds them in the pool.
func (h *Handler) backendConfig(expand func(string) string) (backend.Config, error) {
	bcfg := backend.Config{
		DatabaseURL:  expand(h.DatabaseURL),
		KeyFile:      expand(h.KeyFile),
		UsageFile:    expand(h.UsageFile),
		AccountFile:  expand(h.AccountFile),
		RedisURL:     expand(h.RedisURL),
		RedisPrefix:  h.RedisPrefix,
		RedisTimeout: time.Duration(h.RedisTimeout),
		SessionIdle:  time.Duration(h.SessionIdle),
		StoreTimeout: time.Duration(h.StoreTimeout),
		KeyCacheTTL:  time.Duration(h.KeyCacheTTL),
		KeyMaxStale:  time.Duration(h.KeyMaxStale),
		Log:          h.log,
	}
	for _, p := range []*string{&bcfg.KeyFile, &bcfg.UsageFile, &bcfg.AccountFile} {
		if *p != "" {
			abs, err := filepath.Abs(*p)
			if err != nil {
				return bcfg, err
			}
			*p = abs
		}
	}
	return bcfg, nil
}

// partsOf gives the gateway the backend's stores, and its Redis with the prefix and wait
// the backend uses, for the extensions that keep state of their own there.
func partsOf(be *backend.Backend, bcfg backend.Config, log *slog.Logger) gateway.Parts {
	parts := gateway.Parts{Keys: be.Keys, Limiter: be.Limiter, Meter: be.Meter, Log: log,
		Redis: be.Redis, RedisPrefix: bcfg.RedisPrefix, RedisTimeout: bcfg.RedisTimeout}
	if parts.RedisPrefix == "" {
		parts.RedisPrefix = backend.DefaultRedisPrefix
	}
	if parts.RedisTimeout <= 0 {
		parts.RedisTimeout = backend.DefaultRedisTimeout
	}
	return parts
}

// answerCache puts the lookup answer cache and the register versions it is keyed by (polled
// from the workers' /health) into parts, unless the cache is off.
func (h *Handler) answerCache(expand func(string) string, parts *gateway.Parts) error {
	if h.Cache != nil && h.Cache.Disabled {
		return nil
	}
	size, ttl := defaultCacheSize, defaultCacheTTL
	if h.Cache != nil && h.Cache.Size > 0 {
		size = h.Cache.Size
	}
	if h.Cache != nil && h.Cache.TTL > 0 {
		ttl = time.Duration(h.Cache.TTL)
	}
	interval := defaultPollInterval
	if h.PollInterval > 0 {
		interval = time.Duration(h.PollInterval)
	}
	var workers []string
	for _, w := range h.Workers {
		workers = append(workers, expand(w))
	}
	ans, key, err := loadAnswers(size, ttl, workers, interval, h.log)
	if err != nil {
		return err
	}
	h.poolKeys = append(h.poolKeys, key)
	parts.Cache, parts.Versions = ans.cache, ans.versions
	return nil
}

// platforms is the verifier of the configured platforms' session tokens, nil for none.
func (h *Handler) platforms(expand func(string) string) (*platform.Verifier, error) {
	if len(h.Platforms) == 0 {
		return nil, nil
	}
	ps := make([]platform.Platform, len(h.Platforms))
	for i, p := range h.Platforms {
		ps[i] = platform.Platform{Name: p.Name, Secret: expand(p.Secret), Audience: expand(p.Audience),
			Account: p.Account, Plan: p.Plan, Shops: p.Shops}
	}
	return platform.NewVerifier(ps)
}

// extensions loads the configured extension modules, each a gateway.Extension.
func (h *Handler) extensions(ctx caddy.Context) ([]gateway.Extension, error) {
	if h.ExtensionsRaw == nil {
		return nil, nil
	}
	mods, err := ctx.LoadModule(h, "ExtensionsRaw")
	if err != nil {
		return nil, fmt.Errorf("loading extensions: %w", err)
	}
	var xs []gateway.Extension
	for _, m := range mods.([]any) {
		x, ok := m.(gateway.Extension)
		if !ok {
			return nil, fmt.Errorf("module %T is not a gateway extension", m)
		}
		xs = append(xs, x)
	}
	return xs, nil
}

// policy is the gateway's configuration; without an upgrade_url, QUOTA_EXCEEDED points to
// the dashboard's plans page when an extension serves one.
func (h *Handler) policy(xs []gateway.Extension) gateway.Config {
	cfg := gateway.Config{
		Plans: h.Plans, DefaultPlan: h.DefaultPlan, UpgradeURL: h.UpgradeURL, TestDailyCap: h.TestDailyCap,
		Limits: map[string]limit.Rule{},
	}
	for kind, l := range h.Limits {
		cfg.Limits[kind] = l.rule()
	}
	for _, x := range xs {
		if a, ok := x.(attacher); ok && cfg.UpgradeURL == "" {
			cfg.UpgradeURL = a.plansURL()
		}
	}
	return cfg
}

// attachExtensions builds the extensions that serve pages from the handler's state on it
// and the policy's effective values, then hands the authorization server one of them runs
// to those that accept its tokens.
func attachExtensions(xs []gateway.Extension, be *backend.Backend, cfg gateway.Config) error {
	for _, x := range xs {
		if a, ok := x.(attacher); ok {
			if err := a.attach(be, cfg.WithDefaults()); err != nil {
				return err
			}
		}
	}
	return useAuthServers(xs)
}

func (l Limit) rule() limit.Rule {
	r := limit.Rule{Rate: l.Rate, Period: time.Duration(l.Period), Burst: l.Burst}
	if r.Period <= 0 {
		r.Period = time.Second
	}
	if r.Burst <= 0 {
		r.Burst = r.Rate
	}
	return r
}

// Validate checks what Provision does not.
func (h *Handler) Validate() error {
	for kind, l := range h.Limits {
		if err := l.rule().Validate(); err != nil {
			return fmt.Errorf("adreswijzer: limit %s: %w", kind, err)
		}
	}
	for plan, q := range h.Plans {
		if q < -1 {
			return fmt.Errorf("adreswijzer: plan %s: quota must be -1 (unlimited) or more", plan)
		}
	}
	if h.UpstreamTimeout < 0 || h.AgentTimeout < 0 || h.RedisTimeout < 0 || h.SessionIdle < 0 ||
		h.StoreTimeout < 0 || h.KeyCacheTTL < 0 {
		return errors.New("adreswijzer: durations must not be negative")
	}
	timeout := time.Duration(h.UpstreamTimeout)
	if timeout == 0 {
		timeout = defaultUpstreamTimeout
	}
	if h.StoreTimeout > 0 && time.Duration(h.StoreTimeout) >= timeout {
		return errors.New("adreswijzer: store_timeout must be shorter than upstream_timeout, which bounds the whole request")
	}
	return nil
}

// Cleanup releases pooled state; the last configuration using it closes it (flushing
// usage).
func (h *Handler) Cleanup() error {
	var errs []error
	for _, k := range h.poolKeys {
		if _, err := pool.Delete(k); err != nil {
			errs = append(errs, err)
		}
	}
	h.poolKeys = nil
	if h.ops != nil {
		h.ops.Close()
	}
	if h.gw != nil {
		h.gw.Close()
	}
	return errors.Join(errs...)
}

// bufPool holds the buffers data answers are recorded into until they are whole.
var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooledBuffer keeps a rare huge answer's buffer out of the pool.
const maxPooledBuffer = 256 << 10

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

// proxy passes r to the next handler (reverse_proxy to the workers), holding back the
// answers the gateway must see whole before they go out (see holdsAnswer), and settles the
// call by how it ended.
func (h *Handler) proxy(clientCtx context.Context, w http.ResponseWriter, r *http.Request, d *gateway.Decision, next caddyhttp.Handler) error {
	buf := bufPool.Get().(*bytes.Buffer)
	buf.Reset()
	defer func() {
		if buf.Cap() <= maxPooledBuffer {
			bufPool.Put(buf)
		}
	}()
	settle := d.WantsAnswer()
	rec := caddyhttp.NewResponseRecorder(w, buf, func(status int, hdr http.Header) bool {
		h.gw.Observe(d, hdr)
		return holdsAnswer(d, settle, status, hdr)
	})
	if err := serveNext(next, rec, r); err != nil {
		h.proxyFailed(clientCtx, w, r, d, rec, err)
		return nil
	}
	h.finalizeResponse(clientCtx, w, r, d, rec, settle)
	return nil
}

// holdsAnswer reports whether an answer is held back until it is whole. Every data answer
// (lookup, suggest, autocomplete, validate: small JSON), so that one that breaks off half
// way is answered 503 and not counted, instead of reaching the caller cut short under a 200
// it would take for a whole answer; lookups also go to the cache from it. Agents' answers
// that say which tool calls failed (JSON, as the worker answers; an event stream is passed
// through as it comes); error answers that are not in the spec's shape, to be replaced.
func holdsAnswer(d *gateway.Decision, settle bool, status int, hdr http.Header) bool {
	return d.Route.Data() ||
		settle && status >= 200 && status <= 299 && isJSON(hdr) ||
		foreignError(d, status, hdr)
}

// proxyFailed settles and, where it still can, answers a call whose proxying ended in an
// error: an answer broken off half way through being passed on, a caller that left, a
// later handler's client error, or no worker answering.
func (h *Handler) proxyFailed(ctx context.Context, w http.ResponseWriter, r *http.Request, d *gateway.Decision, rec caddyhttp.ResponseRecorder, err error) {
	if status := rec.Status(); status != 0 && !rec.Buffered() {
		// The answer broke off half way through being passed on (an event stream of the
		// agent interface, a public document); nothing more can be sent.
		h.gw.Finish(ctx, d, http.StatusBadGateway)
		// Not the error text: a transport error may quote the request URL, and with it the
		// query.
		h.ops.Warn("upstream answer interrupted", "route", d.Route.String(), "status", status)
		if errors.Is(err, errAborted) {
			// The caller must see that the answer broke off, not take what came for all of it.
			panic(http.ErrAbortHandler)
		}
		return
	}
	if ctx.Err() != nil {
		h.gw.Finish(ctx, d, 499)
		return // the caller left; nobody reads an answer
	}
	h.answerInstead(ctx, w, r, d, h.refusalFor(d, err))
}

// refusalFor is the answer to a proxying error with nothing of the answer sent yet.
func (h *Handler) refusalFor(d *gateway.Decision, err error) *apierr.Error {
	var he caddyhttp.HandlerError
	if errors.As(err, &he) && he.StatusCode >= 400 && he.StatusCode < 500 {
		// A client error raised by a handler of the site after this one: answered here in
		// the spec's shape rather than returned, for Caddy's error log would print the
		// request as it arrived, query and all.
		return apierr.ForStatus(he.StatusCode)
	}
	// Only the status, for the reason above.
	h.ops.Warn("no worker answered", "route", d.Route.String(), "status", he.StatusCode)
	return apierr.Unavailable()
}

// finalizeResponse settles a call the next handler answered. A held answer that is an error
// not in the spec's shape is replaced; a held answer of success goes to the answer cache and
// settles the charges that depend on it before it goes out; the call is then counted or not
// by the status sent.
func (h *Handler) finalizeResponse(ctx context.Context, w http.ResponseWriter, r *http.Request, d *gateway.Decision, rec caddyhttp.ResponseRecorder, settle bool) {
	status := rec.Status()
	if rec.Buffered() {
		if foreignError(d, status, w.Header()) {
			// Every error answer carries the spec's ErrorResponse; a page of the worker's
			// server or of a proxy between (500 text/html, 502 text/plain) does not. Its
			// status decides the code; a 502 or 504 becomes 503, on which callers fail open.
			h.ops.Warn("upstream error answer replaced", "route", d.Route.String(), "status", status)
			h.answerInstead(ctx, w, r, d, apierr.ForStatus(status))
			return
		}
		if status == http.StatusOK {
			h.gw.Store(d, w.Header(), rec.Buffer().Bytes())
		}
		if settle && status >= 200 && status <= 299 {
			h.gw.Settle(ctx, d, rec.Buffer().Bytes())
		}
		if err := rec.WriteResponse(); err != nil {
			h.gw.Finish(ctx, d, http.StatusBadGateway)
			return
		}
	}
	if status == 0 {
		status = http.StatusOK
	}
	h.gw.Finish(ctx, d, status)
}

// answerInstead answers e in place of what came from the worker or a later handler, settling
// the call as refused. A failed attempt may have left the worker's headers on w; those that
// describe its body do not describe this one. A /health that no worker answered gets the
// health body of a register that is down; tool calls that no worker answered get tool
// results that say so (see gateway.Recaster).
func (h *Handler) answerInstead(ctx context.Context, w http.ResponseWriter, r *http.Request, d *gateway.Decision, e *apierr.Error) {
	h.gw.Finish(ctx, d, e.Status)
	if d.Body != nil {
		e = h.gw.Recast(r, d, e)
	}
	hdr := w.Header()
	for _, k := range bodyHeaders {
		hdr.Del(k)
	}
	if d.Health {
		gateway.WriteHealthDown(w, time.Now())
		return
	}
	apierr.Write(w, e)
}

// strippedHeaders are request headers no worker needs and no log line may print (see
// forUpstream).
var strippedHeaders = []string{"Referer", "Cookie"}

// bodyHeaders describe a body; apierr.Write sets its own Content-Type and Content-Length.
var bodyHeaders = []string{gateway.CacheHeader, versions.Header, "Content-Encoding", "Content-Language",
	"Content-Disposition", "ETag", "Last-Modified"}

func isJSON(h http.Header) bool { return strings.HasPrefix(h.Get("Content-Type"), "application/json") }

// foreignError reports whether an error answer is not in the spec's shape. The agent
// interface's client errors are exempt: the MCP transport answers its faults (a missing
// Accept header, a wrong Content-Type, GET on /mcp) in plain text, as openapi.json
// documents and MCP clients expect. Its server errors are all replaced, JSON or not: tool
// calls that no worker served are answered with tool results that say so (see
// gateway.Recaster), whatever the worker's server or a proxy between wrote.
func foreignError(d *gateway.Decision, status int, h http.Header) bool {
	switch {
	case status < 400:
		return false
	case d.Route == gateway.RouteAgent:
		return status >= 500
	}
	return !isJSON(h)
}

// errAborted stands for reverse_proxy's panic(http.ErrAbortHandler), with which it ends a
// worker's answer that broke off after its headers (the deadline passed during the body, the
// worker died). It is caught so that the call is settled (not counted) and, when nothing of
// the answer has reached the caller yet (a data answer, held back until whole), answered 503.
var errAborted = errors.New("upstream answer broke off")

func serveNext(next caddyhttp.Handler, w http.ResponseWriter, r *http.Request) (err error) {
	defer func() {
		if v := recover(); v != nil {
			if v != http.ErrAbortHandler {
				panic(v)
			}
			err = errAborted
		}
	}()
	return next.ServeHTTP(w, r)
}

// Interface guards
var (
	_ caddy.Provisioner           = (*Handler)(nil)
	_ caddy.Validator             = (*Handler)(nil)
	_ caddy.CleanerUpper          = (*Handler)(nil)
	_ caddyhttp.MiddlewareHandler = (*Handler)(nil)
)
