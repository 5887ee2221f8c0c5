package caddymodule_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/caddyconfig"

	"github.com/adreswijzer/adreswijzer/gateway/gatewaytest"
)

func TestTransportCaddyfile(t *testing.T) {
	tests := []struct {
		block   string
		want    string // in the adapted JSON
		wantErr string
	}{
		{"transport adreswijzer", `"transport":{"protocol":"adreswijzer"}`, ""},
		{"transport adreswijzer {\n dial_timeout 100ms\n response_header_timeout 900ms\n max_idle 8\n idle_timeout 30s\n}",
			`"transport":{"dial_timeout":100000000,"idle_timeout":30000000000,"max_idle":8,"protocol":"adreswijzer","response_header_timeout":900000000}`, ""},
		{"transport adreswijzer {\n tls\n}", "", `unrecognized subdirective "tls"`},
		{"transport adreswijzer {\n max_idle lots\n}", "", "max_idle"},
		{"transport adreswijzer {\n dial_timeout\n}", "", "argument"},
	}
	for _, tc := range tests {
		cf := fmt.Sprintf("http://:8080 {\n reverse_proxy 127.0.0.1:8081 {\n %s\n }\n}\n", tc.block)
		out, _, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(cf), nil)
		switch {
		case tc.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%q: err = %v, want one about %s", tc.block, err, tc.wantErr)
			}
		case err != nil:
			t.Errorf("%q: %v", tc.block, err)
		case !strings.Contains(string(out), tc.want):
			t.Errorf("%q: adapted to\n%s\nwant it to hold %s", tc.block, out, tc.want)
		}
	}
}

// A worker that cannot be reached is a dial error, which reverse_proxy retries on the
// next worker; a worker's answer comes back through the transport whole, health checks
// included.
func TestTransportThroughCaddy(t *testing.T) {
	var health atomic.Int64
	w := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/health" {
			health.Add(1)
		}
		rw.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(rw, `{"path":%q}`, r.URL.Path)
	}))
	defer w.Close()
	dead := fmt.Sprintf("127.0.0.1:%d", gatewaytest.FreePort(t))
	port := gatewaytest.FreePort(t)
	loadCaddyfile(t, fmt.Sprintf(`{
	admin off
	auto_https off
	persist_config off
	log default {
		level ERROR
	}
}
http://:%d {
	bind 127.0.0.1
	reverse_proxy %s %s {
		lb_policy first
		lb_retries 2
		lb_try_duration 500ms
		health_uri /health
		health_interval 50ms
		transport adreswijzer {
			dial_timeout 100ms
			response_header_timeout 500ms
		}
	}
}
`, port, dead, strings.TrimPrefix(w.URL, "http://")))
	waitListening(t, port)
	client := newClient()
	for i := range 3 {
		resp, err := client.Get(fmt.Sprintf("http://127.0.0.1:%d/v1/nl/lookup?n=%d", port, i))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(b) != `{"path":"/v1/nl/lookup"}` {
			t.Fatalf("request %d: %d %s", i, resp.StatusCode, b)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for health.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no active health check reached the worker")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
