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
	closed bool
	// inSession: the call was one more call of an open session, which it did not close.
	inSession bool
	// prev is the calls of the session before this call (0: none was open), restored by a
	// refund of an opening or closing call.
	prev   int
	shared bool // applied in Redis rather than in local memory
}

// Zero reports whether nothing was changed (nothing to refund).
func (r Receipt) Zero() bool {
	return r.Units == 0 && r.loose == 0 && !r.opened && !r.closed && !r.inSession
}

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
func Month(t time.Time) string { return t.UTC().Format("2006-01") }

// day names the day of a daily cap.
func day(t time.Time) string { return t.UTC().Format(time.DateOnly) }

// untilTomorrow is the wait until a daily cap resets.
func untilTomorrow(now time.Time) time.Duration {
	n := now.UTC()
	next := time.Date(n.Year(), n.Month(), n.Day()+1, 0, 0, 0, 0, time.UTC)
	return next.Sub(n)
}

// decide applies the counting rules to one call given how many calls its session has had
// (0: no session is open) and how many session-less suggest calls the month has seen. It is
// the single statement of the rules; the local state and the Redis script both follow it
// (the script repeats it in Lua and the tests check both against each other).
func decide(call Call, n int, hasSession bool, sessionCalls int, suggestCalls int64) (units, loose int, opens, closes bool) {
	switch {
	case hasSession && sessionCalls > 0 && sessionCalls < SessionCalls:
		return 0, 0, false, call == Validate
	case hasSession:
		// No session is open, or it has had its calls: this call counts; a lookup or suggest
		// call opens a session, a validate ends the spent one.
		return 1, 0, call != Validate, call == Validate && sessionCalls > 0
	case call == Suggest:
		if suggestCalls%10 == 0 {
			return 1, 1, false, false
		}
		return 0, 1, false, false
	default:
		return max(n, 1), 0, false, false
	}
}
