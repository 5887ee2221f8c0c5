package dashboard

import (
	"io/fs"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/adreswijzer/adreswijzer/gateway/keys"
	"github.com/adreswijzer/adreswijzer/gateway/usage"
)

func usageCharge(account string) usage.Charge {
	return usage.Charge{Account: account, Quota: 2500, Call: usage.Validate}
}

// Every text a template asks for exists in both languages.
func TestMessagesComplete(t *testing.T) {
	keyRE := regexp.MustCompile(`\(?t "([a-z0-9_]+(?:\.[a-z0-9_]+)+)"`)
	files, _ := fs.Glob(templateFiles, "templates/*.html")
	for _, f := range files {
		b, _ := fs.ReadFile(templateFiles, f)
		for _, m := range keyRE.FindAllStringSubmatch(string(b), -1) {
			if v, ok := messages[m[1]]; !ok || v[0] == "" || v[1] == "" {
				t.Errorf("%s: message %q missing", f, m[1])
			}
		}
	}
	// Keys put together from a prefix and a value: every value has its text.
	for _, prefix := range []string{"kind.", "kindhelp."} {
		for _, k := range keysKinds() {
			if _, ok := messages[prefix+k]; !ok {
				t.Errorf("message %q missing", prefix+k)
			}
		}
	}
	for _, r := range routeOrder {
		if _, ok := messages["route."+r]; !ok {
			t.Errorf("message %q missing", "route."+r)
		}
	}
	for k, v := range messages {
		if strings.Count(v[0], "%") != strings.Count(v[1], "%") {
			t.Errorf("message %q: the two languages take different arguments", k)
		}
	}
}

func TestPagesInBothLanguages(t *testing.T) {
	h := newHarness(t)
	for _, lang := range []string{"nl", "en"} {
		b := h.browser()
		b.lang = lang
		b.signUp("winkel-" + lang + "@example.nl")
		for _, path := range []string{"/dashboard/", "/dashboard/keys", "/dashboard/usage", "/dashboard/plans", "/dashboard/account", "/dashboard/agents"} {
			p := b.get(path)
			if p.status != http.StatusOK || !strings.Contains(p.body, `<html lang="`+lang+`">`) {
				t.Errorf("%s %s: %d", lang, path, p.status)
			}
			if m := regexp.MustCompile(`\b[a-z]+\.[a-z]+[a-z0-9_.]*\b`).FindAllString(stripTags(p.body), -1); len(m) > 0 {
				for _, s := range m {
					if _, ok := messages[s]; ok {
						t.Errorf("%s %s shows the message key %q", lang, path, s)
					}
				}
			}
		}
	}
}

func keysKinds() []string {
	var out []string
	for _, k := range keys.Kinds {
		out = append(out, string(k))
	}
	return out
}

func stripTags(s string) string { return regexp.MustCompile(`<[^>]*>`).ReplaceAllString(s, " ") }

func TestLanguageChoice(t *testing.T) {
	h := newHarness(t)
	b := h.browser()
	b.lang = "de-DE,de;q=0.9,en;q=0.5"
	if p := b.get("/dashboard/signin"); !strings.Contains(p.body, `lang="en"`) {
		t.Error("German browser with English second: not English")
	}
	b.lang = "fr"
	if p := b.get("/dashboard/signin"); !strings.Contains(p.body, `lang="nl"`) {
		t.Error("no language in common: not Dutch")
	}
	b.post("/dashboard/account/language", url.Values{"lang": {"en"}, "back": {"/dashboard/plans"}})
	if p := b.get("/dashboard/signin"); !strings.Contains(p.body, `lang="en"`) {
		t.Error("chosen language not kept")
	}
	// Chosen while signed in: kept in the account, for every browser.
	b.signUp("winkel@example.nl")
	if p := b.post("/dashboard/account/language", url.Values{"lang": {"nl"}, "back": {"//evil.example/"}}); p.location != "/dashboard/" {
		t.Errorf("back to a foreign place: %q", p.location)
	}
	if h.account("winkel@example.nl").Language != "nl" {
		t.Error("language not kept in the account")
	}
}

func TestPlansPage(t *testing.T) {
	h := newHarness(t)
	p := h.browser().get("/dashboard/plans")
	for _, want := range []string{"free", "2,500 a month", "business", "50,000 a month", "enterprise", "unlimited", "mailto:sales@adreswijzer.test", "100 calls a day"} {
		if !strings.Contains(p.body, want) {
			t.Errorf("plans page lacks %q", want)
		}
	}
	b := h.browser()
	b.signUp("winkel@example.nl")
	if p := b.get("/dashboard/plans"); !strings.Contains(p.body, `class="current"`) || !strings.Contains(p.body, "your plan") {
		t.Error("current plan not marked")
	}
}

func TestHeadersAndNotFound(t *testing.T) {
	h := newHarness(t)
	b := h.browser()
	p := b.get("/dashboard/signin")
	for k, want := range map[string]string{
		"X-Frame-Options": "DENY", "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff",
		"Content-Security-Policy": "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'",
	} {
		if got := p.header.Get(k); got != want {
			t.Errorf("%s: %q", k, got)
		}
	}
	if p := b.get("/dashboard/nothing"); p.status != http.StatusNotFound {
		t.Errorf("unknown page: %d", p.status)
	}
	if p := b.get("/dashboard/static/style.css"); p.status != http.StatusOK || !strings.HasPrefix(p.header.Get("Content-Type"), "text/css") {
		t.Errorf("stylesheet: %d %s", p.status, p.header.Get("Content-Type"))
	}
	if p := b.get("/dashboard"); p.status != http.StatusSeeOther || p.location != "/dashboard/" {
		t.Errorf("/dashboard: %d %s", p.status, p.location)
	}
	// A signed-out visit to a page returns there after signing in.
	if p := b.get("/dashboard/usage"); p.location != "/dashboard/signin" {
		t.Fatalf("signed out: %s", p.location)
	}
	b.post("/dashboard/signin", url.Values{"email": {"winkel@example.nl"}})
	if p := b.useLink(h.linkIn(h.mail.Wait(t, "winkel@example.nl", 1).Text)); p.location != "/dashboard/usage" {
		t.Errorf("after sign-in: %s", p.location)
	}
}

// What the dashboard logs names accounts by id: never an e-mail address, a secret or a
// sign-in token.
func TestLogsHoldNoAddressOrSecret(t *testing.T) {
	h := newHarness(t)
	b := h.browser()
	b.signUp("winkel@example.nl")
	secret := b.createKey(url.Values{"kind": {"live"}, "name": {"Backend"}})
	b.signInWith("github", "anna")
	h.github.SignInAs("bo")
	b.get("/dashboard/signin/github/callback?" + authorizeQuery(t, b.begin("github")))
	b.post("/dashboard/signin", url.Values{"email": {"nobody@example.nl"}})
	logs := h.logs.String()
	if logs == "" {
		t.Fatal("nothing logged")
	}
	for _, bad := range []string{"@example.nl", secret, "token=", "Backend"} {
		if strings.Contains(logs, bad) {
			t.Errorf("a log line holds %q:\n%s", bad, logs)
		}
	}
	if !strings.Contains(logs, "account created") || !strings.Contains(logs, "key created") {
		t.Errorf("the log lacks what happened:\n%s", logs)
	}
}

func TestChart(t *testing.T) {
	for n, want := range map[int64]int64{0: 5, 3: 5, 6: 10, 10: 10, 11: 20, 21: 50, 51: 100, 101: 200, 2499: 5000} {
		if got := niceCeil(n); got != want {
			t.Errorf("niceCeil(%d) = %d, want %d", n, got, want)
		}
	}
	days := perDay(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), []usage.Activity{
		{Day: "2026-11-03", Calls: 12, Verifications: 4}, {Day: "2026-11-03", Calls: 1}, {Day: "2026-12-01", Calls: 9},
	})
	if len(days) != 30 || days[2].Calls != 13 || days[2].Verifications != 4 {
		t.Fatalf("days %v", days)
	}
	svg := string(chart(days, func(k string) string { return text(1, k) }, "November 2026", "en"))
	for _, want := range []string{`aria-label="Calls and verifications per day in November 2026; the most calls on one day: 13, the most verifications: 4."`,
		"<title>3 November 2026: 13 calls, 4 verifications</title>"} {
		if !strings.Contains(svg, want) {
			t.Errorf("chart lacks %s", want)
		}
	}
	if n := strings.Count(svg, "<g>"); n != 30 {
		t.Errorf("%d days drawn", n)
	}
}
