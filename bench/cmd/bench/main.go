// Command bench is `make bench`: in one run on 127.0.0.1 it measures the baselines (a
// trivial Go handler, Caddy answering by itself and proxying to that handler, nginx proxying
// to that handler and to the worker, pgbench point selects), generates national-size
// synthetic registers with bench/gen, imports them into memory and into Postgres, loads the
// worker and the gateway with wrk (flat out) and the worker with paced loads at a constant
// rate (vegeta: the latency at that rate), collects the Go micro-benchmarks and the WASM
// size, and prints every figure next to the baseline it is compared with, measured in the
// same run. The machine it was written for has two shared cores, so absolute figures vary
// with the neighbours; the ratios, and the CPU cost per request read from /proc, hold up
// much better.
//
//	go run ./bench/cmd/bench                       # national size, 18–25 minutes on two cores
//	go run ./bench/cmd/bench -scale 0.1            # a tenth of it
//	go run ./bench/cmd/bench -quick                # tiny sizes and short loads: does it work? (5 minutes)
//	go run ./bench/cmd/bench -only widget          # the address form in Chromium alone (4 minutes)
//	go run ./bench/cmd/bench report artifacts/bench.json   # the tables again, as Markdown
//
// `make bench` runs it with -out artifacts/bench.json; BENCH_ARGS passes more options
// (BENCH_ARGS=-quick, BENCH_ARGS="-scale 0.1").
//
// It expects bin/worker, bin/gateway, widget/adreswijzer.wasm and widget/dist (make build),
// which it copies before it starts, Debian's Chromium for the address form, wrk and pgbench
// on the PATH, nginx (Debian's nginx-light; the run starts its own with a configuration of
// its own, no system service), and a Postgres on 127.0.0.1:5432 where it may create and
// drop scratch databases. Every load is bounded (wrk -d, pgbench -T, the paced loads'
// -duration and request timeout) and goes to 127.0.0.1 only.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/adreswijzer/adreswijzer/bench/measure"
)

// subcommands are the helpers the driver starts as processes of their own, so that their
// CPU and memory can be measured apart from the driver's, and the report renderer.
var subcommands = map[string]func(args []string, stdout io.Writer) error{
	"trivial":  trivialCmd,
	"probe":    probeCmd,
	"mapprobe": mapProbeCmd,
	"paced":    pacedCmd,
	"report":   reportCmd,
}

func main() {
	if len(os.Args) > 1 {
		if sub, ok := subcommands[os.Args[1]]; ok {
			if err := sub(os.Args[2:], os.Stdout); err != nil {
				fmt.Fprintln(os.Stderr, "bench:", err)
				os.Exit(1)
			}
			return
		}
	}
	cfg, err := parseConfig(os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err = run(ctx, cfg, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// config is a parsed command line.
type config struct {
	args     []string
	repo     string
	worker   string
	gateway  string
	wasm     string
	dist     string
	scale    float64
	nl, be   int64
	seed     uint64
	dataDir  string
	workDir  string
	keep     bool
	jsonPath string

	duration time.Duration
	conns    []int
	threads  int
	rounds   int
	keys     int
	hotKeys  int
	rate     int // of the paced loads; 0 leaves them out

	adminURL string
	pgConns  int

	guard measure.Guard
	skip  map[string]bool
	quick bool
}

// phases that -skip and -only take. registers is the generated registers, their imports
// into memory and the worker loads, which postgres and gateway build on; widget the address
// form loading in Chromium.
var phases = []string{"registers", "postgres", "gateway", "micro", "wasm", "widget"}

func parseConfig(args []string, stderr io.Writer) (config, error) {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := config{args: args}
	defScale := 1.0
	if s := os.Getenv("BENCH_SCALE"); s != "" {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || v <= 0 {
			return cfg, errors.New("BENCH_SCALE must be a positive number")
		}
		defScale = v
	}
	fs.StringVar(&cfg.repo, "repo", ".", "repository root (where go.mod is); the other paths are relative to it")
	fs.StringVar(&cfg.worker, "worker", "bin/worker", "worker binary")
	fs.StringVar(&cfg.gateway, "gateway", "bin/gateway", "gateway binary")
	fs.StringVar(&cfg.wasm, "wasm", "widget/adreswijzer.wasm", "the form's WebAssembly module, whose size is reported")
	fs.StringVar(&cfg.dist, "dist", "widget/dist", "the form's served files (make build), loaded in Chromium")
	fs.Float64Var(&cfg.scale, "scale", defScale, "dataset size as a share of national size (10M NL, 6.5M BE addresses); $BENCH_SCALE")
	fs.Uint64Var(&cfg.seed, "seed", 1, "generator seed")
	fs.StringVar(&cfg.dataDir, "data", "", "keep the generated registers in `DIR` and reuse them when seed and sizes match")
	fs.StringVar(&cfg.workDir, "work", "", "working `DIR` (default: a new temporary directory)")
	fs.BoolVar(&cfg.keep, "keep", false, "keep the working directory")
	fs.StringVar(&cfg.jsonPath, "out", filepath.Join(envOr("ADRESWIJZER_ARTIFACTS", "artifacts"), "bench.json"), "write the results as JSON to `FILE`")
	fs.DurationVar(&cfg.duration, "duration", 10*time.Second, "length of each load")
	conns := fs.String("conns", "8,32,64", "wrk connection counts, comma-separated")
	fs.IntVar(&cfg.threads, "threads", 2, "wrk threads")
	fs.IntVar(&cfg.rounds, "rounds", 3, "measure each gateway load and its baseline this many times in turn and report the round of median ratio (their targets sit near the measured ratios)")
	fs.IntVar(&cfg.keys, "keys", 50000, "requests drawn from the imported data per key file")
	fs.IntVar(&cfg.rate, "rate", 2000, "requests per second of the paced (open-loop) worker loads; 0 leaves them out")
	fs.IntVar(&cfg.hotKeys, "hot-keys", 1000, "lookups the cached gateway load cycles through (must fit the gateway cache)")
	fs.StringVar(&cfg.adminURL, "database", envOr("BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"),
		"Postgres `URL` where scratch databases are created and dropped; $BENCH_DATABASE_URL")
	fs.IntVar(&cfg.pgConns, "pg-conns", 32, "connections of the Postgres loads")
	fs.Float64Var(&cfg.guard.Settle, "settle", 0.3, "before a load, wait for fewer busy `cores` than this…")
	fs.DurationVar(&cfg.guard.MaxWait, "max-wait", 15*time.Second, "…but at most this long")
	fs.Float64Var(&cfg.guard.MaxOther, "max-other", 0.5, "repeat a load when other processes kept more `cores` than this busy during it…")
	fs.IntVar(&cfg.guard.Tries, "tries", 2, "…up to this many tries, keeping the quietest")
	skip := fs.String("skip", "", "phases to leave out, comma-separated: "+strings.Join(phases, ", "))
	only := fs.String("only", "", "run only these phases, comma-separated (the others are skipped)")
	fs.BoolVar(&cfg.quick, "quick", false, "tiny sizes and one-second loads, to check that everything works (figures mean nothing)")
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if cfg.quick {
		// Only what was not given explicitly.
		quick := map[string]func(){
			"scale":     func() { cfg.scale = 0.001 },
			"duration":  func() { cfg.duration = 2 * time.Second },
			"keys":      func() { cfg.keys = 2000 },
			"hot-keys":  func() { cfg.hotKeys = 100 },
			"rate":      func() { cfg.rate = 200 },
			"max-wait":  func() { cfg.guard.MaxWait = 0 },
			"tries":     func() { cfg.guard.Tries = 1 },
			"conns":     func() { *conns = "8" },
			"rounds":    func() { cfg.rounds = 1 },
			"pg-conns":  func() { cfg.pgConns = 8 },
			"max-other": func() { cfg.guard.MaxOther = 2 },
		}
		for name, f := range quick {
			if !set[name] {
				f()
			}
		}
	}
	if cfg.scale <= 0 {
		return cfg, errors.New("-scale must be positive")
	}
	if cfg.rounds < 1 {
		return cfg, errors.New("-rounds must be at least 1")
	}
	cfg.nl = max(int64(10_000_000*cfg.scale+0.5), 1000)
	cfg.be = max(int64(6_500_000*cfg.scale+0.5), 1000)
	for _, c := range strings.Split(*conns, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(c))
		if err != nil || n < 1 {
			return cfg, fmt.Errorf("-conns: %q is not a connection count", c)
		}
		cfg.conns = append(cfg.conns, n)
	}
	cfg.skip = map[string]bool{}
	if *only != "" {
		if *skip != "" {
			return cfg, errors.New("-skip and -only exclude each other")
		}
		keep := map[string]bool{}
		for _, s := range strings.Split(*only, ",") {
			keep[strings.TrimSpace(s)] = true
		}
		var rest []string
		for _, p := range phases {
			if !keep[p] {
				rest = append(rest, p)
			}
			delete(keep, p)
		}
		for s := range keep {
			return cfg, fmt.Errorf("-only: unknown phase %q (have %s)", s, strings.Join(phases, ", "))
		}
		*skip = strings.Join(rest, ",")
	}
	for _, s := range strings.Split(*skip, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		known := false
		for _, p := range phases {
			known = known || p == s
		}
		if !known {
			return cfg, fmt.Errorf("-skip: unknown phase %q (have %s)", s, strings.Join(phases, ", "))
		}
		cfg.skip[s] = true
	}
	if cfg.skip["registers"] && (!cfg.skip["postgres"] || !cfg.skip["gateway"]) {
		return cfg, errors.New("the postgres and gateway phases load the generated registers: skip them too, or keep registers")
	}
	if cfg.duration < time.Second {
		return cfg, errors.New("-duration must be at least 1s")
	}
	if cfg.rate < 0 {
		return cfg, errors.New("-rate must not be negative")
	}
	if cfg.hotKeys < 1 || cfg.keys < cfg.hotKeys {
		return cfg, errors.New("-hot-keys must be at least 1 and at most -keys")
	}
	return cfg, nil
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func reportCmd(args []string, stdout io.Writer) error {
	if len(args) != 1 {
		return errors.New("usage: bench report FILE.json")
	}
	r, err := measure.ReadJSON(args[0])
	if err != nil {
		return err
	}
	r.Markdown(stdout)
	return nil
}
