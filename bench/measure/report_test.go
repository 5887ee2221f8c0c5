package measure

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
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

// A budget on CPU per request against a baseline that does less (the gateway against
// nginx's hop): the round is chosen by the CPU ratio, the worse middle one for an even
// count, and the table shows every round's CPU ratio beside it.
func TestCPUAtMostAndMedianRoundCPU(t *testing.T) {
	round := func(loadUS, baseUS float64) Round {
		return Round{
			Load: LoadRow{Conns: 32, Run: Run{Name: "gateway → worker, uncached lookup", Stats: Stats{RPS: 5000}, ServerUSPerReq: loadUS}},
			Base: LoadRow{Conns: 32, Run: Run{Name: "nginx → worker", Stats: Stats{RPS: 9000}, ServerUSPerReq: baseUS}},
			With: []LoadRow{{Run: Run{Name: "nginx → trivial handler", ServerUSPerReq: baseUS / 2}}},
		}
	}
	m := MedianRoundCPU([]Round{round(160, 100), round(140, 100), round(120, 100)})
	if m.Load.ServerUSPerReq != 140 || m.Load.RatioUS != 1.4 || m.Load.Baseline != "nginx → worker" || m.Load.RoundRatios != nil {
		t.Errorf("median round %+v", m.Load)
	}
	if !slices.Equal(m.Load.RoundRatiosCPU, []float64{1.6, 1.4, 1.2}) || len(m.With) != 1 || m.With[0].ServerUSPerReq != 50 {
		t.Errorf("round ratios %v, with %+v", m.Load.RoundRatiosCPU, m.With)
	}
	m.Load.CPUAtMost(1.5)
	if got := checks(m.Load.Checks); got != "CPU/req ≤1.5× pass" {
		t.Errorf("checks %q", got)
	}
	if m := MedianRoundCPU([]Round{round(120, 100), round(160, 100)}); m.Load.ServerUSPerReq != 160 {
		t.Errorf("even count: the round of CPU ratio %v stands for both", m.Load.RatioUS)
	}
	over := round(151, 100).Load
	over.Compare(round(151, 100).Base)
	over.CPUAtMost(1.5)
	unmeasured := LoadRow{Run: Run{Name: "no requests"}}
	unmeasured.Compare(round(0, 100).Base)
	unmeasured.CPUAtMost(1.5)
	if over.Checks[0].OK || unmeasured.Checks[0].OK {
		t.Errorf("1.51× passed %v, no CPU figure passed %v", over.Checks, unmeasured.Checks)
	}
	rep := &Report{Loads: []LoadRow{m.Base, m.Load, over}}
	var md strings.Builder
	rep.Markdown(&md)
	if !strings.Contains(md.String(), "1.40× (median of 1.60, 1.40, 1.20)") {
		t.Errorf("the table does not show the CPU rounds:\n%s", md.String())
	}
	if missed := rep.missed(); len(missed) != 1 || !strings.HasSuffix(missed[0], "server CPU per request 1.51× its, p99 0.00 ms; target CPU/req ≤1.5×") {
		t.Errorf("missed %q", missed)
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

// A server that forks its workers is measured with them, grandchildren included.
func TestProcessTree(t *testing.T) {
	cmd := exec.Command("sh", "-c", "sh -c 'sleep 30 & wait' & sleep 30 & wait")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); cmd.Wait() })
	var tree []int
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		// the shell, its sleep and its child shell, and that one's sleep
		if tree = ProcessTree(cmd.Process.Pid); len(tree) == 4 {
			break
		}
	}
	if len(tree) != 4 || tree[0] != cmd.Process.Pid {
		t.Fatalf("tree of the shell %d: %v", cmd.Process.Pid, tree)
	}
	for _, pid := range tree[1:] {
		if _, err := ProcCPU(pid); err != nil {
			t.Errorf("%d: %v", pid, err)
		}
	}
	if tree := ProcessTree(os.Getpid()); slices.Contains(tree, os.Getppid()) || tree[0] != os.Getpid() {
		t.Errorf("the test's own tree %v holds its parent", tree)
	}
}
