package caddymodule_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/gateway/mail/mailtest"
)

var (
	signInLinkRE = regexp.MustCompile(`http://\S+/dashboard/signin/link\?token=[A-Za-z0-9_%-]+`)
	keySecretRE  = regexp.MustCompile(`aw_(?:pk_)?(?:live|test)_[0-9A-Za-z]{43}`)
)

// person is someone using the dashboard of a running gateway with a browser's cookies.
type person struct {
	t    *testing.T
	g    *gw
	c    *http.Client
	mail *mailtest.Server
}

func (g *gw) person(t *testing.T, m *mailtest.Server) *person {
	jar, _ := cookiejar.New(nil)
	return &person{t: t, g: g, mail: m, c: &http.Client{Jar: jar, Timeout: 10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (p *person) send(method, path string, form url.Values) (int, string) {
	p.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	target := path
	if !strings.HasPrefix(path, "http") {
		target = p.g.base + path
	}
	r, _ := http.NewRequest(method, target, body)
	if form != nil {
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		r.Header.Set("Origin", p.g.base)
		r.Header.Set("Sec-Fetch-Site", "same-origin")
	}
	r.Header.Set("Accept-Language", "en")
	resp, err := p.c.Do(r)
	if err != nil {
		p.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func (p *person) signUp(email string) {
	p.t.Helper()
	if st, body := p.send("POST", "/dashboard/signin", url.Values{"email": {email}}); st != 200 {
		p.t.Fatalf("sign-in form: %d\n%s", st, body)
	}
	link := signInLinkRE.FindString(p.mail.Wait(p.t, email, 1).Text)
	if link == "" {
		p.t.Fatal("no link in the mail")
	}
	u, _ := url.Parse(link)
	if st, _ := p.send("GET", link, nil); st != 200 {
		p.t.Fatalf("link page: %d", st)
	}
	if st, body := p.send("POST", "/dashboard/signin/link", url.Values{"token": {u.Query().Get("token")}}); st != http.StatusSeeOther {
		p.t.Fatalf("sign in: %d\n%s", st, body)
	}
}

func (p *person) createKey(form url.Values) (id, secret string) {
	p.t.Helper()
	st, body := p.send("POST", "/dashboard/keys", form)
	secret = keySecretRE.FindString(body)
	m := regexp.MustCompile(`key_[0-9a-f]{16}`).FindString(body)
	if st != http.StatusCreated || secret == "" {
		p.t.Fatalf("create key: %d\n%s", st, body)
	}
	return m, secret
}

// The dashboard served by the gateway: a key made there works on the API at once, a
// revoked one stops within seconds, and QUOTA_EXCEEDED sends people to its plans page.
func TestDashboardThroughGateway(t *testing.T) {
	m := mailtest.Start(t)
	g := startGateway(t, gatewayConfig{
		upstream: upstream(t),
		extra: fmt.Sprintf(`plan starter 1
			default_plan starter
			extension dashboard {
				base_url http://127.0.0.1:{{port}}
				smtp %s %d {
					from "Adreswijzer <noreply@adreswijzer.test>"
					tls none
				}
				plan_contact mailto:sales@adreswijzer.test
			}`, m.SMTPHost, m.SMTPPort),
	})
	p := g.person(t, m)
	p.signUp("winkel@example.nl")
	_, secret := p.createKey(url.Values{"kind": {"live"}, "name": {"Backend"}})
	g.secrets["dash"] = secret
	expect(t, "lookup with the new key", g.do(req{path: nlLookup, key: "dash"}), 200, "")
	a := g.do(req{path: nlLookup, key: "dash"})
	expect(t, "over the starter plan", a, 429, adreswijzer.ErrQuotaExceeded)
	if u := a.errorBody().UpgradeURL; u != g.base+"/dashboard/plans" {
		t.Errorf("upgradeUrl %q", u)
	}
	if st, body := p.send("GET", g.base+"/dashboard/plans", nil); st != 200 || !strings.Contains(body, "starter") || !strings.Contains(body, "your plan") {
		t.Errorf("plans page: %d", st)
	}

	id, secret2 := p.createKey(url.Values{"kind": {"test"}})
	g.secrets["test"] = secret2
	expect(t, "test key", g.do(req{path: nlLookup, key: "test"}), 200, "")
	if st, _ := p.send("POST", "/dashboard/keys/"+id+"/revoke", url.Values{}); st != http.StatusSeeOther {
		t.Fatalf("revoke: %d", st)
	}
	deadline := time.Now().Add(3 * time.Second)
	for g.do(req{path: nlLookup, key: "test"}).status != 401 {
		if time.Now().After(deadline) {
			t.Fatal("revoked key still works after 3 s")
		}
		time.Sleep(100 * time.Millisecond)
	}
	// The usage page counts what the key did.
	deadline = time.Now().Add(3 * time.Second)
	for {
		_, body := p.send("GET", "/dashboard/usage", nil)
		if strings.Contains(body, "<th scope=\"row\">Lookup</th><td>2</td>") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("usage page does not count the two answered lookups:\n%s", body)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// Without the extension the gateway serves no dashboard: its paths are an API 404.
func TestNoDashboardWithoutExtension(t *testing.T) {
	g := startGateway(t, gatewayConfig{upstream: upstream(t)})
	for _, path := range []string{"/dashboard", "/dashboard/", "/dashboard/signin"} {
		expect(t, path, g.do(req{path: path}), 404, adreswijzer.ErrNotFound)
	}
}

// A dashboard served over https must have a mail server: its sign-in links must not go to
// a journal.
func TestDashboardHTTPSNeedsSMTP(t *testing.T) {
	cfg := `{
	admin off
}
http://127.0.0.1:1 {
	adreswijzer {
		key_file ` + t.TempDir() + `/keys.json
		extension dashboard {
			base_url https://api.example.nl
		}
	}
}`
	adapted, _, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(cfg), nil)
	if err != nil {
		t.Fatal(err)
	}
	var c caddy.Config
	if err := json.Unmarshal(adapted, &c); err != nil {
		t.Fatal(err)
	}
	if err := caddy.Validate(&c); err == nil || !strings.Contains(err.Error(), "smtp is required") {
		t.Errorf("https without smtp: %v", err)
	}
}
