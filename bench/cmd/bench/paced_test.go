package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

func TestKeyTargets(t *testing.T) {
	path := filepath.Join(t.TempDir(), "keys.txt")
	body := `{"countryCode":"NL","address1":"Kerkstraat 12","zip":"1234 AB"}`
	if err := os.WriteFile(path, []byte("GET /v1/nl/lookup?postcode=1234AB&number=12\n\nPOST /v1/validate "+body+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ts, err := keyTargets(path, "http://127.0.0.1:8080")
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 2 {
		t.Fatalf("%d targets, want 2: %+v", len(ts), ts)
	}
	get, post := ts[0], ts[1]
	if get.Method != "GET" || get.URL != "http://127.0.0.1:8080/v1/nl/lookup?postcode=1234AB&number=12" || get.Body != nil || get.Header.Get("Content-Type") != "" {
		t.Errorf("GET target %+v", get)
	}
	if post.Method != "POST" || post.URL != "http://127.0.0.1:8080/v1/validate" || string(post.Body) != body || post.Header.Get("Content-Type") != "application/json" {
		t.Errorf("POST target %+v", post)
	}

	for _, bad := range []string{"get /x\n", "GET\n", "GET  /x\n"} {
		if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := keyTargets(path, "http://127.0.0.1:8080"); err == nil {
			t.Errorf("keyTargets took %q", bad)
		}
	}
	if err := os.WriteFile(path, []byte("\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := keyTargets(path, "http://127.0.0.1:8080"); err == nil {
		t.Error("keyTargets took a file without requests")
	}
}

func TestLoopbackOnly(t *testing.T) {
	for base, ok := range map[string]bool{
		"http://127.0.0.1:8080":  true,
		"http://localhost:8080":  false,
		"https://127.0.0.1:8080": false,
		"http://10.0.0.1:8080":   false,
		"http://example.com":     false,
	} {
		if err := loopbackOnly(base); (err == nil) != ok {
			t.Errorf("loopbackOnly(%q) = %v", base, err)
		}
	}
}

func TestPacedStats(t *testing.T) {
	var m vegeta.Metrics
	start := time.Now()
	for i, r := range []struct {
		code uint16
		err  string
	}{{200, ""}, {200, ""}, {204, ""}, {404, ""}, {0, "connection refused"}} {
		m.Add(&vegeta.Result{Code: r.code, Error: r.err, Timestamp: start.Add(time.Duration(i) * 10 * time.Millisecond), Latency: time.Duration(i+1) * time.Millisecond})
	}
	m.Close()
	s := pacedStats(&m)
	if s.Requests != 5 || s.Errors != 2 || s.Max != 5 {
		t.Errorf("stats %+v", s)
	}
	if s.ErrorText != "1 × status 0, 1 × status 404, first error: connection refused" {
		t.Errorf("error text %q", s.ErrorText)
	}
	back, err := parsePaced("some log line\n" + mustJSON(t, s) + "\n")
	if err != nil || back != s {
		t.Errorf("parsePaced = %+v, %v; want %+v", back, err, s)
	}
	if _, err := parsePaced("vegeta: something went wrong\n"); err == nil {
		t.Error("parsePaced took output without figures")
	}
}

func mustJSON(t *testing.T, s any) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The paced load sends the key file's requests at the rate asked, bodies and all, and
// ends by itself.
func TestPacedCmd(t *testing.T) {
	var posts, gets atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		switch {
		case r.Method == "POST" && string(b) == `{"a":1}` && r.Header.Get("Content-Type") == "application/json":
			posts.Add(1)
		case r.Method == "GET" && r.URL.Path == "/v1/nl/lookup":
			gets.Add(1)
		default:
			w.WriteHeader(http.StatusBadRequest)
		}
	}))
	defer srv.Close()
	path := filepath.Join(t.TempDir(), "keys.txt")
	if err := os.WriteFile(path, []byte("GET /v1/nl/lookup?postcode=1234AB&number=1\nPOST /v1/validate {\"a\":1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	start := time.Now()
	if err := pacedCmd([]string{"-rate", "100", "-duration", "1s", srv.URL, path}, &out); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("a 1 s load took %v", d)
	}
	s, err := parsePaced(out.String())
	if err != nil {
		t.Fatal(err)
	}
	if s.Requests < 90 || s.Requests > 110 || s.Errors != 0 || s.P99 <= 0 || s.Max < s.P99 {
		t.Errorf("stats %+v", s)
	}
	if posts.Load() == 0 || gets.Load() == 0 || posts.Load()+gets.Load() != s.Requests {
		t.Errorf("%d POST and %d GET answered, %d requests counted", posts.Load(), gets.Load(), s.Requests)
	}
	if err := pacedCmd([]string{"-rate", "100", "-duration", "1s", "http://192.0.2.1:80", path}, io.Discard); err == nil {
		t.Error("pacedCmd loaded another host than 127.0.0.1")
	}
}
