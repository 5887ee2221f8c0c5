package usage

import (
	"sync"
	"time"
)

// Record counts a call answered with a 2xx status in its account's activity: one call of
// credential key on route today (UTC), with the verifications it finally counted (after
// refunds: 0 for a test key, a HEAD, a call in an open session). It is on every request's
// path, so it does no I/O and, once a credential's row of the day exists, allocates
// nothing: the row goes to the sink with the next flush.
func (m *Meter) Record(account, key, route string, verifications int) {
	m.activity.add(account, key, route, verifications, m.now())
}

// activityKey names a row while it is counted in memory. The day is a number, so that a
// call costs no formatting; the strings are the principal's own and the route's constant
// name, so that a call builds nothing.
type activityKey struct {
	account, key, route string
	day                 int32 // days since 1970-01-01, UTC
}

// activityCount is a row's counts while in memory.
type activityCount struct {
	calls, verifications int64
	last                 int64 // Unix microseconds
}

// plus merges two counts of one row: counts add up, the later time stays.
func (c activityCount) plus(o activityCount) activityCount {
	return activityCount{calls: c.calls + o.calls, verifications: c.verifications + o.verifications, last: max(c.last, o.last)}
}

// activityLog collects activity rows between flushes. A row is kept by pointer and zeroed
// in place when it is flushed, so that a call of a credential in use finds its row with one
// map lookup and records without allocating; a row without calls for a whole flush interval
// is dropped, so that the map holds only the credentials in use.
type activityLog struct {
	mu   sync.Mutex
	rows map[activityKey]*activityCount
}

// pendingRow is a row's counts handed to a flush.
type pendingRow struct {
	key   activityKey
	count activityCount
}

func newActivityLog() *activityLog {
	return &activityLog{rows: map[activityKey]*activityCount{}}
}

// unixDay is the UTC day of t as a day number.
func unixDay(t time.Time) int32 { return int32(t.Unix() / 86400) }

// add counts one answered call.
func (l *activityLog) add(account, key, route string, verifications int, now time.Time) {
	k := activityKey{account: account, key: key, route: route, day: unixDay(now)}
	us := now.UnixMicro()
	l.mu.Lock()
	c := l.rows[k]
	if c == nil {
		c = new(activityCount)
		l.rows[k] = c
	}
	c.calls++
	c.verifications += int64(verifications)
	c.last = max(c.last, us)
	l.mu.Unlock()
}

// take hands over the counts since the last take, zeroing them, and drops the rows that
// had none.
func (l *activityLog) take() []pendingRow {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []pendingRow
	for k, c := range l.rows {
		if c.calls == 0 {
			delete(l.rows, k)
			continue
		}
		out = append(out, pendingRow{key: k, count: *c})
		*c = activityCount{}
	}
	return out
}

// giveBack adds the counts of a flush that failed to those counted since, for the next
// flush.
func (l *activityLog) giveBack(rows []pendingRow) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, r := range rows {
		c := l.rows[r.key]
		if c == nil {
			c = new(activityCount)
			l.rows[r.key] = c
		}
		*c = c.plus(r.count)
	}
}

// activityRows turns taken rows into the sink's form.
func activityRows(rows []pendingRow) []Activity {
	out := make([]Activity, 0, len(rows))
	for _, r := range rows {
		k, c := r.key, r.count
		out = append(out, Activity{
			Account: k.account, Key: k.key, Route: k.route,
			Day:   time.Unix(int64(k.day)*86400, 0).UTC().Format(time.DateOnly),
			Calls: c.calls, Verifications: c.verifications, LastUsed: time.UnixMicro(c.last).UTC(),
		})
	}
	return out
}
