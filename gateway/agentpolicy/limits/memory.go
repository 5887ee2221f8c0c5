package limits

import (
	"context"
	"sync"
	"time"
)

// Memory is a Store for one process. Entries that have expired are swept now and then while
// it is used, so it needs no goroutine and holds only the accounts active in the last day.
type Memory struct {
	now func() time.Time

	mu       sync.Mutex
	tat      map[string]time.Time
	counters map[string]counter
	ops      int
}

type counter struct {
	n       int64
	expires time.Time
}

// sweepEvery is how many operations pass between sweeps of expired entries: often enough to
// bound memory by the active keys, rarely enough to cost nothing per call.
const sweepEvery = 4096

// NewMemory returns an empty store. now is its clock; nil means time.Now.
func NewMemory(now func() time.Time) *Memory {
	if now == nil {
		now = time.Now
	}
	return &Memory{now: now, tat: make(map[string]time.Time), counters: make(map[string]counter)}
}

// Spend follows the steps documented on Store.
func (m *Memory) Spend(_ context.Context, key string, r Rate, cost int) (RateResult, error) {
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.maybeSweep(now)
	tat, ok := m.tat[key]
	if !ok || tat.Before(now) {
		tat = now
	}
	need := time.Duration(min(cost, r.Burst)) * r.Emission
	limit := time.Duration(r.Burst) * r.Emission
	if over := tat.Add(need).Sub(now) - limit; over > 0 {
		return RateResult{RetryAfter: over}, nil
	}
	m.tat[key] = tat.Add(time.Duration(cost) * r.Emission)
	return RateResult{Allowed: true}, nil
}

// Add follows the contract documented on Store.
func (m *Memory) Add(_ context.Context, key string, n int64, ttl time.Duration) (int64, error) {
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.maybeSweep(now)
	c, ok := m.counters[key]
	if !ok || !now.Before(c.expires) {
		c = counter{expires: now.Add(ttl)}
	}
	c.n += n
	m.counters[key] = c
	return c.n, nil
}

// Len is the number of keys held, expired ones not yet swept included.
func (m *Memory) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.tat) + len(m.counters)
}

func (m *Memory) maybeSweep(now time.Time) {
	m.ops++
	if m.ops < sweepEvery {
		return
	}
	m.ops = 0
	for k, t := range m.tat {
		if t.Before(now) {
			delete(m.tat, k)
		}
	}
	for k, c := range m.counters {
		if !now.Before(c.expires) {
			delete(m.counters, k)
		}
	}
}

var _ Store = (*Memory)(nil)
