package caddymodule_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/gateway/gatewaytest"
	"github.com/adreswijzer/adreswijzer/gateway/keys"
	"github.com/adreswijzer/adreswijzer/gateway/usage"
)

func TestLimits(t *testing.T) {
	g := startGateway(t, gatewayConfig{
		upstream: upstream(t),
		extra: `limit live 2/s burst 2
			limit pk_live 1/s burst 2
			test_daily_cap 3
			plan tiny 2
			upgrade_url https://adreswijzer.example/account/plan`,
		keys: []keys.Options{
			{Name: "live", Kind: keys.Live, Account: "acct-rate"},
			{Name: "test", Kind: keys.Test, Account: "acct-daily"},
			{Name: "tiny", Kind: keys.Live, Account: "acct-tiny", Plan: "tiny"},
			{Name: "pk", Kind: keys.PKLive, Account: "acct-pkrate", Origins: []string{shop}},
		},
	})

	t.Run("rate", func(t *testing.T) {
		for i := range 2 {
			expect(t, fmt.Sprintf("call %d", i+1), g.do(req{path: nlLookup, key: "live"}), 200, "")
		}
		a := g.do(req{path: nlLookup, key: "live"})
		expect(t, "over the burst", a, 429, adreswijzer.ErrRateLimited)
		if s, err := strconv.Atoi(a.header.Get("Retry-After")); err != nil || s < 1 {
			t.Errorf("Retry-After %q, want whole seconds ≥ 1", a.header.Get("Retry-After"))
		}
		time.Sleep(600 * time.Millisecond) // one emission interval (500ms) later, one call fits
		expect(t, "after waiting", g.do(req{path: nlLookup, key: "live"}), 200, "")
	})

	t.Run("publishable per client address", func(t *testing.T) {
		for i := range 2 {
			expect(t, fmt.Sprintf("call %d", i+1), g.do(req{path: nlLookup + "&sessionId=r1", key: "pk", origin: shop}), 200, "")
		}
		expect(t, "over the burst", g.do(req{path: nlLookup + "&sessionId=r1", key: "pk", origin: shop}), 429, adreswijzer.ErrRateLimited)
	})

	t.Run("daily cap of test keys", func(t *testing.T) {
		for i := range 3 {
			expect(t, fmt.Sprintf("call %d", i+1), g.do(req{path: nlLookup, key: "test"}), 200, "")
		}
		a := g.do(req{path: nlLookup, key: "test"})
		expect(t, "fourth call", a, 429, adreswijzer.ErrDailyCapReached)
		s, err := strconv.Atoi(a.header.Get("Retry-After"))
		if err != nil || s < 1 || s > 86400 {
			t.Errorf("Retry-After %q, want the seconds until midnight UTC", a.header.Get("Retry-After"))
		}
		g.stableUsage("acct-daily", 0) // test keys are never counted
	})

	t.Run("monthly quota", func(t *testing.T) {
		expect(t, "first", g.do(req{path: nlLookup, key: "tiny"}), 200, "")
		expect(t, "second", g.do(req{path: beLookup, key: "tiny"}), 200, "")
		time.Sleep(1100 * time.Millisecond) // out of the rate limit's way
		a := g.do(req{path: nlLookup, key: "tiny"})
		expect(t, "third", a, 429, adreswijzer.ErrQuotaExceeded)
		if a.errorBody().UpgradeURL != "https://adreswijzer.example/account/plan" {
			t.Errorf("upgradeUrl %q", a.errorBody().UpgradeURL)
		}
		if a.header.Get("Retry-After") != "" {
			t.Error("QUOTA_EXCEEDED with Retry-After: waiting does not help")
		}
		g.waitUsage("acct-tiny", 2)
	})
}

// The counting rules of the spec (What the service does, 7-8), as the usage file records
// them.
func TestCounting(t *testing.T) {
	g := startGateway(t, gatewayConfig{
		upstream: upstream(t),
		extra:    "limit live 1000/s burst 1000\nlimit pk_live 1000/s burst 1000",
		keys: []keys.Options{
			{Name: "live", Kind: keys.Live, Account: "acct-count"},
			{Name: "pk", Kind: keys.PKLive, Account: "acct-pkcount", Origins: []string{shop}},
			{Name: "test", Kind: keys.Test, Account: "acct-free"},
			{Name: "loose", Kind: keys.Live, Account: "acct-loose"},
			{Name: "forever", Kind: keys.Live, Account: "acct-forever"},
			{Name: "fixed", Kind: keys.Live, Account: "acct-fixed"},
			{Name: "head", Kind: keys.Live, Account: "acct-head"},
		},
	})
	call := func(key, path string, body []byte) {
		t.Helper()
		r := req{path: path, key: key, body: body}
		if key == "pk" {
			r.origin = shop
		}
		expect(t, path, g.do(r), 200, "")
	}

	// One session: suggest, autocomplete and lookups count once, with the validate that ends it.
	call("live", "/v1/suggest?country=nl&q=Hugo&sessionId=S1", nil)
	call("live", "/v1/autocomplete?country=nl&q=Hugo+de&sessionId=S1", nil)
	call("live", nlLookup+"&sessionId=S1", nil)
	call("live", nlLookup+"&sessionId=S1", nil)
	call("live", "/v1/validate", validateBody("S1"))
	g.waitUsage("acct-count", 1)
	// The validate closed the session: the same id starts a new verification.
	call("live", "/v1/suggest?country=nl&q=Hugo&sessionId=S1", nil)
	g.waitUsage("acct-count", 2)
	// A validate ends its session: validates of ten addresses under one sessionId are ten
	// verifications, not one.
	for i := range 10 {
		call("fixed", "/v1/validate", validateNumber("fixed", 16+i))
	}
	g.waitUsage("acct-fixed", 10)

	// A HEAD request gets the headers of the GET's answer and no data: it counts nothing,
	// and opens no session (the GET after it counts).
	for _, path := range []string{nlLookup, nlLookup + "&sessionId=H1", "/v1/suggest?country=nl&q=Hugo",
		"/v1/autocomplete?country=nl&q=Hugo+de&sessionId=H1"} {
		if a := g.do(req{method: http.MethodHead, path: path, key: "head"}); a.status != 200 || len(a.body) != 0 {
			t.Errorf("HEAD %s: %d with %d bytes, want 200 and no body", path, a.status, len(a.body))
		}
	}
	g.stableUsage("acct-head", 0)
	call("head", nlLookup+"&sessionId=H1", nil)
	g.waitUsage("acct-head", 1)

	// Without a session every lookup and validate counts.
	call("live", nlLookup, nil)
	call("live", beLookup, nil)
	call("live", "/v1/validate", validateBody(""))
	g.waitUsage("acct-count", 5)

	// Publishable keys always carry a session: a whole form fill is one verification.
	for i := range 5 {
		call("pk", fmt.Sprintf("/v1/suggest?country=nl&q=H%d&sessionId=form-1", i), nil)
	}
	call("pk", nlLookup+"&sessionId=form-1", nil)
	call("pk", "/v1/validate", validateBody("form-1"))
	g.waitUsage("acct-pkcount", 1)

	// Ten suggest (or autocomplete) calls without a session count as one: the 1st and
	// the 11th count.
	for i := range 10 {
		path := fmt.Sprintf("/v1/suggest?country=nl&q=Hu%d", i)
		if i%2 == 1 {
			path = fmt.Sprintf("/v1/autocomplete?country=nl&q=Hu%d", i)
		}
		call("loose", path, nil)
	}
	g.stableUsage("acct-loose", 1)
	call("loose", "/v1/suggest?country=nl&q=Hugo", nil)
	g.waitUsage("acct-loose", 2)

	// A session covers 50 calls, however quickly they come: one sessionId kept for ever is
	// not one verification for any number of addresses.
	for i := range 2*usage.SessionCalls + 1 {
		call("forever", fmt.Sprintf("/v1/nl/lookup?postcode=1381CS&number=%d&sessionId=forever", 16+i%20), nil)
	}
	g.waitUsage("acct-forever", 3)

	// Test keys are never counted.
	for range 3 {
		call("test", nlLookup, nil)
		call("test", "/v1/validate", validateBody(""))
	}
	g.stableUsage("acct-free", 0)
}

// The address form's confirmation: after a validate whose answer is blocking or corrected,
// the customer confirms the address as typed and the form validates it again, with
// customerConfirmed, in the same session. That is still one address, one verification, in
// memory as in Redis. Anything else after the validate that ended the session is a new
// address: a lookup, another validate, a second confirmation.
func TestCountingConfirmation(t *testing.T) {
	confirmed := func(session string) []byte {
		var m map[string]any
		if err := json.Unmarshal(validateBody(session), &m); err != nil {
			t.Fatal(err)
		}
		m["customerConfirmed"] = true
		b, _ := json.Marshal(m)
		return b
	}
	lookup := func(session string) req { return req{path: nlLookup + "&sessionId=" + session} }
	validate := func(session string) req { return req{path: "/v1/validate", body: validateBody(session)} }
	confirm := func(session string) req { return req{path: "/v1/validate", body: confirmed(session)} }
	flows := []struct {
		name  string
		calls []req
		want  int64
	}{
		{"confirm", []req{lookup("f1"), validate("f1"), confirm("f1")}, 1},
		{"repeated confirmation", []req{lookup("f2"), lookup("f2"), validate("f2"), confirm("f2"), confirm("f2")}, 2},
		{"validate and confirm alone", []req{validate("f3"), confirm("f3")}, 1},
		{"next address", []req{lookup("f4"), validate("f4"), lookup("f4"), validate("f4"), confirm("f4")}, 2},
		{"validate again", []req{lookup("f5"), validate("f5"), validate("f5"), validate("f5")}, 3},
		{"confirmed every time", []req{confirm("f6"), confirm("f6"), confirm("f6")}, 3},
	}
	for _, mode := range []string{"memory", "redis"} {
		t.Run(mode, func(t *testing.T) {
			extra := "limit pk_live 1000/s burst 1000"
			if mode == "redis" {
				_, prefix := gatewaytest.Redis(t)
				t.Setenv("ADRESWIJZER_TEST_REDIS_URL", "redis://"+gatewaytest.RedisAddr())
				extra += fmt.Sprintf("\nredis {env.ADRESWIJZER_TEST_REDIS_URL}\nredis_prefix %s\nredis_timeout 1s", prefix)
			}
			var ks []keys.Options
			for i := range flows {
				ks = append(ks, keys.Options{Name: fmt.Sprint("pk", i), Kind: keys.PKLive, Account: fmt.Sprint("acct-confirm-", i), Origins: []string{shop}})
			}
			g := startGateway(t, gatewayConfig{upstream: upstream(t), extra: extra, keys: ks})
			for i, f := range flows {
				for j, r := range f.calls {
					r.key, r.origin = fmt.Sprint("pk", i), shop
					expect(t, fmt.Sprintf("%s, call %d", f.name, j), g.do(r), 200, "")
				}
			}
			for i, f := range flows {
				t.Run(f.name, func(t *testing.T) { g.waitUsageFor(t, fmt.Sprint("acct-confirm-", i), f.want) })
			}
		})
	}
}

// A call the register did not answer is not counted.
func TestRefundOnFailure(t *testing.T) {
	w := gatewaytest.NewWorker(t)
	g := startGateway(t, gatewayConfig{upstream: w.URL, keys: []keys.Options{{Name: "live", Kind: keys.Live, Account: "acct-refund"}}})
	expect(t, "answered", g.do(req{path: nlLookup, key: "live"}), 200, "")
	w.Fail(http.StatusServiceUnavailable)
	expect(t, "worker 503", g.do(req{path: beLookup, key: "live"}), 503, adreswijzer.ErrServiceUnavailable)
	expect(t, "worker 503 in a session", g.do(req{path: beLookup + "&sessionId=R1", key: "live"}), 503, adreswijzer.ErrServiceUnavailable)
	w.Fail(0)
	g.stableUsage("acct-refund", 1)
	// The failed first call did not open the session: the next call of it counts.
	expect(t, "session retried", g.do(req{path: beLookup + "&sessionId=R1", key: "live"}), 200, "")
	g.waitUsage("acct-refund", 2)
}

func TestCache(t *testing.T) {
	w := gatewaytest.NewWorker(t)
	g := startGateway(t, gatewayConfig{upstream: w.URL, keys: []keys.Options{{Name: "live", Kind: keys.Live, Account: "acct-cache"}}})
	// The version is known from the first health poll.
	time.Sleep(300 * time.Millisecond)

	first := g.do(req{path: nlLookup, key: "live"})
	expect(t, "first", first, 200, "")
	if first.header.Get("X-Cache") != "MISS" {
		t.Errorf("first lookup X-Cache %q, want MISS", first.header.Get("X-Cache"))
	}
	second := g.do(req{path: nlLookup, key: "live"})
	if second.header.Get("X-Cache") != "HIT" || string(second.body) != string(first.body) {
		t.Errorf("second lookup X-Cache %q, same body %v", second.header.Get("X-Cache"), string(second.body) == string(first.body))
	}
	if second.header.Get("X-Dataset-Version") != gatewaytest.VersionNL {
		t.Errorf("hit without the dataset version header: %q", second.header.Get("X-Dataset-Version"))
	}
	// A hit concerns personal data just as much as the worker's own answer does.
	for k, want := range map[string]string{"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff",
		"Content-Type": "application/json; charset=utf-8"} {
		if got := second.header.Get(k); got != want {
			t.Errorf("hit %s %q, want %q as on the worker's answer", k, got, want)
		}
	}
	// The same query typed differently is the same entry.
	if a := g.do(req{path: "/v1/nl/lookup?number=16&postcode=1381+cs", key: "live"}); a.header.Get("X-Cache") != "HIT" {
		t.Errorf("normalised postcode: X-Cache %q", a.header.Get("X-Cache"))
	}
	if n := w.Calls("/v1/nl/lookup"); n != 1 {
		t.Errorf("worker asked %d times, want once", n)
	}
	be := g.do(req{path: beLookup, key: "live"})
	if a := g.do(req{path: "/v1/be/lookup?postcode=1130&street=HARENHEIDESTRAAT++&number=67", key: "live"}); a.header.Get("X-Cache") != "HIT" ||
		string(a.body) != string(be.body) {
		t.Errorf("Belgian street folded: X-Cache %q", a.header.Get("X-Cache"))
	}
	// Different answers stay apart.
	for _, q := range []string{"/v1/nl/lookup?postcode=1381CS&number=17", nlLookup + "&lang=en", nlLookup + "&carrier=postnl"} {
		if a := g.do(req{path: q, key: "live"}); a.header.Get("X-Cache") != "MISS" {
			t.Errorf("%s: X-Cache %q, want MISS", q, a.header.Get("X-Cache"))
		}
	}
	// Hits are still authenticated and counted.
	expect(t, "hit without key", g.do(req{path: nlLookup}), 401, adreswijzer.ErrUnauthorized)
	g.waitUsage("acct-cache", 8)

	// A new version seen in any answer of the country ends the old entries at once.
	w.SetVersion(adreswijzer.NL, "bag:2026-11-08+bagmut:2026-11-22")
	expect(t, "suggest", g.do(req{path: "/v1/suggest?country=nl&q=Hugo", key: "live"}), 200, "")
	a := g.do(req{path: nlLookup, key: "live"})
	if a.header.Get("X-Cache") != "MISS" || a.header.Get("X-Dataset-Version") != "bag:2026-11-08+bagmut:2026-11-22" {
		t.Errorf("after a new version: X-Cache %q version %q", a.header.Get("X-Cache"), a.header.Get("X-Dataset-Version"))
	}
	if a := g.do(req{path: nlLookup, key: "live"}); a.header.Get("X-Cache") != "HIT" {
		t.Errorf("new version not cached: %q", a.header.Get("X-Cache"))
	}
	// Belgium is not affected.
	if a := g.do(req{path: beLookup, key: "live"}); a.header.Get("X-Cache") != "HIT" {
		t.Errorf("BE entry lost by an NL version: %q", a.header.Get("X-Cache"))
	}
	// A version activated without traffic is learnt from /health.
	w.SetVersion(adreswijzer.BE, "best:2026-11-23")
	time.Sleep(600 * time.Millisecond)
	if a := g.do(req{path: beLookup, key: "live"}); a.header.Get("X-Cache") != "MISS" || a.header.Get("X-Dataset-Version") != "best:2026-11-23" {
		t.Errorf("after a polled version: X-Cache %q version %q", a.header.Get("X-Cache"), a.header.Get("X-Dataset-Version"))
	}
	// A rollback all workers agree on is followed too; the old entries are of that version
	// and may serve again.
	w.SetVersion(adreswijzer.BE, gatewaytest.VersionBE)
	time.Sleep(600 * time.Millisecond)
	if a := g.do(req{path: beLookup, key: "live"}); a.header.Get("X-Dataset-Version") != gatewaytest.VersionBE {
		t.Errorf("after a rollback: version %q", a.header.Get("X-Dataset-Version"))
	}
	// Errors are not cached.
	w.Fail(http.StatusServiceUnavailable)
	g.do(req{path: "/v1/nl/lookup?postcode=1381CS&number=99", key: "live"})
	w.Fail(0)
	if a := g.do(req{path: "/v1/nl/lookup?postcode=1381CS&number=99", key: "live"}); a.status != 200 || a.header.Get("X-Cache") != "MISS" {
		t.Errorf("after an error: %d %q", a.status, a.header.Get("X-Cache"))
	}
}

// The cache answers only what the real worker would answer as sent: a parameter the worker
// refuses goes to it and gets its 422, uncounted, even after the same lookup in an accepted
// form filled the cache.
func TestCacheRefusedForms(t *testing.T) {
	g := startGateway(t, gatewayConfig{upstream: upstream(t), keys: []keys.Options{{Name: "live", Kind: keys.Live, Account: "acct-cache422"}}})
	time.Sleep(300 * time.Millisecond) // the version is known from the first health poll
	for _, path := range []string{nlLookup, nlLookup + "&lang=nl", nlLookup + "&carrier=postnl", beLookup} {
		expect(t, path, g.do(req{path: path, key: "live"}), 200, "")
		if a := g.do(req{path: path, key: "live"}); a.header.Get("X-Cache") != "HIT" {
			t.Fatalf("%s: X-Cache %q, want HIT", path, a.header.Get("X-Cache"))
		}
	}
	g.waitUsage("acct-cache422", 8)
	for _, path := range []string{
		"/v1/nl/lookup?postcode=1381CS&number=%2016",
		"/v1/nl/lookup?postcode=1381CS&number=16%20",
		nlLookup + "&lang=NL",
		nlLookup + "&lang=%20nl%20",
		nlLookup + "&carrier=PostNL",
		"/v1/be/lookup?postcode=1130&number=67",
		"/v1/be/lookup?postcode=1130&street=Harenheidestraat" + strings.Repeat("%20", adreswijzer.MaxFieldLength) + "&number=67",
	} {
		a := g.do(req{path: path, key: "live"})
		expect(t, path, a, 422, adreswijzer.ErrValidationFailed)
		if a.header.Get("X-Cache") == "HIT" {
			t.Errorf("%s: answered from the cache", path)
		}
	}
	g.stableUsage("acct-cache422", 8)
}

// Every error answer carries the spec's ErrorResponse, whatever the worker's web server or
// a proxy between answered: a page of its own is replaced (a 502 or 504 by 503, on which
// callers fail open), a JSON error of the worker passes as it is, and none is counted.
func TestWorkerErrorShape(t *testing.T) {
	w := gatewaytest.NewWorker(t)
	g := startGateway(t, gatewayConfig{upstream: w.URL, keys: []keys.Options{{Name: "live", Kind: keys.Live, Account: "acct-shape"}}})
	for _, c := range []struct {
		status      int
		contentType string
		body        string
		want        int
		code        adreswijzer.ErrorCode
	}{
		{500, "text/html; charset=utf-8", "<html><body><h1>500 Internal Server Error</h1></body></html>", 500, adreswijzer.ErrInternal},
		{502, "text/plain; charset=utf-8", "Bad Gateway", 503, adreswijzer.ErrServiceUnavailable},
		{504, "text/html", "<h1>Gateway Timeout</h1>", 503, adreswijzer.ErrServiceUnavailable},
		{503, "text/plain", "Service Unavailable", 503, adreswijzer.ErrServiceUnavailable},
		{422, "text/plain", "bad", 422, adreswijzer.ErrValidationFailed},
		{500, "", "", 500, adreswijzer.ErrInternal},
	} {
		w.FailRaw(c.status, c.contentType, c.body)
		for _, r := range []req{{path: nlLookup, key: "live"}, {path: "/v1/suggest?country=nl&q=Hugo", key: "live"},
			{path: "/v1/validate", key: "live", body: validateBody("")}} {
			what := fmt.Sprintf("worker %d %q on %s", c.status, c.contentType, r.path)
			a := g.do(r)
			expect(t, what, a, c.want, c.code)
			if ct := a.header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
				t.Errorf("%s: Content-Type %q", what, ct)
			}
			if a.errorBody().Message == "" {
				t.Errorf("%s: no message", what)
			}
		}
	}
	w.FailRaw(0, "", "")
	expect(t, "answered", g.do(req{path: nlLookup, key: "live"}), 200, "")
	g.stableUsage("acct-shape", 1)
}

// When no worker answers in time the caller gets 503 in the spec's shape, well inside the
// 1.5 s a form waits.
func TestNoWorker(t *testing.T) {
	t.Run("dead", func(t *testing.T) {
		port := gatewaytest.FreePort(t) // nothing listens there
		g := startGateway(t, gatewayConfig{upstream: fmt.Sprintf("http://127.0.0.1:%d", port),
			keys: []keys.Options{{Name: "live", Kind: keys.Live, Account: "acct-dead"}}})
		// /health answers the spec's health body, for monitors and load balancers to read
		// one shape whatever failed.
		a := g.do(req{path: "/health"})
		var health adreswijzer.HealthResponse
		if err := json.Unmarshal(a.body, &health); a.status != 503 || err != nil || health.Status != "degraded" ||
			health.Database != "down" || health.Datasets == nil || health.CheckedAt == "" {
			t.Errorf("health without a worker: %d %s", a.status, a.body)
		}
		if a.took > 1500*time.Millisecond {
			t.Errorf("health: 503 after %v", a.took)
		}
		for _, r := range []req{{path: nlLookup, key: "live"}, {path: "/v1/validate", key: "live", body: validateBody("")},
			{path: "/v1/suggest?country=be&q=Har", key: "live"}} {
			a := g.do(r)
			expect(t, r.path, a, 503, adreswijzer.ErrServiceUnavailable)
			if a.errorBody().NextStep == "" {
				t.Error("503 without nextStep")
			}
			if a.took > 1500*time.Millisecond {
				t.Errorf("%s: 503 after %v", r.path, a.took)
			}
			t.Logf("%s: 503 after %v", r.path, a.took)
		}
		g.stableUsage("acct-dead", 0)
	})
	t.Run("hanging", func(t *testing.T) {
		w := gatewaytest.NewWorker(t)
		w.Delay(5 * time.Second)
		g := startGateway(t, gatewayConfig{upstream: w.URL, keys: []keys.Options{{Name: "live", Kind: keys.Live, Account: "acct-hang"}}})
		a := g.do(req{path: nlLookup, key: "live"})
		expect(t, "hanging worker", a, 503, adreswijzer.ErrServiceUnavailable)
		if a.took > 1500*time.Millisecond {
			t.Errorf("503 after %v", a.took)
		}
		a = g.do(req{path: "/health"})
		if a.status != 503 || !strings.Contains(string(a.body), `"status":"degraded"`) || a.took > 1500*time.Millisecond {
			t.Errorf("health of a hanging worker: %d after %v: %s", a.status, a.took, a.body)
		}
		t.Logf("hanging worker: 503 after %v", a.took)
	})
}
