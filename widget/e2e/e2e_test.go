// Package e2e tests the address form in a real browser (Debian's headless Chromium) against
// the real services: bin/worker serving the register samples from the memory store, and
// bin/gateway in front of it with a publishable key bound to the demo shop's origin. The demo
// shop (package demo) runs on an origin of its own, as a shop does.
//
// The test builds everything it runs. ADRESWIJZER_WASM names a prebuilt adreswijzer.wasm
// (the Makefile passes widget/adreswijzer.wasm); ADRESWIJZER_ARTIFACTS the directory for
// screenshots and service logs (default: a new temporary directory, printed). Relative paths
// are taken from the repository root.
package e2e

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/store/storetest"
	"github.com/adreswijzer/adreswijzer/wasm/form/formtest"
	"github.com/adreswijzer/adreswijzer/widget/demo"
)

// repoRoot is the module's root directory, found from this file.
func repoRoot(t *testing.T) string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot locate the repository")
	}
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// fromRoot takes a relative path from an environment variable as relative to the repository
// root, where make runs.
func fromRoot(t *testing.T, p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(repoRoot(t), p)
}

func artifactsDir(t *testing.T) string {
	dir := fromRoot(t, os.Getenv("ADRESWIJZER_ARTIFACTS"))
	if dir == "" {
		d, err := os.MkdirTemp("", "adreswijzer-e2e-")
		if err != nil {
			t.Fatal(err)
		}
		dir = d
	}
	dir = filepath.Join(dir, "widget-e2e")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshots and service logs in %s", dir)
	return dir
}

func goBuild(t *testing.T, root, out, pkg string, env ...string) {
	t.Helper()
	args := []string{"build", "-o", out}
	if len(env) > 0 {
		args = append(args, "-buildmode=c-shared", "-trimpath", "-ldflags=-s -w", "-gcflags=github.com/adreswijzer/adreswijzer/...=-l")
	}
	cmd := exec.Command("go", append(args, pkg)...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), env...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, b)
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// service is a process this test started; it is stopped by its own pid at cleanup.
type service struct {
	cmd  *exec.Cmd
	done chan struct{}
}

func start(t *testing.T, logs, name string, bin string, args ...string) *service {
	t.Helper()
	logf, err := os.Create(filepath.Join(logs, name+".log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = filepath.Dir(bin)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	s := &service{cmd: cmd, done: make(chan struct{})}
	go func() { cmd.Wait(); logf.Close(); close(s.done) }()
	t.Cleanup(s.stop)
	return s
}

func (s *service) stop() {
	select {
	case <-s.done:
		return
	default:
	}
	s.cmd.Process.Kill()
	<-s.done
}

func run(t *testing.T, bin string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = filepath.Dir(bin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s%s", filepath.Base(bin), args[0], err, out.String(), errb.String())
	}
	return out.String()
}

// waitHTTP waits until url answers 200.
func waitHTTP(t *testing.T, url string, s *service) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-s.done:
			t.Fatalf("%s exited before it served %s", s.cmd.Path, url)
		default:
		}
		resp, err := http.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s did not answer 200 in time", url)
}

// unsafeChars are replaced in artifact file names.
var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

var secretRE = regexp.MustCompile(`(?m)^secret:\s+(\S+)`)

// stack is the running system.
type stack struct {
	worker  *service
	gateway string // base URL
	shop    string // origin the key allows
	foreign string // origin the key does not allow
	// slow is a shop origin whose page loads the form's files from a server that holds the
	// core (adreswijzer.wasm) back until releaseCore is called, as a slow connection does.
	slow        string
	releaseCore func()
	key         string
	shots       string
}

func startStack(t *testing.T) *stack {
	root := repoRoot(t)
	dir := t.TempDir()
	shots := artifactsDir(t)

	workerBin, gatewayBin := filepath.Join(dir, "worker"), filepath.Join(dir, "gateway")
	goBuild(t, root, workerBin, "./worker/cmd/worker")
	goBuild(t, root, gatewayBin, "./caddymodule/cmd/gateway")

	// The widget's files, with the core built as the Makefile builds it.
	widgetDir := filepath.Join(dir, "widget")
	if err := os.MkdirAll(widgetDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"adreswijzer-form.js", "wasi.js"} {
		b, err := os.ReadFile(filepath.Join(root, "widget", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(widgetDir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	wasmOut := filepath.Join(widgetDir, "adreswijzer.wasm")
	if p := fromRoot(t, os.Getenv("ADRESWIJZER_WASM")); p != "" {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatalf("ADRESWIJZER_WASM: %v", err)
		}
		os.WriteFile(wasmOut, b, 0o644)
	} else {
		goBuild(t, root, wasmOut, "./wasm", "GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0")
	}

	// The samples, imported as an operator does.
	nlSnap, beSnap := filepath.Join(dir, "nl.snap"), filepath.Join(dir, "be.snap")
	run(t, workerBin, "import", "--country", "nl", "--from", storetest.File(t, "nl", "BAGGEM0457L-15102021.zip"), "--snapshot", nlSnap, "--quiet")
	run(t, workerBin, "import", "--country", "be", "--from", filepath.Join(storetest.DataDir(t), "be"), "--snapshot", beSnap, "--quiet")

	workerPort, gatewayPort := freePort(t), freePort(t)
	s := &stack{shots: shots, gateway: fmt.Sprintf("http://127.0.0.1:%d", gatewayPort)}
	s.worker = start(t, shots, "worker", workerBin, "serve", "--listen", fmt.Sprintf("127.0.0.1:%d", workerPort), "--snapshot", nlSnap, "--snapshot", beSnap)
	waitHTTP(t, fmt.Sprintf("http://127.0.0.1:%d/health", workerPort), s.worker)

	// Two shops: the one the key is for, and another that copied its key.
	shopLn := listen(t)
	foreignLn := listen(t)
	slowLn := listen(t)
	s.shop = "http://" + shopLn.Addr().String()
	s.foreign = "http://" + foreignLn.Addr().String()
	s.slow = "http://" + slowLn.Addr().String()

	keyFile := filepath.Join(dir, "keys.json")
	out := run(t, gatewayBin, "keys", "create", "--kind", "pk_test", "--account", "e2e-shop", "--origin", s.shop, "--origin", s.slow, "--file", keyFile)
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
	handle_path /widget/* {
		root * %[2]s
		# Shops load the form from their own origin: the module script and its .wasm are
		# fetched cross-origin.
		header Access-Control-Allow-Origin *
		file_server
	}
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
			transport http {
				dial_timeout 250ms
				response_header_timeout 900ms
			}
		}
	}
}
`, gatewayPort, widgetDir, keyFile, filepath.Join(dir, "usage.json"), workerPort)
	cf := filepath.Join(dir, "Caddyfile")
	if err := os.WriteFile(cf, []byte(caddyfile), 0o644); err != nil {
		t.Fatal(err)
	}
	gw := start(t, shots, "gateway", gatewayBin, "run", "--config", cf, "--adapter", "caddyfile")
	waitHTTP(t, s.gateway+"/widget/adreswijzer-form.js", gw)
	waitHTTP(t, s.gateway+"/health", gw)

	for _, ln := range []net.Listener{shopLn, foreignLn} {
		serve(t, ln, demo.Handler(demo.Config{API: s.gateway, Key: s.key}))
	}
	slowWidget, release := slowCore(t, widgetDir)
	s.releaseCore = release
	serve(t, slowLn, demo.Handler(demo.Config{API: s.gateway, Widget: slowWidget + "/widget/", Key: s.key}))
	return s
}

func serve(t *testing.T, ln net.Listener, h http.Handler) {
	srv := httptest.NewUnstartedServer(h)
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
}

// slowCore serves the widget's files as the gateway does, but answers adreswijzer.wasm only
// once release is called: a shop page on a slow connection, whose own inputs are shown (and
// typed into) while the core loads.
func slowCore(t *testing.T, widgetDir string) (base string, release func()) {
	gate := make(chan struct{})
	var once sync.Once
	release = func() { once.Do(func() { close(gate) }) }
	srv := httptest.NewServer(http.StripPrefix("/widget/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Access-Control-Allow-Origin", "*")
		w.Header().Set("Cache-Control", "no-store")
		if r.URL.Path == "adreswijzer.wasm" {
			select {
			case <-gate:
			case <-r.Context().Done():
				return
			}
		}
		http.ServeFileFS(w, r, os.DirFS(widgetDir), r.URL.Path)
	})))
	t.Cleanup(srv.Close)
	t.Cleanup(release) // first: a held request would keep Close waiting
	return srv.URL, release
}

func listen(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

// browser starts headless Chromium with the options that work with Debian's build.
func browser(t *testing.T) context.Context {
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath("/usr/bin/chromium"), chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true), chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1100, 900))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelC := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelC(); cancelA() })
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil { // starts the browser: no timeout on this ctx
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

// page is one journey in the browser.
type page struct {
	t     *testing.T
	ctx   context.Context
	shots string
}

func (s *stack) open(t *testing.T, bctx context.Context, origin string) *page {
	ctx, cancel := context.WithTimeout(bctx, 90*time.Second)
	t.Cleanup(cancel)
	p := &page{t: t, ctx: ctx, shots: s.shots}
	p.do(chromedp.Navigate(origin + "/"))
	p.waitFor(`document.getElementById('address').dataset.state === 'online'`)
	return p
}

func (p *page) do(steps ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	if err := chromedp.Do(p.ctx, steps...); err != nil {
		p.screenshot("failed")
		p.t.Fatalf("browser: %v", err)
	}
}

func (p *page) eval(expr string) string {
	p.t.Helper()
	v, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](expr))
	if err != nil {
		p.t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

func (p *page) waitFor(expr string) {
	p.t.Helper()
	if _, err := chromedp.Run(p.ctx, chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(15*time.Second))); err != nil {
		p.screenshot("timeout")
		p.t.Fatalf("waiting for %s: %v\nform: %s", expr, err, p.eval(`document.getElementById('address').innerText`))
	}
}

// waitAcrossNavigation polls expr while the page may be navigating: a poll inside the page
// dies with the document it runs in, so each try is a fresh evaluation.
func (p *page) waitAcrossNavigation(expr string) {
	p.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	var last error
	for time.Now().Before(deadline) {
		ok, err := chromedp.Run(p.ctx, chromedp.Evaluate[bool](expr))
		if err == nil && ok {
			return
		}
		last = err
		time.Sleep(100 * time.Millisecond)
	}
	p.screenshot("timeout")
	p.t.Fatalf("waiting for %s: %v", expr, last)
}

func (p *page) screenshot(name string) {
	png, err := chromedp.Run(p.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		p.t.Logf("screenshot %s: %v", name, err)
		return
	}
	file := filepath.Join(p.shots, unsafeChars.ReplaceAllString(p.t.Name(), "-")+"-"+name+".png")
	if err := os.WriteFile(file, png, 0o644); err != nil {
		p.t.Logf("screenshot %s: %v", name, err)
	}
}

// field is the CSS selector of one of the form's inputs.
func field(name string) chromedp.CSS {
	return chromedp.CSS(`#address [data-field="` + name + `"] input`)
}

func (p *page) typeInto(name, text string) { p.t.Helper(); p.do(chromedp.SendKeys(field(name), text)) }

func (p *page) value(name string) string {
	p.t.Helper()
	return p.eval(`document.querySelector('#address [data-field="` + name + `"] input').value`)
}

// shopField is the value of one of the shop's own form fields (filled by the widget).
func (p *page) shopField(name string) string {
	p.t.Helper()
	return p.eval(`document.querySelector('#checkout [name="` + name + `"]').value`)
}

// setCountry switches the shop's country select, as a customer does.
func (p *page) setCountry(code string) {
	p.t.Helper()
	p.eval(`(() => { const c = document.getElementById('country'); c.value = '` + code + `'; c.dispatchEvent(new Event('change')); return '' })()`)
	if code == "BE" {
		p.waitFor(`document.querySelectorAll('#address .aw-field')[1].dataset.field === 'street'`)
	}
}

// pickStreet waits for the street suggestions and picks the first with the keyboard.
func (p *page) pickStreet(street string) {
	p.t.Helper()
	list := `document.querySelector('#address [data-field="street"] [role=listbox]')`
	p.waitFor(list + ` && !` + list + `.hidden && ` + list + `.children.length > 0`)
	p.do(chromedp.SendKeys(field("street"), kb.ArrowDown), chromedp.SendKeys(field("street"), kb.Enter))
	p.waitFor(`document.querySelector('#address [data-field="street"] input').value === ` + strconv.Quote(street))
}

// holdSubmit keeps the page when the shop's form submits, as a shop whose own check fails
// does, so that what happens after the address was handed over can be tested.
func (p *page) holdSubmit() {
	p.t.Helper()
	p.eval(`(() => { document.getElementById('checkout').addEventListener('submit', (e) => { e.preventDefault(); window.awSubmitted = (window.awSubmitted || 0) + 1; }); return '' })()`)
}

func (p *page) contact() {
	p.do(chromedp.SendKeys(chromedp.CSS("#name"), "Test Klant"), chromedp.SendKeys(chromedp.CSS("#email"), "klant@example.org"))
}

// submit places the order and returns the receipt: what the shop received.
func (p *page) submit() map[string]string {
	p.t.Helper()
	p.do(chromedp.Click(chromedp.CSS(`#checkout button[type=submit]`)))
	return p.receipt()
}

// receipt waits for the order page and returns what the shop received.
func (p *page) receipt() map[string]string {
	p.t.Helper()
	p.waitAcrossNavigation(`location.pathname === '/order' && document.getElementById('receipt') !== null`)
	p.screenshot("receipt")
	got := map[string]string{}
	for _, name := range demo.Received {
		got[name] = p.eval(`document.querySelector('[data-field="` + name + `"]').textContent`)
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
		p.screenshot("empty")
		p.contact()
		p.typeInto("postcode", strings.ToLower(n.Postcode))
		p.typeInto("number", strconv.Itoa(n.Number))
		list := `document.querySelector('#address [data-field="addition"] [role=listbox]')`
		p.waitFor(list + `&& !` + list + `.hidden && ` + list + `.children.length === ` + strconv.Itoa(len(n.Rows)))
		if got := p.eval(`document.querySelector('#address [role=status]').textContent`); !strings.Contains(got, strconv.Itoa(len(n.Rows))) {
			t.Errorf("live region says %q, not how many addresses there are", got)
		}
		p.screenshot("additions")
		// Down from the number into the list, down once more, Enter.
		p.do(chromedp.SendKeys(field("number"), kb.ArrowDown))
		p.waitFor(`document.activeElement === document.querySelector('#address [data-field="addition"] input')`)
		p.do(chromedp.SendKeys(field("addition"), kb.ArrowDown))
		if got := p.eval(`document.querySelector('#address [data-field="addition"] input').getAttribute('aria-activedescendant')`); !strings.HasSuffix(got, "-1") {
			t.Errorf("aria-activedescendant = %q, want the second option", got)
		}
		p.do(chromedp.SendKeys(field("addition"), kb.Enter))
		p.waitFor(`document.querySelector('#address [data-field="addition"] input').value === ` + strconv.Quote(want.HouseNumberSuffix))
		p.screenshot("chosen")
		// The choice is validated once, at the submit; until then the shop has no address.
		if got := p.shopField("address1"); got != "" {
			t.Errorf("shop's address1 = %q before the submit", got)
		}
		if got := p.value("street"); got != want.Street.NL {
			t.Errorf("street shown = %q, want %q", got, want.Street.NL)
		}
		// The key travels in the Authorization header only.
		urls := p.eval(`performance.getEntriesByType('resource').map(e => e.name).join(' ')`)
		if strings.Contains(urls, s.key) || !strings.Contains(urls, "/v1/nl/lookup") {
			t.Errorf("resource URLs %q: want lookups, never the key", urls)
		}
		if st := p.eval(`JSON.stringify(localStorage) + JSON.stringify(sessionStorage)`); strings.Contains(st, s.key) {
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
		p.eval(`(() => { const c = document.getElementById('country'); c.value = 'BE'; c.dispatchEvent(new Event('change')); return '' })()`)
		p.waitFor(`document.querySelectorAll('#address .aw-field')[1].dataset.field === 'street'`)
		p.typeInto("postcode", n.Postcode)
		p.typeInto("street", formtest.Typo(a.Street.NL))
		list := `document.querySelector('#address [data-field="street"] [role=listbox]')`
		p.waitFor(list + ` && !` + list + `.hidden && ` + list + `.children.length > 0`)
		p.screenshot("suggestions")
		if got := p.eval(list + `.children[0].textContent`); !strings.HasPrefix(got, a.Street.NL) {
			t.Fatalf("first suggestion %q, want %q", got, a.Street.NL)
		}
		p.do(chromedp.SendKeys(field("street"), kb.ArrowDown), chromedp.SendKeys(field("street"), kb.Enter))
		p.waitFor(`document.querySelector('#address [data-field="street"] input').value === ` + strconv.Quote(a.Street.NL))
		p.typeInto("number", strconv.Itoa(a.HouseNumber))
		p.waitFor(`document.querySelector('#address [role=status]').textContent.includes(` + strconv.Quote(formtest.RegisterAddress1(a, adreswijzer.LangNL)) + `)`)
		p.screenshot("chosen")
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
		list := `document.querySelector('#address [data-field="addition"] [role=listbox]')`
		p.waitFor(list + ` && !` + list + `.hidden && ` + list + `.children.length === ` + strconv.Itoa(len(n.Rows)))
		p.do(chromedp.SendKeys(field("number"), kb.ArrowDown))
		p.waitFor(`document.activeElement === document.querySelector('#address [data-field="addition"] input')`)
		// The list is long enough to scroll, which is what makes Chromium put it in the tab order.
		if got := p.eval(`String(` + list + `.scrollHeight > ` + list + `.clientHeight)`); got != "true" {
			t.Fatalf("the box list does not scroll (%s): the test proves nothing", got)
		}
		p.screenshot("list-open")
		p.do(chromedp.SendKeys(field("addition"), kb.Tab))
		p.waitFor(`document.activeElement !== document.querySelector('#address [data-field="addition"] input')`)
		if got := p.eval(`(() => { const a = document.activeElement; return a.closest('[data-field]')?.dataset.field || a.tagName })()`); got != "city" {
			t.Errorf("Tab from the open box list moved the focus to %s, want the city field", got)
		}
		if got := p.eval(`String(` + list + `.hidden)`); got != "true" {
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
		p.eval(`(() => { const f = document.getElementById('address'); f.dataset.fields = 'address1:address1,address2:address2,zip:zip,city:city,countryCode:country,status:address_status,unverified:address_unverified'; return '' })()`)
		p.setCountry("BE")
		p.typeInto("postcode", n.Postcode)
		p.typeInto("street", formtest.Typo(a.Street.NL))
		p.pickStreet(a.Street.NL)
		p.typeInto("number", strconv.Itoa(a.HouseNumber))
		p.waitFor(`document.querySelector('#address [role=status]').textContent.includes(` + strconv.Quote(a.Street.NL) + `)`)
		p.holdSubmit()
		p.do(chromedp.Click(chromedp.CSS(`#checkout button[type=submit]`)))
		p.waitFor(`document.getElementById('address').hasAttribute('data-committed')`)
		if got := p.shopField("address1"); got != formtest.RegisterAddress1(a, adreswijzer.LangNL) {
			t.Fatalf("shop's address1 = %q after the submit", got)
		}
		// Editing withdraws the address from the shop's fields, but the country stays.
		p.typeInto("number", "0")
		p.waitFor(`!document.getElementById('address').hasAttribute('data-committed')`)
		p.screenshot("edited")
		if got := p.eval(`(() => { const c = document.getElementById('country'); return c.value + ' ' + c.selectedIndex })()`); got != "BE 1" {
			t.Errorf("the country select is %q after an edit, want BE (index 1)", got)
		}
		if got := p.eval(`document.getElementById('address').dataset.country`); got != "BE" && got != "be" {
			t.Errorf("data-country = %q after an edit", got)
		}
		if got := p.value("street"); got != a.Street.NL {
			t.Errorf("street = %q after an edit, want %q kept", got, a.Street.NL)
		}
		if got := p.eval(`document.querySelectorAll('#address .aw-field')[1].dataset.field`); got != "street" {
			t.Errorf("the form fell back to the Dutch order (second field %s)", got)
		}
		if got := p.shopField("address1"); got != "" {
			t.Errorf("shop's address1 = %q after an edit, want it cleared", got)
		}
	})

	t.Run("corrected address typed by hand: the customer chooses the register's version", func(t *testing.T) {
		p := s.open(t, ctx, s.shop)
		p.contact()
		p.do(chromedp.Click(chromedp.CSS(`#address .aw-manual`)))
		p.typeInto("street", "Nieuwe straat")
		p.typeInto("number", "5")
		p.typeInto("postcode", "1381CS")
		p.typeInto("city", "Weesp")
		p.do(chromedp.Click(chromedp.CSS(`#checkout button[type=submit]`)))
		correction := `document.querySelector('#address .aw-correction')`
		p.waitFor(`!` + correction + `.hidden`)
		p.screenshot("correction")
		if got := p.eval(correction + `.textContent`); !strings.Contains(got, "Nieuwstraat 5") || !strings.Contains(got, "1381 BB") {
			t.Errorf("the offer says %q, not the register's version", got)
		}
		if got := p.eval(`location.pathname`); got != "/" {
			t.Fatalf("the order was placed before the customer chose (%s)", got)
		}
		if got := p.value("street"); got != "Nieuwe straat" {
			t.Errorf("street = %q before the choice, want what was typed", got)
		}
		if got := p.eval(`document.activeElement.className`); got != "aw-use" {
			t.Errorf("focus on %q, want the choice", got)
		}
		p.do(chromedp.Click(chromedp.CSS(`#address .aw-use`)))
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
		p.waitFor(`!document.querySelector('#address [data-field="street"]').hidden`)
		p.typeInto("street", "Damrak")
		p.typeInto("city", "Amsterdam")
		p.do(chromedp.Click(chromedp.CSS(`#checkout button[type=submit]`)))
		p.waitFor(`!document.querySelector('#address .aw-confirm').hidden`)
		p.waitFor(`document.activeElement === document.querySelector('#address .aw-confirm input')`)
		p.screenshot("confirm")
		p.do(chromedp.Click(chromedp.CSS(`#address .aw-confirm input`)))
		got := p.submit()
		if got["address1"] != "Damrak 1" || got["zip"] != "1012 LG" || got["city"] != "Amsterdam" ||
			got["address_unverified"] != "true" || got["address_confirmed"] != "true" {
			t.Errorf("the shop received %v", got)
		}
	})

	t.Run("slow core: what was typed in the shop's fields is carried over", func(t *testing.T) {
		n := samples.NLSingle(t, false)
		a := n.Rows[0]
		ctx, cancel := context.WithTimeout(ctx, 90*time.Second)
		defer cancel()
		p := &page{t: t, ctx: ctx, shots: s.shots}
		p.do(chromedp.Navigate(s.slow + "/"))
		// The shop's own inputs, while the core is held back.
		p.waitFor(`document.getElementById('address1')?.checkVisibility() === true`)
		p.contact()
		p.do(chromedp.SendKeys(chromedp.CSS("#address1"), a.Street.NL+" "+strconv.Itoa(n.Number)))
		p.do(chromedp.SendKeys(chromedp.CSS("#zip"), n.Postcode))
		if got := p.eval(`document.getElementById('address').dataset.state || ''`); got != "" {
			t.Fatalf("the form started (%s) before the core was released", got)
		}
		p.screenshot("loading")
		s.releaseCore()
		p.waitFor(`document.getElementById('address').dataset.state === 'online'`)
		p.screenshot("loaded")
		for name, want := range map[string]string{"postcode": n.Postcode, "street": a.Street.NL, "number": strconv.Itoa(n.Number)} {
			// The postcode may already be printed as the register's lookup has it.
			if got := p.value(name); strings.ReplaceAll(got, " ", "") != want {
				t.Errorf("%s = %q after the form took over, want %q as typed", name, got, want)
			}
		}
		if got := p.eval(`(() => { const a = document.activeElement; return a.closest('[data-field]')?.dataset.field || a.id || a.tagName })()`); got != "postcode" {
			t.Errorf("focus on %s after the form took over, want the postcode", got)
		}
		// Typing goes on where it was.
		p.do(chromedp.SendKeys(field("postcode"), kb.Tab))
		p.waitFor(`document.querySelector('#address [role=status]').textContent.includes(` + strconv.Quote(formtest.RegisterAddress1(a, adreswijzer.LangNL)) + `)`)
		got := p.submit()
		if got["address1"] != formtest.RegisterAddress1(a, adreswijzer.LangNL) || got["address_unverified"] != "false" {
			t.Errorf("the shop received %v", got)
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
		p.waitFor(`['disabled', 'offline'].includes(document.getElementById('address').dataset.state)`)
		t.Logf("refused origin: the form's state is %s", p.eval(`document.getElementById('address').dataset.state`))
		if msg := p.eval(`document.querySelector('#address [role=status]').textContent`); msg == "" {
			t.Error("the refusal is not explained")
		}
		p.typeInto("street", a.Street.NL)
		p.typeInto("city", a.Locality.NL)
		p.screenshot("refused")
		got := p.submit()
		if got["address1"] != a.Street.NL+" "+strconv.Itoa(n.Number) || got["city"] != a.Locality.NL || got["address_unverified"] != "true" {
			t.Errorf("the shop received %v", got)
		}
	})

	t.Run("worker stopped: the address is taken as typed", func(t *testing.T) {
		s.worker.stop()
		n := samples.BEBoxes(t)
		p := s.open(t, ctx, s.shop)
		p.contact()
		p.eval(`(() => { const c = document.getElementById('country'); c.value = 'BE'; c.dispatchEvent(new Event('change')); return '' })()`)
		p.typeInto("postcode", n.Postcode)
		p.typeInto("street", n.Street)
		p.waitFor(`document.getElementById('address').dataset.state === 'offline'`)
		notice := p.eval(`document.querySelector('#address [role=status]').textContent`)
		p.typeInto("number", strconv.Itoa(n.Number))
		p.typeInto("addition", "7")
		p.typeInto("city", "Lembeek")
		p.screenshot("offline")
		if got := p.eval(`document.querySelector('#address [role=status]').textContent`); got == "" || got != notice {
			t.Errorf("the notice %q did not stay while typing (now %q)", notice, got)
		}
		got := p.submit()
		if got["address1"] != n.Street+" "+strconv.Itoa(n.Number) || got["address2"] != "bus 7" || got["zip"] != n.Postcode || got["address_unverified"] != "true" {
			t.Errorf("the shop received %v", got)
		}
	})
}
