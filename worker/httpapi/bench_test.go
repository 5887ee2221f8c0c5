package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"testing"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/worker/httpapi"
	"github.com/adreswijzer/adreswijzer/worker/match"
)

// BenchmarkHandler measures the whole handler path of lookup and validate on the memory
// store (routing, parameter checks, the deadline, the engine, JSON, the access log as a
// worker writes it by default (failures and slow requests, into a discarding JSON handler),
// metrics; computations on the request's goroutine, as for the memory store) against a trivial net/http handler in the same
// run, so the cost can be read as a ratio on any machine; the engine called directly with
// the same questions shows how much of it is the HTTP layer's:
//
//	go test -run '^$' -bench Handler -benchmem ./worker/httpapi
//
// Requests cycle through real addresses of the samples, so no answer is computed twice in a
// row; lookup-cached asks them of a worker with its lookup cache (as a worker serves by
// default), which holds them all after the first round.
func BenchmarkHandler(b *testing.B) {
	d := loadSamples(b)
	log := slog.New(slog.NewJSONHandler(io.Discard, nil))
	engine := match.New(d.store, match.Options{})
	if err := engine.Warm(context.Background()); err != nil {
		b.Fatal(err)
	}
	h := httpapi.New(engine, d.store, httpapi.Options{Logger: log, InMemory: true})
	cached := httpapi.New(engine, d.store, httpapi.Options{Logger: log, InMemory: true, LookupCache: httpapi.DefaultLookupCache})
	lookups, validates := benchRequests(d, 64)
	queries, bodies := benchQueries(d, 64)

	baselineBody := []byte(`{"status":"ok"}` + "\n")
	baseline := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(baselineBody)))
		w.WriteHeader(http.StatusOK)
		w.Write(baselineBody)
	})

	b.Run("baseline", func(b *testing.B) {
		runBench(b, baseline, func(i int) *http.Request { return lookups[i%len(lookups)] })
	})
	b.Run("engine-lookup", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if _, err := engine.Lookup(context.Background(), queries[i%len(queries)]); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
	b.Run("engine-validate", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if _, err := engine.Validate(context.Background(), bodies[i%len(bodies)]); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
	b.Run("lookup", func(b *testing.B) {
		runBench(b, h, func(i int) *http.Request { return lookups[i%len(lookups)] })
	})
	b.Run("lookup-cached", func(b *testing.B) {
		runBench(b, cached, func(i int) *http.Request { return lookups[i%len(lookups)] })
	})
	b.Run("validate", func(b *testing.B) {
		reqs := make([]*http.Request, len(validates))
		readers := make([]*bytes.Reader, len(validates))
		for i, body := range validates {
			readers[i] = bytes.NewReader(body)
			reqs[i] = httptest.NewRequest(http.MethodPost, "/v1/validate", readers[i])
			reqs[i].Header.Set("Content-Type", "application/json")
		}
		runBench(b, h, func(i int) *http.Request {
			k := i % len(reqs)
			readers[k].Seek(0, io.SeekStart)
			return reqs[k]
		})
	})
}

func runBench(b *testing.B, h http.Handler, next func(i int) *http.Request) {
	w := &sink{h: http.Header{}}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		clear(w.h)
		w.status = 0
		h.ServeHTTP(w, next(i))
		if w.status != http.StatusOK {
			b.Fatalf("status %d", w.status)
		}
		i++
	}
}

// sink is a ResponseWriter that keeps nothing, so the benchmark measures the handler and
// not a recorder's buffers.
type sink struct {
	h      http.Header
	status int
}

func (s *sink) Header() http.Header { return s.h }
func (s *sink) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
}

func (s *sink) Write(p []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return len(p), nil
}

// benchQueries are the questions of benchRequests as the engine takes them.
func benchQueries(d *sampleData, n int) (lookups []match.LookupQuery, validates []adreswijzer.ValidateRequest) {
	rows := d.rows[adreswijzer.NL]
	for i := 0; i < n; i++ {
		a := rows[i*len(rows)/n]
		lookups = append(lookups, match.LookupQuery{Country: adreswijzer.NL, Postcode: a.Postcode, Number: a.HouseNumber})
		validates = append(validates, benchAddress(a))
	}
	return lookups, validates
}

func benchAddress(a adreswijzer.Address) adreswijzer.ValidateRequest {
	city := a.Locality.NL
	return adreswijzer.ValidateRequest{CountryCode: "NL", Address1: a.Street.NL + " " + a.NumberText(), Zip: a.Postcode, City: &city}
}

// benchRequests picks n Dutch addresses spread over the sample: lookups by postcode and
// number, and validations of street, number, postcode and city as a checkout sends them.
func benchRequests(d *sampleData, n int) (lookups []*http.Request, validates [][]byte) {
	rows := d.rows[adreswijzer.NL]
	for i := 0; i < n; i++ {
		a := rows[i*len(rows)/n]
		num := strconv.Itoa(a.HouseNumber)
		q := url.Values{"postcode": {a.Postcode}, "number": {num}}
		lookups = append(lookups, httptest.NewRequest(http.MethodGet, "/v1/nl/lookup?"+q.Encode(), nil))
		body, _ := json.Marshal(benchAddress(a))
		validates = append(validates, body)
	}
	return lookups, validates
}
