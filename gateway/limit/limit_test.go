package limit

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/go-redis/redis_rate/v10"

	"github.com/adreswijzer/adreswijzer/gateway/gatewaytest"
)

func TestParseRule(t *testing.T) {
	for in, want := range map[string]Rule{
		"50/s":  {50, time.Second, 7},
		"600/m": {600, time.Minute, 7},
		"10/2s": {10, 2 * time.Second, 7},
	} {
		got, err := ParseRule(in, 7)
		if err != nil || got != want {
			t.Errorf("ParseRule(%q) = %v, %v", in, got, err)
		}
	}
	for _, in := range []string{"50", "x/s", "0/s", "5/0s", "5/fortnight"} {
		if _, err := ParseRule(in, 1); err == nil {
			t.Errorf("ParseRule(%q) succeeded", in)
		}
	}
	if _, err := ParseRule("2000000000/s", 1); err == nil {
		t.Error("sub-nanosecond emission accepted")
	}
	if _, err := ParseRule("5/s", 0); err == nil {
		t.Error("burst 0 accepted")
	}
}

// The local GCRA gives the sequence redis_rate gives (notes: 10/s burst 3, five calls at
// once: three allowed, then retry after 100ms), with the correct Remaining.
func TestLocalSequence(t *testing.T) {
	l := NewLocal(1000)
	r := Rule{Rate: 10, Period: time.Second, Burst: 3}
	now := time.Unix(1_800_000_000, 0)
	var got []string
	for range 5 {
		res := l.AllowAt("k", r, now)
		got = append(got, fmt.Sprintf("%v/%d/%v", res.Allowed, res.Remaining, res.RetryAfter))
	}
	want := []string{"true/2/0s", "true/1/0s", "true/0/0s", "false/0/100ms", "false/0/100ms"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if !l.AllowAt("k", r, now.Add(100*time.Millisecond)).Allowed {
		t.Error("not allowed after the retry time")
	}
	if !l.AllowAt("other", r, now).Allowed {
		t.Error("keys are not independent")
	}
}

// Local and Redis decide the same for the same calls. Rates are slow, so that the
// milliseconds between the two clocks cannot move a decision across a boundary.
func TestLocalMatchesRedis(t *testing.T) {
	rdb, prefix := gatewaytest.Redis(t)
	shared := redis_rate.NewLimiter(rdb)
	local := NewLocal(1000)
	ctx := context.Background()
	for i, r := range []Rule{
		{Rate: 1, Period: time.Minute, Burst: 1},
		{Rate: 1, Period: time.Minute, Burst: 4},
		{Rate: 10, Period: time.Minute, Burst: 3},
		{Rate: 60, Period: time.Hour, Burst: 20},
	} {
		key := fmt.Sprintf("cmp%d", i)
		for call := range r.Burst + 2 {
			res, err := shared.Allow(ctx, prefix+key, redis_rate.Limit{Rate: r.Rate, Period: r.Period, Burst: r.Burst})
			if err != nil {
				t.Fatal(err)
			}
			loc := local.AllowAt(key, r, time.Now())
			if (res.Allowed > 0) != loc.Allowed {
				t.Errorf("%v call %d: redis allowed %v, local %v", r, call, res.Allowed > 0, loc.Allowed)
			}
			if !loc.Allowed {
				if d := res.RetryAfter - loc.RetryAfter; d > time.Second || d < -time.Second {
					t.Errorf("%v call %d: retry after %v (redis) and %v (local)", r, call, res.RetryAfter, loc.RetryAfter)
				}
			}
		}
	}
}

func TestSharedUsesRedis(t *testing.T) {
	rdb, prefix := gatewaytest.Redis(t)
	s := NewShared(rdb, NewLocal(100), prefix, time.Second, time.Second, quiet())
	r := Rule{Rate: 1, Period: time.Minute, Burst: 2}
	ctx := context.Background()
	for i, want := range []bool{true, true, false} {
		res, err := s.Allow(ctx, "k", r)
		if err != nil || res.Allowed != want {
			t.Fatalf("call %d: %v %v", i, res.Allowed, err)
		}
		if !want && res.RetryAfter < 29*time.Second {
			t.Errorf("retry after %v, want about 30s", res.RetryAfter)
		}
	}
	if n, _ := rdb.Exists(ctx, "rate:"+prefix+"k").Result(); n != 1 {
		t.Error("no state in Redis")
	}
	// A second gateway on the same Redis shares the budget.
	other := NewShared(rdb, NewLocal(100), prefix, time.Second, time.Second, quiet())
	if res, _ := other.Allow(ctx, "k", r); res.Allowed {
		t.Error("another gateway got a fresh budget")
	}
}

// With no Redis answering, decisions are local, fast, and Redis is tried again later.
func TestSharedFallsBack(t *testing.T) {
	srv := gatewaytest.StartRedisServer(t)
	rdb := srv.FailFastClient(t)
	s := NewShared(rdb, NewLocal(100), "fb:", 50*time.Millisecond, 200*time.Millisecond, quiet())
	r := Rule{Rate: 1, Period: time.Minute, Burst: 2}
	ctx := context.Background()
	if res, _ := s.Allow(ctx, "k", r); !res.Allowed || s.Degraded() {
		t.Fatal("first call")
	}
	srv.Kill()
	start := time.Now()
	var got []bool
	for range 3 {
		res, err := s.Allow(ctx, "k", r)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, res.Allowed)
	}
	if d := time.Since(start); d > 200*time.Millisecond {
		t.Errorf("three calls without Redis took %v", d)
	}
	if fmt.Sprint(got) != "[true true false]" || !s.Degraded() {
		t.Errorf("local decisions %v, degraded %v", got, s.Degraded())
	}
	srv.Start()
	time.Sleep(250 * time.Millisecond)
	if _, err := s.Allow(ctx, "k2", r); err != nil || s.Degraded() {
		t.Errorf("did not return to Redis: %v", err)
	}
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// BenchmarkLocal is the cost of one local decision, the gateway's default limiter.
func BenchmarkLocal(b *testing.B) {
	l := NewLocal(1 << 16)
	r := Rule{Rate: 1_000_000, Period: time.Second, Burst: 1_000_000}
	keys := make([]string, 1000)
	for i := range keys {
		keys[i] = fmt.Sprintf("key:key_%016x", i)
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			l.AllowAt(keys[i%len(keys)], r, time.Now())
			i++
		}
	})
}
