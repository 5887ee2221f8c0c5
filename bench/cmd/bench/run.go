package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/adreswijzer/adreswijzer/bench/measure"
)

// benchRun is the state of one run: what it started must be stopped and what it created
// removed, however it ends.
type benchRun struct {
	cfg  config
	work string
	log  io.Writer
	rep  *measure.Report
	pg   pgTarget

	dbs     []string
	servers []*server

	reg        registers
	snapshots  map[string]string // country → snapshot file
	imports    []imported
	pgbenchDB  string
	importDB   string
	probe      probeResult
	storeBytes float64 // live heap of the memory store per address
	keys       string
	load       *loader

	// The trivial handler and the memory-store worker serve the worker and gateway loads.
	trivial, worker         *server
	trivialPort, workerPort int
}

func run(ctx context.Context, cfg config, stdout, log io.Writer) error {
	repo, err := filepath.Abs(cfg.repo)
	if err != nil {
		return err
	}
	if err := os.Chdir(repo); err != nil {
		return err
	}
	if err := preflight(cfg); err != nil {
		return err
	}
	work := cfg.workDir
	if work == "" {
		if work, err = os.MkdirTemp("", "adreswijzer-bench-"); err != nil {
			return err
		}
		if !cfg.keep {
			defer os.RemoveAll(work)
		}
	} else if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	if work, err = filepath.Abs(work); err != nil {
		return err
	}
	rev := revision(ctx)
	if err := pinBuilds(&cfg, work); err != nil {
		return err
	}
	cfg.guard.Log = log
	b := &benchRun{
		cfg: cfg, work: work, log: log, snapshots: map[string]string{},
		rep: &measure.Report{Started: time.Now(), Command: "go run ./bench/cmd/bench " + strings.Join(cfg.args, " "), Revision: rev},
	}
	if b.pg, err = newPGTarget(cfg.adminURL); err != nil {
		return err
	}
	fmt.Fprintf(log, "working directory %s\n", work)
	b.rep.Machine = machine(ctx, b.pg)

	err = b.all(ctx)
	b.cleanup()
	b.finish()
	if end := revision(ctx); end != rev {
		b.rep.Notes = append(b.rep.Notes, fmt.Sprintf("The source tree changed during the run (%s at the start, %s at the end): "+
			"the servers ran the builds copied at the start, but the generator and the micro-benchmarks were compiled from the tree as it was when they ran.", rev, end))
	}
	if err != nil {
		b.rep.Notes = append(b.rep.Notes, "The run stopped early: "+firstLine(err.Error()))
	}
	b.rep.Markdown(stdout)
	if cfg.jsonPath != "" {
		if werr := os.MkdirAll(filepath.Dir(cfg.jsonPath), 0o755); werr != nil {
			return errors.Join(err, werr)
		}
		if werr := b.rep.WriteJSON(cfg.jsonPath); werr != nil {
			return errors.Join(err, werr)
		}
		fmt.Fprintf(log, "results in %s\n", cfg.jsonPath)
	}
	return err
}

// pinBuilds copies the binaries and the WASM module into the working directory and points
// the configuration at the copies: a run lasts most of an hour, and a `make build` in the
// same checkout meanwhile would otherwise mix versions within one report.
func pinBuilds(cfg *config, work string) error {
	dir := filepath.Join(work, "bin")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, p := range []struct {
		path *string
		need bool
	}{
		{&cfg.worker, !cfg.skip["registers"]},
		{&cfg.gateway, !cfg.skip["gateway"] || !cfg.skip["widget"]},
		{&cfg.wasm, !cfg.skip["wasm"] || !cfg.skip["micro"]},
	} {
		if !p.need {
			continue
		}
		dst := filepath.Join(dir, filepath.Base(*p.path))
		if err := copyFile(*p.path, dst); err != nil {
			return fmt.Errorf("pin the build %s: %w", *p.path, err)
		}
		*p.path = dst
	}
	if !cfg.skip["widget"] {
		dst := filepath.Join(work, "widget-dist")
		if err := os.MkdirAll(dst, 0o755); err != nil {
			return err
		}
		entries, err := os.ReadDir(cfg.dist)
		if err != nil {
			return fmt.Errorf("pin the build %s: %w (make build)", cfg.dist, err)
		}
		for _, e := range entries {
			if err := copyFile(filepath.Join(cfg.dist, e.Name()), filepath.Join(dst, e.Name())); err != nil {
				return fmt.Errorf("pin the build %s: %w", cfg.dist, err)
			}
		}
		cfg.dist = dst
	}
	return nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, fi.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// revision names the checkout the run measured: the commit, and "+dirty" when files differ
// from it (the builds then include changes no commit holds).
func revision(ctx context.Context) string {
	head, err := exec.CommandContext(ctx, "git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	rev := strings.TrimSpace(string(head))
	if st, err := exec.CommandContext(ctx, "git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(bytes.TrimSpace(st)) > 0 {
		rev += "+dirty"
	}
	return rev
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// preflight fails fast on what a long run would otherwise trip over late.
func preflight(cfg config) error {
	need := []string{"go"}
	if !cfg.skip["registers"] || !cfg.skip["gateway"] {
		need = append(need, "wrk")
	}
	if !cfg.skip["postgres"] {
		need = append(need, "pgbench")
	}
	if !cfg.skip["widget"] {
		need = append(need, chromiumPath)
	}
	for _, t := range need {
		if _, err := exec.LookPath(t); err != nil {
			return fmt.Errorf("%s is needed: %w", t, err)
		}
	}
	if !cfg.skip["gateway"] {
		if _, err := nginxPath(); err != nil {
			return err
		}
	}
	var bins []string
	if !cfg.skip["registers"] {
		bins = append(bins, cfg.worker)
	}
	if !cfg.skip["gateway"] || !cfg.skip["widget"] {
		bins = append(bins, cfg.gateway)
	}
	if !cfg.skip["wasm"] {
		bins = append(bins, cfg.wasm)
	}
	if !cfg.skip["widget"] {
		bins = append(bins, filepath.Join(cfg.dist, "adreswijzer-form.js"))
	}
	for _, b := range bins {
		if _, err := os.Stat(b); err != nil {
			return fmt.Errorf("%w (make build)", err)
		}
	}
	if _, err := os.Stat(filepath.Join("bench", "wrk", "requests.lua")); err != nil {
		return fmt.Errorf("run from the repository root or give -repo: %w", err)
	}
	return nil
}

func (b *benchRun) all(ctx context.Context) error {
	steps := []struct {
		skip string
		f    func(context.Context) error
	}{
		{"registers", b.generate},
		{"registers", b.memoryImports},
		{"postgres", b.postgresImports},
		{"registers", b.probeSnapshots},
		{"registers", b.workerLoads},
		{"gateway", b.gatewayLoads},
		{"postgres", b.postgresLoads},
		{"micro", b.micro},
		{"wasm", b.wasm},
		{"widget", b.widget},
	}
	for _, s := range steps {
		if s.skip != "" && b.cfg.skip[s.skip] {
			continue
		}
		if err := s.f(ctx); err != nil {
			return err
		}
	}
	return nil
}

func (b *benchRun) start(name string, env []string, argv ...string) (*server, error) {
	s, err := startServer(name, b.work, env, argv...)
	if err == nil {
		b.servers = append(b.servers, s)
	}
	return s, err
}

func (b *benchRun) stop(s *server) {
	s.stop()
	b.servers = slices.DeleteFunc(b.servers, func(x *server) bool { return x == s })
}

func (b *benchRun) cleanup() {
	for i := len(b.servers) - 1; i >= 0; i-- {
		b.servers[i].stop()
	}
	b.servers = nil
	for _, db := range b.dbs {
		if err := b.pg.drop(context.Background(), db); err != nil {
			fmt.Fprintf(b.log, "could not drop the scratch database %s: %v\n", db, err)
		}
	}
	b.dbs = nil
}

func (b *benchRun) finish() {
	b.rep.Finished = time.Now()
	b.rep.Machine.Load1End = measure.LoadAvg()
	var other []float64
	for _, l := range append(slices.Clip(b.rep.Loads), b.rep.Paced...) {
		other = append(other, l.OtherCores)
	}
	if len(other) > 0 {
		slices.Sort(other)
		b.rep.Machine.OtherCoresMedian = other[len(other)/2]
	}
}

func (b *benchRun) generate(ctx context.Context) error {
	dir := b.cfg.dataDir
	if dir == "" {
		dir = filepath.Join(b.work, "data")
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if b.reg, err = generate(ctx, b.cfg, dir, b.work, b.log); err != nil {
		return err
	}
	b.rep.Sizes = measure.Sizes{Scale: b.cfg.scale, NLRequested: b.cfg.nl, BERequested: b.cfg.be, Duration: b.cfg.duration.String()}
	if !b.reg.reused {
		b.rep.Notes = append(b.rep.Notes, fmt.Sprintf("Generating the registers took %.0f s (bench/gen).", b.reg.genSeconds))
	}
	return nil
}

// budget is how long the inflate floor samples the extract.
func (b *benchRun) budget() time.Duration {
	if b.cfg.quick {
		return time.Second
	}
	return 10 * time.Second
}

// Import targets. The wall-time limits are for the national BAG (NL) extract; the rate is
// what an import into the memory store must reach whatever the register, so that a
// national register loads in minutes rather than hours. Postgres imports have only their
// wall-time limit: indexes and WAL make them a different, slower job.
const (
	nlMemoryLimit       = 10 * 60 // seconds
	nlPostgresLimit     = 20 * 60 // seconds
	minMemoryImportRate = 100_000 // addresses/s
)

func (b *benchRun) memoryImports(ctx context.Context) error {
	nlFloor, err := inflateFloor(ctx, b.reg.nlZip, b.budget())
	if err != nil {
		return err
	}
	beFloor, err := readFloor(b.reg.beFiles)
	if err != nil {
		return err
	}
	fmt.Fprintf(b.log, "floors: inflating the NL XML %.1f s on one core (%.0f of %.0f MB sampled), reading the BE CSV %.2f s\n",
		nlFloor.seconds, float64(nlFloor.sampled)/1e6, float64(nlFloor.raw)/1e6, beFloor.seconds)
	for _, c := range []struct {
		country, date string
		from          []string
		want          int64
		floor         floor
		base          string
		limit         float64
	}{
		{"nl", "", []string{b.reg.nlZip}, b.reg.nlCurrent, nlFloor,
			fmt.Sprintf("one core inflating the %.1f GB of XML it reads", float64(nlFloor.raw)/1e9), nlMemoryLimit},
		{"be", b.reg.date, b.reg.beFiles, b.reg.beKept, beFloor,
			fmt.Sprintf("one core reading the %.2f GB of CSV", float64(beFloor.raw)/1e9), 0},
	} {
		snap := filepath.Join(b.work, c.country+".snap")
		im, err := runImport(ctx, b.cfg, b.work, c.country, c.from, snap, "", c.date, b.cfg.guard, b.log)
		if err != nil {
			return err
		}
		b.snapshots[c.country] = snap
		b.imports = append(b.imports, im)
		b.rep.Figures = append(b.rep.Figures, importFigures(im, c.base, c.floor.seconds, c.limit, b.cfg.scale, minMemoryImportRate)...)
		if im.addresses != c.want {
			b.rep.Notes = append(b.rep.Notes, fmt.Sprintf("The %s import kept %d addresses; the generator says %d.", strings.ToUpper(c.country), im.addresses, c.want))
		}
		if c.country == "nl" {
			b.rep.Sizes.NLAddresses = im.addresses
		} else {
			b.rep.Sizes.BEAddresses = im.addresses
		}
	}
	return nil
}

func (b *benchRun) postgresImports(ctx context.Context) error {
	stamp := fmt.Sprintf("aw_bench_%d_%d", os.Getpid(), time.Now().Unix()%1_000_000)
	b.pgbenchDB, b.importDB = stamp+"_pgbench", stamp+"_import"
	for _, db := range []string{b.pgbenchDB, b.importDB} {
		if err := b.pg.create(ctx, db); err != nil {
			return err
		}
		b.dbs = append(b.dbs, db)
	}
	b.cfg.guard.Wait(ctx)
	initSeconds, err := pgbenchInit(ctx, b.work, b.pg, b.pgbenchDB)
	if err != nil {
		return err
	}
	rowRate := pgbenchRows / initSeconds
	fmt.Fprintf(b.log, "pgbench -i: %d rows in %.1f s (%.0f rows/s)\n", pgbenchRows, initSeconds, rowRate)
	for _, c := range []struct {
		country, date string
		from          []string
		limit         float64
	}{
		{"nl", "", []string{b.reg.nlZip}, nlPostgresLimit},
		{"be", b.reg.date, b.reg.beFiles, 0},
	} {
		im, err := runImport(ctx, b.cfg, b.work, c.country, c.from, b.pg.url(b.importDB), b.importDB, c.date, b.cfg.guard, b.log)
		if err != nil {
			return err
		}
		b.imports = append(b.imports, im)
		base := fmt.Sprintf("pgbench -i loading as many rows (%.0f rows/s)", rowRate)
		b.rep.Figures = append(b.rep.Figures, importFigures(im, base, float64(im.addresses)/rowRate, c.limit, b.cfg.scale, 0)...)
	}
	return nil
}

func (b *benchRun) probeSnapshots(ctx context.Context) error {
	b.keys = filepath.Join(b.work, "keys")
	if err := os.MkdirAll(b.keys, 0o755); err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	_, out, err := runLogged(ctx, filepath.Join(b.work, "probe.log"), nil, self, "probe", "-out", b.keys,
		"-keys", strconv.Itoa(b.cfg.keys), "-hot", strconv.Itoa(b.cfg.hotKeys), "-seed", strconv.FormatUint(b.cfg.seed, 10),
		b.snapshots["nl"], b.snapshots["be"])
	if err != nil {
		return err
	}
	if err := json.Unmarshal(out, &b.probe); err != nil {
		return fmt.Errorf("probe: %w", err)
	}
	total := b.probe.Addresses["NL"] + b.probe.Addresses["BE"]
	_, out, err = runLogged(ctx, filepath.Join(b.work, "mapprobe.log"), nil, self, "mapprobe", "-n", strconv.FormatInt(total, 10))
	if err != nil {
		return err
	}
	var mp struct {
		Entries   float64 `json:"entries"`
		HeapBytes float64 `json:"heap_bytes"`
	}
	if err := json.Unmarshal(out, &mp); err != nil {
		return fmt.Errorf("mapprobe: %w", err)
	}
	b.storeBytes = float64(b.probe.HeapBytes) / float64(total)
	mapBytes := mp.HeapBytes / mp.Entries
	load := measure.LoadAvg()
	b.rep.Figures = append(b.rep.Figures,
		measure.Figure{Section: "memory", Name: "memory store, live heap per address (NL+BE snapshots loaded)", Value: b.storeBytes, Unit: "B",
			Baseline: "Go map[uint64]12-byte record, as many entries", BaseValue: mapBytes, BaseUnit: "B", Ratio: b.storeBytes / mapBytes,
			Checks: []measure.Check{{Target: "≤64 B", OK: b.storeBytes <= 64}}, Load1: load,
			Note: fmt.Sprintf("%d addresses, %.0f MB live heap", total, float64(b.probe.HeapBytes)/1e6)},
		measure.Figure{Section: "memory", Name: "snapshot files per address", Value: float64(b.probe.SnapshotBytes) / float64(total), Unit: "B",
			Baseline: "memory store live heap per address", BaseValue: b.storeBytes, BaseUnit: "B",
			Ratio: float64(b.probe.SnapshotBytes) / float64(total) / b.storeBytes, Load1: load},
	)
	for _, im := range b.imports {
		per := float64(im.maxRSS) / float64(im.addresses)
		b.rep.Figures = append(b.rep.Figures, measure.Figure{Section: "memory",
			Name:  fmt.Sprintf("%s import → %s, peak RSS per address", strings.ToUpper(im.country), im.store),
			Value: per, Unit: "B", Baseline: "memory store live heap per address", BaseValue: b.storeBytes, BaseUnit: "B",
			Ratio: per / b.storeBytes, Load1: im.load1, Note: fmt.Sprintf("peak RSS %.0f MB", float64(im.maxRSS)/1e6)})
	}
	fmt.Fprintf(b.log, "memory store: %.1f B per address (map baseline %.1f B); %v requests drawn\n", b.storeBytes, mapBytes, b.probe.Keys)
	script, err := filepath.Abs(filepath.Join("bench", "wrk", "requests.lua"))
	if err != nil {
		return err
	}
	b.load = &loader{cfg: b.cfg, script: script, keys: b.keys, log: b.log}
	return nil
}

// startTrivial starts the trivial handler, the baseline of the worker loads and the
// upstream of the proxy baseline.
func (b *benchRun) startTrivial(ctx context.Context, port int) (*server, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	s, err := b.start("trivial", nil, self, "trivial", "-listen", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return nil, err
	}
	return s, waitReady(ctx, s, fmt.Sprintf("http://127.0.0.1:%d/", port), 30*time.Second,
		func(status int, _ []byte) bool { return status == 200 })
}

func healthy(status int, body []byte) bool {
	return status == 200 && strings.Contains(string(body), `"status":"ok"`)
}

// metric reads one value from a Prometheus text page.
func metric(url, name string) (float64, error) {
	resp, err := client.Get(url)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(body), "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			return strconv.ParseFloat(strings.TrimSpace(v), 64)
		}
	}
	return 0, fmt.Errorf("%s: no %s", url, name)
}

// loadSpec is one kind of request the worker is loaded with, and its targets.
type loadSpec struct {
	name, keys string
	checks     func(*measure.LoadRow)
}

// workerLoads are held to a share of the trivial handler, by throughput and by CPU per
// request: a lookup, whose answer is the same for every caller, to 0.8; validate, suggest
// and autocomplete, which match what was typed, to 0.5. Validate and suggest have latency
// limits on the memory store, which hold at a realistic rate: flat out, wrk's p99 is
// queueing, so there the limits are only shown beside it.
var workerLoads = []loadSpec{
	{"worker lookup", keysLookup, func(r *measure.LoadRow) { nearTrivial(r, lookupShare) }},
	{"worker validate", keysValidate, func(r *measure.LoadRow) { nearTrivial(r, matchShare); r.P99Info(validateP99) }},
	{"worker suggest", keysSuggest, func(r *measure.LoadRow) { nearTrivial(r, matchShare); r.P99Info(suggestP99) }},
	{"worker autocomplete", keysAutocomplete, func(r *measure.LoadRow) { nearTrivial(r, matchShare) }},
}

// Shares of the trivial handler the worker's routes are held to.
const (
	lookupShare = 0.8
	matchShare  = 0.5 // validate, suggest, autocomplete
)

// Latency limits of the worker on the memory store, in milliseconds.
const (
	validateP99 = 5
	suggestP99  = 10 // at national size
)

// pacedLoads are the same requests sent at the run's constant rate, where the latency
// limits apply.
var pacedLoads = []loadSpec{
	{"worker lookup", keysLookup, nil},
	{"worker validate", keysValidate, func(r *measure.LoadRow) { r.P99Within(validateP99) }},
	{"worker suggest", keysSuggest, func(r *measure.LoadRow) { r.P99Within(suggestP99) }},
	{"worker autocomplete", keysAutocomplete, nil},
}

func nearTrivial(r *measure.LoadRow, share float64) { r.AtLeast(share); r.CPUAtLeast(share) }

func (b *benchRun) workerLoads(ctx context.Context) error {
	ports, err := freePorts(3)
	if err != nil {
		return err
	}
	trivial, err := b.startTrivial(ctx, ports[0])
	if err != nil {
		return err
	}
	base := fmt.Sprintf("http://127.0.0.1:%d", ports[1])
	metrics := fmt.Sprintf("http://127.0.0.1:%d/metrics", ports[2])
	started := time.Now()
	w, err := b.start("worker", nil, b.cfg.worker, "serve", "--listen", fmt.Sprintf("127.0.0.1:%d", ports[1]),
		"--metrics-listen", fmt.Sprintf("127.0.0.1:%d", ports[2]), "--snapshot", b.snapshots["nl"], "--snapshot", b.snapshots["be"])
	if err != nil {
		return err
	}
	b.trivial, b.trivialPort, b.worker, b.workerPort = trivial, ports[0], w, ports[1]
	if err := waitReady(ctx, w, base+"/health", 10*time.Minute, healthy); err != nil {
		return err
	}
	ready := time.Since(started).Seconds()
	if err := b.workerMemory(metrics, w.pid(), ready); err != nil {
		return err
	}
	for _, f := range []string{keysLookup, keysValidate, keysSuggest, keysAutocomplete} {
		ok, found, _, err := checkKeys(base, filepath.Join(b.keys, f), "", 200, "")
		if err != nil {
			return err
		}
		note := fmt.Sprintf("Key check, %s: %d of the first 200 requests answered 200", f, ok)
		if f == keysLookup {
			note += fmt.Sprintf(", %d found an address", found)
		}
		b.rep.Notes = append(b.rep.Notes, note+".")
	}

	fmt.Fprintln(b.log, "worker loads")
	trivialURL := fmt.Sprintf("http://127.0.0.1:%d", ports[0])
	for _, c := range b.cfg.conns {
		baseRow, err := b.load.wrk(ctx, "worker", "trivial Go handler", c, trivialURL, keysLookup, "", measure.StaticPIDs(trivial.pid()))
		if err != nil {
			return err
		}
		rows, err := against(baseRow, workerLoads, func(s loadSpec) (measure.LoadRow, error) {
			return b.load.wrk(ctx, "worker", s.name, c, base, s.keys, "", measure.StaticPIDs(w.pid()))
		})
		b.rep.Loads = append(append(b.rep.Loads, baseRow), rows...)
		if err != nil {
			return err
		}
	}
	// Lookups per country, at the middle concurrency, against the trivial handler measured
	// just before: which register the cost of a lookup comes from.
	c := b.cfg.conns[len(b.cfg.conns)/2]
	var baseRow measure.LoadRow
	for _, l := range b.rep.Loads {
		if l.Name == "trivial Go handler" && l.Conns == c {
			baseRow = l
		}
	}
	rows, err := against(baseRow, []loadSpec{{"worker lookup, NL only", keysLookupNL, nil}, {"worker lookup, BE only", keysLookupBE, nil}},
		func(s loadSpec) (measure.LoadRow, error) {
			return b.load.wrk(ctx, "worker", s.name, c, base, s.keys, "", measure.StaticPIDs(w.pid()))
		})
	b.rep.Loads = append(b.rep.Loads, rows...)
	if err != nil {
		return err
	}
	if err := b.pacedWorkerLoads(ctx, trivialURL, base); err != nil {
		return err
	}
	if hwm, err := measure.ProcStatus(w.pid(), "VmHWM"); err == nil {
		total := float64(b.rep.Sizes.NLAddresses + b.rep.Sizes.BEAddresses)
		b.rep.Figures = append(b.rep.Figures, b.memFigure("worker serve, peak RSS per address after the loads", float64(hwm)/total, "from /proc VmHWM"))
	}
	return nil
}

// pacedWorkerLoads sends each kind of request to the worker at the run's constant rate,
// after the same paced load against the trivial handler, whose p99 at that rate is what
// the HTTP stack and the shared cores cost by themselves.
func (b *benchRun) pacedWorkerLoads(ctx context.Context, trivialURL, workerURL string) error {
	if b.cfg.rate == 0 {
		return nil
	}
	fmt.Fprintf(b.log, "paced worker loads, %d req/s\n", b.cfg.rate)
	baseRow, err := b.load.paced(ctx, "trivial Go handler", trivialURL, keysLookup, measure.StaticPIDs(b.trivial.pid()))
	if err != nil {
		return err
	}
	rows, err := against(baseRow, pacedLoads, func(s loadSpec) (measure.LoadRow, error) {
		return b.load.paced(ctx, s.name, workerURL, s.keys, measure.StaticPIDs(b.worker.pid()))
	})
	b.rep.Paced = append(append(b.rep.Paced, baseRow), rows...)
	return err
}

// against runs the loads of specs and compares each with base, applying its targets. On
// an error it returns the rows measured until then.
func against(base measure.LoadRow, specs []loadSpec, load func(loadSpec) (measure.LoadRow, error)) ([]measure.LoadRow, error) {
	var rows []measure.LoadRow
	for _, s := range specs {
		row, err := load(s)
		if err != nil {
			return rows, err
		}
		row.Compare(base)
		if s.checks != nil {
			s.checks(&row)
		}
		rows = append(rows, row)
	}
	return rows, nil
}

func (b *benchRun) memFigure(name string, perAddr float64, note string) measure.Figure {
	return measure.Figure{Section: "memory", Name: name, Value: perAddr, Unit: "B",
		Baseline: "memory store live heap per address", BaseValue: b.storeBytes, BaseUnit: "B",
		Ratio: perAddr / b.storeBytes, Load1: measure.LoadAvg(), Note: note}
}

// workerMemory records what the serving worker holds once it has loaded the snapshots and
// built its indexes, before any request.
func (b *benchRun) workerMemory(metrics string, pid int, ready float64) error {
	total := float64(b.rep.Sizes.NLAddresses + b.rep.Sizes.BEAddresses)
	heap, err := metric(metrics, "go_memstats_heap_inuse_bytes")
	if err != nil {
		return err
	}
	rss, err := measure.ProcStatus(pid, "VmRSS")
	if err != nil {
		return err
	}
	b.rep.Figures = append(b.rep.Figures,
		b.memFigure("worker serve, Go heap in use per address", heap/total,
			"go_memstats_heap_inuse_bytes of the worker's /metrics after start-up: store, matching indexes and not yet collected garbage"),
		b.memFigure("worker serve, RSS per address", float64(rss)/total, "VmRSS from /proc after start-up"),
		measure.Figure{Section: "memory", Name: "worker serve, start-up until healthy", Value: ready, Unit: "s",
			Baseline: "reading the snapshots alone (probe)", BaseValue: b.probe.LoadSeconds, BaseUnit: "s",
			Ratio: ready / max(b.probe.LoadSeconds, 0.001), Load1: measure.LoadAvg()},
	)
	return nil
}

// Gateway targets. A cached lookup is held to Caddy answering the same body by itself; an
// uncached one, by CPU per request, to nginx doing the same hop to the same worker: the
// gateway's policy and its Caddy hop may cost half as much again as the hop at its leanest.
const (
	cachedShare    = 0.8 // of Caddy's static respond, by throughput
	uncachedBudget = 1.5 // × nginx → worker's server CPU per request
)

// gatewayLoads puts the gateway, and nginx as its anchor, in front of the worker and the
// trivial handler that the worker loads started.
func (b *benchRun) gatewayLoads(ctx context.Context) error {
	ps, err := freePorts(9)
	if err != nil {
		return err
	}
	p := gatewayPorts{static: ps[0], proxy: ps[1], cached: ps[2], uncached: ps[3], policyTrivial: ps[4], proxyWorker: ps[5], hopTrivial: ps[8]}
	np := nginxPorts{worker: ps[6], trivial: ps[7]}
	secret, err := createKey(ctx, b.cfg, b.work)
	if err != nil {
		return err
	}
	cf, err := writeCaddyfile(b.work, p, b.trivialPort, b.workerPort)
	if err != nil {
		return err
	}
	g, err := b.start("gateway", caddyEnv(b.work), b.cfg.gateway, "run", "--config", cf, "--adapter", "caddyfile")
	if err != nil {
		return err
	}
	defer b.stop(g)
	url := func(port int) string { return fmt.Sprintf("http://127.0.0.1:%d", port) }
	if err := waitReady(ctx, g, url(p.static)+"/", time.Minute, func(s int, _ []byte) bool { return s == 200 }); err != nil {
		return err
	}
	// The cache keys answers by dataset version, which the gateway learns by polling the
	// worker: until then every lookup is a miss.
	hot := filepath.Join(b.keys, keysLookupHot)
	first, err := os.ReadFile(hot)
	if err != nil {
		return err
	}
	line, _, _ := strings.Cut(string(first), "\n")
	deadline := time.Now().Add(time.Minute)
	for {
		resp, _, err := request(url(p.cached), line, secret)
		if err != nil {
			return err
		}
		if resp.StatusCode != 200 {
			return fmt.Errorf("gateway answered %d to a lookup\n%s", resp.StatusCode, logTail(g.log))
		}
		if resp.Header.Get("X-Cache") == "HIT" {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the gateway cache never answered\n%s", logTail(g.log))
		}
		time.Sleep(200 * time.Millisecond)
	}
	if _, _, _, err := checkKeys(url(p.cached), hot, secret, b.cfg.hotKeys, ""); err != nil {
		return err
	}
	ok, _, hits, err := checkKeys(url(p.cached), hot, secret, 200, "X-Cache")
	if err != nil {
		return err
	}
	uok, _, _, err := checkKeys(url(p.uncached), filepath.Join(b.keys, keysLookup), secret, 200, "")
	if err != nil {
		return err
	}
	ng, ngPIDs, err := b.startNginx(ctx, np)
	if err != nil {
		return err
	}
	defer b.stop(ng)
	nok, _, _, err := checkKeys(url(np.worker), filepath.Join(b.keys, keysLookup), "", 200, "")
	if err != nil {
		return err
	}
	b.rep.Notes = append(b.rep.Notes, fmt.Sprintf("Gateway check: after warming, %d of %d cached lookups answered 200 with X-Cache: HIT (%d answered 200); %d of 200 uncached lookups answered 200; %d of 200 lookups through nginx answered 200.",
		hits, min(200, b.cfg.hotKeys), ok, uok, nok))

	fmt.Fprintln(b.log, "gateway loads")
	gw, wk, tv := g.pid(), b.worker.pid(), b.trivial.pid()
	// site is a load on one of the gateway's sites, measuring the given server processes.
	site := func(name string, c, port int, keys, bearer string, pids ...int) func() (measure.LoadRow, error) {
		return func() (measure.LoadRow, error) {
			return b.load.wrk(ctx, "gateway", name, c, url(port), keys, bearer, measure.StaticPIDs(pids...))
		}
	}
	proxyBase := func(c int) func() (measure.LoadRow, error) {
		return site("Caddy → trivial handler", c, p.proxy, keysLookup, "", gw, tv)
	}
	nginxSite := func(name string, c, port int, pids ...int) func() (measure.LoadRow, error) {
		return site(name, c, port, keysLookup, "", append(slices.Clone(ngPIDs), pids...)...)
	}
	for _, c := range b.cfg.conns {
		cached, err := b.inTurn(measure.MedianRound, site("gateway → worker, cached lookup", c, p.cached, keysLookupHot, secret, gw, wk),
			site("Caddy static respond", c, p.static, keysLookup, "", gw))
		if err != nil {
			return err
		}
		cached.Load.AtLeast(cachedShare)
		// The uncached lookup against nginx in front of the same worker, each round with
		// both proxies in front of the trivial handler before them: the hop alone, nginx's
		// and Caddy's, for information.
		uncached, err := b.inTurn(measure.MedianRoundCPU, site("gateway → worker, uncached lookup", c, p.uncached, keysLookup, secret, gw, wk),
			nginxSite("nginx → worker, lookup", c, np.worker, wk),
			nginxSite("nginx → trivial handler", c, np.trivial, tv), proxyBase(c))
		if err != nil {
			return err
		}
		uncached.Load.CPUAtMost(uncachedBudget)
		hopNginx, hopCaddy := uncached.With[0], uncached.With[1]
		hopCaddy.Compare(hopNginx)
		uncached.Base.Compare(hopNginx)
		b.rep.Loads = append(b.rep.Loads, cached.Base, cached.Load, hopNginx, hopCaddy, uncached.Base, uncached.Load)
	}
	// The uncached load's parts, at the middle concurrency, each against the proxy
	// baseline measured in turn with it: what the gateway's policy adds to Caddy's proxy hop
	// (in front of the trivial handler), what the worker's lookup adds to it (behind Caddy
	// alone), and what the gateway's transport saves on the hop. They carry no target of
	// their own: they say where a miss of the uncached target comes from.
	c := b.cfg.conns[len(b.cfg.conns)/2]
	for _, half := range []func() (measure.LoadRow, error){
		site("gateway policy → trivial handler", c, p.policyTrivial, keysLookup, secret, gw, tv),
		site("Caddy → worker, lookup", c, p.proxyWorker, keysLookup, "", gw, wk),
		site("Caddy, transport adreswijzer → trivial handler", c, p.hopTrivial, keysLookup, "", gw, tv),
	} {
		r, err := b.inTurn(measure.MedianRound, half, proxyBase(c))
		if err != nil {
			return err
		}
		b.rep.Loads = append(b.rep.Loads, r.Base, r.Load)
	}
	return nil
}

// inTurn measures a load and its baseline -rounds times, the baseline right before the
// load in each round and the loads of with before both, and returns the round that median
// chooses (measure.MedianRound by throughput, MedianRoundCPU by CPU per request).
func (b *benchRun) inTurn(median func([]measure.Round) measure.Round, load, baseline func() (measure.LoadRow, error),
	with ...func() (measure.LoadRow, error)) (measure.Round, error) {
	rounds := make([]measure.Round, 0, b.cfg.rounds)
	for range b.cfg.rounds {
		var r measure.Round
		for _, w := range with {
			row, err := w()
			if err != nil {
				return measure.Round{}, err
			}
			r.With = append(r.With, row)
		}
		var err error
		if r.Base, err = baseline(); err != nil {
			return measure.Round{}, err
		}
		if r.Load, err = load(); err != nil {
			return measure.Round{}, err
		}
		rounds = append(rounds, r)
	}
	return median(rounds), nil
}

func (b *benchRun) postgresLoads(ctx context.Context) error {
	// The memory-store worker would only hold memory from here on.
	b.stop(b.worker)
	b.stop(b.trivial)
	fmt.Fprintln(b.log, "postgres loads")
	c := b.cfg.pgConns
	base, err := b.load.pgbench(ctx, b.work, b.pg, b.pgbenchDB, c)
	if err != nil {
		return err
	}
	b.rep.Loads = append(b.rep.Loads, base)
	ports, err := freePorts(1)
	if err != nil {
		return err
	}
	w, err := b.start("worker-postgres", nil, b.cfg.worker, "serve", "--listen", fmt.Sprintf("127.0.0.1:%d", ports[0]),
		"--database-url", b.pg.url(b.importDB), "--cache-size", "0")
	if err != nil {
		return err
	}
	defer b.stop(w)
	url := fmt.Sprintf("http://127.0.0.1:%d", ports[0])
	if err := waitReady(ctx, w, url+"/health", 10*time.Minute, healthy); err != nil {
		return err
	}
	pids := backendsOf(b.importDB)
	row, err := b.load.wrk(ctx, "postgres", "worker on Postgres, lookup, no cache", c, url, keysLookup, "",
		func() []int { return append(pids(), w.pid()) })
	if err != nil {
		return err
	}
	row.Compare(base)
	b.rep.Loads = append(b.rep.Loads, row)
	return nil
}

// machine describes the machine and the tools.
func machine(ctx context.Context, pg pgTarget) measure.Machine {
	m := measure.Machine{Cores: runtime.NumCPU(), Go: runtime.Version(), Load1Start: measure.LoadAvg()}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "model name"); ok {
				m.CPU = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v), ":"))
				break
			}
		}
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "MemTotal:"); ok {
				kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
				m.MemoryGiB = kb / (1 << 20)
			}
		}
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
	// wrk prints its version with the usage and exits 1.
	out, _ := exec.CommandContext(ctx, "wrk", "-v").CombinedOutput()
	if f := strings.Fields(firstLine(string(out))); len(f) >= 2 {
		m.Wrk = f[0] + " " + f[1]
	}
	if out, err := exec.CommandContext(ctx, "pgbench", "--version").Output(); err == nil {
		m.Pgbench = strings.TrimSpace(string(out))
	}
	m.Postgres = pg.version(ctx)
	m.Nginx = nginxVersion(ctx)
	return m
}
