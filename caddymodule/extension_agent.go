package caddymodule

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/adreswijzer/adreswijzer/gateway"
	"github.com/adreswijzer/adreswijzer/gateway/agentpolicy"
	"github.com/adreswijzer/adreswijzer/gateway/agentpolicy/limits"
	"github.com/adreswijzer/adreswijzer/gateway/apierr"
	"github.com/adreswijzer/adreswijzer/gateway/authserver"
)

func init() {
	caddy.RegisterModule(AgentExtension{})
}

// AgentExtension is the agent interface's policy (gateway/agentpolicy) as a Caddy module
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

	x        *agentpolicy.Extension
	cfg      agentpolicy.Config // as provisioned, for useAuthServer
	mem      *limits.Memory     // the limits' local state, pooled
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
	cfg := agentpolicy.Config{
		Resource: expand(a.Resource), Issuer: expand(a.AuthorizationServer), JWKSURL: expand(a.JWKSURL),
		AccountClaim: a.AccountClaim, Plan: a.Plan, Policy: policy, FingerprintKey: []byte(expand(a.FingerprintKey)),
		ResourceName: a.ResourceName, ResourceDocumentation: expand(a.ResourceDocumentation), Log: ctx.Slogger(),
	}
	for _, h := range a.Hosts {
		cfg.Hosts = append(cfg.Hosts, expand(h))
	}
	a.cfg, a.mem = cfg, v.(pooledMemory).Memory
	a.x, err = agentpolicy.New(cfg, a.mem)
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
	x, err := agentpolicy.New(cfg, a.mem)
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
