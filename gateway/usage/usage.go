// Package usage counts verifications, the billing unit, and enforces the monthly quota
// and the daily cap of test keys.
//
// The counting rules (spec, "What the service does" 7-8):
//
//   - Calls that share a sessionId count as one verification together with the validate
//     call that ends them: the first lookup, suggest or autocomplete call of a session counts
//     one and opens the session; later calls count nothing; a validate call ends the session.
//     The next call of the sessionId after that validate, another validate as much as a
//     lookup, suggest or autocomplete call, is another address: it counts one and starts
//     anew. A validate call without an open session counts one and ends the session it
//     starts. A session is forgotten after an idle time (30 minutes by default), after which
//     the next call counts again. A session covers at most SessionCalls calls: the call after
//     them counts again and starts a new session.
//   - The one exception: a validate with customerConfirmed (Charge.Confirmed) that comes
//     right after the validate that ended a session, with the same sessionId and within the
//     idle time, counts nothing. It is the address form validating again, after the customer
//     confirmed it as typed, the address just validated: the same address. That confirmation
//     ends the session for good, and so does a validate that was itself a confirmation: one
//     free confirmation follows one ending validate, so that neither repeating a confirmation
//     nor sending customerConfirmed on every validate makes several addresses one
//     verification.
//   - Without a sessionId every lookup and every validate counts one, and suggest and
//     autocomplete calls count one per ten: the 1st, 11th, 21st... call of the month counts.
//   - A call is charged when it arrives, so that the quota is enforced before the register
//     is asked, and refunded when the register did not answer it successfully.
//   - Test keys are never charged; the gateway does not call Charge for them.
//
// Every call answered with a 2xx status is also recorded (Meter.Record) as activity: per
// account, credential, UTC day and route, its calls, the verifications it finally counted
// and when it came. The activity goes to the sink with the deltas, and the dashboard reads
// both back through a Reader.
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
	// Confirmed marks a validate call with customerConfirmed: the customer confirmed the
	// address as typed, which makes it free right after the validate that ended its session
	// (see the package doc).
	Confirmed bool
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
	Units int
	loose int // suggest calls without session counted toward the ten
	// moved: the call opened, closed or ended the session, or started it anew, rather than
	// being one more call of an open session, so that its refund restores prev.
	moved bool
	// prev is the session's state before this call (see sessionCalls).
	prev   int
	shared bool // applied in Redis rather than in local memory
}

// Part is the receipt of n of r's units, so that part of a charge can be given back: an
// agent's batch charges one unit per address, and the addresses the answer shows were never
// checked (unusable input, a country without a register) are not counted. Only a charge
// without a session, which changed nothing but the units, can be split; ok is false for
// others, and when n is not between 1 and r.Units.
func (r Receipt) Part(n int) (part Receipt, ok bool) {
	if r.session != "" || r.loose != 0 || r.moved || r.prev != 0 || n < 1 || n > r.Units {
		return Receipt{}, false
	}
	r.Units = n
	return r, true
}

// Zero reports whether nothing was changed (nothing to refund).
func (r Receipt) Zero() bool {
	return r.Units == 0 && r.loose == 0 && !r.moved && !r.inSession()
}

// inSession reports whether the call was one more call of an open session that it left
// open, so that its refund gives back one call only: other calls of the session may have
// come since.
func (r Receipt) inSession() bool { return r.prev > 0 && !r.moved }

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

// Sink keeps usage durably. Add receives deltas and activity counts, so that several
// gateways can write to one shared sink without coordination; it takes a whole batch or
// none of it, so that the Meter can send a failed batch again.
type Sink interface {
	Get(ctx context.Context, account, month string) (Totals, error)
	Add(ctx context.Context, b Batch) error
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

// Day names the UTC day of t, "YYYY-MM-DD": the day of a daily cap and of an activity row.
func Day(t time.Time) string { return t.UTC().Format(time.DateOnly) }

// untilTomorrow is the wait until a daily cap resets.
func untilTomorrow(now time.Time) time.Duration {
	n := now.UTC()
	next := time.Date(n.Year(), n.Month(), n.Day()+1, 0, 0, 0, 0, time.UTC)
	return next.Sub(n)
}

// sessionCalls is the calls a session has had, from its state. A session's state is one
// signed number, the same in memory and in Redis: 0 when there is none (or it ended), n > 0
// when it is open and has had n calls, -n when a validate closed it after n calls. A closed
// session is remembered for the idle time, like an open one, so that the confirmation of the
// validate that closed it is known to belong to the same address; it is the one call a
// closed session does not count.
func sessionCalls(state int) int { return max(state, -state) }

// decide applies the counting rules to one call given its session's state (see
// sessionCalls) and how many session-less suggest calls the month has seen. It is the
// single statement of the rules; the local state and the Redis script both follow it (the
// script repeats it in Lua and the tests run every case against both). It returns the
// verifications and session-less suggest calls the call counts, the session's state after
// it (0: forget the session) and whether the call moved the session on (Receipt.moved).
func decide(c Charge, state int, suggestCalls int64) (units, loose, next int, moved bool) {
	calls := sessionCalls(state)
	switch {
	case c.Session == "" && c.Call == Suggest:
		if suggestCalls%10 == 0 {
			return 1, 1, 0, false
		}
		return 0, 1, 0, false
	case c.Session == "":
		return max(c.Units, 1), 0, 0, false
	case calls == 0 || calls >= SessionCalls || state < 0 && !(c.Call == Validate && c.Confirmed):
		// No session, one that has had its calls, or one that a validate ended: this call is
		// another address, and counts.
		return 1, 0, after(c, 1), true
	case state > 0:
		// A later call of an open session: free; a validate ends the session.
		return 0, 0, after(c, state+1), c.Call == Validate
	default:
		// The confirmation of the validate that closed the session: the same address, and
		// the end of the session.
		return 0, 0, 0, true
	}
}

// after is a session's state after c, its calls-th call: open after a lookup or suggest
// call; closed after a validate, so that its confirmation may follow; ended (forgotten)
// after a validate that was itself a confirmation, which no free confirmation follows.
func after(c Charge, calls int) int {
	switch {
	case c.Call != Validate:
		return calls
	case c.Confirmed:
		return 0
	}
	return -calls
}

// uncall gives back one call of an open session in state, the refund of a call that found
// it open and left it open: only while it is still open, and never its last call, which
// would forget it.
func uncall(state int) int {
	if state > 1 {
		return state - 1
	}
	return state
}
