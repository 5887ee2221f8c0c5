package main

import (
	"context"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/adreswijzer/adreswijzer/bench/measure"
	"github.com/adreswijzer/adreswijzer/widget/assets"
)

// TestMain lets the test binary play the driver's helper processes, which the driver
// starts by running its own executable with a subcommand.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 {
		if sub, ok := subcommands[os.Args[1]]; ok {
			if err := sub(os.Args[2:], os.Stdout); err != nil {
				os.Stderr.WriteString(err.Error() + "\n")
				os.Exit(1)
			}
			os.Exit(0)
		}
	}
	os.Exit(m.Run())
}

func TestParseConfig(t *testing.T) {
	for _, tc := range []struct {
		name   string
		args   []string
		env    string
		ok     bool
		nl, be int64
		conns  []int
		check  func(config) bool
	}{
		{"national by default", nil, "", true, 10_000_000, 6_500_000, []int{8, 32, 64}, func(c config) bool { return c.rate == 2000 }},
		{"scale", []string{"-scale", "0.1"}, "", true, 1_000_000, 650_000, []int{8, 32, 64}, nil},
		{"BENCH_SCALE", nil, "0.5", true, 5_000_000, 3_250_000, []int{8, 32, 64}, nil},
		{"flag over BENCH_SCALE", []string{"-scale", "0.2"}, "0.5", true, 2_000_000, 1_300_000, []int{8, 32, 64}, nil},
		{"quick", []string{"-quick"}, "", true, 10_000, 6_500, []int{8},
			func(c config) bool { return c.duration == 2*time.Second && c.guard.Tries == 1 && c.rate == 200 }},
		{"quick keeps what is given", []string{"-quick", "-conns", "4,16", "-duration", "3s"}, "", true, 10_000, 6_500, []int{4, 16},
			func(c config) bool { return c.duration == 3*time.Second }},
		{"skip", []string{"-skip", "micro, wasm"}, "", true, 10_000_000, 6_500_000, []int{8, 32, 64},
			func(c config) bool { return c.skip["micro"] && c.skip["wasm"] && !c.skip["gateway"] }},
		{"rate", []string{"-quick", "-rate", "500"}, "", true, 10_000, 6_500, []int{8}, func(c config) bool { return c.rate == 500 }},
		{"no paced loads", []string{"-rate", "0"}, "", true, 10_000_000, 6_500_000, []int{8, 32, 64}, func(c config) bool { return c.rate == 0 }},
		{"bad rate", []string{"-rate", "-1"}, "", false, 0, 0, nil, nil},
		{"unknown phase", []string{"-skip", "imports"}, "", false, 0, 0, nil, nil},
		{"bad conns", []string{"-conns", "8,x"}, "", false, 0, 0, nil, nil},
		{"bad scale", []string{"-scale", "0"}, "", false, 0, 0, nil, nil},
		{"bad BENCH_SCALE", nil, "lots", false, 0, 0, nil, nil},
		{"too many hot keys", []string{"-keys", "10", "-hot-keys", "20"}, "", false, 0, 0, nil, nil},
		{"stray argument", []string{"now"}, "", false, 0, 0, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("BENCH_SCALE", tc.env)
			cfg, err := parseConfig(tc.args, io.Discard)
			if (err == nil) != tc.ok {
				t.Fatalf("parseConfig(%q): %v", tc.args, err)
			}
			if !tc.ok {
				return
			}
			if cfg.nl != tc.nl || cfg.be != tc.be || !slices.Equal(cfg.conns, tc.conns) {
				t.Errorf("nl %d be %d conns %v", cfg.nl, cfg.be, cfg.conns)
			}
			if tc.check != nil && !tc.check(cfg) {
				t.Errorf("config %+v", cfg)
			}
		})
	}
}

func TestTypo(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"Hugo de Grootlaan", true},
		{"Rue de l'Église", true},
		{"Dorp", false},
		{"A 12", false},
	} {
		got, ok := typo(tc.name, r)
		if ok != tc.ok {
			t.Errorf("typo(%q) = %q, %v", tc.name, got, ok)
			continue
		}
		if ok && (len([]rune(got)) != len([]rune(tc.name))-1 || got == tc.name) {
			t.Errorf("typo(%q) = %q: want one letter fewer", tc.name, got)
		}
	}
}

// TestQuickRun runs the whole benchmark at tiny sizes with short loads, as `make bench`
// runs it at national size: generator, imports into memory and Postgres, baselines, worker,
// gateway and Postgres loads. It checks that every load ran without errors and that every
// figure has its baseline, not what the figures are (timings are not tested).
func TestQuickRun(t *testing.T) {
	repo, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	for _, b := range [][2]string{{"worker", "./worker/cmd/worker"}, {"gateway", "./caddymodule/cmd/gateway"}} {
		cmd := exec.Command("go", "build", "-o", filepath.Join(bin, b[0]), b[1])
		cmd.Dir = repo
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("build %s: %v\n%s", b[0], err, out)
		}
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chdir(wd) }) // run moves to the repository root
	jsonPath := filepath.Join(t.TempDir(), "bench.json")
	cfg, err := parseConfig([]string{"-quick", "-skip", "micro,wasm,widget", "-repo", repo, "-worker", filepath.Join(bin, "worker"),
		"-gateway", filepath.Join(bin, "gateway"), "-out", jsonPath, "-work", t.TempDir()}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var stdout, log strings.Builder
	if err := run(context.Background(), cfg, &stdout, &log); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	rep, err := measure.ReadJSON(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	loads := map[string]measure.LoadRow{}
	caddyHop := 0 // Caddy's hop alone, against nginx's
	for _, l := range rep.Loads {
		loads[l.Name] = l
		if l.Name == "Caddy → trivial handler" && l.Baseline == "nginx → trivial handler" && l.RatioUS > 0 {
			caddyHop++
		}
		if l.Requests == 0 || l.Errors > 0 || l.ServerCPU <= 0 {
			t.Errorf("%s: %d requests, %d errors (%s), %.2f s server CPU", l.Name, l.Requests, l.Errors, l.ErrorText, l.ServerCPU)
		}
	}
	for name, base := range map[string]string{
		"trivial Go handler":                             "",
		"worker lookup":                                  "trivial Go handler",
		"worker validate":                                "trivial Go handler",
		"worker suggest":                                 "trivial Go handler",
		"worker autocomplete":                            "trivial Go handler",
		"worker lookup, NL only":                         "trivial Go handler",
		"worker lookup, BE only":                         "trivial Go handler",
		"Caddy static respond":                           "",
		"gateway → worker, cached lookup":                "Caddy static respond",
		"Caddy → trivial handler":                        "",
		"nginx → trivial handler":                        "",
		"nginx → worker, lookup":                         "nginx → trivial handler",
		"gateway → worker, uncached lookup":              "nginx → worker, lookup",
		"gateway policy → trivial handler":               "Caddy → trivial handler",
		"Caddy → worker, lookup":                         "Caddy → trivial handler",
		"Caddy, transport adreswijzer → trivial handler": "Caddy → trivial handler",
		"pgbench -S point select":                        "",
		"worker on Postgres, lookup, no cache":           "pgbench -S point select",
	} {
		l, ok := loads[name]
		if !ok {
			t.Errorf("no load %q", name)
			continue
		}
		if l.Baseline != base || (base != "" && l.RatioRPS <= 0) {
			t.Errorf("%s: baseline %q ratio %v, want baseline %q", name, l.Baseline, l.RatioRPS, base)
		}
	}
	paced := map[string]measure.LoadRow{}
	for _, l := range rep.Paced {
		paced[l.Name] = l
		if l.Requests == 0 || l.Errors > 0 || l.ServerCPU <= 0 || l.ClientCPU <= 0 || l.Rate != 200 || l.P99 <= 0 || l.Max < l.P99 {
			t.Errorf("paced %s: %d requests at %d/s, %d errors (%s), %.2f s server and %.2f s vegeta CPU, p99 %v max %v",
				l.Name, l.Requests, l.Rate, l.Errors, l.ErrorText, l.ServerCPU, l.ClientCPU, l.P99, l.Max)
		}
	}
	for _, name := range []string{"trivial Go handler", "worker lookup", "worker validate", "worker suggest", "worker autocomplete"} {
		l, ok := paced[name]
		switch {
		case !ok:
			t.Errorf("no paced load %q", name)
		case name != "trivial Go handler" && (l.Baseline != "trivial Go handler" || l.RatioP99() <= 0):
			t.Errorf("paced %s: baseline %q, p99 ratio %v", name, l.Baseline, l.RatioP99())
		}
	}
	if caddyHop != 1 {
		t.Errorf("%d rows of Caddy's hop alone against nginx's at one concurrency", caddyHop)
	}
	if got := checks(paced["worker validate"].Checks, paced["worker suggest"].Checks, loads["worker lookup"].Checks, loads["worker validate"].Checks,
		loads["gateway → worker, cached lookup"].Checks, loads["gateway → worker, uncached lookup"].Checks, loads["nginx → worker, lookup"].Checks); !slices.Equal(got,
		[]string{"p99≤5ms", "p99≤10ms", "≥0.8×", "≥0.8× by CPU", "≥0.5×", "≥0.5× by CPU", "p99≤5ms (info)", "≥0.8×", "CPU/req ≤1.5×"}) {
		t.Errorf("targets %q", got)
	}
	sections := map[string]int{}
	for _, f := range rep.Figures {
		sections[f.Section]++
		if f.Value <= 0 || (f.Baseline != "" && f.Ratio <= 0) {
			t.Errorf("figure %s: %v %s, baseline %q ratio %v", f.Name, f.Value, f.Unit, f.Baseline, f.Ratio)
		}
	}
	if sections["import"] != 8 || sections["memory"] < 8 {
		t.Errorf("figures per section: %v", sections)
	}
	if rep.Sizes.NLAddresses == 0 || rep.Sizes.BEAddresses == 0 {
		t.Errorf("sizes %+v", rep.Sizes)
	}
	for _, want := range []string{"### Imports and memory", "### Loads", "### Paced loads", "X-Cache: HIT"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("the printed report lacks %q", want)
		}
	}
}

// checks lists the targets of checks, informational ones marked.
func checks(lists ...[]measure.Check) []string {
	var out []string
	for _, cs := range lists {
		for _, c := range cs {
			if c.Info {
				out = append(out, c.Target+" (info)")
			} else {
				out = append(out, c.Target)
			}
		}
	}
	return out
}

// TestWidgetPhase runs the address form's phase on its own (-only widget), quick, as `make
// bench BENCH_ARGS="-only widget"` runs it: the form's files built as make builds them, served
// by bin/gateway, loaded in Chromium on both profiles. It checks that every figure is there
// with its baseline and ratio, not what the figures are.
func TestWidgetPhase(t *testing.T) {
	repo, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	cmd := exec.Command("go", "build", "-o", filepath.Join(bin, "gateway"), "./caddymodule/cmd/gateway")
	cmd.Dir = repo
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build gateway: %v\n%s", err, out)
	}
	wasm := os.Getenv("ADRESWIJZER_WASM")
	if wasm == "" {
		wasm = filepath.Join(bin, "adreswijzer.wasm")
		cmd := exec.Command("go", "build", "-buildmode=c-shared", "-trimpath", "-ldflags=-s -w",
			"-gcflags=github.com/adreswijzer/adreswijzer/...=-l", "-o", wasm, "./wasm")
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("build the core: %v\n%s", err, out)
		}
	} else if !filepath.IsAbs(wasm) {
		wasm = filepath.Join(repo, wasm)
	}
	dist := filepath.Join(bin, "dist")
	if _, err := assets.Build(filepath.Join(repo, "widget"), wasm, dist); err != nil {
		t.Fatal(err)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chdir(wd) })
	jsonPath := filepath.Join(t.TempDir(), "bench.json")
	cfg, err := parseConfig([]string{"-quick", "-only", "widget", "-repo", repo, "-gateway", filepath.Join(bin, "gateway"),
		"-dist", dist, "-out", jsonPath, "-work", t.TempDir()}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var stdout, log strings.Builder
	if err := run(context.Background(), cfg, &stdout, &log); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	rep, err := measure.ReadJSON(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]measure.Figure{}
	for _, f := range rep.Figures {
		got[f.Name] = f
	}
	for _, p := range netProfiles {
		for _, name := range []string{"address form takes typing", "address form's own fields drawn", "address form's core ready"} {
			f, ok := got[p.name+": "+name]
			if !ok || f.Value <= 0 || f.BaseValue <= 0 || f.Ratio <= 0 {
				t.Errorf("%s: %s: %+v", p.name, name, f)
			}
		}
	}
	if f := got["form's core over the wire (brotli, with its response headers)"]; f.Value <= 0 || f.BaseValue <= 0 || len(f.Checks) != 1 {
		t.Errorf("core over the wire: %+v", f)
	}
	if !strings.Contains(stdout.String(), "address form takes typing") {
		t.Errorf("the report does not print the form's figures:\n%s", stdout.String())
	}
	t.Logf("\n%s\n%s", stdout.String(), log.String())
}
