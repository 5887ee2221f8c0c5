package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/gateway/gatewaytest"
	"github.com/adreswijzer/adreswijzer/internal/golden"
	"github.com/adreswijzer/adreswijzer/store/memory"
	"github.com/adreswijzer/adreswijzer/store/postgres"
	"github.com/adreswijzer/adreswijzer/store/storetest"
	"github.com/adreswijzer/adreswijzer/store/storetest/samples"
	"github.com/adreswijzer/adreswijzer/worker/httpapi"
	"github.com/adreswijzer/adreswijzer/worker/match"
	"github.com/adreswijzer/adreswijzer/worker/openapi/openapitest"
)

var quiet = slog.New(slog.DiscardHandler)

// sampleData is what the real importers made of the register samples: the Weesp extract
// of the BAG and BOSA's BeST sample (Haren, Lembeek, Malmedy), loaded into the memory store
// once per test binary, and the rows themselves so that the Postgres store can be given
// the very same dataset without parsing the XML again.
type sampleData struct {
	store    *memory.Store
	rows     map[adreswijzer.Country][]adreswijzer.Address
	versions map[adreswijzer.Country]adreswijzer.DatasetVersion
}

var (
	sampleOnce sync.Once
	sampleVal  *sampleData
	sampleErr  error
)

func loadSamples(tb testing.TB) *sampleData {
	tb.Helper()
	imps := map[adreswijzer.Country]storetest.Importer{adreswijzer.NL: samples.BAGWeesp(tb), adreswijzer.BE: samples.BeSTSample(tb)}
	sampleOnce.Do(func() { sampleVal, sampleErr = importSamples(imps) })
	if sampleErr != nil {
		tb.Fatalf("import the register samples: %v", sampleErr)
	}
	return sampleVal
}

func importSamples(imps map[adreswijzer.Country]storetest.Importer) (*sampleData, error) {
	ctx := context.Background()
	d := &sampleData{
		store:    memory.New(memory.Options{Logger: quiet}),
		rows:     map[adreswijzer.Country][]adreswijzer.Address{},
		versions: map[adreswijzer.Country]adreswijzer.DatasetVersion{},
	}
	for _, c := range adreswijzer.Countries {
		w, err := d.store.Begin(ctx, c)
		if err != nil {
			return nil, err
		}
		v, _, err := imps[c](ctx, func(a adreswijzer.Address) error {
			d.rows[c] = append(d.rows[c], a)
			return w.Add(a)
		})
		if err != nil {
			_ = w.Abort(ctx)
			return nil, err
		}
		if _, err := w.Commit(ctx, v); err != nil {
			return nil, err
		}
		d.versions[c] = v
	}
	return d, nil
}

// testTimeout is the request deadline of the tests: short, so the 503 tests are quick,
// and still far above what the memory store needs.
const testTimeout = 300 * time.Millisecond

// worker serves h on a real listener and returns its address and a client whose every
// exchange is checked against openapi.json.
func worker(t *testing.T, h http.Handler) (string, *http.Client) {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL, openapitest.New(t).Client(t, nil)
}

// newHandler is the handler over the engine of s, logging into log (quiet when nil).
func newHandler(s adreswijzer.Store, log *slog.Logger, opts httpapi.Options) *httpapi.Handler {
	if log == nil {
		log = quiet
	}
	opts.Logger = log
	if opts.RequestTimeout == 0 {
		opts.RequestTimeout = testTimeout
	}
	return httpapi.New(match.New(s, match.Options{}), s, opts)
}

// exchange is one request of a table test.
type exchange struct {
	name   string
	method string
	target string
	body   string
	// contentType of the body; application/json when empty and there is a body, none
	// when "-".
	contentType string
	status      int
}

// do sends the exchange and returns the answer with its body read.
func do(t *testing.T, c *http.Client, base string, e exchange) (*http.Response, []byte) {
	t.Helper()
	method := e.method
	if method == "" {
		method = http.MethodGet
		if e.body != "" {
			method = http.MethodPost
		}
	}
	var body io.Reader
	if e.body != "" {
		body = strings.NewReader(e.body)
	}
	req, err := http.NewRequest(method, base+e.target, body)
	if err != nil {
		t.Fatalf("%s: %v", e.name, err)
	}
	switch e.contentType {
	case "":
		if e.body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
	case "-":
	default:
		req.Header.Set("Content-Type", e.contentType)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", e.name, err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatalf("%s: read answer: %v", e.name, err)
	}
	return resp, b
}

// errorOf decodes an ErrorResponse.
func errorOf(t *testing.T, b []byte) adreswijzer.ErrorBody {
	t.Helper()
	var e adreswijzer.ErrorResponse
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatalf("not an ErrorResponse: %v\n%s", err, b)
	}
	return e.Error
}

// goldenAnswer compares an answer with testdata/<name>.golden: the status, the dataset
// version header and the body, indented, so that a reviewer reads the answers as callers get
// them. go test -update rewrites the files.
func goldenAnswer(t *testing.T, name string, resp *http.Response, body []byte) {
	t.Helper()
	var out bytes.Buffer
	out.WriteString(resp.Status + "\n")
	if v := resp.Header.Get("X-Dataset-Version"); v != "" {
		out.WriteString("X-Dataset-Version: " + v + "\n")
	}
	if err := json.Indent(&out, body, "", "  "); err != nil {
		t.Fatalf("%s: answer is not JSON: %v\n%s", name, err, body)
	}
	golden.Compare(t, name+".golden", out.Bytes())
}

// loadPostgres loads the samples' rows into the database.
func loadPostgres(t *testing.T, d *sampleData, databaseURL string) {
	t.Helper()
	loader := openPostgres(t, databaseURL)
	for _, c := range adreswijzer.Countries {
		storetest.Load(t, loader, c, d.versions[c], d.rows[c])
	}
}

// openPostgres opens a store. Its own query timeout is far beyond the request deadline, so
// the deadline that ends a stalled request in these tests is the handler's.
func openPostgres(t *testing.T, databaseURL string) *postgres.Store {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := postgres.Open(ctx, databaseURL, postgres.Options{Logger: quiet, QueryTimeout: time.Minute})
	if err != nil {
		t.Fatalf("open postgres: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// freshDatabase is a database of the test's own, dropped when it ends.
func freshDatabase(t *testing.T) string { return gatewaytest.Postgres(t) }

// cutOff makes the database unreachable the way a crashed or firewalled server is:
// new connections are refused and the open ones are terminated.
func cutOff(t *testing.T, databaseURL string) {
	t.Helper()
	u, err := url.Parse(databaseURL)
	if err != nil {
		t.Fatal(err)
	}
	name := strings.TrimPrefix(u.Path, "/")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	admin, err := pgx.Connect(ctx, gatewaytest.PostgresURL())
	if err != nil {
		t.Fatalf("connect as admin: %v", err)
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "ALTER DATABASE "+pgx.Identifier{name}.Sanitize()+" ALLOW_CONNECTIONS false"); err != nil {
		t.Fatalf("refuse connections: %v", err)
	}
	if _, err := admin.Exec(ctx, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", name); err != nil {
		t.Fatalf("terminate connections: %v", err)
	}
}

// stallingProxy forwards TCP connections to target until stall is called; from then on it
// holds every connection, old and new, open without passing a byte: a database that
// stopped answering without closing anything, which only a deadline can get out of.
type stallingProxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	stall  bool
	conns  []net.Conn
}

func newStallingProxy(t *testing.T, target string) *stallingProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &stallingProxy{ln: ln, target: target}
	go p.accept()
	t.Cleanup(p.close)
	return p
}

func (p *stallingProxy) addr() string { return p.ln.Addr().String() }

func (p *stallingProxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		p.conns = append(p.conns, c)
		stalled := p.stall
		p.mu.Unlock()
		if stalled {
			continue
		}
		go p.forward(c)
	}
}

func (p *stallingProxy) forward(c net.Conn) {
	up, err := net.Dial("tcp", p.target)
	if err != nil {
		c.Close()
		return
	}
	p.mu.Lock()
	p.conns = append(p.conns, up)
	p.mu.Unlock()
	go p.pipe(up, c)
	p.pipe(c, up)
}

// pipe copies until the proxy stalls; then it stops reading, and both ends wait.
func (p *stallingProxy) pipe(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		p.mu.Lock()
		stalled := p.stall
		p.mu.Unlock()
		if stalled {
			return
		}
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			dst.Close()
			return
		}
	}
}

func (p *stallingProxy) stallNow() {
	p.mu.Lock()
	p.stall = true
	p.mu.Unlock()
}

func (p *stallingProxy) close() {
	p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
}

// withHost replaces the host and port of a database URL.
func withHost(t *testing.T, databaseURL, host string) string {
	t.Helper()
	u, err := url.Parse(databaseURL)
	if err != nil {
		t.Fatal(err)
	}
	u.Host = host
	return u.String()
}

// jsonLogger logs as the worker does, into w.
func jsonLogger(w io.Writer) *slog.Logger { return slog.New(slog.NewJSONHandler(w, nil)) }
