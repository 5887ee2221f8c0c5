package caddymodule_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/gateway/gatewaytest"
	"github.com/adreswijzer/adreswijzer/gateway/keys"
)

// brokenWorker answers every data call with its headers and the start of a body, and then
// either stalls past the gateway's deadline (lookups, validate) or dies (suggest): the
// answers that make Caddy's reverse_proxy log "aborting with incomplete response". saw, when
// set, is given every request's headers as they arrived.
func brokenWorker(t *testing.T, saw func(http.Header)) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if saw != nil {
			saw(r.Header.Clone())
		}
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Set("X-Dataset-Version", gatewaytest.VersionNL)
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, `{"addresses":[`)
		_ = http.NewResponseController(w).Flush()
		if r.URL.Path == "/v1/suggest" {
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				conn.Close()
			}
			return
		}
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// waitBroken waits until reverse_proxy has logged n broken answers, and returns the log.
func (g *gw) waitBroken(n int) string {
	g.t.Helper()
	var log string
	deadline := time.Now().Add(3 * time.Second)
	for {
		log = g.caddyLog()
		if strings.Count(log, "aborting with incomplete response") >= n || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if got := strings.Count(log, "aborting with incomplete response"); got < n {
		g.t.Errorf("reverse_proxy logged %d broken answers, want %d: the test did not do what it says\n%s", got, n, log)
	}
	return log
}

// bodyOf is a request body, nil for none.
func bodyOf(s string) []byte {
	if s == "" {
		return nil
	}
	return []byte(s)
}

// typedInLog fails for every log line that carries one of typed, the house number typed
// as a number of its own, or a request's query.
func typedInLog(t *testing.T, log string, typed []string) {
	t.Helper()
	// The house number as a number of its own: its digits inside a timestamp or a duration
	// (1795422609.43217) are not what was typed.
	number := regexp.MustCompile(`(^|[^0-9.])4321([^0-9.]|$)`)
	for _, line := range strings.Split(log, "\n") {
		for _, s := range typed {
			if strings.Contains(strings.ToLower(line), strings.ToLower(s)) {
				t.Errorf("a log line carries %q: %s", s, line)
			}
		}
		if number.MatchString(line) {
			t.Errorf("a log line carries the house number: %s", line)
		}
		if strings.Contains(line, `"uri":"`) && strings.Contains(line, "?") {
			t.Errorf("a log line carries a query: %s", line)
		}
	}
}

// Nothing a customer typed reaches a log line, whatever Caddy or the gateway logs about a
// request, at any level, when a worker's answer breaks off after its headers. A call whose
// answer broke off is not counted, and, as nothing of a data answer reaches the caller before
// it is whole, is answered 503 for the caller to fail open, not a 200 cut short.
func TestNoQueryInLogs(t *testing.T) {
	health := gatewaytest.NewWorker(t) // dataset versions, for the cache
	g := startGateway(t, gatewayConfig{upstream: brokenWorker(t, nil).URL, workers: health.URL, captureLog: true,
		// A handler after the gateway's that fails with a client error: Caddy's error log
		// would print the request as it arrived.
		routes: "handle /v1/autocomplete {\n\t\t\terror 422\n\t\t}",
		keys:   []keys.Options{{Name: "live", Kind: keys.Live, Account: "acct-logs"}}})
	time.Sleep(300 * time.Millisecond)

	typed := []string{"9999ZZ", "9999+zz", "Zwanenburgwal", "Kerkstraat", "Nergenshuizen"}
	// A lookup (held back for the cache), a suggestion whose worker died, a validate whose
	// answer stalled after its headers: none reached the caller in part.
	calls := []struct{ method, path, body string }{
		{http.MethodGet, "/v1/nl/lookup?postcode=9999+zz&number=4321&street=Kerkstraat", ""},
		{http.MethodGet, "/v1/suggest?country=nl&q=Zwanenburgwal&postcode=9999ZZ", ""},
		{http.MethodPost, "/v1/validate?city=Nergenshuizen",
			`{"countryCode":"NL","address1":"Kerkstraat 4321","zip":"9999 ZZ","city":"Nergenshuizen"}`},
	}
	for _, c := range calls {
		a := g.do(req{method: c.method, path: c.path, key: "live", body: bodyOf(c.body)})
		expect(t, c.method+" "+c.path+" whose answer broke off", a, http.StatusServiceUnavailable, adreswijzer.ErrServiceUnavailable)
	}

	// A handler after the gateway's failed: the caller gets the spec's shape.
	a := g.do(req{path: "/v1/autocomplete?country=nl&q=Kerkstraat+4321", key: "live"})
	expect(t, "autocomplete refused by a later handler", a, 422, adreswijzer.ErrValidationFailed)

	typedInLog(t, g.waitBroken(len(calls)), typed)
	g.stableUsage("acct-logs", 0)
}

// The page a call came from (Referer) may be a checkout whose URL holds what the customer
// typed, and reverse_proxy prints a request's headers when a worker's answer breaks off. The
// gateway passes neither Referer nor Cookie on, whatever the Caddyfile says (the test's has no
// header_up lines): the worker never receives them, and no log line prints them.
func TestNoRefererInLogs(t *testing.T) {
	var mu sync.Mutex
	var received []string
	worker := brokenWorker(t, func(h http.Header) {
		mu.Lock()
		defer mu.Unlock()
		for _, k := range []string{"Referer", "Cookie"} {
			if h.Get(k) != "" {
				received = append(received, k)
			}
		}
	})
	g := startGateway(t, gatewayConfig{upstream: worker.URL, workers: gatewaytest.NewWorker(t).URL, captureLog: true,
		keys: []keys.Options{{Name: "live", Kind: keys.Live, Account: "acct-referer"}}})

	headers := map[string]string{
		"Referer": "https://shop.example/checkout?street=Zwanenburgwal&postcode=9999ZZ&number=4321&city=Nergenshuizen",
		"Cookie":  "checkout=Kerkstraat",
	}
	// Calls of which only the headers carry what was typed.
	calls := []struct{ method, path, body string }{
		{http.MethodGet, nlLookup, ""},
		{http.MethodGet, "/v1/suggest?country=nl&q=Hugo&postcode=1381CS", ""},
		{http.MethodPost, "/v1/validate", string(validateBody(""))},
	}
	for _, c := range calls {
		a := g.do(req{method: c.method, path: c.path, key: "live", body: bodyOf(c.body), headers: headers})
		expect(t, c.method+" "+c.path+" whose answer broke off", a, http.StatusServiceUnavailable, adreswijzer.ErrServiceUnavailable)
	}
	typedInLog(t, g.waitBroken(len(calls)), []string{"Zwanenburgwal", "9999ZZ", "Nergenshuizen", "Kerkstraat", "shop.example/checkout"})
	mu.Lock()
	defer mu.Unlock()
	if len(received) > 0 {
		t.Errorf("the worker received %v", received)
	}
}
