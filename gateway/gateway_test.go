package gateway

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/gateway/answercache"
	"github.com/adreswijzer/adreswijzer/gateway/apierr"
	"github.com/adreswijzer/adreswijzer/gateway/keys"
	"github.com/adreswijzer/adreswijzer/gateway/limit"
	"github.com/adreswijzer/adreswijzer/gateway/usage"
	"github.com/adreswijzer/adreswijzer/gateway/versions"
	"github.com/adreswijzer/adreswijzer/internal/query"
)

func TestClassify(t *testing.T) {
	for _, c := range []struct {
		method, path string
		route        Route
		country      adreswijzer.Country
	}{
		{"GET", "/v1/nl/lookup", RouteLookup, adreswijzer.NL},
		{"POST", "/v1/be/lookup", RouteLookup, adreswijzer.BE},
		{"GET", "/v1/de/lookup", RouteLookup, ""},
		// A path segment that is no lower-case country code is the worker's to refuse (422).
		{"GET", "/v1/NL/lookup", RouteLookup, ""},
		{"GET", "/v1/nld/lookup", RouteLookup, ""},
		{"GET", "/v1//lookup", RouteLookup, ""},
		{"GET", "/v1/a/b/lookup", RouteNotFound, ""},
		{"DELETE", "/v1/nl/lookup", RouteNotFound, ""},
		{"GET", "/v1/suggest", RouteSuggest, ""},
		{"POST", "/v1/autocomplete", RouteAutocomplete, ""},
		{"POST", "/v1/validate", RouteValidate, ""},
		{"GET", "/v1/validate", RouteNotFound, ""},
		{"OPTIONS", "/v1/validate", RouteValidate, ""},
		{"POST", "/mcp", RouteAgent, ""},
		{"GET", "/health", RoutePublic, ""},
		{"HEAD", "/openapi.json", RoutePublic, ""},
		{"GET", "/.well-known/oauth-protected-resource/mcp", RoutePublic, ""},
		{"POST", "/health", RouteNotFound, ""},
		{"GET", "/", RouteNotFound, ""},
		{"GET", "/v1/nl/lookup/", RouteNotFound, ""},
		{"GET", "/dashboard/consent", RouteSite, ""},
		{"GET", "/.well-known/oauth-authorization-server", RouteSite, ""},
		{"POST", "/oauth/token", RouteSite, ""},
		{"GET", "/oauth/authorize", RouteSite, ""},
		{"GET", "/oauth", RouteNotFound, ""},
		{"GET", "/.well-known/openid-configuration", RouteNotFound, ""},
	} {
		r, cc := Classify(c.method, c.path)
		if r != c.route || cc != c.country {
			t.Errorf("%s %s = %v %q, want %v %q", c.method, c.path, r, cc, c.route, c.country)
		}
	}
}

func TestCredentialInURL(t *testing.T) {
	secret := "aw_live_" + string(bytes.Repeat([]byte("a"), 43))
	for raw, want := range map[string]bool{
		"/v1/nl/lookup?postcode=1381CS&number=16":           false,
		"/v1/nl/lookup?postcode=1381CS&API_KEY=x":           true,
		"/v1/nl/lookup?access_token=x":                      true,
		"/v1/nl/lookup?q=" + secret:                         true,
		"/v1/nl/lookup?q=eyJhbGciOiJIUzI1NiJ9.eyJ9.sig":     true,
		"/v1/suggest?country=nl&q=aw_street":                false,
		"/v1/nl/lookup?postcode=1381CS&" + secret + "=1":    true,
		"/v1/nl/lookup/" + secret:                           true,
		"/" + secret + "/v1/nl/lookup":                      true,
		"/v1/be/lookup?street=Rue+du+17+d%C3%A9cembre+1944": false,
		"http://u:p@gw.example/v1/nl/lookup?postcode=1381":  true,
	} {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		var q query.Values
		q.Parse(u.RawQuery)
		if got := credentialInURL(u, &q); got != want {
			t.Errorf("%s: %v", raw, got)
		}
	}
}

// A key pasted into a path that is no endpoint is refused as a credential in the URL, not
// answered 404 as if nothing had happened.
func TestCredentialInPath(t *testing.T) {
	f := newFixture(t, Config{})
	ctx := context.Background()
	secret := f.secrets[keys.Live]
	for path, want := range map[string]int{
		"/v1/nl/lookup/" + secret:                         http.StatusUnauthorized,
		"/v1/nl/lookup?postcode=1381CS&" + secret + "=1":  http.StatusUnauthorized,
		"/v1/nl/lookup/extra":                             http.StatusNotFound,
		"/v1/nl/lookup?postcode=1381CS&number=16&lang=xx": 0,
	} {
		_, e := f.g.Decide(ctx, f.request("GET", path, secret, "", nil), "")
		got := 0
		if e != nil {
			got = e.Status
		}
		if got != want {
			t.Errorf("%s: %d, want %d", strings.Replace(path, secret, "KEY", 1), got, want)
		}
	}
}

// A path the service has, called with a method it does not take there, is 405 with the
// methods it takes in the Allow header and the message, under the spec's NOT_FOUND; before
// any credential, as a 404 is.
func TestMethodNotAllowed(t *testing.T) {
	f := newFixture(t, Config{})
	for _, c := range []struct{ method, path, allow string }{
		{"GET", "/v1/validate", "POST"},
		{"DELETE", "/v1/nl/lookup", "GET, HEAD, POST"},
		{"PUT", "/v1/fr/lookup", "GET, HEAD"},
		{"PATCH", "/v1/suggest", "GET, HEAD, POST"},
		{"POST", "/health", "GET, HEAD"},
		{"PUT", "/mcp", "POST"},
	} {
		_, e := f.g.Decide(context.Background(), f.request(c.method, c.path, "", "", nil), "")
		if e == nil || e.Status != http.StatusMethodNotAllowed || e.Code != adreswijzer.ErrNotFound || e.Allow != c.allow ||
			!strings.Contains(e.Message, "it takes "+c.allow+".") {
			t.Errorf("%s %s: %+v", c.method, c.path, e)
		}
	}
	if _, e := f.g.Decide(context.Background(), f.request("DELETE", "/v1/nope", "", "", nil), ""); e == nil || e.Status != http.StatusNotFound {
		t.Errorf("no such path: %+v", e)
	}
}

func TestDecisionSize(t *testing.T) {
	if n := unsafe.Sizeof(Decision{}); n > maxDecisionSize {
		t.Errorf("a Decision takes %d bytes, more than %d", n, maxDecisionSize)
	}
}

// credentialParam finds what strings.ToLower and the list find, Unicode included (the
// Kelvin sign lowers to k).
func TestCredentialParam(t *testing.T) {
	for _, k := range []string{
		"key", "KEY", "Api-Key", "client_SECRET", "sessionId", "postcode", "", "\u212Aey", "\u017Fecret",
		"authorization_and_more_than_sixteen", "AUTHORIZATION", "Bearer", "tökén",
	} {
		if got, want := credentialParam(k), urlCredentialParams[strings.ToLower(k)]; got != want {
			t.Errorf("%q: %v, want %v", k, got, want)
		}
	}
}

func TestBearer(t *testing.T) {
	for _, c := range []struct {
		values []string
		cred   string
		ok     bool
	}{
		{[]string{"Bearer abc"}, "abc", true},
		{[]string{"bearer  abc "}, "abc", true},
		{[]string{"Basic abc"}, "", false},
		{[]string{"Bearer"}, "", false},
		{[]string{"Bearer a b"}, "", false},
		{[]string{"Bearer a", "Bearer b"}, "", false},
		{nil, "", false},
	} {
		h := http.Header{"Authorization": c.values}
		cred, ok := bearer(h)
		if cred != c.cred || ok != c.ok {
			t.Errorf("%q: %q %v", c.values, cred, ok)
		}
	}
}

type fixture struct {
	g       *Gateway
	secrets map[keys.Kind]string
	ids     map[keys.Kind]string // key ids
	sink    *usage.FileSink
}

func newFixture(t testing.TB, cfg Config, ext ...Extension) *fixture {
	t.Helper()
	dir := t.TempDir()
	store, err := keys.OpenFile(filepath.Join(dir, "keys.json"))
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{secrets: map[keys.Kind]string{}, ids: map[keys.Kind]string{}}
	for _, kind := range keys.Kinds {
		o := keys.Options{Kind: kind, Account: "acct-" + string(kind)}
		if kind.Publishable() {
			o.Origins = []string{"https://shop.example"}
		}
		k, secret, err := keys.New(o, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if err := store.Create(context.Background(), k); err != nil {
			t.Fatal(err)
		}
		f.secrets[kind], f.ids[kind] = secret, k.ID
	}
	sink, err := usage.OpenFile(filepath.Join(dir, "usage.json"))
	if err != nil {
		t.Fatal(err)
	}
	f.sink = sink
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	m, err := usage.NewMeter(usage.Config{Sink: sink, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	tr := versions.NewTracker()
	tr.Set(adreswijzer.NL, "bag:2026-11-08")
	f.g, err = New(cfg, Parts{Keys: store, Limiter: limit.NewLocal(1 << 12), Meter: m, Cache: answercache.New(100, time.Minute),
		Versions: tr, Extensions: ext, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *fixture) request(method, target, cred, origin string, body []byte) *http.Request {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	r := httptest.NewRequest(method, target, rd)
	if cred != "" {
		r.Header.Set("Authorization", "Bearer "+cred)
	}
	if origin != "" {
		r.Header.Set("Origin", origin)
	}
	return r
}

// The first failing check decides the answer, in the documented order.
func TestDecideOrder(t *testing.T) {
	f := newFixture(t, Config{TestDailyCap: 1})
	ctx := context.Background()
	live, pk := f.secrets[keys.Live], f.secrets[keys.PKLive]
	big := bytes.Repeat([]byte("x"), adreswijzer.MaxBodyBytes+10)
	for _, c := range []struct {
		name string
		r    *http.Request
		code adreswijzer.ErrorCode
		st   int
	}{
		{"unknown path before credential", f.request("GET", "/v2/x", "", "", nil), adreswijzer.ErrNotFound, 404},
		{"credential before body size", f.request("POST", "/v1/validate", "", "", big), adreswijzer.ErrUnauthorized, 401},
		{"URL credential despite a good header", f.request("GET", "/v1/nl/lookup?postcode=1&number=1&key=x", live, "", nil), adreswijzer.ErrUnauthorized, 401},
		{"origin before session", f.request("GET", "/v1/nl/lookup?postcode=1&number=1", pk, "https://evil.example", nil), adreswijzer.ErrForbidden, 403},
		{"route before session", f.request("GET", "/v1/autocomplete?country=nl&q=a", pk, "https://shop.example", nil), adreswijzer.ErrForbidden, 403},
		{"size before session", f.request("POST", "/v1/validate", pk, "https://shop.example", big), adreswijzer.ErrPayloadTooLarge, 413},
		{"session", f.request("POST", "/v1/validate", pk, "https://shop.example", []byte(`{"countryCode":"NL"}`)), adreswijzer.ErrValidationFailed, 422},
		{"session not a string", f.request("POST", "/v1/validate", live, "", []byte(`{"sessionId":5}`)), adreswijzer.ErrValidationFailed, 422},
		{"session too long", f.request("GET", "/v1/nl/lookup?sessionId="+string(bytes.Repeat([]byte("a"), 65)), live, "", nil), adreswijzer.ErrValidationFailed, 422},
	} {
		_, e := f.g.Decide(ctx, c.r, "192.0.2.1")
		if e == nil || e.Code != c.code || e.Status != c.st {
			t.Errorf("%s: %v", c.name, e)
		}
	}
	// Daily cap after the rate check: the test key's first call passes, the second is capped.
	tk := f.secrets[keys.Test]
	if _, e := f.g.Decide(ctx, f.request("GET", "/v1/nl/lookup?postcode=1381CS&number=1", tk, "", nil), "192.0.2.1"); e != nil {
		t.Fatal(e)
	}
	if _, e := f.g.Decide(ctx, f.request("GET", "/v1/nl/lookup?postcode=1381CS&number=1", tk, "", nil), "192.0.2.1"); e == nil || e.Code != adreswijzer.ErrDailyCapReached {
		t.Errorf("second test call: %v", e)
	}
}

func TestDecideOutcome(t *testing.T) {
	f := newFixture(t, Config{})
	ctx := context.Background()
	body := []byte(`{"countryCode":"be","address1":"Harenheidestraat 67","zip":"1130","sessionId":"chk-1"}`)
	r := f.request("POST", "/v1/validate", f.secrets[keys.PKLive], "https://shop.example", body)
	d, e := f.g.Decide(ctx, r, "192.0.2.1")
	if e != nil {
		t.Fatal(e)
	}
	if d.Country != adreswijzer.BE || d.Origin != "https://shop.example" || d.SessionID != "chk-1" || d.Charged() != 1 {
		t.Errorf("decision %+v", d)
	}
	if r.Header.Get("Authorization") != "" {
		t.Error("credential left on the request")
	}
	if b, _ := io.ReadAll(r.Body); !bytes.Equal(b, body) || r.ContentLength != int64(len(body)) {
		t.Error("body not restored")
	}
	// A failed answer refunds.
	f.g.Finish(ctx, d, http.StatusBadGateway)
	if got, _ := f.g.Meter.Used(ctx, "acct-pk_live", time.Now()); got.Verifications != 0 {
		t.Errorf("refund: %d", got.Verifications)
	}
	// Suggest routes by its country parameter; lookups are cacheable.
	d, _ = f.g.Decide(ctx, f.request("GET", "/v1/suggest?country=NL&q=Hugo", f.secrets[keys.Live], "", nil), "")
	if d.Country != adreswijzer.NL || d.Cache != nil {
		t.Errorf("suggest %+v", d)
	}
	d, _ = f.g.Decide(ctx, f.request("GET", "/v1/nl/lookup?postcode=1381CS&number=16", f.secrets[keys.Live], "", nil), "")
	if d.Cache == nil {
		t.Error("lookup not cacheable")
	}
	d, e = f.g.Decide(ctx, f.request("OPTIONS", "/v1/nl/lookup", "", "https://any.example", nil), "")
	if e == nil {
		e = &apierr.Error{}
	}
	if d.Preflight || e.Status != 404 {
		t.Error("OPTIONS without a preflight header is a preflight")
	}
}

// What a decided call charges. A HEAD request on a data route carries no data back: it is
// checked like the GET, and counts nothing nor moves its session on. A validate ends its
// session, so that the next validate of the sessionId counts; only customerConfirmed true
// (the JSON true, by that exact name) makes the one right after it a free confirmation.
func TestDecideCharge(t *testing.T) {
	type call struct {
		method, target, body string
		charged              int // verifications counted, or
		status               int // the refusal's status
	}
	lookup := func(method, session string, charged int) call {
		return call{method: method, target: "/v1/nl/lookup?postcode=1381CS&number=16&sessionId=" + session, charged: charged}
	}
	validate := func(session, extra string, charged int) call {
		return call{method: "POST", target: "/v1/validate", charged: charged,
			body: `{"countryCode":"NL","address1":"Hugo de Grootlaan 16","zip":"1381 CS","sessionId":"` + session + `"` + extra + `}`}
	}
	confirmed := `,"customerConfirmed":true`
	for _, c := range []struct {
		name  string
		calls []call
	}{
		{"HEAD of a lookup", []call{{method: "HEAD", target: "/v1/nl/lookup?postcode=1381CS&number=16"}}},
		{"HEAD of a suggestion", []call{{method: "HEAD", target: "/v1/suggest?country=nl&q=Hugo"}}},
		{"HEAD of an autocompletion", []call{{method: "HEAD", target: "/v1/autocomplete?country=nl&q=Hugo+de"}}},
		{"HEAD in a session leaves it closed", []call{lookup("GET", "h1", 1), validate("h1", "", 0), lookup("HEAD", "h1", 0),
			validate("h1", confirmed, 0)}},
		{"HEAD needs a credential", []call{{method: "HEAD", target: "/v1/nl/lookup?postcode=1381CS&number=16", status: 401}}},
		{"HEAD with a bad sessionId", []call{{method: "HEAD", target: "/v1/nl/lookup?postcode=1&number=1&sessionId=a%20b", status: 422}}},
		{"validates of one sessionId", []call{lookup("GET", "v1", 1), validate("v1", "", 0), validate("v1", "", 1), validate("v1", "", 1)}},
		{"confirmation", []call{validate("c1", "", 1), validate("c1", confirmed, 0), validate("c1", confirmed, 1)}},
		{"customerConfirmed false", []call{validate("c2", "", 1), validate("c2", `,"customerConfirmed":false`, 1)}},
		{"customerConfirmed as a string", []call{validate("c3", "", 1), validate("c3", `,"customerConfirmed":"true"`, 1)}},
		{"customerConfirmed by another name", []call{validate("c4", "", 1), validate("c4", `,"CustomerConfirmed":true`, 1)}},
		// A country without a register is answered UNSUPPORTED_COUNTRY without one: not
		// counted, and its sessionId's session left as it was. A code the worker refuses
		// (422) is charged here and given back when the 422 comes (TestDecideOutcome).
		{"lookup abroad", []call{{method: "GET", target: "/v1/de/lookup?postcode=10117&number=1"},
			{method: "POST", target: "/v1/fr/lookup", body: `{"postcode":"75001","number":"1"}`}}},
		{"validate abroad", []call{{method: "POST", target: "/v1/validate", body: `{"countryCode":"DE","address1":"Unter den Linden 1","zip":"10117"}`},
			{method: "POST", target: "/v1/validate", body: `{"countryCode":"fr","address1":"Rue de Rivoli 1","zip":"75001"}`}}},
		{"suggest and autocomplete abroad", []call{{method: "GET", target: "/v1/suggest?country=DE&q=Unter+den"},
			{method: "GET", target: "/v1/suggest?country=lu&q=Rue"}, {method: "POST", target: "/v1/autocomplete", body: `{"country":"de","q":"Unter"}`},
			{method: "GET", target: "/v1/suggest?country=nl&q=Hugo", charged: 1}}},
		{"abroad in a session", []call{lookup("GET", "a1", 1), {method: "POST", target: "/v1/validate",
			body: `{"countryCode":"DE","address1":"x","zip":"1","sessionId":"a1"}`}, validate("a1", "", 0)}},
		{"malformed country charged until the worker refuses it", []call{{method: "GET", target: "/v1/NL/lookup?postcode=1381CS&number=16", charged: 1},
			{method: "POST", target: "/v1/validate", body: `{"countryCode":"NLD","address1":"x","zip":"1"}`, charged: 1}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, Config{})
			ctx := context.Background()
			for i, cl := range c.calls {
				cred := f.secrets[keys.Live]
				if cl.status == http.StatusUnauthorized {
					cred = ""
				}
				var body []byte
				if cl.body != "" {
					body = []byte(cl.body)
				}
				d, e := f.g.Decide(ctx, f.request(cl.method, cl.target, cred, "", body), "192.0.2.1")
				switch {
				case cl.status != 0 && (e == nil || e.Status != cl.status):
					t.Errorf("call %d (%s): %v, want %d", i, cl.method, e, cl.status)
				case cl.status == 0 && e != nil:
					t.Fatalf("call %d (%s): %v", i, cl.method, e)
				case cl.status == 0 && d.Charged() != cl.charged:
					t.Errorf("call %d (%s %s): charged %d, want %d", i, cl.method, cl.target, d.Charged(), cl.charged)
				}
				if e == nil {
					f.g.Finish(ctx, d, http.StatusOK)
				}
			}
		})
	}
}

// agentExtension stands for the agent policy an Extension will add: its own credential on
// /mcp, and a check of its own.
type agentExtension struct {
	checks int
	bound  *Gateway
}

func (x *agentExtension) Bind(g *Gateway) { x.bound = g }

func (x *agentExtension) Authenticate(_ context.Context, _ *http.Request, route Route, cred string) (*Principal, bool, *apierr.Error) {
	if route != RouteAgent || cred != "oauth-token-of-an-agent" {
		return nil, false, nil
	}
	return &Principal{Kind: "agent", ID: "agent-1", Account: "acct-agent", Plan: "free", Scopes: []string{keys.ScopeVerify},
		Routes: RoutesOf(RouteAgent), LimitKey: "agent:agent-1", Uncounted: true}, true, nil
}

func (x *agentExtension) Check(_ context.Context, r *http.Request, d *Decision) *apierr.Error {
	x.checks++
	if r.Header.Get("X-Test-Deny") != "" {
		return apierr.RateLimited(time.Minute)
	}
	return nil
}

func TestExtension(t *testing.T) {
	x := &agentExtension{}
	f := newFixture(t, Config{Limits: map[string]limit.Rule{"agent": {Rate: 1, Period: time.Minute, Burst: 1}}}, x)
	ctx := context.Background()
	d, e := f.g.Decide(ctx, f.request("POST", "/mcp", "oauth-token-of-an-agent", "", []byte(`{}`)), "")
	if x.bound != f.g {
		t.Error("extension not bound to the gateway")
	}
	if e != nil || d.Principal.Kind != "agent" || x.checks != 1 {
		t.Fatalf("agent: %v %+v", e, d)
	}
	if _, e := f.g.Decide(ctx, f.request("POST", "/mcp", "oauth-token-of-an-agent", "", []byte(`{}`)), ""); e == nil || e.Code != adreswijzer.ErrRateLimited {
		t.Errorf("the agent kind's rate rule was not applied: %v", e)
	}
	if _, e := f.g.Decide(ctx, f.request("GET", "/v1/nl/lookup?postcode=1381CS&number=1", "oauth-token-of-an-agent", "", nil), ""); e == nil || e.Status != 401 {
		t.Errorf("agent token outside /mcp: %v", e)
	}
	// A refusal by the extension refunds the charge.
	r := f.request("GET", "/v1/nl/lookup?postcode=1381CS&number=1", f.secrets[keys.Live], "", nil)
	r.Header.Set("X-Test-Deny", "1")
	if _, e := f.g.Decide(ctx, r, ""); e == nil || e.Code != adreswijzer.ErrRateLimited {
		t.Fatalf("extension check: %v", e)
	}
	if got, _ := f.g.Meter.Used(ctx, "acct-live", time.Now()); got.Verifications != 0 {
		t.Errorf("refused call counted: %d", got.Verifications)
	}
}

// callCounter is an extension that counts the calls inside requests to /mcp itself.
type callCounter struct{ agentExtension }

func (callCounter) CountsCalls(route Route) bool { return route == RouteAgent }

// A test key's daily cap counts each request as a call, unless an extension counts the calls
// of the route itself (the agent interface's tool calls), through CountDaily; REST calls
// share the same day.
func TestDailyCapCounter(t *testing.T) {
	ctx := context.Background()
	mcp := func(f *fixture) *apierr.Error {
		_, e := f.g.Decide(ctx, f.request("POST", "/mcp", f.secrets[keys.Test], "", []byte(`{}`)), "")
		return e
	}
	t.Run("per request", func(t *testing.T) {
		f := newFixture(t, Config{TestDailyCap: 2}, &agentExtension{})
		if e1, e2, e3 := mcp(f), mcp(f), mcp(f); e1 != nil || e2 != nil || e3 == nil || e3.Code != adreswijzer.ErrDailyCapReached {
			t.Errorf("three requests under a cap of two: %v, %v, %v", e1, e2, e3)
		}
	})
	t.Run("counted by the extension", func(t *testing.T) {
		f := newFixture(t, Config{TestDailyCap: 2}, &callCounter{})
		for range 5 {
			if e := mcp(f); e != nil {
				t.Fatalf("a request to /mcp used the cap: %v", e)
			}
		}
		d, _ := f.g.Decide(ctx, f.request("POST", "/mcp", f.secrets[keys.Test], "", []byte(`{}`)), "")
		if ok, left, wait := f.g.CountDaily(ctx, d, 3); ok || wait <= 0 || left != 2 {
			t.Errorf("three calls under a cap of two: %v, %d left, %v", ok, left, wait)
		}
		if ok, left, _ := f.g.CountDaily(ctx, d, 2); !ok || left != 0 {
			t.Errorf("a refused batch used the cap: %v, %d left", ok, left)
		}
		lookup := f.request("GET", "/v1/nl/lookup?postcode=1381CS&number=1", f.secrets[keys.Test], "", nil)
		if _, e := f.g.Decide(ctx, lookup, ""); e == nil || e.Code != adreswijzer.ErrDailyCapReached {
			t.Errorf("REST call after the day's tool calls: %v", e)
		}
		live, _ := f.g.Decide(ctx, f.request("POST", "/mcp", f.secrets[keys.Live], "", []byte(`{}`)), "")
		if ok, _, _ := f.g.CountDaily(ctx, live, 1000); !ok {
			t.Error("a live key has a daily cap")
		}
	})
}

// A publishable key's refusal for a page it is not for is readable by that page (CORS for
// its origin), so the form can say why; without an Origin there is nothing to allow.
func TestForeignOriginReadable(t *testing.T) {
	f := newFixture(t, Config{})
	ctx := context.Background()
	pk := f.secrets[keys.PKLive]
	for _, origin := range []string{"https://evil.example", ""} {
		d, e := f.g.Decide(ctx, f.request("GET", "/v1/nl/lookup?postcode=1381CS&number=16&sessionId=s", pk, origin, nil), "")
		if e == nil || e.Status != 403 || d.Origin != origin {
			t.Errorf("origin %q: %v, CORS origin %q", origin, e, d.Origin)
		}
		h := http.Header{}
		SetCORS(h, d)
		if h.Get("Access-Control-Allow-Origin") != origin || h.Get("Vary") != "Origin" {
			t.Errorf("origin %q: headers %v", origin, h)
		}
		if d.Charged() != 0 {
			t.Error("a refused call was counted")
		}
	}
}

// The agent interface's body is bounded at its own limit, far above the 64 KB of a REST
// call, and handed to the extensions.
func TestAgentBody(t *testing.T) {
	f := newFixture(t, Config{})
	ctx := context.Background()
	body := append([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","pad":"`), bytes.Repeat([]byte("x"), 200<<10)...)
	body = append(body, `"}`...)
	r := f.request("POST", "/mcp", f.secrets[keys.Live], "", body)
	d, e := f.g.Decide(ctx, r, "")
	if e != nil || !bytes.Equal(d.Body, body) {
		t.Fatalf("200 KB to /mcp: %v", e)
	}
	if b, _ := io.ReadAll(r.Body); !bytes.Equal(b, body) {
		t.Error("body not restored")
	}
	big := bytes.Repeat([]byte(" "), 1<<20+1)
	if _, e := f.g.Decide(ctx, f.request("POST", "/mcp", f.secrets[keys.Live], "", big), ""); e == nil || e.Code != adreswijzer.ErrPayloadTooLarge {
		t.Errorf("over 1 MB: %v", e)
	}
	if _, e := f.g.Decide(ctx, f.request("POST", "/v1/validate", f.secrets[keys.Live], "", body), ""); e == nil || e.Code != adreswijzer.ErrPayloadTooLarge {
		t.Errorf("200 KB to validate: %v", e)
	}
}
