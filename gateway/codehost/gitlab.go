package codehost

import (
	"cmp"
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"
)

// GitLabConfig is an OAuth application with the openid scope on GitLab.com or a
// self-managed GitLab.
type GitLabConfig struct {
	ClientID     string
	ClientSecret string
	// Issuer is the GitLab instance's URL as its ID tokens name it; default
	// https://gitlab.com.
	Issuer string
	// Label is what the button says; default "GitLab".
	Label string
	// Timeout bounds each call to GitLab; default 10 s.
	Timeout time.Duration
	// RetryDiscovery is how long a failed discovery is remembered before the next sign-in
	// tries again, so people get an answer at once while GitLab is down; default 10 s.
	RetryDiscovery time.Duration
}

// gitlabScopes asks for the ID token with the e-mail claims and the name.
var gitlabScopes = []string{oidc.ScopeOpenID, "email", "profile"}

// GitLab signs people in with a GitLab account. Its endpoints come from the issuer's
// discovery document, fetched on first use rather than at start, so the gateway starts
// while GitLab is down.
type GitLab struct {
	cfg    GitLabConfig
	client *http.Client

	mu       sync.Mutex
	found    *discovery
	failedAt time.Time
	failure  *Error
}

// discovery is what the issuer's discovery document told us.
type discovery struct {
	endpoint oauth2.Endpoint
	jwksURL  string
	algs     []string
}

// NewGitLab checks the configuration; it makes no network call.
func NewGitLab(cfg GitLabConfig) (*GitLab, error) {
	if cfg.ClientID == "" || cfg.ClientSecret == "" {
		return nil, errors.New("codehost: gitlab: client id and client secret are required")
	}
	cfg.Issuer = cmp.Or(cfg.Issuer, "https://gitlab.com")
	cfg.Label = cmp.Or(cfg.Label, "GitLab")
	cfg.RetryDiscovery = cmp.Or(cfg.RetryDiscovery, 10*time.Second)
	if err := checkEndpoint(cfg.Issuer); err != nil {
		return nil, fmt.Errorf("codehost: gitlab: issuer: %w", err)
	}
	return &GitLab{cfg: cfg, client: newClient(cfg.Timeout)}, nil
}

// Name is "gitlab".
func (g *GitLab) Name() string { return "gitlab" }

// Label is what the sign-in button says.
func (g *GitLab) Label() string { return g.cfg.Label }

// Begin starts a sign-in; the first one after start (or after GitLab was down) reads the
// discovery document.
func (g *GitLab) Begin(ctx context.Context, redirectURL string) (Pending, error) {
	d, err := g.discover(ctx)
	if err != nil {
		return Pending{}, err
	}
	p, err := newPending(g.Name(), redirectURL, true)
	if err != nil {
		return Pending{}, err
	}
	p.URL = g.config(d, redirectURL).AuthCodeURL(p.State, oauth2.S256ChallengeOption(p.Verifier), oidc.Nonce(p.Nonce))
	return p, nil
}

// Complete exchanges the code and verifies the ID token (signature, issuer, audience,
// expiry, nonce); its email claim must be verified.
func (g *GitLab) Complete(ctx context.Context, p Pending, callback url.Values) (Identity, error) {
	code, err := checkCallback(g.Name(), p, callback)
	if err != nil {
		return Identity{}, err
	}
	d, err := g.discover(ctx)
	if err != nil {
		return Identity{}, err
	}
	tok, err := g.config(d, p.RedirectURL).Exchange(oidc.ClientContext(ctx, g.client), code, oauth2.VerifierOption(p.Verifier))
	if err != nil {
		return Identity{}, exchangeError(g.Name(), err)
	}
	idToken, err := g.verify(ctx, d, tok, p.Nonce)
	if err != nil {
		return Identity{}, err
	}
	return g.identity(idToken)
}

// config is the OAuth configuration for one callback URL.
func (g *GitLab) config(d *discovery, redirectURL string) *oauth2.Config {
	return &oauth2.Config{
		ClientID:     g.cfg.ClientID,
		ClientSecret: g.cfg.ClientSecret,
		Endpoint:     d.endpoint,
		RedirectURL:  redirectURL,
		Scopes:       gitlabScopes,
	}
}

// discover reads the issuer's discovery document once it answers. A failure is kept for
// RetryDiscovery, so sign-ins during an outage fail at once instead of queueing behind
// one timeout after another.
func (g *GitLab) discover(ctx context.Context) (*discovery, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.found != nil {
		return g.found, nil
	}
	if g.failure != nil && time.Since(g.failedAt) < g.cfg.RetryDiscovery {
		return nil, g.failure
	}
	// The person hanging up must not count as GitLab being down; the client's timeout
	// still bounds the call.
	d, err := g.readDiscovery(context.WithoutCancel(ctx))
	if err != nil {
		g.failedAt, g.failure = time.Now(), err
		return nil, err
	}
	g.found, g.failure = d, nil
	return d, nil
}

// readDiscovery fetches and checks the discovery document.
func (g *GitLab) readDiscovery(ctx context.Context) (*discovery, *Error) {
	client, watch := watched(g.client)
	provider, err := oidc.NewProvider(oidc.ClientContext(ctx, client), g.cfg.Issuer)
	if err != nil {
		if ferr := watch.failure(); ferr != nil {
			return nil, fail(g.Name(), ErrProviderDown, "discovery", ferr)
		}
		var mismatch *oidc.IssuerMismatchError
		if errors.As(err, &mismatch) {
			return nil, fail(g.Name(), ErrProviderDown, "discovery names another issuer than the configured one", nil)
		}
		return nil, fail(g.Name(), ErrProviderDown, "discovery: unusable answer", nil)
	}
	var meta struct {
		JWKSURL string   `json:"jwks_uri"`
		Algs    []string `json:"id_token_signing_alg_values_supported"`
	}
	if err := provider.Claims(&meta); err != nil || meta.JWKSURL == "" {
		return nil, fail(g.Name(), ErrProviderDown, "discovery: no jwks_uri", nil)
	}
	ep := provider.Endpoint()
	ep.AuthStyle = oauth2.AuthStyleInParams
	algs := slices.DeleteFunc(meta.Algs, func(a string) bool { return !slices.Contains(signingAlgs, a) })
	return &discovery{endpoint: ep, jwksURL: meta.JWKSURL, algs: algs}, nil
}

// signingAlgs are the public-key algorithms an ID token may be signed with; a discovery
// document offering HS256 or none does not widen them (go-oidc filters them the same way
// for the verifiers it builds itself).
var signingAlgs = []string{oidc.RS256, oidc.RS384, oidc.RS512, oidc.ES256, oidc.ES384, oidc.ES512, oidc.PS256, oidc.PS384, oidc.PS512, oidc.EdDSA}

// verify checks the ID token of a token answer. The key set is fetched for each sign-in
// through a client that notes a failed fetch: the verifier reports that only as text, and
// GitLab being down must not read as a forged token. Sign-ins are rare enough that the
// extra request costs nothing that matters.
func (g *GitLab) verify(ctx context.Context, d *discovery, tok *oauth2.Token, nonce string) (*oidc.IDToken, error) {
	raw, ok := tok.Extra("id_token").(string)
	if !ok || raw == "" {
		return nil, fail(g.Name(), ErrExchange, "the token answer holds no ID token", nil)
	}
	keysClient, watch := watched(g.client)
	keys := oidc.NewRemoteKeySet(oidc.ClientContext(ctx, keysClient), d.jwksURL)
	verifier := oidc.NewVerifier(g.cfg.Issuer, keys, &oidc.Config{ClientID: g.cfg.ClientID, SupportedSigningAlgs: d.algs})
	idToken, err := verifier.Verify(ctx, raw)
	if err != nil {
		if ferr := watch.failure(); ferr != nil {
			return nil, fail(g.Name(), ErrProviderDown, "fetch the signing keys", ferr)
		}
		return nil, fail(g.Name(), ErrExchange, "ID token refused", err)
	}
	if nonce == "" || subtle.ConstantTimeCompare([]byte(idToken.Nonce), []byte(nonce)) != 1 {
		return nil, fail(g.Name(), ErrExchange, "ID token refused: nonce is not the one sent", nil)
	}
	if idToken.AccessTokenHash != "" {
		if err := idToken.VerifyAccessToken(tok.AccessToken); err != nil {
			return nil, fail(g.Name(), ErrExchange, "ID token refused: at_hash does not match the access token", nil)
		}
	}
	return idToken, nil
}

// gitlabClaims are the ID token's claims we use. GitLab puts email and email_verified in
// the ID token when the email scope is granted; name only in recent versions.
type gitlabClaims struct {
	Email             string `json:"email"`
	EmailVerified     bool   `json:"email_verified"`
	Name              string `json:"name"`
	Nickname          string `json:"nickname"`
	PreferredUsername string `json:"preferred_username"`
}

// identity reads who signed in from a verified ID token.
func (g *GitLab) identity(idToken *oidc.IDToken) (Identity, error) {
	var c gitlabClaims
	if err := idToken.Claims(&c); err != nil {
		return Identity{}, fail(g.Name(), ErrExchange, "ID token claims unreadable", nil)
	}
	if idToken.Subject == "" {
		return Identity{}, fail(g.Name(), ErrExchange, "ID token without a subject", nil)
	}
	email, ok := normalizeEmail(c.Email)
	if !c.EmailVerified || !ok {
		return Identity{}, fail(g.Name(), ErrUnverifiedEmail, "the ID token holds no verified e-mail address", nil)
	}
	return Identity{
		Provider: g.Name(),
		Subject:  idToken.Subject,
		Email:    email,
		Name:     strings.TrimSpace(cmp.Or(c.Name, c.PreferredUsername, c.Nickname)),
	}, nil
}
