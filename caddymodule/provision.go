package caddymodule

import (
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/adreswijzer/adreswijzer/gateway"
	"github.com/adreswijzer/adreswijzer/gateway/backend"
	"github.com/adreswijzer/adreswijzer/gateway/limit"
	"github.com/adreswijzer/adreswijzer/gateway/oplog"
	"github.com/adreswijzer/adreswijzer/gateway/platform"
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
