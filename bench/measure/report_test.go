package measure

import (
	"os"
	"path/filepath"
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

// The report survives its JSON form, which `bench report` renders again.
func TestReportRoundTrip(t *testing.T) {
	r := &Report{
		Started: time.Date(2026, 11, 22, 21, 0, 0, 0, time.UTC), Finished: time.Date(2026, 11, 22, 21, 40, 0, 0, time.UTC),
		Command: "go run ./bench/cmd/bench", Machine: Machine{CPU: "AMD EPYC", Cores: 2, MemoryGiB: 23.5},
		Sizes: Sizes{Scale: 1, NLRequested: 10_000_000, NLAddresses: 9_922_053},
		Loads: []LoadRow{{Group: "worker", Conns: 32, Run: Run{Name: "worker lookup", Stats: Stats{RPS: 12345, P50: 1, P99: 9}},
			Baseline: "trivial Go handler", BaseRPS: 24690, RatioRPS: 0.5, Checks: []Check{{"≥0.8×", false}}}},
		Figures: []Figure{{Section: "memory", Name: "memory store", Value: 41.5, Unit: "B", Checks: []Check{{"≤64 B", true}}}},
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
