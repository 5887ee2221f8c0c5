package limits

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// clock is a settable time shared by the limiter and its store.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func newLimiter(p Policy, start time.Time) (*Limiter, *clock, *Memory) {
	c := &clock{t: start}
	m := NewMemory(c.Now)
	l := New(m, p)
	l.now = c.Now
	return l, c, m
}

var noon = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

// seq makes calls with distinct fingerprints, so that only the rate and daily limits apply.
type seq struct{ n int }

func (s *seq) call(cost int) []Call {
	s.n++
	return []Call{{Fingerprint: fmt.Sprintf("fp%d", s.n), Cost: cost}}
}

func mustCheck(t *testing.T, l *Limiter, account string, calls []Call) Decision {
	t.Helper()
	d, err := l.Check(context.Background(), account, calls)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestBurst(t *testing.T) {
	l, c, _ := newLimiter(Default, noon)
	var s seq
	for i := range 20 {
		if d := mustCheck(t, l, "acct", s.call(1)); !d.Allowed || d.Cost != 1 {
			t.Fatalf("call %d of the burst refused: %+v", i+1, d)
		}
	}
	d := mustCheck(t, l, "acct", s.call(1))
	if d.Allowed || d.Reason != ReasonRate || d.RetryAfter != time.Second {
		t.Fatalf("21st call at once: %+v, want refused by rate, retry after 1s", d)
	}
	if !strings.Contains(d.Message, "Wait 1 second") || !strings.Contains(d.Message, "60 a minute with bursts of 20") {
		t.Errorf("rate message: %q", d.Message)
	}
	if d.RetryAfterHeader() != "1" {
		t.Errorf("Retry-After %q", d.RetryAfterHeader())
	}
	c.Advance(999 * time.Millisecond)
	if d := mustCheck(t, l, "acct", s.call(1)); d.Allowed {
		t.Fatal("allowed before a second had passed")
	}
	c.Advance(time.Millisecond)
	if d := mustCheck(t, l, "acct", s.call(1)); !d.Allowed {
		t.Fatalf("refused after a second: %+v", d)
	}
	// Another account has its own budget.
	if d := mustCheck(t, l, "other", s.call(1)); !d.Allowed {
		t.Fatal("accounts share a budget")
	}
}

func TestSixtyAMinute(t *testing.T) {
	l, c, _ := newLimiter(Default, noon)
	var s seq
	// An agent calling every 100 ms for ten minutes gets its burst, then one a second.
	allowed := 0
	perMinute := map[int]int{}
	for i := range 6000 {
		if d := mustCheck(t, l, "acct", s.call(1)); d.Allowed {
			allowed++
			perMinute[i/600]++
		}
		c.Advance(100 * time.Millisecond)
	}
	if allowed < 619 || allowed > 621 {
		t.Errorf("allowed %d calls in ten minutes, want 20 + 600", allowed)
	}
	for m := 1; m < 10; m++ {
		if perMinute[m] != 60 {
			t.Errorf("minute %d: %d calls, want 60", m, perMinute[m])
		}
	}
}

func TestBatchCountsItems(t *testing.T) {
	l, c, _ := newLimiter(Default, noon)
	var s seq
	// A quiet account may send a batch larger than its burst ...
	if d := mustCheck(t, l, "acct", s.call(100)); !d.Allowed || d.Cost != 100 {
		t.Fatalf("batch of 100 on a full budget: %+v", d)
	}
	// ... and then waits until the 100 are paid off at one a second, less the burst.
	d := mustCheck(t, l, "acct", s.call(1))
	if d.Allowed || d.RetryAfter != 81*time.Second {
		t.Fatalf("call after the batch: %+v, want a wait of 81s", d)
	}
	c.Advance(81 * time.Second)
	if d := mustCheck(t, l, "acct", s.call(1)); !d.Allowed {
		t.Fatalf("refused after the wait: %+v", d)
	}
	// A batch larger than the burst needs the whole burst: after one call it waits.
	l2, c2, _ := newLimiter(Default, noon)
	mustCheck(t, l2, "acct", s.call(1))
	d = mustCheck(t, l2, "acct", s.call(30))
	if d.Allowed || d.RetryAfter != time.Second {
		t.Fatalf("batch of 30 after one call: %+v", d)
	}
	c2.Advance(time.Second)
	if d := mustCheck(t, l2, "acct", s.call(30)); !d.Allowed {
		t.Fatalf("batch of 30 on a full budget: %+v", d)
	}
	// Two calls in one request (a JSON-RPC batch) count together.
	l3, _, _ := newLimiter(Default, noon)
	two := append(s.call(15), s.call(6)...)
	if d := mustCheck(t, l3, "acct", two); !d.Allowed || d.Cost != 21 {
		t.Fatalf("request of 15+6 on a full budget: %+v", d)
	}
}

// Free calls (cost 0: list_supported_countries, whose arguments are always {}) are not
// counted by any rule: not the rate, not the day, and not the repeat rule, which would
// otherwise refuse an account's agent sessions after five of them started in a minute. The
// counted calls of the same request still are.
func TestFreeCalls(t *testing.T) {
	free := Call{Fingerprint: "list_supported_countries:{}", Cost: 0}
	counted := Call{Fingerprint: "verify:abc", Cost: 1}
	for _, tc := range []struct {
		name   string
		req    []Call
		times  int
		refuse int    // the first refused request (1-based), 0 for none
		reason Reason // why it is refused
	}{
		{name: "the same free call", req: []Call{free}, times: 50},
		{name: "a request of only free calls", req: []Call{free, free, free, free, free, free}, times: 10},
		{name: "a free call beside a repeated counted one", req: []Call{free, counted}, times: 6, refuse: 6, reason: ReasonRepeat},
		{name: "free calls do not make a counted one a repeat", req: []Call{counted, free, free, free, free, free}, times: 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, _, m := newLimiter(Default, noon)
			spent := 0
			for i := range tc.times {
				d := mustCheck(t, l, "acct", tc.req)
				if i+1 == tc.refuse {
					if d.Allowed || d.Reason != tc.reason {
						t.Fatalf("request %d: %+v, want refused for %q", i+1, d, tc.reason)
					}
					continue
				}
				if !d.Allowed {
					t.Fatalf("request %d refused: %+v", i+1, d)
				}
				spent += d.Cost
			}
			if spent == 0 && m.Len() != 0 {
				t.Errorf("free calls left %d keys in the store", m.Len())
			}
			// The burst is whole but for the counted calls.
			var s seq
			for i := range Default.Burst - spent {
				if d := mustCheck(t, l, "acct", s.call(1)); !d.Allowed {
					t.Fatalf("call %d of the burst refused after free calls: %+v", i+1, d)
				}
			}
			if d := mustCheck(t, l, "acct", s.call(1)); d.Reason != ReasonRate {
				t.Errorf("call past the burst: %+v", d)
			}
		})
	}
	l, _, _ := newLimiter(Default, noon)
	if d := mustCheck(t, l, "acct", nil); !d.Allowed {
		t.Fatal("request without tool calls refused")
	}
}

func TestDaily(t *testing.T) {
	p := Default
	p.Rate, p.Burst = 100000, 100000 // only the daily cap applies here
	start := time.Date(2026, 11, 22, 23, 0, 0, 0, time.UTC)
	l, c, _ := newLimiter(p, start)
	var s seq
	for i := range 9998 {
		if d := mustCheck(t, l, "acct", s.call(1)); !d.Allowed {
			t.Fatalf("call %d refused: %+v", i+1, d)
		}
	}
	// A batch of 5 does not fit; refusing it gives its items back.
	d := mustCheck(t, l, "acct", s.call(5))
	if d.Allowed || d.Reason != ReasonDaily || d.RetryAfter != time.Hour {
		t.Fatalf("batch over the daily cap: %+v, want refused until midnight UTC", d)
	}
	if !strings.Contains(d.Message, "these 5 tool calls") || !strings.Contains(d.Message, "past its 10000 tool calls for today (UTC); 2 calls remain today") ||
		strings.Contains(d.Message, "used its") {
		t.Errorf("daily message with two calls left: %q", d.Message)
	}
	for range 2 {
		if d := mustCheck(t, l, "acct", s.call(1)); !d.Allowed {
			t.Fatalf("calls 9999 and 10000 refused: %+v", d)
		}
	}
	for _, cost := range []int{1, 3} {
		d := mustCheck(t, l, "acct", s.call(cost))
		if d.Allowed || d.Reason != ReasonDaily {
			t.Fatalf("%d calls past 10000: %+v", cost, d)
		}
		if !strings.Contains(d.Message, "has used its 10000 tool calls for today (UTC)") || !strings.Contains(d.Message, "Do not retry before 00:00 UTC") ||
			strings.Contains(d.Message, "remain") {
			t.Errorf("daily message with none left: %q", d.Message)
		}
	}
	if d := mustCheck(t, l, "other", s.call(1)); !d.Allowed {
		t.Fatal("another account is capped too")
	}
	c.Advance(time.Hour)
	if d := mustCheck(t, l, "acct", s.call(1)); !d.Allowed {
		t.Fatalf("refused on the next UTC day: %+v", d)
	}
}

// The daily refusal says how many calls are left, in the form the test key's refusal
// (gateway/agentpolicy) shares.
func TestDailyMessage(t *testing.T) {
	for _, tc := range []struct {
		calls, left int
		want, not   []string
	}{
		{1, 0, []string{"has used its 10000 tool calls", "Do not retry before 00:00 UTC"}, []string{"remain"}},
		{100, 0, []string{"has used its 10000 tool calls", "Do not retry before 00:00 UTC"}, []string{"remain", "these 100"}},
		{2, 1, []string{"these 2 tool calls", "past its 10000", "1 call remains today", "wait until 00:00 UTC"}, []string{"used its", "Do not retry"}},
		{100, 99, []string{"these 100 tool calls", "99 calls remain today"}, []string{"used its", "Do not retry"}},
	} {
		msg := dailyMessage(Default, tc.calls, tc.left)
		for _, w := range tc.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%d calls, %d left: %q lacks %q", tc.calls, tc.left, msg, w)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(msg, n) {
				t.Errorf("%d calls, %d left: %q says %q", tc.calls, tc.left, msg, n)
			}
		}
	}
}

func TestRepeat(t *testing.T) {
	l, c, _ := newLimiter(Default, noon)
	same := []Call{{Fingerprint: "verify:abc", Cost: 1}}
	for i := range 5 {
		if d := mustCheck(t, l, "acct", same); !d.Allowed {
			t.Fatalf("identical call %d refused: %+v", i+1, d)
		}
	}
	d := mustCheck(t, l, "acct", same)
	if d.Allowed || d.Reason != ReasonRepeat || d.RetryAfter != 0 {
		t.Fatalf("6th identical call: %+v", d)
	}
	for _, want := range []string{"more than 5 times within a minute", "Stop retrying", "accept the address as given"} {
		if !strings.Contains(d.Message, want) {
			t.Errorf("repeat message lacks %q: %q", want, d.Message)
		}
	}
	// The same call of another account passes.
	if d := mustCheck(t, l, "other", same); !d.Allowed {
		t.Fatal("another account's call was refused")
	}
	// Refused repeats cost nothing: 5 calls were spent, so 15 different ones still fit in
	// the burst and the 16th does not.
	var s seq
	for i := range 15 {
		if d := mustCheck(t, l, "acct", s.call(1)); !d.Allowed {
			t.Fatalf("different call %d after the repeats refused: %+v", i+1, d)
		}
	}
	if d := mustCheck(t, l, "acct", s.call(1)); d.Reason != ReasonRate {
		t.Fatalf("21st spent call: %+v", d)
	}
	// The window started at the first call: a minute later the call passes again.
	c.Advance(59 * time.Second)
	if d := mustCheck(t, l, "acct", same); d.Reason != ReasonRepeat {
		t.Fatalf("identical call within the window: %+v", d)
	}
	c.Advance(time.Second)
	if d := mustCheck(t, l, "acct", same); !d.Allowed {
		t.Fatalf("identical call after the window: %+v", d)
	}
	// A request whose second call is a loop is refused whole.
	for range 5 {
		mustCheck(t, l, "loop", []Call{{Fingerprint: "x", Cost: 1}})
	}
	if d := mustCheck(t, l, "loop", []Call{{Fingerprint: "y", Cost: 1}, {Fingerprint: "x", Cost: 1}}); d.Reason != ReasonRepeat {
		t.Fatalf("request with a repeated call: %+v", d)
	}
}

func TestConcurrentBurst(t *testing.T) {
	l, _, _ := newLimiter(Default, noon)
	var wg sync.WaitGroup
	var mu sync.Mutex
	allowed := 0
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 25 {
				d, err := l.Check(context.Background(), "acct", []Call{{Fingerprint: fmt.Sprintf("%d-%d", g, i), Cost: 1}})
				if err != nil {
					t.Error(err)
					return
				}
				if d.Allowed {
					mu.Lock()
					allowed++
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if allowed != 20 {
		t.Errorf("%d calls allowed at one instant from 8 goroutines, want the burst of 20", allowed)
	}
}

func TestMemorySweeps(t *testing.T) {
	c := &clock{t: noon}
	m := NewMemory(c.Now)
	ctx := context.Background()
	for i := range 1000 {
		m.Add(ctx, fmt.Sprint("k", i), 1, time.Minute)
		m.Spend(ctx, fmt.Sprint("r", i), Rate{Emission: time.Second, Burst: 5}, 1)
	}
	if m.Len() != 2000 {
		t.Fatalf("%d keys", m.Len())
	}
	c.Advance(2 * time.Minute)
	for range sweepEvery {
		m.Add(ctx, "live", 1, time.Hour)
	}
	if m.Len() != 1 {
		t.Errorf("%d keys after the sweep, want only the live one", m.Len())
	}
	// An expired counter starts again from zero.
	n, _ := m.Add(ctx, "k1", 1, time.Minute)
	if n != 1 {
		t.Errorf("expired counter continued at %d", n)
	}
}

func TestPolicyValidate(t *testing.T) {
	if err := Default.Validate(); err != nil {
		t.Fatal(err)
	}
	bad := []Policy{
		{Rate: 0, Period: time.Minute, Burst: 1, Daily: 1, RepeatMax: 1, RepeatWindow: time.Minute},
		{Rate: 1, Period: time.Minute, Burst: 0, Daily: 1, RepeatMax: 1, RepeatWindow: time.Minute},
		{Rate: 1, Period: time.Minute, Burst: 1, Daily: 0, RepeatMax: 1, RepeatWindow: time.Minute},
		{Rate: 1, Period: time.Minute, Burst: 1, Daily: 1, RepeatMax: 0, RepeatWindow: time.Minute},
		{Rate: 10, Period: time.Nanosecond, Burst: 1, Daily: 1, RepeatMax: 1, RepeatWindow: time.Minute},
	}
	for _, p := range bad {
		if p.Validate() == nil {
			t.Errorf("%+v accepted", p)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("New accepted an invalid policy")
		}
	}()
	New(NewMemory(nil), bad[0])
}
