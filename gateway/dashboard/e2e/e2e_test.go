// Package e2e walks the dashboard's whole journey in a real browser (Debian's headless
// Chromium) against the real system: bin/worker on the register samples, bin/gateway with
// the dashboard extension sending its mail to a real SMTP server (Mailpit) and serving the
// form's files as make run does, and the demo shop on an origin of its own. A person signs up by e-mail, makes a publishable key for
// the shop, uses it from the shop's address form, sees the usage page count it, revokes it
// and sees the form's calls refused. Every page is checked with axe-core and photographed
// at 1280 and 375 pixels wide (ADRESWIJZER_ARTIFACTS, see e2etest).
package e2e

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/adreswijzer/adreswijzer/gateway/mail/mailtest"
	"github.com/adreswijzer/adreswijzer/internal/e2etest"
	"github.com/adreswijzer/adreswijzer/store/storetest"
	"github.com/adreswijzer/adreswijzer/widget/demo"
)

// stack is the running system.
type stack struct {
	gateway string // base URL
	shop    string // the demo shop's origin
	mail    *mailtest.Server
	shots   string
}

const caddyfile = `{
	admin off
	auto_https off
	persist_config off
	grace_period 1s
}

http://127.0.0.1:%[1]d {
	# deploy/Caddyfile.local's, as shipped: its root comes from ADRESWIJZER_WIDGET_DIR.
%[2]s
	handle {
		adreswijzer {
			key_file %[3]s/keys.json
			usage_file %[3]s/usage.json
			account_file %[3]s/accounts.json
			workers http://127.0.0.1:%[4]d
			extension dashboard {
				base_url http://127.0.0.1:%[1]d
				smtp %[5]s %[6]d {
					from "Adreswijzer <noreply@adreswijzer.test>"
					tls none
				}
				plan_contact mailto:sales@adreswijzer.test
			}
		}
		reverse_proxy 127.0.0.1:%[4]d {
			lb_try_duration 500ms
			transport adreswijzer {
				dial_timeout 250ms
				response_header_timeout 900ms
			}
		}
	}
}
`

func startStack(t *testing.T) *stack {
	dir := t.TempDir()
	s := &stack{shots: e2etest.Artifacts(t, "dashboard-e2e"), mail: mailtest.Start(t)}
	workerBin, gatewayBin := filepath.Join(dir, "worker"), filepath.Join(dir, "gateway")
	e2etest.Build(t, workerBin, "./worker/cmd/worker")
	e2etest.Build(t, gatewayBin, "./caddymodule/cmd/gateway")
	widgetDir := filepath.Join(dir, "dist")
	e2etest.Widget(t, widgetDir)

	nlSnap, beSnap := filepath.Join(dir, "nl.snap"), filepath.Join(dir, "be.snap")
	e2etest.Run(t, workerBin, "import", "--country", "nl", "--from", storetest.File(t, "nl", "BAGGEM0457L-15102021.zip"), "--snapshot", nlSnap, "--quiet")
	e2etest.Run(t, workerBin, "import", "--country", "be", "--from", filepath.Join(storetest.DataDir(t), "be"), "--snapshot", beSnap, "--quiet")
	workerPort, gatewayPort := e2etest.FreePort(t), e2etest.FreePort(t)
	worker := e2etest.Start(t, s.shots, "worker", nil, workerBin, "serve", "--listen", fmt.Sprintf("127.0.0.1:%d", workerPort), "--snapshot", nlSnap, "--snapshot", beSnap)
	e2etest.WaitHTTP(t, fmt.Sprintf("http://127.0.0.1:%d/health", workerPort), worker)

	cf := filepath.Join(dir, "Caddyfile")
	body := fmt.Sprintf(caddyfile, gatewayPort, e2etest.WidgetBlock(t), dir, workerPort, s.mail.SMTPHost, s.mail.SMTPPort)
	if err := os.WriteFile(cf, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	s.gateway = fmt.Sprintf("http://127.0.0.1:%d", gatewayPort)
	gw := e2etest.Start(t, s.shots, "gateway", []string{"ADRESWIJZER_WIDGET_DIR=" + widgetDir}, gatewayBin, "run", "--config", cf, "--adapter", "caddyfile")
	e2etest.WaitHTTP(t, s.gateway+"/health", gw)
	e2etest.WaitHTTP(t, s.gateway+"/dashboard/signin", gw)
	return s
}

var linkRE = regexp.MustCompile(`http://\S+/dashboard/signin/link\?token=[A-Za-z0-9_%-]+`)

// journey is one person's visit to the dashboard.
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

// submit presses a form's button and waits for the next page: a new document (the mark
// set on this one is gone) at nextPath.
func (j *journey) submit(button, nextPath string) {
	j.T.Helper()
	j.Eval(`(window.awOldPage = true, '')`)
	j.Do(chromedp.Click(chromedp.CSS(button)))
	j.WaitAcrossNavigation(`window.awOldPage === undefined && location.pathname === ` + strconv.Quote(nextPath) +
		` && document.readyState === 'complete'`)
}

func TestJourney(t *testing.T) {
	s := startStack(t)
	ctx := e2etest.Browser(t)
	j := &journey{Page: e2etest.Open(t, ctx, s.shots, s.gateway+"/dashboard/"), axe: e2etest.AxeJS(t, ".")}
	j.WaitAcrossNavigation(`location.pathname === '/dashboard/signin'`)
	j.check("signin")

	// A mistyped address is said at the field, as a screen reader announces it.
	j.Do(chromedp.SendKeys(chromedp.CSS("#email"), "winkel at example.nl"))
	j.submit(`form[action="/dashboard/signin"] button[type=submit]`, "/dashboard/signin")
	j.WaitFor(`document.querySelector('[role=alert]') !== null && document.getElementById('email').getAttribute('aria-invalid') === 'true'`)
	j.check("signin-error")

	// Sign up by e-mail: the mail comes through SMTP; the link asks for a press.
	j.Eval(`(document.getElementById('email').value = '', '')`)
	j.Do(chromedp.SendKeys(chromedp.CSS("#email"), "winkel@example.nl"))
	j.submit(`form[action="/dashboard/signin"] button[type=submit]`, "/dashboard/signin")
	j.WaitFor(`document.querySelector('[role=status]') !== null`)
	j.check("mail-sent")
	m := s.mail.Wait(t, "winkel@example.nl", 1)
	link := linkRE.FindString(m.Text)
	if link == "" {
		t.Fatalf("no link in the mail:\n%s", m.Text)
	}
	j.Do(chromedp.Navigate(link))
	j.check("link")
	j.submit(`form[action="/dashboard/signin/link"] button`, "/dashboard/")
	j.check("overview")

	// A publishable test key for the demo shop's origin.
	shopLn := e2etest.Listen(t)
	s.shop = "http://" + shopLn.Addr().String()
	j.Do(chromedp.Navigate(s.gateway + "/dashboard/keys"))
	j.check("keys-empty")
	// A publishable key without an origin is refused, with the error linked to its field.
	j.Do(chromedp.Click(chromedp.CSS("#kind-pk_test")))
	j.submit(`form[action="/dashboard/keys"] button[type=submit]`, "/dashboard/keys")
	j.WaitFor(`document.getElementById('origins').getAttribute('aria-invalid') === 'true'`)
	j.check("keys-error")
	j.Do(chromedp.Click(chromedp.CSS("#kind-pk_test")),
		chromedp.SendKeys(chromedp.CSS("#name"), "Demo shop"),
		chromedp.SendKeys(chromedp.CSS("#origins"), s.shop))
	j.submit(`form[action="/dashboard/keys"] button[type=submit]`, "/dashboard/keys")
	j.WaitFor(`document.getElementById('secret') !== null`)
	j.check("key-created")
	key := j.Eval(`document.getElementById('secret').value`)
	if !regexp.MustCompile(`^aw_pk_test_[0-9A-Za-z]{43}$`).MatchString(key) {
		t.Fatalf("secret shown: %q", key)
	}

	// The key in the shop's address form: a postcode and number are looked up.
	srv := &http.Server{Handler: demo.Handler(demo.Config{API: s.gateway, Key: key}), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(shopLn) }()
	t.Cleanup(func() { srv.Close() })
	shop := &shopPage{e2etest.Open(t, ctx, s.shots, s.shop+"/")}
	shop.typeAddress()
	shop.WaitFor(`(() => { const l = document.querySelector('#address [data-field="addition"] [role=listbox]'); return l !== null && l.children.length > 0 })()`)
	shop.Screenshot("shop-lookup")
	lookup := s.gateway + "/v1/nl/lookup?postcode=1381CS&number=16&sessionId=e2e-journey"

	// The usage page counts it (the meter flushes once a second).
	deadline := time.Now().Add(10 * time.Second)
	for {
		j.Do(chromedp.Navigate(s.gateway + "/dashboard/usage"))
		if j.Eval(`String(document.body.innerText.includes('Lookup') || document.body.innerText.includes('Opzoeken'))`) == "true" {
			break
		}
		if time.Now().After(deadline) {
			j.Screenshot("usage-missing")
			t.Fatal("the usage page does not show the lookups")
		}
		time.Sleep(500 * time.Millisecond)
	}
	j.check("usage")
	for _, page := range []string{"plans", "account", "no-such-page"} {
		j.Do(chromedp.Navigate(s.gateway + "/dashboard/" + page))
		j.check(page)
	}

	// Revoked in the dashboard: the form's calls are refused within seconds.
	j.Do(chromedp.Navigate(s.gateway + "/dashboard/keys"))
	j.Do(chromedp.Click(chromedp.CSS("details.confirm summary")))
	j.check("keys-revoke")
	j.submit(`details.confirm button.danger`, "/dashboard/keys")
	j.WaitFor(`document.body.innerText.includes('revoked') || document.body.innerText.includes('ingetrokken')`)
	deadline = time.Now().Add(5 * time.Second)
	for evalAwait(t, shop, lookup, key) != "401" {
		if time.Now().After(deadline) {
			t.Fatal("the revoked key still works from the shop's page")
		}
		time.Sleep(200 * time.Millisecond)
	}
	// The form itself, on a new visit, is refused and says so: its fields stay for the
	// customer to type the address by hand.
	shop.Do(chromedp.Navigate(s.shop + "/"))
	shop.typeAddress()
	shop.WaitFor(`document.getElementById('address').dataset.state === 'disabled'`)
	shop.Screenshot("shop-refused")
}

// typeAddress types a Weesp postcode and house number into the shop's address form.
func (p *shopPage) typeAddress() {
	p.T.Helper()
	p.Do(chromedp.SendKeys(chromedp.CSS(`#address [data-field="postcode"] input`), "1381CS"),
		chromedp.SendKeys(chromedp.CSS(`#address [data-field="number"] input`), "16"))
}

// shopPage is the demo shop's checkout in the browser.
type shopPage struct{ *e2etest.Page }

// evalAwait calls the gateway from the shop's page, as the form does, and returns the status.
func evalAwait(t *testing.T, p *shopPage, url, key string) string {
	t.Helper()
	v, err := chromedp.Run(p.Ctx, chromedp.Evaluate[string](`fetch(`+strconv.Quote(url)+`, {headers: {Authorization: 'Bearer `+key+`'}}).then(r => String(r.status))`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("fetch from the shop's page: %v", err)
	}
	return v
}
