package codehosttest

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/adreswijzer/adreswijzer/gateway/codehost"
)

// GitHubUser is an account on the local GitHub.
type GitHubUser struct {
	ID     int64
	Login  string
	Name   string
	Emails []GitHubEmail
}

// GitHubEmail is one of an account's addresses, as GET /user/emails lists it.
type GitHubEmail struct {
	Email    string `json:"email"`
	Primary  bool   `json:"primary"`
	Verified bool   `json:"verified"`
}

// VerifiedUser is an account whose primary address is verified.
func VerifiedUser(id int64, login, email string) GitHubUser {
	return GitHubUser{ID: id, Login: login, Name: login, Emails: []GitHubEmail{{Email: email, Primary: true, Verified: true}}}
}

// GitHub is a local GitHub speaking the OAuth web flow and the two REST resources sign-in
// reads. Its authorization page approves at once as the signed-in user.
type GitHub struct {
	// URL is the server's base, standing for both https://github.com and
	// https://api.github.com.
	URL          string
	ClientID     string
	ClientSecret string

	srv     *httptest.Server
	outages *outageSwitch

	mu      sync.Mutex
	users   []GitHubUser
	current int // index into users of who is signed in at the provider
	deny    bool
	grants  map[string]*githubGrant // by code
	tokens  map[string]int64        // access token to user id
}

// githubGrant is an issued, not yet exchanged code.
type githubGrant struct {
	userID      int64
	redirectURI string
	challenge   string
	expires     time.Time
}

// codeTTL is GitHub's lifetime of an authorization code.
const codeTTL = 10 * time.Minute

// NewGitHub starts a local GitHub with these accounts (the first one is signed in) and
// stops it when the test ends.
func NewGitHub(t testing.TB, users ...GitHubUser) *GitHub {
	t.Helper()
	if len(users) == 0 {
		t.Fatal("codehosttest: NewGitHub needs at least one user")
	}
	g := &GitHub{
		ClientID:     "Iv1." + rand.Text()[:16],
		ClientSecret: rand.Text() + rand.Text(),
		users:        users,
		outages:      newOutageSwitch(),
		grants:       map[string]*githubGrant{},
		tokens:       map[string]int64{},
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /login/oauth/authorize", g.authorize)
	mux.HandleFunc("POST /login/oauth/access_token", g.accessToken)
	mux.HandleFunc("GET /user", g.user)
	mux.HandleFunc("GET /user/emails", g.emails)
	g.srv = httptest.NewServer(g.outages.wrap(mux))
	g.URL = g.srv.URL
	t.Cleanup(g.Close)
	return g
}

// Config is the codehost configuration for an OAuth app registered on this GitHub.
func (g *GitHub) Config() codehost.GitHubConfig {
	return codehost.GitHubConfig{
		ClientID:     g.ClientID,
		ClientSecret: g.ClientSecret,
		AuthURL:      g.URL + "/login/oauth/authorize",
		TokenURL:     g.URL + "/login/oauth/access_token",
		APIURL:       g.URL,
	}
}

// SignInAs makes the account with this login the one that approves the next sign-ins.
func (g *GitHub) SignInAs(login string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for i, u := range g.users {
		if u.Login == login {
			g.current = i
			return
		}
	}
	panic("codehosttest: no GitHub user " + login)
}

// Deny makes the person refuse (or, with false, approve again) on the authorization page.
func (g *GitHub) Deny(deny bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.deny = deny
}

// SetOutage makes every endpoint fail as o says, until set to Up.
func (g *GitHub) SetOutage(o Outage) { g.outages.set(o) }

// Close stops the server: calls then find the port closed. Safe to call twice.
func (g *GitHub) Close() {
	g.outages.close()
	g.srv.Close()
}

// authorize is the authorization page, approved at once by the signed-in user (or
// refused, after Deny). Like GitHub it shows an error page, not a redirect, when the
// client is unknown, and accepts only the S256 challenge method.
func (g *GitHub) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	redirect, err := url.Parse(q.Get("redirect_uri"))
	switch {
	case q.Get("client_id") != g.ClientID:
		http.Error(w, "The client_id is not known.", http.StatusNotFound)
		return
	case err != nil || !redirect.IsAbs() || redirect.Fragment != "":
		http.Error(w, "The redirect_uri is not valid.", http.StatusBadRequest)
		return
	case q.Get("code_challenge") != "" && q.Get("code_challenge_method") != "S256":
		http.Error(w, "Only the S256 code challenge method is supported.", http.StatusBadRequest)
		return
	}
	back := redirect.Query()
	back.Set("state", q.Get("state"))
	g.mu.Lock()
	if g.deny {
		back.Set("error", "access_denied")
		back.Set("error_description", "The user has denied your application access.")
	} else {
		code := rand.Text()[:20]
		g.grants[code] = &githubGrant{
			userID:      g.users[g.current].ID,
			redirectURI: q.Get("redirect_uri"),
			challenge:   q.Get("code_challenge"),
			expires:     time.Now().Add(codeTTL),
		}
		back.Set("code", code)
	}
	g.mu.Unlock()
	redirect.RawQuery = back.Encode()
	http.Redirect(w, r, redirect.String(), http.StatusFound)
}

// accessToken is the token endpoint. Like GitHub it answers errors with status 200, as a
// form unless the client accepts JSON, and takes the client's credentials from the form
// or from Basic authentication. A code is used once, even when the exchange fails.
func (g *GitHub) accessToken(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	id, secret, ok := r.BasicAuth()
	if !ok {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	if id != g.ClientID || subtle.ConstantTimeCompare([]byte(secret), []byte(g.ClientSecret)) != 1 {
		writeGitHubAnswer(w, r, url.Values{"error": {"incorrect_client_credentials"},
			"error_description": {"The client_id and/or client_secret passed are incorrect."}})
		return
	}
	g.mu.Lock()
	grant, found := g.grants[r.PostForm.Get("code")]
	delete(g.grants, r.PostForm.Get("code"))
	g.mu.Unlock()
	redirectURI := r.PostForm.Get("redirect_uri")
	switch {
	case !found || time.Now().After(grant.expires):
		writeGitHubAnswer(w, r, url.Values{"error": {"bad_verification_code"},
			"error_description": {"The code passed is incorrect or expired."}})
	case redirectURI != "" && redirectURI != grant.redirectURI:
		writeGitHubAnswer(w, r, url.Values{"error": {"redirect_uri_mismatch"},
			"error_description": {"The redirect_uri MUST match the registered callback URL for this application."}})
	case grant.challenge != "" && subtle.ConstantTimeCompare(
		[]byte(oauth2.S256ChallengeFromVerifier(r.PostForm.Get("code_verifier"))), []byte(grant.challenge)) != 1:
		writeGitHubAnswer(w, r, url.Values{"error": {"invalid_grant"},
			"error_description": {"The code_verifier does not match the code_challenge."}})
	default:
		token := "gho_" + rand.Text()
		g.mu.Lock()
		g.tokens[token] = grant.userID
		g.mu.Unlock()
		writeGitHubAnswer(w, r, url.Values{"access_token": {token}, "scope": {"user:email"}, "token_type": {"bearer"}})
	}
}

// writeGitHubAnswer answers the token endpoint in the format the client accepts.
func writeGitHubAnswer(w http.ResponseWriter, r *http.Request, v url.Values) {
	if strings.Contains(r.Header.Get("Accept"), "application/json") {
		m := map[string]string{}
		for k := range v {
			m[k] = v.Get(k)
		}
		writeJSON(w, http.StatusOK, m)
		return
	}
	w.Header().Set("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
	_, _ = w.Write([]byte(v.Encode()))
}

// user is GET /user.
func (g *GitHub) user(w http.ResponseWriter, r *http.Request) {
	u, ok := g.bearer(w, r)
	if !ok {
		return
	}
	var public any
	for _, e := range u.Emails {
		if e.Primary {
			public = e.Email
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": u.ID, "login": u.Login, "name": u.Name, "email": public, "type": "User"})
}

// emails is GET /user/emails.
func (g *GitHub) emails(w http.ResponseWriter, r *http.Request) {
	u, ok := g.bearer(w, r)
	if !ok {
		return
	}
	list := make([]map[string]any, 0, len(u.Emails))
	for _, e := range u.Emails {
		list = append(list, map[string]any{"email": e.Email, "primary": e.Primary, "verified": e.Verified, "visibility": nil})
	}
	writeJSON(w, http.StatusOK, list)
}

// bearer finds the user of the request's access token ("Bearer" or GitHub's older
// "token" scheme), or answers 401 as GitHub does.
func (g *GitHub) bearer(w http.ResponseWriter, r *http.Request) (GitHubUser, bool) {
	auth := r.Header.Get("Authorization")
	token, ok := strings.CutPrefix(auth, "Bearer ")
	if !ok {
		token, _ = strings.CutPrefix(auth, "token ")
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if id, found := g.tokens[token]; found {
		for _, u := range g.users {
			if u.ID == id {
				return u, true
			}
		}
	}
	writeJSON(w, http.StatusUnauthorized, map[string]string{"message": "Bad credentials", "documentation_url": "https://docs.github.com/rest"})
	return GitHubUser{}, false
}

// writeJSON writes v as a JSON answer.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
