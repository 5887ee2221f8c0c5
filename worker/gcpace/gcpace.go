// Package gcpace keeps the garbage collector's headroom a fixed number of bytes instead of
// a share of the live heap.
//
// A worker on the memory store holds the registers on its heap: at national size about
// 500 MB that never changes between dataset activations, beside a few megabytes of request
// garbage. Go's default (GOGC=100) lets the heap grow by as much again before collecting,
// so after start-up the process takes fresh pages from the kernel for all it allocates
// until the heap has doubled, and returns and re-takes them afterwards: page faults on the
// path of requests that otherwise take a fraction of a millisecond. A fixed
// headroom (GOGC = headroom / live heap) keeps the collector's pace set by the request
// garbage, which is what it has to collect, and the process's memory near what it holds.
//
// The percentage follows the live heap as datasets come and go (two are alive while a new
// one is activated), and is never set above Go's default or below a floor that keeps the
// collector from running back to back. An operator's GOGC in the environment wins.
package gcpace

import (
	"context"
	"log/slog"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

const (
	// MinPercent bounds how often a collection may run: with 10% the collector has at
	// least a tenth of the live heap to allocate into, however large the heap.
	MinPercent = 10
	// MaxPercent is Go's default; a small heap (the register samples) keeps it.
	MaxPercent = 100
)

// Percent is the GOGC that gives a heap of live bytes the headroom in bytes, within
// [MinPercent, MaxPercent].
func Percent(live, headroom uint64) int {
	if live == 0 {
		return MaxPercent
	}
	p := headroom * 100 / live
	return int(min(max(p, MinPercent), MaxPercent))
}

// liveHeap is the heap the last collection found alive (0 before the first one).
func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// Run sets the collector's percentage for headroom bytes now and again every interval
// until ctx ends, logging each change. It returns at once, doing nothing, when headroom is
// 0 or GOGC is set in the environment.
func Run(ctx context.Context, headroom uint64, every time.Duration, log *slog.Logger) {
	if headroom == 0 || os.Getenv("GOGC") != "" {
		return
	}
	current, paced := -1, uint64(0)
	apply := func() {
		live := liveHeap()
		// The live heap wanders by a few megabytes from one collection to the next; only a
		// change of an eighth (a dataset activated or released) re-paces, so the percentage
		// does not flap at a rounding boundary.
		if current >= 0 && live >= paced-paced/8 && live <= paced+paced/8 {
			return
		}
		paced = live
		p := Percent(live, headroom)
		if p == current {
			return
		}
		debug.SetGCPercent(p)
		log.Info("garbage collector paced", "gcPercent", p, "liveHeapMB", live>>20, "headroomMB", headroom>>20)
		current = p
	}
	apply()
	go func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				apply()
			}
		}
	}()
}
