package memory_test

import (
	"context"
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"testing"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/store/memory"
	"github.com/adreswijzer/adreswijzer/store/storetest"
)

// FuzzReadSnapshot feeds damaged snapshots to the reader with a valid checksum, so that the
// damage reaches the structural checks: a snapshot the checks accept must answer every lookup
// without panicking.
func FuzzReadSnapshot(f *testing.F) {
	dir := f.TempDir()
	for _, tc := range []struct {
		c    adreswijzer.Country
		v    adreswijzer.DatasetVersion
		rows []adreswijzer.Address
	}{
		{adreswijzer.NL, "bag:2021-10-15", storetest.WeespAddresses()},
		{adreswijzer.BE, "best:2022-01-11", storetest.BeSTAddresses()},
	} {
		path := filepath.Join(dir, string(tc.c))
		s := memory.New(memory.Options{Snapshots: map[adreswijzer.Country]string{tc.c: path}, Logger: quiet})
		storetest.Load(f, s, tc.c, tc.v, tc.rows)
		b, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b[:len(b)-4])
	}
	castagnoli := crc32.MakeTable(crc32.Castagnoli)
	ctx := context.Background()
	path := filepath.Join(dir, "fuzzed") // inputs run one after another in each worker
	f.Fuzz(func(t *testing.T, body []byte) {
		file := binary.LittleEndian.AppendUint32(append([]byte(nil), body...), crc32.Checksum(body, castagnoli))
		if err := os.WriteFile(path, file, 0o644); err != nil {
			t.Fatal(err)
		}
		d, err := memory.ReadSnapshot(path)
		if err != nil {
			return
		}
		cat := d.Catalog()
		for _, p := range cat.Places {
			for n := range 5 {
				d.AddressesAt(ctx, p.Postcode, n)
				d.AddressesOnStreet(ctx, p.Street, n)
			}
			_ = cat.Localities[p.Locality]
		}
	})
}
