package hop_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/adreswijzer/adreswijzer/gateway/hop"
)

// worker is a stand-in register worker: a real net/http server that counts the
// connections it accepted.
type worker struct {
	*httptest.Server
	conns atomic.Int64
}

func newWorker(t *testing.T, h http.HandlerFunc) *worker {
	t.Helper()
	w := &worker{}
	w.Server = httptest.NewUnstartedServer(h)
	w.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			w.conns.Add(1)
		}
	}
	w.Start()
	t.Cleanup(w.Close)
	return w
}

func get(t *testing.T, tr http.RoundTripper, url string) (int, string, error) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	return do(tr, req)
}

func do(tr http.RoundTripper, req *http.Request) (int, string, error) {
	resp, err := tr.RoundTrip(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

func TestRoundTripReusesTheConnection(t *testing.T) {
	w := newWorker(t, func(rw http.ResponseWriter, r *http.Request) {
		rw.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(rw, `{"path":%q,"query":%q}`, r.URL.Path, r.URL.RawQuery)
	})
	tr := &hop.Transport{}
	defer tr.Close()
	for i := range 5 {
		status, body, err := get(t, tr, fmt.Sprintf("%s/v1/nl/lookup?postcode=1381CS&number=%d", w.URL, i))
		if err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf(`{"path":"/v1/nl/lookup","query":"postcode=1381CS&number=%d"}`, i)
		if status != 200 || body != want {
			t.Fatalf("request %d: %d %s, want 200 %s", i, status, body, want)
		}
	}
	if n := w.conns.Load(); n != 1 {
		t.Errorf("worker accepted %d connections for 5 requests in turn, want 1", n)
	}
}

func TestAnswerShapes(t *testing.T) {
	tests := []struct {
		name     string
		handler  http.HandlerFunc
		wantBody string
		// reuse: whether the next request may use the same connection.
		reuse bool
	}{
		{"content-length", func(rw http.ResponseWriter, _ *http.Request) { io.WriteString(rw, "whole") }, "whole", true},
		{"chunked", func(rw http.ResponseWriter, _ *http.Request) {
			io.WriteString(rw, "part one,")
			rw.(http.Flusher).Flush()
			io.WriteString(rw, "part two")
		}, "part one,part two", true},
		{"empty", func(rw http.ResponseWriter, _ *http.Request) { rw.WriteHeader(http.StatusNoContent) }, "", true},
		{"connection close", func(rw http.ResponseWriter, _ *http.Request) {
			rw.Header().Set("Connection", "close")
			io.WriteString(rw, "last")
		}, "last", false},
		{"interim answer first", func(rw http.ResponseWriter, _ *http.Request) {
			rw.WriteHeader(http.StatusEarlyHints)
			io.WriteString(rw, "after hints")
		}, "after hints", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorker(t, tc.handler)
			tr := &hop.Transport{}
			defer tr.Close()
			for range 2 {
				_, body, err := get(t, tr, w.URL+"/")
				if err != nil {
					t.Fatal(err)
				}
				if body != tc.wantBody {
					t.Fatalf("body %q, want %q", body, tc.wantBody)
				}
			}
			want := int64(2)
			if tc.reuse {
				want = 1
			}
			if n := w.conns.Load(); n != want {
				t.Errorf("%d connections for two requests, want %d", n, want)
			}
		})
	}
}

func TestPostBody(t *testing.T) {
	w := newWorker(t, func(rw http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		fmt.Fprintf(rw, "%s %d %s", r.Method, r.ContentLength, b)
	})
	tr := &hop.Transport{}
	defer tr.Close()
	const in = `{"countryCode":"NL","zip":"1381 CS","address1":"Hugo de Grootlaan 16"}`
	req, _ := http.NewRequest(http.MethodPost, w.URL+"/v1/validate", strings.NewReader(in))
	_, body, err := do(tr, req)
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("POST %d %s", len(in), in); body != want {
		t.Errorf("worker saw %q, want %q", body, want)
	}
}

// A connection the worker closed while it was idle is noticed on the next request, which
// goes out again on a new connection, body and all.
func TestRetriesAConnectionClosedWhileIdle(t *testing.T) {
	w := newWorker(t, func(rw http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rw.Write(b)
	})
	tr := &hop.Transport{}
	defer tr.Close()
	if _, _, err := get(t, tr, w.URL+"/"); err != nil {
		t.Fatal(err)
	}
	w.CloseClientConnections()
	time.Sleep(20 * time.Millisecond)
	const in = `{"countryCode":"BE"}`
	req, _ := http.NewRequest(http.MethodPost, w.URL+"/v1/validate", strings.NewReader(in))
	_, body, err := do(tr, req)
	if err != nil {
		t.Fatalf("second request on a closed connection: %v", err)
	}
	if body != in {
		t.Errorf("body %q, want %q", body, in)
	}
	if n := w.conns.Load(); n != 2 {
		t.Errorf("%d connections, want 2", n)
	}
}

// Connections idle for longer than IdleTimeout are closed, not used.
func TestIdleTimeout(t *testing.T) {
	// The first two requests wait for each other, so that two connections are made and
	// both go idle.
	var first sync.WaitGroup
	first.Add(2)
	var requests atomic.Int64
	w := newWorker(t, func(rw http.ResponseWriter, _ *http.Request) {
		if requests.Add(1) <= 2 {
			first.Done()
			first.Wait()
		}
		io.WriteString(rw, "ok")
	})
	tr := &hop.Transport{IdleTimeout: 30 * time.Millisecond, MaxIdle: 4}
	defer tr.Close()
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() { get(t, tr, w.URL+"/") })
	}
	wg.Wait()
	time.Sleep(60 * time.Millisecond)
	for i := range 3 {
		if _, body, err := get(t, tr, w.URL+"/"); err != nil || body != "ok" {
			t.Fatalf("request %d after the idle timeout: %q, %v", i, body, err)
		}
	}
	// Two for the first requests, one new for the three after them.
	if n := w.conns.Load(); n != 3 {
		t.Errorf("%d connections, want 3: an expired idle connection was used again, or a fresh one not kept", n)
	}
}

// silentWorker reads requests and never answers, until the caller gives up.
func silentWorker(t *testing.T) *worker {
	release := make(chan struct{})
	w := newWorker(t, func(rw http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	t.Cleanup(func() { close(release) })
	return w
}

func TestResponseHeaderTimeout(t *testing.T) {
	w := silentWorker(t)
	tr := &hop.Transport{ResponseHeaderTimeout: 50 * time.Millisecond}
	defer tr.Close()
	start := time.Now()
	_, _, err := get(t, tr, w.URL+"/")
	if err == nil || !strings.Contains(err.Error(), "no answer within") {
		t.Fatalf("err = %v, want the header timeout", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("gave up after %v", d)
	}
}

// A caller that leaves ends the wait at once, with its context's error.
func TestCallerLeaves(t *testing.T) {
	w := silentWorker(t)
	tr := &hop.Transport{}
	defer tr.Close()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(30*time.Millisecond, cancel)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, w.URL+"/", nil)
	_, _, err := do(tr, req)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// A deadline that passes while the body is read interrupts the read, and the connection
// is not used again.
func TestDeadlineDuringBody(t *testing.T) {
	w := newWorker(t, func(rw http.ResponseWriter, r *http.Request) {
		rw.Header().Set("Content-Length", "100")
		io.WriteString(rw, "half")
		rw.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	tr := &hop.Transport{}
	defer tr.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 80*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, w.URL+"/", nil)
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err == nil || string(b) != "half" {
		t.Fatalf("read %q, %v; want the half that came and an error", b, err)
	}
}

func TestBodyClosedEarlyClosesTheConnection(t *testing.T) {
	w := newWorker(t, func(rw http.ResponseWriter, _ *http.Request) {
		io.WriteString(rw, strings.Repeat("x", 64<<10))
	})
	tr := &hop.Transport{}
	defer tr.Close()
	for range 2 {
		req, _ := http.NewRequest(http.MethodGet, w.URL+"/", nil)
		resp, err := tr.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Read(make([]byte, 10))
		resp.Body.Close()
	}
	if n := w.conns.Load(); n != 2 {
		t.Errorf("%d connections, want 2: a half-read answer leaves its connection unusable", n)
	}
}

// A worker that dies half way through an answer: the read fails, it does not end early.
func TestAnswerBrokenOff(t *testing.T) {
	w := newWorker(t, func(rw http.ResponseWriter, _ *http.Request) {
		c, buf, _ := rw.(http.Hijacker).Hijack()
		buf.WriteString("HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\npartial")
		buf.Flush()
		c.Close()
	})
	tr := &hop.Transport{}
	defer tr.Close()
	_, body, err := get(t, tr, w.URL+"/")
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("body %q, err %v; want io.ErrUnexpectedEOF", body, err)
	}
}

// A worker that dies after reading a request, before answering: on a new connection the
// request is not sent again (the worker may be the reason), and the error says so.
func TestNoAnswerOnANewConnection(t *testing.T) {
	var n atomic.Int64
	w := newWorker(t, func(rw http.ResponseWriter, _ *http.Request) {
		n.Add(1)
		c, _, _ := rw.(http.Hijacker).Hijack()
		c.Close()
	})
	tr := &hop.Transport{}
	defer tr.Close()
	if _, _, err := get(t, tr, w.URL+"/"); err == nil {
		t.Fatal("no error for a connection closed without an answer")
	}
	if got := n.Load(); got != 1 {
		t.Errorf("the worker saw the request %d times, want 1", got)
	}
}

type dialError struct{ error }

func TestDialErrorIsMarked(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	tr := &hop.Transport{DialError: func(err error) error { return dialError{err} }}
	defer tr.Close()
	_, _, err = get(t, tr, "http://"+addr+"/health")
	var de dialError
	if !errors.As(err, &de) {
		t.Fatalf("err = %v (%T), want it marked as a dial error", err, err)
	}
}

func TestRefusesOtherSchemesAndAfterClose(t *testing.T) {
	tr := &hop.Transport{}
	if _, _, err := get(t, tr, "https://127.0.0.1:1/"); err == nil {
		t.Error("https accepted")
	}
	tr.Close()
	if _, _, err := get(t, tr, "http://127.0.0.1:1/"); err == nil {
		t.Error("request accepted after Close")
	}
}

// Many callers at once each get their own answer, never another's.
func TestConcurrentCallers(t *testing.T) {
	w := newWorker(t, func(rw http.ResponseWriter, r *http.Request) {
		io.WriteString(rw, r.URL.Query().Get("n"))
	})
	tr := &hop.Transport{MaxIdle: 4}
	defer tr.Close()
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for g := range 16 {
		wg.Go(func() {
			for i := range 50 {
				n := fmt.Sprint(g*1000 + i)
				req, _ := http.NewRequest(http.MethodGet, w.URL+"/?n="+n, nil)
				_, body, err := do(tr, req)
				if err != nil || body != n {
					errs <- fmt.Errorf("caller %d: %q, %v; want %q", g, body, err, n)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// The request goes out as net/http writes it: the Host the caller gave, no default
// User-Agent when the proxy asked for none.
func TestWireFormat(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	got := make(chan string, 1)
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		r, err := http.ReadRequest(bufio.NewReader(c))
		if err != nil {
			got <- err.Error()
			return
		}
		got <- fmt.Sprintf("%s %s host=%s ua=%q", r.Method, r.RequestURI, r.Host, r.UserAgent())
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
	}()
	tr := &hop.Transport{}
	defer tr.Close()
	req, _ := http.NewRequest(http.MethodGet, "http://"+l.Addr().String()+"/v1/be/suggest?q=x", nil)
	req.Host = "api.example.test"
	req.Header["User-Agent"] = []string{""}
	if _, _, err := do(tr, req); err != nil {
		t.Fatal(err)
	}
	if saw, want := <-got, `GET /v1/be/suggest?q=x host=api.example.test ua=""`; saw != want {
		t.Errorf("worker read %s, want %s", saw, want)
	}
}
