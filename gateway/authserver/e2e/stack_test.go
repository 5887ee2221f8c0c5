// Package e2e signs agents in with OAuth 2.1 against the real system, started as `make
// run` starts it: bin/worker on the register samples and bin/gateway with
// deploy/Caddyfile.local (its ports and directories moved, its sign-in mail sent to a real
// SMTP server, Mailpit). The official MCP TypeScript SDK's OAuth client and the Go SDK's
// AuthorizationCodeHandler each register, send their person to the consent page, which
// headless Chromium signs in to by e-mail and answers, and then list and call tools. The
// refusals RFC 6749 and RFC 6750 describe, billing to the consenting account and revoking
// on the dashboard are checked on the way. Pages are checked with axe-core and
// photographed (ADRESWIJZER_ARTIFACTS, see e2etest).
package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/adreswijzer/adreswijzer/gateway/mail/mailtest"
	"github.com/adreswijzer/adreswijzer/internal/e2etest"
	"github.com/adreswijzer/adreswijzer/store/storetest"
)

// stack is the running system.
type stack struct {
	base  string // the gateway's origin
	dir   string // where ./var of Caddyfile.local is
	mail  *mailtest.Server
	shots string
}

// startStack builds and starts the worker and the gateway with deploy/Caddyfile.local.
func startStack(t *testing.T) *stack {
	root := e2etest.Root(t)
	dir := t.TempDir()
	s := &stack{dir: dir, shots: e2etest.Artifacts(t, "oauth-e2e"), mail: mailtest.Start(t)}
	workerBin, gatewayBin := filepath.Join(dir, "worker"), filepath.Join(dir, "gateway")
	e2etest.Build(t, workerBin, "./worker/cmd/worker")
	e2etest.Build(t, gatewayBin, "./caddymodule/cmd/gateway")

	nlSnap, beSnap := filepath.Join(dir, "nl.snap"), filepath.Join(dir, "be.snap")
	e2etest.Run(t, workerBin, "import", "--country", "nl", "--from", storetest.File(t, "nl", "BAGGEM0457L-15102021.zip"), "--snapshot", nlSnap, "--quiet")
	e2etest.Run(t, workerBin, "import", "--country", "be", "--from", filepath.Join(storetest.DataDir(t), "be"), "--snapshot", beSnap, "--quiet")
	workerPort, gatewayPort := e2etest.FreePort(t), e2etest.FreePort(t)
	worker := e2etest.Start(t, s.shots, "worker", nil, workerBin, "serve", "--listen", fmt.Sprintf("127.0.0.1:%d", workerPort), "--snapshot", nlSnap, "--snapshot", beSnap)
	e2etest.WaitHTTP(t, fmt.Sprintf("http://127.0.0.1:%d/health", workerPort), worker)

	cf := filepath.Join(dir, "Caddyfile")
	if err := os.WriteFile(cf, []byte(s.caddyfile(t, root, gatewayPort, workerPort)), 0o644); err != nil {
		t.Fatal(err)
	}
	s.base = fmt.Sprintf("http://127.0.0.1:%d", gatewayPort)
	gw := e2etest.Start(t, s.shots, "gateway", nil, gatewayBin, "run", "--config", cf, "--adapter", "caddyfile")
	e2etest.WaitHTTP(t, s.base+"/health", gw)
	e2etest.WaitHTTP(t, s.base+"/.well-known/oauth-authorization-server", gw)
	return s
}

// caddyfile is deploy/Caddyfile.local on this test's ports and directory, with Mailpit as
// the dashboard's mail server.
func (s *stack) caddyfile(t *testing.T, root string, gatewayPort, workerPort int) string {
	b, err := os.ReadFile(filepath.Join(root, "deploy", "Caddyfile.local"))
	if err != nil {
		t.Fatal(err)
	}
	src := string(b)
	smtp := fmt.Sprintf("oauth\n\t\t\t\tsmtp %s %d {\n\t\t\t\t\tfrom \"Adreswijzer <noreply@adreswijzer.test>\"\n\t\t\t\t\ttls none\n\t\t\t\t}\n",
		s.mail.SMTPHost, s.mail.SMTPPort)
	for _, r := range [][2]string{
		{"admin 127.0.0.1:2019", "admin off"},
		{"http://:8080", fmt.Sprintf("http://:%d", gatewayPort)},
		{"127.0.0.1:8080", fmt.Sprintf("127.0.0.1:%d", gatewayPort)},
		{"127.0.0.1:8081", fmt.Sprintf("127.0.0.1:%d", workerPort)},
		{"./var/", filepath.Join(s.dir, "var") + "/"},
		{"oauth\n", smtp},
	} {
		if !strings.Contains(src, r[0]) {
			t.Fatalf("deploy/Caddyfile.local no longer has %q", r[0])
		}
		src = strings.ReplaceAll(src, r[0], r[1])
	}
	return src
}

var linkRE = regexp.MustCompile(`http://\S+/dashboard/signin/link\?token=[A-Za-z0-9_%-]+`)

// journey is the person's browser.
type journey struct {
	*e2etest.Page
	axe []byte
}

// check looks at the page as a person and as a screen reader would.
func (j *journey) check(name string) {
	j.T.Helper()
	j.Accessible(j.axe, "", name)
	j.ScreenshotWidths(name)
}

// submit presses a button and waits for the next document to satisfy cond.
func (j *journey) submit(button, cond string) {
	j.T.Helper()
	j.Eval(`(window.awOldPage = true, '')`)
	j.Do(chromedp.Click(chromedp.CSS(button)))
	j.WaitAcrossNavigation(`window.awOldPage === undefined && document.readyState === 'complete' && (` + cond + `)`)
}

// at is the condition that the browser shows path.
func at(path string) string { return `location.pathname === ` + strconv.Quote(path) }

// signIn signs in by e-mail on the sign-in page the browser shows, and waits for the page
// it returns to.
func (j *journey) signIn(s *stack, email, next string) {
	j.T.Helper()
	before, err := s.mail.Messages(j.Ctx, email)
	if err != nil {
		j.T.Fatal(err)
	}
	j.Do(chromedp.SendKeys(chromedp.CSS("#email"), email))
	j.submit(`form[action="/dashboard/signin"] button[type=submit]`, at("/dashboard/signin"))
	m := s.mail.Wait(j.T, email, len(before)+1)
	link := linkRE.FindString(m.Text)
	if link == "" {
		j.T.Fatalf("no link in the mail:\n%s", m.Text)
	}
	j.Do(chromedp.Navigate(link))
	j.submit(`form[action="/dashboard/signin/link"] button`, at(next))
}
