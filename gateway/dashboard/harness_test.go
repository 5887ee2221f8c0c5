package dashboard

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/alexedwards/scs/v2/memstore"

	"github.com/adreswijzer/adreswijzer/gateway/accounts"
	"github.com/adreswijzer/adreswijzer/gateway/authserver"
	"github.com/adreswijzer/adreswijzer/gateway/codehost"
	"github.com/adreswijzer/adreswijzer/gateway/codehost/codehosttest"
	"github.com/adreswijzer/adreswijzer/gateway/keys"
	"github.com/adreswijzer/adreswijzer/gateway/limit"
	"github.com/adreswijzer/adreswijzer/gateway/mail"
	"github.com/adreswijzer/adreswijzer/gateway/mail/mailtest"
	"github.com/adreswijzer/adreswijzer/gateway/usage"
	"github.com/adreswijzer/adreswijzer/internal/logsink"
)

// harness is a dashboard on the embedded default's real stores (files, memory sessions),
// a real SMTP server (Mailpit) and local GitHub and GitLab servers.
type harness struct {
	t        *testing.T
	srv      *httptest.Server
	dash     *Dashboard
	accounts accounts.Store
	keys     keys.Store
	meter    *usage.Meter
	sink     *usage.FileSink
	mail     *mailtest.Server
	github   *codehosttest.GitHub
	gitlab   *codehosttest.GitLab
	logs     *logsink.Buffer
	clock    *clock
	// as is the agents' authorization server, served beside the dashboard as the gateway
	// serves it.
	as *authserver.Server
}

// clock is a settable time, for links that expire.
type clock struct {
	mu  sync.Mutex
	off time.Duration
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.off)
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.off += d
	c.mu.Unlock()
}

// Users of the local code hosts.
var (
	ghAnna      = codehosttest.VerifiedUser(101, "anna", "anna@example.nl")
	ghUnchecked = codehosttest.GitHubUser{ID: 102, Login: "bo", Name: "Bo",
		Emails: []codehosttest.GitHubEmail{{Email: "bo@example.nl", Primary: true, Verified: false}}}
	glCees = codehosttest.GitLabUser{Subject: "7", Email: "cees@example.be", EmailVerified: true, Name: "Cees", Username: "cees"}
)

func newHarness(t *testing.T) *harness {
	t.Helper()
	dir := t.TempDir()
	h := &harness{t: t, mail: mailtest.Start(t), logs: &logsink.Buffer{}, clock: &clock{}}
	var err error
	if h.accounts, err = accounts.OpenFile(filepath.Join(dir, "accounts.json")); err != nil {
		t.Fatal(err)
	}
	if h.keys, err = keys.OpenFile(filepath.Join(dir, "keys.json")); err != nil {
		t.Fatal(err)
	}
	if h.sink, err = usage.OpenFile(filepath.Join(dir, "usage.json")); err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(h.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	if h.meter, err = usage.NewMeter(usage.Config{Sink: h.sink, FlushEvery: 10 * time.Millisecond, Log: log}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.meter.Close() })
	sender, err := mail.NewSMTP(mail.SMTPConfig{Host: h.mail.SMTPHost, Port: h.mail.SMTPPort, TLS: "none", From: "Adreswijzer <noreply@adreswijzer.test>"})
	if err != nil {
		t.Fatal(err)
	}
	h.github = codehosttest.NewGitHub(t, ghAnna, ghUnchecked)
	h.gitlab = codehosttest.NewGitLab(t, glCees)
	gh, err := codehost.NewGitHub(h.github.Config())
	if err != nil {
		t.Fatal(err)
	}
	glc := h.gitlab.Config()
	glc.RetryDiscovery = time.Millisecond
	gl, err := codehost.NewGitLab(glc)
	if err != nil {
		t.Fatal(err)
	}
	mem := memstore.New()
	t.Cleanup(mem.StopCleanup)

	var handler http.Handler
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { handler.ServeHTTP(w, r) }))
	t.Cleanup(h.srv.Close)
	oauthStore, err := authserver.OpenFile(filepath.Join(dir, "oauth.json"))
	if err != nil {
		t.Fatal(err)
	}
	h.as, err = authserver.New(authserver.Config{Issuer: h.srv.URL, Resource: h.srv.URL + "/mcp", ConsentURL: h.srv.URL + ConsentPath,
		Store: oauthStore, Accounts: h.accounts, Limiter: limit.NewLocal(1024), Log: log, Now: h.clock.now})
	if err != nil {
		t.Fatal(err)
	}
	h.dash, err = New(Config{
		BaseURL: h.srv.URL, Accounts: h.accounts, Keys: h.keys, Usage: h.sink, Daily: h.meter,
		Limiter: limit.NewLocal(1024), Mail: sender, Providers: []Provider{gh, gl}, Sessions: mem,
		Plans: []Plan{{"free", 2500}, {"business", 50000}, {"enterprise", -1}}, DefaultPlan: "free",
		TestDailyCap: 100, PlanContact: "mailto:sales@adreswijzer.test", Log: log, Now: h.clock.now, OAuth: h.as,
	})
	if err != nil {
		t.Fatal(err)
	}
	handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if authserver.Owns(r.URL.Path) {
			h.as.ServeHTTP(w, r)
			return
		}
		h.dash.ServeHTTP(w, r)
	})
	return h
}

// browser is one person's browser: cookies kept, redirects not followed (the tests look at
// them), and the headers browsers send with a same-origin form.
type browser struct {
	h    *harness
	c    *http.Client
	lang string
}

func (h *harness) browser() *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{h: h, lang: "en", c: &http.Client{Jar: jar, Timeout: 20 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// page is an answer.
type page struct {
	status   int
	location string
	body     string
	header   http.Header
}

func (b *browser) do(method, path string, form url.Values, hdr map[string]string) page {
	b.h.t.Helper()
	target := path
	if !strings.HasPrefix(path, "http") {
		target = b.h.srv.URL + path
	}
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequestWithContext(context.Background(), method, target, body)
	if err != nil {
		b.h.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	req.Header.Set("Accept-Language", b.lang)
	if method == http.MethodPost {
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		req.Header.Set("Origin", b.h.srv.URL)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := b.c.Do(req)
	if err != nil {
		b.h.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return page{status: resp.StatusCode, location: resp.Header.Get("Location"), body: string(raw), header: resp.Header}
}

func (b *browser) get(path string) page { return b.do(http.MethodGet, path, nil, nil) }

func (b *browser) post(path string, form url.Values) page {
	return b.do(http.MethodPost, path, form, nil)
}

var linkRE = regexp.MustCompile(`https?://\S+/dashboard/signin/link\?token=[A-Za-z0-9_%-]+`)

// signUp signs in by e-mail as a person does: the form, the mail, the link, the button.
func (b *browser) signUp(email string) {
	b.h.t.Helper()
	before := len(b.h.mails(email))
	if p := b.post("/dashboard/signin", url.Values{"email": {email}}); p.status != http.StatusOK {
		b.h.t.Fatalf("sign-in form: %d\n%s", p.status, p.body)
	}
	m := b.h.mail.Wait(b.h.t, email, before+1)
	b.useLink(b.h.linkIn(m.Text))
}

// useLink opens a sign-in link and presses its button.
func (b *browser) useLink(link string) page {
	b.h.t.Helper()
	p := b.get(link)
	if p.status != http.StatusOK || !strings.Contains(p.body, `name="token"`) {
		b.h.t.Fatalf("link page: %d\n%s", p.status, p.body)
	}
	u, _ := url.Parse(link)
	return b.post("/dashboard/signin/link", url.Values{"token": {u.Query().Get("token")}})
}

func (h *harness) mails(to string) []mailtest.Message {
	list, err := h.mail.Messages(context.Background(), to)
	if err != nil {
		h.t.Fatal(err)
	}
	return list
}

func (h *harness) linkIn(text string) string {
	h.t.Helper()
	l := linkRE.FindString(text)
	if l == "" {
		h.t.Fatalf("no sign-in link in the mail:\n%s", text)
	}
	return l
}

func (b *browser) mustSignedIn() page {
	b.h.t.Helper()
	p := b.get("/dashboard/")
	if p.status != http.StatusOK {
		b.h.t.Fatalf("not signed in: %d %s", p.status, p.location)
	}
	return p
}

func (b *browser) mustSignedOut() {
	b.h.t.Helper()
	if p := b.get("/dashboard/"); p.status != http.StatusSeeOther || p.location != "/dashboard/signin" {
		b.h.t.Fatalf("signed in: %d %s", p.status, p.location)
	}
}

func (b *browser) cookie() string {
	u, _ := url.Parse(b.h.srv.URL + Prefix + "/")
	for _, c := range b.c.Jar.Cookies(u) {
		if c.Name == "aw_dashboard" {
			return c.Value
		}
	}
	return ""
}
