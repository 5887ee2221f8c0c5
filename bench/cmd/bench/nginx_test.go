package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/adreswijzer/adreswijzer/bench/measure"
)

// nginx as the harness starts it proxies to both upstreams over kept-alive connections,
// writes nothing outside the working directory, and is measured with its workers.
func TestNginxAnchor(t *testing.T) {
	if _, err := nginxPath(); err != nil {
		t.Fatal(err)
	}
	var conns atomic.Int64
	upstream := func(body string) *httptest.Server {
		s := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, body+" "+r.URL.RequestURI())
		}))
		s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
			if st == http.StateNew {
				conns.Add(1)
			}
		}
		s.Start()
		t.Cleanup(s.Close)
		return s
	}
	port := func(s *httptest.Server) int { return s.Listener.Addr().(*net.TCPAddr).Port }
	worker, trivial := upstream("worker"), upstream("trivial")
	ps, err := freePorts(2)
	if err != nil {
		t.Fatal(err)
	}
	b := &benchRun{cfg: config{conns: []int{8}}, work: t.TempDir(), workerPort: port(worker), trivialPort: port(trivial), log: io.Discard}
	t.Cleanup(b.cleanup)
	ng, pids, err := b.startNginx(context.Background(), nginxPorts{worker: ps[0], trivial: ps[1]})
	if err != nil {
		t.Fatal(err)
	}
	if len(pids) < 2 || pids[0] != ng.pid() {
		t.Errorf("measured processes %v: want the master %d and its workers", pids, ng.pid())
	}
	for _, pid := range pids {
		if _, err := measure.ProcCPU(pid); err != nil {
			t.Error(err)
		}
	}
	const n = 50
	for i := range n {
		site, want := ps[0], "worker /v1/nl/lookup?postcode=1234AB&number=1"
		if i%2 == 1 {
			site, want = ps[1], "trivial /v1/nl/lookup?postcode=1234AB&number=1"
		}
		resp, body, err := request("http://127.0.0.1:"+strconv.Itoa(site), "GET /v1/nl/lookup?postcode=1234AB&number=1", "")
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != 200 || string(body) != want {
			t.Fatalf("%d %q, want 200 %q", resp.StatusCode, body, want)
		}
	}
	// One connection per nginx worker and upstream at most: kept alive, not one per request.
	if got, most := conns.Load(), int64(2*(len(pids)-1)); got > most {
		t.Errorf("%d requests opened %d upstream connections; at most %d when they are kept alive", n, got, most)
	}
	b.stop(ng)
	if log := logTail(ng.log); strings.Contains(log, "[emerg]") || strings.Contains(log, "[alert]") {
		t.Errorf("nginx's log:\n%s", log)
	}
}
