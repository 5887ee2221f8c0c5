package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/adreswijzer/adreswijzer/bench/measure"
	"github.com/adreswijzer/adreswijzer/widget/assets"
	"github.com/adreswijzer/adreswijzer/widget/demo"
)

// The address form in a browser: how soon a shopper can type into the checkout, and how soon
// the form's core is ready, on a throttled connection and CPU, against the same checkout
// page without the form (a plain HTML form, the baseline), measured in the same run. The
// files are served as the gateway serves them: bin/gateway with deploy/Caddyfile.local's
// /widget/* block, from widget/dist (precompressed, content-hashed).

// netProfile is a connection and CPU the page is loaded on, set through the DevTools
// protocol (Network.emulateNetworkConditions, Emulation.setCPUThrottlingRate).
type netProfile struct {
	name     string
	mbps     float64 // download; upload as given
	upMbps   float64
	rttMs    float64
	cpu      float64 // slowdown factor, 1 for none
	coreMsLE float64 // target for the core ready, 0 for none
}

var netProfiles = []netProfile{
	{name: "4G (9 Mbps, 170 ms RTT)", mbps: 9, upMbps: 9, rttMs: 170, cpu: 1, coreMsLE: 1500},
	{name: "slow (1.6 Mbps, 560 ms RTT, 4× CPU)", mbps: 1.6, upMbps: 0.75, rttMs: 560, cpu: 4},
}

// Targets of the form's loading, against the plain form in the same run.
const (
	typingRatioLE = 1.2
	coreBytesLE   = 1.3
)

// loadTimes is what the page recorded, in ms from the start of the navigation.
type loadTimes struct {
	Typable   float64   `json:"typable"`   // an address input is shown and takes typing
	Fields    float64   `json:"fields"`    // the form's own fields are drawn
	Core      float64   `json:"core"`      // the form's core is ready
	CoreState string    `json:"coreState"` // online, or unavailable when it failed
	Longest   float64   `json:"longest"`   // the longest main-thread task while loading
	Paint     float64   `json:"paint"`     // the first paint
	DCL       float64   `json:"dcl"`       // DOMContentLoaded
	Script    float64   `json:"script"`    // the element's script received
	CoreFetch []float64 `json:"coreFetch"` // the core's fetch: started, received
	Done      bool      `json:"done"`
}

// probeScript runs in every page before its own scripts, and notes the times on animation
// frames, which the browser runs only when the main thread is free to paint and to take
// input.
const probeScript = `(() => {
	const t = window.awBench = { typable: 0, fields: 0, core: 0, coreState: '', longest: 0, done: false };
	try {
		new PerformanceObserver((l) => { for (const e of l.getEntries()) t.longest = Math.max(t.longest, e.duration); })
			.observe({ type: 'longtask', buffered: true });
	} catch { /* no long task timing */ }
	const shown = (el) => !!el && el.checkVisibility() && !el.disabled && !el.readOnly;
	const tick = () => {
		const now = performance.now();
		const form = document.getElementById('address');
		const plain = !document.querySelector('script[src*="adreswijzer-form.js"]');
		if (form) {
			if (!t.typable && [...form.querySelectorAll('input')].some((i) => i.type !== 'hidden' && shown(i))) t.typable = now;
			if (!t.fields && shown(form.querySelector('.aw-field input'))) t.fields = now;
			const st = form.dataset.state;
			if (!t.core && (st === 'online' || st === 'unavailable')) { t.core = now; t.coreState = st; }
		}
		t.done = !!t.typable && (plain || !!t.core);
		if (t.done) {
			t.paint = performance.getEntriesByType('paint').find((e) => e.name === 'first-paint')?.startTime || 0;
			t.dcl = performance.getEntriesByType('navigation')[0]?.domContentLoadedEventStart || 0;
			t.script = performance.getEntriesByType('resource').find((e) => e.name.includes('adreswijzer-form.js'))?.responseEnd || 0;
			const c = performance.getEntriesByType('resource').find((e) => e.name.includes('adreswijzer-core.'));
			t.coreFetch = c ? [Math.round(c.startTime), Math.round(c.responseEnd)] : [];
		} else requestAnimationFrame(tick);
	};
	requestAnimationFrame(tick);
})();`

// emulateNetworkConditions is the protocol command the issue names; the generated protocol
// package has only its successor (…ByRule), which Chromium also takes.
var emulateNetworkConditions = cdp.Command[emulateNetworkParams, cdp.Empty]{Method: "Network.emulateNetworkConditions"}

type emulateNetworkParams struct {
	Offline            bool    `json:"offline"`
	Latency            float64 `json:"latency"`
	DownloadThroughput float64 `json:"downloadThroughput"`
	UploadThroughput   float64 `json:"uploadThroughput"`
}

func (b *benchRun) widget(ctx context.Context) error {
	fmt.Fprintln(b.log, "Address form in Chromium")
	dist := filepath.Join(b.work, "widget-dist")
	floorName, err := b.floorReactor(ctx, dist)
	if err != nil {
		return err
	}
	gw, err := b.startWidgetServer(ctx, dist)
	if err != nil {
		return err
	}
	defer b.stop(gw.srv)
	shop, err := serveShop(demo.Config{API: gw.url, Key: "aw_pk_test_bench"})
	if err != nil {
		return err
	}
	defer shop.Close()
	plain, err := serveShop(demo.Config{API: gw.url, Key: "aw_pk_test_bench", Plain: true})
	if err != nil {
		return err
	}
	defer plain.Close()

	rounds := 5
	if b.cfg.quick {
		rounds = 2
	}
	var coreBytes, floorBytes float64
	for _, prof := range netProfiles {
		var pl, wd []loadTimes
		for r := 0; r < rounds; r++ {
			b.cfg.guard.Wait(ctx)
			p, _, err := loadPage(ctx, prof, "http://"+plain.Addr+"/", "")
			if err != nil {
				return fmt.Errorf("plain form, %s: %w", prof.name, err)
			}
			fetchFloor := ""
			if r == 0 {
				fetchFloor = gw.url + "/widget/" + floorName
			}
			w, bytes, err := loadPage(ctx, prof, "http://"+shop.Addr+"/", fetchFloor)
			if err != nil {
				return fmt.Errorf("address form, %s: %w", prof.name, err)
			}
			if w.CoreState != "online" {
				return fmt.Errorf("address form, %s: the core did not start (%s)", prof.name, w.CoreState)
			}
			if r == 0 {
				if bytes.coreEncoding != "br" || bytes.floorEncoding != "br" {
					return fmt.Errorf("the core went out with Content-Encoding %q, the empty reactor with %q: want br", bytes.coreEncoding, bytes.floorEncoding)
				}
				coreBytes, floorBytes = bytes.core, bytes.floor
			}
			fmt.Fprintf(b.log, "  %s round %d: plain typable %.0f ms (first paint %.0f, DOMContentLoaded %.0f); form typable %.0f, fields %.0f, core %.0f ms (first paint %.0f, DOMContentLoaded %.0f, script %.0f, core fetched %v), longest task %.0f ms\n",
				prof.name, r+1, p.Typable, p.Paint, p.DCL, w.Typable, w.Fields, w.Core, w.Paint, w.DCL, w.Script, w.CoreFetch, w.Longest)
			pl, wd = append(pl, p), append(wd, w)
		}
		b.widgetFigures(prof, pl, wd)
	}
	load := measure.LoadAvg()
	b.rep.Figures = append(b.rep.Figures, measure.Figure{Section: "widget", Name: "form's core over the wire (brotli, with its response headers)",
		Value: coreBytes / 1e3, Unit: "kB", Baseline: "empty Go reactor, same toolchain and flags, served alike", BaseValue: floorBytes / 1e3, BaseUnit: "kB",
		Ratio: coreBytes / floorBytes, Checks: []measure.Check{{Target: fmt.Sprintf("≤%.1f×", coreBytesLE), OK: coreBytes <= coreBytesLE*floorBytes}}, Load1: load})
	b.rep.Notes = append(b.rep.Notes, fmt.Sprintf("Address form: medians of %d page loads per profile and page in Chromium, each in a fresh browser (cold cache), "+
		"the network and CPU throttled through the DevTools protocol (latency per request, throughput caps); the plain form is the same checkout page without the form's script. "+
		"\"Takes typing\" is the first animation frame that shows an address input that can be typed into (the shop's own inputs, until the form's own fields replace them); "+
		"\"fields drawn\" the first with the form's own fields; \"core ready\" the form's data-state turning online.", rounds))
	return nil
}

// widgetFigures adds the medians of one profile to the report.
func (b *benchRun) widgetFigures(prof netProfile, plain, form []loadTimes) {
	med := func(l []loadTimes, f func(loadTimes) float64) float64 {
		v := make([]float64, len(l))
		for i, x := range l {
			v[i] = f(x)
		}
		slices.Sort(v)
		return v[len(v)/2]
	}
	base := med(plain, func(t loadTimes) float64 { return t.Typable })
	typable := med(form, func(t loadTimes) float64 { return t.Typable })
	fields := med(form, func(t loadTimes) float64 { return t.Fields })
	core := med(form, func(t loadTimes) float64 { return t.Core })
	longest := med(form, func(t loadTimes) float64 { return t.Longest })
	load := measure.LoadAvg()
	const baseName = "plain HTML form (the same page without the form), takes typing"
	ratioCheck := func(v float64, info bool) []measure.Check {
		return []measure.Check{{Target: fmt.Sprintf("≤%.1f×", typingRatioLE), OK: v <= typingRatioLE*base, Info: info}}
	}
	fig := func(name string, v float64, checks []measure.Check, note string) {
		f := measure.Figure{Section: "widget", Name: prof.name + ": " + name, Value: v, Unit: "ms", Baseline: baseName,
			BaseValue: base, BaseUnit: "ms", Checks: checks, Load1: load, Note: note}
		if base > 0 {
			f.Ratio = v / base
		}
		b.rep.Figures = append(b.rep.Figures, f)
	}
	fig("address form takes typing", typable, ratioCheck(typable, false), "")
	fig("address form's own fields drawn", fields, ratioCheck(fields, true), "the element's script arrives (one more request)")
	var coreChecks []measure.Check
	if prof.coreMsLE > 0 {
		coreChecks = []measure.Check{{Target: fmt.Sprintf("≤%.0f ms", prof.coreMsLE), OK: core <= prof.coreMsLE}}
	}
	fig("address form's core ready", core, coreChecks, "fetched when the page is idle or on the first focus")
	b.rep.Figures = append(b.rep.Figures, measure.Figure{Section: "widget", Name: prof.name + ": longest main-thread task while the form loads",
		Value: longest, Unit: "ms", Load1: load})
}

// wireBytes are the responses of the core and of the empty reactor as they went over the wire.
type wireBytes struct {
	core, floor                 float64
	coreEncoding, floorEncoding string
}

// loadPage loads url in a fresh headless Chromium on the profile, and returns the times the
// page noted. fetchFloor, when set, is fetched by the page afterwards, to weigh it the same
// way as the core.
func loadPage(ctx context.Context, prof netProfile, url, fetchFloor string) (loadTimes, wireBytes, error) {
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromiumPath), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true), chromedp.WindowSize(1100, 900))
	dir, err := os.MkdirTemp("", "adreswijzer-bench-chromium-")
	if err != nil {
		return loadTimes{}, wireBytes{}, err
	}
	defer os.RemoveAll(dir)
	opts = append(opts, chromedp.UserDataDir(dir))
	actx, cancelA := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelA()
	bctx, cancelB := chromedp.NewContext(actx)
	defer cancelB()
	if err := chromedp.Do(bctx, chromedp.Navigate("about:blank")); err != nil {
		return loadTimes{}, wireBytes{}, fmt.Errorf("start chromium: %w", err)
	}
	tctx, cancel := context.WithTimeout(bctx, 3*time.Minute)
	defer cancel()

	var mu sync.Mutex
	urls, encodings := map[network.RequestID]string{}, map[network.RequestID]string{}
	var wb wireBytes
	if err := chromedp.Listen(tctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *network.EventResponseReceived:
			urls[e.RequestID] = e.Response.URL
			enc, _ := e.Response.Headers["Content-Encoding"].(string)
			if enc == "" {
				enc, _ = e.Response.Headers["content-encoding"].(string)
			}
			encodings[e.RequestID] = enc
		case *network.EventLoadingFinished:
			u := urls[e.RequestID]
			// Every byte received for the response, its headers included (Chromium 156 does
			// not report the body alone).
			switch {
			case strings.Contains(u, "/adreswijzer-core."):
				wb.core, wb.coreEncoding = e.EncodedDataLength, encodings[e.RequestID]
			case fetchFloor != "" && u == fetchFloor:
				wb.floor, wb.floorEncoding = e.EncodedDataLength, encodings[e.RequestID]
			}
		}
	}); err != nil {
		return loadTimes{}, wireBytes{}, err
	}
	if _, err := chromedp.Call(tctx, network.Enable, network.EnableParams{}); err != nil {
		return loadTimes{}, wireBytes{}, err
	}
	bytesPerSec := func(mbps float64) float64 { return mbps * 1e6 / 8 }
	if _, err := chromedp.Call(tctx, emulateNetworkConditions, emulateNetworkParams{
		Latency: prof.rttMs, DownloadThroughput: bytesPerSec(prof.mbps), UploadThroughput: bytesPerSec(prof.upMbps)}); err != nil {
		return loadTimes{}, wireBytes{}, fmt.Errorf("Network.emulateNetworkConditions: %w", err)
	}
	if _, err := chromedp.Call(tctx, emulation.SetCPUThrottlingRate, emulation.SetCPUThrottlingRateParams{Rate: prof.cpu}); err != nil {
		return loadTimes{}, wireBytes{}, fmt.Errorf("Emulation.setCPUThrottlingRate: %w", err)
	}
	if _, err := chromedp.Call(tctx, cdppage.AddScriptToEvaluateOnNewDocument, cdppage.AddScriptToEvaluateOnNewDocumentParams{Source: probeScript}); err != nil {
		return loadTimes{}, wireBytes{}, err
	}
	if err := chromedp.Do(tctx, chromedp.Navigate(url)); err != nil {
		return loadTimes{}, wireBytes{}, err
	}
	if _, err := chromedp.Run(tctx, chromedp.Poll[bool](`window.awBench && window.awBench.done`, chromedp.WithPollingTimeout(2*time.Minute))); err != nil {
		return loadTimes{}, wireBytes{}, fmt.Errorf("the page did not finish loading: %w", err)
	}
	js, err := chromedp.Run(tctx, chromedp.Evaluate[string](`JSON.stringify(window.awBench)`))
	if err != nil {
		return loadTimes{}, wireBytes{}, err
	}
	var t loadTimes
	if err := json.Unmarshal([]byte(js), &t); err != nil {
		return loadTimes{}, wireBytes{}, err
	}
	if fetchFloor != "" {
		if _, err := chromedp.Run(tctx, chromedp.Evaluate[float64](`fetch(`+jsString(fetchFloor)+`).then((r) => r.arrayBuffer()).then((b) => b.byteLength)`, chromedp.EvalAwaitPromise)); err != nil {
			return loadTimes{}, wireBytes{}, fmt.Errorf("fetch the empty reactor: %w", err)
		}
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			mu.Lock()
			got := wb.floor > 0
			mu.Unlock()
			if got {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if fetchFloor != "" && (wb.core == 0 || wb.floor == 0) {
		return t, wb, fmt.Errorf("the sizes of the core and the empty reactor over the wire were not seen (%+v; responses %q)", wb, slices.Collect(maps.Values(urls)))
	}
	return t, wb, nil
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// chromiumPath is Debian's Chromium, which the browser tests use too.
const chromiumPath = "/usr/bin/chromium"

type widgetServer struct {
	srv *server
	url string
}

// startWidgetServer serves dist with bin/gateway and deploy/Caddyfile.local's /widget/*
// block, as shipped.
func (b *benchRun) startWidgetServer(ctx context.Context, dist string) (*widgetServer, error) {
	local, err := os.ReadFile(filepath.Join("deploy", "Caddyfile.local"))
	if err != nil {
		return nil, err
	}
	block, err := assets.CaddyBlock(string(local))
	if err != nil {
		return nil, err
	}
	ports, err := freePorts(1)
	if err != nil {
		return nil, err
	}
	cf := fmt.Sprintf(`{
	admin off
	auto_https off
	persist_config off
	servers {
		protocols h1
	}
	log default {
		level ERROR
	}
}

http://127.0.0.1:%d {
	bind 127.0.0.1
%s
}
`, ports[0], block)
	path := filepath.Join(b.work, "Caddyfile.widget")
	if err := os.WriteFile(path, []byte(cf), 0o644); err != nil {
		return nil, err
	}
	s, err := b.start("gateway-widget", append(caddyEnv(b.work), "ADRESWIJZER_WIDGET_DIR="+dist), b.cfg.gateway, "run", "--config", path, "--adapter", "caddyfile")
	if err != nil {
		return nil, err
	}
	url := fmt.Sprintf("http://127.0.0.1:%d", ports[0])
	if err := waitReady(ctx, s, url+"/widget/"+assets.Entry, 30*time.Second, func(status int, _ []byte) bool { return status == 200 }); err != nil {
		b.stop(s)
		return nil, err
	}
	return &widgetServer{srv: s, url: url}, nil
}

// floorReactor builds an empty Go reactor with the toolchain and flags of the core, and puts
// it beside the core in dist, precompressed as the core is: the floor any Go core weighs.
func (b *benchRun) floorReactor(ctx context.Context, dist string) (string, error) {
	dir := filepath.Join(b.work, "floor")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	src := "//go:build wasip1\n\npackage main\n\nfunc main() {}\n\n//go:wasmexport nop\nfunc nop() {}\n"
	mod := "module floor\n\ngo " + strings.TrimPrefix(runtime.Version(), "go") + "\n"
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(mod), 0o644); err != nil {
		return "", err
	}
	out := filepath.Join(dir, "floor.wasm")
	cmdline := []string{"go", "-C", dir, "build", "-buildmode=c-shared", "-trimpath", "-ldflags=-s -w", "-o", out, "."}
	if _, log, err := runLogged(ctx, filepath.Join(b.work, "floor-build.log"), []string{"GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0"}, cmdline...); err != nil {
		return "", fmt.Errorf("build the empty reactor: %w\n%s", err, log)
	}
	code, err := os.ReadFile(out)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(code)
	name := "reactor-floor." + hex.EncodeToString(sum[:6]) + ".wasm"
	return name, assets.Write(dist, name, code)
}

type shopServer struct {
	*http.Server
	Addr string
}

// serveShop serves the demo checkout on a port of its own: an origin other than the
// gateway's, as a shop's is.
func serveShop(cfg demo.Config) (*shopServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &http.Server{Handler: demo.Handler(cfg), ReadHeaderTimeout: 10 * time.Second}
	go s.Serve(ln)
	return &shopServer{Server: s, Addr: ln.Addr().String()}, nil
}
