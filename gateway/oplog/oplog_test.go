package oplog

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// manual runs intervals when the test says so.
type manual struct {
	mu    sync.Mutex
	fires []func()
}

type manualTimer struct{ stopped bool }

func (m *manualTimer) Stop() bool { m.stopped = true; return true }

func (m *manual) after(_ time.Duration, f func()) stopper {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.fires = append(m.fires, f)
	return &manualTimer{}
}

// elapse ends every interval that is running.
func (m *manual) elapse() {
	m.mu.Lock()
	fs := m.fires
	m.fires = nil
	m.mu.Unlock()
	for _, f := range fs {
		f()
	}
}

type logged struct {
	Level    string `json:"level"`
	Msg      string `json:"msg"`
	Route    string `json:"route"`
	Repeated int    `json:"repeated"`
	Within   string `json:"within"`
}

func lines(t *testing.T, buf *bytes.Buffer) []logged {
	t.Helper()
	var out []logged
	for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		if l == "" {
			continue
		}
		var e logged
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		out = append(out, e)
	}
	buf.Reset()
	return out
}

func newThrottle() (*Throttle, *manual, *bytes.Buffer) {
	var buf bytes.Buffer
	th := New(slog.New(slog.NewJSONHandler(&buf, nil)), 10*time.Second)
	m := &manual{}
	th.after = m.after
	return th, m, &buf
}

// An outage: a burst of the same line is one line, then one summary per interval with the
// count, and once it is over the next occurrence is written at once again.
func TestThrottle(t *testing.T) {
	th, clock, buf := newThrottle()
	for i := range 500 {
		th.Warn("no worker answered", "route", []string{"lookup", "validate"}[i%2])
	}
	th.Error("key store unavailable")
	got := lines(t, buf)
	if len(got) != 2 || got[0].Msg != "no worker answered" || got[0].Route != "lookup" || got[0].Repeated != 0 ||
		got[1].Msg != "key store unavailable" || got[1].Level != "ERROR" {
		t.Fatalf("burst written as %+v; want the first of each message only", got)
	}

	clock.elapse()
	got = lines(t, buf)
	if len(got) != 1 || got[0].Msg != "no worker answered" || got[0].Repeated != 499 || got[0].Route != "validate" ||
		got[0].Within != "10s" || got[0].Level != "WARN" {
		t.Fatalf("summary %+v; want one line counting the 499 not written, with the last one's attributes", got)
	}
	// It goes on: one more summary for the next interval.
	for range 30 {
		th.Warn("no worker answered", "route", "lookup")
	}
	clock.elapse()
	if got = lines(t, buf); len(got) != 1 || got[0].Repeated != 30 {
		t.Fatalf("second interval %+v; want one summary of 30", got)
	}
	// A quiet interval ends it: nothing to summarise, and the next occurrence is news.
	clock.elapse()
	if got = lines(t, buf); len(got) != 0 {
		t.Fatalf("quiet interval wrote %+v", got)
	}
	th.Warn("no worker answered", "route", "suggest")
	if got = lines(t, buf); len(got) != 1 || got[0].Repeated != 0 || got[0].Route != "suggest" {
		t.Fatalf("after a quiet interval %+v; want the line at once", got)
	}
}

// Close writes what was counted, so that a configuration reload loses no count, and stops
// throttling.
func TestThrottleClose(t *testing.T) {
	th, _, buf := newThrottle()
	for range 5 {
		th.Warn("usage not counted")
	}
	th.Info("once")
	lines(t, buf)
	th.Close()
	got := lines(t, buf)
	if len(got) != 1 || got[0].Msg != "usage not counted" || got[0].Repeated != 4 {
		t.Fatalf("Close wrote %+v; want the summary of the 4 counted", got)
	}
	th.Warn("usage not counted")
	th.Warn("usage not counted")
	if got = lines(t, buf); len(got) != 2 {
		t.Fatalf("after Close %d lines; want each written", len(got))
	}
}

// With real timers: the summary comes by itself, without another occurrence.
func TestThrottleTimer(t *testing.T) {
	var mu sync.Mutex
	var buf bytes.Buffer
	th := New(slog.New(slog.NewJSONHandler(lockedWriter{&mu, &buf}, nil)), 20*time.Millisecond)
	defer th.Close()
	for range 3 {
		th.Warn("flush failed")
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		n := strings.Count(buf.String(), `"repeated":2`)
		mu.Unlock()
		if n == 1 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no summary written by the timer: %s", buf.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	b  *bytes.Buffer
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}
