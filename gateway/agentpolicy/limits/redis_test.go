package limits

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/adreswijzer/adreswijzer/gateway/gatewaytest"
)

// The Redis store follows the steps documented on Store exactly as Memory does: the same
// decisions for the same calls. Rates are slow, so that the milliseconds between the two
// clocks cannot move a decision across a boundary.
func TestRedisMatchesMemory(t *testing.T) {
	rdb, prefix := gatewaytest.Redis(t)
	ctx := context.Background()
	r := NewRedis(rdb, prefix)
	m := NewMemory(nil)
	for i, c := range []struct {
		rate  Rate
		costs []int
	}{
		{Rate{Emission: time.Minute, Burst: 1}, []int{1, 1, 1}},
		{Rate{Emission: time.Second, Burst: 20}, []int{5, 5, 5, 5, 1, 3}},
		// A batch larger than the burst passes on a full budget, and the account then waits
		// until it is paid off.
		{Rate{Emission: time.Second, Burst: 20}, []int{100, 1}},
		{Rate{Emission: time.Hour, Burst: 3}, []int{2, 2, 1, 1}},
	} {
		key := fmt.Sprintf("agent:rate:cmp%d", i)
		for j, cost := range c.costs {
			got, err := r.Spend(ctx, key, c.rate, cost)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := m.Spend(ctx, key, c.rate, cost)
			if got.Allowed != want.Allowed {
				t.Errorf("case %d call %d (cost %d): redis allowed %v, memory %v", i, j, cost, got.Allowed, want.Allowed)
			}
			if d := got.RetryAfter - want.RetryAfter; d > time.Second || d < -time.Second {
				t.Errorf("case %d call %d: retry after %v (redis) and %v (memory)", i, j, got.RetryAfter, want.RetryAfter)
			}
		}
	}
	// After the batch of 100 at one a second, the next call waits about 81 s.
	res, _ := r.Spend(ctx, "agent:rate:cmp2", Rate{Emission: time.Second, Burst: 20}, 1)
	if res.Allowed || res.RetryAfter < 79*time.Second || res.RetryAfter > 81*time.Second {
		t.Errorf("after a batch of 100: %+v, want a wait of about 80 s", res)
	}
	// The state expires when it is paid off, not before.
	if ttl := rdb.PTTL(ctx, prefix+"agent:rate:cmp2").Val(); ttl < 99*time.Second || ttl > 101*time.Second {
		t.Errorf("rate state expires in %v, want 100 s", ttl)
	}

	// Counters start at zero, expire ttl after they were made, and take negative amounts.
	for _, s := range []Store{r, m} {
		key := fmt.Sprintf("agent:daily:%T", s)
		for _, step := range []struct{ n, want int64 }{{3, 3}, {2, 5}, {-2, 3}} {
			got, err := s.Add(ctx, key, step.n, time.Hour)
			if err != nil || got != step.want {
				t.Errorf("%T: add %d = %d (%v), want %d", s, step.n, got, err, step.want)
			}
		}
	}
	if ttl := rdb.PTTL(ctx, prefix+"agent:daily:*limits.Redis").Val(); ttl < 59*time.Minute || ttl > time.Hour {
		t.Errorf("counter expires in %v, want an hour from its first add", ttl)
	}
	short, err := r.Add(ctx, "agent:repeat:short", 1, 50*time.Millisecond)
	if err != nil || short != 1 {
		t.Fatal(short, err)
	}
	time.Sleep(100 * time.Millisecond)
	if n, _ := r.Add(ctx, "agent:repeat:short", 1, 50*time.Millisecond); n != 1 {
		t.Errorf("an expired counter went on at %d", n)
	}
}

// Two gateways on one Redis share an account's budget; the Limiter's rules hold on Redis.
func TestRedisLimiter(t *testing.T) {
	rdb, prefix := gatewaytest.Redis(t)
	p := Policy{Rate: 1, Period: time.Hour, Burst: 20, Daily: 30, RepeatMax: 5, RepeatWindow: time.Minute}
	a, b := New(NewRedis(rdb, prefix), p), New(NewRedis(rdb, prefix), p)
	ctx := context.Background()
	var s seq
	for i := range 20 {
		l := a
		if i%2 == 1 {
			l = b
		}
		if d := mustCheck(t, l, "acct", s.call(1)); !d.Allowed {
			t.Fatalf("call %d refused: %s", i+1, d.Message)
		}
	}
	if d := mustCheck(t, b, "acct", s.call(1)); d.Allowed || d.Reason != ReasonRate || d.RetryAfter < 59*time.Minute {
		t.Errorf("21st call across two gateways: %+v", d)
	}
	// Repeats are recognised across gateways (on an account with budget left: a free call
	// would not be counted at all).
	same := []Call{{Fingerprint: "same", Cost: 1}}
	for i := range 5 {
		if d := mustCheck(t, []*Limiter{a, b}[i%2], "loop", same); !d.Allowed {
			t.Fatalf("identical call %d refused", i+1)
		}
	}
	if d := mustCheck(t, a, "loop", same); d.Allowed || d.Reason != ReasonRepeat {
		t.Errorf("sixth identical call: %+v", d)
	}
	if n, err := rdb.Get(ctx, prefix+"agent:daily:acct:"+time.Now().UTC().Format(time.DateOnly)).Int(); err != nil || n != 20 {
		t.Errorf("daily count %d (%v), want 20", n, err)
	}
}

// With Redis gone, Shared decides from memory at once, and returns to Redis when it is back.
func TestSharedFallsBack(t *testing.T) {
	srv := gatewaytest.StartRedisServer(t)
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr, MaxRetries: -1, DialerRetries: 1, ContextTimeoutEnabled: true})
	defer rdb.Close()
	local := NewMemory(nil)
	s := NewShared(NewRedis(rdb, "fb:"), local, 100*time.Millisecond, 200*time.Millisecond, slog.New(slog.NewTextHandler(io.Discard, nil)))
	l := New(s, Policy{Rate: 1, Period: time.Hour, Burst: 2, Daily: 100, RepeatMax: 5, RepeatWindow: time.Minute})
	var q seq
	if d := mustCheck(t, l, "acct", q.call(1)); !d.Allowed || s.Degraded() || local.Len() != 0 {
		t.Fatalf("first call: %+v, degraded %v, %d local keys", d, s.Degraded(), local.Len())
	}
	srv.Kill()
	start := time.Now()
	var got []bool
	for range 3 {
		got = append(got, mustCheck(t, l, "acct", q.call(1)).Allowed)
	}
	if d := time.Since(start); d > 300*time.Millisecond {
		t.Errorf("three checks without Redis took %v", d)
	}
	if fmt.Sprint(got) != "[true true false]" || !s.Degraded() {
		t.Errorf("local decisions %v, degraded %v", got, s.Degraded())
	}
	srv.Start()
	time.Sleep(250 * time.Millisecond)
	mustCheck(t, l, "other", q.call(1))
	if s.Degraded() || len(srv.Keys("fb:agent:rate:other")) != 1 {
		t.Error("did not return to Redis")
	}
}
