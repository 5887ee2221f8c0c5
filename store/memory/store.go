// Package memory is the embedded store: every dataset is held in compact columns in the
// worker's own memory and kept across restarts in snapshot files, so that the whole service
// runs on one machine with no database.
//
// An import runs as a separate process: its Commit writes the snapshot file (atomically), and
// a serving process that Watches the file activates the new dataset within a second or two.
package memory

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/adreswijzer/adreswijzer"
)

// Options configures a Store.
type Options struct {
	// Snapshots names, per country, the snapshot file that Commit writes after building a
	// dataset. A country without a path keeps its datasets in memory only.
	Snapshots map[adreswijzer.Country]string
	// PollInterval is how often Watch looks at the snapshot files; one second by default.
	PollInterval time.Duration
	// Logger receives activation and snapshot errors; slog.Default() when nil.
	Logger *slog.Logger
}

// Store serves the active dataset of each country from memory.
type Store struct {
	opts   Options
	log    *slog.Logger
	active map[adreswijzer.Country]*atomic.Pointer[Dataset]

	mu     sync.Mutex
	loaded map[string]fileState // snapshot files as last read or written by this store
}

type fileState struct {
	mod  time.Time
	size int64
}

var (
	_ adreswijzer.Store  = (*Store)(nil)
	_ adreswijzer.Loader = (*Store)(nil)
)

// New returns an empty store; load datasets with Begin, LoadSnapshot or Watch.
func New(opts Options) *Store {
	if opts.PollInterval <= 0 {
		opts.PollInterval = time.Second
	}
	s := &Store{
		opts:   opts,
		log:    opts.Logger,
		active: make(map[adreswijzer.Country]*atomic.Pointer[Dataset], len(adreswijzer.Countries)),
		loaded: make(map[string]fileState),
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	for _, c := range adreswijzer.Countries {
		s.active[c] = new(atomic.Pointer[Dataset])
	}
	return s
}

// Active returns the dataset serving now for the country.
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

// Ping always succeeds: there is no database to lose.
func (s *Store) Ping(context.Context) error { return nil }

// Begin starts a dataset for the country beside the active one.
func (s *Store) Begin(_ context.Context, c adreswijzer.Country) (adreswijzer.DatasetWriter, error) {
	if _, ok := s.active[c]; !ok {
		return nil, fmt.Errorf("begin dataset: unsupported country %q", c)
	}
	return newWriter(s, c), nil
}

// Activate makes d the dataset serving its country. Readers that already hold the previous
// dataset finish their request on it.
func (s *Store) Activate(d *Dataset) {
	p, ok := s.active[d.info.Country]
	if !ok {
		// Datasets are only built or read for supported countries.
		panic(fmt.Sprintf("memory: activate dataset of unsupported country %q", d.info.Country))
	}
	p.Store(d)
	s.log.Info("dataset activated", "country", string(d.info.Country), "version", string(d.info.Version), "addresses", d.info.Addresses)
}

// LoadSnapshot reads a snapshot file and activates its dataset.
func (s *Store) LoadSnapshot(path string) error {
	d, st, err := readSnapshotFile(path)
	if err != nil {
		return err
	}
	s.Activate(d)
	s.mu.Lock()
	s.loaded[path] = st
	s.mu.Unlock()
	return nil
}

// noteLoaded records the state of a snapshot file this store has just written, so that Watch
// does not read back what it already serves.
func (s *Store) noteLoaded(path string) {
	fi, err := os.Stat(path)
	if err != nil {
		return
	}
	s.mu.Lock()
	s.loaded[path] = fileState{mod: fi.ModTime(), size: fi.Size()}
	s.mu.Unlock()
}

// Watch activates the dataset of each snapshot file when the file changes (an import process
// replaced it) or when this store has not read it yet. It polls every PollInterval until ctx
// ends and returns ctx's error. A snapshot that cannot be read is logged once and skipped; the
// active dataset stays until a good file appears.
func (s *Store) Watch(ctx context.Context, paths ...string) error {
	failed := make(map[string]fileState)
	check := func() {
		for _, path := range paths {
			fi, err := os.Stat(path)
			if err != nil {
				continue // not written yet, or being replaced: look again next time
			}
			now := fileState{mod: fi.ModTime(), size: fi.Size()}
			s.mu.Lock()
			seen, ok := s.loaded[path]
			s.mu.Unlock()
			if (ok && seen == now) || failed[path] == now {
				continue
			}
			if err := s.LoadSnapshot(path); err != nil {
				failed[path] = now
				s.log.Error("snapshot not activated", "path", path, "err", err)
				continue
			}
			delete(failed, path)
		}
	}
	check()
	tick := time.NewTicker(s.opts.PollInterval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
			check()
		}
	}
}
