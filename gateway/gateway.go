// Package gateway is the gateway's policy in plain Go: for each request it decides who is
// calling, whether they may, whether they are within their limits, what the call costs and
// where it goes, in one Decide call. The Caddy adapter (caddymodule) only feeds requests in
// and carries decisions out; everything here can be tested and benchmarked without Caddy.
//
// The order of checks follows the spec's status table and keeps the cheap and the
// credential-independent checks first: endpoint (404, unless a credential is in the URL),
// the extensions' screening (a document they serve themselves; Host and Origin of the agent
// interface, 403), credential in URL (401), credential (401), origin of a publishable key
// (403), endpoint allowed for the credential kind (403), scope (403), body (413, 400),
// sessionId (422), rate (429 RATE_LIMITED), daily cap of test keys (429
// DAILY_CAP_REACHED), monthly quota (429 QUOTA_EXCEEDED), then the extensions' checks.
// Nothing refused here is counted.
package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/redis/go-redis/v9"
	exactjson "github.com/segmentio/encoding/json"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/gateway/agent/rpcinspect"
	"github.com/adreswijzer/adreswijzer/gateway/apierr"
	"github.com/adreswijzer/adreswijzer/gateway/cache"
	"github.com/adreswijzer/adreswijzer/gateway/keys"
	"github.com/adreswijzer/adreswijzer/gateway/limit"
	"github.com/adreswijzer/adreswijzer/gateway/oplog"
	"github.com/adreswijzer/adreswijzer/gateway/platform"
	"github.com/adreswijzer/adreswijzer/gateway/usage"
	"github.com/adreswijzer/adreswijzer/gateway/versions"
	"github.com/adreswijzer/adreswijzer/internal/query"
)

// KindPlatform is the Principal kind of platform session tokens.
const KindPlatform = "platform"

// KindAgent is the Principal kind of agents signed in with OAuth (API keys used by agents
// keep their own kind and rule).
const KindAgent = "agent"

// Config holds the policy's values.
type Config struct {
	// Limits per Principal kind. Kinds without a rule are not rate-limited here.
	Limits map[string]limit.Rule
	// Plans maps a plan to its monthly verifications (usage.Unlimited for none).
	Plans map[string]int64
	// DefaultPlan's quota applies to keys whose plan is not in Plans.
	DefaultPlan string
	// UpgradeURL is sent with QUOTA_EXCEEDED.
	UpgradeURL string
	// TestDailyCap is the calls a day of a test key.
	TestDailyCap int
}

// Defaults from the spec: the free plan has 2,500 verifications a month; test keys 100
// calls a day.
const (
	DefaultFreeQuota    = 2500
	DefaultTestDailyCap = 100
	DefaultUpgradeURL   = "https://adreswijzer.nl/prijzen"
)

// WithDefaults fills what is not set.
func (c Config) WithDefaults() Config {
	limits := map[string]limit.Rule{
		string(keys.Live):   limit.DefaultLive,
		string(keys.Test):   limit.DefaultTest,
		string(keys.PKLive): limit.DefaultPublishable,
		string(keys.PKTest): limit.DefaultPublishable,
		KindPlatform:        limit.DefaultPlatform,
		// Per HTTP request, beside the agent limits per tool call: it bounds requests the
		// agent limits do not count (initialize, tools/list).
		KindAgent: limit.DefaultLive,
	}
	for k, r := range c.Limits {
		limits[k] = r
	}
	c.Limits = limits
	plans := map[string]int64{"free": DefaultFreeQuota}
	for k, v := range c.Plans {
		plans[k] = v
	}
	c.Plans = plans
	if c.DefaultPlan == "" {
		c.DefaultPlan = "free"
	}
	if c.UpgradeURL == "" {
		c.UpgradeURL = DefaultUpgradeURL
	}
	if c.TestDailyCap <= 0 {
		c.TestDailyCap = DefaultTestDailyCap
	}
	return c
}

// Parts are the long-lived components the policy uses. They outlive a Gateway (the Caddy
// adapter keeps them across configuration reloads).
type Parts struct {
	Keys      keys.Store         // required
	Platforms *platform.Verifier // nil: no platform tokens
	Limiter   limit.Limiter      // required
	Meter     *usage.Meter       // required
	Cache     *cache.Cache       // nil: no answer cache
	Versions  *versions.Tracker  // required when Cache is set
	// Extensions add credential kinds and checks (see Extension).
	Extensions []Extension
	// Redis is the shared state of several gateways (nil without one), for extensions that
	// keep state of their own; they put RedisPrefix before their keys and wait at most
	// RedisTimeout for an answer, as the gateway's own limiter and meter do.
	Redis        *redis.Client
	RedisPrefix  string
	RedisTimeout time.Duration
	Log          *slog.Logger
}

// Gateway decides.
type Gateway struct {
	cfg Config
	Parts
	ops *oplog.Throttle // lines that may come with every request during an outage
}

// New checks the configuration.
func New(cfg Config, p Parts) (*Gateway, error) {
	cfg = cfg.WithDefaults()
	switch {
	case p.Keys == nil:
		return nil, errors.New("gateway: a key store is required")
	case p.Limiter == nil:
		return nil, errors.New("gateway: a limiter is required")
	case p.Meter == nil:
		return nil, errors.New("gateway: a usage meter is required")
	case p.Cache != nil && p.Versions == nil:
		return nil, errors.New("gateway: the answer cache needs a version tracker")
	}
	if _, ok := cfg.Plans[cfg.DefaultPlan]; !ok {
		return nil, fmt.Errorf("gateway: default plan %q has no quota", cfg.DefaultPlan)
	}
	for k, r := range cfg.Limits {
		if err := r.Validate(); err != nil {
			return nil, fmt.Errorf("gateway: limit of %s: %w", k, err)
		}
	}
	if p.Log == nil {
		p.Log = slog.Default()
	}
	g := &Gateway{cfg: cfg, Parts: p, ops: oplog.New(p.Log, 0)}
	for _, x := range p.Extensions {
		if b, ok := x.(Binder); ok {
			b.Bind(g)
		}
	}
	return g, nil
}

// Config returns the effective configuration.
func (g *Gateway) Config() Config { return g.cfg }

// Close writes what the gateway's throttled log lines counted; the Parts stay open.
func (g *Gateway) Close() { g.ops.Close() }

// Challenges are the WWW-Authenticate values of a route's 401s and of its 403 for a
// credential without the scope.
type Challenges struct {
	// Missing: the request carried no credential the gateway read (none, or one in the URL).
	Missing string
	// Refused: it carried a bearer credential that was refused, an unknown or revoked key:
	// RFC 6750 asks for error="invalid_token" then, so that a client knows to get a new one
	// rather than retry the one it has.
	Refused string
	// Scope: the credential is good but lacks the scope address:verify (RFC 6750's
	// insufficient_scope, with the scope to ask for), sent with the 403.
	Scope string
}

// restChallenges are the challenges of the REST interface (and of routes whose extension
// sets none). The realm names the service; a REST client has no metadata to discover.
var restChallenges = Challenges{
	Missing: `Bearer realm="adreswijzer"`,
	Refused: `Bearer realm="adreswijzer", error="invalid_token"`,
	Scope:   `Bearer realm="adreswijzer", error="insufficient_scope", scope="` + keys.ScopeVerify + `"`,
}

// Decision is the outcome of Decide for a request that may go on.
type Decision struct {
	Route Route
	// Country routes the request to that country's workers; "" means any worker.
	Country adreswijzer.Country
	// Principal is nil for public routes and preflights.
	Principal *Principal
	// Preflight: answer the CORS preflight with WritePreflight; do not proxy.
	Preflight bool
	// Health marks GET /health: when no worker answers it, the gateway answers the spec's
	// health body itself (WriteHealthDown), not an error. (Beside Preflight, so that the two
	// share a word: see maxDecisionSize.)
	Health bool
	// credRefused: a bearer credential was presented and refused; scopeRefused: it lacked
	// the scope (see Challenges).
	credRefused, scopeRefused bool
	// finished: Finish or Refuse settled the request; a second call changes nothing.
	finished bool
	// Origin to allow in CORS headers ("" for none).
	Origin string
	// Cache is set when the answer may come from and go to the answer cache.
	Cache *cache.Query
	// SessionID the call was counted under ("" for none).
	SessionID string
	// Body is the request body as read (POST), for extensions; the request keeps its own copy.
	Body []byte
	// Answer, set by an extension's Screen, answers the request instead of the workers (a
	// document the gateway serves itself).
	Answer http.Handler
	// Challenge, set by an extension's Screen, gives the WWW-Authenticate of every 401 of
	// this request that does not bring its own (the agent interface points to its OAuth
	// metadata). One value per extension, shared by its requests.
	Challenge *Challenges

	receipts []charge
	// own holds what Principal, Cache and receipts point to on an ordinary call (an API key,
	// a cacheable lookup, one charge), so that deciding it costs one allocation and not four.
	own struct {
		principal Principal
		cache     cache.Query
		receipts  [1]charge
	}
}

// maxDecisionSize is the most a Decision may take: up to 512 bytes the allocator keeps an
// object's pointer bitmap in its span and takes a cheaper path than for larger ones, and a
// Decision is allocated on every request.
const maxDecisionSize = 512

// charge is one charge of a request; tag says what it was for (see Gateway.Charge).
type charge struct {
	tag string
	r   usage.Receipt
}

// Charged reports the verifications this call counted, for logs and tests: 0 or 1 for a
// REST call, the tool calls' verifications for the agent interface.
func (d *Decision) Charged() int {
	n := 0
	for _, c := range d.receipts {
		n += c.r.Units
	}
	return n
}

// WantsAnswer reports whether Settle needs the body of a successful answer: some charge
// depends on what the answer says.
func (d *Decision) WantsAnswer() bool {
	for _, c := range d.receipts {
		if c.tag != "" {
			return true
		}
	}
	return false
}

// Decide runs every check on r. It reads (and restores) the body of POST requests. On
// success it removes the credential from r so that it is never proxied. clientIP is the
// caller's address as the server determined it (trusted proxies considered).
func (g *Gateway) Decide(ctx context.Context, r *http.Request, clientIP string) (*Decision, *apierr.Error) {
	d, e := g.decide(ctx, r, clientIP)
	if e == nil {
		return d, nil
	}
	if e.Challenge == "" {
		ch := d.Challenge
		if ch == nil {
			ch = &restChallenges
		}
		switch {
		case e.Status == http.StatusUnauthorized && d.credRefused:
			e.Challenge = ch.Refused
		case e.Status == http.StatusUnauthorized:
			e.Challenge = ch.Missing
		case d.scopeRefused:
			e.Challenge = ch.Scope
		}
	}
	if d.Body != nil {
		e = g.Recast(r, d, e)
	}
	return d, e
}

// Recast hands a refusal of a decided request whose body was read to the extensions that
// answer refusals in a form of their own (see Recaster), and returns it as it is to be
// written. The adapter calls it for the refusal it answers when no worker did.
func (g *Gateway) Recast(r *http.Request, d *Decision, e *apierr.Error) *apierr.Error {
	for _, x := range g.Extensions {
		if rc, ok := x.(Recaster); ok {
			e = rc.Recast(r, d, e)
		}
	}
	return e
}

// decide runs the checks of the package doc as phases, in its order; each refuses the
// request or passes it on to the next. The query is parsed once, here, for every phase.
func (g *Gateway) decide(ctx context.Context, r *http.Request, clientIP string) (*Decision, *apierr.Error) {
	route, country := Classify(r.Method, r.URL.Path)
	d := &Decision{Route: route, Country: country}
	origin := r.Header.Get("Origin")
	var params query.Values
	params.Parse(r.URL.RawQuery)
	if e := g.screen(r, d, origin, &params); e != nil {
		return d, e
	}
	if done, e := uncredentialed(r, d, origin); done {
		return d, e
	}
	if e := g.credential(ctx, r, d, origin); e != nil {
		return d, e
	}
	if e := permit(d, origin); e != nil {
		return d, e
	}
	in, e := takeInput(r, d, &params)
	if e != nil {
		return d, e
	}
	if e := g.rate(ctx, d, clientIP); e != nil {
		return d, e
	}
	if e := g.dailyCap(ctx, d); e != nil {
		return d, e
	}
	if e := g.countCall(ctx, r, d, &in); e != nil {
		return d, e
	}
	if e := g.extensionChecks(ctx, r, d); e != nil {
		return d, e
	}
	g.cacheQuery(r, d, &params)
	return d, nil
}

// screen refuses what is no endpoint and a credential in the URL, and lets the extensions
// look at the request before any credential is read (see Screener). A path that is no
// endpoint is 404, unless a key was pasted into it: that is as exposed as one in the query,
// and its caller must hear why the call failed. The dashboard's pages are no API endpoint:
// its one-time sign-in link carries a token of its own in the query.
func (g *Gateway) screen(r *http.Request, d *Decision, origin string, params *query.Values) *apierr.Error {
	inURL := d.Route != RouteSite && credentialInURL(r.URL, params)
	if d.Route == RouteNotFound && !inURL {
		if allow := Allow(r.URL.Path); allow != "" {
			return apierr.MethodNotAllowed(allow)
		}
		return apierr.NotFound()
	}
	for _, x := range g.Extensions {
		if s, ok := x.(Screener); ok {
			if e := s.Screen(r, d); e != nil {
				return e
			}
		}
	}
	if inURL {
		d.Origin = corsOrigin(origin)
		return apierr.CredentialInURL()
	}
	return nil
}

// uncredentialed decides the requests that carry no credential: public documents, what an
// extension answers itself (d.Answer), pages of the site no extension serves, and CORS
// preflights. done reports that the decision is made, e nil when the request may go on.
func uncredentialed(r *http.Request, d *Decision, origin string) (done bool, e *apierr.Error) {
	d.Health = d.Route == RoutePublic && r.URL.Path == "/health"
	switch {
	case d.Route == RouteSite && d.Answer == nil:
		return true, apierr.NotFound()
	case d.Route == RoutePublic || d.Answer != nil:
		r.Header.Del("Authorization") // not needed here, and the worker never sees credentials
		return true, nil
	case r.Method == http.MethodOptions:
		return true, preflight(r, d, origin)
	}
	return false, nil
}

// preflight allows a CORS preflight of a browser route from a well-formed origin (see
// WritePreflight for why any); anything else sent with OPTIONS is no endpoint.
func preflight(r *http.Request, d *Decision, origin string) *apierr.Error {
	if d.Route.browser() && origin != "" && r.Header.Get("Access-Control-Request-Method") != "" {
		if o := corsOrigin(origin); o != "" {
			d.Preflight, d.Origin = true, o
			return nil
		}
	}
	return apierr.NotFound()
}

// credential finds who is calling from the bearer credential, and removes it from r so that
// no worker ever sees it. Its refusals carry CORS headers: a page may read why it was
// refused, and nothing in the answer is private.
func (g *Gateway) credential(ctx context.Context, r *http.Request, d *Decision, origin string) *apierr.Error {
	cred, ok := bearer(r.Header)
	if !ok {
		d.Origin = corsOrigin(origin)
		return apierr.Unauthorized()
	}
	p, e := g.authenticate(ctx, r, d.Route, cred, &d.own.principal)
	if e != nil {
		d.Origin = corsOrigin(origin)
		d.credRefused = true
		return e
	}
	r.Header.Del("Authorization")
	d.Principal = p
	if p.Browser {
		// As the preflight allowed: the page may read the answer it is counted for.
		d.Origin = corsOrigin(origin)
	}
	return nil
}

// permit checks what the credential may do: a publishable key is used only from its
// origins, each kind calls only its routes, and only with the scope address:verify.
func permit(d *Decision, origin string) *apierr.Error {
	p := d.Principal
	if p.Publishable {
		// CORS headers on the refusal too, so that the embedded form can read it and say
		// "not available on this site" instead of failing blind; the refusal names nothing
		// but the fact, which the page's owner may know.
		d.Origin = corsOrigin(origin)
		if origin == "" || !originAllowed(p.Origins, origin) {
			return apierr.ForeignOrigin()
		}
	}
	if !p.Routes.Allows(d.Route) {
		return apierr.RouteNotAllowed()
	}
	if !p.hasScope(keys.ScopeVerify) {
		d.scopeRefused = true
		return apierr.MissingScope()
	}
	return nil
}

// takeInput reads what the policy needs of the query or the body (see readInput) and checks
// the sessionId: well formed when sent, and always sent by a publishable key, in a body that
// is a JSON object. The body is kept for the extensions; the routing country of a POST comes
// from it.
func takeInput(r *http.Request, d *Decision, params *query.Values) (input, *apierr.Error) {
	in, e := readInput(r, d.Route, params)
	if e != nil {
		return in, e
	}
	d.Body = in.body
	if d.Route != RouteLookup {
		d.Country = in.country
	}
	p := d.Principal
	if in.badSession || (in.session != "" && !adreswijzer.ValidSessionID(in.session)) {
		return in, apierr.BadSessionID()
	}
	if p.Publishable && in.badBody {
		return in, apierr.BadBody()
	}
	if p.Publishable && in.session == "" {
		return in, apierr.SessionRequired()
	}
	d.SessionID = in.session
	return in, nil
}

// rate applies the rate rule of the credential's kind, per credential and, for a
// publishable key, which anyone may copy from a page, per client address too.
func (g *Gateway) rate(ctx context.Context, d *Decision, clientIP string) *apierr.Error {
	p := d.Principal
	rule, ok := g.cfg.Limits[p.Kind]
	if !ok {
		return nil
	}
	key := p.LimitKey
	if p.Publishable {
		key += "@" + clientIP
	}
	res, err := g.Limiter.Allow(ctx, key, rule)
	if err != nil {
		return apierr.Unavailable() // only when the caller has gone
	}
	if !res.Allowed {
		return apierr.RateLimited(res.RetryAfter)
	}
	return nil
}

// dailyCap counts the request against a test key's calls of the day, unless an extension
// counts the calls inside it itself (see CallCounter).
func (g *Gateway) dailyCap(ctx context.Context, d *Decision) *apierr.Error {
	if !d.Principal.Testing || g.countsCalls(d.Route) {
		return nil
	}
	if ok, _, wait := g.CountDaily(ctx, d, 1); !ok {
		return apierr.DailyCapReached(wait)
	}
	return nil
}

// countCall charges a data call to the monthly quota of its account. A HEAD request gets the
// headers of a GET's answer and none of its data: nothing is verified for the caller, so
// nothing is counted, and the session of its sessionId is left as it was. It is
// authenticated and rate-limited like the GET, and a test key's daily calls include it, for
// the register still does the work. A call about a country without a register is answered
// UNSUPPORTED_COUNTRY without asking one: nothing is verified, and it is not counted either.
func (g *Gateway) countCall(ctx context.Context, r *http.Request, d *Decision, in *input) *apierr.Error {
	p := d.Principal
	if !d.Route.Data() || p.Testing || p.Uncounted || r.Method == http.MethodHead || in.unsupported {
		return nil
	}
	call := usage.Lookup
	switch d.Route {
	case RouteSuggest, RouteAutocomplete:
		call = usage.Suggest
	case RouteValidate:
		call = usage.Validate
	}
	c := usage.Charge{Call: call, Session: in.session, Confirmed: d.Route == RouteValidate && in.confirmed}
	return g.charge(ctx, d, c, "")
}

// extensionChecks runs the extensions' own checks last (see Extension.Check); a refusal
// gives back what the gateway charged, for a refused call is not counted.
func (g *Gateway) extensionChecks(ctx context.Context, r *http.Request, d *Decision) *apierr.Error {
	for _, x := range g.Extensions {
		if e := x.Check(ctx, r, d); e != nil {
			g.refund(ctx, d)
			return e
		}
	}
	return nil
}

// cacheQuery marks a GET lookup in a country with a register as one the answer cache may
// serve and keep, under its query's key (see cache.ParseQuery).
func (g *Gateway) cacheQuery(r *http.Request, d *Decision, params *query.Values) {
	if d.Route != RouteLookup || g.Cache == nil || r.Method != http.MethodGet ||
		(d.Country != adreswijzer.NL && d.Country != adreswijzer.BE) {
		return
	}
	if q, ok := cache.ParseQuery(d.Country, params); ok {
		d.own.cache = q
		d.Cache = &d.own.cache
	}
}

// authenticate returns the principal of cred; that of an API key is written to own.
func (g *Gateway) authenticate(ctx context.Context, r *http.Request, route Route, cred string, own *Principal) (*Principal, *apierr.Error) {
	if kind, ok := keys.Recognise(cred); ok {
		k, err := g.Keys.Lookup(ctx, keys.HashOf(cred))
		switch {
		case errors.Is(err, keys.ErrNotFound):
			return nil, apierr.Unauthorized()
		case err != nil:
			// Neither the store nor the cache could tell (see keys.Cache): fail open, fast.
			g.ops.Error("key store unavailable", "error", err)
			return nil, apierr.Unavailable()
		case !k.Active() || k.Kind != kind:
			return nil, apierr.Unauthorized()
		}
		p := own
		*p = Principal{
			Kind: string(k.Kind), ID: k.ID, Account: k.Account, Plan: k.Plan, Scopes: k.Scopes,
			Routes: SecretRoutes, Testing: k.Kind.Testing(), LimitKey: k.ID,
		}
		if k.Kind.Publishable() {
			p.Routes, p.Publishable, p.Origins = PublishableRoutes, true, k.Origins
		}
		return p, nil
	}
	if platform.LooksLikeJWT(cred) && !g.Platforms.Empty() {
		if s, err := g.Platforms.Verify(cred); err == nil {
			id := s.Platform + ":" + s.Shop
			return &Principal{
				Kind: KindPlatform, ID: id, Account: s.Account, Plan: s.Plan,
				Scopes: []string{keys.ScopeVerify}, Routes: CheckoutRoutes, LimitKey: "platform:" + id, Browser: true,
			}, nil
		}
	}
	for _, x := range g.Extensions {
		p, ok, e := x.Authenticate(ctx, r, route, cred)
		if e != nil {
			return nil, e
		}
		if ok {
			return p, nil
		}
	}
	return nil, apierr.Unauthorized()
}

func (g *Gateway) quota(plan string) int64 {
	if q, ok := g.cfg.Plans[plan]; ok {
		return q
	}
	return g.cfg.Plans[g.cfg.DefaultPlan]
}

// Charge counts verifications of a decided request against the account of its principal
// and the plan's quota, for extensions that count what the gateway cannot see (the agent
// extension counts tool calls). c's Account and Quota are taken from d. The charge is
// refunded with the gateway's own when the request is refused or not answered, and, when
// tag is not empty, when a Settler finds in the answer that what tag names was not served.
// Testing principals are never counted: Charge does nothing for them.
func (g *Gateway) Charge(ctx context.Context, d *Decision, c usage.Charge, tag string) *apierr.Error {
	if d.Principal == nil || d.Principal.Testing {
		return nil
	}
	return g.charge(ctx, d, c, tag)
}

// CountDaily counts calls of a decided request against the daily cap of a test key and
// reports whether they fit, how many calls the key has left today (see usage.Meter), and if
// they did not fit, how long until they would. Other credentials have no daily cap (left is
// then -1).
func (g *Gateway) CountDaily(ctx context.Context, d *Decision, calls int) (ok bool, left int, wait time.Duration) {
	if d.Principal == nil || !d.Principal.Testing {
		return true, -1, 0
	}
	return g.Meter.CountDaily(ctx, d.Principal.ID, g.cfg.TestDailyCap, calls)
}

// TestDailyCap is the calls a day of a test key, for the refusals that name it.
func (g *Gateway) TestDailyCap() int { return g.cfg.TestDailyCap }

// countsCalls reports whether an extension counts the calls of route itself.
func (g *Gateway) countsCalls(route Route) bool {
	for _, x := range g.Extensions {
		if c, ok := x.(CallCounter); ok && c.CountsCalls(route) {
			return true
		}
	}
	return false
}

func (g *Gateway) charge(ctx context.Context, d *Decision, c usage.Charge, tag string) *apierr.Error {
	c.Account, c.Quota = d.Principal.Account, g.quota(d.Principal.Plan)
	rec, err := g.Meter.Charge(ctx, c)
	switch {
	case errors.Is(err, usage.ErrQuota):
		return apierr.QuotaExceeded(g.cfg.UpgradeURL)
	case err != nil:
		if ctx.Err() != nil {
			return apierr.Unavailable()
		}
		// The meter counts on what it knows when its stores are away, so this is a fault of
		// its own. A checkout must not stop for that: serve, uncounted, and say so.
		g.ops.Error("usage not counted", "route", d.Route.String(), "error", err)
		return nil
	}
	if d.receipts == nil {
		d.receipts = d.own.receipts[:0]
	}
	d.receipts = append(d.receipts, charge{tag: tag, r: rec})
	return nil
}

// Finish settles a decided request once the answer's status is known: a call that did
// not get a successful answer is not counted; one that did goes into its account's
// activity (see record). A request is settled once: a later Finish or Refuse of the same
// decision does nothing, so that no call is recorded or refunded twice.
func (g *Gateway) Finish(ctx context.Context, d *Decision, status int) {
	if d.finished {
		return
	}
	d.finished = true
	if status < 200 || status > 299 {
		g.refund(ctx, d)
		return
	}
	g.record(d)
}

// record notes an answered call of a principal for the dashboard: its credential, route
// and the verifications it counted in the end (after Settle; none for a test key, a HEAD
// or a later call of a session). Calls without a principal (public documents, preflights)
// belong to no account.
func (g *Gateway) record(d *Decision) {
	if p := d.Principal; p != nil {
		g.Meter.Record(p.Account, p.ID, d.Route.String(), d.Charged())
	}
}

func (g *Gateway) refund(ctx context.Context, d *Decision) {
	for _, c := range d.receipts {
		g.Meter.Refund(ctx, c.r)
	}
	d.receipts = nil
}

// Settle gives back the charges of a successful answer that the answer shows were not
// served: a tool call that ended in a tool error (bad arguments, register unavailable) is
// not counted, as a REST call answered 422 or 503 is not, and neither are the addresses of a
// batch that were never checked. Call it with the body of a 2xx answer when WantsAnswer;
// Finish still follows.
func (g *Gateway) Settle(ctx context.Context, d *Decision, answer []byte) {
	if !d.WantsAnswer() {
		return
	}
	for _, x := range g.Extensions {
		s, ok := x.(Settler)
		if !ok {
			continue
		}
		for _, u := range s.Unserved(d, answer) {
			g.settle(ctx, d, u)
		}
	}
}

// settle gives back the charges of u: whole, or the units beyond those served, the rest
// staying for Finish.
func (g *Gateway) settle(ctx context.Context, d *Decision, u Unserved) {
	kept := d.receipts[:0]
	for _, c := range d.receipts {
		switch {
		case c.tag != u.Tag:
		case u.Served <= 0:
			g.Meter.Refund(ctx, c.r)
			continue
		case u.Served < c.r.Units:
			if part, ok := c.r.Part(c.r.Units - u.Served); ok {
				g.Meter.Refund(ctx, part)
				c.r.Units = u.Served
			}
		}
		kept = append(kept, c)
	}
	d.receipts = kept
}

// Refuse settles a request the gateway refused after Decide (a body it could not pass on):
// the same as Finish with a failure.
func (g *Gateway) Refuse(ctx context.Context, d *Decision) { g.Finish(ctx, d, http.StatusBadGateway) }

// input is what policy needs from the query or the body.
type input struct {
	session    string
	badSession bool // present but not a string
	// confirmed: customerConfirmed is true, which changes how a validate is counted (see
	// usage.Charge.Confirmed). Anything else, the worker's 422 for a malformed value included,
	// is not a confirmation.
	confirmed bool
	country   adreswijzer.Country
	// unsupported: the call names a country without a register (see unsupportedParam).
	unsupported bool
	badBody     bool // a POST body that is not a JSON object
	body        []byte
}

// readInput takes sessionId and the routing country from the query (GET) or the body
// (POST; query as fallback), reading and restoring the body.
func readInput(r *http.Request, route Route, q *query.Values) (input, *apierr.Error) {
	in := input{session: q.Get("sessionId")}
	countryParam := q.Get("country")
	if r.Method == http.MethodPost {
		limit, tooLarge := int64(adreswijzer.MaxBodyBytes), apierr.TooLarge
		if route == RouteAgent {
			limit, tooLarge = rpcinspect.MaxBodyBytes, apierr.TooLargeAgent
		}
		body, err := readBody(r, limit)
		switch {
		case errors.Is(err, errTooLarge):
			return in, tooLarge()
		case errors.Is(err, os.ErrDeadlineExceeded):
			// The request's deadline passed while the body was read (the adapter bounds the
			// read by it): the caller did not send what it announced.
			return in, apierr.SlowBody()
		case err != nil:
			return in, apierr.BadBody()
		}
		in.body = body
		if route == RouteAgent {
			return in, nil // JSON-RPC: the agent extension reads it
		}
		if len(bytes.TrimSpace(body)) > 0 {
			// Members by their exact names, as the worker reads the body: the standard
			// library's struct decoding would match "SESSIONID" or "CountryCode" too, and the
			// gateway would then count and route by members the worker ignores.
			var f struct {
				SessionID         json.RawMessage `json:"sessionId"`
				Country           json.RawMessage `json:"country"`
				CountryCode       json.RawMessage `json:"countryCode"`
				CustomerConfirmed json.RawMessage `json:"customerConfirmed"`
			}
			if rest, err := exactjson.Parse(body, &f, exactjson.DontMatchCaseInsensitiveStructFields); err != nil || len(bytes.TrimSpace(rest)) > 0 {
				in.badBody = true
			} else {
				if raw := f.SessionID; len(raw) > 0 && string(raw) != "null" {
					var s string
					if json.Unmarshal(raw, &s) != nil {
						in.badSession = true
					} else {
						in.session = s
					}
				}
				in.confirmed = string(bytes.TrimSpace(f.CustomerConfirmed)) == "true"
				if s, ok := jsonString(f.CountryCode); ok && route == RouteValidate {
					countryParam = s
				} else if s, ok := jsonString(f.Country); ok {
					countryParam = s
				}
			}
		} else if route == RouteValidate {
			in.badBody = true
		}
	}
	switch route {
	case RouteLookup:
		seg, _ := lookupSegment(r.URL.Path)
		in.unsupported = unsupportedPath(seg)
	case RouteAgent:
	default:
		in.country, _ = adreswijzer.ParseCountry(countryParam)
		in.unsupported = in.country == "" && unsupportedParam(countryParam)
	}
	return in, nil
}

func jsonString(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

var errTooLarge = errors.New("body too large")

// readBody reads at most limit bytes and puts the body back for the upstream.
func readBody(r *http.Request, limit int64) ([]byte, error) {
	if r.ContentLength > limit {
		return nil, errTooLarge
	}
	if r.Body == nil || r.Body == http.NoBody {
		return nil, nil
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	r.Body.Close()
	if err != nil {
		return nil, err
	}
	if int64(len(body)) > limit {
		return nil, errTooLarge
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	r.ContentLength = int64(len(body))
	r.Header.Set("Content-Length", fmt.Sprint(len(body)))
	r.TransferEncoding = nil
	return body, nil
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
