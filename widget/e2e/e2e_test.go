// Package e2e tests the address form in a real browser (Debian's headless Chromium) against
// the real services: bin/worker serving the register samples from the memory store, and
// bin/gateway in front of it with a publishable key bound to the demo shop's origin, serving
// the form's files (widget/dist, built by package assets) with the /widget/* block of
// deploy/Caddyfile.local. The demo shop (package demo) runs on an origin of its own, as a
// shop does; a stand-in for a failing API (faultyAPI) sits between one shop and the gateway.
// Every state of the form is checked with axe-core (npm, pinned in package.json: `npm ci`
// in this directory installs it; .ci/run does).
//
// The test builds everything it runs. ADRESWIJZER_WASM names a prebuilt adreswijzer.wasm
// (the Makefile passes widget/adreswijzer.wasm); ADRESWIJZER_ARTIFACTS the directory for
// screenshots and service logs (default: a new temporary directory, printed). Relative paths
// are taken from the repository root.
package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/internal/e2etest"
	"github.com/adreswijzer/adreswijzer/store/storetest"
	"github.com/adreswijzer/adreswijzer/wasm/form/formtest"
	"github.com/adreswijzer/adreswijzer/widget/assets"
	"github.com/adreswijzer/adreswijzer/widget/demo"
)

var secretRE = regexp.MustCompile(`(?m)^secret:\s+(\S+)`)

// stack is the running system.
type stack struct {
	worker  *e2etest.Service
	gateway string // base URL
	shop    string // origin the key allows
	foreign string // origin the key does not allow
	// slow is a shop origin whose page loads the form's files through gates.
	slow  string
	gates *gates
	// faulty is a shop origin whose page asks api, which fails as it is told.
	faulty string
	api    *faultyAPI
	// strict is a shop origin whose page has a strict Content-Security-Policy.
	strict string
	key    string
	shots  string
	// files are the names of the served files, axe the source of axe-core.
	files assets.Files
	axe   []byte
}

func startStack(t *testing.T) *stack {
	dir := t.TempDir()
	shots := e2etest.Artifacts(t, "widget-e2e")

	workerBin, gatewayBin := filepath.Join(dir, "worker"), filepath.Join(dir, "gateway")
	e2etest.Build(t, workerBin, "./worker/cmd/worker")
	e2etest.Build(t, gatewayBin, "./caddymodule/cmd/gateway")

	// The widget's files as `make build` writes widget/dist.
	widgetDir := filepath.Join(dir, "dist")
	files := e2etest.Widget(t, widgetDir)
	axe := e2etest.AxeJS(t, ".")
	widgetBlock := e2etest.WidgetBlock(t)

	// The samples, imported as an operator does.
	nlSnap, beSnap := filepath.Join(dir, "nl.snap"), filepath.Join(dir, "be.snap")
	e2etest.Run(t, workerBin, "import", "--country", "nl", "--from", storetest.File(t, "nl", "BAGGEM0457L-15102021.zip"), "--snapshot", nlSnap, "--quiet")
	e2etest.Run(t, workerBin, "import", "--country", "be", "--from", filepath.Join(storetest.DataDir(t), "be"), "--snapshot", beSnap, "--quiet")

	workerPort, gatewayPort := e2etest.FreePort(t), e2etest.FreePort(t)
	s := &stack{shots: shots, gateway: fmt.Sprintf("http://127.0.0.1:%d", gatewayPort), files: files, axe: axe}
	s.worker = e2etest.Start(t, shots, "worker", nil, workerBin, "serve", "--listen", fmt.Sprintf("127.0.0.1:%d", workerPort), "--snapshot", nlSnap, "--snapshot", beSnap)
	e2etest.WaitHTTP(t, fmt.Sprintf("http://127.0.0.1:%d/health", workerPort), s.worker)

	// The shops: the one the key is for, another that copied its key, one on a slow
	// connection, one whose API fails, one with a strict CSP.
	shopLn, foreignLn, slowLn, faultyLn, strictLn := e2etest.Listen(t), e2etest.Listen(t), e2etest.Listen(t), e2etest.Listen(t), e2etest.Listen(t)
	s.shop = "http://" + shopLn.Addr().String()
	s.foreign = "http://" + foreignLn.Addr().String()
	s.slow = "http://" + slowLn.Addr().String()
	s.faulty = "http://" + faultyLn.Addr().String()
	s.strict = "http://" + strictLn.Addr().String()

	keyFile := filepath.Join(dir, "keys.json")
	out := e2etest.Run(t, gatewayBin, "keys", "create", "--kind", "pk_test", "--account", "e2e-shop", "--origin", s.shop, "--origin", s.slow,
		"--origin", s.faulty, "--origin", s.strict, "--file", keyFile)
	m := secretRE.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("keys create printed no secret:\n%s", out)
	}
	s.key = m[1]

	caddyfile := fmt.Sprintf(`{
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
			key_file %[3]s
			usage_file %[4]s
			workers http://127.0.0.1:%[5]d
			test_daily_cap 10000
		}
		reverse_proxy 127.0.0.1:%[5]d {
			header_up -Authorization
			lb_try_duration 500ms
			lb_try_interval 50ms
			transport adreswijzer {
				dial_timeout 250ms
				response_header_timeout 900ms
			}
		}
	}
}
`, gatewayPort, widgetBlock, keyFile, filepath.Join(dir, "usage.json"), workerPort)
	cf := filepath.Join(dir, "Caddyfile")
	if err := os.WriteFile(cf, []byte(caddyfile), 0o644); err != nil {
		t.Fatal(err)
	}
	gw := e2etest.Start(t, shots, "gateway", []string{"ADRESWIJZER_WIDGET_DIR=" + widgetDir}, gatewayBin, "run", "--config", cf, "--adapter", "caddyfile")
	e2etest.WaitHTTP(t, s.gateway+"/widget/adreswijzer-form.js", gw)
	e2etest.WaitHTTP(t, s.gateway+"/health", gw)

	for _, ln := range []net.Listener{shopLn, foreignLn} {
		serve(t, ln, demo.Handler(demo.Config{API: s.gateway, Key: s.key}))
	}
	slowWidget, g := slowFiles(t, widgetDir)
	s.gates = g
	serve(t, slowLn, demo.Handler(demo.Config{API: s.gateway, Widget: slowWidget + "/widget/", Key: s.key}))
	s.api = newFaultyAPI(t, s.gateway)
	serve(t, faultyLn, demo.Handler(demo.Config{API: s.api.url, Widget: s.gateway + "/widget/", Key: s.key}))
	serve(t, strictLn, strictShop(s.gateway, s.key))
	return s
}

func serve(t *testing.T, ln net.Listener, h http.Handler) {
	srv := httptest.NewUnstartedServer(h)
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
}

// gates hold the element's script or the core back on the slow shop's file server until
// released, as a slow connection does; hold arms them again for the next page.
type gates struct {
	mu       sync.Mutex
	js, core chan struct{}
	// broken answers the core with 404, as a blocked or missing file is answered.
	broken bool
}

func (g *gates) breakCore(b bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.broken = b
}

func (g *gates) coreBroken() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.broken
}

func (g *gates) hold(js, core bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if js {
		g.js = make(chan struct{})
	}
	if core {
		g.core = make(chan struct{})
	}
}

func (g *gates) release(js, core bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if js && g.js != nil {
		close(g.js)
		g.js = nil
	}
	if core && g.core != nil {
		close(g.core)
		g.core = nil
	}
}

func (g *gates) wait(r *http.Request) bool {
	g.mu.Lock()
	var c chan struct{}
	switch {
	case r.URL.Path == assets.Entry:
		c = g.js
	case strings.HasSuffix(r.URL.Path, ".wasm"):
		c = g.core
	}
	g.mu.Unlock()
	if c == nil {
		return true
	}
	select {
	case <-c:
		return true
	case <-r.Context().Done():
		return false
	}
}

// slowFiles serves the widget's files as the gateway does, through gates: a shop page on a
// slow connection, whose own inputs (script held) or the form's own fields (core held) are
// shown, and typed into, meanwhile.
func slowFiles(t *testing.T, widgetDir string) (string, *gates) {
	g := &gates{}
	srv := httptest.NewServer(http.StripPrefix("/widget/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Access-Control-Allow-Origin", "*")
		w.Header().Set("Cache-Control", "no-store")
		switch {
		case !g.wait(r):
		case strings.HasSuffix(r.URL.Path, ".wasm") && g.coreBroken():
			http.NotFound(w, r)
		default:
			http.ServeFileFS(w, r, os.DirFS(widgetDir), r.URL.Path)
		}
	})))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { g.release(true, true) }) // first: a held request would keep Close waiting
	return srv.URL, g
}

// faultyAPI stands between a shop's page and the gateway, and answers as a failing service
// does when told to: it hangs, or refuses with 503, 429 (with Retry-After, or the daily cap's
// code) or 403, with the CORS headers the gateway sends with its refusals. Told nothing, it
// passes every request on. It counts the calls that reach it.
type faultyAPI struct {
	url   string
	proxy *httputil.ReverseProxy

	mu         sync.Mutex
	mode       string // "", "hang", "503", "429", "cap", "403"
	retryAfter int
	calls      int
}

func newFaultyAPI(t *testing.T, gateway string) *faultyAPI {
	u, err := url.Parse(gateway)
	if err != nil {
		t.Fatal(err)
	}
	f := &faultyAPI{proxy: httputil.NewSingleHostReverseProxy(u)}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	f.url = srv.URL
	return f
}

// set tells it how to fail from now on ("" to pass requests on).
func (f *faultyAPI) set(mode string, retryAfter int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.mode, f.retryAfter = mode, retryAfter
}

func (f *faultyAPI) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

func (f *faultyAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodOptions {
		f.proxy.ServeHTTP(w, r) // preflights: the gateway's own answer
		return
	}
	f.mu.Lock()
	mode, retryAfter := f.mode, f.retryAfter
	f.calls++
	f.mu.Unlock()
	h := w.Header()
	switch mode {
	case "":
		f.proxy.ServeHTTP(w, r)
		return
	case "hang":
		<-r.Context().Done() // until the form gives up (1.5 s)
		return
	}
	h.Set("Access-Control-Allow-Origin", r.Header.Get("Origin"))
	h.Set("Access-Control-Expose-Headers", "Retry-After, X-Dataset-Version, X-Cache")
	h.Set("Vary", "Origin")
	h.Set("Content-Type", "application/json; charset=utf-8")
	if retryAfter > 0 {
		h.Set("Retry-After", strconv.Itoa(retryAfter))
	}
	status, code := map[string]int{"503": 503, "429": 429, "cap": 429, "403": 403}[mode], map[string]string{
		"503": "SERVICE_UNAVAILABLE", "429": "RATE_LIMITED", "cap": "DAILY_CAP_REACHED", "403": "FORBIDDEN"}[mode]
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"error":{"code":%q,"message":"refused by the test"}}`+"\n", code)
}

// strictShop is a checkout page under a strict Content-Security-Policy: no inline script or
// style at all, scripts and calls only to the gateway, WebAssembly compilation allowed
// ('wasm-unsafe-eval'). The form's styles must still apply.
func strictShop(gateway, key string) http.Handler {
	const page = `<!doctype html>
<html lang="nl"><head><meta charset="utf-8"><title>Strict CSP</title>
<script type="module" src="%[1]s/widget/adreswijzer-form.js"></script></head>
<body><main><h1>Afrekenen</h1>
<form id="checkout" method="post" action="/order">
<adreswijzer-form id="address" data-key="%[2]s" data-api="%[1]s" data-country="nl" lang="nl">
<label>Straat en huisnummer <input name="address1" required></label>
<label>Postcode <input name="zip" required></label>
<label>Plaats <input name="city" required></label>
</adreswijzer-form>
<button type="submit">Bestellen</button>
</form></main></body></html>`
	csp := fmt.Sprintf("default-src 'none'; script-src %[1]s 'wasm-unsafe-eval'; connect-src %[1]s; style-src 'self'; form-action 'self'; base-uri 'none'", gateway)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", csp)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, page, gateway, key)
	})
}

// browser starts headless Chromium with the options that work with Debian's build.
func browser(t *testing.T) context.Context {
	ctx := e2etest.Browser(t)
	// Every page keeps what the form says in the console, and what its CSP blocked.
	if _, err := chromedp.Call(ctx, cdppage.AddScriptToEvaluateOnNewDocument, cdppage.AddScriptToEvaluateOnNewDocumentParams{Source: `
		window.awWarnings = [];
		window.awViolations = [];
		const warn = console.warn;
		console.warn = (...a) => { window.awWarnings.push(a.map(String).join(' ')); warn.apply(console, a); };
		document.addEventListener('securitypolicyviolation', (e) => window.awViolations.push(e.effectiveDirective + ' ' + e.blockedURI));
		// The validate answers the form got, for tests to read what the register said.
		window.awValidated = [];
		const fetch0 = window.fetch;
		window.fetch = (input, init) => fetch0(input, init).then((res) => {
			if (String(input).includes('/v1/validate')) res.clone().text().then((b) => window.awValidated.push(b));
			return res;
		});
	`}); err != nil {
		t.Fatalf("init script: %v", err)
	}
	return ctx
}

// page is one journey in the browser.
type page struct{ *e2etest.Page }

func (s *stack) open(t *testing.T, bctx context.Context, origin string) *page {
	p := &page{e2etest.Open(t, bctx, s.shots, origin+"/")}
	p.Describe = func() string { return "form: " + p.Eval(`document.getElementById('address').innerText`) }
	p.WaitFor(`document.getElementById('address').dataset.state === 'online'`)
	return p
}

// axe checks the form in its current state with axe-core and fails on any serious or
// critical violation.
func (p *page) axe(s *stack, state string) {
	p.T.Helper()
	p.Accessible(s.axe, "#address", state)
}

// additionList is the addition field's list of candidates.
const additionList = `document.querySelector('#address [data-field="addition"] [role=listbox]')`

// waitAdditionList waits until the addition field's list is shown with n candidates.
func (p *page) waitAdditionList(n int) {
	p.T.Helper()
	p.WaitFor(additionList + ` && !` + additionList + `.hidden && ` + additionList + `.children.length === ` + strconv.Itoa(n))
}

// notOrdered fails the test when the checkout went on to place the order.
func (p *page) notOrdered() {
	p.T.Helper()
	if got := p.Eval(`location.pathname`); got != "/" {
		p.T.Fatalf("the order was placed before the customer chose (%s)", got)
	}
}

// validated reads a validate answer the form got.
func validated(t *testing.T, body string) adreswijzer.ValidateResponse {
	t.Helper()
	var a adreswijzer.ValidateResponse
	if err := json.Unmarshal([]byte(body), &a); err != nil {
		t.Fatalf("validate answer %q: %v", body, err)
	}
	return a
}

// field is the CSS selector of one of the form's inputs.
func field(name string) chromedp.CSS {
	return chromedp.CSS(`#address [data-field="` + name + `"] input`)
}

func (p *page) typeInto(name, text string) { p.T.Helper(); p.Do(chromedp.SendKeys(field(name), text)) }

func (p *page) value(name string) string {
	p.T.Helper()
	return p.Eval(`document.querySelector('#address [data-field="` + name + `"] input').value`)
}

// shopField is the value of one of the shop's own form fields (filled by the widget).
func (p *page) shopField(name string) string {
	p.T.Helper()
	return p.Eval(`document.querySelector('#checkout [name="` + name + `"]').value`)
}

// setCountry switches the shop's country select, as a customer does.
func (p *page) setCountry(code string) {
	p.T.Helper()
	p.Eval(`(() => { const c = document.getElementById('country'); c.value = '` + code + `'; c.dispatchEvent(new Event('change')); return '' })()`)
	if code == "BE" {
		p.WaitFor(`document.querySelectorAll('#address .aw-field')[1].dataset.field === 'street'`)
	}
}

// pickStreet waits for the street suggestions and picks the first with the keyboard.
func (p *page) pickStreet(street string) {
	p.T.Helper()
	list := `document.querySelector('#address [data-field="street"] [role=listbox]')`
	p.WaitFor(list + ` && !` + list + `.hidden && ` + list + `.children.length > 0`)
	p.Do(chromedp.SendKeys(field("street"), kb.ArrowDown), chromedp.SendKeys(field("street"), kb.Enter))
	p.WaitFor(`document.querySelector('#address [data-field="street"] input').value === ` + strconv.Quote(street))
}

// holdSubmit keeps the page when the shop's form submits, as a shop whose own check fails
// does, so that what happens after the address was handed over can be tested.
func (p *page) holdSubmit() {
	p.T.Helper()
	p.Eval(`(() => { document.getElementById('checkout').addEventListener('submit', (e) => { e.preventDefault(); window.awSubmitted = (window.awSubmitted || 0) + 1; }); return '' })()`)
}

func (p *page) contact() {
	p.Do(chromedp.SendKeys(chromedp.CSS("#name"), "Test Klant"), chromedp.SendKeys(chromedp.CSS("#email"), "klant@example.org"))
}

// submit places the order and returns the receipt: what the shop received.
func (p *page) submit() map[string]string {
	p.T.Helper()
	p.Do(chromedp.Click(chromedp.CSS(`#checkout button[type=submit]`)))
	return p.receipt()
}

// receipt waits for the order page and returns what the shop received.
func (p *page) receipt() map[string]string {
	p.T.Helper()
	p.WaitAcrossNavigation(`location.pathname === '/order' && document.getElementById('receipt') !== null`)
	p.Screenshot("receipt")
	got := map[string]string{}
	for _, name := range demo.Received {
		got[name] = p.Eval(`document.querySelector('[data-field="` + name + `"]').textContent`)
	}
	return got
}

func TestCheckout(t *testing.T) {
	if _, err := os.Stat("/usr/bin/chromium"); err != nil {
		t.Fatalf("Debian's chromium is required at /usr/bin/chromium: %v", err)
	}
	samples := formtest.Load(t)
	s := startStack(t)
	ctx := browser(t)

	t.Run("NL addition chosen with the keyboard", func(t *testing.T) {
		n := samples.NLWithAdditions(t)
		want := formtest.SortedRows(n)[1]
		p := s.open(t, ctx, s.shop)
		p.Screenshot("empty")
		p.axe(s, "empty")
		p.contact()
		p.typeInto("postcode", strings.ToLower(n.Postcode))
		p.typeInto("number", strconv.Itoa(n.Number))
		p.waitAdditionList(len(n.Rows))
		if got := p.Eval(`document.querySelector('#address [role=status]').textContent`); !strings.Contains(got, strconv.Itoa(len(n.Rows))) {
			t.Errorf("live region says %q, not how many addresses there are", got)
		}
		p.Screenshot("additions")
		p.axe(s, "additions")
		// Down from the number into the list, down once more, Enter.
		p.Do(chromedp.SendKeys(field("number"), kb.ArrowDown))
		p.WaitFor(`document.activeElement === document.querySelector('#address [data-field="addition"] input')`)
		p.Do(chromedp.SendKeys(field("addition"), kb.ArrowDown))
		if got := p.Eval(`document.querySelector('#address [data-field="addition"] input').getAttribute('aria-activedescendant')`); !strings.HasSuffix(got, "-1") {
			t.Errorf("aria-activedescendant = %q, want the second option", got)
		}
		p.Do(chromedp.SendKeys(field("addition"), kb.Enter))
		p.WaitFor(`document.querySelector('#address [data-field="addition"] input').value === ` + strconv.Quote(want.HouseNumberSuffix))
		p.Screenshot("chosen")
		// The choice is validated once, at the submit; until then the shop has no address.
		if got := p.shopField("address1"); got != "" {
			t.Errorf("shop's address1 = %q before the submit", got)
		}
		if got := p.value("street"); got != want.Street.NL {
			t.Errorf("street shown = %q, want %q", got, want.Street.NL)
		}
		// The key travels in the Authorization header only.
		urls := p.Eval(`performance.getEntriesByType('resource').map(e => e.name).join(' ')`)
		if strings.Contains(urls, s.key) || !strings.Contains(urls, "/v1/nl/lookup") {
			t.Errorf("resource URLs %q: want lookups, never the key", urls)
		}
		if st := p.Eval(`JSON.stringify(localStorage) + JSON.stringify(sessionStorage)`); strings.Contains(st, s.key) {
			t.Error("the key is in web storage")
		}
		got := p.submit()
		if got["address1"] != formtest.RegisterAddress1(want, adreswijzer.LangNL) || got["zip"] != adreswijzer.FormatPostcode(adreswijzer.NL, n.Postcode) ||
			got["city"] != want.Locality.NL || got["address_country"] != "NL" || got["address_status"] != "valid" || got["address_unverified"] != "false" {
			t.Errorf("the shop received %v", got)
		}
		if got["name"] != "Test Klant" {
			t.Errorf("the shop's own fields were lost: %v", got)
		}
	})

	t.Run("BE street with a typo picked from suggestions", func(t *testing.T) {
		n := samples.BEBilingual(t)
		a := n.Rows[0]
		p := s.open(t, ctx, s.shop)
		p.contact()
		p.Eval(`(() => { const c = document.getElementById('country'); c.value = 'BE'; c.dispatchEvent(new Event('change')); return '' })()`)
		p.WaitFor(`document.querySelectorAll('#address .aw-field')[1].dataset.field === 'street'`)
		p.typeInto("postcode", n.Postcode)
		p.typeInto("street", formtest.Typo(a.Street.NL))
		list := `document.querySelector('#address [data-field="street"] [role=listbox]')`
		p.WaitFor(list + ` && !` + list + `.hidden && ` + list + `.children.length > 0`)
		p.Screenshot("suggestions")
		p.axe(s, "BE street suggestions")
		if got := p.Eval(list + `.children[0].textContent`); !strings.HasPrefix(got, a.Street.NL) {
			t.Fatalf("first suggestion %q, want %q", got, a.Street.NL)
		}
		p.Do(chromedp.SendKeys(field("street"), kb.ArrowDown), chromedp.SendKeys(field("street"), kb.Enter))
		p.WaitFor(`document.querySelector('#address [data-field="street"] input').value === ` + strconv.Quote(a.Street.NL))
		p.typeInto("number", strconv.Itoa(a.HouseNumber))
		p.WaitFor(`document.querySelector('#address [role=status]').textContent.includes(` + strconv.Quote(formtest.RegisterAddress1(a, adreswijzer.LangNL)) + `)`)
		p.Screenshot("chosen")
		got := p.submit()
		if got["address1"] != formtest.RegisterAddress1(a, adreswijzer.LangNL) || got["zip"] != n.Postcode || got["address_country"] != "BE" || got["address_unverified"] != "false" {
			t.Errorf("the shop received %v", got)
		}
	})

	t.Run("Tab from an open list goes on to the next field", func(t *testing.T) {
		n := samples.BEManyBoxes(t)
		p := s.open(t, ctx, s.shop)
		p.contact()
		p.setCountry("BE")
		p.typeInto("postcode", n.Postcode)
		p.typeInto("street", n.Street)
		p.pickStreet(n.Street)
		p.typeInto("number", strconv.Itoa(n.Number))
		p.waitAdditionList(len(n.Rows))
		p.Do(chromedp.SendKeys(field("number"), kb.ArrowDown))
		p.WaitFor(`document.activeElement === document.querySelector('#address [data-field="addition"] input')`)
		// The list is long enough to scroll, which is what makes Chromium put it in the tab order.
		if got := p.Eval(`String(` + additionList + `.scrollHeight > ` + additionList + `.clientHeight)`); got != "true" {
			t.Fatalf("the box list does not scroll (%s): the test proves nothing", got)
		}
		p.Screenshot("list-open")
		p.Do(chromedp.SendKeys(field("addition"), kb.Tab))
		p.WaitFor(`document.activeElement !== document.querySelector('#address [data-field="addition"] input')`)
		if got := p.Eval(`(() => { const a = document.activeElement; return a.closest('[data-field]')?.dataset.field || a.tagName })()`); got != "city" {
			t.Errorf("Tab from the open box list moved the focus to %s, want the city field", got)
		}
		if got := p.Eval(`String(` + additionList + `.hidden)`); got != "true" {
			t.Errorf("the list stayed open after Tab")
		}
	})

	t.Run("countryCode mapped to the shop's country select", func(t *testing.T) {
		n := samples.BEBilingual(t)
		a := n.Rows[0]
		p := s.open(t, ctx, s.shop)
		p.contact()
		// The README's advice: the country select is the form's country, and the form writes
		// the country it checked back into it.
		p.Eval(`(() => { const f = document.getElementById('address'); f.dataset.fields = 'address1:address1,address2:address2,zip:zip,city:city,countryCode:country,status:address_status,unverified:address_unverified'; return '' })()`)
		p.setCountry("BE")
		p.typeInto("postcode", n.Postcode)
		p.typeInto("street", formtest.Typo(a.Street.NL))
		p.pickStreet(a.Street.NL)
		p.typeInto("number", strconv.Itoa(a.HouseNumber))
		p.WaitFor(`document.querySelector('#address [role=status]').textContent.includes(` + strconv.Quote(a.Street.NL) + `)`)
		p.holdSubmit()
		p.Do(chromedp.Click(chromedp.CSS(`#checkout button[type=submit]`)))
		p.WaitFor(`document.getElementById('address').hasAttribute('data-committed')`)
		if got := p.shopField("address1"); got != formtest.RegisterAddress1(a, adreswijzer.LangNL) {
			t.Fatalf("shop's address1 = %q after the submit", got)
		}
		// Editing withdraws the address from the shop's fields, but the country stays.
		p.typeInto("number", "0")
		p.WaitFor(`!document.getElementById('address').hasAttribute('data-committed')`)
		p.Screenshot("edited")
		if got := p.Eval(`(() => { const c = document.getElementById('country'); return c.value + ' ' + c.selectedIndex })()`); got != "BE 1" {
			t.Errorf("the country select is %q after an edit, want BE (index 1)", got)
		}
		if got := p.Eval(`document.getElementById('address').dataset.country`); got != "BE" && got != "be" {
			t.Errorf("data-country = %q after an edit", got)
		}
		if got := p.value("street"); got != a.Street.NL {
			t.Errorf("street = %q after an edit, want %q kept", got, a.Street.NL)
		}
		if got := p.Eval(`document.querySelectorAll('#address .aw-field')[1].dataset.field`); got != "street" {
			t.Errorf("the form fell back to the Dutch order (second field %s)", got)
		}
		if got := p.shopField("address1"); got != "" {
			t.Errorf("shop's address1 = %q after an edit, want it cleared", got)
		}
	})

	t.Run("corrected address typed by hand: the customer chooses the register's version", func(t *testing.T) {
		p := s.open(t, ctx, s.shop)
		p.contact()
		p.Do(chromedp.Click(chromedp.CSS(`#address .aw-manual`)))
		p.typeInto("street", "Nieuwe straat")
		p.typeInto("number", "5")
		p.typeInto("postcode", "1381CS")
		p.typeInto("city", "Weesp")
		p.Do(chromedp.Click(chromedp.CSS(`#checkout button[type=submit]`)))
		correction := `document.querySelector('#address .aw-correction')`
		p.WaitFor(`!` + correction + `.hidden`)
		p.Screenshot("correction")
		p.axe(s, "correction offered")
		if got := p.Eval(correction + `.textContent`); !strings.Contains(got, "Nieuwstraat 5") || !strings.Contains(got, "1381 BB") {
			t.Errorf("the offer says %q, not the register's version", got)
		}
		p.notOrdered()
		if got := p.value("street"); got != "Nieuwe straat" {
			t.Errorf("street = %q before the choice, want what was typed", got)
		}
		if got := p.Eval(`document.activeElement.className`); got != "aw-use" {
			t.Errorf("focus on %q, want the choice", got)
		}
		p.Do(chromedp.Click(chromedp.CSS(`#address .aw-use`)))
		got := p.receipt()
		if got["address1"] != "Nieuwstraat 5" || got["zip"] != "1381 BB" || got["address_status"] != "corrected" || got["address_unverified"] != "false" {
			t.Errorf("the shop received %v", got)
		}
	})

	t.Run("postcode the register lacks, confirmed as typed", func(t *testing.T) {
		p := s.open(t, ctx, s.shop)
		p.contact()
		p.typeInto("postcode", "1012LG")
		p.typeInto("number", "1")
		p.WaitFor(`!document.querySelector('#address [data-field="street"]').hidden`)
		p.typeInto("street", "Damrak")
		p.typeInto("city", "Amsterdam")
		p.Do(chromedp.Click(chromedp.CSS(`#checkout button[type=submit]`)))
		p.WaitFor(`!document.querySelector('#address .aw-confirm').hidden`)
		p.WaitFor(`document.activeElement === document.querySelector('#address .aw-confirm input')`)
		p.Screenshot("confirm")
		p.axe(s, "confirm")
		p.Do(chromedp.Click(chromedp.CSS(`#address .aw-confirm input`)))
		got := p.submit()
		if got["address1"] != "Damrak 1" || got["zip"] != "1012 LG" || got["city"] != "Amsterdam" ||
			got["address_unverified"] != "true" || got["address_confirmed"] != "true" {
			t.Errorf("the shop received %v", got)
		}
	})

	t.Run("slow script: what was typed in the shop's own fields is carried over", func(t *testing.T) {
		n := samples.NLSingle(t, false)
		a := n.Rows[0]
		s.gates.hold(true, true)
		defer s.gates.release(true, true)
		ctx, cancel := context.WithTimeout(ctx, 90*time.Second)
		defer cancel()
		p := &page{&e2etest.Page{T: t, Ctx: ctx, Shots: s.shots}}
		// The page's load waits for its module script, which is held: only the navigation's
		// start is waited for.
		if _, err := chromedp.Call(ctx, cdppage.Navigate, cdppage.NavigateParams{URL: s.slow + "/"}); err != nil {
			t.Fatal(err)
		}
		// The shop's own inputs, while the script is held back.
		p.WaitAcrossNavigation(`document.getElementById('address1')?.checkVisibility() === true`)
		p.contact()
		p.Do(chromedp.SendKeys(chromedp.CSS("#address1"), a.Street.NL+" "+strconv.Itoa(n.Number)))
		p.Do(chromedp.SendKeys(chromedp.CSS("#zip"), n.Postcode))
		p.Screenshot("loading")
		// The script arrives: what was typed stays where it is until the core splits it.
		s.gates.release(true, false)
		p.WaitFor(`customElements.get('adreswijzer-form') !== undefined`)
		if got := p.Eval(`document.getElementById('zip').value`); got != n.Postcode {
			t.Fatalf("the shop's postcode input holds %q while the core loads", got)
		}
		s.gates.release(false, true)
		p.WaitFor(`document.getElementById('address').dataset.state === 'online'`)
		p.Screenshot("loaded")
		for name, want := range map[string]string{"postcode": n.Postcode, "street": a.Street.NL, "number": strconv.Itoa(n.Number)} {
			// The postcode may already be printed as the register's lookup has it.
			if got := p.value(name); strings.ReplaceAll(got, " ", "") != want {
				t.Errorf("%s = %q after the form took over, want %q as typed", name, got, want)
			}
		}
		if got := p.Eval(`(() => { const a = document.activeElement; return a.closest('[data-field]')?.dataset.field || a.id || a.tagName })()`); got != "postcode" {
			t.Errorf("focus on %s after the form took over, want the postcode", got)
		}
		// Typing goes on where it was.
		p.Do(chromedp.SendKeys(field("postcode"), kb.Tab))
		p.WaitFor(`document.querySelector('#address [role=status]').textContent.includes(` + strconv.Quote(formtest.RegisterAddress1(a, adreswijzer.LangNL)) + `)`)
		got := p.submit()
		if got["address1"] != formtest.RegisterAddress1(a, adreswijzer.LangNL) || got["address_unverified"] != "false" {
			t.Errorf("the shop received %v", got)
		}
	})

	t.Run("slow core: the fields are there and take typing before it arrives", func(t *testing.T) {
		n := samples.NLSingle(t, false)
		a := n.Rows[0]
		for _, lang := range []string{"nl", "fr", "de", "en"} {
			for _, country := range []string{"NL", "BE"} {
				s.gates.hold(false, true)
				defer s.gates.release(true, true)
				ctx, cancel := context.WithTimeout(ctx, 90*time.Second)
				p := &page{&e2etest.Page{T: t, Ctx: ctx, Shots: s.shots}}
				p.Do(chromedp.Navigate(s.slow + "/"))
				p.WaitFor(`document.getElementById('address').dataset.state === 'loading'`)
				p.Eval(`(() => { const f = document.getElementById('address'); f.lang = '` + lang + `'; f.dataset.country = '` + country + `'; return '' })()`)
				labels := `JSON.stringify([...document.querySelectorAll('#address .aw-field')].map((f) => [f.dataset.field, f.hidden, f.querySelector('label').textContent]).concat([document.querySelector('#address legend').textContent]))`
				before := p.Eval(labels)
				if lang == "nl" && country == "NL" {
					p.axe(s, "before the core")
					// Typing, before the core is there.
					p.typeInto("postcode", n.Postcode)
					p.typeInto("number", strconv.Itoa(n.Number))
					if got := p.Eval(`String(document.getElementById('address').dataset.state)`); got != "loading" {
						t.Fatalf("state %s: the core arrived while held", got)
					}
				}
				s.gates.release(false, true)
				p.WaitFor(`document.getElementById('address').dataset.state === 'online'`)
				if after := p.Eval(labels); after != before {
					t.Errorf("%s %s: the first view %s differs from the core's %s", lang, country, before, after)
				}
				if lang == "nl" && country == "NL" {
					// What was typed is the core's now: it looks the address up.
					p.WaitFor(`document.querySelector('#address [role=status]').textContent.includes(` + strconv.Quote(formtest.RegisterAddress1(a, adreswijzer.LangNL)) + `)`)
					if got := p.value("number"); got != strconv.Itoa(n.Number) {
						t.Errorf("number = %q after the core arrived", got)
					}
				}
				cancel()
			}
		}
	})

	t.Run("core missing: the shop's own inputs come back, filled and required", func(t *testing.T) {
		s.gates.hold(false, true)
		defer s.gates.release(true, true)
		defer s.gates.breakCore(false)
		ctx, cancel := context.WithTimeout(ctx, 90*time.Second)
		defer cancel()
		p := &page{&e2etest.Page{T: t, Ctx: ctx, Shots: s.shots}}
		p.Do(chromedp.Navigate(s.slow + "/"))
		p.WaitFor(`document.getElementById('address').dataset.state === 'loading'`)
		p.typeInto("postcode", "1381AA")
		p.typeInto("number", "7")
		s.gates.breakCore(true)
		s.gates.release(false, true)
		p.WaitFor(`document.getElementById('address').dataset.state === 'unavailable'`)
		p.Screenshot("unavailable")
		got := p.Eval(`JSON.stringify(['zip', 'address1', 'city'].map((n) => { const i = document.querySelector('#checkout [name="' + n + '"]'); return [i.value, i.required, i.checkVisibility()]; }).concat([!!document.querySelector('#address .aw-fieldset')]))`)
		if got != `[["1381AA",true,true],["7",true,true],["",true,true],false]` {
			t.Errorf("the shop's zip, address1, city (value, required, shown), and the form's fields left: %s", got)
		}
		if w := p.Eval(`window.awWarnings.join('\n')`); !strings.Contains(w, "could not start") {
			t.Errorf("the console says %q", w)
		}
	})

	t.Run("origin the key does not allow", func(t *testing.T) {
		n := samples.NLSingle(t, false)
		a := n.Rows[0]
		p := s.open(t, ctx, s.foreign)
		p.contact()
		p.typeInto("postcode", n.Postcode)
		p.typeInto("number", strconv.Itoa(n.Number))
		// The gateway refuses the key's use from here with 403. Whether the page may read that
		// answer depends on the gateway's CORS headers on refusals: readable, the form says the
		// check is not available on this site (disabled); unreadable, the browser reports a
		// network error and the form says the check does not answer (offline). Either way the
		// address is taken as typed.
		p.WaitFor(`['disabled', 'offline'].includes(document.getElementById('address').dataset.state)`)
		t.Logf("refused origin: the form's state is %s", p.Eval(`document.getElementById('address').dataset.state`))
		if msg := p.Eval(`document.querySelector('#address [role=status]').textContent`); msg == "" {
			t.Error("the refusal is not explained")
		}
		p.typeInto("street", a.Street.NL)
		p.typeInto("city", a.Locality.NL)
		p.Screenshot("refused")
		got := p.submit()
		if got["address1"] != a.Street.NL+" "+strconv.Itoa(n.Number) || got["city"] != a.Locality.NL || got["address_unverified"] != "true" {
			t.Errorf("the shop received %v", got)
		}
	})

	t.Run("API hanging: a bare number is never ordered", func(t *testing.T) {
		n := samples.NLSingle(t, false)
		a := n.Rows[0]
		p := s.open(t, ctx, s.faulty)
		defer s.api.set("", 0)
		p.contact()
		s.api.set("hang", 0)
		p.typeInto("postcode", n.Postcode)
		p.typeInto("number", strconv.Itoa(n.Number))
		p.Do(chromedp.SendKeys(field("number"), kb.Enter))
		// After the submit's 1.5 s: street and city shown, required, and asked for; no order.
		street := `document.querySelector('#address [data-field="street"] input')`
		p.WaitFor(`document.activeElement === ` + street)
		p.Screenshot("asked")
		if got := p.Eval(`JSON.stringify([` + street + `.required, document.querySelector('#address [data-field="city"] input').required, !document.querySelector('#address [data-field="city"]').hidden, location.pathname])`); got != `[true,true,true,"/"]` {
			t.Fatalf("street required, city required, city shown, page: %s", got)
		}
		p.axe(s, "API hanging, street asked")
		p.typeInto("street", a.Street.NL)
		p.typeInto("city", a.Locality.NL)
		got := p.submit()
		if got["address1"] != a.Street.NL+" "+strconv.Itoa(n.Number) || got["zip"] != adreswijzer.FormatPostcode(adreswijzer.NL, n.Postcode) ||
			got["city"] != a.Locality.NL || got["address_unverified"] != "true" || got["address_status"] != "" {
			t.Errorf("the shop received %v", got)
		}
	})

	t.Run("API refusing with 503, then recovering: verified again", func(t *testing.T) {
		n := samples.NLSingle(t, false)
		a := n.Rows[0]
		p := s.open(t, ctx, s.faulty)
		defer s.api.set("", 0)
		p.contact()
		s.api.set("503", 0)
		p.typeInto("postcode", n.Postcode)
		p.typeInto("number", strconv.Itoa(n.Number))
		p.WaitFor(`document.getElementById('address').dataset.state === 'offline'`)
		p.axe(s, "offline")
		s.api.set("", 0)
		// Asked again after the backoff: the register's street comes, and the order is verified.
		p.WaitFor(`document.querySelector('#address [data-field="street"] input').value === ` + strconv.Quote(a.Street.NL))
		p.WaitFor(`document.getElementById('address').dataset.state === 'online'`)
		got := p.submit()
		if got["address1"] != formtest.RegisterAddress1(a, adreswijzer.LangNL) || got["address_status"] != "valid" || got["address_unverified"] != "false" {
			t.Errorf("the shop received %v", got)
		}
	})

	t.Run("429 with Retry-After: nothing asked before it is due", func(t *testing.T) {
		n := samples.NLSingle(t, false)
		p := s.open(t, ctx, s.faulty)
		defer s.api.set("", 0)
		s.api.set("429", 3)
		p.typeInto("postcode", n.Postcode)
		p.typeInto("number", strconv.Itoa(n.Number))
		p.WaitFor(`document.getElementById('address').dataset.state === 'offline'`)
		refused := s.api.count()
		p.typeInto("number", "0") // typing goes on: still nothing asked
		time.Sleep(2 * time.Second)
		if c := s.api.count(); c != refused {
			t.Fatalf("%d calls within Retry-After: 3", c-refused)
		}
		s.api.set("", 0)
		p.WaitFor(`document.getElementById('address').dataset.state === 'online'`)
		for deadline := time.Now().Add(5 * time.Second); s.api.count() == refused && time.Now().Before(deadline); {
			time.Sleep(50 * time.Millisecond)
		}
		if s.api.count() == refused {
			t.Error("not asked again after Retry-After")
		}
	})

	t.Run("403 and a spent daily cap are explained in the console", func(t *testing.T) {
		n := samples.NLSingle(t, false)
		for _, c := range []struct{ mode, state, says string }{{"403", "disabled", "origin"}, {"cap", "offline", "daily cap"}} {
			p := s.open(t, ctx, s.faulty)
			s.api.set(c.mode, 60)
			p.typeInto("postcode", n.Postcode)
			p.typeInto("number", strconv.Itoa(n.Number))
			p.WaitFor(`document.getElementById('address').dataset.state === '` + c.state + `'`)
			s.api.set("", 0)
			if got := p.Eval(`window.awWarnings.join('\n')`); !strings.Contains(got, c.says) {
				t.Errorf("%s: the console says %q, nothing about the %s", c.mode, got, c.says)
			}
			if c.mode == "403" {
				p.axe(s, "disabled")
			}
		}
	})

	t.Run("strict CSP: the form keeps its styles", func(t *testing.T) {
		n := samples.NLWithAdditions(t)
		p := s.open(t, ctx, s.strict)
		p.typeInto("postcode", n.Postcode)
		p.typeInto("number", strconv.Itoa(n.Number))
		p.WaitFor(additionList + ` && !` + additionList + `.hidden`)
		p.Screenshot("strict-csp")
		got := p.Eval(`JSON.stringify([getComputedStyle(document.querySelector('#address .aw-input')).boxSizing, getComputedStyle(` + additionList + `).listStyleType, getComputedStyle(document.querySelector('#address .aw-legend')).fontWeight])`)
		if got != `["border-box","none","600"]` {
			t.Errorf("box-sizing, list style, legend weight = %s: the form's styles did not apply", got)
		}
		if v := p.Eval(`window.awViolations.join('\n')`); strings.Contains(v, "style-src") {
			t.Errorf("the page's CSP blocked styles: %s", v)
		}
		p.axe(s, "strict CSP, additions")
	})

	t.Run("/widget/ serves only what a shop needs, compressed and cached", func(t *testing.T) {
		get := func(path, enc string) *http.Response {
			req, _ := http.NewRequest("GET", s.gateway+"/widget/"+path, nil)
			if enc != "" {
				req.Header.Set("Accept-Encoding", enc)
			}
			res, err := http.DefaultTransport.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			return res
		}
		for _, path := range []string{"e2e/e2e_test.go", "demo/index.html", "adreswijzer.wasm", "wasi.js", "README.md", "assets/assets.go", ""} {
			if res := get(path, ""); res.StatusCode != http.StatusNotFound {
				t.Errorf("/widget/%s answers %d, want 404", path, res.StatusCode)
			}
		}
		for _, f := range []struct{ name, typ, cache string }{
			{s.files.Entry, "text/javascript", "max-age=300"},
			{s.files.Shim, "text/javascript", "immutable"},
			{s.files.Core, "application/wasm", "immutable"},
		} {
			for _, enc := range []string{"br", "gzip", ""} {
				res := get(f.name, enc)
				h := res.Header
				if res.StatusCode != 200 || h.Get("Content-Encoding") != enc || !strings.HasPrefix(h.Get("Content-Type"), f.typ) ||
					!strings.Contains(h.Get("Cache-Control"), f.cache) || h.Get("Access-Control-Allow-Origin") != "*" ||
					!strings.Contains(strings.Join(h.Values("Vary"), ","), "Accept-Encoding") {
					t.Errorf("%s with Accept-Encoding %q: %d, %v", f.name, enc, res.StatusCode, h)
				}
			}
		}
	})

	t.Run("NL street typed into the postcode field", func(t *testing.T) {
		p := s.open(t, ctx, s.shop)
		p.contact()
		p.typeInto("postcode", "Hugo de Gr")
		list := `document.querySelector('#address [data-field="postcode"] [role=listbox]')`
		p.WaitFor(list + ` && !` + list + `.hidden && ` + list + `.children.length > 0`)
		p.axe(s, "street suggestions under the postcode")
		p.Do(chromedp.SendKeys(field("postcode"), kb.ArrowDown), chromedp.SendKeys(field("postcode"), kb.Enter))
		p.WaitFor(`document.querySelector('#address [data-field="street"] input').value === 'Hugo de Grootlaan'`)
		p.WaitFor(`document.activeElement === document.querySelector('#address [data-field="postcode"] input')`)
		p.typeInto("postcode", "1381CS")
		p.typeInto("number", "5")
		p.WaitFor(`document.querySelector('#address [role=status]').textContent.includes('Hugo de Grootlaan 5')`)
		got := p.submit()
		if got["address1"] != "Hugo de Grootlaan 5" || got["zip"] != "1381 CS" || got["address_status"] != "valid" {
			t.Errorf("the shop received %v", got)
		}
	})

	t.Run("ambiguity: every candidate whole, chosen with the keyboard; a typed addition never dropped unseen", func(t *testing.T) {
		// Typed by hand: 1381 CS / 16 / bov / Achtergracht / Weesp, which the register reads
		// as Achtergracht 16 at another postcode or Hugo de Grootlaan 16 bov at 1381 CS.
		const addition = "bov"
		typed := func(t *testing.T) (*page, adreswijzer.ValidateResponse) {
			p := s.open(t, ctx, s.shop)
			p.contact()
			p.Do(chromedp.Click(chromedp.CSS(`#address .aw-manual`)))
			p.axe(s, "manual entry")
			for _, f := range []struct{ name, text string }{{"postcode", "1381 CS"}, {"number", "16"}, {"addition", addition}, {"street", "Achtergracht"}, {"city", "Weesp"}} {
				p.typeInto(f.name, f.text)
			}
			p.Do(chromedp.Click(chromedp.CSS(`#checkout button[type=submit]`)))
			p.WaitFor(`window.awValidated.length === 1`)
			a := validated(t, p.Eval(`window.awValidated[0]`))
			if a.Status != adreswijzer.VerdictAmbiguous || len(a.Suggestions) < 2 || formtest.WithAddition(a.Suggestions, addition) < 0 {
				t.Fatalf("the register answered %+v: the test needs an ambiguity with the typed addition among its candidates", a)
			}
			p.waitAdditionList(len(a.Suggestions))
			return p, a
		}

		p, a := typed(t)
		p.Screenshot("ambiguity")
		p.axe(s, "ambiguity: candidates and confirmation offered")
		p.notOrdered()
		addInput := `document.querySelector('#address [data-field="addition"] input')`
		p.WaitFor(`document.activeElement === ` + addInput)
		if got := p.Eval(`document.querySelector('#address [role=status]').textContent`); got == "" {
			t.Error("the live region does not announce the ambiguity")
		}
		opts := p.Eval(`JSON.stringify([...document.querySelectorAll('#address [data-field="addition"] [role=option]')].map((o) => o.textContent))`)
		var options []string
		if err := json.Unmarshal([]byte(opts), &options); err != nil || len(options) != len(a.Suggestions) {
			t.Fatalf("options %s (%v): want the answer's %d candidates", opts, err, len(a.Suggestions))
		}
		for i, c := range a.Suggestions {
			for _, part := range formtest.CandidateParts(c) {
				if !strings.Contains(options[i], part) {
					t.Errorf("option %q lacks %q of the candidate", options[i], part)
				}
			}
			if c.Address2 == nil && !strings.Contains(options[i], addition) {
				t.Errorf("option %q drops the typed addition %s without saying so", options[i], addition)
			}
		}
		if p.Eval(`String(document.querySelector('#address .aw-confirm').hidden)`) != "false" {
			t.Error("keeping the address as typed is not offered")
		}

		// Down to the candidate with the typed addition, Enter: announced and shown.
		want := formtest.WithAddition(a.Suggestions, addition)
		c := a.Suggestions[want]
		for range want + 1 {
			p.Do(chromedp.SendKeys(field("addition"), kb.ArrowDown))
		}
		if got := p.Eval(addInput + `.getAttribute('aria-activedescendant')`); !strings.HasSuffix(got, "-"+strconv.Itoa(want)) {
			t.Errorf("aria-activedescendant = %q, want option %d", got, want)
		}
		p.Do(chromedp.SendKeys(field("addition"), kb.Enter))
		p.WaitFor(`document.querySelector('#address [data-field="postcode"] input').value === ` + strconv.Quote(c.Zip))
		if got := p.Eval(`location.pathname`); got != "/" {
			t.Fatalf("Enter on the option placed the order (%s)", got)
		}
		status := p.Eval(`document.querySelector('#address [role=status]').textContent`)
		for _, part := range formtest.CandidateParts(c) {
			if !strings.Contains(status, part) {
				t.Errorf("the live region says %q, not %q of the choice", status, part)
			}
		}
		p.Screenshot("ambiguity-chosen")
		p.axe(s, "ambiguity: candidate chosen")
		got := p.submit()
		if got["address1"] != c.Address1 || got["address2"] != *c.Address2 || got["zip"] != c.Zip || got["city"] != c.City ||
			got["address_unverified"] != "false" || got["address_confirmed"] != "false" || !slices.Contains([]string{"valid", "corrected"}, got["address_status"]) {
			t.Errorf("the shop received %v, want %+v as the register has it, verified", got, c)
		}

		// Keeping what was typed: the confirmation, and the address as typed, bov and all,
		// unverified.
		p, _ = typed(t)
		p.Do(chromedp.Click(chromedp.CSS(`#address .aw-confirm input`)))
		got = p.submit()
		if got["address1"] != "Achtergracht 16" || got["address2"] != addition || got["zip"] != "1381 CS" || got["city"] != "Weesp" ||
			got["address_unverified"] != "true" || got["address_confirmed"] != "true" || got["address_status"] == "valid" || got["address_status"] == "corrected" {
			t.Errorf("the shop received %v, want the address as typed, unverified and confirmed", got)
		}
	})

	t.Run("invalid with candidates: each whole beside the confirmation, chosen with the keyboard", func(t *testing.T) {
		// Typed by hand: a number whose every address has a letter or toevoeging, with an
		// addition none has. The register answers invalid, with the number's addresses.
		n := samples.NLAdditionRequired(t)
		addition := formtest.UnknownAddition(n)
		city := formtest.SortedRows(n)[0].Locality.NL
		typed := func(t *testing.T) (*page, adreswijzer.ValidateResponse) {
			p := s.open(t, ctx, s.shop)
			p.contact()
			p.Do(chromedp.Click(chromedp.CSS(`#address .aw-manual`)))
			for _, f := range []struct{ name, text string }{{"postcode", n.Postcode}, {"number", strconv.Itoa(n.Number)}, {"addition", addition}, {"street", n.Street}, {"city", city}} {
				p.typeInto(f.name, f.text)
			}
			p.Do(chromedp.Click(chromedp.CSS(`#checkout button[type=submit]`)))
			p.WaitFor(`window.awValidated.length === 1`)
			a := validated(t, p.Eval(`window.awValidated[0]`))
			if !formtest.InvalidWithCandidates(a, n) {
				t.Fatalf("the register answered %+v: the test needs an invalid answer for the addition, with the number's addresses", a)
			}
			p.waitAdditionList(len(a.Suggestions))
			return p, a
		}

		p, a := typed(t)
		p.Screenshot("invalid-candidates")
		p.axe(s, "invalid: candidates and confirmation offered")
		p.notOrdered()
		addInput := `document.querySelector('#address [data-field="addition"] input')`
		p.WaitFor(`document.activeElement === ` + addInput)
		if got := p.Eval(`document.querySelector('#address [role=status]').textContent`); !strings.Contains(got, a.Issues[0].Message) {
			t.Errorf("the live region says %q, not the register's %q", got, a.Issues[0].Message)
		}
		if got := p.Eval(additionList + `.getAttribute('aria-label')`); got != "Adres" {
			t.Errorf("the list is labelled %q, want Adres", got)
		}
		opts := p.Eval(`JSON.stringify([...document.querySelectorAll('#address [data-field="addition"] [role=option]')].map((o) => o.textContent))`)
		var options []string
		if err := json.Unmarshal([]byte(opts), &options); err != nil || len(options) != len(a.Suggestions) {
			t.Fatalf("options %s (%v): want the answer's %d candidates", opts, err, len(a.Suggestions))
		}
		for i, c := range a.Suggestions {
			for _, part := range formtest.CandidateParts(c) {
				if !strings.Contains(options[i], part) {
					t.Errorf("option %q lacks %q of the candidate", options[i], part)
				}
			}
			if formtest.Bare(c) && !strings.Contains(options[i], addition) {
				t.Errorf("option %q drops the typed addition %s without saying so", options[i], addition)
			}
		}
		if p.Eval(`String(document.querySelector('#address .aw-confirm').hidden)`) != "false" {
			t.Error("keeping the address as typed is not offered")
		}

		// Down to the last candidate, Enter: announced and shown, and handed over verified.
		last := len(a.Suggestions) - 1
		c := a.Suggestions[last]
		for range last + 1 {
			p.Do(chromedp.SendKeys(field("addition"), kb.ArrowDown))
		}
		if got := p.Eval(addInput + `.getAttribute('aria-activedescendant')`); !strings.HasSuffix(got, "-"+strconv.Itoa(last)) {
			t.Errorf("aria-activedescendant = %q, want option %d", got, last)
		}
		p.Do(chromedp.SendKeys(field("addition"), kb.Enter))
		p.WaitFor(`document.querySelector('#address [role=status]').textContent.includes(` + strconv.Quote(c.Address1) + `)`)
		if got := p.Eval(`location.pathname`); got != "/" {
			t.Fatalf("Enter on the option placed the order (%s)", got)
		}
		status := p.Eval(`document.querySelector('#address [role=status]').textContent`)
		for _, part := range formtest.CandidateParts(c) {
			if !strings.Contains(status, part) {
				t.Errorf("the live region says %q, not %q of the choice", status, part)
			}
		}
		if p.Eval(`String(document.querySelector('#address .aw-confirm').hidden)`) != "true" {
			t.Error("the confirmation is still offered after a choice")
		}
		p.Screenshot("invalid-candidate-chosen")
		p.axe(s, "invalid: candidate chosen")
		got := p.submit()
		address2 := ""
		if c.Address2 != nil {
			address2 = *c.Address2
		}
		if got["address1"] != c.Address1 || got["address2"] != address2 || got["zip"] != c.Zip || got["city"] != c.City ||
			got["address_unverified"] != "false" || got["address_confirmed"] != "false" || !slices.Contains([]string{"valid", "corrected"}, got["address_status"]) {
			t.Errorf("the shop received %v, want %+v as the register has it, verified", got, c)
		}

		// Keeping what was typed: the confirmation, and the address as typed, the unknown
		// addition included, unverified.
		p, _ = typed(t)
		p.Do(chromedp.Click(chromedp.CSS(`#address .aw-confirm input`)))
		got = p.submit()
		if got["address1"] != n.Street+" "+strconv.Itoa(n.Number) || got["address2"] != addition || got["zip"] != adreswijzer.FormatPostcode(adreswijzer.NL, n.Postcode) || got["city"] != city ||
			got["address_unverified"] != "true" || got["address_confirmed"] != "true" || got["address_status"] != string(adreswijzer.VerdictInvalid) {
			t.Errorf("the shop received %v, want the address as typed, invalid, unverified and confirmed", got)
		}
	})

	t.Run("manual entry has a way back", func(t *testing.T) {
		n := samples.NLSingle(t, false)
		a := n.Rows[0]
		p := s.open(t, ctx, s.shop)
		manual := `document.querySelector('#address .aw-manual')`
		first := p.Eval(manual + `.textContent`)
		p.Do(chromedp.Click(chromedp.CSS(`#address .aw-manual`)))
		p.WaitFor(manual + `.textContent !== ` + strconv.Quote(first) + ` && !` + manual + `.hidden`)
		p.Do(chromedp.Click(chromedp.CSS(`#address .aw-manual`)))
		p.WaitFor(manual + `.textContent === ` + strconv.Quote(first))
		p.WaitFor(`document.activeElement === document.querySelector('#address [data-field="postcode"] input')`)
		p.typeInto("postcode", n.Postcode)
		p.typeInto("number", strconv.Itoa(n.Number))
		p.WaitFor(`document.querySelector('#address [data-field="street"] input').value === ` + strconv.Quote(a.Street.NL))
	})

	t.Run("worker stopped: the address is taken as typed", func(t *testing.T) {
		s.worker.Stop()
		n := samples.BEBoxes(t)
		p := s.open(t, ctx, s.shop)
		p.contact()
		p.Eval(`(() => { const c = document.getElementById('country'); c.value = 'BE'; c.dispatchEvent(new Event('change')); return '' })()`)
		p.typeInto("postcode", n.Postcode)
		p.typeInto("street", n.Street)
		p.WaitFor(`document.getElementById('address').dataset.state === 'offline'`)
		notice := p.Eval(`document.querySelector('#address [role=status]').textContent`)
		p.typeInto("number", strconv.Itoa(n.Number))
		p.typeInto("addition", "7")
		p.typeInto("city", "Lembeek")
		p.Screenshot("offline")
		// The form asks again after its backoff, and fails again: offline, it says so.
		p.WaitFor(`document.getElementById('address').dataset.state === 'offline'`)
		if got := p.Eval(`document.querySelector('#address [role=status]').textContent`); got == "" || got != notice {
			t.Errorf("the notice %q did not stay while typing (now %q)", notice, got)
		}
		got := p.submit()
		if got["address1"] != n.Street+" "+strconv.Itoa(n.Number) || got["address2"] != "bus 7" || got["zip"] != n.Postcode || got["address_unverified"] != "true" {
			t.Errorf("the shop received %v", got)
		}
	})
}
