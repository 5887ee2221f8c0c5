// Package postgres is the store for deployments with several worker processes or machines:
// the addresses live in PostgreSQL, one schema per dataset, and every worker keeps only the
// small catalog of the active dataset in memory and asks Postgres for addresses by point
// queries.
//
// An import loads a new schema with COPY while the old dataset serves, builds the indexes,
// and activates it by flipping one control row in one transaction. Each Store polls the
// control table every second and swaps the new dataset in, so all workers follow an import
// within about a second. When Postgres is down, Active keeps answering with the dataset it
// knows (its catalog is in memory) and address queries fail fast with ErrUnavailable, so the
// service can fail open.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/adreswijzer/adreswijzer"
)

// Options configures a Store.
type Options struct {
	// ReplicaURL, when set, is a read replica: polling for the active dataset, loading
	// catalogs and address queries go there, so workers scale out with replicas, while
	// imports and activation go to the primary.
	ReplicaURL string
	// PollInterval is how often the active datasets are checked; one second by default.
	PollInterval time.Duration
	// QueryTimeout bounds one address query when the caller's context allows longer, so a
	// stalled database turns into ErrUnavailable instead of a hung request; 2 s by default.
	QueryTimeout time.Duration
	// CatalogTimeout bounds loading a dataset's catalog (streets, localities, places);
	// 2 minutes by default.
	CatalogTimeout time.Duration
	// BatchSize is the number of addresses per COPY; 20,000 by default.
	BatchSize int
	// Logger receives activations and database trouble; slog.Default() when nil.
	Logger *slog.Logger
}

// ErrImportRunning is returned by Begin and Rollback while another import of the country
// holds its lock, in this process or another.
var ErrImportRunning = errors.New("another import of this country is running")

// Store serves the active datasets from PostgreSQL.
type Store struct {
	opts    Options
	log     *slog.Logger
	primary *pgxpool.Pool
	read    *pgxpool.Pool // the replica, or primary
	active  map[adreswijzer.Country]*atomic.Pointer[dataset]

	refreshMu sync.Mutex // one refresh at a time; the poller and Commit both refresh
	pollOK    bool       // last poll succeeded; guarded by refreshMu, for logging changes only

	stop context.CancelFunc
	done chan struct{}
}

var (
	_ adreswijzer.Store  = (*Store)(nil)
	_ adreswijzer.Loader = (*Store)(nil)
)

// Open connects, creates the control table if needed, loads the active datasets' catalogs
// and starts following activations. It fails when the database cannot be reached.
func Open(ctx context.Context, databaseURL string, opts Options) (*Store, error) {
	if opts.PollInterval <= 0 {
		opts.PollInterval = time.Second
	}
	if opts.QueryTimeout <= 0 {
		opts.QueryTimeout = 2 * time.Second
	}
	if opts.CatalogTimeout <= 0 {
		opts.CatalogTimeout = 2 * time.Minute
	}
	if opts.BatchSize <= 0 {
		opts.BatchSize = 20000
	}
	s := &Store{
		opts:   opts,
		log:    opts.Logger,
		active: make(map[adreswijzer.Country]*atomic.Pointer[dataset], len(adreswijzer.Countries)),
		pollOK: true,
		done:   make(chan struct{}),
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	for _, c := range adreswijzer.Countries {
		s.active[c] = new(atomic.Pointer[dataset])
	}
	var err error
	if s.primary, err = newPool(ctx, databaseURL); err != nil {
		return nil, fmt.Errorf("open postgres: %w", err)
	}
	s.read = s.primary
	if opts.ReplicaURL != "" {
		if s.read, err = newPool(ctx, opts.ReplicaURL); err != nil {
			s.primary.Close()
			return nil, fmt.Errorf("open postgres replica: %w", err)
		}
	}
	if err := ensureControl(ctx, s.primary); err != nil {
		s.closePools()
		return nil, fmt.Errorf("open postgres: create control table: %w", err)
	}
	if err := s.refresh(ctx); err != nil {
		s.closePools()
		return nil, fmt.Errorf("open postgres: %w", err)
	}
	pollCtx, stop := context.WithCancel(context.Background())
	s.stop = stop
	go s.poll(pollCtx)
	return s, nil
}

func newPool(ctx context.Context, url string) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("parse database URL: %w", err)
	}
	if cfg.ConnConfig.RuntimeParams["application_name"] == "" {
		cfg.ConnConfig.RuntimeParams["application_name"] = "adreswijzer"
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("%w: %w", adreswijzer.ErrUnavailable, err)
	}
	return pool, nil
}

// Close stops following activations and closes the connections. It waits for connections in
// use, so commit or abort open writers first.
func (s *Store) Close() {
	if s.stop != nil {
		s.stop()
		<-s.done
	}
	s.closePools()
}

func (s *Store) closePools() {
	if s.read != s.primary {
		s.read.Close()
	}
	s.primary.Close()
}

// Active returns the dataset serving now for the country, the last one this Store loaded; it
// keeps answering while the database is down.
func (s *Store) Active(_ context.Context, c adreswijzer.Country) (adreswijzer.Dataset, error) {
	p, ok := s.active[c]
	if !ok {
		return nil, fmt.Errorf("active dataset: unsupported country %q", c)
	}
	d := p.Load()
	if d == nil {
		return nil, fmt.Errorf("active dataset %s: %w", c, adreswijzer.ErrNoDataset)
	}
	return d, nil
}

// Ping checks the database that answers address queries (the replica when there is one).
func (s *Store) Ping(ctx context.Context) error {
	ctx, cancel := s.queryContext(ctx)
	defer cancel()
	if err := s.read.Ping(ctx); err != nil {
		return fmt.Errorf("ping postgres: %w: %w", adreswijzer.ErrUnavailable, err)
	}
	return nil
}

// queryContext applies QueryTimeout when the caller's deadline is later or absent.
func (s *Store) queryContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, s.opts.QueryTimeout)
}

func (s *Store) poll(ctx context.Context) {
	defer close(s.done)
	t := time.NewTicker(s.opts.PollInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			s.refresh(ctx)
		}
	}
}

type activeRow struct {
	id          int64
	country     adreswijzer.Country
	version     string
	schema      string
	activatedAt time.Time
	addresses   int64
}

// refresh loads the catalog of every newly activated dataset and swaps it in. A failure is
// logged when the poll state changes (so a database that stays down logs once) and returned.
func (s *Store) refresh(ctx context.Context) error {
	s.refreshMu.Lock()
	defer s.refreshMu.Unlock()
	err := s.refreshLocked(ctx)
	switch {
	case err != nil && s.pollOK:
		s.log.Warn("cannot follow dataset activations; serving the datasets loaded before", "err", err)
	case err == nil && !s.pollOK:
		s.log.Info("following dataset activations again")
	}
	s.pollOK = err == nil
	return err
}

func (s *Store) refreshLocked(ctx context.Context) error {
	qctx, cancel := s.queryContext(ctx)
	rows, err := s.read.Query(qctx,
		"SELECT id, country, version, schema_name, activated_at, addresses FROM adreswijzer.datasets WHERE state = 'active'")
	var found []activeRow
	if err == nil {
		found, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (activeRow, error) {
			var a activeRow
			var c string
			err := r.Scan(&a.id, &c, &a.version, &a.schema, &a.activatedAt, &a.addresses)
			a.country = adreswijzer.Country(c)
			return a, err
		})
	}
	cancel()
	if err != nil {
		return fmt.Errorf("read active datasets: %w: %w", adreswijzer.ErrUnavailable, err)
	}
	var errs []error
	for _, a := range found {
		p, ok := s.active[a.country]
		if !ok {
			continue // a country this program does not serve
		}
		if cur := p.Load(); cur != nil && cur.id == a.id && cur.info.ActivatedAt.Equal(a.activatedAt) {
			continue
		}
		d, err := s.loadDataset(ctx, a)
		if err != nil {
			errs = append(errs, fmt.Errorf("load dataset %s %s: %w", a.country, a.version, err))
			continue
		}
		p.Store(d)
		s.log.Info("dataset activated", "country", string(a.country), "version", a.version, "addresses", a.addresses)
	}
	return errors.Join(errs...)
}
