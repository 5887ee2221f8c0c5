package usage

import (
	"sync"
	"time"
)

// local is the in-memory state: the only state of a gateway without Redis, and the
// fallback of one with Redis while Redis is unavailable.
type local struct {
	mu        sync.Mutex
	totals    map[acctMonth]*tally
	sessions  map[string]session // account + "\x00" + sessionId
	daily     map[string]int     // key id → calls today
	dailyDay  string
	lastSweep time.Time
}

type acctMonth struct{ account, month string }

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
		sessions: map[string]session{},
		daily:    map[string]int{},
	}
}

func sessionKey(account, session string) string { return account + "\x00" + session }

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

// seeded reports whether k's totals include the durable ones.
func (l *local) seeded(k acctMonth) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	t, ok := l.totals[k]
	return ok && t.seeded
}

// installLocked sets k's totals to what the durable sink and this process's unflushed
// changes add up to. l.mu must be held, so that no charge is noted meanwhile.
func (l *local) installLocked(k acctMonth, t Totals) {
	l.totals[k] = &tally{Totals: t, seeded: true}
}

// charge applies the rules. It never waits: an account whose totals were not read is
// counted on what is known (see tally). note is called with the receipt under the lock, so
// that a read of the durable totals sees every charge either in the totals or in the notes.
func (l *local) charge(c Charge, month string, now time.Time, idle time.Duration, note func(Receipt)) (Receipt, error) {
	k := acctMonth{c.Account, month}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sweep(now, idle)
	t, ok := l.totals[k]
	if !ok {
		t = &tally{}
		l.totals[k] = t
	}
	sk := ""
	state := 0 // of the session, while it is remembered
	if c.Session != "" {
		sk = sessionKey(c.Account, c.Session)
		if s, ok := l.sessions[sk]; ok && now.Before(s.expires) {
			state = s.state
		}
	}
	units, loose, opens, closes := decide(c.Call, c.Units, c.Session != "", state, t.SuggestCalls)
	if units > 0 && c.Quota != Unlimited && t.Verifications+int64(units) > c.Quota {
		return Receipt{}, ErrQuota
	}
	t.Verifications += int64(units)
	t.SuggestCalls += int64(loose)
	if next := nextState(state, units, opens, closes); next != 0 {
		l.sessions[sk] = session{expires: now.Add(idle), state: next} // remembered for another idle time
	}
	r := Receipt{account: c.Account, month: month, session: c.Session,
		Units: units, loose: loose, opened: opens, closed: closes, prev: state}
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
	sk := sessionKey(r.account, r.session)
	switch {
	case (r.opened || r.closed) && r.prev == 0:
		delete(l.sessions, sk)
	case r.opened, r.closed:
		l.sessions[sk] = session{expires: now.Add(idle), state: r.prev}
	case r.inSession():
		// Other calls of the session may have come since: give back one call, not a state,
		// and only to the session as the call found it, open or closed. A new session opened
		// since (a closed one followed by a lookup) did not have this call.
		if s, ok := l.sessions[sk]; ok {
			s.state = uncall(s.state, r.prev)
			l.sessions[sk] = s
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

// countDaily counts calls of a capped key today if they fit within its limit.
func (l *local) countDaily(key string, limit, calls int, now time.Time) bool {
	d := day(now)
	l.mu.Lock()
	defer l.mu.Unlock()
	if d != l.dailyDay {
		clear(l.daily)
		l.dailyDay = d
	}
	if l.daily[key]+calls > limit {
		return false
	}
	l.daily[key] += calls
	return true
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
