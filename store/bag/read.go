package bag

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// batch is what one worker makes of one XML file: its records with seq numbers local to
// the file, and counts.
type batch struct {
	t       tables
	read    int64
	readNUM int64
	skipped map[string]int64
	unknown map[string]int64 // `<object type> "<status text>"` -> voorkomens
	err     error
}

// readStats sums the batches.
type readStats struct {
	read    int64
	readNUM int64
	skipped map[string]int64
	unknown map[string]int64
}

// progressEvery bounds how often Options.Progress is called.
const progressEvery = 250 * time.Millisecond

// readJobs decodes the XML files on all cores and merges the results in job order, so the
// tables are the same whatever the scheduling: stand files first, then mutation files in
// delivery order, each later record able to replace an earlier one.
func readJobs(ctx context.Context, jobs []job, t date, progress func(Progress)) (*tables, readStats, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	st := readStats{skipped: map[string]int64{}, unknown: map[string]int64{}}
	tb := &tables{}

	workers := runtime.GOMAXPROCS(0)
	results := make([]chan *batch, len(jobs))
	for i := range results {
		results[i] = make(chan *batch, 1)
	}
	// window bounds how far workers run ahead of the merge, and so the memory held in
	// finished but unmerged batches.
	window := make(chan struct{}, 2*workers)
	next := make(chan int)
	var done atomic.Int64
	go func() {
		defer close(next)
		for i := range jobs {
			select {
			case window <- struct{}{}:
			case <-ctx.Done():
				return
			}
			select {
			case next <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i] <- readJob(ctx, jobs[i], t, &done)
			}
		}()
	}
	fail := func(err error) (*tables, readStats, error) {
		cancel()
		wg.Wait()
		return nil, st, err
	}

	phases := phaseTotals(jobs)
	tick := time.NewTicker(progressEvery)
	defer tick.Stop()
	for i := range jobs {
		if progress != nil && (i == 0 || jobs[i].stand != jobs[i-1].stand) {
			// Each phase is reported as it begins, with its total: a municipal extract now
			// reads in less than one progress interval and would otherwise not show at all.
			progress(phases.at(jobs[i].stand, done.Load()))
		}
		var b *batch
	wait:
		for {
			select {
			case b = <-results[i]:
				break wait
			case <-tick.C:
				if progress != nil {
					progress(phases.at(jobs[i].stand, done.Load()))
				}
			case <-ctx.Done():
				return fail(ctx.Err())
			}
		}
		<-window
		if b.err != nil {
			return fail(fmt.Errorf("%s: %s: %w", jobs[i].delivery, jobs[i].name, b.err))
		}
		tb.merge(&b.t)
		st.read += b.read
		st.readNUM += b.readNUM
		for k, v := range b.skipped {
			st.skipped[k] += v
		}
		for k, v := range b.unknown {
			st.unknown[k] += v
		}
	}
	wg.Wait()
	return tb, st, nil
}

// readJob decodes one XML file. Stand voorkomens that can no longer be current on t are
// dropped here; mutation voorkomens are all kept, because an ended voorkomen in a mutation
// must still replace the open one the stand delivered.
func readJob(ctx context.Context, j job, t date, done *atomic.Int64) *batch {
	b := &batch{skipped: map[string]int64{}, unknown: map[string]int64{}}
	rc, err := j.file.Open()
	if err != nil {
		b.err = err
		return b
	}
	defer rc.Close()
	r := newReader(&countingReader{r: rc, n: done})
	if j.was {
		r.skip = "wordt"
	}
	var rec record
	for i := 0; ; i++ {
		if i&255 == 0 {
			if err := ctx.Err(); err != nil {
				b.err = err
				return b
			}
		}
		err := r.next(&rec)
		if err == io.EOF {
			return b
		}
		if err != nil {
			b.err = err
			return b
		}
		b.read++
		if rec.kind == kindNUM {
			b.readNUM++
		}
		if rec.status == stUnknown {
			b.unknown[rec.kind.String()+" "+strconv.Quote(rec.statusText)]++
		}
		if j.stand {
			h := hdr{begin: rec.begin, end: rec.end, flags: rec.flags}
			if h.historic(t) {
				if rec.kind == kindNUM {
					if h.flags&flagInactive != 0 {
						b.skipped[reasonInactive]++
					} else {
						b.skipped[reasonSuperseded]++
					}
				}
				continue
			}
		}
		b.t.add(&rec)
	}
}

// merge appends a batch's records, renumbering their seq after those already held.
func (t *tables) merge(o *tables) {
	base := t.seq
	for i := range o.num {
		o.num[i].seq += base
	}
	for i := range o.ao {
		o.ao[i].seq += base
	}
	for i := range o.neven {
		o.neven[i].seq += base
	}
	for i := range o.opr {
		o.opr[i].seq += base
	}
	for i := range o.wpl {
		o.wpl[i].seq += base
	}
	t.num = append(t.num, o.num...)
	t.ao = append(t.ao, o.ao...)
	t.neven = append(t.neven, o.neven...)
	t.opr = append(t.opr, o.opr...)
	t.wpl = append(t.wpl, o.wpl...)
	t.seq += o.seq
}

// countingReader counts bytes read for progress reports.
type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// phaseSizes holds the uncompressed XML bytes of the stand and of the mutations.
type phaseSizes struct{ stand, mutations int64 }

func phaseTotals(jobs []job) phaseSizes {
	var p phaseSizes
	for _, j := range jobs {
		if j.stand {
			p.stand += int64(j.file.UncompressedSize64)
		} else {
			p.mutations += int64(j.file.UncompressedSize64)
		}
	}
	return p
}

// at turns the bytes read so far into a report for the phase being merged.
func (p phaseSizes) at(stand bool, done int64) Progress {
	if stand {
		return Progress{Phase: PhaseStand, Done: min(done, p.stand), Total: p.stand}
	}
	return Progress{Phase: PhaseMutations, Done: min(max(done-p.stand, 0), p.mutations), Total: p.mutations}
}
