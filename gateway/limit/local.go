package limit

import (
	"context"
	"hash/maphash"
	"sync"
	"time"

	"github.com/hashicorp/golang-lru/v2/simplelru"
)

// Local is GCRA in memory, one theoretical arrival time (TAT) per key. Keys live in
// size-bounded LRUs: a key whose TAT has passed is the same as an absent one, so evicting
// the least recently used keys loses nothing that matters, and no clean-up goroutine is
// needed. Sharded so that concurrent requests for different keys rarely share a lock.
type Local struct {
	seed   maphash.Seed
	shards [localShards]localShard
	now    func() time.Time
}

const localShards = 32

type localShard struct {
	mu sync.Mutex
	// tat holds each key's TAT by pointer, so that a call updates it where it found it
	// instead of looking the key up a second time to store it.
	tat *simplelru.LRU[string, *time.Time]
}

// NewLocal keeps up to size keys.
func NewLocal(size int) *Local {
	per := max(size/localShards, 64)
	l := &Local{seed: maphash.MakeSeed(), now: time.Now}
	for i := range l.shards {
		lru, _ := simplelru.NewLRU[string, *time.Time](per, nil) // size > 0: cannot fail
		l.shards[i].tat = lru
	}
	return l
}

// Allow never fails.
func (l *Local) Allow(_ context.Context, key string, r Rule) (Result, error) {
	return l.AllowAt(key, r, l.now()), nil
}

// AllowAt is Allow at a given time, mirroring redis_rate's script step by step.
func (l *Local) AllowAt(key string, r Rule, now time.Time) Result {
	s := &l.shards[maphash.String(l.seed, key)%localShards]
	emission := r.emission()
	burstOffset := emission * time.Duration(r.Burst)

	s.mu.Lock()
	defer s.mu.Unlock()
	cell, known := s.tat.Get(key)
	tat := now
	if known && !cell.Before(now) {
		tat = *cell
	}
	newTat := tat.Add(emission)
	diff := now.Sub(newTat.Add(-burstOffset))
	if diff < 0 {
		return Result{RetryAfter: -diff, ResetAfter: tat.Sub(now)}
	}
	if known {
		*cell = newTat
	} else {
		c := newTat // a variable of its own: &newTat would put newTat on the heap on every call
		s.tat.Add(key, &c)
	}
	return Result{Allowed: true, Remaining: int(diff / emission), ResetAfter: newTat.Sub(now)}
}
