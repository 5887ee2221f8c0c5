package logbuf

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is the process's stderr as the tests see it.
type syncBuffer struct {
	mu     sync.Mutex
	b      bytes.Buffer
	writes int
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writes++
	return s.b.Write(p)
}

func (s *syncBuffer) String() (string, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String(), s.writes
}

func TestInfoLinesAreBatchedAndWarningsFlushAtOnce(t *testing.T) {
	var out syncBuffer
	w := New(&out, 64<<10, time.Hour)
	log := slog.New(Handler(slog.NewJSONHandler(w, nil), w))
	for i := range 100 {
		log.Info("request", "route", "/v1/nl/lookup", "status", 200, "i", i)
	}
	if s, _ := out.String(); s != "" {
		t.Fatalf("info lines written before a flush:\n%s", s)
	}
	log.Warn("store unavailable")
	s, writes := out.String()
	if lines := strings.Count(s, "\n"); lines != 101 || writes != 1 {
		t.Fatalf("%d lines in %d writes after a warning, want 101 in 1", lines, writes)
	}
	if !strings.HasSuffix(s, "\"msg\":\"store unavailable\"}\n") || !strings.Contains(s, `"i":99}`) {
		t.Fatalf("lines out of order:\n%s", s)
	}
	log.Info("after")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if s, _ := out.String(); !strings.HasSuffix(s, "\"msg\":\"after\"}\n") {
		t.Fatalf("Close did not write the last line:\n%s", s)
	}
}

func TestIntervalFlushes(t *testing.T) {
	var out syncBuffer
	w := New(&out, 64<<10, 5*time.Millisecond)
	defer w.Close()
	fmt.Fprintln(w, `{"msg":"request"}`)
	deadline := time.Now().Add(5 * time.Second)
	for {
		if s, _ := out.String(); s == "{\"msg\":\"request\"}\n" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the interval never flushed the line")
		}
		time.Sleep(time.Millisecond)
	}
}

// TestConcurrentLinesStayWhole writes from many goroutines through a buffer small enough
// to fill many times, with records larger than the buffer among them: every line must come
// out whole, and each goroutine's lines in its order.
func TestConcurrentLinesStayWhole(t *testing.T) {
	var out syncBuffer
	w := New(&out, 256, time.Millisecond)
	log := slog.New(Handler(slog.NewJSONHandler(w, nil), w))
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				pad := ""
				if i%50 == 0 {
					pad = strings.Repeat("x", 300) // larger than the buffer
				}
				log.Info("request", "g", g, "i", i, "pad", pad)
			}
		}()
	}
	wg.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	s, _ := out.String()
	next := map[string]int{}
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	for _, l := range lines {
		var g, i int
		if _, err := fmt.Sscanf(l[strings.Index(l, `"g":`):], `"g":%d,"i":%d`, &g, &i); err != nil {
			t.Fatalf("broken line %q: %v", l, err)
		}
		key := fmt.Sprint(g)
		if i != next[key] {
			t.Fatalf("goroutine %d: line %d after %d", g, i, next[key]-1)
		}
		next[key]++
	}
	if len(lines) != 8*200 {
		t.Fatalf("%d lines, want %d", len(lines), 8*200)
	}
}
