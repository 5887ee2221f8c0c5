// Package oplog writes the gateway's operational log lines that can repeat with every
// request: a store or the workers unavailable. During an outage such a line would be
// written hundreds of times a second, burying the one line that says when it began and
// costing the disk and the log pipeline most when the service is already struggling. So
// the first occurrence of a message is written at once, and later ones within the interval
// are only counted and written as one summary line per interval, with the count, for as
// long as they go on.
//
// Lines are throttled by message, not by their attributes: the attributes of a summary are
// those of the last occurrence. Like every log line of the gateway they must never carry a
// submitted value.
package oplog

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// DefaultEvery is the interval of summaries: short enough that an operator watching the
// log sees an outage go on, long enough that it costs a handful of lines a minute.
const DefaultEvery = 10 * time.Second

// Throttle throttles lines by message. The zero value is not usable; use New.
type Throttle struct {
	log   *slog.Logger
	every time.Duration
	// after schedules the end of an interval; tests replace it to run intervals by hand.
	after func(time.Duration, func()) stopper

	mu     sync.Mutex
	lines  map[string]*line
	closed bool
}

type stopper interface{ Stop() bool }

// line is one message whose interval is running.
type line struct {
	level      slog.Level
	args       []any // of the last occurrence
	suppressed int
	timer      stopper
}

// New throttles lines written to log, summarising once per every (DefaultEvery when not
// positive).
func New(log *slog.Logger, every time.Duration) *Throttle {
	if log == nil {
		log = slog.Default()
	}
	if every <= 0 {
		every = DefaultEvery
	}
	return &Throttle{log: log, every: every, lines: map[string]*line{},
		after: func(d time.Duration, f func()) stopper { return time.AfterFunc(d, f) }}
}

// Warn logs at warn level, throttled.
func (t *Throttle) Warn(msg string, args ...any) { t.Log(slog.LevelWarn, msg, args...) }

// Error logs at error level, throttled.
func (t *Throttle) Error(msg string, args ...any) { t.Log(slog.LevelError, msg, args...) }

// Info logs at info level, throttled.
func (t *Throttle) Info(msg string, args ...any) { t.Log(slog.LevelInfo, msg, args...) }

// Log writes msg now when it was not written within the interval, and counts it otherwise.
func (t *Throttle) Log(level slog.Level, msg string, args ...any) {
	t.mu.Lock()
	if l, ok := t.lines[msg]; ok {
		l.suppressed++
		l.level, l.args = level, args
		t.mu.Unlock()
		return
	}
	if !t.closed {
		t.lines[msg] = &line{timer: t.after(t.every, func() { t.tick(msg) })}
	}
	t.mu.Unlock()
	t.log.Log(context.Background(), level, msg, args...)
}

// tick ends an interval of msg: it writes the summary of what was counted and starts the
// next interval, or, when nothing was, lets the next occurrence be written at once.
func (t *Throttle) tick(msg string) {
	t.mu.Lock()
	l, ok := t.lines[msg]
	if !ok {
		t.mu.Unlock()
		return
	}
	if l.suppressed == 0 {
		delete(t.lines, msg)
		t.mu.Unlock()
		return
	}
	done := *l
	l.suppressed, l.args = 0, nil
	l.timer = t.after(t.every, func() { t.tick(msg) })
	t.mu.Unlock()
	t.summary(msg, &done)
}

func (t *Throttle) summary(msg string, l *line) {
	args := append(append([]any(nil), l.args...), "repeated", l.suppressed, "within", t.every.String())
	t.log.Log(context.Background(), l.level, msg, args...)
}

// Close writes the summaries of the intervals that are running and stops their timers;
// later lines are written unthrottled. A configuration being replaced calls it, so that no
// count is lost and no timer outlives it.
func (t *Throttle) Close() {
	t.mu.Lock()
	t.closed = true
	var pending []struct {
		msg string
		l   line
	}
	for msg, l := range t.lines {
		l.timer.Stop()
		if l.suppressed > 0 {
			pending = append(pending, struct {
				msg string
				l   line
			}{msg, *l})
		}
		delete(t.lines, msg)
	}
	t.mu.Unlock()
	for _, p := range pending {
		t.summary(p.msg, &p.l)
	}
}
