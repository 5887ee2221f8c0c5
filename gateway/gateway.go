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
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/adreswijzer/adreswijzer/gateway/answercache"
	"github.com/adreswijzer/adreswijzer/gateway/keys"
	"github.com/adreswijzer/adreswijzer/gateway/limit"
	"github.com/adreswijzer/adreswijzer/gateway/oplog"
	"github.com/adreswijzer/adreswijzer/gateway/platform"
	"github.com/adreswijzer/adreswijzer/gateway/usage"
	"github.com/adreswijzer/adreswijzer/gateway/versions"
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
	Cache     *answercache.Cache // nil: no answer cache
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
