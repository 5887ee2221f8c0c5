package usage

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Activity is what one credential did on one route on one UTC day: the answered calls, the
// verifications they counted and when the last of them came. The dashboard's chart, its
// calls per route and its CSV export are read from these rows, so that they come from the
// same store as the bill. A row holds ids, a route name, a day and counts, nothing of what a
// caller sent.
type Activity struct {
	Account string
	// Key is the credential's id: an API key's id, a platform's "platform:shop", an agent's
	// "oauth:account".
	Key string
	// Day is the UTC day, "YYYY-MM-DD" (see Day).
	Day string
	// Route is the route's name: lookup, suggest, autocomplete, validate, agent.
	Route string
	// Calls answered with a 2xx status.
	Calls int64
	// Verifications the calls counted, after refunds: 0 for a test key's calls.
	Verifications int64
	// LastUsed is the time of the last of the calls, to the microsecond.
	LastUsed time.Time
}

// Batch is what one flush writes: the months' deltas and the activity rows together, so
// that a sink either takes both or neither and a retried batch counts nothing twice.
type Batch struct {
	Deltas   []Delta
	Activity []Activity
}

// Empty reports whether the batch holds nothing to write.
func (b Batch) Empty() bool { return len(b.Deltas) == 0 && len(b.Activity) == 0 }

// Reader is what the dashboard reads of an account's usage. Every read names the account,
// and is bounded by it: a month's totals, at most MaxActivityDays of activity rows, one
// time per credential.
type Reader interface {
	// Get returns an account's totals of a month ("YYYY-MM").
	Get(ctx context.Context, account, month string) (Totals, error)
	// Activity returns an account's rows from day from to day to, both included
	// ("YYYY-MM-DD", see CheckSpan), ordered by day, key and route.
	Activity(ctx context.Context, account, from, to string) ([]Activity, error)
	// LastUsed returns when each credential of an account last had a call answered, by
	// credential id; credentials never used are absent.
	LastUsed(ctx context.Context, account string) (map[string]time.Time, error)
}

// Store is a durable sink that the dashboard can read: FileSink and Postgres are both.
type Store interface {
	Sink
	Reader
}

// MaxActivityDays is the longest span Reader.Activity reads: a month, which is what the
// dashboard shows and exports at once.
const MaxActivityDays = 31

// ErrSpan: the days asked for are not a span Reader.Activity reads.
var ErrSpan = errors.New("usage activity: days must be YYYY-MM-DD, from not after to, at most 31 days")

// CheckSpan parses the days of a Reader.Activity call and checks that they are a span of
// at most MaxActivityDays, so that both sinks refuse the same unbounded reads.
func CheckSpan(from, to string) (first, last time.Time, err error) {
	first, err1 := time.Parse(time.DateOnly, from)
	last, err2 := time.Parse(time.DateOnly, to)
	if err1 != nil || err2 != nil || last.Before(first) || last.Sub(first) >= MaxActivityDays*24*time.Hour {
		return time.Time{}, time.Time{}, fmt.Errorf("%w (%q to %q)", ErrSpan, from, to)
	}
	return first, last, nil
}

// MonthDays returns the first and last day of a month ("YYYY-MM"), the span the dashboard
// reads a month's activity over.
func MonthDays(month string) (from, to string, err error) {
	start, err := time.Parse("2006-01", month)
	if err != nil {
		return "", "", fmt.Errorf("usage month %q: want YYYY-MM", month)
	}
	return start.Format(time.DateOnly), start.AddDate(0, 1, -1).Format(time.DateOnly), nil
}
