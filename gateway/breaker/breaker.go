// Package breaker decides when the gateway talks to Redis and when it keeps to its own
// memory. Redis shares limits and counters between gateways, but a checkout must never wait
// on it: when Redis fails or is slow the gateway serves on local state and probes Redis now
// and then until it answers again.
package breaker

import (
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// Breaker is open (local only) after a failure and lets one probe through per interval.
type Breaker struct {
	name  string
	retry time.Duration
	log   *slog.Logger

	down      atomic.Bool
	mu        sync.Mutex
	nextProbe time.Time
}

// New makes a closed breaker. name says what it guards, for the log.
func New(name string, retry time.Duration, log *slog.Logger) *Breaker {
	if log == nil {
		log = slog.Default()
	}
	return &Breaker{name: name, retry: retry, log: log}
}

// Use reports whether to try the shared backend now: always while it is healthy, and for
// one caller per retry interval while it is down.
func (b *Breaker) Use(now time.Time) bool {
	if !b.down.Load() {
		return true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if now.Before(b.nextProbe) {
		return false
	}
	b.nextProbe = now.Add(b.retry)
	return true
}

// Fail records a failed call. It reports whether this failure took the backend down.
func (b *Breaker) Fail(now time.Time, err error) bool {
	b.mu.Lock()
	b.nextProbe = now.Add(b.retry)
	b.mu.Unlock()
	if b.down.Swap(true) {
		return false
	}
	// The error comes from the Redis client: addresses and commands, never request data.
	b.log.Warn("shared state unavailable, serving from local state", "component", b.name, "error", err)
	return true
}

// Succeed records a successful call. It reports whether the backend just came back.
func (b *Breaker) Succeed() bool {
	if !b.down.Load() {
		return false
	}
	if !b.down.Swap(false) {
		return false
	}
	b.log.Info("shared state available again", "component", b.name)
	return true
}

// Down reports whether the backend is considered down.
func (b *Breaker) Down() bool { return b.down.Load() }
