package usage

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/adreswijzer/adreswijzer/gateway/gatewaytest"
)

// frozenSink stands for Postgres that hangs (SIGSTOP on the server: connections stay open,
// nothing answers; the driver heeds its context) and continues later, or refuses
// connections.
type frozenSink struct {
	Sink
	mu     sync.Mutex
	frozen chan struct{} // closed on thaw; nil when not frozen
	down   bool
	gets   atomic.Int32
}

func (f *frozenSink) freeze() {
	f.mu.Lock()
	f.frozen = make(chan struct{})
	f.mu.Unlock()
}

func (f *frozenSink) thaw() {
	f.mu.Lock()
	if f.frozen != nil {
		close(f.frozen)
		f.frozen = nil
	}
	f.mu.Unlock()
}

// setDown makes the sink refuse connections, or accept them again.
func (f *frozenSink) setDown(down bool) {
	f.mu.Lock()
	f.down = down
	f.mu.Unlock()
}

func (f *frozenSink) wait(ctx context.Context) error {
	f.mu.Lock()
	frozen, down := f.frozen, f.down
	f.mu.Unlock()
	if down {
		return errors.New("failed to connect: connection refused")
	}
	if frozen != nil {
		select {
		case <-frozen:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

func (f *frozenSink) Get(ctx context.Context, account, month string) (Totals, error) {
	f.gets.Add(1)
	if err := f.wait(ctx); err != nil {
		return Totals{}, err
	}
	return f.Sink.Get(ctx, account, month)
}

func (f *frozenSink) Add(ctx context.Context, b Batch) error {
	if err := f.wait(ctx); err != nil {
		return err
	}
	return f.Sink.Add(ctx, b)
}

func newFrozenSink(t *testing.T, account string, durable int64) *frozenSink {
	t.Helper()
	fs, err := OpenFile(filepath.Join(t.TempDir(), "usage.json"))
	if err != nil {
		t.Fatal(err)
	}
	if durable > 0 {
		if err := fs.Add(context.Background(), Batch{Deltas: []Delta{{Account: account, Month: Month(time.Now()),
			Totals: Totals{Verifications: durable}}}}); err != nil {
			t.Fatal(err)
		}
	}
	return &frozenSink{Sink: fs}
}

// chargeWithin charges and fails the test when the charge has not returned after limit.
func chargeWithin(t *testing.T, m *Meter, c Charge, limit time.Duration) (Receipt, error, time.Duration) {
	t.Helper()
	return gatewaytest.Within(t, limit, func() (Receipt, error) { return m.Charge(context.Background(), c) })
}

// The durable sink hangs when an account is first counted: the call waits at most the store
// timeout and is counted; later calls do not wait at all; once the sink answers again the
// durable totals join in, and the quota holds on the sum.
func TestSinkHangsLocal(t *testing.T) {
	sink := newFrozenSink(t, "h", 15)
	sink.freeze()
	defer sink.thaw()
	m, err := NewMeter(Config{Sink: sink, Log: quiet(), StoreTimeout: 100 * time.Millisecond, Retry: 200 * time.Millisecond,
		FlushEvery: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	c := Charge{Account: "h", Quota: 20, Call: Lookup}
	for i := range 10 {
		r, err, took := chargeWithin(t, m, c, 3*time.Second)
		if err != nil || r.Units != 1 {
			t.Fatalf("call %d with the sink frozen: %v, %d units", i+1, err, r.Units)
		}
		if i == 0 {
			t.Logf("first call with the sink frozen: counted after %v", took)
		} else if took > 50*time.Millisecond {
			t.Errorf("call %d waited %v; only the first may wait for the sink", i+1, took)
		}
	}

	// The sink continues: its 15 join the 10 counted here, over the quota of 20. Fewer
	// than 10 more calls here must see that.
	sink.thaw()
	for i := 0; ; i++ {
		_, err, _ := chargeWithin(t, m, c, 3*time.Second)
		if errors.Is(err, ErrQuota) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if i == 5 {
			t.Fatal("the durable totals did not join the local ones after the sink came back")
		}
		time.Sleep(250 * time.Millisecond)
	}
	got, err := m.Used(context.Background(), "h", time.Now())
	if err != nil || got.Verifications < 25 || got.Verifications > 30 {
		t.Errorf("used %+v (%v): want the durable 15 plus the 10 to 15 counted here", got, err)
	}
}

// Redis fails (one time-out is enough) while Postgres hangs: the fallback to local counting
// must not wait on Postgres for the account's totals.
func TestRedisDownSinkFrozen(t *testing.T) {
	srv := gatewaytest.StartRedisServer(t)
	rdb := srv.FailFastClient(t)
	sink := newFrozenSink(t, "r", 3)
	defer sink.thaw()
	m, _ := NewMeter(Config{Sink: sink, Redis: rdb, Prefix: "f:", Timeout: 50 * time.Millisecond, Retry: time.Hour,
		StoreTimeout: 100 * time.Millisecond, Log: quiet(), FlushEvery: 50 * time.Millisecond})
	defer m.Close()
	c := Charge{Account: "r", Quota: Unlimited, Call: Validate}
	for range 2 {
		if _, err, _ := chargeWithin(t, m, c, 3*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	sink.freeze()
	srv.Kill()
	var slowest time.Duration
	for range 20 {
		r, err, took := chargeWithin(t, m, c, 3*time.Second)
		if err != nil || r.Units != 1 {
			t.Fatalf("without Redis, Postgres frozen: %v", err)
		}
		slowest = max(slowest, took)
	}
	if !m.Degraded() {
		t.Error("not counting locally")
	}
	if slowest > 300*time.Millisecond {
		t.Errorf("a call waited %v (Redis time-out 50ms, store time-out 100ms)", slowest)
	}
	t.Logf("without Redis, Postgres frozen: slowest call %v", slowest)
	sink.thaw()
	deadline := time.Now().Add(5 * time.Second)
	for {
		got, err := m.Used(context.Background(), "r", time.Now())
		if err == nil && got.Verifications == 3+22 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the thaw: used %+v (%v), want 25", got, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A month missing in Redis while Postgres hangs: counted here meanwhile, and Redis starts
// from the durable totals plus those calls, exactly, once Postgres answers.
func TestRedisStartWaitsForSink(t *testing.T) {
	rdb, prefix := gatewaytest.Redis(t)
	sink := newFrozenSink(t, "s", 7)
	sink.freeze()
	defer sink.thaw()
	m, _ := NewMeter(Config{Sink: sink, Redis: rdb, Prefix: prefix, Timeout: time.Second, Retry: 100 * time.Millisecond,
		StoreTimeout: 100 * time.Millisecond, Log: quiet(), FlushEvery: 50 * time.Millisecond})
	defer m.Close()
	c := Charge{Account: "s", Quota: Unlimited, Call: Lookup}
	for range 3 {
		if _, err, took := chargeWithin(t, m, c, 3*time.Second); err != nil || took > 500*time.Millisecond {
			t.Fatalf("month not in Redis, Postgres frozen: %v after %v", err, took)
		}
	}
	if m.Degraded() {
		t.Error("Redis was answering; it must not be given up for a slow sink")
	}
	key := prefix + "usage:" + Month(time.Now()) + ":{s}"
	if n, _ := rdb.Exists(context.Background(), key).Result(); n != 0 {
		t.Fatal("Redis started the month without the durable totals")
	}
	sink.thaw()
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, err, _ := chargeWithin(t, m, c, 3*time.Second); err != nil {
			t.Fatal(err)
		}
		if n, _ := rdb.Exists(context.Background(), key).Result(); n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("Redis never started the month")
		}
		time.Sleep(20 * time.Millisecond)
	}
	// One more in Redis, to have a call counted there for sure.
	if _, err := m.Charge(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // a flush
	durable, _ := sink.Sink.Get(context.Background(), "s", Month(time.Now()))
	v, err := rdb.HGet(context.Background(), key, "v").Int64()
	if err != nil || v != durable.Verifications {
		t.Errorf("Redis holds %d (%v); the durable sink %d: every call counted once in each", v, err, durable.Verifications)
	}
	if v < 7+5 {
		t.Errorf("Redis holds %d, want at least the durable 7 and the 5 calls", v)
	}
}

// Reads of the durable totals while calls are counted and flushed lose and double nothing.
func TestSeedExact(t *testing.T) {
	sink := newFrozenSink(t, "x", 0)
	m, _ := NewMeter(Config{Sink: sink, Log: quiet(), FlushEvery: time.Millisecond})
	defer m.Close()
	ctx := context.Background()
	var wg sync.WaitGroup
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			m.local.forget() // as when Redis goes away: the totals are read again
			m.awaitSeed(ctx, acctMonth{"x", Month(time.Now())}, false)
		}
	}()
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 300 {
				if _, err := m.Charge(ctx, Charge{Account: "x", Quota: Unlimited, Call: Validate}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	if err := m.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	m.local.forget()
	got, err := m.Used(ctx, "x", time.Now())
	durable, _ := sink.Sink.Get(ctx, "x", Month(time.Now()))
	if err != nil || got.Verifications != 2400 || durable.Verifications != 2400 {
		t.Errorf("used %d (%v), durable %d; want 2400 each", got.Verifications, err, durable.Verifications)
	}
	if n := sink.gets.Load(); n < 10 {
		t.Errorf("only %d reads of the durable totals: the test did not race them against the calls", n)
	}
}
