package gcpace

import (
	"context"
	"log/slog"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

const mb = 1 << 20

func TestPercent(t *testing.T) {
	for _, c := range []struct {
		live, headroom uint64
		want           int
	}{
		{530 * mb, 128 * mb, 24},  // both national registers in memory
		{1060 * mb, 128 * mb, 12}, // while a new dataset is activated
		{20 * mb, 128 * mb, 100},  // the register samples: Go's default
		{10 << 30, 128 * mb, 10},  // never back to back
		{0, 128 * mb, 100},        // before the first collection
	} {
		if got := Percent(c.live, c.headroom); got != c.want {
			t.Errorf("Percent(%d MB, %d MB) = %d, want %d", c.live/mb, c.headroom/mb, got, c.want)
		}
	}
}

// live returns n bytes of touched heap, collected once so that the runtime counts them as
// live; the caller keeps them alive.
func live(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = 1
	}
	runtime.GC()
	return b
}

// gcPercent reads the collector's percentage.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

func TestRunPacesByLiveHeap(t *testing.T) {
	t.Setenv("GOGC", "") // the test's own environment must not switch pacing off
	defer debug.SetGCPercent(gcPercent())
	held := live(256 * mb)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	Run(ctx, 32*mb, time.Hour, slog.New(slog.DiscardHandler))
	// 32 MB over a little more than 256 MB live.
	if p := gcPercent(); p < 11 || p > 12 {
		t.Fatalf("GOGC = %d with 256 MB live and 32 MB headroom, want 11 or 12", p)
	}
	runtime.KeepAlive(held)
}

func TestRunLeavesAnOperatorsGOGC(t *testing.T) {
	t.Setenv("GOGC", "400")
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	Run(context.Background(), 32*mb, time.Hour, slog.New(slog.DiscardHandler))
	if p := gcPercent(); p != 400 {
		t.Fatalf("GOGC = %d, want the operator's 400", p)
	}
}

// TestRunFollowsAnActivation: when a second dataset joins the first (the live heap doubles,
// as while a new one is activated), the percentage halves within a few intervals.
func TestRunFollowsAnActivation(t *testing.T) {
	t.Setenv("GOGC", "")
	defer debug.SetGCPercent(gcPercent())
	first := live(256 * mb)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	Run(ctx, 64*mb, 10*time.Millisecond, slog.New(slog.DiscardHandler))
	if p := gcPercent(); p < 23 || p > 25 {
		t.Fatalf("GOGC = %d with 256 MB live and 64 MB headroom, want about 25", p)
	}
	second := live(256 * mb)
	deadline := time.Now().Add(5 * time.Second)
	for gcPercent() > 12 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if p := gcPercent(); p < 11 || p > 12 {
		t.Fatalf("GOGC = %d with 512 MB live and 64 MB headroom, want about 12", p)
	}
	runtime.KeepAlive(first)
	runtime.KeepAlive(second)
}
