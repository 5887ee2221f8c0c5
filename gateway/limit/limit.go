// Package limit enforces per-credential request rates with GCRA (the generic cell rate
// algorithm): a steady rate plus a burst, decided from one timestamp per key. The shared
// form runs redis_rate's script in Redis so that every gateway sees the same budget; the
// local form mirrors that script in memory and takes over whenever Redis fails or is slow.
package limit

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Rule is a rate: Rate events per Period, with up to Burst at once. Burst 1 allows no
// bursting; Burst must be at least 1. The meaning matches redis_rate.Limit: Burst is the
// number of calls that may arrive at the same instant.
type Rule struct {
	Rate   int
	Period time.Duration
	Burst  int
}

// Validate checks that the rule can be enforced.
func (r Rule) Validate() error {
	if r.Rate < 1 || r.Period <= 0 || r.Burst < 1 {
		return errors.New("rate limit needs a rate ≥ 1, a period > 0 and a burst ≥ 1")
	}
	if r.emission() <= 0 {
		return errors.New("rate limit faster than one call per nanosecond")
	}
	return nil
}

// String writes the rule as ParseRule reads it.
func (r Rule) String() string {
	return fmt.Sprintf("%d/%s burst %d", r.Rate, r.Period, r.Burst)
}

// ParseRule reads "<rate>/<period>" ("50/s", "600/m", "10/2s"); the burst is given apart.
func ParseRule(s string, burst int) (Rule, error) {
	n, per, ok := strings.Cut(s, "/")
	if !ok {
		return Rule{}, fmt.Errorf("rate %q: want <n>/<period>, e.g. 50/s", s)
	}
	rate, err := strconv.Atoi(n)
	if err != nil {
		return Rule{}, fmt.Errorf("rate %q: %w", s, err)
	}
	var period time.Duration
	switch per {
	case "s":
		period = time.Second
	case "m":
		period = time.Minute
	case "h":
		period = time.Hour
	default:
		period, err = time.ParseDuration(per)
		if err != nil {
			return Rule{}, fmt.Errorf("rate %q: %w", s, err)
		}
	}
	r := Rule{Rate: rate, Period: period, Burst: burst}
	return r, r.Validate()
}

// emission is the time one call uses of the budget.
func (r Rule) emission() time.Duration { return r.Period / time.Duration(r.Rate) }

// Result of one decision.
type Result struct {
	Allowed bool
	// Remaining is how many more calls would be allowed right now.
	Remaining int
	// RetryAfter is how long to wait before the next call can be allowed (0 when allowed).
	RetryAfter time.Duration
	// ResetAfter is how long until the budget is full again.
	ResetAfter time.Duration
}

// Limiter decides whether one more call under key is allowed.
type Limiter interface {
	Allow(ctx context.Context, key string, r Rule) (Result, error)
}

// Defaults per kind of credential, documented in the operator guide and overridable in the
// Caddyfile. Live keys serve shops' backends (bursts when a batch of orders comes in);
// test keys are for trying things out; publishable keys run in a customer's browser, one
// person typing, so they are limited per key and client address.
var (
	DefaultLive        = Rule{Rate: 50, Period: time.Second, Burst: 100}
	DefaultTest        = Rule{Rate: 5, Period: time.Second, Burst: 10}
	DefaultPublishable = Rule{Rate: 10, Period: time.Second, Burst: 20}
	DefaultPlatform    = Rule{Rate: 50, Period: time.Second, Burst: 100}
)
