package gen

import (
	"context"
	"crypto/sha256"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/adreswijzer/adreswijzer/store/storetest"
)

// The test sizes: large enough that NUM spans several 10,000-record files, every fate
// occurs and the shares can be checked; small enough to import in seconds.
const (
	testNL = 20_000
	testBE = 60_000
)

var testDate = time.Date(2025, 9, 15, 0, 0, 0, 0, time.UTC)

var (
	tmpRoot string
	nlOnce  sync.Once
	nlSt    NLStats
	nlErr   error
	beOnce  sync.Once
	beSt    BEStats
	beErr   error
)

func TestMain(m *testing.M) {
	var err error
	tmpRoot, err = os.MkdirTemp("", "adreswijzer-gen-*")
	if err != nil {
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(tmpRoot)
	os.Exit(code)
}

// nlSample is the NL set the tests share, generated once.
func nlSample(t *testing.T) NLStats {
	t.Helper()
	nlOnce.Do(func() {
		nlSt, nlErr = WriteNL(context.Background(), filepath.Join(tmpRoot, "nl"),
			NLOptions{Addresses: testNL, Seed: 1, Date: testDate, DataDir: storetest.DataDir(t)})
	})
	if nlErr != nil {
		t.Fatal(nlErr)
	}
	return nlSt
}

func beSample(t *testing.T) BEStats {
	t.Helper()
	beOnce.Do(func() {
		beSt, beErr = WriteBE(context.Background(), filepath.Join(tmpRoot, "be"),
			BEOptions{Addresses: testBE, Seed: 1, DataDir: storetest.DataDir(t)})
	})
	if beErr != nil {
		t.Fatal(beErr)
	}
	return beSt
}

func fileHash(t *testing.T, path string) [32]byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		t.Fatal(err)
	}
	return [32]byte(h.Sum(nil))
}

// within fails the test when a share lies outside [lo, hi] percent.
func within(t *testing.T, what string, n, of int64, lo, hi float64) {
	t.Helper()
	pct := 100 * float64(n) / float64(of)
	if pct < lo || pct > hi {
		t.Errorf("%s: %d of %d = %.2f %%, want %.1f to %.1f %%", what, n, of, pct, lo, hi)
	}
}
