// Package usage counts verifications, the billing unit, and enforces the monthly quota
// and the daily cap of test keys.
//
// The counting rules (spec, "What the service does" 7-8):
//
//   - Calls that share a sessionId count as one verification together: the first lookup,
//     suggest or autocomplete call of a session counts one and opens the session; later calls
//     count nothing; the validate call closes the session. A validate call without an open
//     session counts one. A session is forgotten after an idle time (30 minutes by default),
//     after which the next call counts again. A session covers at most SessionCalls calls:
//     the call after them counts again and starts a new session.
//   - A validate call that follows the validate which closed a session, with the same
//     sessionId and within the idle time, counts nothing: it is the customer confirming the
//     address as typed, or a re-check of the address just validated. It still counts toward
//     the session's SessionCalls. A lookup, suggest or autocomplete call after the closing
//     validate is a new address being entered: it counts one and opens a new session.
//   - Without a sessionId every lookup and every validate counts one, and suggest and
//     autocomplete calls count one per ten: the 1st, 11th, 21st... call of the month counts.
//   - A call is charged when it arrives, so that the quota is enforced before the register
//     is asked, and refunded when the register did not answer it successfully.
//   - Test keys are never charged; the gateway does not call Charge for them.
//
// Counters are per account and calendar month (UTC). The running totals live in Redis when
// one is configured, so that every gateway enforces the same quota, and in memory
// otherwise. Every change is also recorded as a delta and written to a durable Sink
// (Postgres, or a local file) once a second and at shutdown, so a restart loses at most the
// last second.
package usage

import (
	"context"
	"errors"
	"sync/atomic"
	"time"
)

// Call is what kind of call is being counted.
type Call uint8

const (
	Lookup   Call = iota + 1
	Suggest       // suggest and autocomplete
	Validate      // closes a session
)

// Unlimited is the quota of a plan without a monthly limit.
const Unlimited int64 = -1

// ErrQuota: the account has no verifications left this month.
var ErrQuota = errors.New("monthly verification quota used up")

// Charge asks to count one call.
type Charge struct {
	Account string
	// Quota is the account's monthly verifications, or Unlimited.
	Quota   int64
	Call    Call
	Session string // the caller's sessionId, "" when none
	// Units is what a lookup or validate call without a session counts: more than one for a
	// call that verifies several addresses at once (an agent's batch counts its items). 0
	// means 1. Calls in a session and suggest calls follow their own rules and ignore it.
	Units int
}

// SessionCalls is how many calls one session covers; the next call of the same sessionId
// counts again and starts a new session. The spec counts the calls "for one address"
// together: one person entering one address makes a handful of suggest calls and lookups
// and a validate, far below this, while a sessionId kept for ever (every call also renews
// the idle time) would otherwise make any number of addresses one verification.
const SessionCalls = 50

// Receipt says what a charge changed, so that it can be refunded exactly.
type Receipt struct {
	account, month, session string
	// Units is the number of verifications counted (0 or 1, or a batch's items).
	Units  int
	loose  int  // suggest calls without session counted toward the ten
	opened bool // a session was opened (or one that had had its calls started anew)
	closed bool // a validate closed the session (an open one, or a new one it counted)
	// prev is the session's state before this call (see sessionCalls), restored by a
	// refund of an opening or closing call.
	prev   int
	shared bool // applied in Redis rather than in local memory
}

// Zero reports whether nothing was changed (nothing to refund).
func (r Receipt) Zero() bool {
	return r.Units == 0 && r.loose == 0 && !r.opened && !r.closed && !r.inSession()
}

// inSession reports whether the call was one more call of a session that it left as it was,
// open or closed (a validate after the closing one), so that its refund gives back one call
// only.
func (r Receipt) inSession() bool { return r.prev != 0 && !r.opened && !r.closed }

// Totals of one account in one month.
type Totals struct {
	// Verifications counted.
	Verifications int64 `json:"v"`
	// SuggestCalls without a session, the basis of the one-in-ten rule.
	SuggestCalls int64 `json:"s"`
}

func (t *Totals) add(o Totals) {
	t.Verifications += o.Verifications
	t.SuggestCalls += o.SuggestCalls
}

// Delta is a change to an account's month.
type Delta struct {
	Account string
	Month   string
	Totals
}

// Sink keeps usage durably. Add receives deltas, so that several gateways can write to one
// shared sink without coordination.
type Sink interface {
	Get(ctx context.Context, account, month string) (Totals, error)
	Add(ctx context.Context, deltas []Delta) error
}

// Month names the billing month of t.
func Month(t time.Time) string {
	u := t.Unix() // month boundaries are whole seconds: the fraction cannot cross one
	if m := lastMonth.Load(); m != nil && u >= m.start && u < m.end {
		return m.name
	}
	n := t.UTC()
	start := time.Date(n.Year(), n.Month(), 1, 0, 0, 0, 0, time.UTC)
	m := &monthSpan{start: start.Unix(), end: start.AddDate(0, 1, 0).Unix(), name: n.Format("2006-01")}
	lastMonth.Store(m)
	return m.name
}

// lastMonth is the month Month named last: nearly every call names the current month, and
// formatting it anew cost an allocation on every charge.
var lastMonth atomic.Pointer[monthSpan]

// monthSpan is a month's name and its seconds, [start, end) in Unix time.
type monthSpan struct {
	start, end int64
	name       string
}

// day names the day of a daily cap.
func day(t time.Time) string { return t.UTC().Format(time.DateOnly) }

// untilTomorrow is the wait until a daily cap resets.
func untilTomorrow(now time.Time) time.Duration {
	n := now.UTC()
	next := time.Date(n.Year(), n.Month(), n.Day()+1, 0, 0, 0, 0, time.UTC)
	return next.Sub(n)
}

// sessionCalls is the calls a session has had, from its state. A session's state is one
// signed number, the same in memory and in Redis: 0 when there is none, n > 0 when it is
// open and has had n calls, -n when a validate closed it after n calls. A closed session is
// remembered for the idle time, like an open one, so that a validate repeating the closing
// one (a confirmation) is known to belong to the same address; its calls go on counting
// toward SessionCalls, so that repeating validates is not a way round the cap.
func sessionCalls(state int) int { return max(state, -state) }

// decide applies the counting rules to one call given its session's state (see
// sessionCalls) and how many session-less suggest calls the month has seen. It is the
// single statement of the rules; the local state and the Redis script both follow it (the
// script repeats it in Lua and the tests check both against each other). A call that
// neither opens nor closes leaves a session's state as it was, with one call more.
func decide(call Call, n int, hasSession bool, state int, suggestCalls int64) (units, loose int, opens, closes bool) {
	calls := sessionCalls(state)
	switch {
	case hasSession && calls > 0 && calls < SessionCalls && (state > 0 || call == Validate):
		// A later call of an open session, or a validate after the closing one.
		return 0, 0, false, call == Validate && state > 0
	case hasSession:
		// No session is open, it has had its calls, or the address it closed on is followed
		// by a new one: this call counts; a lookup or suggest call opens a session, a
		// validate closes one, so that a confirmation after it counts nothing.
		return 1, 0, call != Validate, call == Validate
	case call == Suggest:
		if suggestCalls%10 == 0 {
			return 1, 1, false, false
		}
		return 0, 1, false, false
	default:
		return max(n, 1), 0, false, false
	}
}

// uncall gives back one call of a session in state, the refund of a call that found it in
// state prev and left it as it was: only while it is still open (or still closed) as then,
// and never its last call, which would forget it.
func uncall(state, prev int) int {
	switch {
	case prev > 0 && state > 1:
		return state - 1
	case prev < 0 && state < -1:
		return state + 1
	}
	return state
}

// nextState is a session's state after a call that decide judged; Lua repeats it too.
func nextState(state, units int, opens, closes bool) int {
	switch {
	case opens:
		return 1
	case closes && units > 0:
		return -1 // a new session, counted and closed by the same validate
	case closes:
		return -(state + 1)
	case state > 0:
		return state + 1
	case state < 0:
		return state - 1
	}
	return 0
}
