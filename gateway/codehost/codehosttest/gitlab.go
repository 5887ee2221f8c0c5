package codehosttest

import (
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"testing"

	"github.com/golang-jwt/jwt/v5"
	"github.com/oauth2-proxy/mockoidc"

	"github.com/adreswijzer/adreswijzer/gateway/codehost"
)

// GitLabUser is an account on the local GitLab.
type GitLabUser struct {
	// Subject is the sub claim: GitLab's numeric user id as a string.
	Subject       string
	Email         string
	EmailVerified bool
	Name          string
	Username      string
}

// GitLab is a local GitLab: an OpenID Connect provider (mockoidc: discovery, JWKS, RS256
// ID tokens, PKCE) with GitLab's ID token claims, a person who can refuse, outages, and
// tampered ID tokens for refusal tests. Its authorization page approves at once as the
// signed-in user.
type GitLab struct {
	// Issuer is the URL to configure as codehost's GitLab issuer.
	Issuer       string
	ClientID     string
	ClientSecret string

	oidc    *mockoidc.MockOIDC
	outages *outageSwitch
	// serial runs one request at a time: mockoidc's session store is a plain map.
	serial sync.Mutex

	mu      sync.Mutex
	users   []GitLabUser
	current int
	deny    bool
	alter   func(claims map[string]any)
	forge   bool
	// redirects holds the redirect_uri each code was issued for: mockoidc does not check
	// it at the token endpoint, GitLab does (RFC 6749 4.1.3).
	redirects map[string]string
}

// NewGitLab starts a local GitLab with these accounts (the first one is signed in) and
// stops it when the test ends.
func NewGitLab(t testing.TB, users ...GitLabUser) *GitLab {
	t.Helper()
	if len(users) == 0 {
		t.Fatal("codehosttest: NewGitLab needs at least one user")
	}
	// nil: mockoidc's published default key, which spares every test an RSA key generation.
	m, err := mockoidc.NewServer(nil)
	if err != nil {
		t.Fatalf("codehosttest: gitlab: %v", err)
	}
	m.CodeChallengeMethodsSupported = []string{"S256"}
	g := &GitLab{oidc: m, outages: newOutageSwitch(), users: users, redirects: map[string]string{}}
	for _, mw := range []func(http.Handler) http.Handler{g.outages.wrap, g.serialize, g.authorize, g.checkRedirect, g.forgeToken} {
		if err := m.AddMiddleware(mw); err != nil {
			t.Fatalf("codehosttest: gitlab: %v", err)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("codehosttest: gitlab: %v", err)
	}
	if err := m.Start(ln, nil); err != nil {
		t.Fatalf("codehosttest: gitlab: %v", err)
	}
	g.Issuer, g.ClientID, g.ClientSecret = m.Issuer(), m.ClientID, m.ClientSecret
	t.Cleanup(g.Close)
	return g
}

// Config is the codehost configuration for an application registered on this GitLab. A
// failed discovery is retried after GitLabConfig's default pause; a test that ends an
// outage and signs in again at once sets RetryDiscovery shorter.
func (g *GitLab) Config() codehost.GitLabConfig {
	return codehost.GitLabConfig{ClientID: g.ClientID, ClientSecret: g.ClientSecret, Issuer: g.Issuer}
}

// SignInAs makes the account with this user name the one that approves the next sign-ins.
func (g *GitLab) SignInAs(username string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for i, u := range g.users {
		if u.Username == username {
			g.current = i
			return
		}
	}
	panic("codehosttest: no GitLab user " + username)
}

// Deny makes the person refuse (or, with false, approve again) on the authorization page.
func (g *GitLab) Deny(deny bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.deny = deny
}

// SetOutage makes every endpoint, discovery and keys included, fail as o says.
func (g *GitLab) SetOutage(o Outage) { g.outages.set(o) }

// AlterNextIDToken lets a refusal test change the claims of the next ID token before it
// is signed with the provider's key (a wrong aud, nonce, iss or exp).
func (g *GitLab) AlterNextIDToken(alter func(claims map[string]any)) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.alter = alter
}

// ForgeNextIDToken signs the next token answer with a key the provider does not publish.
func (g *GitLab) ForgeNextIDToken() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.forge = true
}

// Close stops the server: calls then find the port closed. Safe to call twice.
func (g *GitLab) Close() {
	g.outages.close()
	_ = g.oidc.Server.Close()
}

// serialize runs one request at a time.
func (g *GitLab) serialize(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g.serial.Lock()
		defer g.serial.Unlock()
		next.ServeHTTP(w, r)
	})
}

// authorize plays the person on the authorization page: it refuses after Deny, and
// otherwise hands mockoidc the signed-in user to approve as.
func (g *GitLab) authorize(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != mockoidc.AuthorizationEndpoint {
			next.ServeHTTP(w, r)
			return
		}
		g.mu.Lock()
		deny, user := g.deny, g.users[g.current]
		g.mu.Unlock()
		if !deny {
			// One user in the queue: a request mockoidc refused leaves none behind.
			g.oidc.UserQueue.Lock()
			g.oidc.UserQueue.Queue = []mockoidc.User{&gitlabUser{GitLabUser: user, gitlab: g}}
			g.oidc.UserQueue.Unlock()
			next.ServeHTTP(w, r)
			return
		}
		redirect, err := url.Parse(r.URL.Query().Get("redirect_uri"))
		if err != nil || !redirect.IsAbs() {
			http.Error(w, "The redirect URI included is not valid.", http.StatusBadRequest)
			return
		}
		back := redirect.Query()
		back.Set("error", "access_denied")
		back.Set("error_description", "The resource owner or authorization server denied the request.")
		back.Set("state", r.URL.Query().Get("state"))
		redirect.RawQuery = back.Encode()
		http.Redirect(w, r, redirect.String(), http.StatusFound)
	})
}

// checkRedirect notes the redirect_uri of each code issued and refuses a token request
// that names another one.
func (g *GitLab) checkRedirect(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case mockoidc.AuthorizationEndpoint:
			next.ServeHTTP(w, r)
			if back, err := url.Parse(w.Header().Get("Location")); err == nil && back.Query().Get("code") != "" {
				g.mu.Lock()
				g.redirects[back.Query().Get("code")] = r.URL.Query().Get("redirect_uri")
				g.mu.Unlock()
			}
		case mockoidc.TokenEndpoint:
			if err := r.ParseForm(); err != nil {
				http.Error(w, "bad form", http.StatusBadRequest)
				return
			}
			g.mu.Lock()
			want, issued := g.redirects[r.PostForm.Get("code")]
			g.mu.Unlock()
			if issued && r.PostForm.Get("grant_type") == "authorization_code" && r.PostForm.Get("redirect_uri") != want {
				writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant",
					"error_description": "The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client."})
				return
			}
			next.ServeHTTP(w, r)
		default:
			next.ServeHTTP(w, r)
		}
	})
}

// forgeToken swaps in a foreign signing key for one token request after
// ForgeNextIDToken; requests are serialized, so the JWKS answer keeps the real key.
func (g *GitLab) forgeToken(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g.mu.Lock()
		forge := g.forge && r.URL.Path == mockoidc.TokenEndpoint
		if forge {
			g.forge = false
		}
		g.mu.Unlock()
		if !forge {
			next.ServeHTTP(w, r)
			return
		}
		foreign, err := mockoidc.RandomKeypair(2048)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		own := g.oidc.Keypair
		g.oidc.Keypair = foreign
		defer func() { g.oidc.Keypair = own }()
		next.ServeHTTP(w, r)
	})
}

// takeAlter returns and clears the pending claim change.
func (g *GitLab) takeAlter() func(map[string]any) {
	g.mu.Lock()
	defer g.mu.Unlock()
	alter := g.alter
	g.alter = nil
	return alter
}

// gitlabUser gives mockoidc GitLab's claims: email and email_verified with the email
// scope, name, nickname and preferred_username with the profile scope.
type gitlabUser struct {
	GitLabUser
	gitlab *GitLab
}

// ID is the sub claim.
func (u *gitlabUser) ID() string { return u.Subject }

// Userinfo is the /oauth/userinfo answer.
func (u *gitlabUser) Userinfo(scopes []string) ([]byte, error) {
	return json.Marshal(u.claims(scopes, map[string]any{"sub": u.Subject}))
}

// Claims are the ID token's claims, after any AlterNextIDToken.
func (u *gitlabUser) Claims(scopes []string, base *mockoidc.IDTokenClaims) (jwt.Claims, error) {
	raw, err := json.Marshal(base)
	if err != nil {
		return nil, err
	}
	claims := map[string]any{}
	if err := json.Unmarshal(raw, &claims); err != nil {
		return nil, err
	}
	claims = u.claims(scopes, claims)
	if alter := u.gitlab.takeAlter(); alter != nil {
		alter(claims)
	}
	return jwt.MapClaims(claims), nil
}

// claims adds the user's claims that the scopes grant.
func (u *gitlabUser) claims(scopes []string, c map[string]any) map[string]any {
	if slices.Contains(scopes, "email") {
		c["email"], c["email_verified"] = u.Email, u.EmailVerified
	}
	if slices.Contains(scopes, "profile") {
		c["name"], c["nickname"], c["preferred_username"] = u.Name, u.Username, u.Username
	}
	return c
}
