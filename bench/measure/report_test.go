package measure

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestThousands(t *testing.T) {
	for _, tc := range []struct {
		in   float64
		want string
	}{
		{0, "0"}, {999, "999"}, {1000, "1,000"}, {25892.4, "25,892"}, {-1234567, "-1,234,567"}, {10_000_000, "10,000,000"},
	} {
		if got := thousands(tc.in); got != tc.want {
			t.Errorf("thousands(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestLoadRowRatiosAndTargets(t *testing.T) {
	base := LoadRow{Run: Run{Name: "trivial Go handler", Stats: Stats{RPS: 20000, P99: 4}, ServerUSPerReq: 40}}
	r := LoadRow{Run: Run{Name: "worker lookup", Stats: Stats{RPS: 17000, P99: 6}, ServerUSPerReq: 50}}
	r.Compare(base)
	r.AtLeast(0.8)
	r.CPUAtLeast(0.8)
	r.CPUAtLeast(0.9)
	r.P99Within(5)
	if r.RatioRPS != 0.85 || r.RatioUS != 1.25 || r.BaseP99 != 4 {
		t.Errorf("ratios %v %v %v", r.RatioRPS, r.RatioUS, r.BaseP99)
	}
	if got := checks(r.Checks); got != "≥0.8× pass; ≥0.8× by CPU pass; ≥0.9× by CPU FAIL; p99≤5ms FAIL" {
		t.Errorf("checks %q", got)
	}
	rep := &Report{Loads: []LoadRow{r}}
	if m := rep.missed(); len(m) != 1 || !strings.HasSuffix(m[0], "target ≥0.9× by CPU, p99≤5ms") {
		t.Errorf("missed %q", m)
	}
}

// Rounds taken in turn: the median round stands for all, with every ratio shown beside it;
// for an even count the lower middle one, so that the luckier half never meets a target.
func TestMedianRound(t *testing.T) {
	round := func(load, base float64) Round {
		return Round{Load: LoadRow{Run: Run{Name: "gateway", Stats: Stats{RPS: load}}}, Base: LoadRow{Run: Run{Name: "proxy", Stats: Stats{RPS: base}}}}
	}
	m := MedianRound([]Round{round(900, 1000), round(700, 1000), round(820, 1000)})
	if m.Load.RPS != 820 || m.Base.RPS != 1000 || m.Load.RatioRPS != 0.82 || m.Load.Baseline != "proxy" {
		t.Errorf("median round %+v", m.Load)
	}
	if !slices.Equal(m.Load.RoundRatios, []float64{0.9, 0.7, 0.82}) {
		t.Errorf("round ratios %v", m.Load.RoundRatios)
	}
	m.Load.AtLeast(0.8)
	rep := &Report{Loads: []LoadRow{m.Base, m.Load}}
	var md strings.Builder
	rep.Markdown(&md)
	if !strings.Contains(md.String(), "0.82× (median of 0.90, 0.70, 0.82)") {
		t.Errorf("the table does not show the rounds:\n%s", md.String())
	}
	if m := MedianRound([]Round{round(900, 1000), round(700, 1000)}); m.Load.RPS != 700 {
		t.Errorf("even count: the round of ratio %v stands for both", m.Load.RatioRPS)
	}
	if m := MedianRound([]Round{round(900, 1000)}); m.Load.RatioRPS != 0.9 || m.Load.RoundRatios != nil {
		t.Errorf("one round: %+v", m.Load)
	}
}

// Paced rows carry the latency targets and are counted and listed with the others; an
// informational limit on a saturation row is shown but counted neither way.
func TestPacedRowsAndInfoChecks(t *testing.T) {
	base := LoadRow{Group: "paced", Rate: 2000, Run: Run{Name: "trivial Go handler", Stats: Stats{Requests: 20000, RPS: 2000, P50: 0.2, P99: 0.8, Max: 3}}}
	validate := LoadRow{Group: "paced", Rate: 2000, Run: Run{Name: "worker validate",
		Stats: Stats{Requests: 20000, RPS: 1999, P50: 0.6, P99: 6.4, Max: 40, Errors: 20, ErrorText: "20 × status 500"}}}
	validate.Compare(base)
	validate.P99Within(5)
	suggest := LoadRow{Group: "paced", Rate: 2000, Run: Run{Name: "worker suggest", Stats: Stats{Requests: 20000, RPS: 2000, P50: 0.5, P99: 2.4, Max: 12}}}
	suggest.Compare(base)
	suggest.P99Within(10)
	sat := LoadRow{Group: "worker", Conns: 32, Run: Run{Name: "worker validate", Stats: Stats{RPS: 12000, P99: 45}}}
	sat.Compare(LoadRow{Run: Run{Name: "trivial Go handler", Stats: Stats{RPS: 10000, P99: 7}}})
	sat.AtLeast(0.8)
	sat.P99Info(5)
	if got := checks(sat.Checks); got != "≥0.8× pass; p99≤5ms over (info)" {
		t.Errorf("saturation checks %q", got)
	}
	if r := validate.RatioP99(); r != 8 {
		t.Errorf("p99 ratio %v, want 8", r)
	}
	if base.RatioP99() != 0 {
		t.Errorf("the baseline has a p99 ratio")
	}
	rep := &Report{Loads: []LoadRow{sat}, Paced: []LoadRow{base, validate, suggest}}
	if pass, fail := rep.targets(); pass != 2 || fail != 1 {
		t.Errorf("targets %d met, %d missed; want 2, 1", pass, fail)
	}
	want := "worker validate, paced at 2,000 req/s: p99 6.40 ms = 8.00× trivial Go handler's (0.80 ms), errors 0.10% (20 × status 500); target p99≤5ms"
	if m := rep.missed(); len(m) != 1 || m[0] != want {
		t.Errorf("missed %q\nwant %q", m, want)
	}
	var out strings.Builder
	rep.Markdown(&out)
	for _, s := range []string{"### Paced loads", "| worker suggest ", "| 2,000 ", "| 3.00× ", "| 12.00 ", "p99≤10ms pass", "0.00%"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("the report lacks %q:\n%s", s, out.String())
		}
	}
}

// The report survives its JSON form, which `bench report` renders again.
func TestReportRoundTrip(t *testing.T) {
	r := &Report{
		Started: time.Date(2026, 11, 22, 21, 0, 0, 0, time.UTC), Finished: time.Date(2026, 11, 22, 21, 40, 0, 0, time.UTC),
		Command: "go run ./bench/cmd/bench", Machine: Machine{CPU: "AMD EPYC", Cores: 2, MemoryGiB: 23.5},
		Sizes: Sizes{Scale: 1, NLRequested: 10_000_000, NLAddresses: 9_922_053},
		Loads: []LoadRow{{Group: "worker", Conns: 32, Run: Run{Name: "worker lookup", Stats: Stats{RPS: 12345, P50: 1, P99: 9}},
			Baseline: "trivial Go handler", BaseRPS: 24690, RatioRPS: 0.5, Checks: []Check{{Target: "≥0.8×"}}}},
		Figures: []Figure{{Section: "memory", Name: "memory store", Value: 41.5, Unit: "B", Checks: []Check{{Target: "≤64 B", OK: true}}}},
		Micro:   []Bench{{Package: "github.com/adreswijzer/adreswijzer/gateway", Name: "BenchmarkDecide/live_lookup", Metrics: []Metric{{2500, "ns/op"}}}},
	}
	path := filepath.Join(t.TempDir(), "bench.json")
	if err := r.WriteJSON(path); err != nil {
		t.Fatal(err)
	}
	back, err := ReadJSON(path)
	if err != nil {
		t.Fatal(err)
	}
	var a, b strings.Builder
	r.Markdown(&a)
	back.Markdown(&b)
	if a.String() != b.String() {
		t.Errorf("the JSON form renders differently:\n%s\n---\n%s", a.String(), b.String())
	}
	for _, want := range []string{
		"| worker lookup ", "| 12,345 ", "| 0.50× ", "≥0.8× FAIL", "| memory: memory store ", "≤64 B pass",
		"| gateway | ", "BenchmarkDecide/live_lookup", "2500 ns/op", "9,922,053",
	} {
		if !strings.Contains(a.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, a.String())
		}
	}
	if _, err := ReadJSON(filepath.Join(t.TempDir(), "missing.json")); !os.IsNotExist(err) {
		t.Errorf("ReadJSON of a missing file: %v", err)
	}
}

func TestCPUMeterCountsTheProcess(t *testing.T) {
	m := NewCPUMeter(StaticPIDs(os.Getpid()))
	m.Start(10 * time.Millisecond)
	for end := time.Now().Add(300 * time.Millisecond); time.Now().Before(end); {
	}
	if used := m.Stop(); used <= 0 || used > 5*time.Second {
		t.Errorf("a 300 ms busy loop used %v of CPU", used)
	}
	if busy, err := MachineCPU(); err != nil || busy <= 0 {
		t.Errorf("MachineCPU = %v, %v", busy, err)
	}
	if rss, err := ProcStatus(os.Getpid(), "VmRSS"); err != nil || rss <= 0 {
		t.Errorf("VmRSS = %v, %v", rss, err)
	}
	if pids := PIDsMatching(func(string) bool { return true }); len(pids) == 0 {
		t.Error("no processes at all")
	}
}
