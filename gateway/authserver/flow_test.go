package authserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/adreswijzer/adreswijzer/gateway/agentpolicy/oauth"
	"github.com/adreswijzer/adreswijzer/gateway/authserver"
)

// The metadata names every endpoint and only what the server does.
func TestMetadata(t *testing.T) {
	h := newHarness(t)
	a := h.do(http.MethodGet, authserver.MetadataPath, nil, "")
	if a.status != http.StatusOK || a.header.Get("Content-Type") != "application/json" || a.header.Get("Access-Control-Allow-Origin") != "" {
		t.Fatalf("metadata: %d %v", a.status, a.header)
	}
	var got map[string]any
	if err := json.Unmarshal(a.body, &got); err != nil {
		t.Fatal(err)
	}
	base := h.srv.URL
	want := map[string]any{
		"issuer": base, "authorization_endpoint": base + "/oauth/authorize", "token_endpoint": base + "/oauth/token",
		"registration_endpoint": base + "/oauth/register", "revocation_endpoint": base + "/oauth/revoke",
		"jwks_uri": base + "/oauth/jwks", "scopes_supported": []any{"address:verify"}, "response_types_supported": []any{"code"},
		"response_modes_supported": []any{"query"}, "grant_types_supported": []any{"authorization_code", "refresh_token"},
		"token_endpoint_auth_methods_supported": []any{"none"}, "revocation_endpoint_auth_methods_supported": []any{"none"},
		"code_challenge_methods_supported": []any{"S256"}, "authorization_response_iss_parameter_supported": true,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("metadata\n got %v\nwant %v", got, want)
	}
	// A browser agent may read it from its own origin.
	req, _ := http.NewRequest(http.MethodGet, base+authserver.MetadataPath, nil)
	req.Header.Set("Origin", "https://agent.example")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Header.Get("Access-Control-Allow-Origin") != "https://agent.example" || resp.Header.Get("Access-Control-Allow-Credentials") != "" {
		t.Errorf("CORS: %v", resp.Header)
	}
	if a := h.do(http.MethodGet, authserver.MetadataPath+"/tenant", nil, ""); a.status != http.StatusNotFound {
		t.Errorf("metadata of an issuer path: %d", a.status)
	}
}

// The whole flow: the token verifies with the gateway's own verifier, names the account,
// the client and the grant; refresh tokens rotate, and a reused one revokes the grant.
func TestCodeFlow(t *testing.T) {
	h := newHarness(t)
	client := h.client()
	tok := h.tokens(client)
	if tok["token_type"] != "Bearer" || tok["expires_in"] != float64(600) || tok["scope"] != "address:verify" ||
		!strings.HasPrefix(tok["refresh_token"].(string), "awrt_") || tok["id_token"] != nil {
		t.Fatalf("token answer %v", tok)
	}
	v, err := oauth.NewVerifier(oauth.Config{Issuer: h.srv.URL, Resource: h.srv.URL + "/mcp"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := v.Verify(context.Background(), tok["access_token"].(string))
	if err != nil {
		t.Fatalf("the gateway's verifier refuses the token: %v", err)
	}
	if p.Account != h.account.ID || p.ClientID != client || !strings.HasPrefix(p.Grant, "grt_") || !slices.Equal(p.Scopes, []string{"address:verify"}) ||
		time.Until(p.Expires) > 10*time.Minute || time.Until(p.Expires) < 9*time.Minute {
		t.Errorf("principal %+v", p)
	}
	st, err := h.as.CheckGrant(context.Background(), p.Grant)
	if err != nil || !st.Active || st.Account != h.account.ID || st.Plan != "business" {
		t.Errorf("grant %+v %v", st, err)
	}

	// Refresh: a new pair, the old refresh token spent.
	first := tok["refresh_token"].(string)
	a := h.refresh(client, first)
	if a.status != http.StatusOK {
		t.Fatalf("refresh: %d %s", a.status, a.body)
	}
	second := a.json(t)["refresh_token"].(string)
	if second == first {
		t.Fatal("refresh token not rotated")
	}
	if _, err := v.Verify(context.Background(), a.json(t)["access_token"].(string)); err != nil {
		t.Errorf("refreshed access token: %v", err)
	}
	// The spent one used again: refused, and the grant with it.
	oauthError(t, "reused refresh token", h.refresh(client, first), http.StatusBadRequest, "invalid_grant")
	oauthError(t, "refresh after the reuse", h.refresh(client, second), http.StatusBadRequest, "invalid_grant")
	if st, _ := h.as.CheckGrant(context.Background(), p.Grant); st.Active {
		t.Error("grant still active after a refresh token was reused")
	}
	if agents, _ := h.as.Agents(context.Background(), h.account.ID); len(agents) != 0 {
		t.Errorf("revoked grant still listed: %v", agents)
	}
	h.noSecretsLogged(tok["access_token"].(string), first, second)
}

// Refusals at the authorization endpoint: a client or redirect URI that is not known is
// shown, never sent anywhere; everything else goes back to the client, as RFC 6749 §4.1.2.1
// says.
func TestAuthorizeRefusals(t *testing.T) {
	h := newHarness(t)
	client := h.client()
	for _, c := range []struct {
		name  string
		edit  func(*flow)
		error string // "" for a page, else the error sent to the client
	}{
		{"unknown client", func(f *flow) { f.client = "awc_00000000000000000000000000000000" }, ""},
		{"unregistered redirect", func(f *flow) { f.redirect = "https://evil.example/cb" }, ""},
		{"loopback on another host", func(f *flow) { f.redirect = "http://localhost:4242/callback" }, ""},
		{"loopback, another path", func(f *flow) { f.redirect = "http://127.0.0.1:4242/other" }, ""},
		{"plain PKCE", func(f *flow) {
			f.params.Set("code_challenge_method", "plain")
			f.params.Set("code_challenge", f.verifier)
		}, "invalid_request"},
		{"no PKCE", func(f *flow) { f.params.Set("code_challenge", "") }, "invalid_request"},
		{"PKCE without a method", func(f *flow) { f.params.Set("code_challenge_method", "") }, "invalid_request"},
		{"another resource", func(f *flow) { f.params.Set("resource", "https://other.example/mcp") }, "invalid_target"},
		{"two resources", func(f *flow) { f.params["resource"] = []string{h.srv.URL + "/mcp", "https://other.example/"} }, "invalid_target"},
		{"implicit", func(f *flow) { f.params.Set("response_type", "token") }, "unsupported_response_type"},
		{"fragment answers", func(f *flow) { f.params.Set("response_mode", "fragment") }, "invalid_request"},
		{"no person", func(f *flow) { f.params.Set("prompt", "none") }, "interaction_required"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := h.newFlow(client)
			c.edit(f)
			a := h.authorize(f)
			if c.error == "" {
				if a.status != http.StatusBadRequest || a.location != nil {
					t.Errorf("%d %v, want a 400 page", a.status, a.location)
				}
				return
			}
			if a.status != http.StatusFound || a.location == nil || a.location.Host != "127.0.0.1:4242" {
				t.Fatalf("%d %v %s, want a redirect to the client", a.status, a.location, a.body)
			}
			q := a.location.Query()
			if q.Get("error") != c.error || q.Get("state") != f.state || q.Get("iss") != h.srv.URL || q.Get("code") != "" {
				t.Errorf("answer %v, want error=%s", q, c.error)
			}
		})
	}
	// A loopback redirect URI on another port is the same URI (RFC 8252 §7.3), and no
	// resource parameter means the one resource there is.
	f := h.newFlow(client)
	f.redirect = "http://127.0.0.1:50123/callback"
	f.params.Del("resource")
	if a := h.authorize(f); a.status != http.StatusFound || a.location.Path != "/dashboard/consent" {
		t.Errorf("loopback on another port: %d %v", a.status, a.location)
	}
	if strings.Contains(h.logs.String(), "st-") {
		t.Error("a state reached the log")
	}
}

// The person refuses: the client hears access_denied, with its state.
func TestDeny(t *testing.T) {
	h := newHarness(t)
	f := h.newFlow(h.client())
	a := h.authorize(f)
	id := a.location.Query().Get("request")
	p, err := h.as.Pending(context.Background(), id)
	if err != nil || p.ClientName != "Test agent" || p.RedirectHost != "127.0.0.1:4242" || p.Resource != h.srv.URL+"/mcp" ||
		!slices.Equal(p.Scope, []string{"address:verify"}) {
		t.Fatalf("pending %+v %v", p, err)
	}
	back, err := h.as.Deny(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(back)
	if q := u.Query(); u.Host != "127.0.0.1:4242" || q.Get("error") != "access_denied" || q.Get("state") != f.state || q.Get("code") != "" {
		t.Errorf("denied: %s", back)
	}
	// Answered: neither shown nor allowed again.
	if _, err := h.as.Pending(context.Background(), id); err == nil {
		t.Error("an answered request is still pending")
	}
	if _, err := h.as.Approve(context.Background(), id, h.account.ID); err == nil {
		t.Error("an answered request was allowed")
	}
}

// Refusals at the token endpoint, as RFC 6749 §5.2 and RFC 8707 say.
func TestTokenRefusals(t *testing.T) {
	h := newHarness(t)
	client, other := h.client(), h.client()
	for _, c := range []struct {
		name   string
		extra  func(f *flow) url.Values
		status int
		error  string
	}{
		{"wrong verifier", func(*flow) url.Values { return url.Values{"code_verifier": {oauth2.GenerateVerifier()}} }, 400, "invalid_grant"},
		{"short verifier", func(*flow) url.Values { return url.Values{"code_verifier": {"abc"}} }, 400, "invalid_grant"},
		{"no verifier", func(*flow) url.Values { return url.Values{"code_verifier": {""}} }, 400, "invalid_grant"},
		{"another redirect URI", func(*flow) url.Values { return url.Values{"redirect_uri": {"http://127.0.0.1:4243/callback"}} }, 400, "invalid_grant"},
		{"another client", func(*flow) url.Values { return url.Values{"client_id": {other}} }, 400, "invalid_grant"},
		{"unknown client", func(*flow) url.Values { return url.Values{"client_id": {"awc_x"}} }, 401, "invalid_client"},
		{"a secret", func(*flow) url.Values { return url.Values{"client_secret": {"s3cret"}} }, 401, "invalid_client"},
		{"another resource", func(*flow) url.Values { return url.Values{"resource": {"https://other.example/mcp"}} }, 400, "invalid_target"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := h.newFlow(client)
			code := h.consent(f)
			oauthError(t, c.name, h.exchange(f, code, c.extra(f)), c.status, c.error)
		})
	}
	// A code works once.
	f := h.newFlow(client)
	code := h.consent(f)
	if a := h.exchange(f, code, nil); a.status != http.StatusOK {
		t.Fatalf("first exchange: %d %s", a.status, a.body)
	}
	oauthError(t, "second exchange", h.exchange(f, code, nil), 400, "invalid_grant")
	// And for a minute.
	f = h.newFlow(client)
	code = h.consent(f)
	h.clock.advance(2 * time.Minute)
	oauthError(t, "expired code", h.exchange(f, code, nil), 400, "invalid_grant")
	// A client registered without the refresh grant gets no refresh token, and may not ask.
	st, reply := h.register(`{"redirect_uris":["` + redirect + `"]}`)
	if st != http.StatusCreated {
		t.Fatal(st)
	}
	plain := reply["client_id"].(string)
	tok := h.tokens(plain)
	if _, ok := tok["refresh_token"]; ok {
		t.Errorf("refresh token for a client without the grant: %v", tok)
	}
	oauthError(t, "refresh by a client without the grant", h.refresh(plain, "awrt_x"), 400, "unauthorized_client")
	oauthError(t, "password grant", h.postForm(authserver.TokenPath, url.Values{"grant_type": {"password"}, "client_id": {client}}), 400, "unsupported_grant_type")
}

// Revocation (RFC 7009) of a refresh or an access token revokes the grant; unknown tokens
// and other clients' are answered 200 and change nothing.
func TestRevocation(t *testing.T) {
	h := newHarness(t)
	client, other := h.client(), h.client()
	revoke := func(client, token string) answer {
		return h.postForm(authserver.RevokePath, url.Values{"token": {token}, "client_id": {client}})
	}
	grantOf := func(access string) string {
		var c authserver.AccessClaims
		parts := strings.Split(access, ".")
		b, _ := jsonSegment(parts[1])
		_ = json.Unmarshal(b, &c)
		return c.Grant
	}
	for _, kind := range []string{"refresh_token", "access_token"} {
		tok := h.tokens(client)
		g := grantOf(tok["access_token"].(string))
		for _, c := range []struct{ client, token string }{{client, "nonsense"}, {other, tok[kind].(string)}} {
			if a := revoke(c.client, c.token); a.status != http.StatusOK {
				t.Errorf("%s: revoke %q as %s: %d %s", kind, c.token, c.client, a.status, a.body)
			}
		}
		if st, _ := h.as.CheckGrant(context.Background(), g); !st.Active {
			t.Fatalf("%s: another client's revocation took effect", kind)
		}
		if a := revoke(client, tok[kind].(string)); a.status != http.StatusOK {
			t.Fatalf("%s: revoke: %d %s", kind, a.status, a.body)
		}
		if st, _ := h.as.CheckGrant(context.Background(), g); st.Active {
			t.Errorf("%s: grant active after its revocation", kind)
		}
		if kind == "access_token" {
			oauthError(t, "refresh after the revocation", h.refresh(client, tok["refresh_token"].(string)), 400, "invalid_grant")
		}
	}
}

// The dashboard's side: an account's agents are listed and revoked by it alone.
func TestAgents(t *testing.T) {
	h := newHarness(t)
	client := h.client()
	h.tokens(client)
	ctx := context.Background()
	list, err := h.as.Agents(ctx, h.account.ID)
	if err != nil || len(list) != 1 || list[0].ClientName != "Test agent" || list[0].ClientID != client || list[0].RedirectHost != "127.0.0.1" {
		t.Fatalf("agents %+v %v", list, err)
	}
	if err := h.as.RevokeAgent(ctx, "acct_0000000000000000", list[0].Grant); err == nil {
		t.Error("another account revoked the agent")
	}
	if err := h.as.RevokeAgent(ctx, h.account.ID, list[0].Grant); err != nil {
		t.Fatal(err)
	}
	if st, _ := h.as.CheckGrant(ctx, list[0].Grant); st.Active {
		t.Error("revoked on the dashboard, still active here")
	}
	// An account that is deleted takes its grants along.
	h.tokens(client)
	if err := h.accounts.Delete(ctx, h.account.ID); err != nil {
		t.Fatal(err)
	}
	list, _ = h.as.Agents(ctx, h.account.ID)
	if st, _ := h.as.CheckGrant(ctx, list[0].Grant); st.Active {
		t.Error("a grant of a deleted account stands")
	}
}

// noSecretsLogged fails when a token or code reached the log.
func (h *harness) noSecretsLogged(secrets ...string) {
	h.t.Helper()
	logs := h.logs.String()
	for _, s := range secrets {
		if s != "" && strings.Contains(logs, s) {
			h.t.Errorf("a secret reached the log:\n%s", logs)
		}
	}
	for _, prefix := range []string{"awrt_", "awco_", "eyJ"} {
		if strings.Contains(logs, prefix) {
			h.t.Errorf("something like a token (%s) reached the log:\n%s", prefix, logs)
		}
	}
}
