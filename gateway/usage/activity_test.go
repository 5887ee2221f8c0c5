package usage

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/adreswijzer/adreswijzer/gateway/gatewaytest"
)

// rec is one Record call of a table, at a time.
type rec struct {
	account, key, route string
	verifications       int
	at                  string // RFC 3339, UTC
}

func ts(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// fileMeterAt is a meter on a fresh usage file whose clock the test sets.
func fileMeterAt(t *testing.T, sink Sink) (*Meter, *time.Time) {
	t.Helper()
	m, err := NewMeter(Config{Sink: sink, Log: quiet(), FlushEvery: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	now := new(time.Time)
	m.now = func() time.Time { return *now }
	return m, now
}

func TestRecord(t *testing.T) {
	row := func(account, key, day, route string, calls, v int64, last string) Activity {
		return Activity{Account: account, Key: key, Day: day, Route: route, Calls: calls, Verifications: v, LastUsed: ts(t, last)}
	}
	for _, c := range []struct {
		name string
		recs []rec
		want []Activity // account "a", ordered by day, key, route
	}{
		{"one call", []rec{{"a", "key_1", "lookup", 1, "2026-11-05T10:00:00Z"}},
			[]Activity{row("a", "key_1", "2026-11-05", "lookup", 1, 1, "2026-11-05T10:00:00Z")}},
		{"one row adds up and keeps the latest time", []rec{
			{"a", "key_1", "lookup", 1, "2026-11-05T10:00:00.000001Z"},
			{"a", "key_1", "lookup", 0, "2026-11-05T12:00:00Z"},
			{"a", "key_1", "lookup", 1, "2026-11-05T11:00:00Z"}, // came in late
		}, []Activity{row("a", "key_1", "2026-11-05", "lookup", 3, 2, "2026-11-05T12:00:00Z")}},
		{"credentials and routes apart", []rec{
			{"a", "key_2", "validate", 1, "2026-11-05T10:00:00Z"},
			{"a", "key_1", "suggest", 0, "2026-11-05T10:00:01Z"},
			{"a", "key_1", "lookup", 1, "2026-11-05T10:00:02Z"},
		}, []Activity{
			row("a", "key_1", "2026-11-05", "lookup", 1, 1, "2026-11-05T10:00:02Z"),
			row("a", "key_1", "2026-11-05", "suggest", 1, 0, "2026-11-05T10:00:01Z"),
			row("a", "key_2", "2026-11-05", "validate", 1, 1, "2026-11-05T10:00:00Z"),
		}},
		{"midnight UTC starts a day", []rec{
			{"a", "key_1", "lookup", 1, "2026-11-30T23:59:59.999999Z"},
			{"a", "key_1", "lookup", 1, "2026-12-01T00:00:00Z"},
			{"a", "key_1", "lookup", 1, "2026-12-01T00:30:00+01:00"}, // 23:30 UTC the day before
		}, []Activity{
			row("a", "key_1", "2026-11-30", "lookup", 2, 2, "2026-11-30T23:59:59.999999Z"),
			row("a", "key_1", "2026-12-01", "lookup", 1, 1, "2026-12-01T00:00:00Z"),
		}},
		{"times to the microsecond", []rec{{"a", "key_1", "lookup", 0, "2026-11-05T10:00:00.123456789Z"}},
			[]Activity{row("a", "key_1", "2026-11-05", "lookup", 1, 0, "2026-11-05T10:00:00.123456Z")}},
		{"accounts apart", []rec{{"b", "key_9", "lookup", 1, "2026-11-05T10:00:00Z"}, {"a", "key_1", "lookup", 1, "2026-11-05T10:00:00Z"}},
			[]Activity{row("a", "key_1", "2026-11-05", "lookup", 1, 1, "2026-11-05T10:00:00Z")}},
	} {
		t.Run(c.name, func(t *testing.T) {
			sink, err := OpenFile(filepath.Join(t.TempDir(), "usage.json"))
			if err != nil {
				t.Fatal(err)
			}
			m, now := fileMeterAt(t, sink)
			for _, r := range c.recs {
				*now = ts(t, r.at)
				m.Record(r.account, r.key, r.route, r.verifications)
			}
			if err := m.Flush(context.Background()); err != nil {
				t.Fatal(err)
			}
			got, err := sink.Activity(context.Background(), "a", "2026-11-01", "2026-12-01")
			if err != nil || !slices.EqualFunc(got, c.want, sameRow) {
				t.Errorf("rows (%v):\n got %v\nwant %v", err, got, c.want)
			}
		})
	}
}

// sameRow compares rows, their times by instant.
func sameRow(a, b Activity) bool {
	t := a.LastUsed.Equal(b.LastUsed)
	a.LastUsed, b.LastUsed = time.Time{}, time.Time{}
	return t && a == b
}

// A flush that fails keeps its rows, and the next one writes them with those recorded
// since: added, the later time kept, nothing lost or counted twice. Close flushes.
func TestRecordFlushFails(t *testing.T) {
	sink := newFrozenSink(t, "a", 0)
	m, now := fileMeterAt(t, sink)
	ctx := context.Background()
	*now = ts(t, "2026-11-05T10:00:00Z")
	m.Record("a", "key_1", "lookup", 1)
	m.Record("a", "key_2", "validate", 1)
	sink.setDown(true)
	if err := m.Flush(ctx); err == nil {
		t.Fatal("flush to a sink that is down did not fail")
	}
	*now = ts(t, "2026-11-05T11:00:00Z")
	m.Record("a", "key_1", "lookup", 0)
	if err := m.Flush(ctx); err == nil {
		t.Fatal("second flush did not fail")
	}
	sink.setDown(false)
	*now = ts(t, "2026-11-05T12:00:00Z")
	m.Record("a", "key_1", "suggest", 0)
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := sink.Sink.(*FileSink).Activity(ctx, "a", "2026-11-05", "2026-11-05")
	want := []Activity{
		{Account: "a", Key: "key_1", Day: "2026-11-05", Route: "lookup", Calls: 2, Verifications: 1, LastUsed: ts(t, "2026-11-05T11:00:00Z")},
		{Account: "a", Key: "key_1", Day: "2026-11-05", Route: "suggest", Calls: 1, LastUsed: ts(t, "2026-11-05T12:00:00Z")},
		{Account: "a", Key: "key_2", Day: "2026-11-05", Route: "validate", Calls: 1, Verifications: 1, LastUsed: ts(t, "2026-11-05T10:00:00Z")},
	}
	if err != nil || !slices.EqualFunc(got, want, sameRow) {
		t.Errorf("rows (%v):\n got %v\nwant %v", err, got, want)
	}
}

// Recording a call of a credential whose row of the day exists allocates nothing, also
// after flushes, which zero the rows in place rather than drop them.
func TestRecordAllocs(t *testing.T) {
	sink, _ := OpenFile(filepath.Join(t.TempDir(), "usage.json"))
	m, _ := fileMeterAt(t, sink)
	m.now = time.Now
	record := func() { m.Record("acct", "key_1", "lookup", 1) }
	for i := range 3 {
		record()
		if n := testing.AllocsPerRun(100, record); n != 0 {
			t.Errorf("after %d flushes: %v allocations per call", i, n)
		}
		if err := m.Flush(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
}

// BenchmarkRecord is the cost of recording an answered call, alone and with calls on every
// CPU recording at once (flushed once a second, as in a gateway).
func BenchmarkRecord(b *testing.B) {
	sink, _ := OpenFile(filepath.Join(b.TempDir(), "usage.json"))
	m, _ := NewMeter(Config{Sink: sink, Log: quiet()})
	defer m.Close()
	b.Run("serial", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			m.Record("bench", "key_1", "lookup", 1)
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				m.Record("bench", "key_1", "lookup", 1)
			}
		})
	})
}

// The usage file keeps reading files written before activity was recorded, and writes
// activity readably beside the months.
func TestFileFormat(t *testing.T) {
	path := filepath.Join(t.TempDir(), "usage.json")
	old := `{"months": {"2026-11": {"a": {"v": 3, "s": 12}}}}`
	if err := os.WriteFile(path, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if got, _ := s.Get(ctx, "a", "2026-11"); got != (Totals{Verifications: 3, SuggestCalls: 12}) {
		t.Errorf("totals of an older file: %+v", got)
	}
	err = s.Add(ctx, Batch{
		Deltas: []Delta{{Account: "a", Month: "2026-11", Totals: Totals{Verifications: 1}}},
		Activity: []Activity{
			{Account: "a", Key: "key_2", Day: "2026-11-05", Route: "lookup", Calls: 2, Verifications: 1, LastUsed: ts(t, "2026-11-05T10:00:00.5Z")},
			{Account: "a", Key: "key_1", Day: "2026-11-05", Route: "lookup", Calls: 1, LastUsed: ts(t, "2026-11-05T09:00:00Z")},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	want := `{
  "months": {
    "2026-11": {
      "a": {
        "v": 4,
        "s": 12
      }
    }
  },
  "activity": {
    "a": {
      "2026-11-05": [
        {
          "key": "key_1",
          "route": "lookup",
          "calls": 1,
          "verifications": 0,
          "lastUsed": "2026-11-05T09:00:00Z"
        },
        {
          "key": "key_2",
          "route": "lookup",
          "calls": 2,
          "verifications": 1,
          "lastUsed": "2026-11-05T10:00:00.5Z"
        }
      ]
    }
  },
  "lastUsed": {
    "a": {
      "key_1": "2026-11-05T09:00:00Z",
      "key_2": "2026-11-05T10:00:00.5Z"
    }
  }
}
`
	if string(b) != want {
		t.Errorf("file:\n%s\nwant:\n%s", b, want)
	}
	again, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := again.Activity(ctx, "a", "2026-11-05", "2026-11-05")
	if err != nil || len(rows) != 2 || rows[1].Calls != 2 || !rows[1].LastUsed.Equal(ts(t, "2026-11-05T10:00:00.5Z")) {
		t.Errorf("read back: %+v (%v)", rows, err)
	}
}

// A batch the file could not take leaves the sink as it was, so that the Meter's retry
// counts it once.
func TestFileUndo(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sub")
	s, err := OpenFile(filepath.Join(dir, "usage.json"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	first := Batch{
		Deltas:   []Delta{{Account: "a", Month: "2026-11", Totals: Totals{Verifications: 1}}},
		Activity: []Activity{{Account: "a", Key: "key_1", Day: "2026-11-05", Route: "lookup", Calls: 1, Verifications: 1, LastUsed: ts(t, "2026-11-05T10:00:00Z")}},
	}
	if err := s.Add(ctx, first); err != nil {
		t.Fatal(err)
	}
	// The file's directory becomes a file: the next write fails.
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	second := Batch{
		Deltas: []Delta{{Account: "a", Month: "2026-11", Totals: Totals{Verifications: 1}}, {Account: "b", Month: "2026-11", Totals: Totals{Verifications: 1}}},
		Activity: []Activity{
			{Account: "a", Key: "key_1", Day: "2026-11-05", Route: "lookup", Calls: 1, Verifications: 1, LastUsed: ts(t, "2026-11-05T11:00:00Z")},
			{Account: "a", Key: "key_2", Day: "2026-11-06", Route: "suggest", Calls: 1, LastUsed: ts(t, "2026-11-06T11:00:00Z")},
			{Account: "b", Key: "key_3", Day: "2026-11-06", Route: "suggest", Calls: 1, LastUsed: ts(t, "2026-11-06T11:00:00Z")},
		},
	}
	if err := s.Add(ctx, second); err == nil || !strings.Contains(err.Error(), "usage file") {
		t.Fatalf("write into a file as directory: %v", err)
	}
	rows, _ := s.Activity(ctx, "a", "2026-11-01", "2026-11-30")
	last, _ := s.LastUsed(ctx, "a")
	tot, _ := s.Get(ctx, "a", "2026-11")
	want := first.Activity
	if !slices.EqualFunc(rows, want, sameRow) || len(last) != 1 || !last["key_1"].Equal(want[0].LastUsed) || tot.Verifications != 1 {
		t.Errorf("after the failed write: rows %v, last used %v, totals %+v", rows, last, tot)
	}
	if len(s.data.Activity) != 1 || len(s.data.LastUsed) != 1 || len(s.data.Months["2026-11"]) != 1 {
		t.Errorf("the failed write left entries behind: %+v", s.data)
	}
	os.Remove(dir)
	if err := s.Add(ctx, second); err != nil {
		t.Fatal(err)
	}
	if rows, _ := s.Activity(ctx, "a", "2026-11-05", "2026-11-05"); len(rows) != 1 || rows[0].Calls != 2 {
		t.Errorf("after the retry: %v", rows)
	}
}

// Without Redis the daily calls are this process's counter, which starts anew each UTC day;
// while Redis is away they are the local counter the cap is then enforced on.
func TestDailyCallsLocal(t *testing.T) {
	ctx := context.Background()
	t.Run("next day", func(t *testing.T) {
		sink, _ := OpenFile(filepath.Join(t.TempDir(), "usage.json"))
		m, now := fileMeterAt(t, sink)
		*now = ts(t, "2026-11-05T23:59:59Z")
		m.CountDaily(ctx, "key_t", 100, 4)
		if n, err := m.DailyCalls(ctx, "key_t"); err != nil || n != 4 {
			t.Errorf("today: %d (%v), want 4", n, err)
		}
		*now = ts(t, "2026-11-06T00:00:00Z")
		if n, err := m.DailyCalls(ctx, "key_t"); err != nil || n != 0 {
			t.Errorf("the next day: %d (%v), want 0", n, err)
		}
	})
	t.Run("redis away", func(t *testing.T) {
		srv := gatewaytest.StartRedisServer(t)
		m := outageMeter(t, srv.FailFastClient(t), "d:")
		m.CountDaily(ctx, "key_t", 100, 5)
		if n, err := m.DailyCalls(ctx, "key_t"); err != nil || n != 5 {
			t.Errorf("from Redis: %d (%v), want 5", n, err)
		}
		srv.Kill()
		m.CountDaily(ctx, "key_t", 100, 1)
		m.CountDaily(ctx, "key_t", 100, 1)
		if !m.Degraded() {
			t.Fatal("Redis is gone and the meter did not notice")
		}
		if n, err := m.DailyCalls(ctx, "key_t"); err != nil || n != 2 {
			t.Errorf("with Redis away: %d (%v), want the 2 counted here", n, err)
		}
	})
}
