package httpapi_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/gateway/gatewaytest"
	"github.com/adreswijzer/adreswijzer/worker/httpapi"
)

// The worker over the Postgres store: the same answers as over the memory store for the
// same register data, and 503 within the deadline once the database stops answering,
// whether it refuses (connections terminated, new ones refused) or stalls (connections
// open, nothing comes back).

// pgExchanges are a subset of TestAnswers that reach the database (lookups and validation
// read addresses from it; suggest reads only the catalog, which every store keeps in
// memory).
var pgExchanges = []exchange{
	{name: "lookup nl", target: "/v1/nl/lookup?postcode=1381CS&number=16"},
	{name: "lookup be", target: "/v1/be/lookup", body: `{"postcode":"1130","street":"Rue Harenheyde","number":"28","lang":"fr"}`},
	{name: "validate nl", target: "/v1/validate", body: `{"countryCode":"NL","address1":"Hugo de Grootlaan 16","zip":"1381CS","lang":"en"}`},
	{name: "validate be", target: "/v1/validate", body: `{"countryCode":"BE","address1":"Route de Maronfa 3","zip":"4960","city":"Malmedy","lang":"de"}`},
	{name: "autocomplete", target: "/v1/autocomplete?country=NL&q=Achteromstraat%201"},
	{name: "suggest", target: "/v1/suggest?country=be&q=Stevens"},
}

// deadlineSlack is how far past the deadline a 503 may come: the time to write it.
const deadlineSlack = 250 * time.Millisecond

func TestPostgres(t *testing.T) {
	if gatewaytest.SkipServices() {
		t.Skip("ADRESWIJZER_SKIP_SERVICES=1: Postgres tests skipped on purpose")
	}
	d := loadSamples(t)
	direct := freshDatabase(t)
	u, _ := url.Parse(direct)
	proxy := newStallingProxy(t, u.Host)
	loadPostgres(t, d, direct)
	viaProxy := openPostgres(t, withHost(t, direct, proxy.addr()))

	memBase, memClient := worker(t, newHandler(d.store, nil, httpapi.Options{}))
	pgBase, pgClient := worker(t, newHandler(viaProxy, nil, httpapi.Options{}))

	t.Run("same answers as the memory store", func(t *testing.T) {
		for _, e := range pgExchanges {
			mr, mb := do(t, memClient, memBase, e)
			pr, pb := do(t, pgClient, pgBase, e)
			if mr.StatusCode != 200 || pr.StatusCode != 200 || !bytes.Equal(mb, pb) {
				t.Errorf("%s: memory %d, postgres %d\nmemory:   %s\npostgres: %s", e.name, mr.StatusCode, pr.StatusCode, mb, pb)
			}
		}
		resp, body := do(t, pgClient, pgBase, exchange{target: "/health"})
		var h adreswijzer.HealthResponse
		if resp.StatusCode != 200 || json.Unmarshal(body, &h) != nil || h.Status != "ok" || h.Database != "up" || len(h.Datasets) != 2 {
			t.Errorf("health: %d %s", resp.StatusCode, body)
		}
	})

	t.Run("database stalls", func(t *testing.T) {
		proxy.stallNow()
		for _, e := range append(pgExchanges[:4:4], exchange{name: "health", target: "/health"}) {
			start := time.Now()
			resp, body := do(t, pgClient, pgBase, e)
			took := time.Since(start)
			if resp.StatusCode != http.StatusServiceUnavailable {
				t.Errorf("%s: %d, want 503: %s", e.name, resp.StatusCode, body)
			}
			if took < testTimeout-10*time.Millisecond || took > testTimeout+deadlineSlack {
				t.Errorf("%s: 503 after %v; the deadline is %v", e.name, took, testTimeout)
			}
			checkUnavailable(t, e, body)
		}
	})

	t.Run("database refuses", func(t *testing.T) {
		s := openPostgres(t, direct)
		base, c := worker(t, newHandler(s, nil, httpapi.Options{}))
		if resp, body := do(t, c, base, pgExchanges[0]); resp.StatusCode != 200 {
			t.Fatalf("before the cut: %d %s", resp.StatusCode, body)
		}
		cutOff(t, direct)
		for _, e := range append(pgExchanges[:4:4], exchange{name: "health", target: "/health"}) {
			start := time.Now()
			resp, body := do(t, c, base, e)
			took := time.Since(start)
			if resp.StatusCode != http.StatusServiceUnavailable {
				t.Errorf("%s: %d, want 503: %s", e.name, resp.StatusCode, body)
			}
			if took > testTimeout+deadlineSlack {
				t.Errorf("%s: 503 after %v; the deadline is %v", e.name, took, testTimeout)
			}
			checkUnavailable(t, e, body)
		}
		// The catalog stays in memory: street suggestions go on while the database is down.
		if resp, body := do(t, c, base, pgExchanges[5]); resp.StatusCode != 200 {
			t.Errorf("suggest with the database down: %d %s", resp.StatusCode, body)
		}
	})
}

// checkUnavailable holds a 503 to its body: SERVICE_UNAVAILABLE telling the caller to fail
// open, or for /health the health answer of a database that is down, still naming the
// datasets the worker serves from.
func checkUnavailable(t *testing.T, e exchange, body []byte) {
	t.Helper()
	if e.target == "/health" {
		var h adreswijzer.HealthResponse
		if json.Unmarshal(body, &h) != nil || h.Status != "degraded" || h.Database != "down" || len(h.Datasets) != 2 {
			t.Errorf("health while the database is down: %s", body)
		}
		return
	}
	if eb := errorOf(t, body); eb.Code != adreswijzer.ErrServiceUnavailable || eb.NextStep == "" {
		t.Errorf("%s: %s", e.name, body)
	}
}
