package dashboard

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/adreswijzer/adreswijzer/gateway/accounts"
	"github.com/adreswijzer/adreswijzer/gateway/codehost/codehosttest"
)

func TestEmailSignUpAndSignIn(t *testing.T) {
	h := newHarness(t)
	b := h.browser()
	b.mustSignedOut()
	b.signUp("Winkel@Example.NL")
	p := b.mustSignedIn()
	if !strings.Contains(p.body, "winkel@example.nl") {
		t.Errorf("overview does not name the account:\n%s", p.body)
	}
	a, err := h.accounts.ByEmail(context.Background(), "winkel@example.nl")
	if err != nil || a.Plan != "free" || a.Language != "en" {
		t.Fatalf("account %+v %v", a, err)
	}
	m := h.mails("winkel@example.nl")[0]
	if m.Subject != "Your sign-in link for Adreswijzer" || !strings.Contains(m.HTML, "/dashboard/signin/link?token=") {
		t.Errorf("mail %+v", m)
	}
	// Signing in again reaches the same account.
	b2 := h.browser()
	b2.signUp("winkel@example.nl")
	b2.mustSignedIn()
	if list, _ := h.accounts.List(context.Background()); len(list) != 1 {
		t.Errorf("%d accounts after two sign-ins of one address", len(list))
	}
}

// The answer to a sign-in request is the same whether or not the address has an account.
func TestNoEnumeration(t *testing.T) {
	h := newHarness(t)
	h.browser().signUp("known@example.nl")
	answer := func(email string) page {
		p := h.browser().post("/dashboard/signin", url.Values{"email": {email}})
		p.header.Del("Date")
		p.header.Del("Set-Cookie")
		return p
	}
	known, unknown := answer("known@example.nl"), answer("unknown@example.nl")
	if known.status != unknown.status || known.body != unknown.body || len(known.header) != len(unknown.header) {
		t.Errorf("answers differ:\n%d %v\n%s\n---\n%d %v\n%s", known.status, known.header, known.body, unknown.status, unknown.header, unknown.body)
	}
	for k := range known.header {
		if known.header.Get(k) != unknown.header.Get(k) {
			t.Errorf("header %s: %q vs %q", k, known.header.Get(k), unknown.header.Get(k))
		}
	}
	// Both got a mail: a new address signs up with the same link.
	if len(h.mails("unknown@example.nl")) != 1 {
		t.Error("no link for a new address")
	}
}

func TestBadEmail(t *testing.T) {
	h := newHarness(t)
	p := h.browser().post("/dashboard/signin", url.Values{"email": {"winkel at example"}})
	if p.status != http.StatusUnprocessableEntity || !strings.Contains(p.body, `role="alert"`) || !strings.Contains(p.body, `aria-invalid="true"`) {
		t.Errorf("bad address: %d\n%s", p.status, p.body)
	}
}

func TestLinkOnceAndExpiry(t *testing.T) {
	h := newHarness(t)
	b := h.browser()
	b.post("/dashboard/signin", url.Values{"email": {"winkel@example.nl"}})
	link := h.linkIn(h.mail.Wait(t, "winkel@example.nl", 1).Text)
	if p := b.useLink(link); p.status != http.StatusSeeOther {
		t.Fatalf("first use: %d", p.status)
	}
	// The same link in another browser: spent.
	other := h.browser()
	if p := other.useLink(link); p.status != http.StatusBadRequest || !strings.Contains(p.body, "was used or has expired") {
		t.Errorf("second use: %d\n%s", p.status, p.body)
	}
	other.mustSignedOut()

	// A link older than 15 minutes.
	other.post("/dashboard/signin", url.Values{"email": {"winkel@example.nl"}})
	late := h.linkIn(h.mail.Wait(t, "winkel@example.nl", 2).Text)
	h.clock.advance(accounts.LinkLifetime + time.Second)
	if p := other.useLink(late); p.status != http.StatusBadRequest {
		t.Errorf("expired link: %d", p.status)
	}
	other.mustSignedOut()
	// Made-up tokens are the same refusal.
	if p := other.post("/dashboard/signin/link", url.Values{"token": {"x"}}); p.status != http.StatusBadRequest {
		t.Errorf("made-up token: %d", p.status)
	}
}

func TestMailLimits(t *testing.T) {
	h := newHarness(t)
	b := h.browser()
	for i := range MailsPerAddress.Burst {
		if p := b.post("/dashboard/signin", url.Values{"email": {"winkel@example.nl"}}); p.status != http.StatusOK {
			t.Fatalf("mail %d: %d", i+1, p.status)
		}
	}
	if p := b.post("/dashboard/signin", url.Values{"email": {"winkel@example.nl"}}); p.status != http.StatusTooManyRequests {
		t.Errorf("mail over the address's limit: %d", p.status)
	}
	if n := len(h.mails("winkel@example.nl")); n != MailsPerAddress.Burst {
		t.Errorf("%d mails sent, want %d", n, MailsPerAddress.Burst)
	}
	// One client asking for many addresses.
	refused := 0
	for i := range MailsPerClient.Burst + 2 {
		p := b.post("/dashboard/signin", url.Values{"email": {"a" + strings.Repeat("x", i) + "@example.nl"}})
		if p.status == http.StatusTooManyRequests {
			refused++
		}
	}
	if refused == 0 {
		t.Error("no limit per client")
	}
}

// A session token planted in a browser before sign-in is worth nothing after it.
func TestSessionFixation(t *testing.T) {
	h := newHarness(t)
	attacker := h.browser()
	attacker.post("/dashboard/account/language", url.Values{"lang": {"en"}, "back": {"/dashboard/signin"}})
	planted := attacker.cookie()
	if planted == "" {
		t.Fatal("no session to plant")
	}
	victim := h.browser()
	u, _ := url.Parse(h.srv.URL + Prefix + "/")
	victim.c.Jar.SetCookies(u, []*http.Cookie{{Name: "aw_dashboard", Value: planted, Path: Prefix}})
	victim.signUp("victim@example.nl")
	victim.mustSignedIn()
	if victim.cookie() == planted {
		t.Error("the session kept its token through sign-in")
	}
	attacker.mustSignedOut()
}

func TestSignOutEverywhere(t *testing.T) {
	h := newHarness(t)
	laptop, phone := h.browser(), h.browser()
	laptop.signUp("winkel@example.nl")
	phone.signUp("winkel@example.nl")
	phone.mustSignedIn()
	if p := laptop.post("/dashboard/signout/everywhere", url.Values{}); p.status != http.StatusSeeOther {
		t.Fatalf("sign out everywhere: %d", p.status)
	}
	laptop.mustSignedOut()
	phone.mustSignedOut()
	// A new sign-in works again.
	phone.signUp("winkel@example.nl")
	phone.mustSignedIn()
}

func TestSignOut(t *testing.T) {
	h := newHarness(t)
	b := h.browser()
	b.signUp("winkel@example.nl")
	token := b.cookie()
	if p := b.post("/dashboard/signout", url.Values{}); p.status != http.StatusSeeOther {
		t.Fatalf("sign out: %d", p.status)
	}
	b.mustSignedOut()
	// The old token, replayed, is no session.
	replay := h.browser()
	u, _ := url.Parse(h.srv.URL + Prefix + "/")
	replay.c.Jar.SetCookies(u, []*http.Cookie{{Name: "aw_dashboard", Value: token, Path: Prefix}})
	replay.mustSignedOut()
}

func TestCrossOriginRefused(t *testing.T) {
	h := newHarness(t)
	b := h.browser()
	b.signUp("winkel@example.nl")
	for _, hdr := range []map[string]string{
		{"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"},
		{"Sec-Fetch-Site": "", "Origin": "https://evil.example"},
	} {
		p := b.do(http.MethodPost, "/dashboard/keys", url.Values{"kind": {"live"}, "name": {"x"}}, hdr)
		if p.status != http.StatusForbidden || !strings.Contains(p.body, "did not come from this site") {
			t.Errorf("cross-origin form %v: %d", hdr, p.status)
		}
	}
	a, _ := h.accounts.ByEmail(context.Background(), "winkel@example.nl")
	if list, _ := h.keys.ListAccount(context.Background(), a.ID); len(list) != 0 {
		t.Errorf("a cross-origin form made %d keys", len(list))
	}
}

func TestCookie(t *testing.T) {
	h := newHarness(t)
	b := h.browser()
	b.post("/dashboard/signin", url.Values{"email": {"winkel@example.nl"}})
	p := b.useLink(h.linkIn(h.mail.Wait(t, "winkel@example.nl", 1).Text))
	c := p.header.Get("Set-Cookie")
	for _, want := range []string{"aw_dashboard=", "Path=/dashboard", "HttpOnly", "SameSite=Lax"} {
		if !strings.Contains(c, want) {
			t.Errorf("cookie %q lacks %s", c, want)
		}
	}
	if strings.Contains(c, "Secure") {
		t.Errorf("cookie over plain HTTP marked Secure: %q", c) // behind TLS it is (newSessions)
	}
	if newSessions(nil, true).Cookie.Secure != true {
		t.Error("cookie not Secure behind TLS")
	}
}

func TestGitHubAndEmailReachOneAccount(t *testing.T) {
	h := newHarness(t)
	byMail := h.browser()
	byMail.signUp("anna@example.nl")
	b := h.browser()
	b.signInWith("github", "anna")
	b.mustSignedIn()
	list, _ := h.accounts.List(context.Background())
	if len(list) != 1 {
		t.Fatalf("%d accounts, want one", len(list))
	}
	if a, err := h.accounts.ByIdentity(context.Background(), "github", "101"); err != nil || a.Email != "anna@example.nl" {
		t.Errorf("identity: %+v %v", a, err)
	}
}

func TestGitLabSignUp(t *testing.T) {
	h := newHarness(t)
	b := h.browser()
	b.signInWith("gitlab", "cees")
	p := b.mustSignedIn()
	if !strings.Contains(p.body, "cees@example.be") {
		t.Errorf("overview:\n%s", p.body)
	}
}

func TestCodeHostRefusals(t *testing.T) {
	h := newHarness(t)
	for _, c := range []struct {
		name   string
		setup  func(*browser) page
		status int
		text   string
	}{
		{"state", func(b *browser) page {
			loc := b.begin("github")
			q := codehosttest.Authorize(t, loc)
			q.Set("state", "forged")
			return b.get("/dashboard/signin/github/callback?" + q.Encode())
		}, http.StatusBadRequest, "did not come from this browser"},
		{"no sign-in begun", func(b *browser) page {
			return b.get("/dashboard/signin/github/callback?code=x&state=y")
		}, http.StatusBadRequest, "did not come from this browser"},
		{"pkce verifier", func(b *browser) page {
			// The provider is told another challenge than the one our verifier answers.
			u, _ := url.Parse(b.begin("github"))
			q := u.Query()
			q.Set("code_challenge", "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
			u.RawQuery = q.Encode()
			return b.get("/dashboard/signin/github/callback?" + codehosttest.Authorize(t, u.String()).Encode())
		}, http.StatusBadGateway, "refused to finish the sign-in"},
		{"denied", func(b *browser) page {
			h.gitlab.Deny(true)
			defer h.gitlab.Deny(false)
			return b.get("/dashboard/signin/gitlab/callback?" + codehosttest.Authorize(t, b.begin("gitlab")).Encode())
		}, http.StatusForbidden, "did not give permission"},
		{"unverified e-mail", func(b *browser) page {
			h.github.SignInAs("bo")
			defer h.github.SignInAs("anna")
			return b.get("/dashboard/signin/github/callback?" + codehosttest.Authorize(t, b.begin("github")).Encode())
		}, http.StatusForbidden, "no verified e-mail address"},
		{"github down", func(b *browser) page {
			loc := b.begin("github")
			q := codehosttest.Authorize(t, loc)
			h.github.SetOutage(codehosttest.Unavailable)
			defer h.github.SetOutage(codehosttest.Up)
			return b.get("/dashboard/signin/github/callback?" + q.Encode())
		}, http.StatusServiceUnavailable, "cannot reach that service"},
		{"gitlab down", func(b *browser) page {
			q := codehosttest.Authorize(t, b.begin("gitlab"))
			h.gitlab.SetOutage(codehosttest.Unavailable)
			defer h.gitlab.SetOutage(codehosttest.Up)
			return b.get("/dashboard/signin/gitlab/callback?" + q.Encode())
		}, http.StatusServiceUnavailable, "cannot reach that service"},
		{"unknown provider", func(b *browser) page {
			return b.get("/dashboard/signin/bitbucket")
		}, http.StatusNotFound, "not set up here"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := h.browser()
			p := c.setup(b)
			if p.status != c.status || !strings.Contains(p.body, c.text) || !strings.Contains(p.body, `href="/dashboard/signin"`) {
				t.Errorf("%d, want %d with %q:\n%s", p.status, c.status, c.text, p.body)
			}
			b.mustSignedOut()
		})
	}
	if list, _ := h.accounts.List(context.Background()); len(list) != 0 {
		t.Errorf("refused sign-ins made %d accounts", len(list))
	}
}

// begin starts a code-host sign-in and returns the provider's authorization URL.
func (b *browser) begin(provider string) string {
	b.h.t.Helper()
	p := b.get("/dashboard/signin/" + provider)
	if p.status != http.StatusSeeOther {
		b.h.t.Fatalf("begin %s: %d\n%s", provider, p.status, p.body)
	}
	return p.location
}

// signInWith signs in at a local code host as login.
func (b *browser) signInWith(provider, login string) {
	b.h.t.Helper()
	if provider == "github" {
		b.h.github.SignInAs(login)
	} else {
		b.h.gitlab.SignInAs(login)
	}
	q := codehosttest.Authorize(b.h.t, b.begin(provider))
	p := b.get("/dashboard/signin/" + provider + "/callback?" + q.Encode())
	if p.status != http.StatusSeeOther || p.location != "/dashboard/" {
		b.h.t.Fatalf("callback: %d %s\n%s", p.status, p.location, p.body)
	}
}
