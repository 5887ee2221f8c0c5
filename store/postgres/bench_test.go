package postgres_test

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/store/postgres"
	"github.com/adreswijzer/adreswijzer/store/storetest"
)

const benchAddresses = 1_000_000

// synthetic returns the SYNTHETIC million-address dataset (see storetest.Synth) in memory, so
// that the timings below measure the database, not the generator.
func synthetic(b *testing.B) []adreswijzer.Address {
	b.Helper()
	out := make([]adreswijzer.Address, 0, benchAddresses)
	if err := storetest.LoadSynth(b).Each(benchAddresses, 1, func(a adreswijzer.Address) error {
		out = append(out, a)
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	return out
}

// BenchmarkCopyLoad imports one million synthetic addresses: COPY while adding (load), then
// catalog, indexes, ANALYZE and activation (commit). The baseline is a bare pgx COPY of the
// same rows into an unindexed table with the same columns, measured in the same run; x-copy
// is our load rate against it, nl-min the minutes ten million addresses would take at the
// overall rate.
func BenchmarkCopyLoad(b *testing.B) {
	rows := synthetic(b)
	dbURL := freshDatabase(b)
	s := openStore(b, dbURL, postgres.Options{})
	ctx := context.Background()
	base := rawCopy(b, dbURL, rows)

	var load, total time.Duration
	for b.Loop() {
		start := time.Now()
		w, err := s.Begin(ctx, adreswijzer.NL)
		if err != nil {
			b.Fatal(err)
		}
		for _, a := range rows {
			if err := w.Add(a); err != nil {
				b.Fatal(err)
			}
		}
		load = time.Since(start)
		if _, err := w.Commit(ctx, "bag:2026-11-01"); err != nil {
			b.Fatal(err)
		}
		total = time.Since(start)
	}
	n := float64(len(rows))
	b.ReportMetric(n/total.Seconds(), "addr/s")
	b.ReportMetric(n/load.Seconds(), "load-addr/s")
	b.ReportMetric((total - load).Seconds(), "commit-s")
	b.ReportMetric(n/base.Seconds(), "baseline-copy-rows/s")
	b.ReportMetric(base.Seconds()/load.Seconds(), "x-copy")
	b.ReportMetric(10e6/(n/total.Seconds())/60, "nl-min")
}

func rawCopy(b *testing.B, dbURL string, rows []adreswijzer.Address) time.Duration {
	b.Helper()
	ctx := context.Background()
	db := admin(b, dbURL)
	if _, err := db.Exec(ctx, `CREATE TABLE raw_copy (postcode text, number integer, suffix text, addition text,
		box text, id text, street integer, locality integer, area integer, status smallint)`); err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	_, err := db.CopyFrom(ctx, pgx.Identifier{"raw_copy"},
		[]string{"postcode", "number", "suffix", "addition", "box", "id", "street", "locality", "area", "status"},
		pgx.CopyFromSlice(len(rows), func(i int) ([]any, error) {
			a := &rows[i]
			return []any{a.Postcode, int32(a.HouseNumber), a.HouseNumberSuffix, a.Addition, a.Box, a.ID, int32(i % 30000), int32(0), int32(0), int16(a.Status)}, nil
		}))
	if err != nil {
		b.Fatal(err)
	}
	el := time.Since(start)
	if _, err := db.Exec(ctx, "DROP TABLE raw_copy"); err != nil {
		b.Fatal(err)
	}
	return el
}

// BenchmarkAddressesAt looks up random existing postcode and number pairs of the million
// synthetic addresses, one at a time (latency). The baseline is a prepared "SELECT 1" round
// trip through the same pool, measured in the same run.
func BenchmarkAddressesAt(b *testing.B) {
	rows := synthetic(b)
	dbURL := freshDatabase(b)
	s := openStore(b, dbURL, postgres.Options{})
	storetest.Load(b, s, adreswijzer.NL, "bag:2026-11-01", rows)
	d := storetest.Active(b, s, adreswijzer.NL)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(3, 3))
	keys := make([]adreswijzer.Address, 4096)
	for i := range keys {
		keys[i] = rows[r.IntN(len(rows))]
	}
	rows = nil

	base := selectOne(b, dbURL)
	i := 0
	found := 0
	for b.Loop() {
		k := &keys[i%len(keys)]
		got, err := d.AddressesAt(ctx, k.Postcode, k.HouseNumber)
		if err != nil || len(got) == 0 {
			b.Fatalf("AddressesAt(%s, %d) = %d, %v", k.Postcode, k.HouseNumber, len(got), err)
		}
		found += len(got)
		i++
	}
	perOp := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	b.ReportMetric(float64(found)/float64(b.N), "addr/op")
	b.ReportMetric(base, "select1-ns/op")
	b.ReportMetric(perOp/base, "x-select1")
}

func selectOne(b *testing.B, dbURL string) float64 {
	b.Helper()
	db := admin(b, dbURL)
	ctx := context.Background()
	const n = 5000
	var one int
	start := time.Now()
	for range n {
		if err := db.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil {
			b.Fatal(err)
		}
	}
	return float64(time.Since(start).Nanoseconds()) / n
}
