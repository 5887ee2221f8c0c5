// Package agentpolicy is the gateway's policy for the agent interface (/mcp), as a
// gateway.Extension: who may call it (API keys, which the gateway knows, and OAuth 2.1
// access tokens, which this package verifies), under which names and from which pages, how
// much an agent may call (the agent limits, per tool call and per account, on top of the
// plan's), and what its tool calls count as verifications. It also serves the OAuth
// protected-resource metadata, which the workers do not.
//
// The order of its part in a request: Screen (before any credential: the metadata document;
// Host and Origin of /mcp, 403), Authenticate (a JWT on /mcp), then Check (after the
// gateway's own checks: the body's tool calls are counted as verifications against the
// plan's quota, then against the agent limits), and once the answer is there Unserved (tool
// calls that ended in an error are not counted). A refusal of tool calls (the agent limits,
// the plan's quota or rate, no worker answering: see Recast) is a JSON-RPC tool result with
// isError set and the refusal as structured content, sent with status 200, because that is
// what an MCP client hands to the model; the model reads "stop retrying" or "accept the
// address as given" where an HTTP error would only tell the host that something failed.
//
// This is the gateway's side of the agent interface; the MCP server that answers the tool
// calls runs in the workers (worker/mcpserver), and the Caddy module that configures this policy
// is caddymodule's AgentExtension.
package agentpolicy

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/gateway"
	"github.com/adreswijzer/adreswijzer/gateway/agentpolicy/limits"
	"github.com/adreswijzer/adreswijzer/gateway/agentpolicy/oauth"
	"github.com/adreswijzer/adreswijzer/gateway/agentpolicy/rpcinspect"
	"github.com/adreswijzer/adreswijzer/gateway/apierr"
	"github.com/adreswijzer/adreswijzer/gateway/authserver"
	"github.com/adreswijzer/adreswijzer/gateway/keys"
	"github.com/adreswijzer/adreswijzer/gateway/oplog"
	"github.com/adreswijzer/adreswijzer/gateway/platform"
	"github.com/adreswijzer/adreswijzer/gateway/usage"
)

// Config of the agent interface's policy.
type Config struct {
	// Resource is the public URL of the agent interface, e.g. https://api.adreswijzer.nl/mcp:
	// the audience access tokens must be issued for, the resource the metadata names, and
	// (unless Hosts is set) the one host name /mcp is served under. Required.
	Resource string
	// Issuer is the OAuth authorization server agents sign in with. Empty: API keys only;
	// the metadata is then answered 404 and the challenges point to none (see
	// oauth.Challenge).
	Issuer string
	// JWKSURL is where the authorization server publishes its signing keys; empty means
	// discovered from the issuer's metadata.
	JWKSURL string
	// AccountClaim names the token claim holding the account; empty means the subject.
	AccountClaim string
	// Plan is the plan whose quota applies to agents signed in with OAuth; empty means the
	// gateway's default plan. API keys keep their own plan.
	Plan string
	// Hosts are the names /mcp is served under (the Host header, and the host of an Origin
	// header when there is one). Loopback names and addresses are always accepted, for local
	// runs. Empty means the host of Resource.
	Hosts []string
	// Policy is the agent limits; limits.Default when zero.
	Policy limits.Policy
	// FingerprintKey keys the hashes under which repeated calls are recognised. Gateways
	// that share a Redis must share the key, or each recognises only its own repeats; empty
	// means a random key per process.
	FingerprintKey []byte
	// ResourceName and ResourceDocumentation go into the metadata.
	ResourceName          string
	ResourceDocumentation string
	// HTTPClient fetches the authorization server's keys; nil means a client with a 10 s
	// timeout.
	HTTPClient *http.Client
	// Grants is the gateway's own authorization server, when Issuer is it: every token must
	// name a grant that still stands (a JWT cannot be recalled, so this is how revoking an
	// agent on the dashboard stops it), and the call is billed to the grant's account on
	// that account's plan, whatever Plan says. Nil: an external server; tokens stand until
	// they expire.
	Grants Grants
	Log    *slog.Logger
}

// Grants tells whether a grant of the gateway's own authorization server stands
// (authserver.Server.CheckGrant).
type Grants interface {
	CheckGrant(ctx context.Context, id string) (authserver.GrantStatus, error)
}

// Extension is the agent interface's policy. Create it with New; the gateway binds it.
type Extension struct {
	cfg         Config
	metadataURL string
	challenges  gateway.Challenges
	metadata    http.Handler
	verifier    *oauth.Verifier // nil: API keys only
	hosts       []string
	local       *limits.Memory
	limiter     *limits.Limiter
	gw          *gateway.Gateway
	log         *slog.Logger
	ops         *oplog.Throttle // lines that may come with every request
}

// New checks the configuration. local is the limits' state without Redis, and their
// fallback with it; it outlives configuration reloads, so that a reload does not hand every
// agent a fresh budget.
func New(cfg Config, local *limits.Memory) (*Extension, error) {
	if cfg.Resource == "" {
		return nil, errors.New("agent: the resource URL (the public URL of /mcp) is required")
	}
	res, err := url.Parse(cfg.Resource)
	if err != nil || (res.Scheme != "https" && res.Scheme != "http") || res.Host == "" {
		return nil, errors.New("agent: the resource must be an absolute http(s) URL, e.g. https://api.example/mcp")
	}
	if res.Path != "/mcp" {
		return nil, errors.New("agent: the resource must be the URL of /mcp, where the agent interface is served")
	}
	mdURL, err := oauth.MetadataURL(cfg.Resource)
	if err != nil {
		return nil, fmt.Errorf("agent: %w", err)
	}
	if cfg.Policy == (limits.Policy{}) {
		cfg.Policy = limits.Default
	}
	if err := cfg.Policy.Validate(); err != nil {
		return nil, fmt.Errorf("agent: %w", err)
	}
	if cfg.Plan != "" && !keys.ValidAccount(cfg.Plan) {
		return nil, errors.New("agent: plan must be 1 to 64 letters, digits or _ - .")
	}
	if len(cfg.FingerprintKey) == 0 {
		cfg.FingerprintKey = processKey()
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if local == nil {
		local = limits.NewMemory(nil)
	}
	ocfg := oauth.Config{
		Issuer: cfg.Issuer, Resource: cfg.Resource, JWKSURL: cfg.JWKSURL, AccountClaim: cfg.AccountClaim,
		ResourceName: cfg.ResourceName, ResourceDocumentation: cfg.ResourceDocumentation, HTTPClient: cfg.HTTPClient,
	}
	x := &Extension{cfg: cfg, metadataURL: mdURL, metadata: oauth.MetadataHandler(ocfg), local: local, log: cfg.Log,
		ops: oplog.New(cfg.Log, 0)}
	// Challenges point to the metadata only where it names an authorization server: see
	// oauth.Challenge. The metadata is then not served at all (Screen).
	challengeURL := mdURL
	if cfg.Issuer == "" {
		challengeURL = ""
	}
	x.challenges = gateway.Challenges{Missing: oauth.Challenge(challengeURL),
		Refused: oauth.ChallengeFor(challengeURL, oauth.ErrInvalidToken),
		Scope:   oauth.ChallengeFor(challengeURL, oauth.ErrInsufficientScope)}
	if cfg.Issuer != "" {
		if x.verifier, err = oauth.NewVerifier(ocfg); err != nil {
			return nil, fmt.Errorf("agent: %w", err)
		}
	} else if cfg.JWKSURL != "" || cfg.AccountClaim != "" || cfg.Grants != nil {
		return nil, errors.New("agent: jwks_url, account_claim and grants need an authorization server")
	}
	hosts := cfg.Hosts
	if len(hosts) == 0 {
		hosts = []string{res.Hostname()}
	}
	for _, h := range hosts {
		h = strings.ToLower(strings.Trim(strings.TrimSpace(h), "[]"))
		if h == "" || net.ParseIP(h) == nil && strings.ContainsAny(h, "/:@ ") {
			return nil, fmt.Errorf("agent: host %q: want a host name without scheme or port", h)
		}
		x.hosts = append(x.hosts, h)
	}
	x.limiter = limits.New(local, cfg.Policy)
	return x, nil
}

// processKey is the fingerprint key of a process that was given none.
var processKey = sync.OnceValue(func() []byte {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // never fails on the platforms Go supports
	return b
})

// Bind takes the gateway's meter (through Gateway.Charge) and, when the gateway shares
// state in Redis, moves the agent limits there too, with the local state as fallback.
func (x *Extension) Bind(g *gateway.Gateway) {
	x.gw = g
	if g.Redis != nil {
		timeout := g.RedisTimeout
		if timeout <= 0 {
			timeout = 50 * time.Millisecond
		}
		store := limits.NewShared(limits.NewRedis(g.Redis, g.RedisPrefix), x.local, timeout, time.Second, x.log)
		x.limiter = limits.New(store, x.cfg.Policy)
	}
}

// Close writes what the extension's throttled log lines counted.
func (x *Extension) Close() { x.ops.Close() }

// MetadataURL is the URL of the protected-resource metadata, which every 401 of /mcp names
// when an authorization server is configured.
func (x *Extension) MetadataURL() string { return x.metadataURL }

// Screen serves the metadata document, and keeps /mcp to the configured host names and to
// pages of them: a web page elsewhere that points a browser at a local gateway (DNS
// rebinding) is refused before any credential is looked at. A request without Origin comes
// from an agent, not from a page, and is not refused for that.
func (x *Extension) Screen(r *http.Request, d *gateway.Decision) *apierr.Error {
	switch d.Route {
	case gateway.RoutePublic:
		if r.URL.Path != oauth.MetadataPath {
			return nil
		}
		if x.verifier == nil {
			// No authorization server: metadata without one would lead an MCP client into
			// an OAuth flow that cannot work (see oauth.Challenge).
			return apierr.NotFound()
		}
		d.Answer = x.metadata
		return nil
	case gateway.RouteAgent:
	default:
		return nil
	}
	d.Challenge = &x.challenges
	if !x.hostAllowed(r.Host) {
		return apierr.ForeignHost()
	}
	if o := r.Header.Get("Origin"); o != "" {
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || !x.hostAllowed(u.Host) {
			return apierr.ForeignHost()
		}
	}
	return nil
}

// hostAllowed takes a Host header value (name or address, with or without port).
func (x *Extension) hostAllowed(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.ToLower(strings.TrimSuffix(strings.Trim(host, "[]"), "."))
	if host == "" {
		return false
	}
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return true
	}
	return slices.Contains(x.hosts, host)
}

// Authenticate claims OAuth access tokens on /mcp. API keys are the gateway's own; a token
// that is not one of ours gets the 401 that names the metadata, with the RFC 6750 error.
func (x *Extension) Authenticate(ctx context.Context, _ *http.Request, route gateway.Route, cred string) (*gateway.Principal, bool, *apierr.Error) {
	if route != gateway.RouteAgent || x.verifier == nil || !platform.LooksLikeJWT(cred) {
		return nil, false, nil
	}
	tp, err := x.verifier.Verify(ctx, cred)
	if err == nil && !keys.ValidAccount(tp.Account) {
		// The account becomes part of Redis keys and of the usage records.
		err = fmt.Errorf("%w: account claim not usable as an account name", oauth.ErrInvalidToken)
	}
	plan := x.cfg.Plan
	if err == nil && x.cfg.Grants != nil {
		plan, err = x.grantPlan(ctx, tp)
	}
	if err != nil {
		switch {
		case oauth.Status(err) == http.StatusForbidden:
			return nil, false, apierr.InsufficientScope(oauth.ChallengeFor(x.metadataURL, err))
		case oauth.Status(err) == http.StatusServiceUnavailable:
			// The error names the authorization server's URLs, never the token.
			x.ops.Warn("agent token not verifiable", "error", err)
			return nil, false, apierr.Unavailable()
		case errors.Is(err, errGrantUnknown):
			x.ops.Warn("agent grant not checked", "error", err)
			return nil, false, apierr.Unavailable()
		}
		e := apierr.Unauthorized()
		e.Challenge = oauth.ChallengeFor(x.metadataURL, err)
		return nil, false, e
	}
	id := "oauth:" + tp.Account
	if tp.Grant != "" {
		id = tp.Grant // the dashboard shows each agent's last call by its grant
	}
	return &gateway.Principal{
		Kind: gateway.KindAgent, ID: id, Account: tp.Account, Plan: plan,
		Scopes: tp.Scopes, Routes: gateway.RoutesOf(gateway.RouteAgent), LimitKey: "agent:" + tp.Account,
		Uncounted: true,
	}, true, nil
}

// errGrantUnknown: the grant store failed, so the token can be judged neither way. Answer
// 503: the agent's caller fails open, and the token may well be good.
var errGrantUnknown = errors.New("grant not checked")

// grantPlan checks that a token of the gateway's own authorization server names a grant
// that stands, for the account the token names, and returns that account's plan (the
// configured plan when the account has none).
func (x *Extension) grantPlan(ctx context.Context, tp oauth.Principal) (string, error) {
	if tp.Grant == "" {
		return "", fmt.Errorf("%w: names no grant", oauth.ErrInvalidToken)
	}
	st, err := x.cfg.Grants.CheckGrant(ctx, tp.Grant)
	switch {
	case err != nil:
		return "", fmt.Errorf("%w: %v", errGrantUnknown, err)
	case !st.Active || st.Account != tp.Account:
		return "", fmt.Errorf("%w: the agent's access was revoked", oauth.ErrInvalidToken)
	case st.Plan != "":
		return st.Plan, nil
	}
	return x.cfg.Plan, nil
}

// usageCall is how each tool counts toward the plan's verifications (spec, "What the service
// does" 7): a verify like a validate, a lookup like a lookup, a suggestion like a suggest
// call (one in ten), a batch one per address. Tools not listed count nothing: the free
// list_supported_countries, and names the server does not have, which it refuses.
var usageCall = map[string]usage.Call{
	rpcinspect.ToolVerify:      usage.Validate,
	rpcinspect.ToolVerifyBatch: usage.Validate,
	rpcinspect.ToolLookup:      usage.Lookup,
	rpcinspect.ToolSuggest:     usage.Suggest,
}

// Check counts the tool calls of a request to /mcp: as verifications against the plan's
// quota (not for test keys), then against the agent limits, then against a test key's daily
// cap. The charge comes first because the meter can give back and the limits cannot: a call
// the quota refuses must not spend the agent's budget. Requests without tool calls
// (initialize, tools/list, notifications) and bodies that are not JSON-RPC pass uncounted;
// the server answers them.
func (x *Extension) Check(ctx context.Context, r *http.Request, d *gateway.Decision) *apierr.Error {
	if d.Route != gateway.RouteAgent || r.Method != http.MethodPost || d.Principal == nil {
		return nil
	}
	req, err := rpcinspect.Inspect(d.Body, x.cfg.FingerprintKey)
	if err != nil || len(req.Calls) == 0 {
		return nil
	}
	calls := make([]limits.Call, len(req.Calls))
	counted := 0 // units of the calls the server counts: a test key's daily cap takes them
	for i, c := range req.Calls {
		calls[i] = limits.Call{Fingerprint: c.Fingerprint, Cost: c.Cost}
		call, ok := usageCall[c.Tool]
		if !ok || c.Cost == 0 || len(c.ID) == 0 {
			continue // free, unknown to the server, or a notification, which is not answered
		}
		counted += c.Cost
		charge := usage.Charge{Call: call, Units: c.Cost, Session: c.Session, Confirmed: c.Confirmed}
		if e := x.gw.Charge(ctx, d, charge, idTag(c.ID)); e != nil {
			// The quota: every call of the request is refused (the gateway gives back what
			// was charged), as tool results the model reads rather than the HTTP 429 its
			// client would turn into a transport error.
			return reply(r, req, e, toolError(e))
		}
	}
	dec, err := x.limiter.Check(ctx, d.Principal.Account, calls)
	if err != nil {
		if ctx.Err() != nil {
			return apierr.Unavailable() // the caller has gone
		}
		// Only a store without fallback fails; an agent is not stopped for that.
		x.ops.Error("agent limits not applied", "error", err)
		dec = limits.Decision{Allowed: true}
	}
	// The test key's cap comes last, as it gives nothing back: calls the agent limits refuse
	// do not use up a test key's day.
	if dec.Allowed && counted > 0 {
		if ok, left, wait := x.gw.CountDaily(ctx, d, counted); !ok {
			dec = limits.Decision{Reason: limits.ReasonDaily, RetryAfter: wait,
				Message: limits.CapMessage("this test key", x.gw.TestDailyCap(), counted, left,
					"use a live key, or accept addresses as given and verify them later")}
		}
	}
	if dec.Allowed {
		return nil
	}
	x.ops.Info("agent tool calls refused", "reason", string(dec.Reason), "calls", len(calls))
	e := reply(r, req, limitsRefusal(dec), limitsError(dec))
	if e.Reply != nil {
		e.Code, e.RetryAfter = refusalCode[dec.Reason], dec.RetryAfter
	}
	return e
}

// idTag names a tool call's charge by its JSON-RPC id, in a form the server's echo of the id
// has too (1 and 1.0 are one id).
func idTag(id json.RawMessage) string {
	if c, err := rpcinspect.Canonical(id); err == nil {
		return string(c)
	}
	return string(id)
}

// answer is the part of a JSON-RPC answer Unserved reads.
type answer struct {
	ID     json.RawMessage `json:"id"`
	Error  json.RawMessage `json:"error"`
	Result *struct {
		IsError           bool `json:"isError"`
		StructuredContent *struct {
			// Checked is the addresses of a batch that were checked against a register.
			Checked *int `json:"checked"`
			// Issues of verify, lookup and suggest: one of an unsupported country says that
			// no register was asked.
			Issues []struct {
				Code adreswijzer.IssueCode `json:"code"`
			} `json:"issues"`
		} `json:"structuredContent"`
	} `json:"result"`
}

// Unserved returns the tool calls whose answers say they were not served, or served in
// part, which are not counted as verifications (or only in part):
//   - a JSON-RPC error (unknown tool, malformed call) or a tool result with isError (bad
//     arguments, register unavailable, a batch over 100 addresses);
//   - a verify, lookup or suggest of a country without a register (UNSUPPORTED_COUNTRY):
//     no register was asked, as the REST calls of such a country are not counted;
//   - a batch of which only some addresses were checked (checked in its result): the
//     others (unusable input, a country without a register, one not loaded) are given back.
//
// An answer that is not JSON (an event stream) gives nothing back.
func (x *Extension) Unserved(_ *gateway.Decision, body []byte) []gateway.Unserved {
	body = bytes.TrimSpace(body)
	var msgs []answer
	switch {
	case len(body) > 0 && body[0] == '[':
		if json.Unmarshal(body, &msgs) != nil {
			return nil
		}
	case len(body) > 0 && body[0] == '{':
		var m answer
		if json.Unmarshal(body, &m) != nil {
			return nil
		}
		msgs = []answer{m}
	}
	var out []gateway.Unserved
	for _, m := range msgs {
		if len(m.ID) == 0 {
			continue
		}
		if u, ok := unserved(m); ok {
			u.Tag = idTag(m.ID)
			out = append(out, u)
		}
	}
	return out
}

// unserved reads one answer: whether it served less than it was charged, and how much of it
// it served.
func unserved(m answer) (gateway.Unserved, bool) {
	if len(m.Error) > 0 && !bytes.Equal(m.Error, []byte("null")) || m.Result == nil {
		return gateway.Unserved{}, len(m.Error) > 0 && !bytes.Equal(m.Error, []byte("null"))
	}
	if m.Result.IsError {
		return gateway.Unserved{}, true
	}
	sc := m.Result.StructuredContent
	switch {
	case sc == nil:
		return gateway.Unserved{}, false
	case sc.Checked != nil:
		return gateway.Unserved{Served: max(*sc.Checked, 0)}, true
	}
	for _, is := range sc.Issues {
		if is.Code == adreswijzer.IssueUnsupportedCountry {
			return gateway.Unserved{}, true
		}
	}
	return gateway.Unserved{}, false
}

// answered is the number of messages Refusal answers: the tool calls with an id.
func answered(req rpcinspect.Request) int {
	n := 0
	for _, c := range req.Calls {
		if len(c.ID) > 0 {
			n++
		}
	}
	return n
}

// CountsCalls says that the tool calls of /mcp, not its HTTP requests, count against a test
// key's daily cap: an agent's initialize, tools/list and free list_supported_countries do
// not use it up, and a batch counts its items.
func (x *Extension) CountsCalls(route gateway.Route) bool { return route == gateway.RouteAgent }

// refusalCode names a refusal in the gateway's terms, for logs and tests; the agent reads the
// tool result.
var refusalCode = map[limits.Reason]adreswijzer.ErrorCode{
	limits.ReasonRate:   adreswijzer.ErrRateLimited,
	limits.ReasonRepeat: adreswijzer.ErrRateLimited,
	limits.ReasonDaily:  adreswijzer.ErrDailyCapReached,
}

var (
	_ gateway.Extension   = (*Extension)(nil)
	_ gateway.Binder      = (*Extension)(nil)
	_ gateway.Screener    = (*Extension)(nil)
	_ gateway.Settler     = (*Extension)(nil)
	_ gateway.CallCounter = (*Extension)(nil)
	_ gateway.Recaster    = (*Extension)(nil)
)
