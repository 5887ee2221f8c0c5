package usage

import (
	"context"
	"sync"
	"time"
)

// local is the in-memory state: the only state of a gateway without Redis, and the
// fallback of one with Redis while Redis is unavailable.
type local struct {
	mu        sync.Mutex
	totals    map[acctMonth]*Totals
	sessions  map[string]time.Time // account + "\x00" + sessionId → expiry
	daily     map[string]int       // key id → calls today
	dailyDay  string
	lastSweep time.Time
}

type acctMonth struct{ account, month string }

func newLocal() *local {
	return &local{
		totals:   map[acctMonth]*Totals{},
		sessions: map[string]time.Time{},
		daily:    map[string]int{},
	}
}

func sessionKey(account, session string) string { return account + "\x00" + session }

// forget drops the running totals so that they are read again from the durable sink: when
// Redis goes down, its totals may be ahead of what this process last saw.
func (l *local) forget() {
	l.mu.Lock()
	clear(l.totals)
	l.mu.Unlock()
}

// charge applies the rules. seed loads the account's month when it is not in memory; it
// is called without the lock held, because it may read a database.
func (l *local) charge(ctx context.Context, c Charge, month string, now time.Time, idle time.Duration,
	seed func(context.Context, string, string) (Totals, error)) (Receipt, error) {
	k := acctMonth{c.Account, month}
	l.mu.Lock()
	_, loaded := l.totals[k]
	l.mu.Unlock()
	if !loaded {
		t, err := seed(ctx, c.Account, month)
		if err != nil {
			return Receipt{}, err
		}
		l.mu.Lock()
		if _, ok := l.totals[k]; !ok {
			l.totals[k] = &t
		}
		l.mu.Unlock()
	}

	l.mu.Lock()
	defer l.mu.Unlock()
	l.sweep(now, idle)
	t := l.totals[k]
	sk := ""
	open := false
	if c.Session != "" {
		sk = sessionKey(c.Account, c.Session)
		exp, ok := l.sessions[sk]
		open = ok && now.Before(exp)
	}
	units, loose, opens, closes := decide(c.Call, c.Units, c.Session != "", open, t.SuggestCalls)
	if units > 0 && c.Quota != Unlimited && t.Verifications+int64(units) > c.Quota {
		return Receipt{}, ErrQuota
	}
	t.Verifications += int64(units)
	t.SuggestCalls += int64(loose)
	switch {
	case closes:
		delete(l.sessions, sk)
	case opens || open:
		l.sessions[sk] = now.Add(idle) // opened, or kept open for another idle time
	}
	return Receipt{account: c.Account, month: month, session: c.Session,
		Units: units, loose: loose, opened: opens, closed: closes}, nil
}

// refund undoes a receipt applied here.
func (l *local) refund(r Receipt, now time.Time, idle time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if t, ok := l.totals[acctMonth{r.account, r.month}]; ok {
		t.Verifications -= int64(r.Units)
		t.SuggestCalls -= int64(r.loose)
	}
	sk := sessionKey(r.account, r.session)
	switch {
	case r.opened:
		delete(l.sessions, sk)
	case r.closed:
		l.sessions[sk] = now.Add(idle)
	}
}

// sweep forgets idle sessions, at most once per minute so a busy gateway does not walk the
// map on every call.
func (l *local) sweep(now time.Time, idle time.Duration) {
	if now.Sub(l.lastSweep) < min(idle, time.Minute) {
		return
	}
	l.lastSweep = now
	for k, exp := range l.sessions {
		if !now.Before(exp) {
			delete(l.sessions, k)
		}
	}
}

// countDaily counts one call of a capped key today and reports whether it is within cap.
func (l *local) countDaily(key string, limit int, now time.Time) bool {
	d := day(now)
	l.mu.Lock()
	defer l.mu.Unlock()
	if d != l.dailyDay {
		clear(l.daily)
		l.dailyDay = d
	}
	l.daily[key]++
	return l.daily[key] <= limit
}

// used returns the totals in memory, if loaded.
func (l *local) used(account, month string) (Totals, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	t, ok := l.totals[acctMonth{account, month}]
	if !ok {
		return Totals{}, false
	}
	return *t, true
}
