package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/store/addresscache"
	"github.com/adreswijzer/adreswijzer/store/memory"
	"github.com/adreswijzer/adreswijzer/store/postgres"
	"github.com/adreswijzer/adreswijzer/worker/gcpace"
	"github.com/adreswijzer/adreswijzer/worker/httpapi"
	"github.com/adreswijzer/adreswijzer/worker/match"
	"github.com/adreswijzer/adreswijzer/worker/mcpserver"
)

// serveConfig is a parsed serve command line.
type serveConfig struct {
	listen        string
	snapshots     []string
	databaseURL   string
	replicaURL    string
	timeout       time.Duration
	cacheSize     int
	lookupCache   int
	metricsListen string
	gcHeadroomMB  uint64
	logEvery      bool
	slowRequest   time.Duration
}

// maxRequestTimeout is the callers' budget when a person waits: a deadline beyond it would
// answer after the caller has given up.
const maxRequestTimeout = 1500 * time.Millisecond

func parseServe(args []string, stderr io.Writer) (serveConfig, error) {
	fs := flag.NewFlagSet("worker serve", flag.ContinueOnError)
	listen := fs.String("listen", "127.0.0.1:8081", "`ADDR`ess to serve the REST interface on")
	var snaps listFlag
	fs.Var(&snaps, "snapshot", "serve the embedded store from this snapshot `FILE` (repeat per country); a later import that replaces it is picked up")
	dbURL := fs.String("database-url", "", "serve from Postgres at `URL` (default $DATABASE_URL when no --snapshot is given)")
	replica := fs.String("replica-url", "", "read addresses from this Postgres replica `URL`")
	timeout := fs.Duration("request-timeout", httpapi.DefaultRequestTimeout, "deadline of each request; beyond it the answer is 503 (at most 1.5s, the callers' budget)")
	cacheSize := fs.Int("cache-size", addresscache.DefaultEntries, "address answers cached per query kind in front of Postgres; 0 turns the cache off")
	lookupCache := fs.Int("lookup-cache", httpapi.DefaultLookupCache, "lookup answers kept whole, to answer the same question again within one register activation; 0 turns it off")
	metrics := fs.String("metrics-listen", "", "serve /metrics on this `ADDR`ess only (default: /metrics on --listen)")
	gcHeadroom := fs.Uint64("gc-headroom-mb", 128, "let the heap grow this many `MB` beyond what it holds before collecting (GOGC follows the live heap; 0, or GOGC in the environment, leaves Go's pacing)")
	accessLog := fs.String("access-log", "failures", "which requests get an access log line (`MODE`): all, or failures (5xx, and answers slower than --slow-request); the gateway's access log has every request")
	slow := fs.Duration("slow-request", httpapi.DefaultSlowRequest, "log a request that takes longer than this, whatever --access-log says")
	rest, err := parse(fs, args, stderr)
	if err != nil {
		return serveConfig{}, err
	}
	cfg := serveConfig{listen: *listen, snapshots: snaps, databaseURL: *dbURL, replicaURL: *replica,
		timeout: *timeout, cacheSize: *cacheSize, lookupCache: *lookupCache, metricsListen: *metrics, gcHeadroomMB: *gcHeadroom,
		logEvery: *accessLog == "all", slowRequest: *slow}
	switch {
	case len(rest) > 0:
		return cfg, usagef("unexpected argument %q", rest[0])
	case *accessLog != "all" && *accessLog != "failures":
		return cfg, usagef("--access-log must be all or failures")
	case cfg.slowRequest <= 0:
		return cfg, usagef("--slow-request must be above 0")
	case cfg.timeout <= 0 || cfg.timeout >= maxRequestTimeout:
		return cfg, usagef("--request-timeout must be above 0 and below %v, the callers' budget", maxRequestTimeout)
	case cfg.cacheSize < 0:
		return cfg, usagef("--cache-size must not be negative")
	case cfg.lookupCache < 0:
		return cfg, usagef("--lookup-cache must not be negative")
	case len(cfg.snapshots) > 0 && cfg.databaseURL != "":
		return cfg, usagef("give --snapshot or --database-url, not both")
	case cfg.replicaURL != "" && len(cfg.snapshots) > 0:
		return cfg, usagef("--replica-url goes with Postgres, not with --snapshot")
	}
	if len(cfg.snapshots) == 0 && cfg.databaseURL == "" {
		cfg.databaseURL = os.Getenv("DATABASE_URL")
	}
	if len(cfg.snapshots) == 0 && cfg.databaseURL == "" {
		return cfg, usagef("give --snapshot FILE or --database-url URL (or set DATABASE_URL)")
	}
	return cfg, nil
}

// serveCmd serves until ctx ends (SIGINT, SIGTERM), then stops accepting, lets the
// requests in flight finish and closes the store.
func serveCmd(ctx context.Context, args []string, stderr io.Writer, log *slog.Logger) error {
	cfg, err := parseServe(args, stderr)
	if err != nil {
		return err
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))

	store, closeStore, err := openStore(ctx, cfg, reg, log)
	if err != nil {
		return err
	}
	defer closeStore()

	engine := match.New(store, match.Options{})
	if err := engine.Warm(ctx); err != nil {
		return fmt.Errorf("warm up: %w", err)
	}
	// A dataset activated later (a new snapshot, a Postgres import) gets its index built as
	// soon as it appears; until then the previous one answers.
	go engine.Follow(ctx, time.Second)
	// The registers loaded, the collector is paced by what requests allocate.
	gcpace.Run(ctx, cfg.gcHeadroomMB<<20, 10*time.Second, log)
	opts := httpapi.Options{RequestTimeout: cfg.timeout, Logger: log, LogEvery: cfg.logEvery, SlowRequest: cfg.slowRequest, Registry: reg,
		MCP: mcpserver.NewHandler(engine, mcpserver.Options{Logger: log}), InMemory: len(cfg.snapshots) > 0,
		LookupCache: cfg.lookupCache}
	if cfg.metricsListen == "" {
		opts.MetricsPath = "/metrics"
	}
	api := newServer(httpapi.New(engine, store, opts), log)
	servers := []*http.Server{api}
	lns := []net.Listener{}
	ln, err := net.Listen("tcp", cfg.listen)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	lns = append(lns, ln)
	if cfg.metricsListen != "" {
		mln, err := net.Listen("tcp", cfg.metricsListen)
		if err != nil {
			ln.Close()
			return fmt.Errorf("listen for metrics: %w", err)
		}
		mux := http.NewServeMux()
		mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
		servers = append(servers, newServer(mux, log))
		lns = append(lns, mln)
		log.Info("serving metrics", "addr", mln.Addr().String())
	}
	log.Info("serving", "addr", ln.Addr().String(), "store", storeKind(cfg), "requestTimeout", cfg.timeout.String(),
		"datasets", datasetList(ctx, store))

	errc := make(chan error, len(servers))
	for i, srv := range servers {
		go func() { errc <- srv.Serve(lns[i]) }()
	}
	select {
	case err = <-errc:
		err = fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
		log.Info("shutting down")
	}
	shutCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, srv := range servers {
		if serr := srv.Shutdown(shutCtx); serr != nil && err == nil {
			err = fmt.Errorf("shut down: %w", serr)
		}
	}
	if err == nil {
		log.Info("stopped")
	}
	return err
}

// newServer bounds what a slow or hostile client can hold: headers and bodies must arrive
// in time, and an idle connection is closed.
func newServer(h http.Handler, log *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      15 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
}

// openStore opens the memory store from the snapshot files, or Postgres with the cache in
// front. The memory store is ready when this returns (each snapshot that exists is loaded)
// and watches the files for replacement until ctx ends; a snapshot not written yet is
// picked up when an import writes it.
func openStore(ctx context.Context, cfg serveConfig, reg *prometheus.Registry, log *slog.Logger) (adreswijzer.Store, func(), error) {
	if len(cfg.snapshots) > 0 {
		s := memory.New(memory.Options{Logger: log})
		for _, path := range cfg.snapshots {
			err := s.LoadSnapshot(path)
			switch {
			case errors.Is(err, os.ErrNotExist):
				log.Warn("snapshot not there yet; it is served once an import writes it", "path", path)
			case err != nil:
				return nil, nil, fmt.Errorf("load snapshot: %w", err)
			}
		}
		watchCtx, stop := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() {
			defer close(done)
			_ = s.Watch(watchCtx, cfg.snapshots...)
		}()
		return s, func() { stop(); <-done }, nil
	}
	pg, err := postgres.Open(ctx, cfg.databaseURL, postgres.Options{ReplicaURL: cfg.replicaURL, Logger: log})
	if err != nil {
		return nil, nil, err
	}
	if cfg.cacheSize == 0 {
		return pg, pg.Close, nil
	}
	c := addresscache.New(pg, addresscache.Options{Entries: cfg.cacheSize})
	reg.MustRegister(
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Namespace: "adreswijzer", Subsystem: "worker", Name: "address_cache_hits_total",
			Help: "Address queries answered from the cache in front of Postgres.",
		}, func() float64 { return float64(c.Stats().Hits) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Namespace: "adreswijzer", Subsystem: "worker", Name: "address_cache_misses_total",
			Help: "Address queries the cache in front of Postgres passed on.",
		}, func() float64 { return float64(c.Stats().Misses) }),
	)
	return c, pg.Close, nil
}

// storeKind names the store for the start-up log line; never the database URL, which may
// carry a password.
func storeKind(cfg serveConfig) string {
	switch {
	case len(cfg.snapshots) > 0:
		return "memory"
	case cfg.replicaURL != "":
		return "postgres+replica"
	}
	return "postgres"
}

// datasetList is the start-up log's view of what is served.
func datasetList(ctx context.Context, s adreswijzer.Store) []string {
	var out []string
	for _, c := range adreswijzer.Countries {
		if ds, err := s.Active(ctx, c); err == nil {
			out = append(out, string(c)+" "+string(ds.Info().Version))
		} else {
			out = append(out, string(c)+" none")
		}
	}
	return out
}
