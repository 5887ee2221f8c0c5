package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/adreswijzer/adreswijzer/bench/measure"
)

// microBenchmarks are the packages' own benchmarks: every package that has some. Most
// measure their own baseline in the same run or carry a target; microFigures lifts those
// into the figures. Benchtimes keep each package under a minute or so: the heavy ones
// (national indexes, a million rows into Postgres, the generator) run once.
var microBenchmarks = []struct{ pkg, pattern, benchtime string }{
	{"./store/memory", "^(BenchmarkMemoryPerAddress|BenchmarkSnapshotLoad|BenchmarkSnapshotWrite)$", "1x"},
	{"./store/memory", "^(BenchmarkAddressesAt|BenchmarkAddressesOnStreet)$", "1s"},
	{"./store/bag", ".", "3x"},
	{"./store/best", ".", "3x"},
	{"./store/internal/xmlscan", ".", "3x"},
	{"./store/postgres", "^BenchmarkCopyLoad$", "1x"},
	{"./store/postgres", "^BenchmarkAddressesAt$", "1s"},
	{"./worker/match", "^BenchmarkIndexNational$", "1x"},
	{"./worker/match", "^(BenchmarkSuggestNational|BenchmarkValidate|BenchmarkLookup|BenchmarkAutocomplete)$", "2s"},
	{"./worker/httpapi", "^BenchmarkHandler$", "1s"},
	{"./worker/mcpserver", ".", "1s"},
	{"./gateway", "^BenchmarkDecide$", "1s"},
	{"./gateway/agentpolicy", ".", "1s"},
	{"./gateway/agentpolicy/oauth", ".", "1s"},
	{"./gateway/agentpolicy/limits", ".", "1s"},
	{"./gateway/agentpolicy/rpcinspect", ".", "1s"},
	{"./gateway/limit", ".", "1s"},
	{"./gateway/usage", ".", "1s"},
	{"./caddymodule", "^BenchmarkThroughCaddy$", "1s"},
	{"./wasm", "^BenchmarkKeystroke$", "1s"},
	{"./wasm/form", ".", "1s"},
	{"./bench/gen", ".", "1x"},
}

// micro runs the micro-benchmarks. A package that fails (it does not build, a benchmark
// fails) is reported in the notes and the run goes on: after a national run of most of an
// hour, one broken package should not take the other figures with it.
func (b *benchRun) micro(ctx context.Context) error {
	fmt.Fprintln(b.log, "Go micro-benchmarks")
	wasm, err := filepath.Abs(b.cfg.wasm)
	if err != nil {
		return err
	}
	// The wasm package's benchmark runs the module make built instead of building its own.
	env := []string{"ADRESWIJZER_WASM=" + wasm}
	for i, m := range microBenchmarks {
		bt := m.benchtime
		if b.cfg.quick {
			bt = "1x"
		}
		b.cfg.guard.Wait(ctx)
		logPath := filepath.Join(b.work, fmt.Sprintf("micro-%d.log", i))
		started := time.Now()
		_, out, err := runLogged(ctx, logPath, env, "go", "test", "-run", "^$", "-bench", m.pattern, "-benchtime", bt, "-count", "1", m.pkg)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var res []measure.Bench
		if err == nil {
			res, err = measure.ParseGoBench(strings.NewReader(string(out)))
		}
		if err == nil && len(res) == 0 {
			err = errors.New("no results")
		}
		if err != nil {
			fmt.Fprintf(b.log, "  %s -bench %s: %s\n", m.pkg, m.pattern, firstLine(err.Error()))
			b.rep.Notes = append(b.rep.Notes, fmt.Sprintf("Micro-benchmarks `go test -bench '%s' %s` failed: %s; the log ends: %s",
				m.pattern, m.pkg, firstLine(err.Error()), lastLines(logTail(logPath), 3)))
			continue
		}
		for _, r := range res {
			fmt.Fprintf(b.log, "  %s %v\n", r.Name, r.Metrics)
		}
		fmt.Fprintf(b.log, "  (%s: %.0f s)\n", m.pkg, time.Since(started).Seconds())
		b.rep.Micro = append(b.rep.Micro, res...)
	}
	b.microFigures()
	return nil
}

// lastLines joins the last n non-empty lines of a log into one line for a note.
func lastLines(log string, n int) string {
	var keep []string
	for _, l := range strings.Split(log, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep[max(0, len(keep)-n):], " / ")
}

// microFigures lifts the micro-benchmark results that have a target, or a baseline of the
// same run, into the figures.
func (b *benchRun) microFigures() {
	find := func(name string) (measure.Bench, bool) {
		for _, r := range b.rep.Micro {
			if r.Name == name {
				return r, true
			}
		}
		return measure.Bench{}, false
	}
	load := measure.LoadAvg()
	if r, ok := find("BenchmarkMemoryPerAddress"); ok {
		if v, ok := r.Get("B/addr"); ok {
			b.rep.Figures = append(b.rep.Figures, measure.Figure{Section: "micro", Name: "memory store per address, 1M synthetic (BenchmarkMemoryPerAddress)",
				Value: v, Unit: "B", Baseline: "memory store per address at the run's size (probe)", BaseValue: b.storeBytes, BaseUnit: "B",
				Ratio: v / max(b.storeBytes, 1e-9), Checks: []measure.Check{{Target: "≤64 B", OK: v <= 64}}, Load1: load})
		}
	}
	if base, ok := find("BenchmarkHandler/baseline"); ok {
		bns, _ := base.Get("ns/op")
		for _, sub := range []string{"lookup", "validate"} {
			r, ok := find("BenchmarkHandler/" + sub)
			if !ok {
				continue
			}
			v, _ := r.Get("ns/op")
			b.rep.Figures = append(b.rep.Figures, measure.Figure{Section: "micro", Name: "worker handler " + sub + " (BenchmarkHandler, no network)",
				Value: v, Unit: "ns/op", Baseline: "trivial handler, same benchmark", BaseValue: bns, BaseUnit: "ns/op", Ratio: v / bns, Load1: load})
		}
	}
	// In-process latencies have absolute targets; no same-run baseline compares with them.
	for _, t := range []struct {
		name  string
		limit float64
	}{{"BenchmarkSuggestNational", 10}, {"BenchmarkValidate", 5}} {
		if r, ok := find(t.name); ok {
			p99, _ := r.Get("p99-µs")
			b.rep.Figures = append(b.rep.Figures, measure.Figure{Section: "micro", Name: "engine p99 in-process (" + t.name + ")",
				Value: p99 / 1e3, Unit: "ms", Checks: []measure.Check{{Target: fmt.Sprintf("≤%gms", t.limit), OK: p99/1e3 <= t.limit}}, Load1: load})
		}
	}
	if r, ok := find("BenchmarkAddressesAt"); ok {
		v, _ := r.Get("ns/op")
		m, _ := r.Get("map-ns/op")
		b.rep.Figures = append(b.rep.Figures, measure.Figure{Section: "micro", Name: "memory store AddressesAt, random existing key (BenchmarkAddressesAt)",
			Value: v, Unit: "ns/op", Baseline: "Go map lookup of the same keys, same benchmark", BaseValue: m, BaseUnit: "ns/op", Ratio: v / m, Load1: load})
	}
	if r, ok := find("BenchmarkDecide/live_lookup"); ok {
		v, _ := r.Get("ns/op")
		if x, _ := r.Get("x_trivial_handler"); x > 0 {
			b.rep.Figures = append(b.rep.Figures, measure.Figure{Section: "micro", Name: "gateway policy decision, live key lookup (BenchmarkDecide)",
				Value: v, Unit: "ns/op", Baseline: "trivial handler called directly, same benchmark", BaseValue: v / x, BaseUnit: "ns/op", Ratio: x, Load1: load})
		}
	}
	if r, ok := find("BenchmarkImportWeesp"); ok {
		v, _ := r.Get("addr/s")
		b.rep.Figures = append(b.rep.Figures, measure.Figure{Section: "micro", Name: "BAG import of the Weesp extract (BenchmarkImportWeesp)",
			Value: v, Unit: "addresses/s", Checks: []measure.Check{{Target: "≥100,000/s", OK: v >= 100_000}}, Load1: load})
	}
}

var (
	wasmSize  = regexp.MustCompile(`adreswijzer\.wasm: (\d+) bytes raw .*?, (\d+) bytes gzip`)
	wasmFloor = regexp.MustCompile(`empty Go reactor .*?: (\d+) raw, (\d+) gzip`)
)

// wasm reports the size of the form's module as `make build` leaves it, which is what the
// widget serves, against the Go runtime's floor that the wasm package's test builds in the
// same run with the same toolchain and flags.
func (b *benchRun) wasm(ctx context.Context) error {
	fmt.Fprintln(b.log, "WASM size")
	out, err := filepath.Abs(b.cfg.wasm)
	if err != nil {
		return err
	}
	_, log, err := runLogged(ctx, filepath.Join(b.work, "wasm-test.log"), []string{"ADRESWIJZER_WASM=" + out},
		"go", "test", "./wasm", "-run", "^TestReportWasmSize$", "-count", "1", "-v")
	if err != nil {
		return err
	}
	s, f := wasmSize.FindSubmatch(log), wasmFloor.FindSubmatch(log)
	if s == nil || f == nil {
		return fmt.Errorf("TestReportWasmSize: no sizes in its output\n%s", log)
	}
	atoi := func(b []byte) float64 { n, _ := strconv.Atoi(string(b)); return float64(n) }
	if fi, err := os.Stat(out); err != nil || float64(fi.Size()) != atoi(s[1]) {
		return fmt.Errorf("TestReportWasmSize measured another module than %s", out)
	}
	b.rep.Notes = append(b.rep.Notes, "WASM: the module as `make build` built it (GOOS=wasip1 GOARCH=wasm, -buildmode=c-shared -trimpath -ldflags=\"-s -w\" -gcflags=\"github.com/adreswijzer/adreswijzer/...=-l\"), copied at the start of the run.")
	load := measure.LoadAvg()
	for i, kind := range []string{"raw", "gzip -9"} {
		v, base := atoi(s[1+i]), atoi(f[1+i])
		b.rep.Figures = append(b.rep.Figures, measure.Figure{Section: "wasm", Name: "address form module, " + kind,
			Value: v / 1e3, Unit: "kB", Baseline: "empty Go reactor, same toolchain and flags", BaseValue: base / 1e3, BaseUnit: "kB",
			Ratio: v / base, Load1: load})
	}
	return nil
}
