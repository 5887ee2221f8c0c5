package caddymodule_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/gateway/gatewaytest"
	"github.com/adreswijzer/adreswijzer/gateway/keys"
)

const (
	platformSecret   = "shpss_0123456789abcdef0123456789abcdef"
	platformAudience = "app-client-id-123"
)

func platformToken(t *testing.T, secret string, claims jwt.MapClaims, method jwt.SigningMethod) string {
	t.Helper()
	tok := jwt.NewWithClaims(method, claims)
	var key any = []byte(secret)
	if method == jwt.SigningMethodNone {
		key = jwt.UnsafeAllowNoneSignatureType
	}
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func shopClaims(exp time.Duration) jwt.MapClaims {
	now := time.Now()
	return jwt.MapClaims{"iss": "https://demo.myshopify.com/admin", "dest": "https://demo.myshopify.com",
		"aud": platformAudience, "sub": "42", "exp": now.Add(exp).Unix(), "nbf": now.Add(-time.Minute).Unix(),
		"iat": now.Add(-time.Minute).Unix()}
}

// Every credential kind and every status of the spec's table, through the real Caddy
// configuration, in front of the real worker.
func TestCredentials(t *testing.T) {
	g := startGateway(t, gatewayConfig{
		upstream: upstream(t),
		extra: `platform shopify {
				secret ` + platformSecret + `
				audience ` + platformAudience + `
				account acct-platform
			}`,
		keys: []keys.Options{
			{Name: "live", Kind: keys.Live, Account: "acct-live"},
			{Name: "test", Kind: keys.Test, Account: "acct-test"},
			{Name: "pk", Kind: keys.PKLive, Account: "acct-pk", Origins: []string{shop}},
			{Name: "pktest", Kind: keys.PKTest, Account: "acct-pk", Origins: []string{shop}},
			{Name: "noscope", Kind: keys.Live, Account: "acct-live", Scopes: []string{"billing:read"}},
			{Name: "revoked", Kind: keys.Live, Account: "acct-live"},
		},
	})
	revoke(t, g, "revoked")

	valid := platformToken(t, platformSecret, shopClaims(time.Minute), jwt.SigningMethodHS256)
	expired := platformToken(t, platformSecret, shopClaims(-time.Minute), jwt.SigningMethodHS256)
	noExp := shopClaims(time.Minute)
	delete(noExp, "exp")
	withoutExp := platformToken(t, platformSecret, noExp, jwt.SigningMethodHS256)
	wrongSecret := platformToken(t, "another-secret-of-enough-length", shopClaims(time.Minute), jwt.SigningMethodHS256)
	algNone := platformToken(t, "", shopClaims(time.Minute), jwt.SigningMethodNone)
	wrongAlg := platformToken(t, platformSecret, shopClaims(time.Minute), jwt.SigningMethodHS512)
	otherApp := shopClaims(time.Minute)
	otherApp["aud"] = "some-other-app"
	wrongAud := platformToken(t, platformSecret, otherApp, jwt.SigningMethodHS256)
	unknownLive := "aw_live_" + strings.Repeat("A", 43)

	sess := "&sessionId=chk-1"
	cases := []struct {
		name   string
		r      req
		status int
		code   adreswijzer.ErrorCode
	}{
		{"no credential", req{path: nlLookup}, 401, adreswijzer.ErrUnauthorized},
		{"basic scheme", req{path: nlLookup, auth: "Basic YTpi"}, 401, adreswijzer.ErrUnauthorized},
		{"bearer garbage", req{path: nlLookup, auth: "Bearer not-a-key"}, 401, adreswijzer.ErrUnauthorized},
		{"unknown live key", req{path: nlLookup, auth: "Bearer " + unknownLive}, 401, adreswijzer.ErrUnauthorized},
		{"revoked key", req{path: nlLookup, key: "revoked"}, 401, adreswijzer.ErrUnauthorized},
		{"key in query", req{path: nlLookup + "&api_key=" + g.secrets["live"], key: "live"}, 401, adreswijzer.ErrUnauthorized},
		{"token param", req{path: nlLookup + "&token=abc", key: "live"}, 401, adreswijzer.ErrUnauthorized},
		{"live NL lookup", req{path: nlLookup, key: "live"}, 200, ""},
		{"live BE lookup", req{path: beLookup, key: "live"}, 200, ""},
		{"live suggest", req{path: "/v1/suggest?country=nl&q=Hugo", key: "live"}, 200, ""},
		{"live autocomplete", req{path: "/v1/autocomplete?country=be&q=Haren", key: "live"}, 200, ""},
		{"live validate", req{path: "/v1/validate", key: "live", body: validateBody("")}, 200, ""},
		{"test lookup", req{path: nlLookup, key: "test"}, 200, ""},
		{"pk lookup", req{path: nlLookup + sess, key: "pk", origin: shop}, 200, ""},
		{"pk_test lookup", req{path: nlLookup + sess, key: "pktest", origin: shop}, 200, ""},
		{"pk suggest", req{path: "/v1/suggest?country=nl&q=Hugo" + sess, key: "pk", origin: shop}, 200, ""},
		{"pk POST suggest", req{path: "/v1/suggest", key: "pk", origin: shop,
			body: []byte(`{"country":"nl","q":"Hugo","sessionId":"chk-1"}`)}, 200, ""},
		{"pk validate", req{path: "/v1/validate", key: "pk", origin: shop, body: validateBody("chk-1")}, 200, ""},
		{"pk without session", req{path: nlLookup, key: "pk", origin: shop}, 422, adreswijzer.ErrValidationFailed},
		{"pk validate without session", req{path: "/v1/validate", key: "pk", origin: shop, body: validateBody("")}, 422, adreswijzer.ErrValidationFailed},
		{"pk bad session", req{path: nlLookup + "&sessionId=a%20b", key: "pk", origin: shop}, 422, adreswijzer.ErrValidationFailed},
		// The worker reads members by their exact names, and so must the gateway.
		{"pk POST suggest with SESSIONID", req{path: "/v1/suggest", key: "pk", origin: shop,
			body: []byte(`{"country":"nl","q":"Hugo","SESSIONID":"chk-1"}`)}, 422, adreswijzer.ErrValidationFailed},
		{"pk foreign origin", req{path: nlLookup + sess, key: "pk", origin: "https://evil.example"}, 403, adreswijzer.ErrForbidden},
		{"pk without origin", req{path: nlLookup + sess, key: "pk"}, 403, adreswijzer.ErrForbidden},
		{"pk autocomplete", req{path: "/v1/autocomplete?country=nl&q=Hugo" + sess, key: "pk", origin: shop}, 403, adreswijzer.ErrForbidden},
		{"pk mcp", req{path: "/mcp", key: "pk", origin: shop, body: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)}, 403, adreswijzer.ErrForbidden},
		{"no scope", req{path: nlLookup, key: "noscope"}, 403, adreswijzer.ErrForbidden},
		{"platform lookup", req{path: nlLookup, auth: "Bearer " + valid}, 200, ""},
		{"platform autocomplete", req{path: "/v1/autocomplete?country=nl&q=Hugo", auth: "Bearer " + valid}, 200, ""},
		{"platform mcp", req{path: "/mcp", auth: "Bearer " + valid, body: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)}, 403, adreswijzer.ErrForbidden},
		{"platform expired", req{path: nlLookup, auth: "Bearer " + expired}, 401, adreswijzer.ErrUnauthorized},
		{"platform without exp", req{path: nlLookup, auth: "Bearer " + withoutExp}, 401, adreswijzer.ErrUnauthorized},
		{"platform wrong secret", req{path: nlLookup, auth: "Bearer " + wrongSecret}, 401, adreswijzer.ErrUnauthorized},
		{"platform alg none", req{path: nlLookup, auth: "Bearer " + algNone}, 401, adreswijzer.ErrUnauthorized},
		{"platform HS512", req{path: nlLookup, auth: "Bearer " + wrongAlg}, 401, adreswijzer.ErrUnauthorized},
		{"platform other app", req{path: nlLookup, auth: "Bearer " + wrongAud}, 401, adreswijzer.ErrUnauthorized},
		{"live mcp", req{path: "/mcp", key: "live", body: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`),
			headers: map[string]string{"Accept": "application/json, text/event-stream"}}, 200, ""},
		{"health needs nothing", req{path: "/health"}, 200, ""},
		{"health with a key", req{path: "/health", key: "live"}, 200, ""},
		{"openapi needs nothing", req{path: "/openapi.json"}, 200, ""},
		{"unknown path", req{path: "/v1/nothing", key: "live"}, 404, adreswijzer.ErrNotFound},
		{"validate by GET", req{path: "/v1/validate", key: "live"}, 405, adreswijzer.ErrNotFound},
		{"not JSON", req{path: "/v1/validate", key: "pk", origin: shop, body: []byte("{")}, 400, adreswijzer.ErrBadRequest},
	}
	// RFC 6750: a request without a credential the gateway read gets the bare challenge, a
	// presented credential that is refused error="invalid_token", one without the scope a 403
	// with error="insufficient_scope" and the scope to ask for.
	const (
		missing      = `Bearer realm="adreswijzer"`
		invalidToken = `Bearer realm="adreswijzer", error="invalid_token"`
		noScope      = `Bearer realm="adreswijzer", error="insufficient_scope", scope="address:verify"`
	)
	challenges := map[string]string{
		"no credential": missing, "basic scheme": missing, "key in query": missing, "token param": missing,
		"bearer garbage": invalidToken, "unknown live key": invalidToken, "revoked key": invalidToken,
		"platform expired": invalidToken, "platform wrong secret": invalidToken, "platform alg none": invalidToken,
		"no scope": noScope,
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := g.do(c.r)
			expect(t, c.name, a, c.status, c.code)
			if c.status == 401 && !strings.HasPrefix(a.header.Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("401 without a Bearer challenge: %q", a.header.Get("WWW-Authenticate"))
			}
			if want, ok := challenges[c.name]; ok && a.header.Get("WWW-Authenticate") != want {
				t.Errorf("challenge %q, want %q", a.header.Get("WWW-Authenticate"), want)
			}
			for _, s := range g.secrets {
				if bytes.Contains(a.body, []byte(s)) {
					t.Errorf("answer echoes a credential")
				}
			}
			if c.status >= 400 && a.header.Get("Content-Type") != "application/json; charset=utf-8" && a.status != 404 {
				t.Errorf("error answer of type %q", a.header.Get("Content-Type"))
			}
		})
	}

	t.Run("credential in URL user info", func(t *testing.T) {
		host := strings.TrimPrefix(g.base, "http://")
		status := rawRequest(t, host, fmt.Sprintf("GET http://user:%s@%s%s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nConnection: close\r\n\r\n",
			g.secrets["live"], host, nlLookup, host, g.secrets["live"]))
		if status != http.StatusUnauthorized {
			t.Errorf("status %d, want 401", status)
		}
	})

}

// What the gateway forwards, as the stand-in worker records it: never a credential, never an
// oversized body, and a body at the limit whole.
func TestForwarded(t *testing.T) {
	fake := gatewaytest.NewWorker(t)
	g := startGateway(t, gatewayConfig{upstream: fake.URL, keys: []keys.Options{
		{Name: "live", Kind: keys.Live, Account: "acct-live"},
		{Name: "pk", Kind: keys.PKLive, Account: "acct-pk", Origins: []string{shop}},
	}})
	for _, r := range []req{
		{path: nlLookup, key: "live"},
		{path: "/v1/validate", key: "live", body: validateBody("")},
		{path: nlLookup + "&sessionId=f1", key: "pk", origin: shop},
		{path: "/mcp", key: "live", body: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`),
			headers: map[string]string{"Accept": "application/json, text/event-stream"}},
		{path: "/health", key: "live"},
	} {
		expect(t, r.path, g.do(r), 200, "")
	}
	if fake.SawCredential() {
		t.Error("the worker received an Authorization header")
	}

	big := bytes.Repeat([]byte("x"), adreswijzer.MaxBodyBytes+1)
	body := append([]byte(`{"countryCode":"NL","address1":"`), big...)
	body = append(body, `","zip":"1381CS"}`...)
	before := fake.Calls("/v1/validate")
	a := g.do(req{path: "/v1/validate", key: "live", body: body})
	expect(t, "oversized validate", a, 413, adreswijzer.ErrPayloadTooLarge)
	if fake.Calls("/v1/validate") != before {
		t.Error("an oversized body reached the worker")
	}
	// A body of exactly the limit passes, and reaches the worker whole.
	exact := validateBody("")
	exact = append(exact[:len(exact)-1], []byte(`,"pad":"`)...)
	exact = append(exact, bytes.Repeat([]byte("y"), adreswijzer.MaxBodyBytes-len(exact)-2)...)
	exact = append(exact, `"}`...)
	a = g.do(req{path: "/v1/validate", key: "live", body: exact})
	expect(t, "validate at the limit", a, 200, "")
	if fake.LastBodyLength() != len(exact) {
		t.Errorf("worker got %d bytes of a %d byte body", fake.LastBodyLength(), len(exact))
	}
}

// The request's deadline covers its body: a validate whose body does not arrive (headers
// promising 500 bytes, 15 sent; or a chunk of 15 bytes and no end) is answered 400
// BAD_REQUEST within the deadline, not after the server's read timeout, and never reaches
// the worker or the count.
func TestSlowBody(t *testing.T) {
	fake := gatewaytest.NewWorker(t)
	g := startGateway(t, gatewayConfig{upstream: fake.URL, keys: []keys.Options{{Name: "live", Kind: keys.Live, Account: "acct-slow"}}})
	host := strings.TrimPrefix(g.base, "http://")
	for _, c := range []struct{ name, framing, body string }{
		{"length", "Content-Length: 500", `{"countryCode":`},
		{"chunked", "Transfer-Encoding: chunked", "f\r\n" + `{"countryCode":` + "\r\n"},
	} {
		conn, err := net.DialTimeout("tcp", host, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
		start := time.Now()
		if _, err := fmt.Fprintf(conn, "POST /v1/validate HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\n%s\r\n\r\n%s",
			host, g.secrets["live"], c.framing, c.body); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		took := time.Since(start)
		var e adreswijzer.ErrorResponse
		if err := json.NewDecoder(resp.Body).Decode(&e); err != nil || resp.StatusCode != http.StatusBadRequest ||
			e.Error.Code != adreswijzer.ErrBadRequest || !strings.Contains(e.Error.Message, "in time") {
			t.Errorf("slow body, %s: %d %+v (%v)", c.name, resp.StatusCode, e, err)
		}
		resp.Body.Close()
		if took > 1500*time.Millisecond {
			t.Errorf("slow body, %s: answered after %v, want within the 1 s deadline", c.name, took)
		}
		t.Logf("slow body, %s: %d after %v", c.name, resp.StatusCode, took)
	}
	if fake.Calls("/v1/validate") != 0 {
		t.Error("a request without its body reached the worker")
	}
	// A body sent whole passes.
	expect(t, "a whole body", g.do(req{path: "/v1/validate", key: "live", body: validateBody("")}), 200, "")
	g.stableUsage("acct-slow", 1)
}

func rawRequest(t *testing.T, host, raw string) int {
	t.Helper()
	c, err := net.DialTimeout("tcp", host, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Write([]byte(raw)); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func TestCORS(t *testing.T) {
	g := startGateway(t, gatewayConfig{upstream: upstream(t), extra: `platform shopify {
				secret ` + platformSecret + `
				audience ` + platformAudience + `
				account acct-platform
			}`, keys: []keys.Options{
		{Name: "pk", Kind: keys.PKLive, Account: "acct-pk", Origins: []string{shop}},
		{Name: "live", Kind: keys.Live, Account: "acct-live"},
	}})
	preflight := func(path, origin string) answer {
		return g.do(req{method: http.MethodOptions, path: path, origin: origin, noCheck: true, headers: map[string]string{
			"Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "authorization, content-type"}})
	}
	a := preflight(nlLookup, shop)
	if a.status != http.StatusNoContent || a.header.Get("Access-Control-Allow-Origin") != shop {
		t.Fatalf("preflight: %d, allow origin %q", a.status, a.header.Get("Access-Control-Allow-Origin"))
	}
	for _, h := range []string{"Authorization", "Content-Type"} {
		if !strings.Contains(a.header.Get("Access-Control-Allow-Headers"), h) {
			t.Errorf("preflight does not allow header %s", h)
		}
	}
	for _, m := range []string{"GET", "POST"} {
		if !strings.Contains(a.header.Get("Access-Control-Allow-Methods"), m) {
			t.Errorf("preflight does not allow %s", m)
		}
	}
	if !hasVary(a.header, "Origin") {
		t.Errorf("preflight without Vary: Origin: %v", a.header.Values("Vary"))
	}
	if a := preflight("/v1/validate", shop); a.status != http.StatusNoContent {
		t.Errorf("validate preflight: %d", a.status)
	}
	if a := preflight(nlLookup, "not an origin"); a.status != http.StatusNotFound {
		t.Errorf("preflight of a malformed origin: %d", a.status)
	}
	if a := g.do(req{method: http.MethodOptions, path: nlLookup, origin: shop, noCheck: true}); a.status != http.StatusNotFound {
		t.Errorf("OPTIONS without Access-Control-Request-Method: %d", a.status)
	}

	a = g.do(req{path: nlLookup + "&sessionId=s1", key: "pk", origin: shop})
	expect(t, "pk lookup", a, 200, "")
	if a.header.Get("Access-Control-Allow-Origin") != shop || !hasVary(a.header, "Origin") {
		t.Errorf("answer CORS: allow %q vary %v", a.header.Get("Access-Control-Allow-Origin"), a.header.Values("Vary"))
	}
	for _, h := range []string{"Retry-After", "X-Dataset-Version"} {
		if !strings.Contains(a.header.Get("Access-Control-Expose-Headers"), h) {
			t.Errorf("answer does not expose %s", h)
		}
	}
	// A page the key is not for: the preflight passes (it carries no key to judge), and the
	// refusal of the request itself is readable there, so that the form can say it is not
	// available on this site instead of failing without a reason.
	const foreign = "https://evil.example"
	if a := preflight(nlLookup, foreign); a.status != http.StatusNoContent || a.header.Get("Access-Control-Allow-Origin") != foreign {
		t.Errorf("preflight of a foreign origin: %d, allow origin %q", a.status, a.header.Get("Access-Control-Allow-Origin"))
	}
	for _, r := range []req{
		{path: nlLookup + "&sessionId=s1", key: "pk", origin: foreign},
		{path: "/v1/validate", key: "pk", origin: foreign, body: validateBody("s1")},
	} {
		a = g.do(r)
		expect(t, "foreign origin", a, 403, adreswijzer.ErrForbidden)
		if a.header.Get("Access-Control-Allow-Origin") != foreign || !hasVary(a.header, "Origin") {
			t.Errorf("refusal for a foreign origin: allow origin %q, vary %v", a.header.Get("Access-Control-Allow-Origin"), a.header.Values("Vary"))
		}
		if a.header.Get("Access-Control-Allow-Credentials") != "" {
			t.Error("the refusal allows credentials")
		}
		for _, leak := range []string{shop, "shop.example", g.secrets["pk"]} {
			if bytes.Contains(a.body, []byte(leak)) {
				t.Errorf("the refusal names %q", leak)
			}
		}
	}
	a = g.do(req{path: nlLookup + "&sessionId=s1", origin: shop})
	expect(t, "no key from a page", a, 401, adreswijzer.ErrUnauthorized)
	if a.header.Get("Access-Control-Allow-Origin") != shop {
		t.Error("a page cannot read why it was refused")
	}
	a = g.do(req{path: nlLookup, key: "live", origin: shop})
	expect(t, "secret key from a page", a, 200, "")
	if a.header.Get("Access-Control-Allow-Origin") != "" {
		t.Error("a secret key's answer is readable by pages")
	}

	// A platform's checkout extension runs in the shopper's browser, on the platform's origin:
	// the call its preflight allowed is readable there, answer and refusal alike.
	const extension = "https://extensions.shopifycdn.com"
	token := "Bearer " + platformToken(t, platformSecret, shopClaims(time.Minute), jwt.SigningMethodHS256)
	if a := preflight(nlLookup, extension); a.status != http.StatusNoContent || a.header.Get("Access-Control-Allow-Origin") != extension {
		t.Errorf("preflight of a platform extension: %d, allow origin %q", a.status, a.header.Get("Access-Control-Allow-Origin"))
	}
	for _, c := range []struct {
		r      req
		status int
	}{
		{req{path: nlLookup, auth: token, origin: extension}, 200},
		{req{path: "/v1/validate", auth: token, origin: extension, body: validateBody("")}, 200},
		{req{path: "/v1/suggest?country=nl&q=Hugo&sessionId=a%20b", auth: token, origin: extension}, 422},
	} {
		a := g.do(c.r)
		expect(t, "platform token from its extension", a, c.status, "")
		if a.header.Get("Access-Control-Allow-Origin") != extension || !hasVary(a.header, "Origin") {
			t.Errorf("%s with a platform token: allow origin %q, vary %v", c.r.path, a.header.Get("Access-Control-Allow-Origin"), a.header.Values("Vary"))
		}
		if a.header.Get("Access-Control-Allow-Credentials") != "" {
			t.Error("a platform token's answer allows credentials")
		}
	}
}

func hasVary(h http.Header, v string) bool {
	for _, line := range h.Values("Vary") {
		for _, p := range strings.Split(line, ",") {
			if strings.EqualFold(strings.TrimSpace(p), v) {
				return true
			}
		}
	}
	return false
}
