package postgres_test

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/store/postgres"
	"github.com/adreswijzer/adreswijzer/store/storetest"
	"github.com/adreswijzer/adreswijzer/store/storetest/samples"
)

func openFresh(t *testing.T) (adreswijzer.Store, adreswijzer.Loader) {
	s := openStore(t, freshDatabase(t), postgres.Options{})
	return s, s
}

func TestConformance(t *testing.T) {
	storetest.Run(t, openFresh)
}

func TestImported(t *testing.T) {
	storetest.RunImported(t, openFresh, samples.BAGWeesp(t), samples.BeSTSample(t))
}

const (
	v1 adreswijzer.DatasetVersion = "bag:2021-10-15"
	v2 adreswijzer.DatasetVersion = "bag:2021-10-15+bagmut:2021-11-14"
	v3 adreswijzer.DatasetVersion = "bag:2021-10-15+bagmut:2021-11-15"
)

// weespWithout1382KB is the second register version the tests activate.
func weespWithout1382KB() []adreswijzer.Address {
	var out []adreswijzer.Address
	for _, a := range storetest.WeespAddresses() {
		if a.Postcode != "1382KB" {
			out = append(out, a)
		}
	}
	return out
}

// atBloemendalerweg51 counts the addresses at 1382KB 51 in the active dataset.
func atBloemendalerweg51(t *testing.T, s adreswijzer.Store) (adreswijzer.DatasetVersion, int) {
	t.Helper()
	d := storetest.Active(t, s, adreswijzer.NL)
	got, err := d.AddressesAt(context.Background(), "1382KB", 51)
	if err != nil {
		t.Fatalf("AddressesAt(1382KB, 51) on %s: %v", d.Info().Version, err)
	}
	return d.Info().Version, len(got)
}

// TestInterruptedImports leaves one import abandoned and kills the connection of another in
// the middle of its COPY, as a killed import process would: the active dataset keeps serving
// every Store, the next import removes the leftovers, and a second Store follows the next
// activation.
func TestInterruptedImports(t *testing.T) {
	dbURL := freshDatabase(t)
	db := admin(t, dbURL)
	ctx := context.Background()
	a := openStore(t, dbURL, postgres.Options{})
	storetest.Load(t, a, adreswijzer.NL, v1, storetest.WeespAddresses())

	// Import 1: thousands of rows, then abandoned without Commit or Abort.
	synth := storetest.LoadSynth(t)
	w1, err := a.Begin(ctx, adreswijzer.NL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w1.Abort(context.Background()) })
	if err := synth.Each(50_000, 1, w1.Add); err != nil {
		t.Fatal(err)
	}
	rows := datasets(t, db, adreswijzer.NL)
	if len(rows) != 2 || rows[1].state != "loading" {
		t.Fatalf("datasets with an import running: %+v", rows)
	}
	abandoned := rows[1].schema
	if v, n := atBloemendalerweg51(t, a); v != v1 || n != 8 {
		t.Errorf("during an import Active = %s with %d at 1382KB 51", v, n)
	}

	// A second Store, as another worker or import process would open.
	b := openStore(t, dbURL, postgres.Options{})
	if v, n := atBloemendalerweg51(t, b); v != v1 || n != 8 {
		t.Errorf("second store: Active = %s with %d at 1382KB 51", v, n)
	}
	if _, err := b.Begin(ctx, adreswijzer.NL); !errors.Is(err, postgres.ErrImportRunning) {
		t.Fatalf("a second import of NL while one runs: %v, want ErrImportRunning", err)
	}

	// The abandoned import's process dies: its session and lock go with it.
	pid := lockHolder(t, db, adreswijzer.NL)
	if pid == 0 {
		t.Fatal("no backend holds the NL import lock")
	}
	if _, err := db.Exec(ctx, "SELECT pg_terminate_backend($1)", pid); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the lock of the killed import to go", func() bool { return lockHolder(t, db, adreswijzer.NL) == 0 })

	// Import 2 removes import 1's schema, then its connection is killed mid-COPY.
	w2, err := b.Begin(ctx, adreswijzer.NL)
	if err != nil {
		t.Fatalf("Begin after the killed import: %v", err)
	}
	if schemaExists(t, db, abandoned) {
		t.Errorf("schema %s of the killed import still exists", abandoned)
	}
	added := make(chan error, 1)
	go func() { added <- synth.Each(5_000_000, 2, w2.Add) }()
	pid = lockHolder(t, db, adreswijzer.NL)
	waitUntil(t, "import 2 to be in COPY", func() bool {
		var query, state string
		err := db.QueryRow(ctx, "SELECT query, state FROM pg_stat_activity WHERE pid = $1", pid).Scan(&query, &state)
		return err == nil && state == "active" && strings.HasPrefix(query, "copy ")
	})
	if _, err := db.Exec(ctx, "SELECT pg_terminate_backend($1)", pid); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-added:
		if err == nil {
			t.Fatal("import 2 added all rows after its connection was killed")
		}
	case <-time.After(time.Minute):
		t.Fatal("Add kept succeeding after the COPY connection was killed")
	}
	if _, err := w2.Commit(ctx, v2); err == nil {
		t.Fatal("Commit succeeded after the COPY connection was killed")
	}
	for _, s := range []*postgres.Store{a, b} {
		if v, n := atBloemendalerweg51(t, s); v != v1 || n != 8 {
			t.Errorf("after a killed COPY Active = %s with %d at 1382KB 51", v, n)
		}
	}

	// Import 3 completes; the second Store follows within about a second.
	w3, err := a.Begin(ctx, adreswijzer.NL)
	if err != nil {
		t.Fatalf("Begin after the killed COPY: %v", err)
	}
	for _, r := range weespWithout1382KB() {
		if err := w3.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w3.Commit(ctx, v2); err != nil {
		t.Fatal(err)
	}
	committed := time.Now()
	waitUntil(t, "the second store to follow the activation", func() bool {
		v, _ := atBloemendalerweg51(t, b)
		return v == v2
	})
	lag := time.Since(committed)
	t.Logf("second store followed the activation after %v", lag.Round(time.Millisecond))
	if lag > 3*time.Second {
		t.Errorf("second store followed after %v, want within about the 1 s poll interval", lag)
	}
	if v, n := atBloemendalerweg51(t, b); v != v2 || n != 0 {
		t.Errorf("second store after the activation: %s with %d at 1382KB 51", v, n)
	}

	rows = datasets(t, db, adreswijzer.NL)
	if len(rows) != 2 || rows[0].state != "retired" || rows[0].version != string(v1) ||
		rows[1].state != "active" || rows[1].version != string(v2) || rows[1].addresses != 32 {
		t.Errorf("datasets after the imports: %+v", rows)
	}
	if n := datasetSchemas(t, db); n != 2 {
		t.Errorf("%d dataset schemas left, want the active and the previous one", n)
	}
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestUnavailable makes the database stall, then vanish: queries fail with ErrUnavailable
// by the caller's deadline (or QueryTimeout), and Active keeps serving the catalog.
func TestUnavailable(t *testing.T) {
	dbURL := freshDatabase(t)
	u, _ := url.Parse(dbURL)
	px := startProxy(t, u.Host)
	s := openStore(t, px.via(dbURL), postgres.Options{QueryTimeout: 500 * time.Millisecond})
	storetest.Load(t, s, adreswijzer.NL, v1, storetest.WeespAddresses())
	d := storetest.Active(t, s, adreswijzer.NL)

	// A generous bound: the point is that the call returns, not how fast.
	const hang = 10 * time.Second
	lookup := func(ctx context.Context) (time.Duration, error) {
		start := time.Now()
		done := make(chan error, 1)
		go func() {
			_, err := d.AddressesAt(ctx, "1382KB", 51)
			done <- err
		}()
		select {
		case err := <-done:
			return time.Since(start), err
		case <-time.After(hang):
			t.Fatalf("AddressesAt hung for %v", hang)
			return 0, nil
		}
	}

	px.freeze()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	took, err := lookup(ctx)
	cancel()
	if !errors.Is(err, adreswijzer.ErrUnavailable) {
		t.Errorf("stalled database, caller deadline: err = %v, want ErrUnavailable", err)
	}
	t.Logf("stalled database: error after %v with a 200ms deadline", took.Round(time.Millisecond))
	took, err = lookup(context.Background())
	if !errors.Is(err, adreswijzer.ErrUnavailable) {
		t.Errorf("stalled database, no caller deadline: err = %v, want ErrUnavailable", err)
	}
	t.Logf("stalled database: error after %v with QueryTimeout 500ms", took.Round(time.Millisecond))
	pctx, pcancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	if err := s.Ping(pctx); !errors.Is(err, adreswijzer.ErrUnavailable) {
		t.Errorf("Ping of a stalled database: %v", err)
	}
	pcancel()
	checkCatalogServed(t, s)

	px.thaw()
	waitUntil(t, "queries to work after the stall", func() bool { _, err := lookup(context.Background()); return err == nil })

	px.down()
	took, err = lookup(context.Background())
	if !errors.Is(err, adreswijzer.ErrUnavailable) {
		t.Errorf("database gone: err = %v, want ErrUnavailable", err)
	}
	t.Logf("database gone: error after %v", took.Round(time.Millisecond))
	if err := s.Ping(context.Background()); !errors.Is(err, adreswijzer.ErrUnavailable) {
		t.Errorf("Ping of a database that is gone: %v", err)
	}
	time.Sleep(1500 * time.Millisecond) // let the poller fail at least once
	checkCatalogServed(t, s)

	px.up()
	waitUntil(t, "queries to work after the database returned", func() bool { _, err := lookup(context.Background()); return err == nil })
	if err := s.Ping(context.Background()); err != nil {
		t.Errorf("Ping after the database returned: %v", err)
	}
}

func checkCatalogServed(t *testing.T, s adreswijzer.Store) {
	t.Helper()
	d, err := s.Active(context.Background(), adreswijzer.NL)
	if err != nil {
		t.Fatalf("Active while the database is unavailable: %v", err)
	}
	if d.Info().Version != v1 || !d.Catalog().HasPostcode("1382KB") || len(d.Catalog().PlacesIn("1382SH")) != 1 {
		t.Errorf("catalog while the database is unavailable: %+v", d.Info())
	}
}

func TestOpenUnreachable(t *testing.T) {
	if testing.Short() {
		t.Skip("dials a closed port")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := postgres.Open(ctx, "postgres://postgres@127.0.0.1:1/postgres?sslmode=disable&connect_timeout=2", postgres.Options{Logger: quiet})
	if !errors.Is(err, adreswijzer.ErrUnavailable) {
		t.Errorf("Open of a closed port: %v, want ErrUnavailable", err)
	}
}

// TestReplicaReads sends reads through a replica address (here a proxy to the same server)
// and imports to the primary: with the replica gone, queries fail while imports still work,
// and the Store follows the new dataset once the replica is back.
func TestReplicaReads(t *testing.T) {
	dbURL := freshDatabase(t)
	u, _ := url.Parse(dbURL)
	px := startProxy(t, u.Host)
	s := openStore(t, dbURL, postgres.Options{ReplicaURL: px.via(dbURL), QueryTimeout: 500 * time.Millisecond})
	storetest.Load(t, s, adreswijzer.NL, v1, storetest.WeespAddresses())
	if v, n := atBloemendalerweg51(t, s); v != v1 || n != 8 {
		t.Fatalf("through the replica: %s with %d at 1382KB 51", v, n)
	}

	px.down()
	d := storetest.Active(t, s, adreswijzer.NL)
	if _, err := d.AddressesAt(context.Background(), "1382KB", 51); !errors.Is(err, adreswijzer.ErrUnavailable) {
		t.Errorf("replica gone: AddressesAt err = %v, want ErrUnavailable", err)
	}
	if err := s.Ping(context.Background()); !errors.Is(err, adreswijzer.ErrUnavailable) {
		t.Errorf("replica gone: Ping = %v", err)
	}
	storetest.Load(t, s, adreswijzer.NL, v2, weespWithout1382KB())
	if got := storetest.Active(t, s, adreswijzer.NL).Info().Version; got != v1 {
		t.Errorf("replica gone: Active = %s, want the last dataset the replica served", got)
	}

	px.up()
	waitUntil(t, "the store to follow the activation through the replica", func() bool {
		return storetest.Active(t, s, adreswijzer.NL).Info().Version == v2
	})
	if v, n := atBloemendalerweg51(t, s); v != v2 || n != 0 {
		t.Errorf("after the replica returned: %s with %d at 1382KB 51", v, n)
	}
}

// TestRollbackKeepsOneGeneration: the previous dataset stays for Rollback, older ones go.
func TestRollbackKeepsOneGeneration(t *testing.T) {
	dbURL := freshDatabase(t)
	db := admin(t, dbURL)
	ctx := context.Background()
	s := openStore(t, dbURL, postgres.Options{})
	if _, err := s.Rollback(ctx, adreswijzer.NL); err == nil {
		t.Errorf("Rollback with no dataset succeeded")
	}
	storetest.Load(t, s, adreswijzer.NL, v1, storetest.WeespAddresses())
	if _, err := s.Rollback(ctx, adreswijzer.NL); err == nil {
		t.Errorf("Rollback with no previous dataset succeeded")
	}
	second := storetest.Load(t, s, adreswijzer.NL, v2, weespWithout1382KB())

	info, err := s.Rollback(ctx, adreswijzer.NL)
	if err != nil {
		t.Fatal(err)
	}
	if info.Version != v1 || info.Addresses != 40 || !info.ActivatedAt.After(second.ActivatedAt) {
		t.Errorf("Rollback = %+v", info)
	}
	if v, n := atBloemendalerweg51(t, s); v != v1 || n != 8 {
		t.Errorf("after Rollback: %s with %d at 1382KB 51", v, n)
	}
	if got := storetest.Active(t, s, adreswijzer.NL).Info(); !got.ActivatedAt.Equal(info.ActivatedAt) {
		t.Errorf("Active after Rollback = %+v, Rollback said %+v", got, info)
	}
	if info, err := s.Rollback(ctx, adreswijzer.NL); err != nil || info.Version != v2 {
		t.Errorf("second Rollback = %+v, %v; want %s again", info, err, v2)
	}

	storetest.Load(t, s, adreswijzer.NL, v3, storetest.WeespAddresses())
	rows := datasets(t, db, adreswijzer.NL)
	if len(rows) != 2 || rows[0].version != string(v2) || rows[0].state != "retired" || rows[1].version != string(v3) || rows[1].state != "active" {
		t.Errorf("datasets after a third import: %+v", rows)
	}
	if n := datasetSchemas(t, db); n != 2 {
		t.Errorf("%d dataset schemas, want 2", n)
	}
	if info, err := s.Rollback(ctx, adreswijzer.NL); err != nil || info.Version != v2 {
		t.Errorf("Rollback after the third import = %+v, %v", info, err)
	}
}

// TestImportLockPerCountry: one import per country at a time, across Stores; countries are
// independent; Cleanup removes only what no running import owns.
func TestImportLockPerCountry(t *testing.T) {
	dbURL := freshDatabase(t)
	db := admin(t, dbURL)
	ctx := context.Background()
	a := openStore(t, dbURL, postgres.Options{})
	b := openStore(t, dbURL, postgres.Options{})

	nl, err := a.Begin(ctx, adreswijzer.NL)
	if err != nil {
		t.Fatal(err)
	}
	defer nl.Abort(ctx)
	for _, s := range []*postgres.Store{a, b} {
		if _, err := s.Begin(ctx, adreswijzer.NL); !errors.Is(err, postgres.ErrImportRunning) {
			t.Errorf("second NL import: %v, want ErrImportRunning", err)
		}
		if _, err := s.Rollback(ctx, adreswijzer.NL); !errors.Is(err, postgres.ErrImportRunning) {
			t.Errorf("Rollback during an NL import: %v, want ErrImportRunning", err)
		}
	}
	be, err := b.Begin(ctx, adreswijzer.BE)
	if err != nil {
		t.Fatalf("BE import beside an NL import: %v", err)
	}
	for _, r := range storetest.BeSTAddresses() {
		if err := be.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := be.Commit(ctx, "best:2022-01-11"); err != nil {
		t.Fatal(err)
	}
	// Cleanup leaves the running NL import alone.
	if err := a.Cleanup(ctx); err != nil {
		t.Fatal(err)
	}
	if rows := datasets(t, db, adreswijzer.NL); len(rows) != 1 || rows[0].state != "loading" || !schemaExists(t, db, rows[0].schema) {
		t.Errorf("Cleanup touched a running import: %+v", rows)
	}
	for _, r := range storetest.WeespAddresses() {
		if err := nl.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := nl.Commit(ctx, v1); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "store b to follow", func() bool {
		d, err := b.Active(ctx, adreswijzer.NL)
		return err == nil && d.Info().Version == v1
	})
	again, err := a.Begin(ctx, adreswijzer.NL)
	if err != nil {
		t.Fatalf("Begin after the import finished: %v", err)
	}
	again.Abort(ctx)
}
