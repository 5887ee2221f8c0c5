package caddymodule_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/gateway/agentpolicy/rpcinspect"
	"github.com/adreswijzer/adreswijzer/gateway/gatewaytest"
	"github.com/adreswijzer/adreswijzer/gateway/keys"
	"github.com/adreswijzer/adreswijzer/worker/mcpserver"
)

// The plan's monthly quota, met by an agent: the call over it is a tool result the model
// reads (QUOTA_EXCEEDED, the upgrade URL, accept the address as typed), not the HTTP 429 an
// MCP client turns into a transport error; a batch over it is refused whole; nothing refused
// is counted; REST keeps its 429.
func TestAgentQuota(t *testing.T) {
	g := startGateway(t, gatewayConfig{upstream: upstream(t),
		extra: "plan tiny 3\n\t\t\tupgrade_url https://adreswijzer.example/account/plan\n\t\t\t" + agentExtension(generous),
		keys:  []keys.Options{{Name: "tiny", Kind: keys.Live, Account: "acct-agent-quota", Plan: "tiny"}}})
	for _, version := range []string{"2025-06-18", "2026-07-28"} {
		cs := g.connectAgent(t, g.secrets["tiny"], version)
		if version == "2025-06-18" {
			mustVerify(t, cs, map[string]any{"address": weespValid})
			mustVerify(t, cs, map[string]any{"address": harenNL})
			// Two addresses left of three... one: a batch of two is refused whole.
			res := callTool(t, cs, rpcinspect.ToolVerifyBatch, batchOf(2, malmedy, lembeekBox), nil)
			if e := refusalIn(t, res); e.Code != adreswijzer.ErrQuotaExceeded {
				t.Errorf("batch over the quota: %+v", e)
			}
			mustVerify(t, cs, map[string]any{"address": malmedy})
		}
		res := callTool(t, cs, rpcinspect.ToolVerify, map[string]any{"address": lembeekBox}, nil)
		e := refusalIn(t, res)
		if e.Code != adreswijzer.ErrQuotaExceeded || e.UpgradeURL != "https://adreswijzer.example/account/plan" || !e.AcceptAsTyped ||
			e.RetryAfterSeconds != 0 || !strings.Contains(e.Message, "used its verifications for this month") ||
			!strings.Contains(e.Message, "https://adreswijzer.example/account/plan") {
			t.Errorf("%s: call over the quota: %+v", version, e)
		}
		// The free tool is no verification: it still answers.
		if res := callTool(t, cs, rpcinspect.ToolListCountries, map[string]any{}, nil); res.IsError {
			t.Errorf("%s: list_supported_countries refused: %s", version, toolText(res))
		}
	}
	// Over plain HTTP: status 200, and no Retry-After, as waiting does not help.
	body, h := rawToolCall(5, rpcinspect.ToolLookup, map[string]any{"country": "NL", "postcode": "1381 CS", "houseNumber": 16})
	e := refused(t, "raw lookup over the quota", g.do(req{path: "/mcp", key: "tiny", body: body, headers: h}), 5, adreswijzer.ErrQuotaExceeded, false)
	if e.UpgradeURL != "https://adreswijzer.example/account/plan" {
		t.Errorf("upgradeUrl %q", e.UpgradeURL)
	}
	// A JSON-RPC batch that mixes a tool call with another message cannot be answered with tool
	// results: the spec's 429.
	mixed := []byte("[" + string(body) + `,{"jsonrpc":"2.0","id":6,"method":"tools/list"}]`)
	a := g.do(req{path: "/mcp", key: "tiny", body: mixed, headers: map[string]string{"Accept": "application/json, text/event-stream",
		"MCP-Protocol-Version": "2025-03-26"}})
	expect(t, "mixed batch over the quota", a, 429, adreswijzer.ErrQuotaExceeded)
	expect(t, "REST over the quota", g.do(req{path: nlLookup, key: "tiny"}), 429, adreswijzer.ErrQuotaExceeded)
	g.stableUsage("acct-agent-quota", 3)
}

// No worker answering: a tool call gets a tool result that says the register is unavailable
// and the address may be accepted as typed (SERVICE_UNAVAILABLE), not an HTTP 503 its client
// would turn into a transport error; a request without tool calls gets the 503. Nothing is
// counted. The worker down is a port nothing listens on; a worker that answers 5xx is
// answered the same.
func TestAgentWorkerDown(t *testing.T) {
	dead := fmt.Sprintf("http://127.0.0.1:%d", gatewaytest.FreePort(t))
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = io.WriteString(w, `{"error":{"code":"SERVICE_UNAVAILABLE","message":"Draining."}}`)
	}))
	defer failing.Close()
	for _, upstream := range []string{dead, failing.URL} {
		t.Run(map[string]string{dead: "no worker", failing.URL: "worker answers 503"}[upstream], func(t *testing.T) {
			workerDown(t, upstream)
		})
	}
}

func workerDown(t *testing.T, upstream string) {
	tools := toolSchemas(t)
	g := startGateway(t, gatewayConfig{upstream: upstream, extra: agentExtension(generous),
		keys: []keys.Options{{Name: "live", Kind: keys.Live, Account: "acct-agent-down"}}})
	for i, c := range []struct {
		tool string
		args map[string]any
	}{
		{rpcinspect.ToolVerify, map[string]any{"address": weespValid}},
		{rpcinspect.ToolLookup, map[string]any{"country": "NL", "postcode": "1381 CS", "houseNumber": 16}},
		{rpcinspect.ToolSuggest, map[string]any{"country": "NL", "query": "Hugo de Grootlaan"}},
		{rpcinspect.ToolVerifyBatch, batchOf(3, weespValid)},
		{rpcinspect.ToolListCountries, map[string]any{}},
	} {
		body, h := rawToolCall(i+1, c.tool, c.args)
		a := g.do(req{path: "/mcp", key: "live", body: body, headers: h})
		e := refused(t, c.tool+" with no worker", a, i+1, adreswijzer.ErrServiceUnavailable, false)
		if !strings.Contains(e.Message, "temporarily unavailable") || !strings.Contains(e.Message, "Accept the address") {
			t.Errorf("%s: %q", c.tool, e.Message)
		}
		tools.CheckAnswer(t, c.tool, a.body)
	}
	expect(t, "tools/list with no worker", g.do(req{path: "/mcp", key: "live", body: toolsList, headers: mcpHeaders}), 503, adreswijzer.ErrServiceUnavailable)
	g.stableUsage("acct-agent-down", 0)
}

// refusalIn is the structured refusal of a tool result with isError, failing the test when
// the call was served.
func refusalIn(t *testing.T, res *mcp.CallToolResult) rpcinspect.ToolErrorBody {
	t.Helper()
	b, _ := json.Marshal(res)
	var r struct {
		IsError           bool                 `json:"isError"`
		StructuredContent rpcinspect.ToolError `json:"structuredContent"`
	}
	if err := json.Unmarshal(b, &r); err != nil || !r.IsError {
		t.Errorf("want a tool error, got %.300s", b)
	}
	return r.StructuredContent.Error
}

// Agents are billed as REST callers are: suggest_address, lookup_address and the
// verify_address that ends them count as one verification when they share a sessionId (and
// the confirmation of the ending verify counts nothing); a call about a country without a
// register counts nothing; a batch counts the addresses it checked, not those it never
// could (unusable input, another country).
func TestAgentBilling(t *testing.T) {
	g := startGateway(t, gatewayConfig{upstream: upstream(t), extra: agentExtension(generous),
		keys: []keys.Options{{Name: "live", Kind: keys.Live, Account: "acct-agent-billing"}}})
	cs := g.connectAgent(t, g.secrets["live"], "2026-07-28")
	want := int64(0)
	step := func(what string, verifications int64) {
		t.Helper()
		want += verifications
		g.waitUsageFor(t, "acct-agent-billing", want)
	}

	// One address found in three steps: one verification.
	callTool(t, cs, rpcinspect.ToolSuggest, map[string]any{"country": "NL", "query": "Hugo de Grootlaan 16", "sessionId": "addr-1"}, nil)
	callTool(t, cs, rpcinspect.ToolLookup, map[string]any{"country": "NL", "postcode": "1381 CS", "houseNumber": 16, "sessionId": "addr-1"}, nil)
	mustVerify(t, cs, map[string]any{"address": weespValid, "sessionId": "addr-1"})
	step("suggest, lookup and verify of one session", 1)
	// The same three without a sessionId: the lookup and the verify count, and so does the
	// suggestion, the month's first without a session (the 1st, 11th, 21st... count).
	callTool(t, cs, rpcinspect.ToolSuggest, map[string]any{"country": "BE", "query": "Harenheidestraat"}, nil)
	callTool(t, cs, rpcinspect.ToolLookup, map[string]any{"country": "BE", "postcode": "1130", "street": "Harenheidestraat", "houseNumber": 67}, nil)
	mustVerify(t, cs, map[string]any{"address": harenNL})
	step("the same without a session", 3)
	// A verify that ends a session, then the person confirms the address as typed: free.
	mustVerify(t, cs, map[string]any{"address": weespUnknown, "sessionId": "addr-2"})
	mustVerify(t, cs, map[string]any{"address": weespUnknown, "sessionId": "addr-2", "customerConfirmed": true})
	step("a verify and its confirmation", 1)

	// Another country: answered UNSUPPORTED_COUNTRY, counted nothing, in a session or not.
	callTool(t, cs, rpcinspect.ToolSuggest, map[string]any{"country": "DE", "query": "Unter den Linden", "sessionId": "addr-3"}, nil)
	callTool(t, cs, rpcinspect.ToolLookup, map[string]any{"country": "FR", "postcode": "75001", "houseNumber": 1}, nil)
	for _, args := range []map[string]any{
		{"address": "Unter den Linden 1, 10117 Berlin", "countryCode": "DE"},
		{"address": "Rue de Rivoli 1, 75001 Paris, France", "sessionId": "addr-3"},
	} {
		if out := mustVerify(t, cs, args); out.Status != adreswijzer.VerdictInvalid || out.CountryCode != nil || len(out.Issues) != 1 ||
			out.Issues[0].Code != adreswijzer.IssueUnsupportedCountry {
			t.Errorf("%v: %+v", args, out)
		}
	}
	step("calls about other countries", 0)

	// A batch of six: two checked, one unusable (both forms), two abroad, one an unknown
	// number (checked: invalid).
	var batch mcpserver.BatchOutput
	items := []any{
		map[string]any{"id": "a", "address": weespValid},
		map[string]any{"id": "b", "address": harenNL, "zip": "1130"},
		map[string]any{"id": "c", "address": "Unter den Linden 1, 10117 Berlin", "countryCode": "DE"},
		map[string]any{"id": "d", "address": malmedy},
		map[string]any{"id": "e", "address": "Rue de Rivoli 1, 75001 Paris, France"},
		map[string]any{"id": "f", "address": weespUnknown},
	}
	if res := callTool(t, cs, rpcinspect.ToolVerifyBatch, map[string]any{"addresses": items}, &batch); res.IsError {
		t.Fatalf("batch: %s", toolText(res))
	}
	var status []string
	for _, r := range batch.Results {
		status = append(status, r.Status)
	}
	if strings.Join(status, " ") != "valid error unsupported valid unsupported invalid" || batch.Checked != 3 {
		t.Errorf("batch: %v, checked %d", status, batch.Checked)
	}
	step("a batch with three addresses checked", 3)
	// None checked: nothing counted.
	if res := callTool(t, cs, rpcinspect.ToolVerifyBatch, batchOf(2, "Unter den Linden 1, 10117 Berlin, Deutschland"), &batch); res.IsError || batch.Checked != 0 {
		t.Fatalf("batch abroad: %s, checked %d", toolText(res), batch.Checked)
	}
	g.stableUsage("acct-agent-billing", want)
}

// REST calls about a country without a register are answered UNSUPPORTED_COUNTRY and not
// counted; a lookup's country segment that is no lower-case code is 422 (not 404), and a
// method a path does not take is 405 with the methods it does take.
func TestRESTCountries(t *testing.T) {
	g := startGateway(t, gatewayConfig{upstream: upstream(t),
		keys: []keys.Options{{Name: "live", Kind: keys.Live, Account: "acct-rest-abroad"}}})
	for _, r := range []req{
		{path: "/v1/de/lookup?postcode=10117&number=1", key: "live"},
		{path: "/v1/suggest?country=DE&q=Unter", key: "live"},
		{path: "/v1/autocomplete?country=fr&q=Rue+de+Rivoli", key: "live"},
		{path: "/v1/validate", key: "live", body: []byte(`{"countryCode":"DE","address1":"Unter den Linden 1","zip":"10117","city":"Berlin"}`)},
	} {
		a := g.do(r)
		if a.status != 200 || !strings.Contains(string(a.body), `"UNSUPPORTED_COUNTRY"`) {
			t.Errorf("%s: %d %.300s", r.path, a.status, a.body)
		}
	}
	expect(t, "a validate at home", g.do(req{path: "/v1/validate", key: "live", body: validateBody("")}), 200, "")
	for _, path := range []string{"/v1/NL/lookup?postcode=1381CS&number=16", "/v1/nld/lookup?postcode=1381CS&number=16", "/v1/1x/lookup?postcode=1&number=1"} {
		a := g.do(req{path: path, key: "live"})
		expect(t, path, a, 422, adreswijzer.ErrValidationFailed)
		if !strings.Contains(a.errorBody().Message, "country") {
			t.Errorf("%s: %q", path, a.errorBody().Message)
		}
	}
	for _, c := range []struct{ method, path, allow string }{
		{http.MethodGet, "/v1/validate", "POST"},
		{http.MethodDelete, "/v1/nl/lookup", "GET, HEAD, POST"},
		{http.MethodPut, "/v1/suggest", "GET, HEAD, POST"},
	} {
		a := g.do(req{method: c.method, path: c.path, key: "live"})
		expect(t, c.method+" "+c.path, a, 405, adreswijzer.ErrNotFound)
		if a.header.Get("Allow") != c.allow || !strings.Contains(a.errorBody().Message, c.allow) {
			t.Errorf("%s %s: Allow %q, message %q", c.method, c.path, a.header.Get("Allow"), a.errorBody().Message)
		}
	}
	g.stableUsage("acct-rest-abroad", 1)
}
