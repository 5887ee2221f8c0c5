// Package logbuf batches log lines into fewer writes.
//
// A worker writes access-log lines on the request's path: for every request with
// --access-log all, and in a burst of failures or slow answers otherwise. Written one by one,
// each line is a system call as costly as the write of the answer itself. A Writer collects
// the lines and writes them together when its buffer fills or a short interval passes.
// What is lost when the process dies without Close is at most that interval's Info lines:
// Handler flushes at once after every record of level Warn or above, so an error is on its
// way before anything that could follow it.
package logbuf

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"time"
)

// Writer is an io.Writer that buffers up to size bytes and flushes every interval. It is
// safe for concurrent use; slog's handlers write each record in one call, so lines are
// never interleaved.
type Writer struct {
	mu   sync.Mutex
	out  io.Writer
	buf  []byte
	size int
	err  error // the first write error, returned by every later Write and Flush

	stop chan struct{}
	done chan struct{}
}

// New starts a Writer on out; Close stops it.
func New(out io.Writer, size int, every time.Duration) *Writer {
	w := &Writer{out: out, buf: make([]byte, 0, size), size: size, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-w.stop:
				return
			case <-t.C:
				_ = w.Flush()
			}
		}
	}()
	return w
}

// Write buffers p, writing out what is buffered first when p would not fit.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return 0, w.err
	}
	if len(w.buf)+len(p) > w.size {
		if err := w.flushLocked(); err != nil {
			return 0, err
		}
	}
	if len(p) > w.size {
		// A record larger than the buffer goes out by itself.
		n, err := w.out.Write(p)
		w.err = err
		return n, err
	}
	w.buf = append(w.buf, p...)
	return len(p), nil
}

// Flush writes out what is buffered.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.flushLocked()
}

func (w *Writer) flushLocked() error {
	if w.err != nil || len(w.buf) == 0 {
		return w.err
	}
	_, w.err = w.out.Write(w.buf)
	w.buf = w.buf[:0]
	return w.err
}

// Close stops the interval flushes and writes out what is buffered.
func (w *Writer) Close() error {
	close(w.stop)
	<-w.done
	return w.Flush()
}

// Handler passes records to h, which writes to w, and flushes w after every record of
// level Warn or above.
func Handler(h slog.Handler, w *Writer) slog.Handler { return flushing{h, w} }

type flushing struct {
	slog.Handler
	w *Writer
}

func (f flushing) Handle(ctx context.Context, r slog.Record) error {
	err := f.Handler.Handle(ctx, r)
	if r.Level >= slog.LevelWarn {
		if ferr := f.w.Flush(); err == nil {
			err = ferr
		}
	}
	return err
}

func (f flushing) WithAttrs(as []slog.Attr) slog.Handler {
	return flushing{f.Handler.WithAttrs(as), f.w}
}

func (f flushing) WithGroup(name string) slog.Handler {
	return flushing{f.Handler.WithGroup(name), f.w}
}
