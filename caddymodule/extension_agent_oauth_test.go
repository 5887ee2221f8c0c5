package caddymodule_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/gateway/agentpolicy/rpcinspect"
	"github.com/adreswijzer/adreswijzer/gateway/keys"
)

// authServer is an OAuth authorization server as far as a resource server sees one: its
// RFC 8414 metadata and its signing keys as a JWK set, which the test can make fail.
type authServer struct {
	*httptest.Server
	rsa     *rsa.PrivateKey
	ec      *ecdsa.PrivateKey
	failing atomic.Bool
}

// signingKeys are made once per test binary: RSA generation is slow.
var signingKeys = sync.OnceValues(func() (*rsa.PrivateKey, *ecdsa.PrivateKey) {
	r, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	e, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic(err)
	}
	return r, e
})

func newAuthServer(t *testing.T) *authServer {
	a := &authServer{}
	a.rsa, a.ec = signingKeys()
	b64 := base64.RawURLEncoding.EncodeToString
	ecPub, err := a.ec.PublicKey.Bytes() // 0x04 || X || Y
	if err != nil {
		t.Fatal(err)
	}
	jwks, _ := json.Marshal(map[string]any{"keys": []map[string]string{
		{"kty": "RSA", "kid": "rsa-1", "use": "sig", "alg": "RS256", "n": b64(a.rsa.N.Bytes()), "e": b64(big.NewInt(int64(a.rsa.E)).Bytes())},
		{"kty": "EC", "kid": "ec-1", "use": "sig", "crv": "P-256", "x": b64(ecPub[1:33]), "y": b64(ecPub[33:])},
	}})
	a.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/.well-known/oauth-authorization-server":
			json.NewEncoder(w).Encode(map[string]any{"issuer": a.URL, "authorization_endpoint": a.URL + "/authorize",
				"token_endpoint": a.URL + "/token", "jwks_uri": a.URL + "/jwks", "response_types_supported": []string{"code"},
				"code_challenge_methods_supported": []string{"S256"}})
		case "/jwks":
			if a.failing.Load() {
				http.Error(w, "down", http.StatusServiceUnavailable)
				return
			}
			w.Write(jwks)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(a.Close)
	return a
}

// token issues an access token; change edits the claims before signing.
func (a *authServer) token(t *testing.T, resource string, method jwt.SigningMethod, change func(jwt.MapClaims)) string {
	t.Helper()
	now := time.Now()
	c := jwt.MapClaims{"iss": a.URL, "aud": resource, "sub": "user-7", "acct": "acct-oauth", "client_id": "agent-host",
		"scope": "openid address:verify", "iat": now.Add(-time.Minute).Unix(), "exp": now.Add(10 * time.Minute).Unix()}
	if change != nil {
		change(c)
	}
	tok := jwt.NewWithClaims(method, c)
	var key any = a.rsa
	tok.Header["kid"] = "rsa-1"
	if method == jwt.SigningMethodES256 {
		key, tok.Header["kid"] = a.ec, "ec-1"
	}
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// OAuth 2.1 for agents: the metadata, the challenge, tokens the authorization server signed
// for this resource with the scope, and every way a token can be wrong.
func TestAgentOAuth(t *testing.T) {
	as := newAuthServer(t)
	g := startGateway(t, gatewayConfig{upstream: upstream(t),
		extra: "plan agents 1000\n" + agentExtension(generous,
			"authorization_server "+as.URL, "jwks_url "+as.URL+"/jwks", "account_claim acct", "plan agents",
			"resource_documentation http://127.0.0.1:{{port}}/docs"),
		keys: []keys.Options{{Name: "live", Kind: keys.Live, Account: "acct-oauth-key"},
			{Name: "noscope", Kind: keys.Live, Account: "acct-oauth-key", Scopes: []string{"billing:read"}}}})
	resource := g.base + "/mcp"
	metadataURL := g.base + "/.well-known/oauth-protected-resource/mcp"

	t.Run("metadata", func(t *testing.T) {
		a := g.do(req{path: "/.well-known/oauth-protected-resource/mcp"})
		expect(t, "metadata", a, 200, "")
		if a.header.Get("Access-Control-Allow-Origin") != "*" {
			t.Error("the metadata is not readable from pages")
		}
		var m oauthex.ProtectedResourceMetadata
		if err := json.Unmarshal(a.body, &m); err != nil || m.Resource != resource || len(m.AuthorizationServers) != 1 ||
			m.AuthorizationServers[0] != as.URL || strings.Join(m.ScopesSupported, " ") != "address:verify" ||
			strings.Join(m.BearerMethodsSupported, " ") != "header" {
			t.Errorf("metadata %s", a.body)
		}
		// As an MCP client reads it.
		prm, err := oauthex.GetProtectedResourceMetadata(context.Background(), metadataURL, resource, http.DefaultClient)
		if err != nil || prm.Resource != resource {
			t.Errorf("the SDK's client does not accept the metadata: %v", err)
		}
		if a := g.do(req{method: http.MethodHead, path: "/.well-known/oauth-protected-resource/mcp"}); a.status != 200 || len(a.body) != 0 {
			t.Errorf("HEAD: %d, %d bytes", a.status, len(a.body))
		}
	})

	t.Run("challenge", func(t *testing.T) {
		a := g.do(req{path: "/mcp", body: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)})
		expect(t, "no credential", a, 401, adreswijzer.ErrUnauthorized)
		want := fmt.Sprintf(`Bearer resource_metadata=%q, scope="address:verify"`, metadataURL)
		if got := a.header.Get("WWW-Authenticate"); got != want {
			t.Errorf("challenge %q, want %q", got, want)
		}
		chs, err := oauthex.ParseWWWAuthenticate(a.header.Values("WWW-Authenticate"))
		if err != nil || len(chs) != 1 || chs[0].Params["resource_metadata"] != metadataURL {
			t.Errorf("the SDK's client does not read the challenge: %v %+v", err, chs)
		}
		// An unknown API key gets the same pointer, saying that the key it sent was refused
		// (RFC 6750 invalid_token); a credential in the URL, which was not read as one, the
		// plain pointer.
		a = g.do(req{path: "/mcp", auth: "Bearer aw_live_" + strings.Repeat("Z", 43), body: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)})
		expect(t, "unknown key", a, 401, adreswijzer.ErrUnauthorized)
		if refused := fmt.Sprintf(`Bearer error="invalid_token", resource_metadata=%q, scope="address:verify"`, metadataURL); a.header.Get("WWW-Authenticate") != refused {
			t.Errorf("unknown key: challenge %q, want %q", a.header.Get("WWW-Authenticate"), refused)
		}
		a = g.do(req{path: "/mcp?access_token=x", key: "live", body: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)})
		expect(t, "token in URL", a, 401, adreswijzer.ErrUnauthorized)
		if a.header.Get("WWW-Authenticate") != want {
			t.Errorf("token in URL: challenge %q", a.header.Get("WWW-Authenticate"))
		}
		// An API key without the scope: 403 with insufficient_scope, as a token without it.
		a = g.do(req{path: "/mcp", key: "noscope", body: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)})
		expect(t, "key without the scope", a, 403, adreswijzer.ErrForbidden)
		if scope := fmt.Sprintf(`Bearer error="insufficient_scope", resource_metadata=%q, scope="address:verify"`, metadataURL); a.header.Get("WWW-Authenticate") != scope {
			t.Errorf("key without the scope: challenge %q, want %q", a.header.Get("WWW-Authenticate"), scope)
		}
	})

	t.Run("valid tokens", func(t *testing.T) {
		for _, c := range []struct {
			method  jwt.SigningMethod
			version string
		}{{jwt.SigningMethodRS256, "2025-06-18"}, {jwt.SigningMethodES256, "2026-07-28"}} {
			cs := g.connectAgent(t, as.token(t, resource, c.method, nil), c.version)
			if out := mustVerify(t, cs, map[string]any{"address": weespValid}); out.Status != adreswijzer.VerdictValid {
				t.Errorf("%s: %s", c.method.Alg(), out.Status)
			}
			if res := callTool(t, cs, rpcinspect.ToolVerify, map[string]any{"address": weespValid, "lang": "xx"}, nil); !res.IsError {
				t.Error("lang xx accepted")
			}
			var lookup adreswijzer.LookupResponse
			callTool(t, cs, rpcinspect.ToolLookup, map[string]any{"country": "BE", "postcode": "1130", "street": "Harenheidestraat", "houseNumber": 67}, &lookup)
			if len(lookup.Addresses) != 1 {
				t.Errorf("%s: Haren lookup %d addresses", c.method.Alg(), len(lookup.Addresses))
			}
		}
		// Counted for the token's account: the verify calls and lookups, not the calls the
		// tool refused (lang xx).
		g.waitUsageFor(t, "acct-oauth", 4)
		// An API key still works as the bearer credential.
		cs := g.connectAgent(t, g.secrets["live"], "2025-06-18")
		mustVerify(t, cs, map[string]any{"address": malmedy})
		g.waitUsageFor(t, "acct-oauth-key", 1)
	})

	t.Run("refused tokens", func(t *testing.T) {
		other, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			t.Fatal(err)
		}
		forged := jwt.NewWithClaims(jwt.SigningMethodRS256, jwt.MapClaims{"iss": as.URL, "aud": resource, "sub": "x", "acct": "acct-oauth",
			"scope": "address:verify", "exp": time.Now().Add(time.Minute).Unix()})
		forged.Header["kid"] = "rsa-1"
		forgedToken, _ := forged.SignedString(other)
		hs := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"iss": as.URL, "aud": resource, "sub": "x", "acct": "acct-oauth",
			"scope": "address:verify", "exp": time.Now().Add(time.Minute).Unix()})
		hs.Header["kid"] = "rsa-1"
		hsToken, _ := hs.SignedString([]byte("a shared secret of enough length!"))
		rs := jwt.SigningMethodRS256
		for _, c := range []struct {
			name   string
			token  string
			status int
			err    string
		}{
			{"expired", as.token(t, resource, rs, func(c jwt.MapClaims) { c["exp"] = time.Now().Add(-5 * time.Minute).Unix() }), 401, "invalid_token"},
			{"wrong audience", as.token(t, resource, rs, func(c jwt.MapClaims) { c["aud"] = "https://other.example/mcp" }), 401, "invalid_token"},
			{"wrong issuer", as.token(t, resource, rs, func(c jwt.MapClaims) { c["iss"] = "https://auth.other.example" }), 401, "invalid_token"},
			{"no account", as.token(t, resource, rs, func(c jwt.MapClaims) { delete(c, "acct") }), 401, "invalid_token"},
			{"account not a name", as.token(t, resource, rs, func(c jwt.MapClaims) { c["acct"] = "acct}{x" }), 401, "invalid_token"},
			{"missing scope", as.token(t, resource, rs, func(c jwt.MapClaims) { c["scope"] = "openid profile" }), 403, "insufficient_scope"},
			{"signed by another key", forgedToken, 401, "invalid_token"},
			{"HMAC", hsToken, 401, "invalid_token"},
		} {
			a := g.do(req{path: "/mcp", auth: "Bearer " + c.token, body: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)})
			code := adreswijzer.ErrUnauthorized
			if c.status == 403 {
				code = adreswijzer.ErrForbidden
			}
			expect(t, c.name, a, c.status, code)
			chs, err := oauthex.ParseWWWAuthenticate(a.header.Values("WWW-Authenticate"))
			if err != nil || len(chs) != 1 || chs[0].Params["error"] != c.err || chs[0].Params["resource_metadata"] != metadataURL {
				t.Errorf("%s: challenge %q", c.name, a.header.Get("WWW-Authenticate"))
			}
			if strings.Contains(string(a.body), c.token) {
				t.Errorf("%s: the answer echoes the token", c.name)
			}
		}
		// An agent token is for /mcp only.
		a := g.do(req{path: nlLookup, auth: "Bearer " + as.token(t, resource, rs, nil)})
		expect(t, "token on a REST endpoint", a, 401, adreswijzer.ErrUnauthorized)
	})

	t.Run("keys unavailable", func(t *testing.T) {
		// A gateway that has not fetched the keys yet, while the authorization server is
		// down, cannot judge a token: 503, not 401, because the token may well be good.
		down := newAuthServer(t)
		down.failing.Store(true)
		g2 := startGateway(t, gatewayConfig{upstream: upstream(t),
			extra: agentExtension("authorization_server "+down.URL, "jwks_url "+down.URL+"/jwks", "account_claim acct")})
		a := g2.do(req{path: "/mcp", auth: "Bearer " + down.token(t, g2.base+"/mcp", jwt.SigningMethodRS256, nil),
			body: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)})
		expect(t, "keys unavailable", a, 503, adreswijzer.ErrServiceUnavailable)
	})
}
