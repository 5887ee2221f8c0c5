package usage

import (
	"strings"
	"sync"
	"time"
)

// local is the in-memory state: the only state of a gateway without Redis, and the
// fallback of one with Redis while Redis is unavailable.
type local struct {
	mu        sync.Mutex
	totals    map[acctMonth]*tally
	sessions  map[acctSession]*session
	daily     map[string]int // key id → calls today
	dailyDay  string
	lastSweep time.Time
}

type acctMonth struct{ account, month string }

// acctSession names a session. Sessions are kept by pointer and changed in place, so that a
// later call of a session finds it without building a key and stores nothing.
type acctSession struct{ account, session string }

// session is a session remembered: until when, and its state (see sessionCalls).
type session struct {
	expires time.Time
	state   int
}

// tally is an account's month as this process knows it.
type tally struct {
	Totals
	// seeded: the totals include the durable ones. Until they are read, the account is
	// counted from what this process knew, a lower bound that still refuses an account
	// known to be over its quota.
	seeded bool
}

func newLocal() *local {
	return &local{
		totals:   map[acctMonth]*tally{},
		sessions: map[acctSession]*session{},
		daily:    map[string]int{},
	}
}

// remember sets a session's state and expiry, adding the session when it is not known; s is
// what the map holds for it (nil when nothing).
func (l *local) remember(s *session, account, id string, expires time.Time, state int) {
	if s == nil {
		// Its own copy of the id: the caller's may point into a whole request.
		s = &session{}
		l.sessions[acctSession{account, strings.Clone(id)}] = s
	}
	s.expires, s.state = expires, state
}

// forget marks the running totals as needing the durable sink again: when Redis goes down,
// its totals may be ahead of what this process last saw. They are kept meanwhile, as a lower
// bound.
func (l *local) forget() {
	l.mu.Lock()
	for _, t := range l.totals {
		t.seeded = false
	}
	l.mu.Unlock()
}

// installLocked sets k's totals to what the durable sink and this process's unflushed
// changes add up to. l.mu must be held, so that no charge is noted meanwhile.
func (l *local) installLocked(k acctMonth, t Totals) {
	l.totals[k] = &tally{Totals: t, seeded: true}
}

// charge applies the rules. It never waits: an account whose totals were not read is
// counted on what is known (see tally), or, when seeded is set, not counted (errNeedSeed),
// so that the caller can first wait for them without a second trip through the lock. note
// is called with the receipt under the lock, so that a read of the durable totals sees every
// charge either in the totals or in the notes.
func (l *local) charge(c Charge, month string, now time.Time, idle time.Duration, note func(Receipt), seeded bool) (Receipt, error) {
	k := acctMonth{c.Account, month}
	l.mu.Lock()
	defer l.mu.Unlock()
	t, ok := l.totals[k]
	if seeded && (!ok || !t.seeded) {
		return Receipt{}, errNeedSeed
	}
	l.sweep(now, idle)
	if !ok {
		t = &tally{}
		l.totals[k] = t
	}
	var s *session
	state := 0 // of the session, while it is remembered
	if c.Session != "" {
		s = l.sessions[acctSession{c.Account, c.Session}]
		if s != nil && now.Before(s.expires) {
			state = s.state
		}
	}
	units, loose, next, moved := decide(c, state, t.SuggestCalls)
	if units > 0 && c.Quota != Unlimited && t.Verifications+int64(units) > c.Quota {
		return Receipt{}, ErrQuota
	}
	t.Verifications += int64(units)
	t.SuggestCalls += int64(loose)
	switch {
	case next != 0:
		l.remember(s, c.Account, c.Session, now.Add(idle), next) // for another idle time
	case s != nil:
		delete(l.sessions, acctSession{c.Account, c.Session}) // ended: its next call counts
	}
	r := Receipt{account: c.Account, month: month, session: c.Session,
		Units: units, loose: loose, moved: moved, prev: state}
	note(r)
	return r, nil
}

// refund undoes a receipt applied here; note as for charge.
func (l *local) refund(r Receipt, now time.Time, idle time.Duration, note func(Receipt)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	note(r)
	if t, ok := l.totals[acctMonth{r.account, r.month}]; ok {
		t.Verifications -= int64(r.Units)
		t.SuggestCalls -= int64(r.loose)
	}
	sk := acctSession{r.account, r.session}
	switch {
	case r.moved && r.prev == 0:
		delete(l.sessions, sk)
	case r.moved:
		l.remember(l.sessions[sk], r.account, r.session, now.Add(idle), r.prev)
	case r.inSession():
		// Other calls of the session may have come since: give back one call, not a state,
		// and only while the session is open as the call found it (see uncall).
		if s := l.sessions[sk]; s != nil {
			s.state = uncall(s.state)
		}
	}
}

// sweep forgets idle sessions, at most once per minute so a busy gateway does not walk the
// map on every call.
func (l *local) sweep(now time.Time, idle time.Duration) {
	if now.Sub(l.lastSweep) < min(idle, time.Minute) {
		return
	}
	l.lastSweep = now
	for k, s := range l.sessions {
		if !now.Before(s.expires) {
			delete(l.sessions, k)
		}
	}
}

// countDaily counts calls of a capped key today if they fit within its limit, and returns
// what is left of it.
func (l *local) countDaily(key string, limit, calls int, now time.Time) (bool, int) {
	d := Day(now)
	l.mu.Lock()
	defer l.mu.Unlock()
	if d != l.dailyDay {
		clear(l.daily)
		l.dailyDay = d
	}
	if l.daily[key]+calls > limit {
		return false, max(limit-l.daily[key], 0)
	}
	l.daily[key] += calls
	return true, limit - l.daily[key]
}

// dailyCalls returns a capped key's calls today, as countDaily counted them.
func (l *local) dailyCalls(key string, now time.Time) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.dailyDay != Day(now) {
		return 0
	}
	return l.daily[key]
}

// used returns the totals in memory, if they include the durable ones.
func (l *local) used(account, month string) (Totals, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	t, ok := l.totals[acctMonth{account, month}]
	if !ok || !t.seeded {
		return Totals{}, false
	}
	return t.Totals, true
}
