package e2etest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Chromium is Debian's browser, which `make test` installs.
const Chromium = "/usr/bin/chromium"

// Browser starts a headless Chromium for the test, with the flags a closed network needs.
func Browser(t testing.TB) context.Context {
	t.Helper()
	if _, err := os.Stat(Chromium); err != nil {
		t.Fatalf("Debian's chromium is required at %s (make test installs it): %v", Chromium, err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(Chromium), chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true), chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelC := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelC(); cancelA() })
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil { // starts the browser: no timeout on this ctx
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

// Page is one journey in the browser.
type Page struct {
	T     testing.TB
	Ctx   context.Context
	Shots string
	// Describe, when set, adds what the page shows to a failed wait's message.
	Describe func() string
}

// Open starts a journey at url, bounded to 3 minutes.
func Open(t testing.TB, bctx context.Context, shots, url string) *Page {
	ctx, cancel := context.WithTimeout(bctx, 3*time.Minute)
	t.Cleanup(cancel)
	p := &Page{T: t, Ctx: ctx, Shots: shots}
	p.Do(chromedp.Navigate(url))
	return p
}

// Do runs browser actions, or fails the test with a screenshot.
func (p *Page) Do(steps ...chromedp.Action[chromedp.Void]) {
	p.T.Helper()
	if err := chromedp.Do(p.Ctx, steps...); err != nil {
		p.Screenshot("failed")
		p.T.Fatalf("browser: %v", err)
	}
}

// Eval evaluates a JavaScript expression whose value is a string.
func (p *Page) Eval(expr string) string {
	p.T.Helper()
	v, err := chromedp.Run(p.Ctx, chromedp.Evaluate[string](expr))
	if err != nil {
		p.T.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// WaitFor waits until a JavaScript expression is true.
func (p *Page) WaitFor(expr string) {
	p.T.Helper()
	if _, err := chromedp.Run(p.Ctx, chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(15*time.Second))); err != nil {
		p.Screenshot("timeout")
		shows := ""
		if p.Describe != nil {
			shows = "\n" + p.Describe()
		}
		p.T.Fatalf("waiting for %s: %v%s", expr, err, shows)
	}
}

// WaitAcrossNavigation polls expr while the page may be navigating: a poll inside the page
// dies with the document it runs in, so each try is a fresh evaluation.
func (p *Page) WaitAcrossNavigation(expr string) {
	p.T.Helper()
	deadline := time.Now().Add(15 * time.Second)
	var last error
	for time.Now().Before(deadline) {
		ok, err := chromedp.Run(p.Ctx, chromedp.Evaluate[bool](expr))
		if err == nil && ok {
			return
		}
		last = err
		time.Sleep(100 * time.Millisecond)
	}
	p.Screenshot("timeout")
	p.T.Fatalf("waiting for %s: %v", expr, last)
}

// Screenshot saves the whole page as a PNG among the artifacts.
func (p *Page) Screenshot(name string) {
	png, err := chromedp.Run(p.Ctx, chromedp.FullScreenshot(100))
	if err != nil {
		p.T.Logf("screenshot %s: %v", name, err)
		return
	}
	file := filepath.Join(p.Shots, FileName(p.T.Name(), name, ".png"))
	if err := os.WriteFile(file, png, 0o644); err != nil {
		p.T.Logf("screenshot %s: %v", name, err)
	}
}

// Widths are the screens every page is looked at on: a laptop and a phone.
var Widths = []int64{1280, 375}

// ScreenshotWidths saves a screenshot at each of Widths, and returns to the first.
func (p *Page) ScreenshotWidths(name string) {
	p.T.Helper()
	for _, w := range Widths {
		p.Do(chromedp.EmulateViewport(w, 800))
		p.Screenshot(name + "-" + strconv.FormatInt(w, 10))
	}
	p.Do(chromedp.EmulateViewport(Widths[0], 800))
}

// Violation is a rule of axe-core a page breaks.
type Violation struct {
	ID     string   `json:"id"`
	Impact string   `json:"impact"`
	Help   string   `json:"help"`
	Nodes  []string `json:"nodes"`
}

// Accessible runs axe-core (from the npm package in the test's node_modules) on the page,
// or on the element within selects when it is not empty, and fails the test on every serious
// or critical violation, with a screenshot.
func (p *Page) Accessible(axeJS []byte, within, name string) {
	p.T.Helper()
	if p.Eval(`typeof window.axe`) != "object" {
		if _, err := chromedp.Run(p.Ctx, chromedp.Evaluate[bool](string(axeJS)+";true")); err != nil {
			p.T.Fatalf("load axe-core: %v", err)
		}
	}
	target := "document"
	if within != "" {
		target = "document.querySelector(" + strconv.Quote(within) + ")"
	}
	run := `axe.run(` + target + `, {resultTypes: ['violations']}).then(r => JSON.stringify(r.violations.map(v => ({
		id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map(n => n.target.join(' '))}))))`
	out, err := chromedp.Run(p.Ctx, chromedp.Evaluate[string](run, chromedp.EvalAwaitPromise))
	if err != nil {
		p.T.Fatalf("axe on %s: %v", name, err)
	}
	var vs []Violation
	if err := json.Unmarshal([]byte(out), &vs); err != nil {
		p.T.Fatalf("axe on %s: %v", name, err)
	}
	shot := false
	for _, v := range vs {
		if v.Impact == "serious" || v.Impact == "critical" {
			if !shot {
				p.Screenshot("axe-" + name)
				shot = true
			}
			p.T.Errorf("%s: accessibility (%s) %s: %s at %s", name, v.Impact, v.ID, v.Help, strings.Join(v.Nodes, ", "))
		} else {
			p.T.Logf("%s: accessibility (%s) %s: %s", name, v.Impact, v.ID, v.Help)
		}
	}
}

// AxeJS reads axe-core from a test directory's node_modules (npm ci there first).
func AxeJS(t testing.TB, dir string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "node_modules", "axe-core", "axe.min.js"))
	if err != nil {
		t.Fatalf("axe-core: %v (run npm ci in %s; make test does)", err, dir)
	}
	return b
}
