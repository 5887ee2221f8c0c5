package caddymodule_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	_ "github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	_ "github.com/caddyserver/caddy/v2/modules/standard"

	"github.com/adreswijzer/adreswijzer"
	_ "github.com/adreswijzer/adreswijzer/caddymodule"
	"github.com/adreswijzer/adreswijzer/gateway/gatewaytest"
	"github.com/adreswijzer/adreswijzer/gateway/keys"
	"github.com/adreswijzer/adreswijzer/gateway/usage"
	"github.com/adreswijzer/adreswijzer/worker/mcpserver/mcpservertest"
	"github.com/adreswijzer/adreswijzer/worker/openapi/openapitest"
)

// The integration tests load real Caddy configurations, adapted from Caddyfiles like
// deploy/Caddyfile.local, into this process (caddy.Load), and talk HTTP to them. Caddy's
// configuration is process-wide: these tests never run in parallel.

// gatewayConfig fills the test Caddyfile.
type gatewayConfig struct {
	upstream string // worker URL
	extra    string // more lines inside the adreswijzer block; {{port}} is the gateway's port
	workers  string // polled workers; default the upstream
	// keys are created in the key file before the gateway starts.
	keys []keys.Options
	// global is more global options (a servers block, say).
	global string
	// routes are more handle blocks after the adreswijzer handler, beside the worker's.
	routes string
	// site is more directives of the site (a log block, say).
	site string
	// captureLog writes every log line Caddy and the gateway write, from DEBUG up, as JSON
	// to a file the test reads with gw.caddyLog.
	captureLog bool
}

const testCaddyfile = `{
	admin off
	auto_https off
	persist_config off
	grace_period 1s
	log default {
		{{log}}
	}
	{{global}}
}

# No header_up -Authorization here, unlike deploy/: the handler itself must keep
# credentials from the worker, and the tests check that it does.
(worker) {
	reverse_proxy {{upstream}} {
		lb_try_duration 500ms
		lb_try_interval 50ms
		transport adreswijzer {
			dial_timeout 250ms
			response_header_timeout {args[0]}
		}
	}
}

http://:{{port}} {
	bind 127.0.0.1
	{{site}}
	handle_path /widget/* {
		root * {{dir}}/widget
		file_server
	}
	handle {
		adreswijzer {
			key_file {{dir}}/keys.json
			usage_file {{dir}}/usage.json
			account_file {{dir}}/accounts.json
			workers {{workers}}
			poll_interval 200ms
			{{extra}}
		}
		{{routes}}
		handle /mcp {
			import worker 12s
		}
		handle {
			import worker 900ms
		}
	}
}
`

// gw is a running gateway.
type gw struct {
	t       testing.TB
	base    string
	dir     string
	secrets map[string]string // key name (Options.Name) → credential
	ids     map[string]string // key name → key id
	v       *openapitest.Validator
	client  *http.Client
	// tools checks the tool results of /mcp against the worker's tool schemas; nil in front
	// of gatewaytest's stand-in.
	tools *mcpservertest.Tools
}

func startGateway(t testing.TB, c gatewayConfig) *gw {
	t.Helper()
	g := &gw{t: t, dir: t.TempDir(), secrets: map[string]string{}, ids: map[string]string{},
		v: newValidator(t), client: newClient()}
	if err := os.MkdirAll(filepath.Join(g.dir, "widget"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(g.dir, "widget", "form.js"), []byte("// form\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	store, err := keys.OpenFile(filepath.Join(g.dir, "keys.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range c.keys {
		k, secret, err := keys.New(o, time.Now())
		if err != nil {
			t.Fatalf("key %s: %v", o.Name, err)
		}
		if err := store.Create(context.Background(), k); err != nil {
			t.Fatal(err)
		}
		g.secrets[o.Name], g.ids[o.Name] = secret, k.ID
	}
	port := gatewaytest.FreePort(t)
	g.base = fmt.Sprintf("http://127.0.0.1:%d", port)
	up, err := url.Parse(c.upstream)
	if err != nil {
		t.Fatal(err)
	}
	workers := c.workers
	if workers == "" {
		workers = c.upstream
	}
	extra := strings.ReplaceAll(c.extra, "{{port}}", fmt.Sprint(port))
	logCfg := "level WARN"
	if c.captureLog {
		logCfg = "output file " + filepath.Join(g.dir, "caddy.log") + "\n\t\tformat json\n\t\tlevel DEBUG"
	}
	cf := strings.NewReplacer("{{port}}", fmt.Sprint(port), "{{dir}}", g.dir, "{{upstream}}", up.Host,
		"{{workers}}", workers, "{{extra}}", extra, "{{log}}", logCfg, "{{global}}", c.global, "{{routes}}", c.routes, "{{site}}", c.site).Replace(testCaddyfile)
	loadCaddyfile(t, cf)
	waitListening(t, port)
	if realWorker(c.upstream) {
		g.tools = toolSchemas(t)
	}
	return g
}

// caddyLog is what was logged so far, with captureLog.
func (g *gw) caddyLog() string {
	g.t.Helper()
	b, err := os.ReadFile(filepath.Join(g.dir, "caddy.log"))
	if err != nil {
		g.t.Fatal(err)
	}
	return string(b)
}

func newValidator(t testing.TB) *openapitest.Validator { return openapitest.New(t) }

func newClient() *http.Client { return &http.Client{Timeout: 10 * time.Second} }

// loadCaddyfile adapts and loads a Caddyfile, and stops it when the test ends.
func loadCaddyfile(t testing.TB, cf string) {
	t.Helper()
	cfg, warnings, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(cf), map[string]any{"filename": "Caddyfile"})
	if err != nil {
		t.Fatalf("adapt: %v\n%s", err, cf)
	}
	for _, w := range warnings {
		if !strings.Contains(w.Message, "not formatted") {
			t.Logf("adapt warning: %s", w.String())
		}
	}
	if err := caddy.Load(cfg, true); err != nil {
		t.Fatalf("load: %v", err)
	}
	t.Cleanup(func() {
		if err := caddy.Stop(); err != nil {
			t.Errorf("stop: %v", err)
		}
	})
}

func waitListening(t testing.TB, port int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), 100*time.Millisecond)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("gateway did not listen: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// answer is a response read in full.
type answer struct {
	status int
	header http.Header
	body   []byte
	took   time.Duration
}

func (a answer) errorCode() adreswijzer.ErrorCode {
	var e adreswijzer.ErrorResponse
	_ = json.Unmarshal(a.body, &e)
	return e.Error.Code
}

func (a answer) errorBody() adreswijzer.ErrorBody {
	var e adreswijzer.ErrorResponse
	_ = json.Unmarshal(a.body, &e)
	return e.Error
}

// req describes one request.
type req struct {
	method  string
	path    string // with query
	key     string // key name in gw.secrets, or "" for none
	auth    string // raw Authorization value, overrides key
	origin  string
	host    string // Host header, when not the gateway's address
	body    []byte
	headers map[string]string
	noCheck bool // not an exchange openapi.json describes (preflights, static files)
}

// do sends r and checks the exchange against openapi.json.
func (g *gw) do(r req) answer {
	g.t.Helper()
	if r.method == "" {
		r.method = http.MethodGet
		if r.body != nil {
			r.method = http.MethodPost
		}
	}
	var body io.Reader
	if r.body != nil {
		body = bytes.NewReader(r.body)
	}
	hr, err := http.NewRequest(r.method, g.base+r.path, body)
	if err != nil {
		g.t.Fatal(err)
	}
	if r.body != nil {
		b := r.body
		hr.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
		hr.Header.Set("Content-Type", "application/json")
	}
	switch {
	case r.auth != "":
		hr.Header.Set("Authorization", r.auth)
	case r.key != "":
		s, ok := g.secrets[r.key]
		if !ok {
			g.t.Fatalf("no key named %q", r.key)
		}
		hr.Header.Set("Authorization", "Bearer "+s)
	}
	if r.origin != "" {
		hr.Header.Set("Origin", r.origin)
	}
	if r.host != "" {
		hr.Host = r.host
	}
	for k, v := range r.headers {
		hr.Header.Set(k, v)
	}
	start := time.Now()
	resp, err := g.client.Do(hr)
	if err != nil {
		g.t.Fatalf("%s %s: %v", r.method, r.path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		g.t.Fatal(err)
	}
	a := answer{status: resp.StatusCode, header: resp.Header, body: b, took: time.Since(start)}
	if !r.noCheck {
		g.v.Check(g.t, hr, a.status, a.header, a.body)
		if tool := calledTool(r); tool != "" && g.tools != nil && a.status == http.StatusOK {
			g.tools.CheckAnswer(g.t, tool, a.body)
		}
	}
	return a
}

// calledTool is the tool a request to /mcp calls, "" when it is no single tools/call.
func calledTool(r req) string {
	if r.path != "/mcp" || r.body == nil {
		return ""
	}
	var m struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	if json.Unmarshal(r.body, &m) != nil || m.Method != "tools/call" {
		return ""
	}
	return m.Params.Name
}

// expect fails unless the answer has status and, for errors, code.
func expect(t *testing.T, what string, a answer, status int, code adreswijzer.ErrorCode) {
	t.Helper()
	if a.status != status {
		t.Errorf("%s: status %d, want %d; body %s", what, a.status, status, a.body)
		return
	}
	if code != "" && a.errorCode() != code {
		t.Errorf("%s: code %q, want %q; body %s", what, a.errorCode(), code, a.body)
	}
}

// usageOf reads an account's totals of this month from the usage file, waiting until the
// meter flushed (once a second) and the value is want, or failing after 3 s.
func (g *gw) waitUsage(account string, want int64) {
	g.t.Helper()
	g.waitUsageFor(g.t, account, want)
}

// waitUsageFor is waitUsage for a subtest.
func (g *gw) waitUsageFor(t testing.TB, account string, want int64) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	var got usage.Totals
	for {
		sink, err := usage.OpenFile(filepath.Join(g.dir, "usage.json"))
		if err != nil {
			t.Fatal(err)
		}
		got, _ = sink.Get(context.Background(), account, usage.Month(time.Now()))
		if got.Verifications == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("account %s: %d verifications counted, want %d", account, got.Verifications, want)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// stable waits past a flush and checks the count stays at want.
func (g *gw) stableUsage(account string, want int64) {
	g.t.Helper()
	time.Sleep(1300 * time.Millisecond)
	g.waitUsage(account, want)
}

// Queries of real register rows (Weesp in the BAG sample, Haren in the BeST sample), so the
// same tests make sense against a real worker.
const (
	nlLookup = "/v1/nl/lookup?postcode=1381CS&number=16"
	beLookup = "/v1/be/lookup?postcode=1130&street=Harenheidestraat&number=67"
	shop     = "https://shop.example"
)

func validateBody(session string) []byte { return validateNumber(session, 16) }

// validateNumber is validateBody for another house number in the same street.
func validateNumber(session string, number int) []byte {
	m := map[string]any{"countryCode": "NL", "address1": fmt.Sprint("Hugo de Grootlaan ", number), "zip": "1381 CS", "city": "Weesp"}
	if session != "" {
		m["sessionId"] = session
	}
	b, _ := json.Marshal(m)
	return b
}
