package authserver_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/adreswijzer/adreswijzer/gateway"
	"github.com/adreswijzer/adreswijzer/gateway/accounts"
	"github.com/adreswijzer/adreswijzer/gateway/authserver"
	"github.com/adreswijzer/adreswijzer/gateway/limit"
	"github.com/adreswijzer/adreswijzer/internal/logsink"
)

// harness is the authorization server on the embedded default's real stores (files), served
// over HTTP as the gateway serves it (the client's address in the context).
type harness struct {
	t        *testing.T
	srv      *httptest.Server
	as       *authserver.Server
	store    *authserver.FileStore
	accounts accounts.Store
	logs     *logsink.Buffer
	clock    *clock
	account  *accounts.Account
}

type clock struct {
	mu  sync.Mutex
	off time.Duration
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.off)
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.off += d
	c.mu.Unlock()
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	dir := t.TempDir()
	h := &harness{t: t, logs: &logsink.Buffer{}, clock: &clock{}}
	var err error
	if h.store, err = authserver.OpenFile(filepath.Join(dir, "oauth.json")); err != nil {
		t.Fatal(err)
	}
	if h.accounts, err = accounts.OpenFile(filepath.Join(dir, "accounts.json")); err != nil {
		t.Fatal(err)
	}
	if h.account, _, err = accounts.Open(context.Background(), h.accounts, "bouwer@example.nl", "business", "en", time.Now()); err != nil {
		t.Fatal(err)
	}
	var handler http.Handler
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ip, _, _ := net.SplitHostPort(r.RemoteAddr)
		handler.ServeHTTP(w, r.WithContext(gateway.WithClientIP(r.Context(), ip)))
	}))
	t.Cleanup(h.srv.Close)
	h.as, err = authserver.New(authserver.Config{
		Issuer: h.srv.URL, Resource: h.srv.URL + "/mcp", ConsentURL: h.srv.URL + "/dashboard/consent",
		Store: h.store, Accounts: h.accounts, Limiter: limit.NewLocal(1024),
		Log: slog.New(slog.NewTextHandler(h.logs, &slog.HandlerOptions{Level: slog.LevelDebug})), Now: h.clock.now,
	})
	if err != nil {
		t.Fatal(err)
	}
	handler = h.as
	return h
}

// answer is an HTTP answer.
type answer struct {
	status   int
	header   http.Header
	body     []byte
	location *url.URL
}

// json decodes the body.
func (a answer) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(a.body, &m); err != nil {
		t.Fatalf("answer %d is not JSON: %v\n%s", a.status, err, a.body)
	}
	return m
}

var noRedirects = &http.Client{Timeout: 10 * time.Second,
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

func (h *harness) do(method, path string, body io.Reader, contentType string) answer {
	h.t.Helper()
	target := path
	if !strings.HasPrefix(path, "http") {
		target = h.srv.URL + path
	}
	req, err := http.NewRequest(method, target, body)
	if err != nil {
		h.t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := noRedirects.Do(req)
	if err != nil {
		h.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	a := answer{status: resp.StatusCode, header: resp.Header, body: b}
	if loc := resp.Header.Get("Location"); loc != "" {
		a.location, _ = url.Parse(loc)
	}
	return a
}

func (h *harness) postForm(path string, form url.Values) answer {
	return h.do(http.MethodPost, path, strings.NewReader(form.Encode()), "application/x-www-form-urlencoded")
}

// register registers a public client with a loopback redirect URI and the refresh grant.
func (h *harness) register(body string) (status int, reply map[string]any) {
	h.t.Helper()
	a := h.do(http.MethodPost, authserver.RegisterPath, strings.NewReader(body), "application/json")
	return a.status, a.json(h.t)
}

const redirect = "http://127.0.0.1:4242/callback"

func (h *harness) client() string {
	h.t.Helper()
	st, reply := h.register(`{"client_name":"Test agent","redirect_uris":["` + redirect + `"],"grant_types":["authorization_code","refresh_token"],"token_endpoint_auth_method":"none"}`)
	if st != http.StatusCreated {
		h.t.Fatalf("register: %d %v", st, reply)
	}
	return reply["client_id"].(string)
}

// flow is one authorization as an agent runs it.
type flow struct {
	client, verifier, state, redirect string
	params                            url.Values // more parameters of the authorization request
}

func (h *harness) newFlow(client string) *flow {
	return &flow{client: client, verifier: oauth2.GenerateVerifier(), state: "st-" + oauth2.GenerateVerifier()[:8], redirect: redirect,
		params: url.Values{"resource": {h.srv.URL + "/mcp"}}}
}

// authorize sends the authorization request; the answer is a redirect.
func (h *harness) authorize(f *flow) answer {
	h.t.Helper()
	q := url.Values{"response_type": {"code"}, "client_id": {f.client}, "redirect_uri": {f.redirect}, "state": {f.state},
		"scope": {"address:verify"}, "code_challenge": {oauth2.S256ChallengeFromVerifier(f.verifier)}, "code_challenge_method": {"S256"}}
	for k, v := range f.params {
		q[k] = v
	}
	return h.do(http.MethodGet, authserver.AuthorizePath+"?"+q.Encode(), nil, "")
}

// consent authorizes and approves on the account's behalf, as the dashboard does, and
// returns the code sent back to the client.
func (h *harness) consent(f *flow) string {
	h.t.Helper()
	a := h.authorize(f)
	if a.status != http.StatusFound || a.location == nil || a.location.Path != "/dashboard/consent" {
		h.t.Fatalf("authorize: %d %v\n%s", a.status, a.location, a.body)
	}
	back, err := h.as.Approve(context.Background(), a.location.Query().Get("request"), h.account.ID)
	if err != nil {
		h.t.Fatal(err)
	}
	u, _ := url.Parse(back)
	q := u.Query()
	if q.Get("state") != f.state || q.Get("iss") != h.srv.URL || q.Get("code") == "" {
		h.t.Fatalf("answer to the client: %s", back)
	}
	return q.Get("code")
}

// exchange trades a code.
func (h *harness) exchange(f *flow, code string, extra url.Values) answer {
	form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {f.redirect},
		"client_id": {f.client}, "code_verifier": {f.verifier}, "resource": {h.srv.URL + "/mcp"}}
	for k, v := range extra {
		form[k] = v
	}
	return h.postForm(authserver.TokenPath, form)
}

func (h *harness) refresh(client, token string) answer {
	return h.postForm(authserver.TokenPath, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {token}, "client_id": {client}})
}

// tokens runs a whole authorization and returns the token answer.
func (h *harness) tokens(client string) map[string]any {
	h.t.Helper()
	f := h.newFlow(client)
	a := h.exchange(f, h.consent(f), nil)
	if a.status != http.StatusOK {
		h.t.Fatalf("exchange: %d %s", a.status, a.body)
	}
	return a.json(h.t)
}

// oauthError checks an RFC 6749 §5.2 error answer.
func oauthError(t *testing.T, what string, a answer, status int, code string) {
	t.Helper()
	if a.status != status || !strings.HasPrefix(a.header.Get("Content-Type"), "application/json") {
		t.Errorf("%s: %d %s %s, want %d %s", what, a.status, a.header.Get("Content-Type"), a.body, status, code)
		return
	}
	if got := a.json(t)["error"]; got != code {
		t.Errorf("%s: error %v, want %s (%s)", what, got, code, a.body)
	}
}

// jsonSegment decodes a JWT segment.
func jsonSegment(s string) ([]byte, error) { return base64.RawURLEncoding.DecodeString(s) }
