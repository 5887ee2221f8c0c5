package measure

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Report is everything one benchmark run measured. Every figure sits next to the baseline
// it is compared with, measured in the same run, because absolute figures from a shared
// two-core machine say little on their own.
type Report struct {
	Started  time.Time `json:"started"`
	Finished time.Time `json:"finished"`
	Command  string    `json:"command"`
	// Revision is the commit the builds came from, "+dirty" with uncommitted changes.
	Revision string    `json:"revision,omitempty"`
	Machine  Machine   `json:"machine"`
	Sizes    Sizes     `json:"sizes"`
	Loads    []LoadRow `json:"loads"`
	// Paced are the loads sent at a constant rate (open loop), where the latency targets
	// apply; Loads run the servers flat out.
	Paced   []LoadRow `json:"paced,omitempty"`
	Figures []Figure  `json:"figures"`
	Micro   []Bench   `json:"micro"`
	Notes   []string  `json:"notes,omitempty"`
}

// Machine describes where the figures come from.
type Machine struct {
	CPU        string  `json:"cpu"`
	Cores      int     `json:"cores"`
	MemoryGiB  float64 `json:"memory_gib"`
	Kernel     string  `json:"kernel"`
	Go         string  `json:"go"`
	Wrk        string  `json:"wrk"`
	Pgbench    string  `json:"pgbench"`
	Postgres   string  `json:"postgres"`
	Nginx      string  `json:"nginx,omitempty"`
	Load1Start float64 `json:"load1_start"`
	Load1End   float64 `json:"load1_end"`
	// OtherCoresMedian is the median of the other tenants' cores over all loads.
	OtherCoresMedian float64 `json:"other_cores_median"`
}

// Sizes are the dataset sizes asked for and imported.
type Sizes struct {
	Scale       float64 `json:"scale"`
	NLRequested int64   `json:"nl_requested"`
	BERequested int64   `json:"be_requested"`
	NLAddresses int64   `json:"nl_addresses"`
	BEAddresses int64   `json:"be_addresses"`
	Duration    string  `json:"load_duration"`
}

// Check is one target and whether the figure meets it. Targets are reported, never
// enforced: a missed one is a finding, not a failed build. An Info check is a limit shown
// beside a figure it does not apply to (a latency limit at saturation), counted neither
// as met nor as missed.
type Check struct {
	Target string `json:"target"`
	OK     bool   `json:"ok"`
	Info   bool   `json:"info,omitempty"`
}

func (c Check) String() string {
	switch {
	case c.Info && c.OK:
		return c.Target + " within (info)"
	case c.Info:
		return c.Target + " over (info)"
	case c.OK:
		return c.Target + " pass"
	}
	return c.Target + " FAIL"
}

// LoadRow is a measured load with the baseline it is compared with.
type LoadRow struct {
	Group string `json:"group"`
	Conns int    `json:"conns,omitempty"`
	// Rate is the requests per second a paced load was asked to send.
	Rate int `json:"rate,omitempty"`
	Run
	Baseline string  `json:"baseline,omitempty"`
	BaseRPS  float64 `json:"baseline_rps,omitempty"`
	RatioRPS float64 `json:"ratio_rps,omitempty"`
	BaseUS   float64 `json:"baseline_cpu_us_per_req,omitempty"`
	RatioUS  float64 `json:"ratio_cpu,omitempty"`
	BaseP99  float64 `json:"baseline_p99_ms,omitempty"`
	// RoundRatios are the throughput ratios of every round when the load and its baseline
	// were measured several times in turn (see MedianRound); the row is the median round's.
	RoundRatios []float64 `json:"round_ratios,omitempty"`
	// RoundRatiosCPU are the CPU-per-request ratios of every round when the round was
	// chosen by them (see MedianRoundCPU).
	RoundRatiosCPU []float64 `json:"round_ratios_cpu,omitempty"`
	Checks         []Check   `json:"checks,omitempty"`
}

// Round is a load and its baseline measured one right after the other, and With the loads
// taken in the same round before them, shown for information beside them.
type Round struct {
	Load, Base LoadRow
	With       []LoadRow
}

// MedianRound compares each round's load with its baseline and returns the round whose
// throughput ratio is the median (the lower of the two middle ones for an even count, so
// that a target is never met by the luckier half), with every round's ratio in the load's
// RoundRatios. A ratio near its target can pass or fail on one round by the machine's
// variation alone; the median of rounds taken in turn moves much less, since a neighbour's
// burst or a slow stretch of the machine falls on one round, not on all of them.
func MedianRound(rounds []Round) Round {
	m, ratios := medianRound(rounds, func(r LoadRow) float64 { return r.RatioRPS }, false)
	if len(rounds) > 1 {
		m.Load.RoundRatios = ratios
	}
	return m
}

// MedianRoundCPU is MedianRound for a target on server CPU per request: the round whose
// CPU ratio (the load's cost over the baseline's) is the median, the higher of the two
// middle ones for an even count, every round's CPU ratio in RoundRatiosCPU.
func MedianRoundCPU(rounds []Round) Round {
	m, ratios := medianRound(rounds, func(r LoadRow) float64 { return r.RatioUS }, true)
	if len(rounds) > 1 {
		m.Load.RoundRatiosCPU = ratios
	}
	return m
}

// medianRound compares each round's load with its baseline and returns the round of median
// ratio, the upper middle one for an even count when upper, and every round's ratio.
func medianRound(rounds []Round, ratio func(LoadRow) float64, upper bool) (Round, []float64) {
	if len(rounds) == 0 {
		return Round{}, nil
	}
	ratios := make([]float64, len(rounds))
	order := make([]int, len(rounds))
	for i := range rounds {
		rounds[i].Load.Compare(rounds[i].Base)
		ratios[i], order[i] = ratio(rounds[i].Load), i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(ratios[a], ratios[b]) })
	mid := (len(order) - 1) / 2
	if upper {
		mid = len(order) / 2
	}
	return rounds[order[mid]], ratios
}

// Compare fills the baseline columns from b.
func (r *LoadRow) Compare(b LoadRow) {
	r.Baseline, r.BaseRPS, r.BaseUS, r.BaseP99 = b.Name, b.RPS, b.ServerUSPerReq, b.P99
	if b.RPS > 0 {
		r.RatioRPS = r.RPS / b.RPS
	}
	if b.ServerUSPerReq > 0 {
		r.RatioUS = r.ServerUSPerReq / b.ServerUSPerReq
	}
}

// AtLeast checks the throughput ratio.
func (r *LoadRow) AtLeast(ratio float64) {
	r.Checks = append(r.Checks, Check{Target: fmt.Sprintf("≥%.1f×", ratio), OK: r.RatioRPS >= ratio})
}

// CPUAtLeast checks the same ratio by server CPU per request (the baseline's cost over this
// load's), which holds up better than throughput when the load generator and other tenants
// share the cores.
func (r *LoadRow) CPUAtLeast(ratio float64) {
	ok := r.ServerUSPerReq > 0 && r.BaseUS/r.ServerUSPerReq >= ratio
	r.Checks = append(r.Checks, Check{Target: fmt.Sprintf("≥%.1f× by CPU", ratio), OK: ok})
}

// CPUAtMost checks server CPU per request against a multiple of the baseline's: a budget
// for work that costs more than its baseline by design (the gateway's policy and hop
// against a C proxy's hop alone).
func (r *LoadRow) CPUAtMost(ratio float64) {
	ok := r.ServerUSPerReq > 0 && r.BaseUS > 0 && r.ServerUSPerReq <= ratio*r.BaseUS
	r.Checks = append(r.Checks, Check{Target: fmt.Sprintf("CPU/req ≤%.1f×", ratio), OK: ok})
}

// P99Within checks the 99th percentile latency.
func (r *LoadRow) P99Within(limit float64) {
	r.Checks = append(r.Checks, Check{Target: fmt.Sprintf("p99≤%gms", limit), OK: r.P99 <= limit})
}

// P99Info shows a latency limit beside a p99 taken at saturation, where queueing decides
// it: the limit is held to the paced loads instead.
func (r *LoadRow) P99Info(limit float64) {
	r.P99Within(limit)
	r.Checks[len(r.Checks)-1].Info = true
}

// Figure is a single measured value (an import, a memory figure) with its baseline.
type Figure struct {
	Section   string  `json:"section"`
	Name      string  `json:"name"`
	Value     float64 `json:"value"`
	Unit      string  `json:"unit"`
	Baseline  string  `json:"baseline,omitempty"`
	BaseValue float64 `json:"baseline_value,omitempty"`
	BaseUnit  string  `json:"baseline_unit,omitempty"`
	Ratio     float64 `json:"ratio,omitempty"`
	Checks    []Check `json:"checks,omitempty"`
	Load1     float64 `json:"load1"`
	Note      string  `json:"note,omitempty"`
}

// WriteJSON writes the report to path, creating its directory.
func (r *Report) WriteJSON(path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// ReadJSON reads a report WriteJSON wrote.
func ReadJSON(path string) (*Report, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Report
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &r, nil
}

// Markdown writes the report as tables, the form BENCHMARKS.md quotes.
func (r *Report) Markdown(w io.Writer) {
	m := r.Machine
	fmt.Fprintf(w, "Run %s – %s (%s).\n\n", r.Started.UTC().Format("2006-01-02 15:04"), r.Finished.UTC().Format("15:04 MST"),
		r.Finished.Sub(r.Started).Round(time.Second))
	fmt.Fprintf(w, "- Machine: %s, %d cores, %.1f GiB, kernel %s\n", m.CPU, m.Cores, m.MemoryGiB, m.Kernel)
	sw := []string{m.Go, m.Wrk, m.Pgbench, m.Postgres}
	if m.Nginx != "" {
		sw = append(sw, m.Nginx)
	}
	fmt.Fprintf(w, "- Software: %s\n", strings.Join(sw, ", "))
	fmt.Fprintf(w, "- Load average (1 min): %.2f at the start, %.2f at the end; other tenants' cores during the loads: median %.2f\n",
		m.Load1Start, m.Load1End, m.OtherCoresMedian)
	s := r.Sizes
	fmt.Fprintf(w, "- Data: scale %g: %s NL and %s BE addresses generated, %s and %s imported; loads of %s each\n",
		s.Scale, thousands(float64(s.NLRequested)), thousands(float64(s.BERequested)),
		thousands(float64(s.NLAddresses)), thousands(float64(s.BEAddresses)), s.Duration)
	fmt.Fprintf(w, "- Command: `%s`", r.Command)
	if r.Revision != "" {
		fmt.Fprintf(w, " at revision %s", r.Revision)
	}
	fmt.Fprintln(w)
	pass, fail := r.targets()
	fmt.Fprintf(w, "- Targets: %d met, %d missed\n\n", pass, fail)

	if len(r.Figures) > 0 {
		fmt.Fprintln(w, "### Imports and memory")
		fmt.Fprintln(w)
		t := table{header: []string{"figure", "value", "baseline (same run)", "baseline value", "ratio", "target", "load1", "note"}}
		for _, f := range r.Figures {
			t.add(f.Section+": "+f.Name, num(f.Value)+" "+f.Unit, f.Baseline, numUnit(f.BaseValue, f.BaseUnit),
				ratio(f.Ratio), checks(f.Checks), fmt.Sprintf("%.2f", f.Load1), f.Note)
		}
		t.write(w)
	}
	if len(r.Loads) > 0 {
		fmt.Fprintln(w, "### Loads (wrk / pgbench on 127.0.0.1)")
		fmt.Fprintln(w)
		t := table{header: []string{"load", "c", "req/s", "baseline", "baseline req/s", "× req/s", "p50 ms", "p99 ms",
			"baseline p99 ms", "server CPU µs/req", "× CPU", "target", "load1", "load generator cores", "other cores"}}
		for _, l := range r.Loads {
			name := l.Name
			if l.Errors > 0 {
				name += " (" + l.ErrorText + ")"
			}
			t.add(name, strconv.Itoa(l.Conns), thousands(l.RPS), l.Baseline, thousandsOrDash(l.BaseRPS), roundsRatio(l),
				fmt.Sprintf("%.2f", l.P50), fmt.Sprintf("%.2f", l.P99), p99OrDash(l), fmt.Sprintf("%.1f", l.ServerUSPerReq), roundsRatioCPU(l),
				checks(l.Checks), fmt.Sprintf("%.2f", l.Load1), fmt.Sprintf("%.2f", l.ClientCPU/max(l.Wall, 1e-9)), fmt.Sprintf("%.2f", l.OtherCores))
		}
		t.write(w)
	}
	if len(r.Paced) > 0 {
		fmt.Fprintln(w, "### Paced loads (vegeta, constant rate, open loop, on 127.0.0.1)")
		fmt.Fprintln(w)
		t := table{header: []string{"load", "rate req/s", "sent req/s", "p50 ms", "p99 ms", "max ms", "errors/non-2xx",
			"baseline", "baseline p99 ms", "× p99", "server CPU µs/req", "target", "load1", "load generator cores", "other cores"}}
		for _, l := range r.Paced {
			t.add(l.Name, thousands(float64(l.Rate)), thousands(l.RPS), fmt.Sprintf("%.2f", l.P50), fmt.Sprintf("%.2f", l.P99),
				fmt.Sprintf("%.2f", l.Max), errorShare(l), l.Baseline, p99OrDash(l), ratio(l.RatioP99()),
				fmt.Sprintf("%.1f", l.ServerUSPerReq), checks(l.Checks), fmt.Sprintf("%.2f", l.Load1),
				fmt.Sprintf("%.2f", l.ClientCPU/max(l.Wall, 1e-9)), fmt.Sprintf("%.2f", l.OtherCores))
		}
		t.write(w)
	}
	if len(r.Micro) > 0 {
		fmt.Fprintln(w, "### Go micro-benchmarks")
		fmt.Fprintln(w)
		t := table{header: []string{"package", "benchmark", "figures"}}
		for _, b := range r.Micro {
			var parts []string
			for _, m := range b.Metrics {
				parts = append(parts, num(m.Value)+" "+m.Unit)
			}
			t.add(strings.TrimPrefix(b.Package, "github.com/adreswijzer/adreswijzer/"), b.Name, strings.Join(parts, ", "))
		}
		t.write(w)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "- %s\n", n)
	}
	if missed := r.missed(); len(missed) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "Targets missed:")
		fmt.Fprintln(w)
		for _, m := range missed {
			fmt.Fprintf(w, "- %s\n", m)
		}
	}
}

// missed lists the targets a figure or a load did not meet, so that none hides in a wide
// table.
func (r *Report) missed() []string {
	var out []string
	for _, f := range r.Figures {
		if t := failed(f.Checks); t != "" {
			out = append(out, fmt.Sprintf("%s: %s %s; target %s", f.Section, f.Name, strings.TrimSpace(num(f.Value)+" "+f.Unit), t))
		}
	}
	for _, l := range r.Loads {
		if t := failed(l.Checks); t != "" {
			out = append(out, fmt.Sprintf("%s, c%d: %s req/s = %s %s, server CPU per request %s its, p99 %.2f ms; target %s",
				l.Name, l.Conns, thousands(l.RPS), roundsRatio(l), l.Baseline, roundsRatioCPU(l), l.P99, t))
		}
	}
	for _, l := range r.Paced {
		if t := failed(l.Checks); t != "" {
			out = append(out, fmt.Sprintf("%s, paced at %s req/s: p99 %.2f ms = %s %s's (%.2f ms), errors %s; target %s",
				l.Name, thousands(float64(l.Rate)), l.P99, ratio(l.RatioP99()), l.Baseline, l.BaseP99, errorShare(l), t))
		}
	}
	return out
}

// RatioP99 is the p99 over the baseline's.
func (r LoadRow) RatioP99() float64 {
	if r.BaseP99 <= 0 {
		return 0
	}
	return r.P99 / r.BaseP99
}

// errorShare is the share of a load's requests that failed or were answered other than 2xx.
func errorShare(l LoadRow) string {
	if l.Requests == 0 {
		return ""
	}
	s := fmt.Sprintf("%.2f%%", 100*float64(l.Errors)/float64(l.Requests))
	if l.Errors > 0 {
		s += " (" + l.ErrorText + ")"
	}
	return s
}

// failed joins the targets of the checks that failed.
func failed(cs []Check) string {
	var t []string
	for _, c := range cs {
		if !c.OK && !c.Info {
			t = append(t, c.Target)
		}
	}
	return strings.Join(t, ", ")
}

func p99OrDash(l LoadRow) string {
	if l.Baseline == "" {
		return ""
	}
	return fmt.Sprintf("%.2f", l.BaseP99)
}

func (r *Report) targets() (pass, fail int) {
	var all []Check
	for _, l := range append(slices.Clip(r.Loads), r.Paced...) {
		all = append(all, l.Checks...)
	}
	for _, f := range r.Figures {
		all = append(all, f.Checks...)
	}
	for _, c := range all {
		if c.Info {
			continue
		}
		if c.OK {
			pass++
		} else {
			fail++
		}
	}
	return pass, fail
}

func checks(cs []Check) string {
	s := make([]string, len(cs))
	for i, c := range cs {
		s[i] = c.String()
	}
	return strings.Join(s, "; ")
}

// roundsRatio is a load's throughput ratio, and with several rounds every round's beside it.
func roundsRatio(l LoadRow) string { return withRounds(l.RatioRPS, l.RoundRatios) }

// roundsRatioCPU is a load's CPU-per-request ratio, with every round's when the round was
// chosen by it.
func roundsRatioCPU(l LoadRow) string { return withRounds(l.RatioUS, l.RoundRatiosCPU) }

func withRounds(v float64, rounds []float64) string {
	if len(rounds) < 2 {
		return ratio(v)
	}
	parts := make([]string, len(rounds))
	for i, r := range rounds {
		parts[i] = fmt.Sprintf("%.2f", r)
	}
	return ratio(v) + " (median of " + strings.Join(parts, ", ") + ")"
}

func ratio(v float64) string {
	if v == 0 {
		return ""
	}
	return fmt.Sprintf("%.2f×", v)
}

func numUnit(v float64, unit string) string {
	if v == 0 {
		return ""
	}
	return num(v) + " " + unit
}

// num prints a figure with the precision it deserves.
func num(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 10000:
		return thousands(v)
	case a >= 100:
		return fmt.Sprintf("%.0f", v)
	case a >= 10:
		return fmt.Sprintf("%.1f", v)
	case a >= 1:
		return fmt.Sprintf("%.2f", v)
	case a == 0:
		return "0"
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

func thousandsOrDash(v float64) string {
	if v == 0 {
		return ""
	}
	return thousands(v)
}

func thousands(v float64) string {
	s := strconv.FormatInt(int64(math.Round(v)), 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// table writes a Markdown table padded so that it also reads as plain text.
type table struct {
	header []string
	rows   [][]string
}

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

func (t *table) write(w io.Writer) {
	width := make([]int, len(t.header))
	for i := range width {
		width[i] = 3 // the shortest separator Markdown takes
	}
	for _, row := range append([][]string{t.header}, t.rows...) {
		for i, c := range row {
			width[i] = max(width[i], len([]rune(c)))
		}
	}
	line := func(cells []string) {
		var b strings.Builder
		b.WriteString("|")
		for i, c := range cells {
			b.WriteString(" " + c + strings.Repeat(" ", width[i]-len([]rune(c))) + " |")
		}
		fmt.Fprintln(w, b.String())
	}
	line(t.header)
	sep := make([]string, len(width))
	for i, n := range width {
		sep[i] = strings.Repeat("-", n)
	}
	line(sep)
	for _, r := range t.rows {
		line(r)
	}
	fmt.Fprintln(w)
}
