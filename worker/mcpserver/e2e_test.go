package mcpserver

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/worker/httpapi"
	"github.com/adreswijzer/adreswijzer/worker/match"
)

// TestTypeScriptClient runs the official MCP TypeScript SDK client (e2e/client.mjs) against
// the worker's HTTP interface with the agent interface mounted at /mcp, as the worker serves
// it. It fails when node or the npm packages are missing (CI runs `npm ci` in e2e/ first),
// unless ADRESWIJZER_SKIP_NODE=1 says on purpose that this machine has no Node.
func TestTypeScriptClient(t *testing.T) {
	if os.Getenv("ADRESWIJZER_SKIP_NODE") == "1" {
		t.Skip("ADRESWIJZER_SKIP_NODE=1")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node not found: install Node.js 20 or set ADRESWIJZER_SKIP_NODE=1")
	}
	if _, err := os.Stat(filepath.Join("e2e", "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		t.Fatal("e2e/node_modules missing: run `npm ci` in worker/mcpserver/e2e, or set ADRESWIJZER_SKIP_NODE=1")
	}
	store := sampleData(t)
	engine := match.New(store, match.Options{})
	mcpHandler := NewHandler(engine, Options{Logger: quiet()})
	srv := httptest.NewServer(httpapi.New(engine, store, httpapi.Options{Logger: quiet(), MCP: mcpHandler}))
	defer srv.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "client.mjs", srv.URL+"/mcp")
	cmd.Dir = "e2e"
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node client.mjs: %v\n%s", err, stderr.String())
	}
	var got struct {
		ProtocolVersion string `json:"protocolVersion"`
		Server          struct{ Name, Version string }
		Instructions    string
		Tools           []struct {
			Name   string
			Input  map[string]any
			Output map[string]any
		}
		Result struct {
			IsError           bool `json:"isError"`
			StructuredContent VerifyOutput
			Content           []struct{ Type, Text string }
		}
		Refused struct {
			IsError bool `json:"isError"`
			Content []struct{ Type, Text string }
		}
		Second struct {
			IsError           bool `json:"isError"`
			StructuredContent adreswijzer.LookupResponse
		}
		Third struct {
			IsError           bool `json:"isError"`
			StructuredContent VerifyOutput
		}
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("client output: %v\n%s", err, out)
	}
	if got.ProtocolVersion == "" || !strings.HasPrefix(got.ProtocolVersion, "2025-") && got.ProtocolVersion != "2026-07-28" {
		t.Errorf("negotiated protocol version %q", got.ProtocolVersion)
	}
	if got.Server.Name != "adreswijzer" || !strings.Contains(got.Instructions, "Fail open") {
		t.Errorf("server %+v, instructions %q", got.Server, got.Instructions)
	}
	t.Logf("negotiated %s", got.ProtocolVersion)
	var names []string
	for _, tool := range got.Tools {
		names = append(names, tool.Name)
		if tool.Input["type"] != "object" {
			t.Errorf("%s: input schema %v", tool.Name, tool.Input)
		}
	}
	if strings.Join(names, ",") != "list_supported_countries,lookup_address,suggest_address,verify_address,verify_addresses_batch" {
		t.Errorf("tools %v", names)
	}
	r := got.Result
	if r.IsError || r.StructuredContent.Status != "valid" || r.StructuredContent.CountryCode == nil || *r.StructuredContent.CountryCode != "NL" ||
		r.StructuredContent.Meta.Source == nil || *r.StructuredContent.Meta.Source != match.SourceBAG || r.StructuredContent.Meta.Language != "en" {
		t.Errorf("verify_address result %+v", r)
	}
	if len(r.Content) == 0 || !strings.Contains(r.Content[0].Text, `"status":"valid"`) {
		t.Errorf("text content for clients without structured content: %+v", r.Content)
	}
	if !got.Refused.IsError || len(got.Refused.Content) == 0 || !strings.Contains(got.Refused.Content[0].Text, "at most 100") {
		t.Errorf("batch of 101: %+v", got.Refused)
	}
	if s := got.Second; s.IsError || len(s.StructuredContent.Addresses) != 2 {
		t.Errorf("lookup_address: %+v", s)
	}
	if s := got.Third; s.IsError || s.StructuredContent.Status != adreswijzer.VerdictValid {
		t.Errorf("second verify_address: %+v", s)
	}
}
