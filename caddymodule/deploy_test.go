package caddymodule_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/caddyconfig"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/gateway/gatewaytest"
	"github.com/adreswijzer/adreswijzer/gateway/keys"
	"github.com/adreswijzer/adreswijzer/gateway/mail/mailtest"
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
				for _, want := range []string{`"request\u003euri":{"filter":"regexp"`, `"request\u003eheaders\u003eAuthorization":{"filter":"delete"`,
					`"request\u003eheaders\u003eCookie":{"filter":"delete"`, `"resp_headers\u003eSet-Cookie":{"filter":"delete"`} {
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
		"127.0.0.1:8080":       fmt.Sprintf("127.0.0.1:%d", port),
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

	// The agent interface: the challenge names the metadata, the metadata names the
	// gateway's own authorization server, whose metadata is served, and the key works as
	// the bearer credential.
	metadataURL := g.base + "/.well-known/oauth-protected-resource/mcp"
	a = g.do(req{path: "/mcp", body: toolsList, headers: mcpHeaders})
	expect(t, "agent without key", a, 401, "UNAUTHORIZED")
	if want := `Bearer resource_metadata="` + metadataURL + `", scope="address:verify"`; a.header.Get("WWW-Authenticate") != want {
		t.Errorf("challenge %q, want %q", a.header.Get("WWW-Authenticate"), want)
	}
	a = g.do(req{path: "/.well-known/oauth-protected-resource/mcp"})
	var m map[string]any
	if err := json.Unmarshal(a.body, &m); a.status != 200 || err != nil || m["resource"] != g.base+"/mcp" ||
		fmt.Sprint(m["authorization_servers"]) != "["+g.base+"]" {
		t.Errorf("metadata: %d %s", a.status, a.body)
	}
	a = g.do(req{path: "/.well-known/oauth-authorization-server", noCheck: true})
	if err := json.Unmarshal(a.body, &m); a.status != 200 || err != nil || m["issuer"] != g.base || m["registration_endpoint"] != g.base+"/oauth/register" {
		t.Errorf("authorization server metadata: %d %s", a.status, a.body)
	}
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

// deploy/Caddyfile's dashboard block as shipped, in a gateway: it starts with its secrets
// from the environment, offers a code host only when that host's app is configured, sends
// GitHub the callback URL deploy/README.md tells operators to register, and QUOTA_EXCEEDED
// to the dashboard's plans page.
func TestDeployDashboard(t *testing.T) {
	block := globalBlock(t, string(readDeploy(t, "Caddyfile")), "extension dashboard {")
	t.Setenv("ADRESWIJZER_HOST", "api.example.test")
	const origin = "https://api.example.test"
	for _, c := range []struct {
		name           string
		github, gitlab bool
	}{
		{"no code host", false, false},
		{"GitHub", true, false},
		{"GitHub and GitLab", true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, v := range []string{"SMTP_USERNAME", "SMTP_PASSWORD", "GITHUB_CLIENT_ID", "GITHUB_CLIENT_SECRET", "GITLAB_CLIENT_ID", "GITLAB_CLIENT_SECRET"} {
				t.Setenv(v, "")
			}
			t.Setenv("SMTP_USERNAME", "noreply@example.test")
			t.Setenv("SMTP_PASSWORD", "smtp-password-from-env")
			if c.github {
				t.Setenv("GITHUB_CLIENT_ID", "Iv1.github-id")
				t.Setenv("GITHUB_CLIENT_SECRET", "github-secret-from-env")
			}
			if c.gitlab {
				t.Setenv("GITLAB_CLIENT_ID", "gitlab-id")
				t.Setenv("GITLAB_CLIENT_SECRET", "gitlab-secret-from-env")
			}
			g := startGateway(t, gatewayConfig{
				upstream: upstream(t),
				extra:    "plan starter 1\n" + block,
				keys:     []keys.Options{{Name: "live", Kind: keys.Live, Account: "acct-deploy", Plan: "starter"}},
			})
			p := g.person(t, nil)
			st, page := p.send("GET", "/dashboard/signin", nil)
			if st != 200 {
				t.Fatalf("sign-in page: %d", st)
			}
			for provider, offered := range map[string]bool{"github": c.github, "gitlab": c.gitlab} {
				if got := strings.Contains(page, `href="/dashboard/signin/`+provider+`"`); got != offered {
					t.Errorf("sign-in with %s offered: %v, want %v", provider, got, offered)
				}
			}
			if strings.Contains(page, "secret-from-env") {
				t.Error("the sign-in page shows a secret")
			}

			resp, err := p.c.Get(g.base + "/dashboard/signin/github")
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if !c.github {
				if resp.StatusCode != http.StatusNotFound {
					t.Errorf("GitHub sign-in without its app: %d, want 404", resp.StatusCode)
				}
			} else {
				loc := resp.Header.Get("Location")
				u, err := url.Parse(loc)
				if resp.StatusCode != http.StatusSeeOther || err != nil || u.Host != "github.com" || u.Path != "/login/oauth/authorize" {
					t.Fatalf("GitHub sign-in: %d to %q", resp.StatusCode, loc)
				}
				q := u.Query()
				if q.Get("client_id") != "Iv1.github-id" || q.Get("redirect_uri") != origin+"/dashboard/signin/github/callback" ||
					q.Get("code_challenge_method") != "S256" || q.Get("state") == "" || strings.Contains(loc, "secret-from-env") {
					t.Errorf("GitHub authorization request %s", loc)
				}
			}

			expect(t, "within the plan", g.do(req{path: nlLookup, key: "live"}), 200, "")
			a := g.do(req{path: nlLookup, key: "live"})
			expect(t, "over the plan", a, 429, adreswijzer.ErrQuotaExceeded)
			if u := a.errorBody().UpgradeURL; u != origin+"/dashboard/plans" {
				t.Errorf("upgradeUrl %q, want the dashboard's plans page", u)
			}
		})
	}
}

// deploy/Caddyfile's access log as shipped keeps the dashboard's secrets out: the sign-in
// link's token (in the query), the person's e-mail address, the session cookie both ways.
func TestDeployAccessLogDashboard(t *testing.T) {
	logBlock := globalBlock(t, string(readDeploy(t, "Caddyfile")), "log {")
	output := regexp.MustCompile(`output file \S+ \{[^}]*\}`)
	if !output.MatchString(logBlock) {
		t.Fatalf("the access log has no output file:\n%s", logBlock)
	}
	accessLog := filepath.Join(t.TempDir(), "access.log")
	m := mailtest.Start(t)
	g := startGateway(t, gatewayConfig{
		upstream: upstream(t),
		site:     output.ReplaceAllString(logBlock, "output file "+accessLog),
		extra: fmt.Sprintf(`extension dashboard {
				base_url http://127.0.0.1:{{port}}
				smtp %s %d {
					from "Adreswijzer <noreply@adreswijzer.test>"
					tls none
				}
			}`, m.SMTPHost, m.SMTPPort),
	})
	const email = "logwinkel@example.nl"
	p := g.person(t, m)
	p.signUp(email)
	token := regexp.MustCompile(`token=([A-Za-z0-9_-]+)`).FindStringSubmatch(m.Wait(t, email, 1).Text)
	if token == nil {
		t.Fatal("no token in the sign-in mail")
	}
	if st, _ := p.send("GET", "/dashboard/keys", nil); st != 200 {
		t.Fatalf("keys page after sign-in: %d", st)
	}
	base, _ := url.Parse(g.base)
	var cookie string
	for _, c := range p.c.Jar.Cookies(&url.URL{Scheme: "http", Host: base.Host, Path: "/dashboard/"}) {
		cookie = c.Value
	}
	if cookie == "" {
		t.Fatal("no session cookie")
	}

	var log string
	deadline := time.Now().Add(3 * time.Second)
	for {
		b, _ := os.ReadFile(accessLog)
		log = string(b)
		if strings.Contains(log, `"uri":"/dashboard/keys"`) || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.Contains(log, `"uri":"/dashboard/signin/link"`) || !strings.Contains(log, `"uri":"/dashboard/keys"`) {
		t.Fatalf("the access log lacks the dashboard's requests:\n%s", log)
	}
	for what, secret := range map[string]string{"the sign-in token": token[1], "the e-mail address": email,
		"the session cookie": cookie, "a Set-Cookie header": `"Set-Cookie":[`, "a Cookie header": `"Cookie":[`} {
		if strings.Contains(log, secret) {
			t.Errorf("the access log holds %s:\n%s", what, log)
		}
	}
}
