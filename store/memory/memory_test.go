package memory_test

import (
	"context"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/store/memory"
	"github.com/adreswijzer/adreswijzer/store/storetest"
	"github.com/adreswijzer/adreswijzer/store/storetest/samples"
)

var quiet = slog.New(slog.DiscardHandler)

func openMemory(t *testing.T) (adreswijzer.Store, adreswijzer.Loader) {
	s := memory.New(memory.Options{Logger: quiet})
	return s, s
}

func TestConformance(t *testing.T) {
	storetest.Run(t, openMemory)
}

// openWithSnapshots commits through a snapshot file and serves what a second store reads
// back from it, so the conformance checks also cover the snapshot format.
func TestConformanceThroughSnapshots(t *testing.T) {
	storetest.Run(t, func(t *testing.T) (adreswijzer.Store, adreswijzer.Loader) {
		dir := t.TempDir()
		paths := map[adreswijzer.Country]string{
			adreswijzer.NL: filepath.Join(dir, "nl.snap"),
			adreswijzer.BE: filepath.Join(dir, "be.snap"),
		}
		return &reloading{memory.New(memory.Options{Logger: quiet}), paths}, memory.New(memory.Options{Snapshots: paths, Logger: quiet})
	})
}

// reloading serves the snapshot files as they are now: each Active reads the file again.
type reloading struct {
	*memory.Store
	paths map[adreswijzer.Country]string
}

func (r *reloading) Active(ctx context.Context, c adreswijzer.Country) (adreswijzer.Dataset, error) {
	if p, ok := r.paths[c]; ok {
		if d, err := memory.ReadSnapshot(p); err == nil {
			return d, nil
		}
	}
	return r.Store.Active(ctx, c)
}

func TestImported(t *testing.T) {
	storetest.RunImported(t, openMemory, samples.BAGWeesp(t), samples.BeSTSample(t))
}
