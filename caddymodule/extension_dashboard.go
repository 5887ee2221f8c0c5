package caddymodule

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/adreswijzer/adreswijzer/gateway"
	"github.com/adreswijzer/adreswijzer/gateway/apierr"
	"github.com/adreswijzer/adreswijzer/gateway/authserver"
	"github.com/adreswijzer/adreswijzer/gateway/backend"
	"github.com/adreswijzer/adreswijzer/gateway/codehost"
	"github.com/adreswijzer/adreswijzer/gateway/dashboard"
	"github.com/adreswijzer/adreswijzer/gateway/mail"
)

func init() {
	caddy.RegisterModule(DashboardExtension{})
}

// DashboardExtension serves the dashboard (gateway/dashboard) under /dashboard/ from the
// adreswijzer handler's own state: its key store, usage store, accounts and limiter. It is
// module http.handlers.adreswijzer.extensions.dashboard, loaded by `extension dashboard
// { … }`; without it /dashboard/ is 404.
type DashboardExtension struct {
	// BaseURL is the public origin of the site, e.g. https://api.adreswijzer.nl: sign-in
	// links and code-host callbacks point there. Required.
	BaseURL string `json:"base_url"`
	// SMTP sends sign-in mails; absent: they are written to the gateway's standard output
	// (development only).
	SMTP *SMTPConfig `json:"smtp,omitempty"`
	// GitHub and GitLab sign-in, offered when configured.
	GitHub *GitHubConfig `json:"github,omitempty"`
	GitLab *GitLabConfig `json:"gitlab,omitempty"`
	// PlanContact is where the plans page sends people who want another plan.
	PlanContact string `json:"plan_contact,omitempty"`
	// OAuth makes the gateway the OAuth 2.1 authorization server agents sign in with, its
	// consent page and list of agents part of the dashboard; absent: agents use API keys.
	OAuth *OAuthConfig `json:"oauth,omitempty"`

	dash *dashboard.Dashboard
	as   *authserver.Server
}

// OAuthConfig is the agents' authorization server (gateway/authserver). Its issuer is
// base_url; its endpoints are under /oauth/ and its metadata at
// /.well-known/oauth-authorization-server.
type OAuthConfig struct {
	// Resource is the public URL of /mcp that tokens are issued for; default base_url/mcp.
	// It must be the agent extension's resource.
	Resource string `json:"resource,omitempty"`
	// TokenLifetime of access tokens; default 10m.
	TokenLifetime caddy.Duration `json:"token_lifetime,omitempty"`
	// RefreshLifetime of refresh tokens, renewed at each use; default 720h.
	RefreshLifetime caddy.Duration `json:"refresh_lifetime,omitempty"`
	// KeyRotation is how long a signing key signs; default 168h.
	KeyRotation caddy.Duration `json:"key_rotation,omitempty"`
}

// SMTPConfig is the mail server of sign-in mails. Placeholders are expanded in every field.
type SMTPConfig struct {
	Host     string `json:"host"`
	Port     int    `json:"port,omitempty"`
	Username string `json:"username,omitempty"`
	Password string `json:"password,omitempty"`
	// TLS: starttls (default), implicit, opportunistic or none.
	TLS  string `json:"tls,omitempty"`
	From string `json:"from"`
}

// GitHubConfig is an OAuth app at GitHub (or GitHub Enterprise: set the URLs).
type GitHubConfig struct {
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret"`
	AuthURL      string `json:"auth_url,omitempty"`
	TokenURL     string `json:"token_url,omitempty"`
	APIURL       string `json:"api_url,omitempty"`
}

// GitLabConfig is an OpenID Connect application at GitLab (gitlab.com or self-hosted).
type GitLabConfig struct {
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret"`
	Issuer       string `json:"issuer,omitempty"`
}

// CaddyModule returns the Caddy module information.
func (DashboardExtension) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.handlers.adreswijzer.extensions.dashboard",
		New: func() caddy.Module { return new(DashboardExtension) },
	}
}

// Validate checks what attach does not.
func (x *DashboardExtension) Validate() error {
	if x.BaseURL == "" {
		return errors.New("dashboard: base_url is required: the public origin of the site")
	}
	return nil
}

// attach builds the dashboard on the handler's state and the policy's plans; the
// handler calls it while provisioning, before the gateway is built.
func (x *DashboardExtension) attach(be *backend.Backend, cfg gateway.Config) error {
	repl := caddy.NewReplacer()
	expand := func(s string) string { return repl.ReplaceAll(s, "") }
	sender, err := x.sender(expand)
	if err != nil {
		return err
	}
	providers, err := x.providers(expand)
	if err != nil {
		return err
	}
	if x.as, err = x.authServer(be, expand); err != nil {
		return err
	}
	x.dash, err = dashboard.New(dashboard.Config{
		BaseURL: expand(x.BaseURL), Accounts: be.Accounts, Keys: be.Keys, Usage: be.Usage, Daily: be.Meter,
		Limiter: be.Limiter, Mail: sender, Providers: providers, Sessions: be.Sessions,
		Plans: plansOf(cfg), DefaultPlan: cfg.DefaultPlan, TestDailyCap: cfg.TestDailyCap,
		PlanContact: expand(x.PlanContact), OAuth: x.as,
	})
	return err
}

// authServer builds the authorization server on the handler's stores, when configured.
func (x *DashboardExtension) authServer(be *backend.Backend, expand func(string) string) (*authserver.Server, error) {
	if x.OAuth == nil {
		return nil, nil
	}
	base := strings.TrimRight(expand(x.BaseURL), "/")
	resource := expand(x.OAuth.Resource)
	if resource == "" {
		resource = base + "/mcp"
	}
	as, err := authserver.New(authserver.Config{
		Issuer: base, Resource: resource, ConsentURL: base + dashboard.ConsentPath,
		Store: be.OAuth, Accounts: be.Accounts, Limiter: be.Limiter,
		TokenLifetime: time.Duration(x.OAuth.TokenLifetime), RefreshLifetime: time.Duration(x.OAuth.RefreshLifetime),
		KeyRotation: time.Duration(x.OAuth.KeyRotation),
	})
	if err != nil {
		return nil, fmt.Errorf("dashboard: oauth: %w", err)
	}
	return as, nil
}

// authorizationServer is the agents' authorization server, nil when not configured.
func (x *DashboardExtension) authorizationServer() *authserver.Server { return x.as }

// plansOf lists the policy's plans, smallest quota first and unlimited last.
func plansOf(cfg gateway.Config) []dashboard.Plan {
	var out []dashboard.Plan
	for name, q := range cfg.Plans {
		out = append(out, dashboard.Plan{Name: name, Quota: q})
	}
	size := func(p dashboard.Plan) int64 {
		if p.Quota < 0 {
			return math.MaxInt64
		}
		return p.Quota
	}
	slices.SortFunc(out, func(a, b dashboard.Plan) int {
		return cmp.Or(cmp.Compare(size(a), size(b)), cmp.Compare(a.Name, b.Name))
	})
	return out
}

// sender is the mail server, or standard output on a developer's machine. A site served
// over https is no developer's machine: there, printing working sign-in links into the
// journal is refused.
func (x *DashboardExtension) sender(expand func(string) string) (mail.Sender, error) {
	if x.SMTP == nil {
		if strings.HasPrefix(expand(x.BaseURL), "https:") {
			return nil, errors.New("dashboard: smtp is required when base_url is https (without it, sign-in mails are printed to standard output, which is for development)")
		}
		return &mail.Console{W: os.Stdout}, nil
	}
	s, err := mail.NewSMTP(mail.SMTPConfig{Host: expand(x.SMTP.Host), Port: x.SMTP.Port,
		Username: expand(x.SMTP.Username), Password: expand(x.SMTP.Password), TLS: x.SMTP.TLS, From: expand(x.SMTP.From)})
	if err != nil {
		return nil, fmt.Errorf("dashboard: %w", err)
	}
	return s, nil
}

// providers are the code-hosting sign-ins whose app is configured: one whose client id and
// secret are both empty after expansion (an unset environment variable) is not offered.
func (x *DashboardExtension) providers(expand func(string) string) ([]dashboard.Provider, error) {
	var out []dashboard.Provider
	if c := x.GitHub; c != nil {
		id, secret := expand(c.ClientID), expand(c.ClientSecret)
		if id != "" || secret != "" {
			p, err := codehost.NewGitHub(codehost.GitHubConfig{ClientID: id, ClientSecret: secret,
				AuthURL: expand(c.AuthURL), TokenURL: expand(c.TokenURL), APIURL: expand(c.APIURL)})
			if err != nil {
				return nil, fmt.Errorf("dashboard: github: %w", err)
			}
			out = append(out, p)
		}
	}
	if c := x.GitLab; c != nil {
		id, secret := expand(c.ClientID), expand(c.ClientSecret)
		if id != "" || secret != "" {
			p, err := codehost.NewGitLab(codehost.GitLabConfig{ClientID: id, ClientSecret: secret, Issuer: expand(c.Issuer)})
			if err != nil {
				return nil, fmt.Errorf("dashboard: gitlab: %w", err)
			}
			out = append(out, p)
		}
	}
	return out, nil
}

// Screen implements gateway.Screener: the dashboard answers its own paths, and the
// authorization server its own when configured.
func (x *DashboardExtension) Screen(r *http.Request, d *gateway.Decision) *apierr.Error {
	switch {
	case d.Route != gateway.RouteSite:
	case dashboard.Owns(r.URL.Path):
		d.Answer = x.dash
	case x.as != nil && authserver.Owns(r.URL.Path):
		d.Answer = x.as
	}
	return nil
}

// Authenticate implements gateway.Extension: the dashboard takes no API credential.
func (x *DashboardExtension) Authenticate(context.Context, *http.Request, gateway.Route, string) (*gateway.Principal, bool, *apierr.Error) {
	return nil, false, nil
}

// Check implements gateway.Extension: nothing to check on API calls.
func (x *DashboardExtension) Check(context.Context, *http.Request, *gateway.Decision) *apierr.Error {
	return nil
}

// attacher is an extension that serves pages from the handler's state.
type attacher interface {
	attach(be *backend.Backend, cfg gateway.Config) error
	// plansURL is the page QUOTA_EXCEEDED sends people to, unless upgrade_url says otherwise.
	plansURL() string
	// authorizationServer is the agents' authorization server it runs, or nil.
	authorizationServer() *authserver.Server
}

// plansURL is the dashboard's plans page.
func (x *DashboardExtension) plansURL() string {
	return strings.TrimRight(caddy.NewReplacer().ReplaceAll(x.BaseURL, ""), "/") + dashboard.Prefix + "/plans"
}

// Interface guards
var (
	_ caddy.Validator   = (*DashboardExtension)(nil)
	_ gateway.Extension = (*DashboardExtension)(nil)
	_ gateway.Screener  = (*DashboardExtension)(nil)
	_ attacher          = (*DashboardExtension)(nil)
)

// authServerUser is an extension that accepts the tokens of an authorization server the
// gateway runs (the agent extension).
type authServerUser interface {
	useAuthServer(as *authserver.Server) error
}

// useAuthServers hands the authorization server an extension runs to the extensions that
// accept its tokens. The handler calls it after attaching, before building the gateway.
func useAuthServers(exts []gateway.Extension) error {
	for _, x := range exts {
		a, ok := x.(attacher)
		if !ok || a.authorizationServer() == nil {
			continue
		}
		for _, y := range exts {
			if u, ok := y.(authServerUser); ok {
				if err := u.useAuthServer(a.authorizationServer()); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
