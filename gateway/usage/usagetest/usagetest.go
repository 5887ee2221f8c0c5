// Package usagetest holds the conformance tests every durable usage store passes (the
// usage file and Postgres), so that the dashboard reads the same figures from either.
package usagetest

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/adreswijzer/adreswijzer/gateway/usage"
)

// Open makes a fresh, empty store for one test.
type Open func(t *testing.T) usage.Store

// Run runs the conformance tests against stores made by open.
func Run(t *testing.T, open Open) {
	t.Run("empty", func(t *testing.T) { testEmpty(t, open(t)) })
	t.Run("batches add up", func(t *testing.T) { testAddUp(t, open(t)) })
	t.Run("spans", func(t *testing.T) { testSpans(t, open(t)) })
	t.Run("bad batch takes nothing", func(t *testing.T) { testBadBatch(t, open(t)) })
	t.Run("meter", func(t *testing.T) { testMeter(t, open(t)) })
}

// at is a time on day d (YYYY-MM-DD) at hh:mm UTC, to the microsecond as stores keep it.
func at(t *testing.T, d string, hhmm string) time.Time {
	t.Helper()
	v, err := time.Parse(time.DateOnly+" 15:04", d+" "+hhmm)
	if err != nil {
		t.Fatal(err)
	}
	return v.Add(123456 * time.Microsecond)
}

func testEmpty(t *testing.T, s usage.Store) {
	ctx := context.Background()
	if got, err := s.Get(ctx, "a", "2026-11"); err != nil || got != (usage.Totals{}) {
		t.Errorf("totals %+v, %v", got, err)
	}
	if got, err := s.Activity(ctx, "a", "2026-11-01", "2026-11-30"); err != nil || len(got) != 0 {
		t.Errorf("activity %+v, %v", got, err)
	}
	if got, err := s.LastUsed(ctx, "a"); err != nil || len(got) != 0 {
		t.Errorf("last used %+v, %v", got, err)
	}
}

// testAddUp writes the same batch twice, as two gateways would, and one more whose times
// are earlier: counts add up, the latest time stays, other accounts and days stay apart.
func testAddUp(t *testing.T, s usage.Store) {
	ctx := context.Background()
	batch := usage.Batch{
		Deltas: []usage.Delta{{Account: "a", Month: "2026-11", Totals: usage.Totals{Verifications: 4, SuggestCalls: 10}}},
		Activity: []usage.Activity{
			{Account: "a", Key: "key_1", Day: "2026-11-30", Route: "lookup", Calls: 3, Verifications: 2, LastUsed: at(t, "2026-11-30", "23:59")},
			{Account: "a", Key: "key_1", Day: "2026-11-30", Route: "validate", Calls: 1, Verifications: 1, LastUsed: at(t, "2026-11-30", "10:00")},
			{Account: "a", Key: "key_2", Day: "2026-11-01", Route: "suggest", Calls: 10, Verifications: 1, LastUsed: at(t, "2026-11-01", "00:00")},
			{Account: "a", Key: "key_1", Day: "2026-12-01", Route: "lookup", Calls: 1, Verifications: 1, LastUsed: at(t, "2026-12-01", "00:01")},
			{Account: "b", Key: "key_3", Day: "2026-11-15", Route: "lookup", Calls: 5, Verifications: 5, LastUsed: at(t, "2026-11-15", "12:00")},
			// The same row twice in one batch adds up as well.
			{Account: "b", Key: "key_3", Day: "2026-11-15", Route: "lookup", Calls: 1, LastUsed: at(t, "2026-11-15", "12:30")},
		},
	}
	for range 2 {
		if err := s.Add(ctx, batch); err != nil {
			t.Fatal(err)
		}
	}
	earlier := usage.Batch{Activity: []usage.Activity{
		{Account: "a", Key: "key_1", Day: "2026-11-30", Route: "lookup", Calls: 1, LastUsed: at(t, "2026-11-30", "08:00")},
	}}
	if err := s.Add(ctx, earlier); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Get(ctx, "a", "2026-11"); err != nil || got != (usage.Totals{Verifications: 8, SuggestCalls: 20}) {
		t.Errorf("totals %+v, %v", got, err)
	}
	want := []usage.Activity{
		{Account: "a", Key: "key_2", Day: "2026-11-01", Route: "suggest", Calls: 20, Verifications: 2, LastUsed: at(t, "2026-11-01", "00:00")},
		{Account: "a", Key: "key_1", Day: "2026-11-30", Route: "lookup", Calls: 7, Verifications: 4, LastUsed: at(t, "2026-11-30", "23:59")},
		{Account: "a", Key: "key_1", Day: "2026-11-30", Route: "validate", Calls: 2, Verifications: 2, LastUsed: at(t, "2026-11-30", "10:00")},
	}
	got, err := s.Activity(ctx, "a", "2026-11-01", "2026-11-30")
	if err != nil || !sameRows(got, want) {
		t.Errorf("activity of a in November (%v):\n got %+v\nwant %+v", err, got, want)
	}
	got, err = s.Activity(ctx, "b", "2026-11-15", "2026-11-15")
	want = []usage.Activity{{Account: "b", Key: "key_3", Day: "2026-11-15", Route: "lookup", Calls: 12, Verifications: 10, LastUsed: at(t, "2026-11-15", "12:30")}}
	if err != nil || !sameRows(got, want) {
		t.Errorf("activity of b on one day (%v):\n got %+v\nwant %+v", err, got, want)
	}
	last, err := s.LastUsed(ctx, "a")
	wantLast := map[string]time.Time{"key_1": at(t, "2026-12-01", "00:01"), "key_2": at(t, "2026-11-01", "00:00")}
	if err != nil || !maps.EqualFunc(last, wantLast, time.Time.Equal) {
		t.Errorf("last used of a (%v): %v, want %v", err, last, wantLast)
	}
}

// testSpans reads whole months and refuses spans that are not bounded.
func testSpans(t *testing.T, s usage.Store) {
	ctx := context.Background()
	var rows []usage.Activity
	for _, d := range []string{"2026-01-31", "2026-02-01", "2026-02-28", "2026-03-01"} {
		rows = append(rows, usage.Activity{Account: "a", Key: "key_1", Day: d, Route: "lookup", Calls: 1, LastUsed: at(t, d, "12:00")})
	}
	if err := s.Add(ctx, usage.Batch{Activity: rows}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		month string
		days  []string
	}{
		{"2026-01", []string{"2026-01-31"}},
		{"2026-02", []string{"2026-02-01", "2026-02-28"}},
		{"2026-03", []string{"2026-03-01"}},
		{"2026-04", nil},
	} {
		from, to, err := usage.MonthDays(c.month)
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.Activity(ctx, "a", from, to)
		var days []string
		for _, a := range got {
			days = append(days, a.Day)
		}
		if err != nil || !slices.Equal(days, c.days) {
			t.Errorf("%s (%s to %s): days %v (%v), want %v", c.month, from, to, days, err, c.days)
		}
	}
	for _, c := range [][2]string{
		{"2026-02-02", "2026-02-01"}, // backwards
		{"2026-01-01", "2026-02-01"}, // 32 days
		{"2026-1-1", "2026-01-02"},
		{"", ""},
		{"2026-01-01", "2026-01-01'; --"},
	} {
		if _, err := s.Activity(ctx, "a", c[0], c[1]); !errors.Is(err, usage.ErrSpan) {
			t.Errorf("%q to %q: %v, want ErrSpan", c[0], c[1], err)
		}
	}
}

// testBadBatch sends a batch with a row that is no date: the store refuses all of it,
// totals included, so that the Meter's retry of the batch counts nothing twice.
func testBadBatch(t *testing.T, s usage.Store) {
	ctx := context.Background()
	bad := usage.Batch{
		Deltas:   []usage.Delta{{Account: "a", Month: "2026-11", Totals: usage.Totals{Verifications: 1}}},
		Activity: []usage.Activity{{Account: "a", Key: "key_1", Day: "2026-11-31", Route: "lookup", Calls: 1, LastUsed: at(t, "2026-11-30", "12:00")}},
	}
	if err := s.Add(ctx, bad); err == nil {
		t.Fatal("a row on 31 November was taken")
	}
	if got, _ := s.Get(ctx, "a", "2026-11"); got != (usage.Totals{}) {
		t.Errorf("the refused batch's totals were kept: %+v", got)
	}
	if got, _ := s.LastUsed(ctx, "a"); len(got) != 0 {
		t.Errorf("the refused batch's last use was kept: %v", got)
	}
}

// testMeter records calls through a Meter, as the gateway does, and reads them back once it
// closed (which flushes).
func testMeter(t *testing.T, s usage.Store) {
	ctx := context.Background()
	m, err := usage.NewMeter(usage.Config{Sink: s, FlushEvery: time.Hour, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	for _, r := range []struct {
		key, route    string
		verifications int
	}{
		{"key_1", "lookup", 1}, {"key_1", "lookup", 0}, {"key_1", "validate", 1}, {"key_t", "lookup", 0},
	} {
		m.Record("a", r.key, r.route, r.verifications)
	}
	if _, err := m.Charge(ctx, usage.Charge{Account: "a", Quota: usage.Unlimited, Call: usage.Lookup}); err != nil {
		t.Fatal(err)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	got := Sum(t, s, "a", start, time.Now())
	want := map[[2]string]usage.Activity{
		{"key_1", "lookup"}:   {Calls: 2, Verifications: 1},
		{"key_1", "validate"}: {Calls: 1, Verifications: 1},
		{"key_t", "lookup"}:   {Calls: 1},
	}
	if !maps.EqualFunc(got, want, sameCounts) {
		t.Errorf("recorded %v, want %v", got, want)
	}
	if tot, err := s.Get(ctx, "a", usage.Month(start)); err != nil || tot.Verifications != 1 {
		t.Errorf("totals %+v (%v), want the one charge", tot, err)
	}
	last, err := s.LastUsed(ctx, "a")
	if err != nil || len(last) != 2 || last["key_1"].Before(start.Truncate(time.Microsecond)) {
		t.Errorf("last used %v (%v), want key_1 and key_t since %v", last, err, start)
	}
}

// Sum reads an account's activity from the day of from to that of to and adds it up per
// credential and route (a test that crosses midnight UTC splits its calls over two days).
// The rows' times are dropped.
func Sum(t testing.TB, r usage.Reader, account string, from, to time.Time) map[[2]string]usage.Activity {
	t.Helper()
	rows, err := r.Activity(context.Background(), account, usage.Day(from), usage.Day(to))
	if err != nil {
		t.Fatal(err)
	}
	out := map[[2]string]usage.Activity{}
	for _, a := range rows {
		k := [2]string{a.Key, a.Route}
		s := out[k]
		s.Calls += a.Calls
		s.Verifications += a.Verifications
		out[k] = s
	}
	return out
}

func sameCounts(a, b usage.Activity) bool {
	return a.Calls == b.Calls && a.Verifications == b.Verifications
}

// sameRows compares rows, their times by instant.
func sameRows(got, want []usage.Activity) bool {
	return slices.EqualFunc(got, want, func(a, b usage.Activity) bool {
		return a.Account == b.Account && a.Key == b.Key && a.Day == b.Day && a.Route == b.Route &&
			a.Calls == b.Calls && a.Verifications == b.Verifications && a.LastUsed.Equal(b.LastUsed)
	})
}
