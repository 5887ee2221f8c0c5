// Package limits holds the agent interface's limits per account: a rate of tool calls with
// bursts, a daily cap, and the refusal of a request repeated in a loop. They sit on top of
// the plan limits every credential has, because an agent can call far faster than a shop's
// checkout and, when it gets an answer it does not like, tends to send the same call again.
//
// It is gateway policy in plain Go (the gateway calls it after reading the body with
// rpcinspect), kept apart from Caddy so that it can be tested and benchmarked alone. The state
// lives behind Store: Memory for one gateway, Redis when several share the budget, and
// Shared, which uses Redis and falls back to Memory while Redis fails.
package limits

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"
)

// Policy is what an account may do. The spec's values are in Default.
type Policy struct {
	// Rate tool calls per Period on average, with up to Burst at once. A batch counts its
	// items; one larger than Burst passes only when the account has its whole burst left,
	// and then the account waits until the items are paid off at Rate.
	Rate   int
	Period time.Duration
	Burst  int
	// Daily is the number of tool calls per account per UTC day.
	Daily int
	// RepeatMax identical requests (same tool and arguments) pass within RepeatWindow; the
	// next ones are refused until the window, which starts at the first of them, has passed.
	RepeatMax    int
	RepeatWindow time.Duration
}

// Default is the specification's agent limits: 60 tool calls a minute with bursts of 20,
// 10,000 a day, and the same request at most 5 times in a minute.
var Default = Policy{
	Rate: 60, Period: time.Minute, Burst: 20,
	Daily:     10000,
	RepeatMax: 5, RepeatWindow: time.Minute,
}

// Validate checks that the policy can be enforced.
func (p Policy) Validate() error {
	switch {
	case p.Rate < 1 || p.Period <= 0 || p.Burst < 1:
		return errors.New("agent rate limit needs a rate ≥ 1, a period > 0 and a burst ≥ 1")
	case p.Period/time.Duration(p.Rate) <= 0:
		return errors.New("agent rate limit faster than one call per nanosecond")
	case p.Daily < 1:
		return errors.New("agent daily limit must be at least 1")
	case p.RepeatMax < 1 || p.RepeatWindow <= 0:
		return errors.New("agent repeat limit needs a count ≥ 1 and a window > 0")
	}
	return nil
}

// Rate is a GCRA budget as a Store applies it: each unit of cost moves the bucket's
// theoretical arrival time (TAT) on by Emission, and the TAT may run at most Burst emissions
// ahead of now.
type Rate struct {
	Emission time.Duration
	Burst    int
}

// RateResult is a Store's answer for a rate budget.
type RateResult struct {
	Allowed bool
	// RetryAfter is how long until the call would pass (0 when allowed).
	RetryAfter time.Duration
}

// Store keeps the limits' state. Both methods must be atomic per key: several gateways call
// them for the same account at once.
type Store interface {
	// Spend charges cost (≥ 1) against the rate budget key, taking now from the store's own
	// clock (Redis: TIME), in these steps:
	//
	//	tat    := max(stored TAT of key, now)      // an absent key has TAT now
	//	need   := min(cost, r.Burst)               // a batch larger than the burst needs the whole burst
	//	allow  := tat + need*r.Emission - now <= r.Burst*r.Emission
	//	if allow { store TAT tat + cost*r.Emission, expiring when it has passed }
	//	else     { RetryAfter = tat + need*r.Emission - now - r.Burst*r.Emission }
	//
	// This is GCRA (redis_rate's algorithm) except for need: charging the whole cost while
	// asking only for the burst lets a batch of 100 pass once the account has been quiet,
	// which plain GCRA would never allow with a burst of 20.
	Spend(ctx context.Context, key string, r Rate, cost int) (RateResult, error)
	// Add adds n (which may be negative, to give back) to the counter key and returns the new
	// total. A counter that does not exist starts at 0 and expires ttl after it was created
	// (in Redis: SET key 0 PX ttl NX, then INCRBY key n, in one script).
	Add(ctx context.Context, key string, n int64, ttl time.Duration) (int64, error)
}

// Reason says which limit refused a request.
type Reason string

const (
	Allowed      Reason = ""
	ReasonRepeat Reason = "repeat"
	ReasonRate   Reason = "rate"
	ReasonDaily  Reason = "daily"
)

// Call is one tool call of a request as the limits see it: its cost (rpcinspect.Call.Cost)
// and the fingerprint of its tool and arguments (rpcinspect.Call.Fingerprint).
type Call struct {
	Fingerprint string
	Cost        int
}

// Decision is the verdict on one request.
type Decision struct {
	Allowed bool
	Reason  Reason
	// RetryAfter is when the request could pass (rate and daily limits); zero for a repeat,
	// which must not be sent again at all.
	RetryAfter time.Duration
	// Message is for the agent (the model) and says what to do instead of retrying; empty
	// when allowed. It is English, the language agents are instructed in, and names no input.
	Message string
	// Cost is what the request counted (0 when refused).
	Cost int
}

// Limiter applies a Policy per account.
type Limiter struct {
	store  Store
	policy Policy
	now    func() time.Time
}

// New returns a limiter over store. It panics on a policy that Validate rejects, which is a
// configuration error caught at start-up.
func New(store Store, p Policy) *Limiter {
	if err := p.Validate(); err != nil {
		panic(err)
	}
	return &Limiter{store: store, policy: p, now: time.Now}
}

// Policy returns the limits in force.
func (l *Limiter) Policy() Policy { return l.policy }

// Check decides on one request of an account (an API key's account, or the OAuth
// subject's), with its tool calls. The repeat rule comes first and counts every identical
// call, refused ones included, because a loop that keeps sending must keep being told to
// stop; then the rate; then the daily cap, which is given back when it refuses so that a
// refused batch does not eat the rest of the day.
//
// Calls that cost nothing (list_supported_countries) are free as the spec says, "not
// counted": no rule counts them, the repeat rule included. Its arguments are always the
// same, so counting its repeats per account would refuse the agent sessions of a busy
// account, which start with that call, as soon as more than RepeatMax of them start within
// RepeatWindow; the HTTP request rate the gateway applies to every request still bounds a
// loop of them. A request without counted calls (initialize, tools/list, only free calls)
// is allowed without touching the store.
func (l *Limiter) Check(ctx context.Context, account string, calls []Call) (Decision, error) {
	p := l.policy
	cost := 0
	for _, c := range calls {
		if c.Cost <= 0 {
			continue
		}
		n, err := l.store.Add(ctx, "agent:repeat:"+account+":"+c.Fingerprint, 1, p.RepeatWindow)
		if err != nil {
			return Decision{}, fmt.Errorf("agent repeat limit: %w", err)
		}
		if n > int64(p.RepeatMax) {
			return Decision{Reason: ReasonRepeat, Message: repeatMessage(p)}, nil
		}
		cost += c.Cost
	}
	if cost == 0 {
		return Decision{Allowed: true}, nil
	}
	rr, err := l.store.Spend(ctx, "agent:rate:"+account, Rate{Emission: p.Period / time.Duration(p.Rate), Burst: p.Burst}, cost)
	if err != nil {
		return Decision{}, fmt.Errorf("agent rate limit: %w", err)
	}
	if !rr.Allowed {
		return Decision{Reason: ReasonRate, RetryAfter: rr.RetryAfter, Message: rateMessage(p, rr.RetryAfter)}, nil
	}
	now := l.now().UTC()
	midnight := time.Date(now.Year(), now.Month(), now.Day()+1, 0, 0, 0, 0, time.UTC)
	key := "agent:daily:" + account + ":" + now.Format(time.DateOnly)
	// The counter outlives its day by an hour so that gateways whose clocks differ a little
	// still find it.
	total, err := l.store.Add(ctx, key, int64(cost), midnight.Sub(now)+time.Hour)
	if err != nil {
		return Decision{}, fmt.Errorf("agent daily limit: %w", err)
	}
	if total > int64(p.Daily) {
		if _, err := l.store.Add(ctx, key, -int64(cost), midnight.Sub(now)+time.Hour); err != nil {
			return Decision{}, fmt.Errorf("agent daily limit: %w", err)
		}
		wait := midnight.Sub(now)
		left := max(int64(p.Daily)-(total-int64(cost)), 0)
		return Decision{Reason: ReasonDaily, RetryAfter: wait, Message: dailyMessage(p, cost, int(left))}, nil
	}
	return Decision{Allowed: true, Cost: cost}, nil
}

func repeatMessage(p Policy) string {
	return fmt.Sprintf("Refused: this exact request (same tool, same arguments) was sent more than %d times within %s. "+
		"Stop retrying it: the answer will not change. Use the result you already have; if the address register "+
		"was unavailable, accept the address as given and verify it later; otherwise change the input or ask the user.",
		p.RepeatMax, span(p.RepeatWindow))
}

func rateMessage(p Policy, wait time.Duration) string {
	return fmt.Sprintf("Refused: too many tool calls. The limit is %d a %s with bursts of %d, and a batch counts each of its addresses. "+
		"Wait %s before the next call; do not resend calls in a loop.",
		p.Rate, period(p.Period), p.Burst, seconds(wait))
}

// dailyMessage is the refusal of an account's daily cap.
func dailyMessage(p Policy, calls, left int) string {
	return CapMessage("this account", p.Daily, calls, left, "until then accept addresses as given and verify them later")
}

// CapMessage is the refusal of calls past a daily cap of limit calls, of an account or of a
// test key (who names it), with what is left of the day: "do not retry before midnight" is
// wrong advice for a batch refused while a few calls remain, and "fewer may pass" is wrong
// when none does. advice is what to do instead of waiting.
func CapMessage(who string, limit, calls, left int, advice string) string {
	if left > 0 {
		return fmt.Sprintf("Refused: these %d tool calls (a batch counts each address) would take %s past its %d "+
			"tool calls for today (UTC); %s today. Calls for at most that many addresses may still pass; otherwise "+
			"wait until 00:00 UTC; %s.", calls, who, limit, callsLeft(left), advice)
	}
	return fmt.Sprintf("Refused: %s has used its %d tool calls for today (UTC). Do not retry before 00:00 UTC; %s.",
		who, limit, advice)
}

// callsLeft writes "1 call remains" or "n calls remain".
func callsLeft(n int) string {
	if n == 1 {
		return "1 call remains"
	}
	return strconv.Itoa(n) + " calls remain"
}

// period writes "minute" for a minute and "60s"-style durations otherwise.
func period(d time.Duration) string {
	switch d {
	case time.Minute:
		return "minute"
	case time.Hour:
		return "hour"
	case time.Second:
		return "second"
	}
	return d.String()
}

// span writes "a minute" for a minute and "90s"-style durations otherwise, after "within".
func span(d time.Duration) string {
	switch d {
	case time.Minute, time.Second:
		return "a " + period(d)
	case time.Hour:
		return "an hour"
	}
	return d.String()
}

// seconds rounds a wait up to whole seconds, as Retry-After does.
func seconds(d time.Duration) string {
	s := int64(math.Ceil(d.Seconds()))
	if s <= 1 {
		return "1 second"
	}
	return strconv.FormatInt(s, 10) + " seconds"
}

// RetryAfterHeader is the value for an HTTP Retry-After header: whole seconds, at least 1.
func (d Decision) RetryAfterHeader() string {
	return strconv.FormatInt(max(int64(math.Ceil(d.RetryAfter.Seconds())), 1), 10)
}
