package authserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/hashicorp/golang-lru/v2/expirable"
	"github.com/rs/cors"
	"github.com/zitadel/oidc/v3/pkg/op"

	"github.com/adreswijzer/adreswijzer/gateway/accounts"
	"github.com/adreswijzer/adreswijzer/gateway/limit"
)

// Paths the server answers, under the issuer's origin.
const (
	MetadataPath  = "/.well-known/oauth-authorization-server"
	Prefix        = "/oauth/"
	AuthorizePath = "/oauth/authorize"
	TokenPath     = "/oauth/token"
	RevokePath    = "/oauth/revoke"
	JWKSPath      = "/oauth/jwks"
	RegisterPath  = "/oauth/register"
)

// Owns reports whether the server answers path.
func Owns(path string) bool { return path == MetadataPath || strings.HasPrefix(path, Prefix) }

// Defaults.
const (
	DefaultTokenLifetime   = 10 * time.Minute
	DefaultRefreshLifetime = 30 * 24 * time.Hour
	DefaultKeyRotation     = 7 * 24 * time.Hour
	// requestLifetime is how long a person has to sign in and allow an agent.
	requestLifetime = 15 * time.Minute
	// codeLifetime: a code is exchanged at once by the agent that waits for it.
	codeLifetime = time.Minute
	// grantCacheTTL is how long a grant's check is trusted: the time a revocation takes
	// to stop an agent at another gateway. At this gateway it stops at once.
	grantCacheTTL = 5 * time.Second
)

// Registrations bounds dynamic client registrations per client address: an agent registers
// once per installation; more from one address is a script gone wrong or worse.
var Registrations = limit.Rule{Rate: 20, Period: time.Hour, Burst: 10}

// Config is what the server needs.
type Config struct {
	// Issuer is the server's identifier and public origin, e.g. https://api.adreswijzer.nl:
	// every endpoint is under it, and tokens carry it in iss.
	Issuer string
	// Resource is the URL of the agent interface (e.g. https://api.adreswijzer.nl/mcp), the
	// one resource tokens are issued for.
	Resource string
	// ConsentURL is the dashboard page a person allows an agent on; the request's id is
	// added as the query parameter "request".
	ConsentURL string
	Store      Store
	// Accounts are the dashboard's: a grant stops with its account, and bills its plan.
	Accounts accounts.Store
	// Limiter bounds registrations per client address.
	Limiter limit.Limiter
	// TokenLifetime of access tokens; DefaultTokenLifetime when zero.
	TokenLifetime time.Duration
	// RefreshLifetime of refresh tokens, renewed with every refresh; DefaultRefreshLifetime
	// when zero.
	RefreshLifetime time.Duration
	// KeyRotation is how long a signing key signs before the next one takes over;
	// DefaultKeyRotation when zero.
	KeyRotation time.Duration
	Log         *slog.Logger
	// Now is the clock; time.Now when nil.
	Now func() time.Time
}

// Server is the authorization server. Create it with New; serve it with ServeHTTP.
type Server struct {
	cfg     Config
	keys    *keyRing
	handler http.Handler
	grants  *expirable.LRU[string, GrantStatus]
	log     *slog.Logger
	now     func() time.Time
}

// New checks the configuration and builds the endpoints.
func New(cfg Config) (*Server, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, log: cfg.Log, now: cfg.Now,
		keys:   &keyRing{store: cfg.Store, rotate: cfg.KeyRotation, lifetime: cfg.TokenLifetime, now: cfg.Now},
		grants: expirable.NewLRU[string, GrantStatus](4096, nil, grantCacheTTL)}
	s.handler = s.routes()
	return s, nil
}

// check validates the configuration and fills in defaults.
func (c *Config) check() error {
	iss, err := url.Parse(c.Issuer)
	switch {
	case err != nil || (iss.Scheme != "https" && iss.Scheme != "http") || iss.Host == "" || iss.Path != "" || iss.RawQuery != "" || iss.Fragment != "":
		return errors.New("authserver: the issuer must be an origin such as https://api.example.nl")
	case c.Resource == "":
		return errors.New("authserver: the resource (the public URL of /mcp) is required")
	case c.ConsentURL == "":
		return errors.New("authserver: the consent page's URL is required")
	case c.Store == nil || c.Accounts == nil || c.Limiter == nil:
		return errors.New("authserver: a store, the accounts and a limiter are required")
	case c.TokenLifetime < 0 || c.RefreshLifetime < 0 || c.KeyRotation < 0:
		return errors.New("authserver: lifetimes must not be negative")
	}
	if res, err := url.Parse(c.Resource); err != nil || res.Scheme != iss.Scheme || res.Host != iss.Host || res.Fragment != "" {
		return errors.New("authserver: the resource must be a URL on the issuer's origin, e.g. https://api.example.nl/mcp")
	}
	if c.TokenLifetime == 0 {
		c.TokenLifetime = DefaultTokenLifetime
	}
	if c.RefreshLifetime == 0 {
		c.RefreshLifetime = DefaultRefreshLifetime
	}
	if c.KeyRotation == 0 {
		c.KeyRotation = DefaultKeyRotation
	}
	if c.KeyRotation < 2*keyPublish || c.KeyRotation < c.TokenLifetime {
		return fmt.Errorf("authserver: key rotation must be at least %s and at least the token lifetime", 2*keyPublish)
	}
	if c.Log == nil {
		c.Log = slog.Default()
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return nil
}

// Issuer is the server's issuer identifier.
func (s *Server) Issuer() string { return s.cfg.Issuer }

// Resource is the one resource tokens are issued for.
func (s *Server) Resource() string { return s.cfg.Resource }

// ServeHTTP answers the server's paths (see Owns).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// routes puts the library's endpoints, its metadata handler and the registration endpoint
// (which the library does not have) on their paths.
func (s *Server) routes() http.Handler {
	corsOpts := &cors.Options{
		// Agents that run in a browser call these endpoints from their own origin. No
		// endpoint reads cookies, so any origin may, without credentials.
		AllowOriginFunc:  func(string) bool { return true },
		AllowedMethods:   []string{http.MethodGet, http.MethodPost},
		AllowedHeaders:   []string{"Content-Type", "Authorization", "MCP-Protocol-Version"},
		AllowCredentials: false,
	}
	endpoints := op.Endpoints{
		Authorization: op.NewEndpoint(AuthorizePath),
		Token:         op.NewEndpoint(TokenPath),
		Revocation:    op.NewEndpoint(RevokePath),
		JwksURI:       op.NewEndpoint(JWKSPath),
	}
	mux := http.NewServeMux()
	mux.Handle(MetadataPath, op.RegisterMetadataServer(metadataServer{s: s}, op.WithServerCORSOptions(corsOpts)))
	mux.Handle(RegisterPath, cors.New(*corsOpts).Handler(http.HandlerFunc(s.register)))
	mux.Handle(Prefix, op.RegisterServer(&opServer{s: s}, endpoints, op.WithServerCORSOptions(corsOpts)))
	return noStore(mux)
}

// noStore keeps every answer out of caches unless it says otherwise: codes, tokens and
// refusals are for the one who asked (RFC 6749 §5.1).
func noStore(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Pragma", "no-cache")
		next.ServeHTTP(w, r)
	})
}

// url makes an absolute URL of a path on the issuer.
func (s *Server) url(path string) string { return s.cfg.Issuer + path }

// account reads an account, which must still exist for its grants to work.
func (s *Server) account(ctx context.Context, id string) (*accounts.Account, error) {
	return s.cfg.Accounts.Get(ctx, id)
}
