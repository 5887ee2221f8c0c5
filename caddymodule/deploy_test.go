package caddymodule_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/caddyconfig"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/gateway/gatewaytest"
	"github.com/adreswijzer/adreswijzer/gateway/keys"
)

func readDeploy(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "deploy", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func adapt(t *testing.T, body []byte) map[string]any {
	t.Helper()
	out, _, err := caddyconfig.GetAdapter("caddyfile").Adapt(body, map[string]any{"filename": "Caddyfile"})
	if err != nil {
		t.Fatalf("adapt: %v", err)
	}
	var cfg map[string]any
	if err := json.Unmarshal(out, &cfg); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// Both shipped Caddyfiles adapt, with our handler in them, and their logs keep query
// strings and credentials out.
func TestDeployCaddyfilesAdapt(t *testing.T) {
	for _, name := range []string{"Caddyfile", "Caddyfile.local"} {
		t.Run(name, func(t *testing.T) {
			src := readDeploy(t, name)
			cfg := adapt(t, src)
			js, _ := json.Marshal(cfg)
			if !bytes.Contains(js, []byte(`"handler":"adreswijzer"`)) {
				t.Error("no adreswijzer handler")
			}
			if !bytes.Contains(js, []byte(`"delete":["Authorization"`)) {
				t.Error("the proxy does not drop Authorization")
			}
			logs, _ := cfg["logging"].(map[string]any)
			if logs != nil {
				for _, l := range logs["logs"].(map[string]any) {
					if lvl, _ := l.(map[string]any)["level"].(string); strings.EqualFold(lvl, "DEBUG") {
						t.Error("a DEBUG log would carry request URIs")
					}
				}
			}
			if bytes.Contains(js, []byte(`"encoder":`)) { // an access log exists: it must be filtered
				for _, want := range []string{`"request\u003euri":{"filter":"regexp"`, `"request\u003eheaders\u003eAuthorization":{"filter":"delete"`} {
					if !bytes.Contains(js, []byte(want)) {
						t.Errorf("access log lacks the filter %s", want)
					}
				}
			}
		})
	}
}

// deploy/Caddyfile.local as shipped, with only its addresses and directories moved, runs
// end to end: keys from its key file, a lookup through the worker, the widget's files, and
// the agent interface with API keys only.
func TestCaddyfileLocal(t *testing.T) {
	up, err := url.Parse(upstream(t))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	widget := filepath.Join(dir, "widget")
	if err := os.MkdirAll(widget, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(widget, "adreswijzer-form.js"), []byte("export {};\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("ADRESWIJZER_WIDGET_DIR", widget)
	store, err := keys.OpenFile(filepath.Join(dir, "var", "keys.json"))
	if err != nil {
		t.Fatal(err)
	}
	k, secret, err := keys.New(keys.Options{Kind: keys.Test, Account: "dev"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Create(context.Background(), k); err != nil {
		t.Fatal(err)
	}

	port := gatewaytest.FreePort(t)
	src := string(readDeploy(t, "Caddyfile.local"))
	for old, repl := range map[string]string{
		"admin 127.0.0.1:2019": "admin off",
		"http://:8080":         fmt.Sprintf("http://:%d", port),
		"127.0.0.1:8080/mcp":   fmt.Sprintf("127.0.0.1:%d/mcp", port),
		"127.0.0.1:8081":       up.Host,
		"./var/":               filepath.Join(dir, "var") + "/",
	} {
		if !strings.Contains(src, old) {
			t.Fatalf("Caddyfile.local no longer has %q", old)
		}
		src = strings.ReplaceAll(src, old, repl)
	}
	loadCaddyfile(t, src)
	waitListening(t, port)
	g := &gw{t: t, base: fmt.Sprintf("http://127.0.0.1:%d", port), dir: dir, secrets: map[string]string{"dev": secret},
		v: newValidator(t), client: newClient()}
	expect(t, "lookup", g.do(req{path: nlLookup, key: "dev"}), 200, "")
	expect(t, "health", g.do(req{path: "/health"}), 200, "")
	a := g.do(req{path: "/widget/adreswijzer-form.js", noCheck: true})
	if a.status != 200 || string(a.body) != "export {};\n" || a.header.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("widget file: %d %q, allow origin %q", a.status, a.body, a.header.Get("Access-Control-Allow-Origin"))
	}
	expect(t, "no key", g.do(req{path: nlLookup}), 401, "UNAUTHORIZED")
	if _, err := os.Stat(filepath.Join(dir, "var", "keys.json")); err != nil {
		t.Error(err)
	}

	// The agent interface without an authorization server: the challenge points to no
	// metadata and there is none (it could name no authorization server to sign in with), and
	// the key works as the bearer credential.
	a = g.do(req{path: "/mcp", body: toolsList, headers: mcpHeaders})
	expect(t, "agent without key", a, 401, "UNAUTHORIZED")
	if want := `Bearer realm="adreswijzer", scope="address:verify"`; a.header.Get("WWW-Authenticate") != want {
		t.Errorf("challenge %q, want %q", a.header.Get("WWW-Authenticate"), want)
	}
	expect(t, "metadata", g.do(req{path: "/.well-known/oauth-protected-resource/mcp"}), 404, "NOT_FOUND")
	cs := g.connectAgent(t, secret, "2026-07-28")
	if out := mustVerify(t, cs, map[string]any{"address": weespValid}); out.Status != adreswijzer.VerdictValid {
		t.Errorf("agent through Caddyfile.local: %s", out.Status)
	}
}

// globalBlock returns the block of deploy/Caddyfile's global options that opens with opener
// (e.g. "servers {"), as written.
func globalBlock(t *testing.T, src, opener string) string {
	t.Helper()
	i := strings.Index(src, "\t"+opener+"\n")
	if i < 0 {
		t.Fatalf("no block %q", opener)
	}
	depth := 0
	for j := i; j < len(src); j++ {
		switch src[j] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return src[i : j+1]
			}
		}
	}
	t.Fatalf("block %q not closed", opener)
	return ""
}

// deploy/Caddyfile's trust in the load balancer's X-Forwarded-For, as shipped: the client is
// the address the load balancer appended (the first untrusted one from the right), not one
// the client wrote at the left, so a publishable key's limit per client address holds
// against a client that sends its own X-Forwarded-For.
func TestDeployClientAddress(t *testing.T) {
	g := startGateway(t, gatewayConfig{
		upstream: upstream(t),
		global:   globalBlock(t, string(readDeploy(t, "Caddyfile")), "servers {"),
		extra:    "limit pk_live 1/m burst 2",
		keys:     []keys.Options{{Name: "pk", Kind: keys.PKLive, Account: "acct-xff", Origins: []string{shop}}},
	})
	call := func(forwarded string) answer {
		return g.do(req{path: nlLookup + "&sessionId=xff", key: "pk", origin: shop,
			headers: map[string]string{"X-Forwarded-For": forwarded}})
	}
	for i := range 2 {
		expect(t, "within the burst", call(fmt.Sprintf("198.51.100.%d, 203.0.113.9", i)), 200, "")
	}
	expect(t, "a new address written by the client", call("198.51.100.7, 203.0.113.9"), 429, adreswijzer.ErrRateLimited)
	expect(t, "another client of the load balancer", call("198.51.100.8, 203.0.113.10"), 200, "")
}
