package caddymodule_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/gateway/agentpolicy/rpcinspect"
	"github.com/adreswijzer/adreswijzer/gateway/keys"
	"github.com/adreswijzer/adreswijzer/worker/mcpserver"
)

// The agent interface through the gateway, in front of the real worker, driven by the MCP
// Go SDK's client as agent hosts drive it. Every exchange goes through the openapi.json
// check.

// agentExtension is the extension block of a gateway with the agent interface; lines go
// inside it.
func agentExtension(lines ...string) string {
	return "extension agent {\n\t\t\t\tresource http://127.0.0.1:{{port}}/mcp\n\t\t\t\t" +
		strings.Join(lines, "\n\t\t\t\t") + "\n\t\t\t}"
}

// generous lets the tool tests call freely; the limits have tests of their own.
const generous = "rate 6000/m burst 1000"

// bearerTransport sends a credential with every request, as an agent host configured with
// an API key or holding an access token does.
type bearerTransport struct {
	credential string
	base       http.RoundTripper
}

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.credential)
	return b.base.RoundTrip(r)
}

// connectAgent opens an MCP session through the gateway with the credential, at the
// protocol revision. The exchanges are checked against openapi.json.
func (g *gw) connectAgent(t *testing.T, credential, version string) *mcp.ClientSession {
	t.Helper()
	hc := &http.Client{Timeout: 30 * time.Second,
		Transport: g.v.RoundTripper(t, bearerTransport{credential: credential, base: http.DefaultTransport})}
	client := mcp.NewClient(&mcp.Implementation{Name: "adreswijzer-gateway-test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: g.base + "/mcp", HTTPClient: hc, MaxRetries: -1},
		&mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect at %s: %v", version, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// callTool calls a tool and decodes its structured result into out (when not nil and the
// call succeeded). It fails the test on a protocol error and returns the result.
func callTool(t *testing.T, cs *mcp.ClientSession, tool string, args, out any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	toolSchemas(t).Check(t, tool, res)
	if res.IsError || out == nil {
		return res
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("%s: structured content: %v", tool, err)
	}
	return res
}

// toolText is the text of a result; the model reads it.
func toolText(res *mcp.CallToolResult) string {
	if len(res.Content) == 0 {
		return ""
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); ok {
		return tc.Text
	}
	return ""
}

// mustVerify calls verify_address and wants a result, not a tool error.
func mustVerify(t *testing.T, cs *mcp.ClientSession, args map[string]any) mcpserver.VerifyOutput {
	t.Helper()
	var out mcpserver.VerifyOutput
	if res := callTool(t, cs, rpcinspect.ToolVerify, args, &out); res.IsError {
		t.Fatalf("verify_address: tool error %q", toolText(res))
	}
	return out
}

// batchOf makes verify_addresses_batch arguments: n addresses from addrs in turn, with ids
// that say their position.
func batchOf(n int, addrs ...string) map[string]any {
	items := make([]any, n)
	for i := range items {
		items[i] = map[string]any{"id": fmt.Sprintf("order-%03d", i+1), "address": addrs[i%len(addrs)]}
	}
	return map[string]any{"addresses": items}
}

// Real sample addresses and what the registers say about them.
var (
	weespAmbiguous = "Hugo de Grootlaan 16, 1381 CS Weesp" // ben or bov
	weespValid     = "Hugo de Grootlaan 16 ben, 1381 CS Weesp"
	weespUnknown   = "Hugo de Grootlaan 999, 1381 CS Weesp"
	harenNL        = "Harenheidestraat 67, 1130 Haren"
	harenFR        = "Rue Harenheyde 67, 1130 Haren"
	lembeekBox     = "Stevens-de Waelplein 9 bus 01, 1502 Lembeek"
	malmedy        = "Place Albert Ier 23, 4960 Malmedy"
)

// All five tools on real addresses, at a 2025-era revision (initialize) and the stateless
// revision, with an API key as the bearer credential; and what they count.
func TestAgentTools(t *testing.T) {
	versions := []string{"2025-06-18", "2026-07-28"}
	var ks []keys.Options
	for _, v := range versions {
		ks = append(ks, keys.Options{Name: v, Kind: keys.Live, Account: "acct-tools-" + v})
	}
	g := startGateway(t, gatewayConfig{upstream: upstream(t), keys: ks, extra: agentExtension(generous)})
	for _, version := range versions {
		t.Run(version, func(t *testing.T) {
			cs := g.connectAgent(t, g.secrets[version], version)
			if got := cs.InitializeResult().ProtocolVersion; got != version {
				t.Errorf("negotiated %s, want %s", got, version)
			}
			lt, err := cs.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tool := range lt.Tools {
				names = append(names, tool.Name)
			}
			slices.Sort(names)
			want := []string{rpcinspect.ToolListCountries, rpcinspect.ToolLookup, rpcinspect.ToolSuggest, rpcinspect.ToolVerify, rpcinspect.ToolVerifyBatch}
			if !slices.Equal(names, want) {
				t.Errorf("tools %v, want %v", names, want)
			}

			var countries mcpserver.CountriesOutput
			callTool(t, cs, rpcinspect.ToolListCountries, map[string]any{}, &countries)
			if len(countries.Countries) != 2 || !countries.Countries[0].Available || !countries.Countries[1].Available {
				t.Errorf("countries %+v", countries)
			}

			// Weesp: the number has two homes; with the addition it is one.
			if out := mustVerify(t, cs, map[string]any{"address": weespAmbiguous, "lang": "en"}); out.Status != adreswijzer.VerdictAmbiguous || len(out.Suggestions) != 2 {
				t.Errorf("%s: %s with %d suggestions", weespAmbiguous, out.Status, len(out.Suggestions))
			}
			out := mustVerify(t, cs, map[string]any{"address": weespValid})
			if out.Status != adreswijzer.VerdictValid || out.Match == nil || out.Match.Unit == nil || *out.Match.Unit != "ben" ||
				out.Meta.DatasetVersion == nil || !strings.HasPrefix(*out.Meta.DatasetVersion, "bag:") {
				t.Errorf("%s: %+v", weespValid, out)
			}
			var lookup adreswijzer.LookupResponse
			callTool(t, cs, rpcinspect.ToolLookup, map[string]any{"country": "NL", "postcode": "1381 CS", "houseNumber": 16}, &lookup)
			if len(lookup.Addresses) != 2 || len(lookup.Additions) != 2 || *lookup.Additions[0] != "ben" || *lookup.Additions[1] != "bov" {
				t.Errorf("lookup 1381 CS 16: %d addresses, additions %v", len(lookup.Addresses), lookup.Additions)
			}
			var sug mcpserver.SuggestOutput
			callTool(t, cs, rpcinspect.ToolSuggest, map[string]any{"country": "NL", "query": "Hugo de Grootlaan 16"}, &sug)
			if len(sug.Suggestions) == 0 || !strings.Contains(sug.Suggestions[0].Label, "Hugo de Grootlaan") {
				t.Errorf("suggest: %+v", sug.Suggestions)
			}

			// Haren (Brussels): the same address in Dutch and in French.
			nl := mustVerify(t, cs, map[string]any{"address": harenNL, "lang": "nl"})
			fr := mustVerify(t, cs, map[string]any{"address": harenFR, "lang": "fr"})
			if nl.Status != adreswijzer.VerdictValid || fr.Status != adreswijzer.VerdictValid ||
				nl.Normalized.Address1 != "Harenheidestraat 67" || fr.Normalized.Address1 != "Rue Harenheyde 67" ||
				fr.Meta.Language != adreswijzer.LangFR || fr.Meta.Attribution == nil {
				t.Errorf("Haren: nl %+v, fr %+v", nl.Normalized, fr.Normalized)
			}
			// Lembeek: a number with boxes, and one of them.
			callTool(t, cs, rpcinspect.ToolLookup, map[string]any{"country": "BE", "postcode": "1502", "street": "Stevens-de Waelplein", "houseNumber": 9}, &lookup)
			if len(lookup.Addresses) < 2 || !slices.ContainsFunc(lookup.Additions, func(a *string) bool { return a != nil && *a == "bus 1" }) {
				t.Errorf("Lembeek lookup: additions %s", jsonOf(lookup.Additions))
			}
			if box := mustVerify(t, cs, map[string]any{"address": lembeekBox}); box.Status != adreswijzer.VerdictValid || box.Match == nil ||
				box.Match.Unit == nil || *box.Match.Unit != "01" {
				t.Errorf("%s: %+v", lembeekBox, box)
			}
			// Malmedy (Wallonia).
			if m := mustVerify(t, cs, map[string]any{"address": malmedy}); m.Status != adreswijzer.VerdictValid || *m.CountryCode != "BE" {
				t.Errorf("%s: %+v", malmedy, m)
			}

			// A batch of 30 comes back in its order.
			addrs := []string{weespValid, harenNL, malmedy, weespUnknown, lembeekBox}
			status := []string{"valid", "valid", "valid", "invalid", "valid"}
			var batch mcpserver.BatchOutput
			if res := callTool(t, cs, rpcinspect.ToolVerifyBatch, batchOf(30, addrs...), &batch); res.IsError {
				t.Fatalf("batch: %s", toolText(res))
			}
			if len(batch.Results) != 30 {
				t.Fatalf("batch of 30: %d results", len(batch.Results))
			}
			for i, r := range batch.Results {
				if r.ID != fmt.Sprintf("order-%03d", i+1) || r.Status != status[i%len(status)] {
					t.Errorf("batch result %d: %s %s, want order-%03d %s", i, r.ID, r.Status, i+1, status[i%len(status)])
				}
			}

			// A call the tool refuses (a house number below 1) is not counted.
			if res := callTool(t, cs, rpcinspect.ToolLookup, map[string]any{"country": "NL", "postcode": "1381 CS", "houseNumber": 0}, nil); !res.IsError {
				t.Error("house number 0 accepted")
			}

			// Counted: 6 verify calls, 2 lookups, the first suggestion of the month and the
			// batch's 30 addresses; not the free list_supported_countries or the refused call.
			g.waitUsageFor(t, "acct-tools-"+version, 6+2+1+30)
		})
	}
}

// A batch counts its items against the agent limits and as verifications.
func TestAgentBatchCounting(t *testing.T) {
	g := startGateway(t, gatewayConfig{upstream: upstream(t),
		keys: []keys.Options{{Name: "live", Kind: keys.Live, Account: "acct-batch"}},
		// No refill within the test: only the burst is there to spend.
		extra: agentExtension("rate 1/h burst 40")})
	cs := g.connectAgent(t, g.secrets["live"], "2025-06-18")
	var batch mcpserver.BatchOutput
	if res := callTool(t, cs, rpcinspect.ToolVerifyBatch, batchOf(30, weespValid, harenNL, malmedy), &batch); res.IsError || len(batch.Results) != 30 {
		t.Fatalf("batch of 30: %s", toolText(res))
	}
	// 30 of the 40 are spent: ten single calls fit, the eleventh does not.
	for i := range 10 {
		mustVerify(t, cs, map[string]any{"address": weespValid, "lang": []string{"nl", "en", "fr", "de"}[i%4], "carrier": []string{"postnl", "dhl", "sendcloud"}[i%3]})
	}
	res := callTool(t, cs, rpcinspect.ToolVerify, map[string]any{"address": harenNL}, nil)
	if !res.IsError || !strings.Contains(toolText(res), "too many tool calls") || !strings.Contains(toolText(res), "a batch counts each of its addresses") {
		t.Errorf("41st address: %q", toolText(res))
	}
	// The free tool still answers.
	if res := callTool(t, cs, rpcinspect.ToolListCountries, map[string]any{}, nil); res.IsError {
		t.Errorf("list_supported_countries refused: %s", toolText(res))
	}
	g.stableUsage("acct-batch", 40)
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// The official MCP TypeScript SDK's client (worker/mcpserver/e2e/client.mjs) through the
// gateway, with an API key, as an agent host built on it connects. A validating proxy in
// front of the gateway checks its exchanges against openapi.json. It fails when node or the
// npm packages are missing (CI runs `npm ci` in worker/mcpserver/e2e first), unless
// ADRESWIJZER_SKIP_NODE=1 says on purpose that this machine has no Node.
func TestAgentTypeScriptClient(t *testing.T) {
	if os.Getenv("ADRESWIJZER_SKIP_NODE") == "1" {
		t.Skip("ADRESWIJZER_SKIP_NODE=1")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node not found: install Node.js 20 or set ADRESWIJZER_SKIP_NODE=1")
	}
	e2e := filepath.Join("..", "worker", "mcpserver", "e2e")
	if _, err := os.Stat(filepath.Join(e2e, "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		t.Fatal("worker/mcpserver/e2e/node_modules missing: run `npm ci` there, or set ADRESWIJZER_SKIP_NODE=1")
	}
	// A plan of two verifications: the client's third meets the quota.
	g := startGateway(t, gatewayConfig{upstream: upstream(t), extra: "plan two 2\n\t\t\t" + agentExtension(),
		keys: []keys.Options{{Name: "live", Kind: keys.Live, Account: "acct-typescript", Plan: "two"}}})
	target, _ := url.Parse(g.base)
	proxy := httptest.NewServer(&httputil.ReverseProxy{
		Rewrite:   func(r *httputil.ProxyRequest) { r.SetURL(target) },
		Transport: g.v.RoundTripper(t, nil),
	})
	defer proxy.Close()

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "client.mjs", proxy.URL+"/mcp")
	cmd.Dir = e2e
	cmd.Env = append(os.Environ(), "ADRESWIJZER_BEARER="+g.secrets["live"])
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node client.mjs: %v\n%s", err, stderr.String())
	}
	var got struct {
		ProtocolVersion string `json:"protocolVersion"`
		Server          struct{ Name string }
		Tools           []struct{ Name string }
		Result          struct {
			IsError           bool `json:"isError"`
			StructuredContent mcpserver.VerifyOutput
		}
		Refused struct {
			IsError bool `json:"isError"`
			Content []struct{ Type, Text string }
		}
		Second struct {
			IsError bool `json:"isError"`
		}
		Third struct {
			IsError           bool `json:"isError"`
			StructuredContent rpcinspect.ToolError
		}
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("client output: %v\n%s", err, out)
	}
	t.Logf("the TypeScript client negotiated %s", got.ProtocolVersion)
	if !strings.HasPrefix(got.ProtocolVersion, "2025-") && got.ProtocolVersion != "2026-07-28" || got.Server.Name != "adreswijzer" {
		t.Errorf("protocol %q, server %+v", got.ProtocolVersion, got.Server)
	}
	var names []string
	for _, tool := range got.Tools {
		names = append(names, tool.Name)
	}
	if strings.Join(names, ",") != "list_supported_countries,lookup_address,suggest_address,verify_address,verify_addresses_batch" {
		t.Errorf("tools %v", names)
	}
	if r := got.Result; r.IsError || r.StructuredContent.Status != adreswijzer.VerdictValid || r.StructuredContent.Meta.Language != adreswijzer.LangEN {
		t.Errorf("verify_address: %+v", r)
	}
	if !got.Refused.IsError || len(got.Refused.Content) == 0 || !strings.Contains(got.Refused.Content[0].Text, "at most 100") {
		t.Errorf("batch of 101: %+v", got.Refused)
	}
	// Over the quota: a tool result the SDK handed over (its structured content passed the
	// SDK's check against the output schema), not a thrown error.
	if got.Second.IsError {
		t.Error("lookup_address within the quota refused")
	}
	if e := got.Third.StructuredContent.Error; !got.Third.IsError || e.Code != adreswijzer.ErrQuotaExceeded || !e.AcceptAsTyped || e.UpgradeURL == "" {
		t.Errorf("verify_address over the quota: %+v", got.Third)
	}
	// The verification and the lookup count; the batch the tool refused and the call over the
	// quota do not.
	g.stableUsage("acct-typescript", 2)
}
