package agentpolicy

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/gateway"
	"github.com/adreswijzer/adreswijzer/gateway/agentpolicy/limits"
	"github.com/adreswijzer/adreswijzer/gateway/agentpolicy/oauth"
	"github.com/adreswijzer/adreswijzer/gateway/agentpolicy/rpcinspect"
	"github.com/adreswijzer/adreswijzer/gateway/apierr"
	"github.com/adreswijzer/adreswijzer/gateway/gatewaytest"
	"github.com/adreswijzer/adreswijzer/gateway/keys"
	"github.com/adreswijzer/adreswijzer/gateway/limit"
	"github.com/adreswijzer/adreswijzer/gateway/usage"
	worker "github.com/adreswijzer/adreswijzer/worker/mcpserver"
)

const resource = "https://api.adreswijzer.example/mcp"

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// fixture is a gateway with the extension, on key and usage files.
type fixture struct {
	g       *gateway.Gateway
	x       *Extension
	secrets map[string]string
}

func newFixture(t testing.TB, cfg Config) *fixture {
	t.Helper()
	return newFixtureOn(t, cfg, nil, "")
}

// newFixtureOn is a fixture whose meter and agent limits share rdb (under prefix); nil keeps
// them in memory.
func newFixtureOn(t testing.TB, cfg Config, rdb *redis.Client, prefix string) *fixture {
	t.Helper()
	dir := t.TempDir()
	store, err := keys.OpenFile(filepath.Join(dir, "keys.json"))
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{secrets: map[string]string{}}
	for _, o := range []keys.Options{
		{Name: "live", Kind: keys.Live, Account: "acct-live"},
		{Name: "test", Kind: keys.Test, Account: "acct-test"},
		{Name: "tiny", Kind: keys.Live, Account: "acct-tiny", Plan: "tiny"},
		{Name: "bench", Kind: keys.Live, Account: "acct-bench", Plan: "unlimited"},
	} {
		k, secret, err := keys.New(o, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if err := store.Create(context.Background(), k); err != nil {
			t.Fatal(err)
		}
		f.secrets[o.Name] = secret
	}
	sink, err := usage.OpenFile(filepath.Join(dir, "usage.json"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := usage.NewMeter(usage.Config{Sink: sink, Redis: rdb, Prefix: prefix, Log: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	if cfg.Resource == "" {
		cfg.Resource = resource
	}
	cfg.Log = quiet()
	f.x, err = New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	f.g, err = gateway.New(gateway.Config{Plans: map[string]int64{"tiny": 3, "unlimited": usage.Unlimited},
		Limits: map[string]limit.Rule{string(keys.Live): {Rate: 1 << 30, Period: time.Hour, Burst: 1 << 30}}}, gateway.Parts{Keys: store, Limiter: limit.NewLocal(1 << 10),
		Meter: m, Extensions: []gateway.Extension{f.x}, Redis: rdb, RedisPrefix: prefix, Log: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *fixture) used(t testing.TB, account string) int64 {
	t.Helper()
	u, err := f.g.Meter.Used(context.Background(), account, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return u.Verifications
}

// post is a request to /mcp with a key (by name) and a JSON-RPC body.
func (f *fixture) post(key string, body string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "https://api.adreswijzer.example/mcp", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	if key != "" {
		r.Header.Set("Authorization", "Bearer "+f.secrets[key])
	}
	return r
}

func toolCall(id any, tool string, args string) string {
	i, _ := json.Marshal(id)
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, i, tool, args)
}

// The names the gateway counts are the names the server serves.
func TestToolNames(t *testing.T) {
	for gw, w := range map[string]string{
		rpcinspect.ToolVerify: worker.ToolVerify, rpcinspect.ToolLookup: worker.ToolLookup, rpcinspect.ToolSuggest: worker.ToolSuggest,
		rpcinspect.ToolVerifyBatch: worker.ToolBatch, rpcinspect.ToolListCountries: worker.ToolCountries,
	} {
		if gw != w {
			t.Errorf("the gateway counts %q, the worker serves %q", gw, w)
		}
	}
	if rpcinspect.MaxBodyBytes != worker.MaxBodyBytes {
		t.Errorf("the gateway bounds /mcp at %d bytes, the worker at %d", rpcinspect.MaxBodyBytes, worker.MaxBodyBytes)
	}
}

func TestNewChecks(t *testing.T) {
	for _, c := range []Config{
		{},
		{Resource: "api.example/mcp"},
		{Resource: "https://api.example/agent"},
		{Resource: "https://api.example/mcp?x=1"},
		{Resource: resource, JWKSURL: "https://auth.example/jwks"},
		{Resource: resource, Issuer: "auth.example"},
		{Resource: resource, Hosts: []string{"https://api.example"}},
		{Resource: resource, Hosts: []string{"api.example:443"}},
		{Resource: resource, Hosts: []string{"[::1]:8080"}},
		{Resource: resource, Plan: "a plan"},
		{Resource: resource, Policy: limits.Policy{Rate: 1}},
	} {
		if _, err := New(c, nil); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
}

func TestScreen(t *testing.T) {
	// A resource on an address rather than a name is served under that address.
	if x, err := New(Config{Resource: "http://[2001:db8::7]:8080/mcp"}, nil); err != nil || !x.hostAllowed("[2001:db8::7]:8080") {
		t.Errorf("resource on an IPv6 address: %v", err)
	}

	f := newFixture(t, Config{Hosts: []string{"api.adreswijzer.example", "mcp.adreswijzer.example"}})
	for _, c := range []struct {
		host, origin string
		ok           bool
	}{
		{"api.adreswijzer.example", "", true},
		{"mcp.adreswijzer.example:443", "", true},
		{"API.ADRESWIJZER.EXAMPLE.", "", true},
		{"127.0.0.1:8080", "", true},
		{"[::1]:8080", "", true},
		{"localhost", "http://localhost:3000", true},
		{"api.adreswijzer.example", "https://api.adreswijzer.example", true},
		{"app.localhost:8080", "http://app.localhost:8080", true},
		{"evil.example", "", false},
		{"127.0.0.1.evil.example", "", false},
		{"localhost.evil.example", "", false},
		{"", "", false},
		{"127.0.0.1:8080", "https://evil.example", false},
		{"127.0.0.1:8080", "null", false},
		{"127.0.0.1:8080", "file://", false},
	} {
		r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
		r.Host = c.host
		if c.origin != "" {
			r.Header.Set("Origin", c.origin)
		}
		d := &gateway.Decision{Route: gateway.RouteAgent}
		e := f.x.Screen(r, d)
		if (e == nil) != c.ok || e != nil && (e.Status != http.StatusForbidden || e.Code != adreswijzer.ErrForbidden) {
			t.Errorf("Host %q Origin %q: %v, want allowed %v", c.host, c.origin, e, c.ok)
		}
		// Without an authorization server the challenges point to no metadata.
		if d.Challenge == nil || *d.Challenge != (gateway.Challenges{Missing: `Bearer realm="adreswijzer", scope="address:verify"`,
			Refused: `Bearer realm="adreswijzer", error="invalid_token", scope="address:verify"`,
			Scope:   `Bearer realm="adreswijzer", error="insufficient_scope", scope="address:verify"`}) {
			t.Errorf("challenge %+v", d.Challenge)
		}
	}
	// Other routes are not screened.
	r := httptest.NewRequest(http.MethodGet, "/v1/nl/lookup", nil)
	r.Host = "evil.example"
	if e := f.x.Screen(r, &gateway.Decision{Route: gateway.RouteLookup}); e != nil {
		t.Errorf("REST screened: %v", e)
	}
	// Without an authorization server there is no metadata: it could only name none.
	d := &gateway.Decision{Route: gateway.RoutePublic}
	if e := f.x.Screen(httptest.NewRequest(http.MethodGet, oauth.MetadataPath, nil), d); e == nil || e.Status != http.StatusNotFound || d.Answer != nil {
		t.Errorf("metadata without an authorization server: %v", e)
	}
	// With one, the metadata names it and every challenge of /mcp points to the metadata.
	x, err := New(Config{Resource: resource, Issuer: "https://auth.adreswijzer.example"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	d = &gateway.Decision{Route: gateway.RoutePublic}
	x.Screen(httptest.NewRequest(http.MethodGet, oauth.MetadataPath, nil), d)
	if d.Answer == nil {
		t.Fatal("metadata not answered")
	}
	rec := httptest.NewRecorder()
	d.Answer.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, oauth.MetadataPath, nil))
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), `"resource":"`+resource+`"`) ||
		!strings.Contains(rec.Body.String(), `"authorization_servers":["https://auth.adreswijzer.example"]`) {
		t.Errorf("metadata %d %s", rec.Code, rec.Body)
	}
	md := "https://api.adreswijzer.example/.well-known/oauth-protected-resource/mcp"
	d = &gateway.Decision{Route: gateway.RouteAgent}
	r = httptest.NewRequest(http.MethodPost, "/mcp", nil)
	r.Host = "api.adreswijzer.example"
	if e := x.Screen(r, d); e != nil || d.Challenge == nil || d.Challenge.Missing != oauth.Challenge(md) ||
		d.Challenge.Refused != oauth.ChallengeFor(md, oauth.ErrInvalidToken) || d.Challenge.Scope != oauth.ChallengeFor(md, oauth.ErrInsufficientScope) {
		t.Errorf("challenges with an authorization server: %v %+v", e, d.Challenge)
	}
}

// Tool calls count as the spec counts REST calls, through the gateway's meter and quota;
// test keys never; calls the answer shows failed are given back.
func TestCounting(t *testing.T) {
	f := newFixture(t, Config{Policy: limits.Policy{Rate: 1000, Period: time.Minute, Burst: 1000, Daily: 10000, RepeatMax: 5, RepeatWindow: time.Minute}})
	ctx := context.Background()
	batch := func(n int) string { return batchOf(n, "c") }
	for _, c := range []struct {
		name, body string
		charged    int
	}{
		{"initialize", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, 0},
		{"tools/list", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, 0},
		{"verify", toolCall(3, rpcinspect.ToolVerify, `{"address":"Achtergracht 1, 1381 BK Weesp"}`), 1},
		{"lookup", toolCall(4, rpcinspect.ToolLookup, `{"country":"NL","postcode":"1381CS","houseNumber":16}`), 1},
		{"first suggestion", toolCall(5, rpcinspect.ToolSuggest, `{"country":"NL","query":"Hugo"}`), 1},
		{"second suggestion", toolCall(6, rpcinspect.ToolSuggest, `{"country":"NL","query":"Hugo d"}`), 0},
		{"batch of 30", toolCall(7, rpcinspect.ToolVerifyBatch, batch(30)), 30},
		{"countries", toolCall(8, rpcinspect.ToolListCountries, `{}`), 0},
		{"unknown tool", toolCall(9, "delete_everything", `{}`), 0},
		{"notification", `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"verify_address","arguments":{"address":"x"}}}`, 0},
		{"not JSON", `{"jsonrpc":`, 0},
		{"JSON-RPC batch", "[" + toolCall(10, rpcinspect.ToolVerify, `{"address":"a"}`) + "," + toolCall(11, rpcinspect.ToolLookup, `{"country":"BE"}`) + "]", 2},
	} {
		d, e := f.g.Decide(ctx, f.post("live", c.body), "")
		if e != nil {
			t.Fatalf("%s: %v", c.name, e)
		}
		if d.Charged() != c.charged {
			t.Errorf("%s: charged %d, want %d", c.name, d.Charged(), c.charged)
		}
		f.g.Finish(ctx, d, http.StatusOK)
	}
	if got := f.used(t, "acct-live"); got != 35 {
		t.Errorf("%d verifications, want 35", got)
	}

	// A failed answer gives the whole charge back; a tool error gives back its call.
	d, _ := f.g.Decide(ctx, f.post("live", toolCall(12, rpcinspect.ToolVerifyBatch, batch(5))), "")
	f.g.Finish(ctx, d, http.StatusServiceUnavailable)
	d, _ = f.g.Decide(ctx, f.post("live", "["+toolCall("a", rpcinspect.ToolVerify, `{}`)+","+toolCall(1.0, rpcinspect.ToolLookup, `{}`)+","+
		toolCall(2, rpcinspect.ToolVerifyBatch, batch(4))+"]"), "")
	if !d.WantsAnswer() || d.Charged() != 6 {
		t.Fatalf("charged %d, wants answer %v", d.Charged(), d.WantsAnswer())
	}
	f.g.Settle(ctx, d, []byte(`[{"jsonrpc":"2.0","id":"a","result":{"content":[],"isError":true}},`+
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid params"}},`+
		`{"jsonrpc":"2.0","id":2,"result":{"content":[],"structuredContent":{}}}]`))
	f.g.Finish(ctx, d, http.StatusOK)
	if got := f.used(t, "acct-live"); got != 35+4 {
		t.Errorf("%d verifications after settling, want 39", got)
	}

	// Test keys are never counted.
	d, e := f.g.Decide(ctx, f.post("test", toolCall(1, rpcinspect.ToolVerifyBatch, batch(10))), "")
	if e != nil || d.Charged() != 0 || d.WantsAnswer() {
		t.Errorf("test key: %v, charged %d", e, d.Charged())
	}

	// The plan's quota holds for tool calls: a batch beyond it is refused whole.
	if _, e := f.g.Decide(ctx, f.post("tiny", toolCall(1, rpcinspect.ToolVerifyBatch, batch(4))), ""); e == nil || e.Code != adreswijzer.ErrQuotaExceeded {
		t.Errorf("batch beyond the quota: %v", e)
	}
	if _, e := f.g.Decide(ctx, f.post("tiny", toolCall(2, rpcinspect.ToolVerifyBatch, batch(3))), ""); e != nil {
		t.Errorf("batch within the quota: %v", e)
	}
}

// Refusals by the agent limits are tool results the model reads, sent with status 200;
// what cannot be answered that way is the spec's 429. A refused call is not counted.
func TestRefusals(t *testing.T) {
	f := newFixture(t, Config{Policy: limits.Policy{Rate: 1, Period: time.Hour, Burst: 2, Daily: 100, RepeatMax: 5, RepeatWindow: time.Minute}})
	ctx := context.Background()
	for i := range 2 {
		if _, e := f.g.Decide(ctx, f.post("live", toolCall(i, rpcinspect.ToolVerify, fmt.Sprintf(`{"address":"%d"}`, i))), ""); e != nil {
			t.Fatal(e)
		}
	}
	r := f.post("live", toolCall(3, rpcinspect.ToolVerify, `{"address":"x"}`))
	r.Header.Set("MCP-Protocol-Version", "2026-07-28")
	_, e := f.g.Decide(ctx, r, "")
	if e == nil || e.Status != http.StatusOK || e.Reply == nil || e.RetryAfter < 59*time.Minute {
		t.Fatalf("over the burst: %+v", e)
	}
	rec := httptest.NewRecorder()
	apierr.Write(rec, e)
	var reply struct {
		ID     int
		Result struct {
			IsError    bool   `json:"isError"`
			ResultType string `json:"resultType"`
			Content    []struct{ Text string }
		}
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &reply); err != nil || rec.Code != 200 || reply.ID != 3 || !reply.Result.IsError ||
		reply.Result.ResultType != "complete" || !strings.Contains(reply.Result.Content[0].Text, "too many tool calls") {
		t.Errorf("reply %d %s", rec.Code, rec.Body)
	}
	if rec.Header().Get("Retry-After") != "3600" || rec.Header().Get("Content-Type") != "application/json; charset=utf-8" {
		t.Errorf("headers %v", rec.Header())
	}
	if got := f.used(t, "acct-live"); got != 2 {
		t.Errorf("%d verifications, want 2: the refused call is not counted", got)
	}
	// A JSON-RPC batch that also holds a request a tool result cannot answer: 429.
	_, e = f.g.Decide(ctx, f.post("live", `[`+toolCall(4, rpcinspect.ToolVerify, `{"address":"y"}`)+`,{"jsonrpc":"2.0","id":5,"method":"tools/list"}]`), "")
	if e == nil || e.Status != http.StatusTooManyRequests || e.Code != adreswijzer.ErrRateLimited || e.Reply != nil {
		t.Errorf("mixed batch: %+v", e)
	}
	// Requests without tool calls pass.
	if _, e := f.g.Decide(ctx, f.post("live", `{"jsonrpc":"2.0","id":6,"method":"tools/list"}`), ""); e != nil {
		t.Errorf("tools/list refused: %v", e)
	}
}

// A test key's refusal says how many calls are left today: "used its 100 tool calls" only
// when none is, and otherwise how many, as the meter counts them in memory and in Redis.
func TestTestKeyCap(t *testing.T) {
	for _, mode := range []string{"local", "redis"} {
		t.Run(mode, func(t *testing.T) {
			var rdb *redis.Client
			var prefix string
			if mode == "redis" {
				rdb, prefix = gatewaytest.Redis(t)
			}
			f := newFixtureOn(t, Config{Policy: limits.Policy{Rate: 1000, Period: time.Minute, Burst: 1000, Daily: 10000,
				RepeatMax: 5, RepeatWindow: time.Minute}}, rdb, prefix)
			ctx := context.Background()
			for i, step := range []struct {
				items     int // addresses in a batch, or 0 for a verify_address call
				want, not []string
			}{
				{items: 97},
				{items: 5, want: []string{"these 5 tool calls", "past its 100 tool calls for today (UTC); 3 calls remain today"},
					not: []string{"used its", "Fewer"}},
				{items: 4, want: []string{"these 4 tool calls", "3 calls remain today"}},
				{items: 2},
				{items: 2, want: []string{"these 2 tool calls", "1 call remains today"}},
				{items: 1},
				{items: 2, want: []string{"this test key has used its 100 tool calls for today (UTC)", "Do not retry before 00:00 UTC"},
					not: []string{"remain", "these 2", "Fewer"}},
				{items: 100, want: []string{"this test key has used its 100 tool calls"}, not: []string{"remain"}},
				{want: []string{"this test key has used its 100 tool calls"}, not: []string{"remain"}},
			} {
				body := toolCall(i, rpcinspect.ToolVerify, fmt.Sprintf(`{"address":"Achtergracht %d, 1381 BN Weesp"}`, i+1))
				if step.items > 0 {
					body = toolCall(i, rpcinspect.ToolVerifyBatch, batchOf(step.items, fmt.Sprint(i)))
				}
				_, e := f.g.Decide(ctx, f.post("test", body), "")
				switch {
				case step.want == nil && e != nil:
					t.Fatalf("step %d (%d addresses) refused: %v", i, step.items, e)
				case step.want == nil:
					continue
				case e == nil || e.Code != adreswijzer.ErrDailyCapReached || e.Reply == nil:
					t.Fatalf("step %d (%d addresses): %+v, want the daily cap's tool result", i, step.items, e)
				}
				for _, w := range step.want {
					if !strings.Contains(e.Message, w) {
						t.Errorf("step %d: %q lacks %q", i, e.Message, w)
					}
				}
				for _, n := range step.not {
					if strings.Contains(e.Message, n) {
						t.Errorf("step %d: %q says %q", i, e.Message, n)
					}
				}
			}
		})
	}
}

// A batch the tool's input schema rejects is never verified, so it spends one call of the
// agent's rate budget, not one per item, and counts one verification until its tool error
// gives that back.
func TestUnservedBatchCharge(t *testing.T) {
	noID := `{"addresses":[` + strings.TrimSuffix(strings.Repeat(`{"address":"Hugo de Grootlaan 16 ben, 1381 CS Weesp"},`, 100), ",") + `]}`
	for _, tc := range []struct {
		name, args string
		charged    int
	}{
		{"items without id", noID, 1},
		{"well-formed", batchOf(100, "ok"), 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, Config{Policy: limits.Policy{Rate: 1, Period: time.Hour, Burst: 2, Daily: 10000, RepeatMax: 5, RepeatWindow: time.Minute}})
			ctx := context.Background()
			d, e := f.g.Decide(ctx, f.post("live", toolCall(1, rpcinspect.ToolVerifyBatch, tc.args)), "")
			if e != nil || d.Charged() != tc.charged {
				t.Fatalf("batch: %v, charged %d, want %d", e, d.Charged(), tc.charged)
			}
			// A burst of two: after one unit, one more call fits; after a hundred, none.
			_, e = f.g.Decide(ctx, f.post("live", toolCall(2, rpcinspect.ToolVerify, `{"address":"Achtergracht 1, 1381 BK Weesp"}`)), "")
			if fits := tc.charged < 2; (e == nil) != fits {
				t.Errorf("call after the batch: %v, want allowed %v", e, fits)
			}
		})
	}
}

// batchOf is the arguments of verify_addresses_batch with n addresses, their ids tagged.
func batchOf(n int, tag string) string {
	items := make([]string, n)
	for i := range items {
		items[i] = fmt.Sprintf(`{"id":"%s-%d","address":"Hugo de Grootlaan 16 ben, 1381 CS Weesp"}`, tag, i)
	}
	return `{"addresses":[` + strings.Join(items, ",") + `]}`
}

// Answers that say which tool calls failed, or served less than they were charged: tool
// errors and JSON-RPC errors, answers about a country without a register, and batches of
// which only some addresses were checked.
func TestUnserved(t *testing.T) {
	x := &Extension{}
	all := func(tags ...string) []gateway.Unserved {
		var out []gateway.Unserved
		for _, t := range tags {
			out = append(out, gateway.Unserved{Tag: t})
		}
		return out
	}
	for body, want := range map[string][]gateway.Unserved{
		`{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":true}}`:                           all("1"),
		`{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":false}}`:                          nil,
		`{"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":"no"}}`:                         all(`"x"`),
		`{"jsonrpc":"2.0","id":1.0,"error":null,"result":{"isError":true}}`:                         all("1"),
		`[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":2,"result":{"isError":true}}]`: all("2"),
		// A verify, lookup or suggest of a country without a register.
		`{"jsonrpc":"2.0","id":3,"result":{"structuredContent":{"status":"invalid","issues":[{"code":"UNSUPPORTED_COUNTRY","severity":"info","message":"m"}]}}}`:     all("3"),
		`{"jsonrpc":"2.0","id":3,"result":{"structuredContent":{"status":"invalid","issues":[{"code":"HOUSE_NUMBER_NOT_FOUND","severity":"error","message":"m"}]}}}`: nil,
		// Batches: the addresses checked are served, the rest given back; none checked, all.
		`{"jsonrpc":"2.0","id":4,"result":{"structuredContent":{"results":[],"checked":7}}}`: {{Tag: "4", Served: 7}},
		`{"jsonrpc":"2.0","id":4,"result":{"structuredContent":{"results":[],"checked":0}}}`: all("4"),
		"event: message\ndata: {}": nil,
		"":                         nil,
	} {
		if got := x.Unserved(nil, []byte(body)); !slices.Equal(got, want) {
			t.Errorf("%s: %+v, want %+v", body, got, want)
		}
	}
	if idTag(json.RawMessage(`1.0`)) != idTag(json.RawMessage(`1`)) {
		t.Error("1.0 and 1 are different ids")
	}
}
