package memory_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/store/memory"
	"github.com/adreswijzer/adreswijzer/store/storetest"
)

// commitSnapshot imports rows with a store that writes its NL snapshot to path.
func commitSnapshot(t *testing.T, path string, v adreswijzer.DatasetVersion, rows []adreswijzer.Address) adreswijzer.DatasetInfo {
	t.Helper()
	s := memory.New(memory.Options{Snapshots: map[adreswijzer.Country]string{adreswijzer.NL: path}, Logger: quiet})
	return storetest.Load(t, s, adreswijzer.NL, v, rows)
}

func TestSnapshotRoundTrip(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		country adreswijzer.Country
		version adreswijzer.DatasetVersion
		rows    []adreswijzer.Address
	}{
		{adreswijzer.NL, "bag:2021-10-15", storetest.WeespAddresses()},
		{adreswijzer.BE, "best:2022-01-11", storetest.BeSTAddresses()},
	} {
		t.Run(string(tc.country), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "snap")
			s := memory.New(memory.Options{Snapshots: map[adreswijzer.Country]string{tc.country: path}, Logger: quiet})
			storetest.Load(t, s, tc.country, tc.version, tc.rows)
			built := storetest.Active(t, s, tc.country)

			read, err := memory.ReadSnapshot(path)
			if err != nil {
				t.Fatal(err)
			}
			bi, ri := built.Info(), read.Info()
			if bi.Country != ri.Country || bi.Version != ri.Version || bi.Addresses != ri.Addresses || !bi.ActivatedAt.Equal(ri.ActivatedAt) {
				t.Errorf("Info after reading = %+v, built %+v", ri, bi)
			}
			if !reflect.DeepEqual(built.Catalog(), read.Catalog()) {
				t.Errorf("catalog after reading differs")
			}
			for _, a := range tc.rows {
				want, _ := built.AddressesAt(ctx, a.Postcode, a.HouseNumber)
				got, err := read.AddressesAt(ctx, a.Postcode, a.HouseNumber)
				if err != nil || !reflect.DeepEqual(got, want) {
					t.Errorf("AddressesAt(%s, %d) after reading = %v, %v; built %v", a.Postcode, a.HouseNumber, got, err, want)
				}
			}

			// Loading activates it in another store.
			other := memory.New(memory.Options{Logger: quiet})
			if err := other.LoadSnapshot(path); err != nil {
				t.Fatal(err)
			}
			if got := storetest.Active(t, other, tc.country).Info(); got.Version != tc.version || got.Addresses != len(tc.rows) {
				t.Errorf("LoadSnapshot activated %+v", got)
			}
		})
	}
}

func TestSnapshotRejectsDamage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nl.snap")
	commitSnapshot(t, path, "bag:2021-10-15", storetest.WeespAddresses())
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	n := len(good)
	damaged := filepath.Join(t.TempDir(), "damaged.snap")
	write := func(b []byte) {
		if err := os.WriteFile(damaged, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	flip := func(at int) []byte {
		b := append([]byte(nil), good...)
		b[at] ^= 0x20
		return b
	}
	cases := []struct {
		name    string
		content []byte
		says    string
	}{
		{"empty", nil, "truncated"},
		{"magic only", good[:8], "truncated"},
		{"header cut", good[:30], "truncated"},
		{"half", good[:n/2], "truncated"},
		{"checksum cut", good[:n-2], "checksum"},
		{"checksum missing", good[:n-4], "checksum"},
		{"trailing garbage", append(append([]byte(nil), good...), 0), "checksum"},
		{"not a snapshot", []byte("openbareruimte;huisnummer;huisletter\n"), "magic"},
		{"format version", flip(8), "format version"},
		{"country", flip(14), "country"},
		{"byte in the strings", flip(n / 4), ""},
		{"byte in the columns", flip(n - 40), ""},
		{"byte in the checksum", flip(n - 1), "checksum"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			write(tc.content)
			d, err := memory.ReadSnapshot(damaged)
			if err == nil {
				t.Fatalf("ReadSnapshot accepted a damaged file (%d addresses)", d.Len())
			}
			if !errors.Is(err, memory.ErrBadSnapshot) {
				t.Errorf("error %v does not wrap ErrBadSnapshot", err)
			}
			if !strings.Contains(err.Error(), tc.says) || !strings.Contains(err.Error(), damaged) {
				t.Errorf("error %q should name the file and say %q", err, tc.says)
			}
			s := memory.New(memory.Options{Logger: quiet})
			if err := s.LoadSnapshot(damaged); err == nil {
				t.Errorf("LoadSnapshot accepted a damaged file")
			}
			if _, err := s.Active(context.Background(), adreswijzer.NL); !errors.Is(err, adreswijzer.ErrNoDataset) {
				t.Errorf("a damaged snapshot was activated: %v", err)
			}
		})
	}
	if _, err := memory.ReadSnapshot(filepath.Join(t.TempDir(), "missing.snap")); err == nil || errors.Is(err, memory.ErrBadSnapshot) || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v, want a not-exist error", err)
	}
}

func TestWatchActivatesReplacedSnapshots(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "nl.snap")
	serving := memory.New(memory.Options{PollInterval: 20 * time.Millisecond, Logger: quiet})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serving.Watch(ctx, path) }()

	waitFor := func(v adreswijzer.DatasetVersion) adreswijzer.Dataset {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			if d, err := serving.Active(ctx, adreswijzer.NL); err == nil && d.Info().Version == v {
				return d
			}
			time.Sleep(5 * time.Millisecond)
		}
		t.Fatalf("version %s not activated", v)
		return nil
	}

	// The file does not exist yet: nothing is served, nothing fails.
	time.Sleep(60 * time.Millisecond)
	if _, err := serving.Active(ctx, adreswijzer.NL); !errors.Is(err, adreswijzer.ErrNoDataset) {
		t.Fatalf("Active before any snapshot: %v", err)
	}

	commitSnapshot(t, path, "bag:2021-10-15", storetest.WeespAddresses())
	first := waitFor("bag:2021-10-15")
	if first.Info().Addresses != 40 {
		t.Errorf("first snapshot has %d addresses", first.Info().Addresses)
	}

	second := storetest.WeespAddresses()[8:] // without 1382KB 51
	commitSnapshot(t, path, "bag:2021-10-15+bagmut:2021-11-14", second)
	now := waitFor("bag:2021-10-15+bagmut:2021-11-14")
	if got, _ := now.AddressesAt(ctx, "1382KB", 51); len(got) != 0 {
		t.Errorf("new dataset has %d addresses at 1382KB 51", len(got))
	}
	if got, err := first.AddressesAt(ctx, "1382KB", 51); err != nil || len(got) != 8 {
		t.Errorf("a reader holding the first dataset gets %d addresses, %v", len(got), err)
	}

	// A damaged replacement is refused; the good dataset keeps serving.
	bad := filepath.Join(dir, "bad")
	if err := os.WriteFile(bad, []byte(strings.Repeat("x", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(bad, path); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	if got := storetest.Active(t, serving, adreswijzer.NL).Info().Version; got != "bag:2021-10-15+bagmut:2021-11-14" {
		t.Errorf("after a damaged snapshot Active = %s", got)
	}
	commitSnapshot(t, path, "bag:2021-10-15+bagmut:2021-11-15", storetest.WeespAddresses())
	waitFor("bag:2021-10-15+bagmut:2021-11-15")

	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Watch returned %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Watch did not return after its context ended")
	}
}

// TestKilledImportLeavesSnapshot kills an import process while it writes its snapshot: the
// file in place must still be the previous, complete snapshot.
func TestKilledImportLeavesSnapshot(t *testing.T) {
	if path := os.Getenv("ADRESWIJZER_TEST_IMPORT_SNAPSHOT"); path != "" {
		// The import process: a synthetic dataset large enough to take a while to write.
		s := memory.New(memory.Options{Snapshots: map[adreswijzer.Country]string{adreswijzer.NL: path}, Logger: quiet})
		w, err := s.Begin(context.Background(), adreswijzer.NL)
		if err != nil {
			t.Fatal(err)
		}
		if err := storetest.LoadSynth(t).Each(2_000_000, 7, w.Add); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Commit(context.Background(), "bag:2021-11-14"); err != nil {
			t.Fatal(err)
		}
		return
	}

	dir := t.TempDir()
	path := filepath.Join(dir, "nl.snap")
	commitSnapshot(t, path, "bag:2021-10-15", storetest.WeespAddresses())

	cmd := exec.Command(os.Args[0], "-test.run=^TestKilledImportLeavesSnapshot$")
	cmd.Env = append(os.Environ(), "ADRESWIJZER_TEST_IMPORT_SNAPSHOT="+path)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	killed := false
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) && !killed {
		tmps, _ := filepath.Glob(filepath.Join(dir, ".nl.snap.tmp-*"))
		if len(tmps) > 0 {
			if fi, err := os.Stat(tmps[0]); err == nil && fi.Size() > 0 {
				cmd.Process.Kill()
				killed = true
			}
		}
		time.Sleep(time.Millisecond)
	}
	err := cmd.Wait()
	if !killed {
		t.Fatalf("the import process never started its snapshot (exit: %v)", err)
	}
	d, err := memory.ReadSnapshot(path)
	if err != nil {
		t.Fatalf("snapshot after a killed import: %v", err)
	}
	tmps, _ := filepath.Glob(filepath.Join(dir, ".nl.snap.tmp-*"))
	switch v := d.Info().Version; {
	case v == "bag:2021-10-15" && d.Len() == 40:
		// Killed before the rename: the old file is intact and the partial one is aside.
		if len(tmps) != 1 {
			t.Errorf("partial files after the kill: %v", tmps)
		}
	case v == "bag:2021-11-14" && d.Len() == 2_000_000:
		// The write finished between seeing the file and the kill.
		t.Logf("the import finished before it was killed")
	default:
		t.Errorf("snapshot after the kill is %s with %d addresses", v, d.Len())
	}
}
