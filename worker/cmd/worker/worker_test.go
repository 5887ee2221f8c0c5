package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/gateway/gatewaytest"
	"github.com/adreswijzer/adreswijzer/store/postgres"
)

// Imports into snapshot files, their summaries and progress, and a worker serving them that
// follows a later import.
// Off a terminal, progress is plain lines, at most one per tenth of a phase, without log
// noise. The synthetic national-size extract reads long enough to pass several tenths.
func TestProgressLines(t *testing.T) {
	r := worker(t, nil, "import", "--country", "nl", "--from", largeExtract(t), "--snapshot", filepath.Join(t.TempDir(), "nl.snap"))
	if r.code != 0 {
		t.Fatalf("import: exit %d\n%s", r.code, r.stderr)
	}
	stand := 0
	for _, l := range strings.Split(r.stderr, "\n") {
		if stepRE.MatchString(l) {
			stand++
		}
	}
	if stand < 3 || stand > 11 {
		t.Errorf("%d progress lines for the stand, want one per tenth reached:\n%s", stand, r.stderr)
	}
	for _, want := range []string{"import NL: addresses 100% (", "import NL: activating"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("progress lacks %q:\n%s", want, r.stderr)
		}
	}
	if strings.Contains(r.stderr, "\r") || strings.Contains(r.stderr, `"level"`) {
		t.Errorf("progress off a terminal must be plain lines without log lines:\n%q", r.stderr)
	}
}

func TestSnapshots(t *testing.T) {
	dir := t.TempDir()
	nlSnap, beSnap := filepath.Join(dir, "nl.snap"), filepath.Join(dir, "be.snap")

	r := worker(t, nil, "import", "--country", "nl", "--from", weesp(t), "--snapshot", nlSnap)
	if r.code != 0 {
		t.Fatalf("import NL: exit %d\n%s", r.code, r.stderr)
	}
	nl := parseSummary(t, strings.TrimSpace(r.stdout))
	if nl.country != "NL" || nl.version != weespVersion || nl.kept < 10000 || nl.read <= nl.kept || nl.skip == 0 || nl.reasons == "" {
		t.Errorf("NL summary %+v", nl)
	}
	if info := snapshotInfo(t, nlSnap); string(info.Version) != nl.version || int64(info.Addresses) != nl.kept {
		t.Errorf("NL snapshot holds %s with %d addresses; the summary says %s with %d", info.Version, info.Addresses, nl.version, nl.kept)
	}

	// BE from the sample directory (the files that are not BeST data are named in a
	// warning), with the register date given.
	r = worker(t, nil, "import", "--country", "be", "--from", bestDir(t), "--date", "2024-05-01", "--snapshot", beSnap, "--quiet")
	if r.code != 0 {
		t.Fatalf("import BE: exit %d\n%s", r.code, r.stderr)
	}
	be := parseSummary(t, strings.TrimSpace(r.stdout))
	if be.country != "BE" || be.version != "best:2024-05-01" || be.kept < 10000 || be.read != be.kept+be.skip {
		t.Errorf("BE summary %+v", be)
	}
	if strings.Contains(r.stderr, "import BE:") || !strings.Contains(r.stderr, "warning: ") {
		t.Errorf("--quiet shows warnings and no progress:\n%s", r.stderr)
	}

	s := serve(t, nil, "--snapshot", nlSnap, "--snapshot", beSnap, "--request-timeout", "500ms", "--access-log", "all")
	if v := s.lookup(t, adreswijzer.NL, "1381CS", 16, ""); v != weespVersion {
		t.Errorf("NL answered from %q", v)
	}
	if v := s.lookup(t, adreswijzer.BE, "1502", 9, "Stevens-de Waelplein"); v != "best:2024-05-01" {
		t.Errorf("BE answered from %q", v)
	}
	checkHealth(t, s, map[string]string{"NL": weespVersion, "BE": "best:2024-05-01"})

	// A later import replaces the snapshot; the serving worker takes it over by itself.
	mustImport(t, nil, "--country", "be", "--from", bestDir(t), "--date", "2025-01-01", "--snapshot", beSnap, "--quiet")
	deadline := time.Now().Add(10 * time.Second)
	for s.lookup(t, adreswijzer.BE, "1502", 9, "Stevens-de Waelplein") != "best:2025-01-01" {
		if time.Now().After(deadline) {
			t.Fatalf("the serving worker did not take over the new snapshot\n%s", s.log())
		}
		time.Sleep(100 * time.Millisecond)
	}
	checkHealth(t, s, map[string]string{"NL": weespVersion, "BE": "best:2025-01-01"})

	// The access log names routes, never what was asked.
	s.stop(t)
	if logs := s.log(); !strings.Contains(logs, `"route":"/v1/nl/lookup"`) || strings.Contains(logs, "1381CS") || strings.Contains(logs, "Waelplein") {
		t.Errorf("serve log:\n%s", logs)
	}
}

func checkHealth(t *testing.T, s *server, want map[string]string) {
	t.Helper()
	resp, body := s.get(t, "/health")
	var h adreswijzer.HealthResponse
	if resp.StatusCode != 200 || json.Unmarshal([]byte(body), &h) != nil || h.Status != "ok" || h.Database != "up" {
		t.Fatalf("health: %d %s", resp.StatusCode, body)
	}
	got := map[string]string{}
	for _, d := range h.Datasets {
		got[d.Country] = d.Version
	}
	for c, v := range want {
		if got[c] != v {
			t.Errorf("health: %s at %q, want %q", c, got[c], v)
		}
	}
}

// Imports into Postgres (COPY beside the active dataset, activated in one transaction) and
// a worker serving from it with the cache in front.
func TestPostgres(t *testing.T) {
	if gatewaytest.SkipServices() {
		t.Skip("ADRESWIJZER_SKIP_SERVICES=1: Postgres tests skipped on purpose")
	}
	db := gatewaytest.Postgres(t)
	nl := parseSummary(t, mustImport(t, nil, "--country", "nl", "--from", weesp(t), "--database-url", db))
	// DATABASE_URL is the default of --database-url.
	be := parseSummary(t, mustImport(t, []string{"DATABASE_URL=" + db}, "--country", "be", "--from", bestDir(t), "--quiet"))
	if nl.version != weespVersion || be.version != "best:2021-10-20" {
		t.Errorf("versions %s, %s", nl.version, be.version)
	}
	st := openPostgres(t, db)
	for c, want := range map[adreswijzer.Country]summaryLine{adreswijzer.NL: nl, adreswijzer.BE: be} {
		ds, err := st.Active(context.Background(), c)
		if err != nil {
			t.Fatalf("active %s: %v", c, err)
		}
		if info := ds.Info(); string(info.Version) != want.version || int64(info.Addresses) != want.kept {
			t.Errorf("%s active in Postgres: %s with %d addresses; the summary says %s with %d", c, info.Version, info.Addresses, want.version, want.kept)
		}
	}

	// The same database stands in as the read replica: what is read goes there.
	s := serve(t, []string{"DATABASE_URL=" + db}, "--replica-url", db, "--cache-size", "1000", "--metrics-listen", "127.0.0.1:0")
	for range 2 { // the second time from the cache
		if v := s.lookup(t, adreswijzer.NL, "1381CS", 16, ""); v != weespVersion {
			t.Errorf("NL answered from %q", v)
		}
		if v := s.lookup(t, adreswijzer.BE, "1130", 28, "Harenheidestraat"); v != "best:2021-10-20" {
			t.Errorf("BE answered from %q", v)
		}
	}
	checkHealth(t, s, map[string]string{"NL": weespVersion, "BE": "best:2021-10-20"})
	// With a metrics listener of their own, the metrics are not on the API's address.
	if resp, _ := s.get(t, "/metrics"); resp.StatusCode != 404 {
		t.Errorf("/metrics on the API listener: %d", resp.StatusCode)
	}
	s.stop(t)
	if !strings.Contains(s.log(), `"msg":"serving metrics"`) || !strings.Contains(s.log(), `"store":"postgres+replica"`) || strings.Contains(s.log(), "postgres://") {
		t.Errorf("serve log:\n%s", s.log())
	}
}

// A rollback serves the previous dataset again and a second one undoes it; with no previous
// dataset it fails and changes nothing.
func TestRollback(t *testing.T) {
	if gatewaytest.SkipServices() {
		t.Skip("ADRESWIJZER_SKIP_SERVICES=1: Postgres tests skipped on purpose")
	}
	db := gatewaytest.Postgres(t)
	env := []string{"DATABASE_URL=" + db}
	rollback := func() result { return worker(t, env, "rollback", "--country", "be") }
	mustImport(t, env, "--country", "be", "--from", bestDir(t), "--date", "2026-11-01", "--quiet")
	if r := rollback(); r.code != exitError || !strings.Contains(r.stderr, "previous") {
		t.Errorf("rollback without a previous dataset: exit %d\n%s", r.code, r.stderr)
	}
	mustImport(t, env, "--country", "be", "--from", bestDir(t), "--date", "2026-11-08", "--quiet")
	st := openPostgres(t, db)
	for _, want := range []string{"best:2026-11-01", "best:2026-11-08"} {
		r := rollback()
		if r.code != 0 || strings.TrimSpace(r.stdout) != "BE "+want+" active again" {
			t.Fatalf("rollback: exit %d, %q\n%s", r.code, r.stdout, r.stderr)
		}
		// A serving store follows the activation within its poll interval (a second).
		got := ""
		for deadline := time.Now().Add(5 * time.Second); got != want && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			if ds, err := st.Active(context.Background(), adreswijzer.BE); err == nil {
				got = string(ds.Info().Version)
			}
		}
		if got != want {
			t.Errorf("active after rollback: %s, want %s", got, want)
		}
	}
	if r := worker(t, env, "rollback", "--country", "de"); r.code != exitUsage {
		t.Errorf("rollback of an unknown country: exit %d", r.code)
	}
}

func openPostgres(t *testing.T, url string) *postgres.Store {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st, err := postgres.Open(ctx, url, postgres.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatalf("open postgres: %v", err)
	}
	t.Cleanup(st.Close)
	return st
}

// An import killed half-way leaves the previous dataset active and answering: the snapshot
// file is replaced only by a complete one, and Postgres activates only in the commit.
func TestKilledImport(t *testing.T) {
	old := doesburgAddress(t)

	t.Run("snapshot", func(t *testing.T) {
		snap := filepath.Join(t.TempDir(), "nl.snap")
		mustImport(t, nil, "--country", "nl", "--from", doesburg(t), "--snapshot", snap, "--quiet")
		before, err := os.ReadFile(snap)
		if err != nil {
			t.Fatal(err)
		}
		killMidway(t, nil, "--snapshot", snap)
		after, err := os.ReadFile(snap)
		if err != nil || string(after) != string(before) {
			t.Fatalf("the snapshot changed under a killed import (%v)", err)
		}
		if v := snapshotInfo(t, snap).Version; v != doesburgVersion {
			t.Fatalf("snapshot holds %s, want %s", v, doesburgVersion)
		}
		s := serve(t, nil, "--snapshot", snap)
		if v := s.lookup(t, adreswijzer.NL, old.Postcode, old.HouseNumber, ""); v != doesburgVersion {
			t.Errorf("answered from %q, want %s", v, doesburgVersion)
		}
	})

	// An operator's interrupt stops the import, which abandons its dataset and says so.
	t.Run("interrupted", func(t *testing.T) {
		snap := filepath.Join(t.TempDir(), "nl.snap")
		mustImport(t, nil, "--country", "nl", "--from", doesburg(t), "--snapshot", snap, "--quiet")
		ps, stderr := stopMidway(t, syscall.SIGTERM, nil, "--snapshot", snap)
		if ps.ExitCode() != 1 || !strings.Contains(stderr, "context canceled") {
			t.Errorf("interrupted import: %v\n%s", ps, stderr)
		}
		if v := snapshotInfo(t, snap).Version; v != doesburgVersion {
			t.Errorf("snapshot holds %s, want %s", v, doesburgVersion)
		}
		if leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(snap), "*")); len(leftovers) != 1 {
			t.Errorf("files beside the snapshot after an interrupted import: %v", leftovers)
		}
	})

	t.Run("postgres", func(t *testing.T) {
		if gatewaytest.SkipServices() {
			t.Skip("ADRESWIJZER_SKIP_SERVICES=1: Postgres tests skipped on purpose")
		}
		db := gatewaytest.Postgres(t)
		mustImport(t, nil, "--country", "nl", "--from", doesburg(t), "--database-url", db, "--quiet")
		s := serve(t, nil, "--database-url", db)
		killMidway(t, nil, "--database-url", db)
		st := openPostgres(t, db)
		ds, err := st.Active(context.Background(), adreswijzer.NL)
		if err != nil || ds.Info().Version != doesburgVersion {
			t.Fatalf("active after the kill: %v %v", ds, err)
		}
		if v := s.lookup(t, adreswijzer.NL, old.Postcode, old.HouseNumber, ""); v != doesburgVersion {
			t.Errorf("the serving worker answered from %q, want %s", v, doesburgVersion)
		}
		// The next import clears what the killed one left and activates.
		mustImport(t, nil, "--country", "nl", "--from", weesp(t), "--database-url", db, "--quiet")
		deadline := time.Now().Add(10 * time.Second)
		for s.version(t, adreswijzer.NL) != weespVersion {
			if time.Now().After(deadline) {
				t.Fatal("the serving worker did not follow the activation")
			}
			time.Sleep(100 * time.Millisecond)
		}
		if v := s.lookup(t, adreswijzer.NL, "1381CS", 16, ""); v != weespVersion {
			t.Errorf("answered from %q after the activation", v)
		}
	})
}

// Command-line mistakes are exit code 2 with a message; failures are exit code 1 and leave
// the served dataset as it was.
func TestCommandLine(t *testing.T) {
	dir := t.TempDir()
	snap := filepath.Join(dir, "be.snap")
	mustImport(t, nil, "--country", "be", "--from", bestDir(t), "--snapshot", snap, "--quiet")
	before, _ := os.ReadFile(snap)
	noDB := []string{"DATABASE_URL="}
	if err := os.WriteFile(filepath.Join(dir, "garbage.snap"), []byte("not a snapshot"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{nil, 2, "usage:"},
		{[]string{"frobnicate"}, 2, "unknown command"},
		{[]string{"help"}, 0, ""},
		{[]string{"import", "-h"}, 0, "-snapshot"},
		{[]string{"import", "--from", "x", "--snapshot", snap}, 2, "--country is required"},
		{[]string{"import", "--country", "de", "--from", "x", "--snapshot", snap}, 2, "--country must be nl or be"},
		{[]string{"import", "--country", "be", "--snapshot", snap}, 2, "--from is required"},
		{[]string{"import", "--country", "be", "--from", "x"}, 2, "give --snapshot FILE or --database-url URL"},
		{[]string{"import", "--country", "be", "--from", "x", "--snapshot", snap, "--database-url", "postgres://x"}, 2, "not both"},
		{[]string{"import", "--country", "nl", "--from", "x", "--date", "2024-01-01", "--snapshot", snap}, 2, "--date applies to be only"},
		{[]string{"import", "--country", "be", "--from", "x", "--date", "1 May", "--snapshot", snap}, 2, "YYYY-MM-DD"},
		{[]string{"import", "--country", "be", "--bogus"}, 2, "flag provided but not defined"},
		{[]string{"import", "--country", "be", "--from", filepath.Join(dir, "missing.csv"), "--snapshot", snap}, 1, "no such file"},
		// Dutch data given as Belgian: the import fails and the snapshot stays.
		{[]string{"import", "--country", "be", "--from", weesp(t), "--snapshot", snap}, 1, "import BE"},
		{[]string{"import", "--country", "be", "--from", bestDir(t), "--snapshot", filepath.Join(dir, "no", "such", "dir", "be.snap")}, 1, "not a directory"},
		{[]string{"serve"}, 2, "give --snapshot FILE or --database-url URL"},
		{[]string{"serve", "--snapshot", snap, "--request-timeout", "2s"}, 2, "--request-timeout"},
		{[]string{"serve", "--snapshot", snap, "--cache-size", "-1"}, 2, "--cache-size"},
		{[]string{"serve", "--snapshot", snap, "--lookup-cache", "-1"}, 2, "--lookup-cache"},
		{[]string{"serve", "--snapshot", snap, "extra"}, 2, "unexpected argument"},
		{[]string{"serve", "--snapshot", snap, "--access-log", "some"}, 2, "--access-log"},
		{[]string{"serve", "--snapshot", snap, "--slow-request", "0s"}, 2, "--slow-request"},
		{[]string{"serve", "--listen", "127.0.0.1:0", "--snapshot", filepath.Join(dir, "garbage.snap")}, 1, "load snapshot"},
		{[]string{"serve", "--listen", "127.0.0.1:0", "--database-url", "postgres://postgres@127.0.0.1:1/none?sslmode=disable&connect_timeout=2"}, 1, "postgres"},
	} {
		r := worker(t, noDB, tc.args...)
		if r.code != tc.code || !strings.Contains(r.stdout+r.stderr, tc.want) {
			t.Errorf("worker %v: exit %d, want %d with %q\n%s%s", tc.args, r.code, tc.code, tc.want, r.stdout, r.stderr)
		}
	}
	after, _ := os.ReadFile(snap)
	if string(after) != string(before) {
		t.Error("a failed import changed the snapshot")
	}
}
