// Package dashboard is the web front door of the service: people sign up and sign in (by a
// one-time e-mail link or with a code-hosting account), create and revoke their API keys,
// see what they used against their plan, and read the plans. It is gateway-side policy in
// plain Go, served by the gateway's Caddy build under /dashboard/ (see caddymodule), and
// writes the same key store the gateway reads, so a key made here works within seconds.
//
// Pages are rendered on the server and work without JavaScript. Every form is protected
// against cross-site requests (http.CrossOriginProtection, and SameSite=Lax session
// cookies); sessions are server-side (scs) and their id changes at every sign-in. Logs
// name what happened and to which account id, never an e-mail address or a secret.
package dashboard

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/alexedwards/scs/v2"

	"github.com/adreswijzer/adreswijzer/gateway/accounts"
	"github.com/adreswijzer/adreswijzer/gateway/authserver"
	"github.com/adreswijzer/adreswijzer/gateway/keys"
	"github.com/adreswijzer/adreswijzer/gateway/limit"
	"github.com/adreswijzer/adreswijzer/gateway/mail"
	"github.com/adreswijzer/adreswijzer/gateway/usage"
)

// Prefix is where the dashboard is served.
const Prefix = "/dashboard"

// ConsentPath is the page the authorization server sends a person to, to allow an agent.
const ConsentPath = Prefix + "/consent"

// Plan is one plan as the plans page shows it.
type Plan struct {
	Name string
	// Quota is the verifications a month, or -1 for unlimited.
	Quota int64
}

// Config is what the dashboard needs.
type Config struct {
	// BaseURL is the public origin the dashboard is reached on, e.g. https://api.adreswijzer.nl:
	// sign-in links and code-hosting callbacks point there, and its scheme decides whether
	// cookies are Secure.
	BaseURL  string
	Accounts accounts.Store
	Keys     keys.Store
	// Usage is the gateway's durable usage store (the figures of the bill).
	Usage usage.Reader
	// Daily counts the test keys' calls today, as their daily cap does.
	Daily DailyCounter
	// Limiter bounds sign-in mails per address and per client.
	Limiter limit.Limiter
	Mail    mail.Sender
	// Providers are the code-hosting sign-ins configured; none: e-mail only.
	Providers []Provider
	// Sessions stores sessions: Postgres with several gateways, memory otherwise.
	Sessions scs.Store
	// Plans with their quotas, in the order shown; DefaultPlan is a new account's.
	Plans       []Plan
	DefaultPlan string
	// TestDailyCap is the calls a day of a test key.
	TestDailyCap int
	// PlanContact is where to ask for another plan (a mailto: or https: URL).
	PlanContact string
	// OAuth is the agents' authorization server, whose consent page and list of connected
	// agents the dashboard shows; nil: no agents sign in with OAuth, no such pages.
	OAuth *authserver.Server
	Log   *slog.Logger
	// Now is the clock; time.Now when nil.
	Now func() time.Time
}

// DailyCounter reads a test key's calls today (usage.Meter).
type DailyCounter interface {
	DailyCalls(ctx context.Context, keyID string) (int, error)
}

// Limits on sign-in mails: a person asks for one and perhaps another; more from one
// address or one client is someone else's doing.
var (
	MailsPerAddress = limit.Rule{Rate: 5, Period: time.Hour, Burst: 3}
	MailsPerClient  = limit.Rule{Rate: 30, Period: time.Hour, Burst: 10}
)

// Dashboard serves the pages.
type Dashboard struct {
	cfg      Config
	base     *url.URL
	sessions *scs.SessionManager
	pages    *pages
	handler  http.Handler
	log      *slog.Logger
	now      func() time.Time
}

// New checks the configuration and builds the routes.
func New(cfg Config) (*Dashboard, error) {
	base, err := url.Parse(strings.TrimRight(cfg.BaseURL, "/"))
	switch {
	case err != nil || (base.Scheme != "https" && base.Scheme != "http") || base.Host == "" || base.Path != "":
		return nil, errors.New("dashboard: base_url must be an origin such as https://api.example.nl")
	case cfg.Accounts == nil || cfg.Keys == nil || cfg.Usage == nil || cfg.Daily == nil || cfg.Limiter == nil || cfg.Mail == nil || cfg.Sessions == nil:
		return nil, errors.New("dashboard: accounts, keys, usage, daily counts, limiter, mail and sessions are required")
	case len(cfg.Plans) == 0 || cfg.DefaultPlan == "":
		return nil, errors.New("dashboard: plans and a default plan are required")
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	p, err := parsePages()
	if err != nil {
		return nil, err
	}
	d := &Dashboard{cfg: cfg, base: base, pages: p, log: cfg.Log, now: cfg.Now}
	d.sessions = newSessions(cfg.Sessions, base.Scheme == "https")
	d.handler = d.routes()
	return d, nil
}

// ServeHTTP serves a page.
func (d *Dashboard) ServeHTTP(w http.ResponseWriter, r *http.Request) { d.handler.ServeHTTP(w, r) }

// Owns reports whether the dashboard serves path.
func Owns(path string) bool { return path == Prefix || strings.HasPrefix(path, Prefix+"/") }

// routes maps every page. Forms that change something are POSTs behind the cross-origin
// check; GETs change nothing.
func (d *Dashboard) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+Prefix+"/static/{file}", serveStatic)
	mux.HandleFunc("GET "+Prefix, redirectTo(Prefix+"/"))
	mux.HandleFunc("GET "+Prefix+"/{$}", d.signedIn(d.overview))
	mux.HandleFunc("GET "+Prefix+"/plans", d.plans)
	mux.HandleFunc("GET "+Prefix+"/signin", d.signInPage)
	mux.HandleFunc("POST "+Prefix+"/signin", d.sendLink)
	mux.HandleFunc("GET "+Prefix+"/signin/link", d.linkPage)
	mux.HandleFunc("POST "+Prefix+"/signin/link", d.useLink)
	mux.HandleFunc("GET "+Prefix+"/signin/{provider}", d.beginProvider)
	mux.HandleFunc("GET "+Prefix+"/signin/{provider}/callback", d.completeProvider)
	mux.HandleFunc("POST "+Prefix+"/signout", d.signOut)
	mux.HandleFunc("POST "+Prefix+"/signout/everywhere", d.signedIn(d.signOutEverywhere))
	mux.HandleFunc("GET "+Prefix+"/keys", d.signedIn(d.keysPage))
	mux.HandleFunc("POST "+Prefix+"/keys", d.signedIn(d.createKey))
	mux.HandleFunc("POST "+Prefix+"/keys/{id}/revoke", d.signedIn(d.revokeKey))
	mux.HandleFunc("GET "+Prefix+"/usage", d.signedIn(d.usagePage))
	mux.HandleFunc("GET "+Prefix+"/usage.csv", d.signedIn(d.usageCSV))
	mux.HandleFunc("GET "+Prefix+"/account", d.signedIn(d.accountPage))
	mux.HandleFunc("POST "+Prefix+"/account/language", d.language)
	mux.HandleFunc("POST "+Prefix+"/account/delete", d.signedIn(d.deleteAccount))
	if d.cfg.OAuth != nil {
		mux.HandleFunc("GET "+ConsentPath, d.signedIn(d.consentPage))
		mux.HandleFunc("POST "+ConsentPath, d.signedIn(d.consent))
		mux.HandleFunc("GET "+Prefix+"/agents", d.signedIn(d.agentsPage))
		mux.HandleFunc("POST "+Prefix+"/agents/{id}/revoke", d.signedIn(d.revokeAgent))
	}
	mux.HandleFunc(Prefix+"/", d.notFound)

	csrf := http.NewCrossOriginProtection()
	csrf.SetDenyHandler(http.HandlerFunc(d.crossOrigin))
	return securityHeaders(d.sessions.LoadAndSave(csrf.Handler(mux)))
}

// maxForm bounds a form's body: the largest, a key's origins, is a few hundred bytes.
const maxForm = 64 << 10

// securityHeaders keep the pages out of frames and other sites' reach, and scripts and
// styles to the dashboard's own files; forms are read up to maxForm.
func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, maxForm)
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "same-origin")
		h.Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}

func redirectTo(path string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, path, http.StatusSeeOther) }
}

// url makes an absolute URL of a dashboard path, for mails and providers.
func (d *Dashboard) url(path string) string { return d.base.String() + path }
