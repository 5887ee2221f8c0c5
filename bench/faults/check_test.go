//go:build faults

package faults_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/worker/openapi/openapitest"
)

// findings collects what is wrong, by kind, with a few examples each, so that a fault
// that breaks a thousand requests reports once, readably.
type findings struct {
	order    []string
	count    map[string]int
	examples map[string][]string
}

func newFindings() *findings {
	return &findings{count: map[string]int{}, examples: map[string][]string{}}
}

func (f *findings) add(kind, format string, args ...any) {
	if f.count[kind] == 0 {
		f.order = append(f.order, kind)
	}
	f.count[kind]++
	if len(f.examples[kind]) < 4 {
		f.examples[kind] = append(f.examples[kind], fmt.Sprintf(format, args...))
	}
}

func (f *findings) report(t *testing.T) {
	t.Helper()
	for _, k := range f.order {
		t.Errorf("%s: %d times; for example:\n\t%s", k, f.count[k], strings.Join(f.examples[k], "\n\t"))
	}
}

// expectations of one scenario.
type expectations struct {
	refs *references
	// unavailable allows 503 SERVICE_UNAVAILABLE (with the spec's body): the register or a
	// worker was really gone.
	unavailable bool
}

// at says when a record happened, relative to the start of the load.
func at(l *load, r *record) string {
	return fmt.Sprintf("at +%.2fs %v", r.start.Sub(l.started).Seconds(), r.call)
}

// checkAll holds every exchange of the load to what a caller relies on.
func checkAll(t *testing.T, l *load, exp expectations) {
	t.Helper()
	f := newFindings()
	recs := l.records()
	judged := map[string]error{}
	for i := range recs {
		r := &recs[i]
		if r.err != "" {
			f.add("no answer (connection error or hang)", "%s: %s after %v", at(l, r), r.err, r.took().Round(time.Millisecond))
			continue
		}
		if r.took() > clientBudget {
			f.add("slower than the callers' 1.5 s budget", "%s: %d after %v", at(l, r), r.status, r.took().Round(time.Millisecond))
		}
		switch {
		case r.status == http.StatusOK:
			k := fmt.Sprintf("%d|%s|%x", r.call.id, r.version, r.body)
			err, seen := judged[k]
			if !seen {
				err = exp.refs.agrees(r.call, r.version, l.body(r))
				judged[k] = err
			}
			if err != nil {
				f.add("wrong answer served", "%s (X-Cache %q): %v", at(l, r), r.cache, err)
			}
		case r.status == http.StatusServiceUnavailable:
			if err := unavailableBody(l.body(r)); err != nil {
				f.add("503 without the spec's ErrorResponse", "%s: %v", at(l, r), err)
			} else if !exp.unavailable {
				f.add("503 although the register never was unavailable", "%s", at(l, r))
			}
		case r.status == http.StatusTooManyRequests && r.call.limited:
			if r.code != string(adreswijzer.ErrRateLimited) || r.retryAfter == "" {
				f.add("429 without RATE_LIMITED and Retry-After", "%s: code %q, Retry-After %q", at(l, r), r.code, r.retryAfter)
			}
		case r.status >= 500:
			f.add("5xx other than 503", "%s: %d %s", at(l, r), r.status, r.code)
		default:
			f.add("unexpected status", "%s: %d %s", at(l, r), r.status, r.code)
		}
	}
	validateExchanges(t, l, f)
	f.report(t)
}

// unavailableBody checks a 503's body: SERVICE_UNAVAILABLE, with a message and the next
// step the caller takes (accept the address, validate later).
func unavailableBody(b []byte) error {
	var e adreswijzer.ErrorResponse
	if err := json.Unmarshal(b, &e); err != nil {
		return fmt.Errorf("body %q is not JSON: %v", clip(b), err)
	}
	switch {
	case e.Error.Code != adreswijzer.ErrServiceUnavailable:
		return fmt.Errorf("code %q, want %s", e.Error.Code, adreswijzer.ErrServiceUnavailable)
	case strings.TrimSpace(e.Error.Message) == "":
		return fmt.Errorf("no message")
	case strings.TrimSpace(e.Error.NextStep) == "":
		return fmt.Errorf("no nextStep")
	}
	return nil
}

// validateExchanges checks each distinct exchange against openapi.json.
func validateExchanges(t *testing.T, l *load, f *findings) {
	v := openapitest.New(t)
	l.mu.Lock()
	exs := make([]*exchange, 0, len(l.exchanges))
	for _, e := range l.exchanges {
		exs = append(exs, e)
	}
	l.mu.Unlock()
	sort.Slice(exs, func(i, j int) bool { return exs[i].call.id < exs[j].call.id })
	for _, e := range exs {
		key := l.liveKey
		if e.call.limited {
			key = l.pkKey
		}
		req := e.call.request(l.base, key, "s-0-0")
		if err := v.Validate(req, e.status, e.header, e.body); err != nil {
			f.add("answer not as openapi.json describes", "%v answered %d: %v", e.call, e.status, err)
		}
	}
}

// statusCounts counts the main load's statuses in [from, to).
func statusCounts(recs []record, from, to time.Time, limited bool) map[int]int {
	out := map[int]int{}
	for _, r := range recs {
		if r.call.limited == limited && !r.start.Before(from) && r.start.Before(to) {
			out[r.status]++
		}
	}
	return out
}
