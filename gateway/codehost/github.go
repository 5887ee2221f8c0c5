package codehost

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/endpoints"
)

// GitHubConfig is an OAuth app on GitHub or GitHub Enterprise Server.
type GitHubConfig struct {
	ClientID     string
	ClientSecret string
	// AuthURL is the authorization page; default https://github.com/login/oauth/authorize.
	AuthURL string
	// TokenURL is the token endpoint; default https://github.com/login/oauth/access_token.
	TokenURL string
	// APIURL is the REST API's base; default https://api.github.com (Enterprise Server:
	// https://HOST/api/v3).
	APIURL string
	// Label is what the button says; default "GitHub".
	Label string
	// Timeout bounds each call to GitHub; default 10 s.
	Timeout time.Duration
}

// githubScopes asks for the e-mail addresses and nothing else: /user is readable without
// a scope, /user/emails needs user:email.
var githubScopes = []string{"user:email"}

// GitHub signs people in with a GitHub account.
type GitHub struct {
	oauth  oauth2.Config
	apiURL string
	label  string
	client *http.Client
}

// NewGitHub checks the configuration and fills in github.com's endpoints.
func NewGitHub(cfg GitHubConfig) (*GitHub, error) {
	if cfg.ClientID == "" || cfg.ClientSecret == "" {
		return nil, errors.New("codehost: github: client id and client secret are required")
	}
	ep := endpoints.GitHub
	ep.AuthStyle = oauth2.AuthStyleInParams
	ep.AuthURL = cmp.Or(cfg.AuthURL, ep.AuthURL)
	ep.TokenURL = cmp.Or(cfg.TokenURL, ep.TokenURL)
	g := &GitHub{
		oauth:  oauth2.Config{ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret, Endpoint: ep, Scopes: githubScopes},
		apiURL: strings.TrimSuffix(cmp.Or(cfg.APIURL, "https://api.github.com"), "/"),
		label:  cmp.Or(cfg.Label, "GitHub"),
		client: newClient(cfg.Timeout),
	}
	for _, u := range []string{ep.AuthURL, ep.TokenURL, g.apiURL} {
		if err := checkEndpoint(u); err != nil {
			return nil, fmt.Errorf("codehost: github: %w", err)
		}
	}
	return g, nil
}

// Name is "github".
func (g *GitHub) Name() string { return "github" }

// Label is what the sign-in button says.
func (g *GitHub) Label() string { return g.label }

// Begin starts a sign-in; GitHub needs no network call for it.
func (g *GitHub) Begin(_ context.Context, redirectURL string) (Pending, error) {
	p, err := newPending(g.Name(), redirectURL, false)
	if err != nil {
		return Pending{}, err
	}
	p.URL = g.config(redirectURL).AuthCodeURL(p.State, oauth2.S256ChallengeOption(p.Verifier))
	return p, nil
}

// Complete exchanges the code and reads the account and its primary e-mail address,
// which must be verified.
func (g *GitHub) Complete(ctx context.Context, p Pending, callback url.Values) (Identity, error) {
	code, err := checkCallback(g.Name(), p, callback)
	if err != nil {
		return Identity{}, err
	}
	ctx = context.WithValue(ctx, oauth2.HTTPClient, g.client)
	tok, err := g.config(p.RedirectURL).Exchange(ctx, code, oauth2.VerifierOption(p.Verifier))
	if err != nil {
		return Identity{}, exchangeError(g.Name(), err)
	}
	api := oauth2.NewClient(ctx, oauth2.StaticTokenSource(tok))
	user, err := g.user(ctx, api)
	if err != nil {
		return Identity{}, err
	}
	email, err := g.primaryEmail(ctx, api)
	if err != nil {
		return Identity{}, err
	}
	return Identity{Provider: g.Name(), Subject: strconv.FormatInt(user.ID, 10), Email: email, Name: cmp.Or(user.Name, user.Login)}, nil
}

// config is the OAuth configuration for one callback URL.
func (g *GitHub) config(redirectURL string) *oauth2.Config {
	c := g.oauth
	c.RedirectURL = redirectURL
	return &c
}

// githubUser is the part of GET /user we use.
type githubUser struct {
	ID    int64  `json:"id"`
	Login string `json:"login"`
	Name  string `json:"name"`
}

// user reads the account behind the token.
func (g *GitHub) user(ctx context.Context, api *http.Client) (githubUser, error) {
	var u githubUser
	if err := g.get(ctx, api, "/user", &u); err != nil {
		return u, err
	}
	if u.ID == 0 {
		return u, fail(g.Name(), ErrProviderDown, "GET /user: answer without an id", nil)
	}
	return u, nil
}

// githubEmail is one entry of GET /user/emails.
type githubEmail struct {
	Email    string `json:"email"`
	Primary  bool   `json:"primary"`
	Verified bool   `json:"verified"`
}

// primaryEmail returns the primary address when GitHub has verified it. Other verified
// addresses are not used: the primary one is the one the person chose to be reached at.
func (g *GitHub) primaryEmail(ctx context.Context, api *http.Client) (string, error) {
	var emails []githubEmail
	if err := g.get(ctx, api, "/user/emails", &emails); err != nil {
		return "", err
	}
	for _, e := range emails {
		if e.Primary && e.Verified {
			if email, ok := normalizeEmail(e.Email); ok {
				return email, nil
			}
		}
	}
	return "", fail(g.Name(), ErrUnverifiedEmail, "the primary e-mail address is not verified", nil)
}

// get reads one API resource as JSON.
func (g *GitHub) get(ctx context.Context, api *http.Client, path string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, g.apiURL+path, nil)
	if err != nil {
		return fail(g.Name(), ErrProviderDown, "GET "+path, err)
	}
	req.Header.Set("Accept", "application/vnd.github+json")
	req.Header.Set("X-GitHub-Api-Version", "2022-11-28")
	return getJSON(g.Name(), api, req, v)
}
