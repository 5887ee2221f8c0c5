// Package caddymodule is the thin Caddy adapter of the gateway: the `adreswijzer` HTTP
// handler (module http.handlers.adreswijzer), its Caddyfile directive, the agent interface's
// extension (module http.handlers.adreswijzer.extensions.agent, `extension agent { … }`),
// and the `keys` subcommand of bin/gateway. All policy lives in the gateway packages; this
// package turns Caddy requests into gateway decisions and decisions into answers, and keeps
// the gateway's long-lived state across configuration reloads.
package caddymodule

import (
	"encoding/json"
	"log/slog"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/adreswijzer/adreswijzer/gateway"
	"github.com/adreswijzer/adreswijzer/gateway/limit"
	"github.com/adreswijzer/adreswijzer/gateway/oplog"
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

// rule is l with what is not set filled in: a period of a second, a burst of the rate.
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

// Interface guards
var (
	_ caddy.Provisioner           = (*Handler)(nil)
	_ caddy.Validator             = (*Handler)(nil)
	_ caddy.CleanerUpper          = (*Handler)(nil)
	_ caddyhttp.MiddlewareHandler = (*Handler)(nil)
)
