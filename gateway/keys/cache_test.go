package keys

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/adreswijzer/adreswijzer/gateway/gatewaytest"
)

// remote stands for the Postgres key store: it answers, fails at once (refused
// connections), or hangs until its context ends (a frozen server; the driver heeds the
// context).
type remote struct {
	Store
	mode    atomic.Int32 // 0 answer, 1 fail, 2 hang
	lookups atomic.Int32
	release chan struct{} // when set, answers wait for it
}

const (
	answer = iota
	fail
	hang
)

func (r *remote) Lookup(ctx context.Context, h Hash) (*Key, error) {
	r.lookups.Add(1)
	switch r.mode.Load() {
	case fail:
		return nil, errors.New("failed to connect to the database: connection refused")
	case hang:
		<-ctx.Done()
		return nil, ctx.Err()
	}
	if r.release != nil {
		<-r.release
	}
	return r.Store.Lookup(ctx, h)
}

func newRemote(t *testing.T) (*remote, *Key, string) {
	t.Helper()
	fs, err := OpenFile(filepath.Join(t.TempDir(), "keys.json"))
	if err != nil {
		t.Fatal(err)
	}
	k, secret, _ := New(Options{Kind: Live, Account: "a"}, time.Now())
	if err := fs.Create(context.Background(), k); err != nil {
		t.Fatal(err)
	}
	return &remote{Store: fs}, k, secret
}

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// clock is a settable now.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// lookupWithin runs a lookup and fails the test when it has not returned after limit: a
// request is never to wait on the store beyond the timeout.
func lookupWithin(t *testing.T, c *Cache, h Hash, limit time.Duration) (*Key, error, time.Duration) {
	t.Helper()
	return gatewaytest.Within(t, limit, func() (*Key, error) { return c.Lookup(context.Background(), h) })
}

// A store that hangs holds no request beyond the timeout, even when the request has no
// deadline of its own, and is then not asked again by every request.
func TestCacheStoreHangs(t *testing.T) {
	r, _, secret := newRemote(t)
	r.mode.Store(hang)
	c := NewCache(r, CacheConfig{Timeout: 100 * time.Millisecond, Retry: time.Hour, Log: quietLog()})
	_, err, took := lookupWithin(t, c, HashOf(secret), 3*time.Second)
	if !errors.Is(err, ErrUnavailable) {
		t.Errorf("hanging store: %v, want ErrUnavailable", err)
	}
	t.Logf("hanging store: refused after %v", took)
	for range 50 {
		if _, err, took := lookupWithin(t, c, HashOf(secret), 3*time.Second); !errors.Is(err, ErrUnavailable) || took > 50*time.Millisecond {
			t.Fatalf("while the store is known to hang: %v after %v; want ErrUnavailable at once", err, took)
		}
	}
	if n := r.lookups.Load(); n != 1 {
		t.Errorf("the hanging store was asked %d times, want once per retry interval", n)
	}
}

// A store that heeds no context at all still holds no request beyond the timeout.
func TestCacheStoreIgnoresContext(t *testing.T) {
	r, _, secret := newRemote(t)
	r.release = make(chan struct{})
	defer close(r.release)
	c := NewCache(r, CacheConfig{Timeout: 100 * time.Millisecond, Log: quietLog()})
	if _, err, _ := lookupWithin(t, c, HashOf(secret), 3*time.Second); !errors.Is(err, ErrUnavailable) {
		t.Errorf("stuck store: %v, want ErrUnavailable", err)
	}
}

// While the store fails, a known key is served past its TTL up to MaxStale, unknown keys
// are refused without asking the store each time, and once the store answers again what
// it says holds: a key revoked meanwhile is refused.
func TestCacheStaleIfError(t *testing.T) {
	r, k, secret := newRemote(t)
	clk := &clock{t: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)}
	c := NewCache(r, CacheConfig{TTL: 10 * time.Second, MaxStale: 10 * time.Minute, Retry: time.Second, Log: quietLog()})
	c.now = clk.now
	ctx := context.Background()
	h := HashOf(secret)
	if got, err := c.Lookup(ctx, h); err != nil || got.ID != k.ID {
		t.Fatalf("first lookup: %v", err)
	}

	r.mode.Store(fail)
	clk.add(11 * time.Second) // past the TTL
	if got, err := c.Lookup(ctx, h); err != nil || got.ID != k.ID || !got.Active() {
		t.Fatalf("known key while the store fails: %v; want it served from the cache", err)
	}
	asked := r.lookups.Load()
	// Another key: the secret with its last character changed (to one it is not: the
	// secrets are random, and one in dozens ends in "x").
	last := "x"
	if strings.HasSuffix(secret, last) {
		last = "y"
	}
	unknown := HashOf(secret[:len(secret)-1] + last)
	for range 100 {
		if _, err := c.Lookup(ctx, h); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Lookup(ctx, unknown); !errors.Is(err, ErrUnavailable) {
			t.Fatalf("unknown key while the store fails: %v, want ErrUnavailable", err)
		}
	}
	if n := r.lookups.Load() - asked; n != 0 {
		t.Errorf("the failing store was asked %d more times within the retry interval, want none", n)
	}
	clk.add(time.Second)
	c.Lookup(ctx, h)
	if n := r.lookups.Load() - asked; n != 1 {
		t.Errorf("after the retry interval the store was asked %d times, want one probe", n)
	}

	// Revoked meanwhile, and the store answers again: the revocation holds at the next probe.
	if err := r.Store.Revoke(ctx, k.ID, clk.now()); err != nil {
		t.Fatal(err)
	}
	r.mode.Store(answer)
	clk.add(time.Second)
	if got, err := c.Lookup(ctx, h); err != nil || got.Active() {
		t.Errorf("after the store came back: %v, active %v; want the revoked key", err, got != nil && got.Active())
	}

	// Not for ever: past MaxStale a key the store cannot confirm is refused.
	r2, k2, secret2 := newRemote(t)
	c2 := NewCache(r2, CacheConfig{TTL: 10 * time.Second, MaxStale: time.Minute, Retry: time.Second, Log: quietLog()})
	c2.now = clk.now
	if got, err := c2.Lookup(ctx, HashOf(secret2)); err != nil || got.ID != k2.ID {
		t.Fatal(err)
	}
	r2.mode.Store(fail)
	clk.add(time.Minute + 9*time.Second)
	if _, err := c2.Lookup(ctx, HashOf(secret2)); err != nil {
		t.Errorf("within MaxStale: %v", err)
	}
	clk.add(2 * time.Second)
	if _, err := c2.Lookup(ctx, HashOf(secret2)); !errors.Is(err, ErrUnavailable) {
		t.Errorf("past MaxStale: %v, want ErrUnavailable", err)
	}
}

// A key that expires under load is one query, not one per request waiting.
func TestCacheOneQueryPerKey(t *testing.T) {
	r, k, secret := newRemote(t)
	r.release = make(chan struct{})
	c := NewCache(r, CacheConfig{Timeout: 5 * time.Second, Log: quietLog()})
	errs := make(chan error, 20)
	for range 20 {
		go func() {
			got, err := c.Lookup(context.Background(), HashOf(secret))
			if err == nil && got.ID != k.ID {
				err = errors.New("another key")
			}
			errs <- err
		}()
	}
	// Those that come once the answer is in find it in the cache.
	deadline := time.Now().Add(3 * time.Second)
	for r.lookups.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond)
	close(r.release)
	for range 20 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if n := r.lookups.Load(); n != 1 {
		t.Errorf("%d queries for one key, want 1", n)
	}
}
