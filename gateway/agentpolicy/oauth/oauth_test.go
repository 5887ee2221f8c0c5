package oauth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

const resource = "https://api.adreswijzer.example/mcp"

// authServer is a test authorization server: RFC 8414 metadata (or only OpenID discovery)
// and a JWK set that tests change to rotate keys or make unavailable.
type authServer struct {
	*httptest.Server
	mu        sync.Mutex
	keys      []map[string]string
	fail      bool
	oidcOnly  bool
	jwksFetch atomic.Int32
}

func newAuthServer(t testing.TB) *authServer {
	a := &authServer{}
	a.Server = httptest.NewServer(http.HandlerFunc(a.serve))
	t.Cleanup(a.Close)
	return a
}

func (a *authServer) serve(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	switch r.URL.Path {
	case "/.well-known/oauth-authorization-server":
		if a.oidcOnly {
			http.NotFound(w, r)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{
			"issuer": a.URL, "authorization_endpoint": a.URL + "/authorize", "token_endpoint": a.URL + "/token",
			"jwks_uri": a.URL + "/jwks", "response_types_supported": []string{"code"},
			"code_challenge_methods_supported": []string{"S256"},
		})
	case "/.well-known/openid-configuration":
		json.NewEncoder(w).Encode(map[string]any{"issuer": a.URL, "jwks_uri": a.URL + "/jwks"})
	case "/jwks":
		a.jwksFetch.Add(1)
		if a.fail {
			http.Error(w, "down", http.StatusInternalServerError)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"keys": a.keys})
	default:
		http.NotFound(w, r)
	}
}

func (a *authServer) publish(keys ...map[string]string) {
	a.mu.Lock()
	a.keys = keys
	a.mu.Unlock()
}

func (a *authServer) setFail(fail bool) {
	a.mu.Lock()
	a.fail = fail
	a.mu.Unlock()
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func rsaJWK(kid string, k *rsa.PrivateKey) map[string]string {
	return map[string]string{"kty": "RSA", "kid": kid, "use": "sig", "alg": "RS256",
		"n": b64(k.N.Bytes()), "e": b64(big.NewInt(int64(k.E)).Bytes())}
}

func ecJWK(kid string, k *ecdsa.PrivateKey) map[string]string {
	pub, err := k.PublicKey.Bytes() // 0x04 || X || Y
	if err != nil {
		panic(err)
	}
	return map[string]string{"kty": "EC", "kid": kid, "crv": "P-256", "x": b64(pub[1:33]), "y": b64(pub[33:])}
}

// keys are generated once per test binary: RSA generation is slow.
var testKeys = sync.OnceValue(func() (k struct {
	rsa1, rsa2 *rsa.PrivateKey
	weak       *rsa.PrivateKey
	ec         *ecdsa.PrivateKey
}) {
	var err error
	if k.rsa1, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
		panic(err)
	}
	if k.rsa2, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
		panic(err)
	}
	if k.weak, err = rsa.GenerateKey(rand.Reader, 1024); err != nil {
		panic(err)
	}
	if k.ec, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader); err != nil {
		panic(err)
	}
	return k
})

func sign(t testing.TB, method jwt.SigningMethod, kid string, key any, claims jwt.MapClaims) string {
	t.Helper()
	tok := jwt.NewWithClaims(method, claims)
	if kid != "" {
		tok.Header["kid"] = kid
	}
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func claimsFor(a *authServer) jwt.MapClaims {
	now := time.Now()
	return jwt.MapClaims{
		"iss": a.URL, "sub": "user-42", "aud": resource, "client_id": "claude-desktop",
		"scope": "openid address:verify", "iat": now.Unix(), "exp": now.Add(time.Hour).Unix(),
	}
}

func with(c jwt.MapClaims, k string, v any) jwt.MapClaims {
	out := jwt.MapClaims{}
	for kk, vv := range c {
		out[kk] = vv
	}
	if v == nil {
		delete(out, k)
	} else {
		out[k] = v
	}
	return out
}

func setup(t testing.TB, cfg Config) (*Verifier, *authServer) {
	a := newAuthServer(t)
	k := testKeys()
	a.publish(rsaJWK("rsa-1", k.rsa1), ecJWK("ec-1", k.ec), rsaJWK("weak", k.weak),
		map[string]string{"kty": "RSA", "kid": "enc", "use": "enc", "n": b64(k.rsa2.N.Bytes()), "e": "AQAB"})
	cfg.Issuer = a.URL
	cfg.Resource = resource
	v, err := NewVerifier(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return v, a
}

func TestVerify(t *testing.T) {
	v, a := setup(t, Config{})
	k := testKeys()
	base := claimsFor(a)
	cases := []struct {
		name  string
		token string
		err   error
		why   string
	}{
		{name: "valid RS256", token: sign(t, jwt.SigningMethodRS256, "rsa-1", k.rsa1, base)},
		{name: "valid ES256", token: sign(t, jwt.SigningMethodES256, "ec-1", k.ec, base)},
		{name: "audience list with trailing slash", token: sign(t, jwt.SigningMethodRS256, "rsa-1", k.rsa1, with(base, "aud", []string{"https://other.example", resource + "/"}))},
		{name: "scp array", token: sign(t, jwt.SigningMethodRS256, "rsa-1", k.rsa1, with(with(base, "scope", nil), "scp", []string{"address:verify"}))},
		{name: "expired", token: sign(t, jwt.SigningMethodRS256, "rsa-1", k.rsa1, with(base, "exp", time.Now().Add(-time.Minute).Unix())),
			err: ErrInvalidToken, why: "expired"},
		{name: "expired within the leeway", token: sign(t, jwt.SigningMethodRS256, "rsa-1", k.rsa1, with(base, "exp", time.Now().Add(-10*time.Second).Unix()))},
		{name: "no expiry", token: sign(t, jwt.SigningMethodRS256, "rsa-1", k.rsa1, with(base, "exp", nil)),
			err: ErrInvalidToken, why: "required claim missing"},
		{name: "not valid yet", token: sign(t, jwt.SigningMethodRS256, "rsa-1", k.rsa1, with(base, "nbf", time.Now().Add(time.Hour).Unix())),
			err: ErrInvalidToken, why: "not valid yet"},
		{name: "wrong audience", token: sign(t, jwt.SigningMethodRS256, "rsa-1", k.rsa1, with(base, "aud", "https://api.adreswijzer.example/v1")),
			err: ErrInvalidToken, why: "not issued for this resource"},
		{name: "no audience", token: sign(t, jwt.SigningMethodRS256, "rsa-1", k.rsa1, with(base, "aud", nil)),
			err: ErrInvalidToken, why: "not issued for this resource"},
		{name: "wrong issuer", token: sign(t, jwt.SigningMethodRS256, "rsa-1", k.rsa1, with(base, "iss", "https://evil.example")),
			err: ErrInvalidToken, why: "wrong issuer"},
		{name: "missing scope", token: sign(t, jwt.SigningMethodRS256, "rsa-1", k.rsa1, with(base, "scope", "openid profile")),
			err: ErrInsufficientScope},
		{name: "scope as a prefix is not the scope", token: sign(t, jwt.SigningMethodRS256, "rsa-1", k.rsa1, with(base, "scope", "address:verify:extra")),
			err: ErrInsufficientScope},
		{name: "no subject", token: sign(t, jwt.SigningMethodRS256, "rsa-1", k.rsa1, with(base, "sub", nil)),
			err: ErrInvalidToken, why: "no subject"},
		{name: "unknown kid", token: sign(t, jwt.SigningMethodRS256, "rsa-9", k.rsa2, base),
			err: ErrInvalidToken, why: "unknown signing key"},
		{name: "no kid", token: sign(t, jwt.SigningMethodRS256, "", k.rsa1, base),
			err: ErrInvalidToken, why: "unknown signing key"},
		{name: "signed by another key under a known kid", token: sign(t, jwt.SigningMethodRS256, "rsa-1", k.rsa2, base),
			err: ErrInvalidToken, why: "bad signature"},
		{name: "weak RSA key is not trusted", token: sign(t, jwt.SigningMethodRS256, "weak", k.weak, base),
			err: ErrInvalidToken, why: "unknown signing key"},
		{name: "encryption key is not a signing key", token: sign(t, jwt.SigningMethodRS256, "enc", k.rsa2, base),
			err: ErrInvalidToken, why: "unknown signing key"},
		{name: "EC key under an RSA algorithm", token: sign(t, jwt.SigningMethodES256, "rsa-1", k.ec, base),
			err: ErrInvalidToken},
		{name: "tampered payload", token: tamper(t, sign(t, jwt.SigningMethodRS256, "rsa-1", k.rsa1, base)),
			err: ErrInvalidToken, why: "bad signature"},
		{name: "alg none", token: sign(t, jwt.SigningMethodNone, "rsa-1", jwt.UnsafeAllowNoneSignatureType, base),
			err: ErrInvalidToken},
		{name: "HS256 with the public key as secret", token: sign(t, jwt.SigningMethodHS256, "rsa-1", x509.MarshalPKCS1PublicKey(&k.rsa1.PublicKey), base),
			err: ErrInvalidToken},
		{name: "RS384 is not accepted", token: sign(t, jwt.SigningMethodRS384, "rsa-1", k.rsa1, base),
			err: ErrInvalidToken},
		{name: "garbage", token: "not.a.jwt", err: ErrInvalidToken, why: "malformed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := v.Verify(context.Background(), tc.token)
			if tc.err == nil {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if p.Subject != "user-42" || p.Account != "user-42" || p.ClientID != "claude-desktop" ||
					!strings.Contains(strings.Join(p.Scopes, " "), Scope) || p.Expires.IsZero() {
					t.Errorf("principal %+v", p)
				}
				return
			}
			if !errors.Is(err, tc.err) {
				t.Fatalf("err = %v, want %v", err, tc.err)
			}
			if tc.why != "" && !strings.Contains(err.Error(), tc.why) {
				t.Errorf("err = %q, want it to say %q", err, tc.why)
			}
			want := http.StatusUnauthorized
			if tc.err == ErrInsufficientScope {
				want = http.StatusForbidden
			}
			if Status(err) != want {
				t.Errorf("Status = %d, want %d", Status(err), want)
			}
		})
	}
}

// tamper changes the subject in the payload and keeps the signature.
func tamper(t *testing.T, tok string) string {
	parts := strings.Split(tok, ".")
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	parts[1] = b64([]byte(strings.Replace(string(payload), "user-42", "admin-1", 1)))
	return strings.Join(parts, ".")
}

func TestAccountClaim(t *testing.T) {
	v, a := setup(t, Config{AccountClaim: "https://adreswijzer.example/account"})
	k := testKeys()
	base := claimsFor(a)
	p, err := v.Verify(context.Background(), sign(t, jwt.SigningMethodES256, "ec-1", k.ec, with(base, "https://adreswijzer.example/account", "acct_7")))
	if err != nil || p.Account != "acct_7" || p.Subject != "user-42" {
		t.Fatalf("principal %+v, %v", p, err)
	}
	if _, err := v.Verify(context.Background(), sign(t, jwt.SigningMethodES256, "ec-1", k.ec, base)); !errors.Is(err, ErrInvalidToken) {
		t.Fatalf("token without the account claim: %v", err)
	}
}

func TestKeyFetching(t *testing.T) {
	v, a := setup(t, Config{MinRefetch: 300 * time.Millisecond})
	k := testKeys()
	ctx := context.Background()
	good := sign(t, jwt.SigningMethodRS256, "rsa-1", k.rsa1, claimsFor(a))
	for range 5 {
		if _, err := v.Verify(ctx, good); err != nil {
			t.Fatal(err)
		}
	}
	if n := a.jwksFetch.Load(); n != 1 {
		t.Fatalf("key set fetched %d times for 5 tokens, want once", n)
	}
	// Unknown key ids fetch again at most once per MinRefetch.
	unknown := sign(t, jwt.SigningMethodRS256, "rsa-2", k.rsa2, claimsFor(a))
	time.Sleep(310 * time.Millisecond)
	for range 10 {
		if _, err := v.Verify(ctx, unknown); !errors.Is(err, ErrInvalidToken) {
			t.Fatal(err)
		}
	}
	if n := a.jwksFetch.Load(); n != 2 {
		t.Fatalf("key set fetched %d times after 10 unknown key ids, want one more", n)
	}
	// Rotation: the server publishes a new key; a token signed by it passes after MinRefetch.
	a.publish(rsaJWK("rsa-1", k.rsa1), rsaJWK("rsa-2", k.rsa2))
	time.Sleep(310 * time.Millisecond)
	if _, err := v.Verify(ctx, unknown); err != nil {
		t.Fatalf("token of the rotated-in key: %v", err)
	}
	// While the server is down, the keys held still verify.
	a.setFail(true)
	v.keys.mu.Lock()
	v.keys.fetched = time.Now().Add(-time.Hour) // stale
	v.keys.mu.Unlock()
	time.Sleep(310 * time.Millisecond)
	if _, err := v.Verify(ctx, good); err != nil {
		t.Fatalf("held key refused during an outage: %v", err)
	}
}

func TestKeysUnavailable(t *testing.T) {
	v, a := setup(t, Config{MinRefetch: 50 * time.Millisecond})
	a.setFail(true)
	tok := sign(t, jwt.SigningMethodRS256, "rsa-1", testKeys().rsa1, claimsFor(a))
	_, err := v.Verify(context.Background(), tok)
	if !errors.Is(err, ErrKeysUnavailable) || Status(err) != http.StatusServiceUnavailable {
		t.Fatalf("err = %v (status %d), want keys unavailable and 503", err, Status(err))
	}
	a.setFail(false)
	time.Sleep(60 * time.Millisecond)
	if _, err := v.Verify(context.Background(), tok); err != nil {
		t.Fatalf("after the server came back: %v", err)
	}
}

func TestConcurrentFirstFetch(t *testing.T) {
	v, a := setup(t, Config{})
	tok := sign(t, jwt.SigningMethodES256, "ec-1", testKeys().ec, claimsFor(a))
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := v.Verify(context.Background(), tok); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if n := a.jwksFetch.Load(); n != 1 {
		t.Errorf("%d fetches for 16 concurrent first tokens", n)
	}
}

func TestOpenIDDiscovery(t *testing.T) {
	v, a := setup(t, Config{})
	a.mu.Lock()
	a.oidcOnly = true
	a.mu.Unlock()
	if _, err := v.Verify(context.Background(), sign(t, jwt.SigningMethodRS256, "rsa-1", testKeys().rsa1, claimsFor(a))); err != nil {
		t.Fatal(err)
	}
}

func TestConfiguredJWKSURL(t *testing.T) {
	a := newAuthServer(t)
	a.publish(ecJWK("ec-1", testKeys().ec))
	v, err := NewVerifier(Config{Issuer: "https://login.example.com/tenant", Resource: resource, JWKSURL: a.URL + "/jwks"})
	if err != nil {
		t.Fatal(err)
	}
	c := with(claimsFor(a), "iss", "https://login.example.com/tenant")
	if _, err := v.Verify(context.Background(), sign(t, jwt.SigningMethodES256, "ec-1", testKeys().ec, c)); err != nil {
		t.Fatal(err)
	}
}

func TestNewVerifierChecks(t *testing.T) {
	for _, cfg := range []Config{
		{Resource: resource},
		{Issuer: "auth.example.com", Resource: resource},
		{Issuer: "https://auth.example.com"},
		{Issuer: "https://auth.example.com", Resource: resource, JWKSURL: "ftp://x/jwks"},
	} {
		if _, err := NewVerifier(cfg); err == nil {
			t.Errorf("%+v accepted", cfg)
		}
	}
}

func TestMetadata(t *testing.T) {
	for in, want := range map[string]string{
		"https://api.adreswijzer.example/mcp":  "https://api.adreswijzer.example/.well-known/oauth-protected-resource/mcp",
		"https://api.adreswijzer.example/mcp/": "https://api.adreswijzer.example/.well-known/oauth-protected-resource/mcp",
		"http://127.0.0.1:8080/mcp":            "http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp",
		"https://api.adreswijzer.example":      "https://api.adreswijzer.example/.well-known/oauth-protected-resource",
	} {
		if got, err := MetadataURL(in); err != nil || got != want {
			t.Errorf("MetadataURL(%s) = %s, %v; want %s", in, got, err, want)
		}
	}
	for _, bad := range []string{"/mcp", "https://x/mcp?a=1", "https://x/mcp#f"} {
		if _, err := MetadataURL(bad); err == nil {
			t.Errorf("MetadataURL(%s) accepted", bad)
		}
	}
	mdURL, _ := MetadataURL(resource)
	if !strings.HasSuffix(mdURL, MetadataPath) {
		t.Errorf("%s does not end in MetadataPath", mdURL)
	}

	cfg := Config{Issuer: "https://auth.adreswijzer.example", Resource: resource}
	srv := httptest.NewServer(MetadataHandler(cfg))
	defer srv.Close()
	// The SDK's client fetches and checks the document as MCP clients do.
	prm, err := oauthex.GetProtectedResourceMetadata(context.Background(), srv.URL+MetadataPath, resource, srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	if prm.Resource != resource || len(prm.AuthorizationServers) != 1 || prm.AuthorizationServers[0] != cfg.Issuer ||
		strings.Join(prm.ScopesSupported, " ") != Scope || strings.Join(prm.BearerMethodsSupported, " ") != "header" || prm.ResourceName == "" {
		t.Errorf("metadata %+v", prm)
	}
	resp, err := http.Get(srv.URL + MetadataPath)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Header.Get("Access-Control-Allow-Origin") != "*" || resp.Header.Get("Content-Type") != "application/json" {
		t.Errorf("headers %v", resp.Header)
	}
	for method, want := range map[string]int{http.MethodHead: 200, http.MethodOptions: 204, http.MethodPost: 405} {
		req, _ := http.NewRequest(method, srv.URL+MetadataPath, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want || method == http.MethodHead && (len(body) != 0 || resp.ContentLength <= 0) {
			t.Errorf("%s: %d, %d bytes, length %d", method, resp.StatusCode, len(body), resp.ContentLength)
		}
	}

	// A gateway that takes API keys only names no authorization server.
	keysOnly := httptest.NewServer(MetadataHandler(Config{Resource: resource}))
	defer keysOnly.Close()
	resp, err = http.Get(keysOnly.URL + MetadataPath)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	err = json.NewDecoder(resp.Body).Decode(&doc)
	resp.Body.Close()
	if _, named := doc["authorization_servers"]; err != nil || named || doc["resource"] != resource {
		t.Errorf("keys-only metadata %v (%v)", doc, err)
	}
}

func TestChallenges(t *testing.T) {
	mdURL, _ := MetadataURL(resource)
	if got, want := Challenge(mdURL), `Bearer resource_metadata="`+mdURL+`", scope="address:verify"`; got != want {
		t.Errorf("Challenge = %s, want %s", got, want)
	}
	cases := []struct {
		err  error
		code string
	}{
		{nil, ""},
		{ErrInsufficientScope, "insufficient_scope"},
		{errors.Join(ErrInvalidToken, errors.New("expired")), "invalid_token"},
		{ErrKeysUnavailable, ""},
	}
	// Without metadata (no authorization server) the same challenges name the realm instead,
	// so that no client is sent to metadata that cannot lead to a sign-in.
	for _, md := range []string{mdURL, ""} {
		for _, c := range cases {
			chs, err := oauthex.ParseWWWAuthenticate([]string{ChallengeFor(md, c.err)})
			if err != nil || len(chs) != 1 {
				t.Fatalf("%v: %v %v", c.err, chs, err)
			}
			ch := chs[0]
			realm := ""
			if md == "" {
				realm = Realm
			}
			if ch.Scheme != "bearer" || ch.Params["resource_metadata"] != md || ch.Params["realm"] != realm || ch.Params["scope"] != Scope ||
				ch.Params["error"] != c.code {
				t.Errorf("%q %v: challenge %+v", md, c.err, ch)
			}
		}
	}
	if got, want := Challenge(""), `Bearer realm="adreswijzer", scope="address:verify"`; got != want {
		t.Errorf("Challenge without metadata = %s, want %s", got, want)
	}
}

// TestRequireBearerToken serves a handler behind the SDK's middleware with our verifier, as
// the gateway or a worker can.
func TestRequireBearerToken(t *testing.T) {
	v, a := setup(t, Config{})
	k := testKeys()
	mdURL, _ := MetadataURL(resource)
	var seen *auth.TokenInfo
	h := auth.RequireBearerToken(v.TokenVerifier(), &auth.RequireBearerTokenOptions{ResourceMetadataURL: mdURL, Scopes: []string{Scope}})(
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { seen = auth.TokenInfoFromContext(r.Context()) }))
	srv := httptest.NewServer(h)
	defer srv.Close()
	cases := []struct {
		name   string
		token  string
		status int
	}{
		{"no token", "", 401},
		{"bad token", tamper(t, sign(t, jwt.SigningMethodRS256, "rsa-1", k.rsa1, claimsFor(a))), 401},
		{"no scope", sign(t, jwt.SigningMethodRS256, "rsa-1", k.rsa1, with(claimsFor(a), "scope", "openid")), 403},
		{"good", sign(t, jwt.SigningMethodRS256, "rsa-1", k.rsa1, claimsFor(a)), 200},
	}
	for _, c := range cases {
		req, _ := http.NewRequest("POST", srv.URL, nil)
		if c.token != "" {
			req.Header.Set("Authorization", "Bearer "+c.token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.status {
			t.Errorf("%s: status %d, want %d", c.name, resp.StatusCode, c.status)
		}
		if c.status != 200 && resp.Header.Get("WWW-Authenticate") != Challenge(mdURL) {
			t.Errorf("%s: challenge %q", c.name, resp.Header.Get("WWW-Authenticate"))
		}
	}
	if seen == nil || seen.UserID != "user-42" || seen.Extra["clientId"] != "claude-desktop" {
		t.Errorf("token info %+v", seen)
	}
}
