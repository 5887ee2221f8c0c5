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

// activityLog collects activity rows between flushes. It keeps two maps and swaps them, and
// clears the one written rather than dropping it, so that a busy gateway's calls find their
// rows' slots already there and record without allocating.
type activityLog struct {
	mu   sync.Mutex
	rows map[activityKey]activityCount
	// spare is the map the next take installs: the one the last flush wrote, cleared.
	spare map[activityKey]activityCount
}

func newActivityLog() *activityLog {
	return &activityLog{rows: map[activityKey]activityCount{}, spare: map[activityKey]activityCount{}}
}

// unixDay is the UTC day of t as a day number.
func unixDay(t time.Time) int32 { return int32(t.Unix() / 86400) }

// add counts one answered call.
func (l *activityLog) add(account, key, route string, verifications int, now time.Time) {
	k := activityKey{account: account, key: key, route: route, day: unixDay(now)}
	c := activityCount{calls: 1, verifications: int64(verifications), last: now.UnixMicro()}
	l.mu.Lock()
	l.rows[k] = l.rows[k].plus(c)
	l.mu.Unlock()
}

// take hands over the rows counted so far; give them back with done.
func (l *activityLog) take() map[activityKey]activityCount {
	l.mu.Lock()
	defer l.mu.Unlock()
	taken := l.rows
	if l.spare == nil { // the last take's rows were not given back
		l.spare = map[activityKey]activityCount{}
	}
	l.rows, l.spare = l.spare, nil
	return taken
}

// done returns taken rows after a flush: when it failed they are merged into the rows
// counted since, for the next flush; either way their map becomes the spare.
func (l *activityLog) done(taken map[activityKey]activityCount, failed bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if failed {
		for k, c := range taken {
			l.rows[k] = l.rows[k].plus(c)
		}
	}
	clear(taken)
	l.spare = taken
}

// activityRows turns taken rows into the sink's form.
func activityRows(taken map[activityKey]activityCount) []Activity {
	out := make([]Activity, 0, len(taken))
	for k, c := range taken {
		out = append(out, Activity{
			Account: k.account, Key: k.key, Route: k.route,
			Day:   time.Unix(int64(k.day)*86400, 0).UTC().Format(time.DateOnly),
			Calls: c.calls, Verifications: c.verifications, LastUsed: time.UnixMicro(c.last).UTC(),
		})
	}
	return out
}
