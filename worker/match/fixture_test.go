package match

import (
	"context"
	"sync"
	"testing"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/store/bag"
	"github.com/adreswijzer/adreswijzer/store/best"
	"github.com/adreswijzer/adreswijzer/store/memory"
	"github.com/adreswijzer/adreswijzer/store/storetest"
)

// The integration tests answer from the real samples, loaded the way the worker loads them:
// the Kadaster extract of Weesp through the BAG importer, BOSA's BeST sample (Brussels/Haren,
// Halle/Lembeek, Malmedy) through the BeST importer, both into the memory store.

// beSampleFiles are the five files of BOSA's load layout.
var beSampleFiles = []string{"addresses_part.csv", "streets_part.csv", "municipalities.csv", "municipalityparts.csv", "postals.csv"}

type sample struct {
	store *memory.Store
	nl    []adreswijzer.Address // every address imported, in import order
	be    []adreswijzer.Address
}

var (
	sampleOnce sync.Once
	sampleData *sample
	sampleErr  error
)

// loadSamples imports both samples once per test binary.
func loadSamples(tb testing.TB) *sample {
	tb.Helper()
	nlFile := storetest.File(tb, "nl", "BAGGEM0457L-15102021.zip")
	var beFiles []string
	for _, f := range beSampleFiles {
		beFiles = append(beFiles, storetest.File(tb, "be", f))
	}
	sampleOnce.Do(func() {
		sampleData, sampleErr = importSamples(nlFile, beFiles)
	})
	if sampleErr != nil {
		tb.Fatalf("load samples: %v", sampleErr)
	}
	return sampleData
}

func importSamples(nlFile string, beFiles []string) (*sample, error) {
	ctx := context.Background()
	s := &sample{store: memory.New(memory.Options{})}
	w, err := s.store.Begin(ctx, adreswijzer.NL)
	if err != nil {
		return nil, err
	}
	res, err := bag.Import(ctx, []string{nlFile}, func(a adreswijzer.Address) error {
		s.nl = append(s.nl, a)
		return w.Add(a)
	}, bag.Options{})
	if err != nil {
		return nil, err
	}
	if _, err := w.Commit(ctx, res.Version); err != nil {
		return nil, err
	}
	w, err = s.store.Begin(ctx, adreswijzer.BE)
	if err != nil {
		return nil, err
	}
	bres, err := best.Import(ctx, beFiles, func(a adreswijzer.Address) error {
		s.be = append(s.be, a)
		return w.Add(a)
	}, best.Options{})
	if err != nil {
		return nil, err
	}
	if _, err := w.Commit(ctx, bres.Version); err != nil {
		return nil, err
	}
	return s, nil
}

// engine returns an engine over the samples.
func sampleEngine(tb testing.TB) (*Engine, *sample) {
	tb.Helper()
	s := loadSamples(tb)
	return New(s.store, Options{}), s
}
