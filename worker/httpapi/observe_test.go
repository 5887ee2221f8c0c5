package httpapi_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/adreswijzer/adreswijzer/internal/logsink"
	"github.com/adreswijzer/adreswijzer/store/memory"
	"github.com/adreswijzer/adreswijzer/worker/httpapi"
)

// What the worker writes about requests: a log line each (with LogEvery; by default only the
// failures and the slow ones), with method, route pattern, status and duration, and nothing
// a caller sent; and metrics by the same labels.

// submitted are values the requests below send; none may reach a log line or a metric.
// (Numbers alone are not searched for, as a duration may contain the same digits; the log
// lines are held to a fixed set of members instead.)
var submitted = []string{"1381CS", "1381 CS", "1381cs", "Achtergracht", "Achtergraht", "Hugo", "Stevens", "Waelplein",
	"Lembeek", "Amsterdam", "sess-42x", "Geheim", "postcode=", "q=", "number="}

func observedTraffic() []exchange {
	return []exchange{
		{target: "/v1/nl/lookup?postcode=1381CS&number=16&sessionId=sess-42x"},
		{target: "/v1/nl/lookup", body: `{"postcode":"1381 CS","number":"16"}`},
		{target: "/v1/be/lookup?postcode=1502&street=Stevens-de%20Waelplein&number=9"},
		{target: "/v1/fr/lookup?postcode=75001&number=1"},
		{target: "/v1/suggest?country=nl&q=Achtergraht"},
		{target: "/v1/autocomplete?country=nl&q=Hugo"},
		{target: "/v1/validate", body: `{"countryCode":"NL","address1":"Achtergraht 1","zip":"1381cs","city":"Amsterdam"}`},
		{target: "/v1/validate", body: `{"countryCode":"NL","address1":"Geheimstraat 1","zip":"1381cs","city":7}`},
		{target: "/v1/validate", body: `{Geheim`},
		{target: "/v1/nl/lookup?postcode=1381CS"},
		{target: "/v1/Geheimstraat"},
		{target: "/v1/Geheimstraat/lookup?postcode=1381CS&number=1"},
		{target: "/health"},
	}
}

func TestAccessLog(t *testing.T) {
	d := loadSamples(t)
	var buf logsink.Buffer
	base, c := worker(t, newHandler(d.store, jsonLogger(&buf), httpapi.Options{LogEvery: true}))
	traffic := observedTraffic()
	for _, e := range traffic {
		do(t, c, base, e)
	}
	logs := buf.String()
	for _, s := range submitted {
		if strings.Contains(logs, s) {
			t.Errorf("the log holds the submitted %q:\n%s", s, logs)
		}
	}
	lines := strings.Split(strings.TrimSpace(logs), "\n")
	if len(lines) != len(traffic) {
		t.Fatalf("%d log lines for %d requests:\n%s", len(lines), len(traffic), logs)
	}
	routes := map[string]bool{}
	for _, l := range lines {
		var rec struct {
			Msg        string   `json:"msg"`
			Method     string   `json:"method"`
			Route      string   `json:"route"`
			Status     int      `json:"status"`
			DurationMs *float64 `json:"durationMs"`
		}
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatalf("log line is not JSON: %v\n%s", err, l)
		}
		var members map[string]any
		_ = json.Unmarshal([]byte(l), &members)
		for k := range members {
			switch k {
			case "time", "level", "msg", "method", "route", "status", "durationMs", "err":
			default:
				t.Errorf("log line has a member %q beyond method, route, status, duration and error: %s", k, l)
			}
		}
		if rec.Msg != "request" || rec.Method == "" || rec.Status == 0 || rec.DurationMs == nil {
			t.Errorf("log line lacks method, route, status or duration: %s", l)
		}
		routes[rec.Route] = true
	}
	for _, want := range []string{"/v1/nl/lookup", "/v1/be/lookup", "/v1/{country}/lookup", "/v1/suggest", "/v1/autocomplete", "/v1/validate", "/health", "unmatched"} {
		if !routes[want] {
			t.Errorf("no log line with route %s (routes: %v)", want, routes)
		}
	}
}

// Without LogEvery the log has a line for each request that went wrong on the worker's side
// (5xx: the register unavailable, a fault) and for each slow one, and none for the rest,
// however the caller erred.
func TestAccessLogFailures(t *testing.T) {
	d := loadSamples(t)
	lines := func(t *testing.T, h *httpapi.Handler, buf *logsink.Buffer, traffic []exchange) []string {
		t.Helper()
		base, c := worker(t, h)
		for _, e := range traffic {
			do(t, c, base, e)
		}
		if s := strings.TrimSpace(buf.String()); s != "" {
			return strings.Split(s, "\n")
		}
		return nil
	}
	t.Run("answered", func(t *testing.T) {
		var buf logsink.Buffer
		got := lines(t, newHandler(d.store, jsonLogger(&buf), httpapi.Options{SlowRequest: time.Minute}), &buf, observedTraffic())
		if len(got) != 0 {
			t.Errorf("%d log lines for requests answered in time, none of them failed on the worker's side:\n%s", len(got), buf.String())
		}
	})
	t.Run("slow", func(t *testing.T) {
		var buf logsink.Buffer
		traffic := observedTraffic()
		got := lines(t, newHandler(d.store, jsonLogger(&buf), httpapi.Options{SlowRequest: time.Nanosecond}), &buf, traffic)
		if len(got) != len(traffic) {
			t.Errorf("%d log lines for %d requests slower than the threshold:\n%s", len(got), len(traffic), buf.String())
		}
	})
	t.Run("unavailable", func(t *testing.T) {
		var buf logsink.Buffer
		empty := memory.New(memory.Options{Logger: quiet})
		got := lines(t, newHandler(empty, jsonLogger(&buf), httpapi.Options{SlowRequest: time.Minute}), &buf, []exchange{
			{target: "/v1/nl/lookup?postcode=1381CS&number=16"},
			{target: "/v1/fr/lookup?postcode=1&number=1"},
			{target: "/v1/validate", body: `{"countryCode":"NL","address1":"Achtergracht 1","zip":"1381BK"}`},
		})
		if len(got) != 2 || !strings.Contains(got[0], `"level":"WARN"`) || !strings.Contains(got[0], `"status":503`) ||
			!strings.Contains(got[1], `"route":"/v1/validate"`) {
			t.Errorf("want the two 503s logged, not the answered call:\n%s", buf.String())
		}
	})
}

func TestMetrics(t *testing.T) {
	d := loadSamples(t)
	reg := prometheus.NewRegistry()
	base, c := worker(t, newHandler(d.store, nil, httpapi.Options{Registry: reg, MetricsPath: "/metrics"}))
	for _, e := range observedTraffic() {
		do(t, c, base, e)
	}
	count := func(route, method, status string) float64 {
		mfs, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		for _, mf := range mfs {
			if mf.GetName() != "adreswijzer_worker_http_requests_total" {
				continue
			}
			for _, m := range mf.GetMetric() {
				l := map[string]string{}
				for _, p := range m.GetLabel() {
					l[p.GetName()] = p.GetValue()
				}
				if l["route"] == route && l["method"] == method && l["status"] == status {
					return m.GetCounter().GetValue()
				}
			}
		}
		return 0
	}
	for _, tc := range []struct {
		route, method, status string
		want                  float64
	}{
		{"/v1/nl/lookup", "GET", "200", 1},
		{"/v1/nl/lookup", "POST", "200", 1},
		{"/v1/nl/lookup", "GET", "422", 1},
		{"/v1/{country}/lookup", "GET", "200", 1},
		{"/v1/{country}/lookup", "GET", "422", 1},
		{"/v1/validate", "POST", "200", 1},
		{"/v1/validate", "POST", "422", 1},
		{"/v1/validate", "POST", "400", 1},
		{"unmatched", "GET", "404", 1},
	} {
		if got := count(tc.route, tc.method, tc.status); got != tc.want {
			t.Errorf("requests{route=%s,method=%s,status=%s} = %v, want %v", tc.route, tc.method, tc.status, got, tc.want)
		}
	}
	// The metrics page itself is not part of the REST contract; fetched without the check.
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(page), `adreswijzer_worker_http_request_duration_seconds_bucket{method="POST",route="/v1/validate",status="200"`) {
		t.Errorf("/metrics: %d\n%.2000s", resp.StatusCode, page)
	}
	for _, s := range submitted {
		if strings.Contains(string(page), s) {
			t.Errorf("the metrics hold the submitted %q", s)
		}
	}
}
