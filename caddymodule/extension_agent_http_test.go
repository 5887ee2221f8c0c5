package caddymodule_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/gateway/agentpolicy/rpcinspect"
	"github.com/adreswijzer/adreswijzer/gateway/gatewaytest"
	"github.com/adreswijzer/adreswijzer/gateway/keys"
)

var toolsList = []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)

var mcpHeaders = map[string]string{"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-06-18"}

// /mcp is served under its configured name and on loopback, and to pages of those only: a
// page elsewhere that points a browser at the gateway (DNS rebinding of a local gateway) is
// refused before its credential is even looked at.
func TestAgentHostAndOrigin(t *testing.T) {
	g := startGateway(t, gatewayConfig{upstream: upstream(t), extra: agentExtension("hosts api.adreswijzer.example"),
		keys: []keys.Options{{Name: "live", Kind: keys.Live, Account: "acct-host"}}})
	for _, c := range []struct {
		name, host, origin string
		status             int
	}{
		{"loopback address", "", "", 200},
		{"localhost", "localhost:8080", "", 200},
		{"configured name", "api.adreswijzer.example", "", 200},
		{"configured name, upper case, with port", "API.Adreswijzer.example:443", "", 200},
		{"page of the configured name", "api.adreswijzer.example", "https://api.adreswijzer.example", 200},
		{"local page", "", "http://localhost:5173", 200},
		{"other name", "evil.example", "", 403},
		{"rebound name", "attacker.example:8080", "http://attacker.example:8080", 403},
		{"page elsewhere", "", "https://evil.example", 403},
		{"opaque origin", "", "null", 403},
	} {
		a := g.do(req{path: "/mcp", key: "live", host: c.host, origin: c.origin, body: toolsList, headers: mcpHeaders})
		code := adreswijzer.ErrorCode("")
		if c.status == 403 {
			code = adreswijzer.ErrForbidden
		}
		expect(t, c.name, a, c.status, code)
		if c.status == 403 {
			// Refused before the credential: the same without one.
			a = g.do(req{path: "/mcp", host: c.host, origin: c.origin, body: toolsList, headers: mcpHeaders})
			expect(t, c.name+" without credential", a, 403, adreswijzer.ErrForbidden)
		}
	}
	// The REST endpoints are not the agent extension's business.
	expect(t, "REST under another name", g.do(req{path: nlLookup, key: "live", host: "other.example"}), 200, "")
}

// The body of /mcp is bounded at 1 MB, far above a batch of 100 long addresses, which passes
// and takes as long as it takes (the agent timeout, not the 1 s of the REST calls).
func TestAgentBodies(t *testing.T) {
	g := startGateway(t, gatewayConfig{upstream: upstream(t), extra: agentExtension(generous),
		keys: []keys.Options{{Name: "live", Kind: keys.Live, Account: "acct-bodies"}}})
	items := make([]any, 100)
	for i := range items {
		items[i] = map[string]any{"id": strings.Repeat("i", 90) + string(rune('A'+i%26)) + string(rune('a'+i/26)),
			"address1": "Hugo de Grootlaan 16 " + strings.Repeat("ben ", 40), "address2": strings.Repeat("x", 200),
			"zip": "1381 CS", "city": "Weesp " + strings.Repeat("y", 190), "countryCode": "NL"}
	}
	body, h := rawToolCall(1, rpcinspect.ToolVerifyBatch, map[string]any{"addresses": items})
	if len(body) < 64<<10 {
		t.Fatalf("the batch is only %d bytes", len(body))
	}
	a := g.do(req{path: "/mcp", key: "live", body: body, headers: h})
	var res struct {
		Result struct {
			IsError           bool `json:"isError"`
			StructuredContent struct {
				Results []struct{ ID, Status string }
			} `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal(a.body, &res); a.status != 200 || err != nil || res.Result.IsError || len(res.Result.StructuredContent.Results) != 100 {
		t.Fatalf("batch of 100 long addresses (%d bytes): %d %.300s", len(body), a.status, a.body)
	}
	t.Logf("a batch of 100 addresses, %d bytes, answered in %v", len(body), a.took)
	g.waitUsage("acct-bodies", 100)

	big := append(bytes.Repeat([]byte(" "), rpcinspect.MaxBodyBytes), toolsList...)
	a = g.do(req{path: "/mcp", key: "live", body: big, headers: mcpHeaders})
	expect(t, "over 1 MB", a, 413, adreswijzer.ErrPayloadTooLarge)
	if !strings.Contains(a.errorBody().Message, "1 MB") {
		t.Errorf("413 says %q", a.errorBody().Message)
	}
}

// GET and DELETE /mcp: the gateway asks for a credential first, as on POST, and refuses a
// foreign page before anything else; with a credential the worker answers 405. Every answer is
// one openapi.json declares.
func TestAgentOtherMethods(t *testing.T) {
	g := startGateway(t, gatewayConfig{upstream: upstream(t), extra: agentExtension(),
		keys: []keys.Options{{Name: "live", Kind: keys.Live, Account: "acct-methods"}}})
	for _, c := range []struct {
		name   string
		r      req
		status int
	}{
		{"GET without credential", req{method: http.MethodGet, path: "/mcp"}, 401},
		{"DELETE without credential", req{method: http.MethodDelete, path: "/mcp"}, 401},
		{"GET from a foreign page", req{method: http.MethodGet, path: "/mcp", origin: "https://evil.example"}, 403},
		{"GET with a key", req{method: http.MethodGet, path: "/mcp", key: "live"}, 405},
	} {
		if a := g.do(c.r); a.status != c.status {
			t.Errorf("%s: %d, want %d", c.name, a.status, c.status)
		}
	}
}

// The agent interface waits longer for the workers than a form does (a batch takes seconds),
// but not for ever; a call the workers did not answer is not counted. The stand-in worker,
// which the test can slow down, answers every /mcp call with an empty tool list.
func TestAgentSlowWorker(t *testing.T) {
	w := gatewaytest.NewWorker(t)
	g := startGateway(t, gatewayConfig{upstream: w.URL, extra: "agent_timeout 3s\n" + agentExtension(generous),
		keys: []keys.Options{{Name: "live", Kind: keys.Live, Account: "acct-slow"}}})
	call := func(n int) answer {
		body, h := rawToolCall(n, rpcinspect.ToolVerify, map[string]any{"address": fmt.Sprint(weespValid, " ", n)})
		return g.do(req{path: "/mcp", key: "live", body: body, headers: h})
	}
	// Slower than any form may wait, within the agent timeout: answered and counted.
	w.Delay(1500 * time.Millisecond)
	expect(t, "lookup from a form", g.do(req{path: nlLookup, key: "live"}), 503, adreswijzer.ErrServiceUnavailable)
	if a := call(1); a.status != 200 {
		t.Errorf("agent call taking 1.5 s: %d %s", a.status, a.body)
	}
	// Beyond it: the register is unavailable, said as a tool result the model reads, and the
	// call is not counted.
	w.Delay(4500 * time.Millisecond)
	a := call(2)
	refused(t, "hanging worker", a, 2, adreswijzer.ErrServiceUnavailable, false)
	if a.took < 3*time.Second || a.took > 4*time.Second {
		t.Errorf("503 after %v, want after the agent timeout of 3 s", a.took)
	}
	g.stableUsage("acct-slow", 1)
}

// Without an authorization server, /mcp's challenges point to no metadata (there is none: it
// could name no authorization server to sign in with), and say what RFC 6750 has them say: a
// refused key invalid_token, a key without the scope insufficient_scope with a 403. A body
// that is not JSON gets the JSON-RPC parse error.
func TestAgentChallenges(t *testing.T) {
	g := startGateway(t, gatewayConfig{upstream: upstream(t), extra: agentExtension(),
		keys: []keys.Options{{Name: "live", Kind: keys.Live, Account: "acct-challenges"},
			{Name: "noscope", Kind: keys.Live, Account: "acct-challenges", Scopes: []string{"billing:read"}}}})
	for _, c := range []struct {
		name   string
		r      req
		status int
		want   string
	}{
		{"no credential", req{path: "/mcp", body: toolsList, headers: mcpHeaders}, 401, `Bearer realm="adreswijzer", scope="address:verify"`},
		{"unknown key", req{path: "/mcp", auth: "Bearer aw_live_" + strings.Repeat("Q", 43), body: toolsList, headers: mcpHeaders}, 401,
			`Bearer realm="adreswijzer", error="invalid_token", scope="address:verify"`},
		{"key without the scope", req{path: "/mcp", key: "noscope", body: toolsList, headers: mcpHeaders}, 403,
			`Bearer realm="adreswijzer", error="insufficient_scope", scope="address:verify"`},
	} {
		a := g.do(c.r)
		if a.status != c.status || a.header.Get("WWW-Authenticate") != c.want {
			t.Errorf("%s: %d, challenge %q, want %d %q", c.name, a.status, a.header.Get("WWW-Authenticate"), c.status, c.want)
		}
	}
	expect(t, "metadata", g.do(req{path: "/.well-known/oauth-protected-resource/mcp"}), 404, adreswijzer.ErrNotFound)

	a := g.do(req{path: "/mcp", key: "live", body: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"`), headers: mcpHeaders})
	var m struct {
		ID    json.RawMessage `json:"id"`
		Error struct{ Code int }
	}
	if err := json.Unmarshal(a.body, &m); err != nil || a.status != 400 || string(m.ID) != "null" || m.Error.Code != -32700 {
		t.Errorf("malformed JSON: %d %s", a.status, a.body)
	}
}
