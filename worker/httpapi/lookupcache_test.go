package httpapi_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/gateway/gatewaytest"
	"github.com/adreswijzer/adreswijzer/store/memory"
	"github.com/adreswijzer/adreswijzer/store/storetest"
	"github.com/adreswijzer/adreswijzer/worker/httpapi"
	"github.com/adreswijzer/adreswijzer/worker/match"
)

// The lookup cache answers a question it has seen with the bytes the engine's answer was
// sent with: the golden answers hold for the first request and for the one the cache
// answers, every answer is held to openapi.json, and an activation is never answered
// from an earlier dataset's answers.

// cachedLookups are lookups of TestAnswers with golden files (status, X-Dataset-Version and
// body), each asked of a caching worker twice.
var cachedLookups = []exchange{
	{name: "lookup-nl-units", target: "/v1/nl/lookup?postcode=1381CS&number=16"},
	{name: "lookup-nl-units-post", target: "/v1/nl/lookup", body: `{"postcode":"1381 cs","number":"16","carrier":"postnl","sessionId":"chk-7f3a9c"}`},
	{name: "lookup-nl-none", target: "/v1/nl/lookup?postcode=1381BK&number=99999"},
	{name: "lookup-nl-postcode-unknown", target: "/v1/nl/lookup?postcode=9999ZZ&number=1"},
	{name: "lookup-nl-postcode-format", target: "/v1/nl/lookup?postcode=ABCD&number=1"},
	{name: "lookup-nl-street-given", target: "/v1/nl/lookup?postcode=1381CS&number=16&street=Hugo%20de%20Grootlaan&carrier=dhl&lang=en"},
	{name: "lookup-be-boxes", target: "/v1/be/lookup?postcode=1502&street=Stevens-de%20Waelplein&number=9"},
	{name: "lookup-be-boxes-post", target: "/v1/be/lookup", body: `{"postcode":"1502","street":"Stevens-de Waelplein","number":"9","lang":"nl"}`},
	{name: "lookup-be-brussels-fr", target: "/v1/be/lookup?postcode=1130&street=Rue%20Harenheyde&number=28"},
	{name: "lookup-be-wallonia", target: "/v1/be/lookup?postcode=4960&street=Route%20de%20Maronfa&number=3&carrier=bpost"},
	{name: "lookup-be-street-mismatch", target: "/v1/be/lookup?postcode=1502&street=Nergensstraat&number=9"},
	{name: "lookup-generic-unsupported", target: "/v1/fr/lookup?postcode=75001&number=1"},
	{name: "lookup-generic-unsupported-en", target: "/v1/de/lookup?postcode=10115&number=1&lang=en"},
}

func TestLookupCacheAnswers(t *testing.T) {
	d := loadSamples(t)
	reg := prometheus.NewRegistry()
	base, c := worker(t, warmHandler(t, d.store, httpapi.Options{LookupCache: 100, Registry: reg}))
	for _, e := range cachedLookups {
		t.Run(e.name, func(t *testing.T) {
			first, b1 := do(t, c, base, e)
			hits := cacheCount(t, reg, "hit")
			again, b2 := do(t, c, base, e)
			for i, resp := range []*http.Response{first, again} {
				if resp.StatusCode != http.StatusOK {
					t.Fatalf("request %d: status %d: %s", i+1, resp.StatusCode, b1)
				}
				checkDataHeaders(t, resp)
			}
			goldenAnswer(t, e.name, first, b1)
			goldenAnswer(t, e.name, again, b2)
			if !bytes.Equal(b1, b2) {
				t.Errorf("the second answer differs:\n%s\n%s", b1, b2)
			}
			for _, h := range []string{"Content-Type", "Content-Length", "Cache-Control", "X-Content-Type-Options", "X-Dataset-Version"} {
				if first.Header.Get(h) != again.Header.Get(h) {
					t.Errorf("%s: %q, then %q", h, first.Header.Get(h), again.Header.Get(h))
				}
			}
			// A country without a register has no dataset to key an answer by: asked of
			// the engine every time.
			wantHit := first.Header.Get("X-Dataset-Version") != ""
			if got := cacheCount(t, reg, "hit") - hits; got != map[bool]float64{true: 1, false: 0}[wantHit] {
				t.Errorf("%v answers from the cache for the second request", got)
			}
			if e.body != "" {
				return
			}
			head, hb := do(t, c, base, exchange{name: e.name, method: http.MethodHead, target: e.target})
			if head.StatusCode != http.StatusOK || len(hb) != 0 || head.Header.Get("Content-Length") != first.Header.Get("Content-Length") {
				t.Errorf("HEAD: %d, %d bytes, Content-Length %q", head.StatusCode, len(hb), head.Header.Get("Content-Length"))
			}
		})
	}
}

// The spellings of one postcode share a cached answer only because the answers are the
// same, byte for byte; what is not a postcode, or a different question, is not shared.
func TestLookupCacheSpellings(t *testing.T) {
	d := loadSamples(t)
	plainBase, plain := worker(t, newHandler(d.store, nil, httpapi.Options{}))
	reg := prometheus.NewRegistry()
	base, c := worker(t, warmHandler(t, d.store, httpapi.Options{LookupCache: 100, Registry: reg}))
	for _, tc := range []struct {
		name      string
		spellings []string
		shared    bool
	}{
		{"nl postcode", []string{
			"/v1/nl/lookup?postcode=1381CS&number=16",
			"/v1/nl/lookup?postcode=1381cs&number=16",
			"/v1/nl/lookup?postcode=1381+CS&number=16&sessionId=chk-1",
			"/v1/nl/lookup?postcode=%201381%20cs%20&number=016",
		}, true},
		{"be postcode", []string{
			"/v1/be/lookup?postcode=1502&street=Stevens-de%20Waelplein&number=9",
			"/v1/be/lookup?postcode=B-1502&street=Stevens-de%20Waelplein&number=9",
		}, true},
		{"not postcodes", []string{
			"/v1/nl/lookup?postcode=13%0981CS&number=16",
			"/v1/nl/lookup?postcode=1381%E2%80%8BCS&number=16",
		}, false},
		{"other parameters", []string{
			"/v1/nl/lookup?postcode=1381CS&number=18",
			"/v1/nl/lookup?postcode=1381CS&number=18&lang=en",
			"/v1/nl/lookup?postcode=1381CS&number=18&carrier=dhl",
			"/v1/nl/lookup?postcode=1381CS&number=18&street=Hugo%20de%20Grootlaan",
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var want []byte
			hits := cacheCount(t, reg, "hit")
			for i, target := range tc.spellings {
				e := exchange{name: target, target: target}
				resp, b := do(t, c, base, e)
				presp, pb := do(t, plain, plainBase, e)
				if resp.StatusCode != presp.StatusCode || !bytes.Equal(b, pb) {
					t.Errorf("%s: cached %d, uncached %d:\n%s\n%s", target, resp.StatusCode, presp.StatusCode, b, pb)
				}
				if i == 0 {
					want = pb
				} else if tc.shared && !bytes.Equal(pb, want) {
					t.Errorf("%s answers otherwise than %s: they must not share an answer", target, tc.spellings[0])
				}
			}
			wantHits := 0.0
			if tc.shared {
				wantHits = float64(len(tc.spellings) - 1)
			}
			if got := cacheCount(t, reg, "hit") - hits; got != wantHits {
				t.Errorf("%v answers from the cache, want %v", got, wantHits)
			}
		})
	}
}

// Failures are not kept, and a request whose context has ended is answered as without
// a cache even when the cache holds its answer.
func TestLookupCacheFailures(t *testing.T) {
	d := loadSamples(t)
	reg := prometheus.NewRegistry()
	cached := warmHandler(t, d.store, httpapi.Options{LookupCache: 100, Registry: reg})
	plain := newHandler(d.store, nil, httpapi.Options{})
	base, c := worker(t, cached)
	for _, e := range []exchange{
		{name: "422", target: "/v1/nl/lookup?postcode=1381CS&number=16a", status: http.StatusUnprocessableEntity},
		{name: "422 be", target: "/v1/be/lookup?postcode=1502&number=9", status: http.StatusUnprocessableEntity},
	} {
		for range 2 {
			if resp, b := do(t, c, base, e); resp.StatusCode != e.status {
				t.Errorf("%s: %d %s", e.name, resp.StatusCode, b)
			}
		}
	}
	if n := cacheCount(t, reg, "hit") + cacheCount(t, reg, "miss"); n != 0 {
		t.Errorf("refused requests reached the cache %v times", n)
	}

	empty := memory.New(memory.Options{Logger: quiet})
	noData, nc := worker(t, newHandler(empty, nil, httpapi.Options{LookupCache: 100}))
	for range 2 {
		if resp, b := do(t, nc, noData, exchange{target: "/v1/nl/lookup?postcode=1381CS&number=16"}); resp.StatusCode != http.StatusServiceUnavailable {
			t.Errorf("without a dataset: %d %s", resp.StatusCode, b)
		}
	}

	target := "/v1/nl/lookup?postcode=1381CS&number=16"
	do(t, c, base, exchange{target: target}) // now kept
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var answers [2]*httptest.ResponseRecorder
	for i, h := range []http.Handler{cached, plain} {
		answers[i] = httptest.NewRecorder()
		h.ServeHTTP(answers[i], httptest.NewRequestWithContext(ctx, http.MethodGet, target, nil))
	}
	if answers[0].Code != answers[1].Code || !bytes.Equal(answers[0].Body.Bytes(), answers[1].Body.Bytes()) {
		t.Errorf("request context ended: %d with the cache, %d without:\n%s\n%s", answers[0].Code, answers[1].Code, answers[0].Body, answers[1].Body)
	}
}

// After an activation the new dataset's answers are served, once the engine serves from
// it, in the memory store and in Postgres.
func TestLookupCacheActivation(t *testing.T) {
	d := loadSamples(t)
	type loaderStore interface {
		adreswijzer.Store
		adreswijzer.Loader
	}
	for _, tc := range []struct {
		name  string
		store func(t *testing.T) loaderStore
	}{
		{"memory", func(t *testing.T) loaderStore { return memory.New(memory.Options{Logger: quiet}) }},
		{"postgres", func(t *testing.T) loaderStore {
			if gatewaytest.SkipServices() {
				t.Skip("ADRESWIJZER_SKIP_SERVICES=1: Postgres tests skipped on purpose")
			}
			return openPostgres(t, freshDatabase(t))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.store(t)
			const v1, v2 = "best:2021-10-20", "best:2026-11-01"
			storetest.Load(t, s, adreswijzer.BE, v1, d.rows[adreswijzer.BE])
			engine := match.New(s, match.Options{})
			if err := engine.Warm(context.Background()); err != nil {
				t.Fatal(err)
			}
			base, c := worker(t, httpapi.New(engine, s, httpapi.Options{Logger: quiet, RequestTimeout: time.Second, LookupCache: 100}))
			e := exchange{name: "lookup", target: "/v1/be/lookup?postcode=1130&street=Harenheidestraat&number=28"}
			version := func() string {
				t.Helper()
				resp, b := do(t, c, base, e)
				if resp.StatusCode != http.StatusOK || !bytes.Contains(b, []byte(`"datasetVersion":"`+resp.Header.Get("X-Dataset-Version")+`"`)) {
					t.Fatalf("%d, X-Dataset-Version %q: %s", resp.StatusCode, resp.Header.Get("X-Dataset-Version"), b)
				}
				return resp.Header.Get("X-Dataset-Version")
			}
			for range 2 {
				if v := version(); v != v1 {
					t.Fatalf("answered from %s before the activation", v)
				}
			}
			storetest.Load(t, s, adreswijzer.BE, v2, d.rows[adreswijzer.BE])
			// Until the new index is built the engine answers from v1, and so may the cache.
			deadline := time.Now().Add(10 * time.Second)
			for {
				ds, err := engine.Dataset(context.Background(), adreswijzer.BE)
				if err != nil {
					t.Fatal(err)
				}
				if ds.Info().Version == v2 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("the new dataset never took over")
				}
				time.Sleep(5 * time.Millisecond)
			}
			for range 2 {
				if v := version(); v != v2 {
					t.Fatalf("answered from %s after %s took over", v, v2)
				}
			}
		})
	}
}

// warmHandler is newHandler over an engine with its indexes built, as the worker serves
// them: answers are kept from the first request on.
func warmHandler(t *testing.T, s adreswijzer.Store, opts httpapi.Options) *httpapi.Handler {
	t.Helper()
	engine := match.New(s, match.Options{})
	if err := engine.Warm(context.Background()); err != nil {
		t.Fatal(err)
	}
	opts.Logger = quiet
	if opts.RequestTimeout == 0 {
		opts.RequestTimeout = testTimeout
	}
	return httpapi.New(engine, s, opts)
}

// cacheCount reads the lookup cache's counter of result (hit, miss) from reg.
func cacheCount(t *testing.T, reg *prometheus.Registry, result string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "adreswijzer_worker_lookup_cache_requests_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "result" && l.GetValue() == result {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	return 0
}
