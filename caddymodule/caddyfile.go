package caddymodule

import (
	"strconv"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/adreswijzer/adreswijzer/gateway/limit"
)

func init() {
	httpcaddyfile.RegisterHandlerDirective("adreswijzer", parseCaddyfile)
	// Early in the chain, so no `order` option is needed and nothing (respond, file_server,
	// reverse_proxy) can answer before the credential is checked.
	httpcaddyfile.RegisterDirectiveOrder("adreswijzer", httpcaddyfile.After, "basic_auth")
}

func parseCaddyfile(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
	m := new(Handler)
	err := m.UnmarshalCaddyfile(h.Dispenser)
	return m, err
}

// UnmarshalCaddyfile reads:
//
//	adreswijzer {
//		database        <postgres-url>          # keys and usage in Postgres (empty: files)
//		key_file        <path>                  # default ./var/keys.json
//		usage_file      <path>                  # default ./var/usage.json
//		account_file    <path>                  # the dashboard's accounts; default ./var/accounts.json
//		redis           <redis-url>             # shared limits and counters (empty: memory)
//		redis_prefix    <prefix>                # default aw:
//		redis_timeout   <duration>              # default 50ms
//		store_timeout   <duration>              # Postgres waits of a request; default 250ms
//		key_cache_ttl   <duration>              # default 10s
//		key_max_stale   <duration> | off        # known keys while Postgres fails; default 10m
//		limit           <kind> <n>/<period> [burst <n>]   # kind: live test pk_live pk_test platform agent
//		plan            <name> <verifications a month | unlimited>
//		default_plan    <name>                  # default free
//		upgrade_url     <url>
//		test_daily_cap  <n>                     # default 100
//		session_idle    <duration>              # default 30m; a session covers at most 50 calls
//		cache           off | <size> [<ttl>]    # default 10000 1h
//		workers         <url>...                # polled /health for dataset versions
//		poll_interval   <duration>              # default 1s
//		upstream_timeout <duration>             # default 1s
//		agent_timeout   <duration>              # /mcp; default 12s
//		platform <name> {
//			secret   <app secret>
//			audience <app client id>
//			account  <account>
//			plan     <plan>
//			shop     <shop host> <account>      # repeatable; restricts to these shops
//		}
//		extension <name> { ... }                # module http.handlers.adreswijzer.extensions.<name>
//	}
//
// The extensions, `extension agent { … }` (the agent interface) and `extension dashboard
// { … }` (sign-up, keys and usage under /dashboard/), are described on
// AgentExtension.UnmarshalCaddyfile and DashboardExtension.UnmarshalCaddyfile.
func (h *Handler) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // directive name
	if d.NextArg() {
		return d.ArgErr()
	}
	for d.NextBlock(0) {
		switch d.Val() {
		case "database":
			if err := oneArg(d, &h.DatabaseURL); err != nil {
				return err
			}
		case "key_file":
			if err := oneArg(d, &h.KeyFile); err != nil {
				return err
			}
		case "usage_file":
			if err := oneArg(d, &h.UsageFile); err != nil {
				return err
			}
		case "account_file":
			if err := oneArg(d, &h.AccountFile); err != nil {
				return err
			}
		case "redis":
			if err := oneArg(d, &h.RedisURL); err != nil {
				return err
			}
		case "redis_prefix":
			if err := oneArg(d, &h.RedisPrefix); err != nil {
				return err
			}
		case "redis_timeout":
			if err := durationArg(d, &h.RedisTimeout); err != nil {
				return err
			}
		case "store_timeout":
			if err := durationArg(d, &h.StoreTimeout); err != nil {
				return err
			}
		case "key_cache_ttl":
			if err := durationArg(d, &h.KeyCacheTTL); err != nil {
				return err
			}
		case "key_max_stale":
			var s string
			if err := oneArg(d, &s); err != nil {
				return err
			}
			if s == "off" {
				h.KeyMaxStale = -1
				break
			}
			v, err := caddy.ParseDuration(s)
			if err != nil || v <= 0 {
				return d.Errf("key_max_stale: want a positive duration or 'off'")
			}
			h.KeyMaxStale = caddy.Duration(v)
		case "session_idle":
			if err := durationArg(d, &h.SessionIdle); err != nil {
				return err
			}
		case "poll_interval":
			if err := durationArg(d, &h.PollInterval); err != nil {
				return err
			}
		case "upstream_timeout":
			if err := durationArg(d, &h.UpstreamTimeout); err != nil {
				return err
			}
		case "agent_timeout":
			if err := durationArg(d, &h.AgentTimeout); err != nil {
				return err
			}
		case "default_plan":
			if err := oneArg(d, &h.DefaultPlan); err != nil {
				return err
			}
		case "upgrade_url":
			if err := oneArg(d, &h.UpgradeURL); err != nil {
				return err
			}
		case "test_daily_cap":
			var s string
			if err := oneArg(d, &s); err != nil {
				return err
			}
			n, err := strconv.Atoi(s)
			if err != nil || n < 1 {
				return d.Errf("test_daily_cap: want a positive number")
			}
			h.TestDailyCap = n
		case "limit":
			if err := h.parseLimit(d); err != nil {
				return err
			}
		case "plan":
			args := d.RemainingArgs()
			if len(args) != 2 {
				return d.ArgErr()
			}
			q := int64(-1)
			if args[1] != "unlimited" {
				n, err := strconv.ParseInt(args[1], 10, 64)
				if err != nil || n < 0 {
					return d.Errf("plan %s: want a number of verifications or 'unlimited'", args[0])
				}
				q = n
			}
			if h.Plans == nil {
				h.Plans = map[string]int64{}
			}
			h.Plans[args[0]] = q
		case "cache":
			args := d.RemainingArgs()
			switch {
			case len(args) == 1 && args[0] == "off":
				h.Cache = &CacheConfig{Disabled: true}
			case len(args) == 1 || len(args) == 2:
				n, err := strconv.Atoi(args[0])
				if err != nil || n < 1 {
					return d.Errf("cache: want 'off' or <size> [<ttl>]")
				}
				h.Cache = &CacheConfig{Size: n}
				if len(args) == 2 {
					ttl, err := caddy.ParseDuration(args[1])
					if err != nil {
						return d.Errf("cache ttl: %v", err)
					}
					h.Cache.TTL = caddy.Duration(ttl)
				}
			default:
				return d.ArgErr()
			}
		case "workers":
			args := d.RemainingArgs()
			if len(args) == 0 {
				return d.ArgErr()
			}
			h.Workers = append(h.Workers, args...)
		case "platform":
			p, err := parsePlatform(d)
			if err != nil {
				return err
			}
			h.Platforms = append(h.Platforms, p)
		case "extension":
			if !d.NextArg() {
				return d.ArgErr()
			}
			name := d.Val()
			unm, err := caddyfile.UnmarshalModule(d, "http.handlers.adreswijzer.extensions."+name)
			if err != nil {
				return err
			}
			h.ExtensionsRaw = append(h.ExtensionsRaw, caddyconfig.JSONModuleObject(unm, "extension", name, nil))
		default:
			return d.Errf("unrecognized subdirective %q", d.Val())
		}
	}
	return nil
}

// limit <kind> <n>/<period> [burst <n>]
func (h *Handler) parseLimit(d *caddyfile.Dispenser) error {
	args := d.RemainingArgs()
	if len(args) == 0 {
		return d.ArgErr()
	}
	l, err := parseRule(d, "limit "+args[0], args[1:])
	if err != nil {
		return err
	}
	if h.Limits == nil {
		h.Limits = map[string]Limit{}
	}
	h.Limits[args[0]] = l
	return nil
}

// parseRule reads `<n>/<period> [burst <n>]`; without a burst, the rate is the burst.
func parseRule(d *caddyfile.Dispenser, what string, args []string) (Limit, error) {
	if len(args) != 1 && len(args) != 3 {
		return Limit{}, d.ArgErr()
	}
	burst := 0
	if len(args) == 3 {
		if args[1] != "burst" {
			return Limit{}, d.Errf("%s: want <n>/<period> [burst <n>]", what)
		}
		n, err := strconv.Atoi(args[2])
		if err != nil || n < 1 {
			return Limit{}, d.Errf("%s: burst must be a positive number", what)
		}
		burst = n
	}
	r, err := limit.ParseRule(args[0], max(burst, 1))
	if err != nil {
		return Limit{}, d.Errf("%s: %v", what, err)
	}
	if burst == 0 {
		r.Burst = r.Rate
	}
	return Limit{Rate: r.Rate, Period: caddy.Duration(r.Period), Burst: r.Burst}, nil
}

func parsePlatform(d *caddyfile.Dispenser) (PlatformConfig, error) {
	var p PlatformConfig
	if !d.NextArg() {
		return p, d.ArgErr()
	}
	p.Name = d.Val()
	if d.NextArg() {
		return p, d.ArgErr()
	}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		switch d.Val() {
		case "secret":
			if err := oneArg(d, &p.Secret); err != nil {
				return p, err
			}
		case "audience":
			if err := oneArg(d, &p.Audience); err != nil {
				return p, err
			}
		case "account":
			if err := oneArg(d, &p.Account); err != nil {
				return p, err
			}
		case "plan":
			if err := oneArg(d, &p.Plan); err != nil {
				return p, err
			}
		case "shop":
			args := d.RemainingArgs()
			if len(args) != 2 {
				return p, d.ArgErr()
			}
			if p.Shops == nil {
				p.Shops = map[string]string{}
			}
			p.Shops[args[0]] = args[1]
		default:
			return p, d.Errf("platform %s: unrecognized subdirective %q", p.Name, d.Val())
		}
	}
	return p, nil
}

func oneArg(d *caddyfile.Dispenser, dst *string) error {
	if !d.NextArg() {
		return d.ArgErr()
	}
	*dst = d.Val()
	if d.NextArg() {
		return d.ArgErr()
	}
	return nil
}

func durationArg(d *caddyfile.Dispenser, dst *caddy.Duration) error {
	var s string
	if err := oneArg(d, &s); err != nil {
		return err
	}
	v, err := caddy.ParseDuration(s)
	if err != nil {
		return d.Errf("%s: %v", d.Val(), err)
	}
	*dst = caddy.Duration(v)
	return nil
}

var _ caddyfile.Unmarshaler = (*Handler)(nil)
