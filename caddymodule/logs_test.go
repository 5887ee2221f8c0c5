package caddymodule_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/gateway/gatewaytest"
	"github.com/adreswijzer/adreswijzer/gateway/keys"
)

// brokenWorker answers every data call with its headers and the start of a body, and then
// either stalls past the gateway's deadline (lookups, validate) or dies (suggest): the
// answers that make Caddy's reverse_proxy log "aborting with incomplete response".
func brokenWorker(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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

// Nothing a customer typed reaches a log line, whatever Caddy or the gateway logs about a
// request, at any level, when a worker's answer breaks off after its headers. A call whose
// answer broke off is not counted, and one of which nothing reached the caller yet (a lookup,
// held back for the cache) is answered 503 for the caller to fail open.
func TestNoQueryInLogs(t *testing.T) {
	health := gatewaytest.NewWorker(t) // dataset versions, for the cache
	g := startGateway(t, gatewayConfig{upstream: brokenWorker(t).URL, workers: health.URL, captureLog: true,
		// A handler after the gateway's that fails with a client error: Caddy's error log
		// would print the request as it arrived.
		routes: "handle /v1/autocomplete {\n\t\t\terror 422\n\t\t}",
		keys:   []keys.Options{{Name: "live", Kind: keys.Live, Account: "acct-logs"}}})
	time.Sleep(300 * time.Millisecond)

	typed := []string{"9999ZZ", "9999+zz", "Zwanenburgwal", "Kerkstraat", "Nergenshuizen"}
	send := func(method, path, body string) (*http.Response, error) {
		var rd io.Reader
		if body != "" {
			rd = strings.NewReader(body)
		}
		hr, err := http.NewRequest(method, g.base+path, rd)
		if err != nil {
			t.Fatal(err)
		}
		hr.Header.Set("Authorization", "Bearer "+g.secrets["live"])
		hr.Header.Set("Content-Type", "application/json")
		resp, err := g.client.Do(hr)
		if err != nil {
			return nil, err
		}
		_, err = io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp, err
	}

	// A lookup is held back for the cache: nothing reached the caller, who gets 503.
	resp, err := send(http.MethodGet, "/v1/nl/lookup?postcode=9999+zz&number=4321&street=Kerkstraat", "")
	if err != nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("lookup whose answer stalled: %v, %v; want 503", resp, err)
	}
	// A suggestion is passed on as it comes: the caller sees it break off.
	if resp, err := send(http.MethodGet, "/v1/suggest?country=nl&q=Zwanenburgwal&postcode=9999ZZ", ""); err == nil {
		t.Errorf("suggest whose worker died: %d and a whole body", resp.StatusCode)
	}
	// A validate whose answer stalls after its headers.
	if resp, err := send(http.MethodPost, "/v1/validate?city=Nergenshuizen",
		`{"countryCode":"NL","address1":"Kerkstraat 4321","zip":"9999 ZZ","city":"Nergenshuizen"}`); err == nil {
		t.Errorf("validate whose answer stalled: %d and a whole body", resp.StatusCode)
	}

	// A handler after the gateway's failed: the caller gets the spec's shape.
	a := g.do(req{path: "/v1/autocomplete?country=nl&q=Kerkstraat+4321", key: "live"})
	expect(t, "autocomplete refused by a later handler", a, 422, adreswijzer.ErrValidationFailed)

	var log string
	deadline := time.Now().Add(3 * time.Second)
	for {
		log = g.caddyLog()
		if strings.Count(log, "aborting with incomplete response") >= 3 || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if n := strings.Count(log, "aborting with incomplete response"); n < 3 {
		t.Errorf("reverse_proxy logged %d broken answers, want 3: the test did not do what it says\n%s", n, log)
	}
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
	g.stableUsage("acct-logs", 0)
}
