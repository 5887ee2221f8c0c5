package caddymodule

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/adreswijzer/adreswijzer/gateway"
	"github.com/adreswijzer/adreswijzer/gateway/agent"
	"github.com/adreswijzer/adreswijzer/gateway/agent/limits"
	"github.com/adreswijzer/adreswijzer/gateway/apierr"
	"github.com/adreswijzer/adreswijzer/gateway/authserver"
	"github.com/adreswijzer/adreswijzer/gateway/limit"
)

func init() {
	caddy.RegisterModule(AgentExtension{})
}

// AgentExtension is the agent interface's policy (gateway/agent) as a Caddy module
// (http.handlers.adreswijzer.extensions.agent), loaded by the adreswijzer handler's
// `extension agent { … }`. It takes API keys and OAuth access tokens on /mcp, serves the
// protected-resource metadata, keeps /mcp to its host names, applies the agent limits and
// counts tool calls as verifications. Without it /mcp still takes API keys, without agent
// limits and without counting.
type AgentExtension struct {
	// Resource is the public URL of /mcp, e.g. https://api.adreswijzer.nl/mcp. Required.
	Resource string `json:"resource"`
	// AuthorizationServer is the OAuth issuer agents sign in with; empty: API keys only.
	AuthorizationServer string `json:"authorization_server,omitempty"`
	// JWKSURL is the issuer's key set; empty: discovered from its metadata.
	JWKSURL string `json:"jwks_url,omitempty"`
	// AccountClaim is the token claim that names the account; empty: the subject.
	AccountClaim string `json:"account_claim,omitempty"`
	// Plan whose quota applies to agents signed in with OAuth; empty: the default plan.
	Plan string `json:"plan,omitempty"`
	// Hosts /mcp is served under; empty: the resource's host. Loopback is always accepted.
	Hosts []string `json:"hosts,omitempty"`
	// Rate of tool calls per account; default 60 a minute with bursts of 20.
	Rate *Limit `json:"rate,omitempty"`
	// Daily tool calls per account; default 10000.
	Daily int `json:"daily,omitempty"`
	// Repeat allows the same call RepeatMax times within RepeatWindow; default 5 a minute.
	RepeatMax    int            `json:"repeat_max,omitempty"`
	RepeatWindow caddy.Duration `json:"repeat_window,omitempty"`
	// FingerprintKey keys the hashes repeats are recognised by; gateways sharing a Redis
	// must share it. Placeholders are expanded; empty: a random key per process.
	FingerprintKey string `json:"fingerprint_key,omitempty"`
	// ResourceName and ResourceDocumentation go into the metadata.
	ResourceName          string `json:"resource_name,omitempty"`
	ResourceDocumentation string `json:"resource_documentation,omitempty"`

	x        *agent.Extension
	cfg      agent.Config   // as provisioned, for useAuthServer
	mem      *limits.Memory // the limits' local state, pooled
	poolKeys []string
}

// CaddyModule returns the Caddy module information.
func (AgentExtension) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.handlers.adreswijzer.extensions.agent",
		New: func() caddy.Module { return new(AgentExtension) },
	}
}

// agentMemoryKey names the agent limits' local state in the pool: one per process, kept
// across reloads like the gateway's own limiter.
const agentMemoryKey = "agent-limits-memory"

type pooledMemory struct{ *limits.Memory }

func (pooledMemory) Destruct() error { return nil }

// Provision builds the policy.
func (a *AgentExtension) Provision(ctx caddy.Context) error {
	repl := caddy.NewReplacer()
	expand := func(s string) string { return repl.ReplaceAll(s, "") }
	v, _, err := pool.LoadOrNew(agentMemoryKey, func() (caddy.Destructor, error) {
		return pooledMemory{limits.NewMemory(nil)}, nil
	})
	if err != nil {
		return fmt.Errorf("agent: %w", err)
	}
	a.poolKeys = append(a.poolKeys, agentMemoryKey)
	policy, err := a.policy()
	if err != nil {
		a.Cleanup()
		return err
	}
	cfg := agent.Config{
		Resource: expand(a.Resource), Issuer: expand(a.AuthorizationServer), JWKSURL: expand(a.JWKSURL),
		AccountClaim: a.AccountClaim, Plan: a.Plan, Policy: policy, FingerprintKey: []byte(expand(a.FingerprintKey)),
		ResourceName: a.ResourceName, ResourceDocumentation: expand(a.ResourceDocumentation), Log: ctx.Slogger(),
	}
	for _, h := range a.Hosts {
		cfg.Hosts = append(cfg.Hosts, expand(h))
	}
	a.cfg, a.mem = cfg, v.(pooledMemory).Memory
	a.x, err = agent.New(cfg, a.mem)
	if err != nil {
		a.Cleanup()
		return err
	}
	return nil
}

// useAuthServer makes the gateway's own authorization server (the dashboard's oauth) the
// one agents sign in with, when authorization_server names it: its key set is read in
// process rather than over the network, and every token's grant is checked with it, so that
// an agent revoked on the dashboard is stopped. Another issuer is left as it is.
func (a *AgentExtension) useAuthServer(as *authserver.Server) error {
	if strings.TrimRight(a.cfg.Issuer, "/") != as.Issuer() {
		return nil
	}
	if a.cfg.Resource != as.Resource() {
		return fmt.Errorf("agent: resource %s must be the resource of the dashboard's oauth, %s", a.cfg.Resource, as.Resource())
	}
	cfg := a.cfg
	cfg.Issuer, cfg.Grants = as.Issuer(), as
	cfg.HTTPClient = &http.Client{Transport: inProcess{as}, Timeout: 10 * time.Second}
	if cfg.JWKSURL == "" {
		cfg.JWKSURL = as.Issuer() + authserver.JWKSPath
	}
	x, err := agent.New(cfg, a.mem)
	if err != nil {
		return err
	}
	a.x.Close()
	a.x = x
	return nil
}

// inProcess answers HTTP requests with a handler of this process: the agent extension
// fetches the key set of the gateway's own authorization server without a round trip
// through the network (and whatever proxy stands before the public URL).
type inProcess struct{ h http.Handler }

// RoundTrip serves the request.
func (t inProcess) RoundTrip(r *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	t.h.ServeHTTP(rec, r)
	return rec.Result(), nil
}

// policy is the agent limits with the spec's values where none are configured.
func (a *AgentExtension) policy() (limits.Policy, error) {
	p := limits.Default
	if a.Rate != nil {
		r := a.Rate.rule()
		p.Rate, p.Period, p.Burst = r.Rate, r.Period, r.Burst
	}
	if a.Daily != 0 {
		p.Daily = a.Daily
	}
	if a.RepeatMax != 0 {
		p.RepeatMax = a.RepeatMax
	}
	if a.RepeatWindow != 0 {
		p.RepeatWindow = time.Duration(a.RepeatWindow)
	}
	if err := p.Validate(); err != nil {
		return p, fmt.Errorf("agent: %w", err)
	}
	return p, nil
}

// Validate checks what Provision does not.
func (a *AgentExtension) Validate() error {
	if a.Resource == "" {
		return errors.New("agent: resource is required: the public URL of /mcp")
	}
	return nil
}

// Cleanup releases the pooled state.
func (a *AgentExtension) Cleanup() error {
	var errs []error
	for _, k := range a.poolKeys {
		if _, err := pool.Delete(k); err != nil {
			errs = append(errs, err)
		}
	}
	a.poolKeys = nil
	if a.x != nil {
		a.x.Close()
	}
	return errors.Join(errs...)
}

// Bind implements gateway.Binder.
func (a *AgentExtension) Bind(g *gateway.Gateway) { a.x.Bind(g) }

// Screen implements gateway.Screener.
func (a *AgentExtension) Screen(r *http.Request, d *gateway.Decision) *apierr.Error {
	return a.x.Screen(r, d)
}

// Authenticate implements gateway.Extension.
func (a *AgentExtension) Authenticate(ctx context.Context, r *http.Request, route gateway.Route, cred string) (*gateway.Principal, bool, *apierr.Error) {
	return a.x.Authenticate(ctx, r, route, cred)
}

// Unserved implements gateway.Settler.
func (a *AgentExtension) Unserved(d *gateway.Decision, answer []byte) []gateway.Unserved {
	return a.x.Unserved(d, answer)
}

// Recast implements gateway.Recaster.
func (a *AgentExtension) Recast(r *http.Request, d *gateway.Decision, e *apierr.Error) *apierr.Error {
	return a.x.Recast(r, d, e)
}

// CountsCalls implements gateway.CallCounter.
func (a *AgentExtension) CountsCalls(route gateway.Route) bool { return a.x.CountsCalls(route) }

// Check implements gateway.Extension.
func (a *AgentExtension) Check(ctx context.Context, r *http.Request, d *gateway.Decision) *apierr.Error {
	return a.x.Check(ctx, r, d)
}

// UnmarshalCaddyfile reads, inside the adreswijzer block:
//
//	extension agent {
//		resource             <public URL of /mcp>     # required, e.g. https://api.adreswijzer.nl/mcp
//		authorization_server <issuer URL>             # OAuth 2.1 sign-in; absent: API keys only. The
//		                                              # dashboard's base_url when it has oauth: the
//		                                              # gateway's own server, whose grants are checked
//		jwks_url             <URL>                    # default: from the issuer's metadata
//		account_claim        <claim>                  # default: sub
//		plan                 <plan>                   # quota of OAuth agents; default: default_plan
//		hosts                <name>...                # default: the resource's host; loopback always
//		rate                 <n>/<period> [burst <n>] # default 60/m burst 20, a batch counts its items
//		daily                <n>                      # default 10000 tool calls a day per account
//		repeat               <n>/<window>             # default 5/m: the same call at most 5 times a minute
//		fingerprint_key      <secret>                 # shared by gateways sharing a Redis
//		resource_name        <text>
//		resource_documentation <URL>
//	}
func (a *AgentExtension) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // the extension's name
	if d.NextArg() {
		return d.ArgErr()
	}
	for d.NextBlock(0) {
		switch d.Val() {
		case "resource":
			if err := oneArg(d, &a.Resource); err != nil {
				return err
			}
		case "authorization_server":
			if err := oneArg(d, &a.AuthorizationServer); err != nil {
				return err
			}
		case "jwks_url":
			if err := oneArg(d, &a.JWKSURL); err != nil {
				return err
			}
		case "account_claim":
			if err := oneArg(d, &a.AccountClaim); err != nil {
				return err
			}
		case "plan":
			if err := oneArg(d, &a.Plan); err != nil {
				return err
			}
		case "fingerprint_key":
			if err := oneArg(d, &a.FingerprintKey); err != nil {
				return err
			}
		case "resource_name":
			if err := oneArg(d, &a.ResourceName); err != nil {
				return err
			}
		case "resource_documentation":
			if err := oneArg(d, &a.ResourceDocumentation); err != nil {
				return err
			}
		case "hosts":
			args := d.RemainingArgs()
			if len(args) == 0 {
				return d.ArgErr()
			}
			a.Hosts = append(a.Hosts, args...)
		case "rate":
			l, err := parseRule(d, "rate", d.RemainingArgs())
			if err != nil {
				return err
			}
			a.Rate = &l
		case "daily":
			var s string
			if err := oneArg(d, &s); err != nil {
				return err
			}
			n, err := strconv.Atoi(s)
			if err != nil || n < 1 {
				return d.Errf("daily: want a positive number of tool calls")
			}
			a.Daily = n
		case "repeat":
			var s string
			if err := oneArg(d, &s); err != nil {
				return err
			}
			r, err := limit.ParseRule(s, 1)
			if err != nil {
				return d.Errf("repeat: want <n>/<window>, e.g. 5/m: %v", err)
			}
			a.RepeatMax, a.RepeatWindow = r.Rate, caddy.Duration(r.Period)
		default:
			return d.Errf("extension agent: unrecognized subdirective %q", d.Val())
		}
	}
	return nil
}

// Interface guards
var (
	_ caddy.Provisioner     = (*AgentExtension)(nil)
	_ caddy.Validator       = (*AgentExtension)(nil)
	_ caddy.CleanerUpper    = (*AgentExtension)(nil)
	_ caddyfile.Unmarshaler = (*AgentExtension)(nil)
	_ gateway.Extension     = (*AgentExtension)(nil)
	_ gateway.Binder        = (*AgentExtension)(nil)
	_ gateway.Screener      = (*AgentExtension)(nil)
	_ gateway.Settler       = (*AgentExtension)(nil)
	_ gateway.CallCounter   = (*AgentExtension)(nil)
	_ gateway.Recaster      = (*AgentExtension)(nil)
)
