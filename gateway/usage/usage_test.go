package usage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/adreswijzer/adreswijzer/gateway/gatewaytest"
)

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func fileMeter(t *testing.T, path string, rdb *redis.Client, prefix string) *Meter {
	t.Helper()
	sink, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewMeter(Config{Sink: sink, Redis: rdb, Prefix: prefix, Timeout: time.Second, Log: quiet(),
		SessionIdle: time.Minute, FlushEvery: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// modeMeter is a meter on a file sink of its own, alone ("local") or in front of the real
// Redis under a fresh prefix ("redis"): the tests that must hold both ways run once per mode.
func modeMeter(t *testing.T, mode string) *Meter {
	t.Helper()
	var rdb *redis.Client
	var prefix string
	if mode == "redis" {
		rdb, prefix = gatewaytest.Redis(t)
	}
	return fileMeter(t, filepath.Join(t.TempDir(), "usage.json"), rdb, prefix)
}

type step struct {
	call    Call
	session string
	units   int // verifications this call counts
}

// confirmCall stands in the tables for a validate with customerConfirmed.
const confirmCall Call = 0xff

// chargeOf is the charge of a call of the tables.
func chargeOf(account string, call Call, session string) Charge {
	c := Charge{Account: account, Quota: Unlimited, Call: call, Session: session}
	if call == confirmCall {
		c.Call, c.Confirmed = Validate, true
	}
	return c
}

// The counting rules, as one sequence: sessions, the one-in-ten rule, validate ending a
// session, its confirmation.
var rules = []step{
	{Suggest, "s1", 1}, {Suggest, "s1", 0}, {Lookup, "s1", 0}, {Suggest, "s1", 0}, {Validate, "s1", 0},
	{Lookup, "s1", 1}, {Validate, "s1", 0}, // a new session after the validate
	{Validate, "s1", 1}, {Validate, "s1", 1}, // each validate after the one that ended it is another address
	{Validate, "s2", 1}, {confirmCall, "s2", 0}, // a validate without an open session counts; its confirmation does not
	{confirmCall, "s2", 1}, {confirmCall, "s2", 1}, // only one confirmation is free
	{Lookup, "", 1}, {Validate, "", 1}, {Lookup, "", 1},
	{Suggest, "", 1}, {Suggest, "", 0}, {Suggest, "", 0}, {Suggest, "", 0}, {Suggest, "", 0},
	{Suggest, "", 0}, {Suggest, "", 0}, {Suggest, "", 0}, {Suggest, "", 0}, {Suggest, "", 0},
	{Suggest, "", 1}, // the 11th
	{Lookup, "s3", 1}, {Suggest, "", 0}, {Lookup, "s4", 1}, {Lookup, "s3", 0},
}

func runRules(t *testing.T, m *Meter, account string) {
	t.Helper()
	total := 0
	for i, s := range rules {
		r, err := m.Charge(context.Background(), chargeOf(account, s.call, s.session))
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if r.Units != s.units {
			t.Errorf("step %d (%v %q): %d units, want %d", i, s.call, s.session, r.Units, s.units)
		}
		total += s.units
	}
	got, err := m.Used(context.Background(), account, time.Now())
	if err != nil || got.Verifications != int64(total) || got.SuggestCalls != 12 {
		t.Errorf("used %+v (%v), want %d verifications and 12 suggest calls", got, err, total)
	}
}

func TestRulesLocal(t *testing.T) {
	m := fileMeter(t, filepath.Join(t.TempDir(), "usage.json"), nil, "")
	runRules(t, m, "acct")
}

func TestRulesRedis(t *testing.T) {
	rdb, prefix := gatewaytest.Redis(t)
	m := fileMeter(t, filepath.Join(t.TempDir(), "usage.json"), rdb, prefix)
	runRules(t, m, "acct")
	if m.Degraded() {
		t.Error("counted locally")
	}
}

func TestQuotaAndRefund(t *testing.T) {
	for _, mode := range []string{"local", "redis"} {
		t.Run(mode, func(t *testing.T) {
			m := modeMeter(t, mode)
			ctx := context.Background()
			c := Charge{Account: "q", Quota: 2, Call: Lookup}
			r1, err1 := m.Charge(ctx, c)
			_, err2 := m.Charge(ctx, c)
			_, err3 := m.Charge(ctx, c)
			if err1 != nil || err2 != nil || !errors.Is(err3, ErrQuota) {
				t.Fatalf("charges: %v %v %v", err1, err2, err3)
			}
			// An open session's later calls cost nothing and pass the exhausted quota.
			m.Refund(ctx, r1)
			if _, err := m.Charge(ctx, Charge{Account: "q", Quota: 2, Call: Suggest, Session: "x"}); err != nil {
				t.Fatal(err)
			}
			if _, err := m.Charge(ctx, Charge{Account: "q", Quota: 2, Call: Validate, Session: "x"}); err != nil {
				t.Errorf("closing a counted session was refused: %v", err)
			}
			// A refunded opening call leaves the session closed, so its next call counts.
			r, err := m.Charge(ctx, Charge{Account: "q", Quota: 10, Call: Lookup, Session: "y"})
			if err != nil || r.Units != 1 {
				t.Fatal(err)
			}
			m.Refund(ctx, r)
			if r, _ := m.Charge(ctx, Charge{Account: "q", Quota: 10, Call: Lookup, Session: "y"}); r.Units != 1 {
				t.Error("refunded session stayed open")
			}
			// A refunded closing call reopens the session.
			r, _ = m.Charge(ctx, Charge{Account: "q", Quota: 10, Call: Validate, Session: "y"})
			m.Refund(ctx, r)
			if r, _ := m.Charge(ctx, Charge{Account: "q", Quota: 10, Call: Lookup, Session: "y"}); r.Units != 0 {
				t.Error("refunded validate closed the session")
			}
			if got, _ := m.Used(ctx, "q", time.Now()); got.Verifications != 3 {
				t.Errorf("used %d, want 3", got.Verifications)
			}
		})
	}
}

// A session covers SessionCalls calls: one sessionId used for ever (every call renewing
// its idle time) counts again every SessionCalls calls; a validate ends a spent session
// counting one; refunds give back exactly what a call took, in Redis as in memory.
func TestSessionCalls(t *testing.T) {
	for _, mode := range []string{"local", "redis"} {
		t.Run(mode, func(t *testing.T) {
			m := modeMeter(t, mode)
			ctx := context.Background()
			charge := func(call Call, session string) Receipt {
				t.Helper()
				r, err := m.Charge(ctx, Charge{Account: "f", Quota: Unlimited, Call: call, Session: session})
				if err != nil {
					t.Fatal(err)
				}
				return r
			}
			// calls makes n calls of a session, lookups and suggests in turn, and returns the
			// verifications they counted.
			calls := func(session string, n int) int {
				t.Helper()
				units := 0
				for i := range n {
					call := Lookup
					if i%2 == 1 {
						call = Suggest
					}
					units += charge(call, session).Units
				}
				return units
			}
			if u := calls("forever", 2*SessionCalls+1); u != 3 {
				t.Errorf("%d calls of one session counted %d, want 3", 2*SessionCalls+1, u)
			}
			// 2*SessionCalls+1 calls: the third session has had one call.
			if u := calls("forever", SessionCalls-1); u != 0 {
				t.Errorf("the rest of a session counted %d", u)
			}
			// A validate after the session's calls counts, and ends it.
			if r := charge(Validate, "forever"); r.Units != 1 {
				t.Errorf("validate of a spent session counted %d, want 1", r.Units)
			}
			if r := charge(Lookup, "forever"); r.Units != 1 {
				t.Errorf("the call after that validate counted %d, want 1", r.Units)
			}

			// Refunds. A refunded call inside a session gives its place back.
			calls("r1", SessionCalls-1)
			charge(Lookup, "r1") // the session's last call
			r := charge(Lookup, "r1")
			if r.Units != 1 {
				t.Fatalf("call %d of a session counted %d", SessionCalls+1, r.Units)
			}
			// The new session's opening refunded: the old one is spent again.
			m.Refund(ctx, r)
			if r := charge(Suggest, "r1"); r.Units != 1 {
				t.Errorf("after a refunded renewal the next call counted %d, want 1", r.Units)
			}
			calls("r2", SessionCalls-1)
			m.Refund(ctx, charge(Lookup, "r2-other")) // another session: nothing given back here
			m.Refund(ctx, charge(Lookup, "r2"))       // the 50th call, refunded
			if r := charge(Lookup, "r2"); r.Units != 0 {
				t.Errorf("a refunded call used up its session's place: the next counted %d", r.Units)
			}
			if r := charge(Lookup, "r2"); r.Units != 1 {
				t.Errorf("call %d of a session counted %d, want 1", SessionCalls+1, r.Units)
			}
			// A refunded validate of a spent session leaves it spent.
			calls("r3", SessionCalls)
			r = charge(Validate, "r3")
			m.Refund(ctx, r)
			if r := charge(Validate, "r3"); r.Units != 1 {
				t.Errorf("after a refunded closing validate, the spent session's validate counted %d", r.Units)
			}
			// forever 3+1+1, r1 1+1, r2 1+1, r3 1+1; the refunded calls nothing.
			if got, _ := m.Used(ctx, "f", time.Now()); got.Verifications != 11 {
				t.Errorf("used %d, want 11", got.Verifications)
			}
		})
	}
}

// A validate ends its session: the next call of the sessionId, another validate too, is
// another address and counts. The one exception is the confirmation (customerConfirmed) right
// after the validate that ended the session, within the session's calls and idle time: the
// same address, free, and the end of the session, so that neither a repeated confirmation nor
// customerConfirmed on every validate makes several addresses one. Refunds give back exactly
// what a call took: a refunded confirmation leaves the confirmation free and the session
// closed, a refunded counted validate leaves no confirmation free behind it.
func TestConfirmingValidate(t *testing.T) {
	type call struct {
		call   Call
		units  int  // what the charge counts
		refund bool // refunded at once, as a call the register did not answer
		wait   bool // the session's idle time passes first
	}
	repeat := func(n int, c call) []call {
		cs := make([]call, n)
		for i := range cs {
			cs[i] = c
		}
		return cs
	}
	steps := func(parts ...[]call) []call { return slices.Concat(parts...) }
	var (
		lookup   = call{call: Lookup}
		suggest  = call{call: Suggest}
		validate = call{call: Validate}
		confirm  = call{call: confirmCall}
		counted  = func(c call) call { c.units = 1; return c }
		refunded = func(c call) call { c.refund = true; return c }
		later    = func(c call) call { c.wait = true; return c }
	)
	cases := []struct {
		name  string
		calls []call
		want  int64 // verifications at the end
	}{
		{"lookup, validate, confirm", []call{counted(lookup), validate, confirm}, 1},
		{"validates of other addresses in one session each count",
			[]call{counted(lookup), validate, counted(validate), counted(validate), counted(validate)}, 4},
		{"a validate repeated without confirmation counts", []call{counted(suggest), lookup, validate, counted(validate)}, 2},
		{"a confirmation right after a repeated validate", []call{counted(lookup), validate, counted(validate), confirm}, 2},
		{"a re-check after the confirmation counts", []call{counted(suggest), lookup, validate, confirm, counted(validate)}, 2},
		{"a repeated confirmation counts", []call{counted(lookup), validate, confirm, counted(confirm)}, 2},
		{"no free confirmation after a confirming validate", []call{counted(lookup), confirm, counted(confirm)}, 2},
		{"confirming every validate pays every validate", repeat(4, counted(confirm)), 4},
		{"a lookup after the closing validate is a new address",
			[]call{counted(lookup), validate, counted(lookup), validate}, 2},
		{"a lookup after the confirmation is a new address",
			[]call{counted(lookup), validate, confirm, counted(suggest), validate, confirm}, 2},
		{"validate, confirm without earlier calls", []call{counted(validate), confirm}, 1},
		{"a confirmation after the idle time counts", []call{counted(lookup), validate, later(counted(confirm))}, 2},
		{"a confirmation after the session's calls counts",
			steps([]call{counted(lookup)}, repeat(SessionCalls-2, lookup), []call{validate, counted(confirm)}), 2},
		{"a refunded lookup gives back its place among the session's calls",
			steps([]call{counted(lookup)}, repeat(SessionCalls-3, lookup), []call{refunded(lookup), validate, confirm}), 1},
		{"a refunded confirmation leaves the confirmation free",
			[]call{counted(lookup), validate, refunded(confirm), confirm}, 1},
		{"a refunded confirmation does not reopen the session",
			[]call{counted(lookup), validate, refunded(confirm), counted(lookup)}, 2},
		{"a refunded counted validate leaves no free confirmation",
			[]call{refunded(counted(validate)), counted(confirm)}, 1},
		{"a refunded second validate leaves the session closed",
			[]call{counted(lookup), validate, refunded(counted(validate)), confirm}, 1},
		{"a refunded lookup after the closing validate keeps the session closed",
			[]call{counted(lookup), validate, refunded(counted(lookup)), confirm}, 1},
		{"a refunded closing validate reopens the session, not a closed one",
			[]call{counted(lookup), refunded(validate), lookup, validate, confirm}, 1},
	}
	for _, mode := range []string{"local", "redis"} {
		t.Run(mode, func(t *testing.T) {
			m := modeMeter(t, mode)
			const idle = time.Second
			m.Tune(idle, time.Second, 0)
			ctx := context.Background()
			for i, tc := range cases {
				account := fmt.Sprintf("confirm-%d", i)
				for j, c := range tc.calls {
					if c.wait {
						time.Sleep(idle + 200*time.Millisecond)
					}
					r, err := m.Charge(ctx, chargeOf(account, c.call, "checkout"))
					if err != nil {
						t.Fatalf("%s: call %d: %v", tc.name, j, err)
					}
					if r.Units != c.units {
						t.Errorf("%s: call %d (%v) counted %d, want %d", tc.name, j, c.call, r.Units, c.units)
					}
					if c.refund {
						m.Refund(ctx, r)
					}
				}
				if got, _ := m.Used(ctx, account, time.Now()); got.Verifications != tc.want {
					t.Errorf("%s: used %d, want %d", tc.name, got.Verifications, tc.want)
				}
			}
			if mode == "redis" && m.Degraded() {
				t.Error("counted locally")
			}
		})
	}
}

// A call that verifies several addresses (an agent's batch) counts each, all or nothing
// against the quota; in a session and for suggest calls Units changes nothing.
func TestUnits(t *testing.T) {
	for _, mode := range []string{"local", "redis"} {
		t.Run(mode, func(t *testing.T) {
			m := modeMeter(t, mode)
			ctx := context.Background()
			for i, c := range []struct {
				charge Charge
				units  int
				err    error
			}{
				{Charge{Call: Validate, Units: 30}, 30, nil},
				{Charge{Call: Lookup, Units: 0}, 1, nil},
				{Charge{Call: Validate, Units: 10}, 0, ErrQuota}, // 41 > 40
				{Charge{Call: Validate, Units: 9}, 9, nil},
				{Charge{Call: Suggest, Units: 5}, 0, ErrQuota}, // the first of ten counts one: 41
				{Charge{Call: Lookup, Session: "s", Units: 5}, 0, ErrQuota},
			} {
				c.charge.Account, c.charge.Quota = "u", 40
				r, err := m.Charge(ctx, c.charge)
				if !errors.Is(err, c.err) || r.Units != c.units {
					t.Errorf("charge %d: %d units, %v; want %d, %v", i, r.Units, err, c.units, c.err)
				}
				if i == 0 {
					m.Refund(ctx, r)
					if got, _ := m.Used(ctx, "u", time.Now()); got.Verifications != 0 {
						t.Errorf("a refunded batch left %d", got.Verifications)
					}
					if r, err = m.Charge(ctx, c.charge); err != nil || r.Units != 30 {
						t.Fatal(err)
					}
				}
			}
			if got, _ := m.Used(ctx, "u", time.Now()); got.Verifications != 40 {
				t.Errorf("used %d, want 40", got.Verifications)
			}
		})
	}
}

// Part of a charge of several units goes back (an agent's batch with addresses that were
// never checked), locally and in Redis; a charge in a session or a suggest call cannot be
// split.
func TestPartRefund(t *testing.T) {
	for _, mode := range []string{"local", "redis"} {
		t.Run(mode, func(t *testing.T) {
			m := modeMeter(t, mode)
			ctx := context.Background()
			r, err := m.Charge(ctx, Charge{Account: "p", Quota: 10, Call: Validate, Units: 10})
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range []int{0, 11, -1} {
				if _, ok := r.Part(n); ok {
					t.Errorf("part of %d units of 10", n)
				}
			}
			part, ok := r.Part(4)
			if !ok || part.Units != 4 {
				t.Fatalf("part %+v %v", part, ok)
			}
			m.Refund(ctx, part)
			if got, _ := m.Used(ctx, "p", time.Now()); got.Verifications != 6 {
				t.Errorf("used %d after giving back 4 of 10, want 6", got.Verifications)
			}
			// The quota sees it: four more fit, a fifth does not.
			if _, err := m.Charge(ctx, Charge{Account: "p", Quota: 10, Call: Validate, Units: 4}); err != nil {
				t.Errorf("four more: %v", err)
			}
			if _, err := m.Charge(ctx, Charge{Account: "p", Quota: 10, Call: Lookup}); !errors.Is(err, ErrQuota) {
				t.Errorf("an eleventh: %v", err)
			}
			for _, c := range []Charge{{Call: Lookup, Session: "s"}, {Call: Suggest}} {
				c.Account, c.Quota = "q", Unlimited
				r, err := m.Charge(ctx, c)
				if err != nil {
					t.Fatal(err)
				}
				if _, ok := r.Part(1); ok {
					t.Errorf("%+v split", c)
				}
			}
		})
	}
}

// Counts survive a restart: Close flushes, a new Meter reads them back.
func TestDurableFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "usage.json")
	sink, _ := OpenFile(path)
	m, _ := NewMeter(Config{Sink: sink, Log: quiet(), FlushEvery: time.Hour})
	for range 3 {
		if _, err := m.Charge(context.Background(), Charge{Account: "d", Quota: 5, Call: Validate}); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	m2 := fileMeter(t, path, nil, "")
	ctx := context.Background()
	if got, _ := m2.Used(ctx, "d", time.Now()); got.Verifications != 3 {
		t.Fatalf("after restart: %d", got.Verifications)
	}
	for range 2 {
		_, _ = m2.Charge(ctx, Charge{Account: "d", Quota: 5, Call: Validate})
	}
	if _, err := m2.Charge(ctx, Charge{Account: "d", Quota: 5, Call: Validate}); !errors.Is(err, ErrQuota) {
		t.Errorf("quota not enforced across the restart: %v", err)
	}
}

// A month missing in Redis starts from the durable sink.
func TestRedisSeededFromSink(t *testing.T) {
	rdb, prefix := gatewaytest.Redis(t)
	path := filepath.Join(t.TempDir(), "usage.json")
	sink, _ := OpenFile(path)
	month := Month(time.Now())
	if err := sink.Add(context.Background(), Batch{Deltas: []Delta{{Account: "s", Month: month, Totals: Totals{Verifications: 7, SuggestCalls: 3}}}}); err != nil {
		t.Fatal(err)
	}
	m := fileMeter(t, path, rdb, prefix)
	r, err := m.Charge(context.Background(), Charge{Account: "s", Quota: 8, Call: Lookup})
	if err != nil || r.Units != 1 {
		t.Fatal(err)
	}
	if _, err := m.Charge(context.Background(), Charge{Account: "s", Quota: 8, Call: Lookup}); !errors.Is(err, ErrQuota) {
		t.Errorf("seeded quota not enforced: %v", err)
	}
	if v, _ := rdb.HGet(context.Background(), prefix+"usage:"+month+":{s}", "v").Int(); v != 8 {
		t.Errorf("redis holds %d", v)
	}
}

// Redis goes away: counting goes on locally, and the counts reach Redis when it is back.
func TestRedisOutage(t *testing.T) {
	srv := gatewaytest.StartRedisServer(t)
	rdb := srv.FailFastClient(t)
	m := outageMeter(t, rdb, "o:")
	ctx := context.Background()
	charge := func() {
		t.Helper()
		if _, err := m.Charge(ctx, Charge{Account: "o", Quota: Unlimited, Call: Lookup}); err != nil {
			t.Fatal(err)
		}
	}
	charge()
	charge()
	srv.Kill()
	start := time.Now()
	charge()
	charge()
	if d := time.Since(start); d > 150*time.Millisecond || !m.Degraded() {
		t.Errorf("charges without Redis took %v (degraded %v)", d, m.Degraded())
	}
	if ok, _, _ := m.CountDaily(ctx, "key_t", 1, 1); !ok {
		t.Error("daily count without Redis")
	}
	if ok, _, _ := m.CountDaily(ctx, "key_t", 1, 1); ok {
		t.Error("daily cap not kept locally")
	}
	time.Sleep(100 * time.Millisecond)
	if got, _ := m.Used(ctx, "o", time.Now()); got.Verifications != 4 {
		t.Errorf("local view %d, want 4", got.Verifications)
	}
	srv.Start() // empty: it lost everything
	time.Sleep(150 * time.Millisecond)
	charge()
	if m.Degraded() {
		t.Fatal("not back on Redis")
	}
	v, err := srv.Client().HGet(ctx, "o:usage:"+Month(time.Now())+":{o}", "v").Int()
	if err != nil || v != 5 {
		t.Errorf("redis after the outage: %d (%v), want 5 (seeded from the durable counts)", v, err)
	}
}

func TestDailyCap(t *testing.T) {
	for _, mode := range []string{"local", "redis"} {
		t.Run(mode, func(t *testing.T) {
			m := modeMeter(t, mode)
			// Calls that do not fit are refused and not counted: the batch of two after the
			// first two leaves room for one more single call. What is left is told either way.
			var got []string
			for _, calls := range []int{1, 1, 2, 1, 1, 1} {
				ok, left, wait := m.CountDaily(context.Background(), "key_x", 3, calls)
				got = append(got, fmt.Sprintf("%v/%d", ok, left))
				if wait <= 0 || wait > 24*time.Hour {
					t.Errorf("wait %v", wait)
				}
			}
			if want := "[true/2 true/1 false/1 true/0 false/0 false/0]"; fmt.Sprint(got) != want {
				t.Errorf("%v, want %s", got, want)
			}
			// The dashboard reads the same counter, and reading counts nothing.
			for range 2 {
				if n, err := m.DailyCalls(context.Background(), "key_x"); err != nil || n != 3 {
					t.Errorf("daily calls %d (%v), want 3", n, err)
				}
			}
			if n, err := m.DailyCalls(context.Background(), "key_y"); err != nil || n != 0 {
				t.Errorf("daily calls of a key without calls: %d (%v)", n, err)
			}
		})
	}
}

// BenchmarkChargeLocal is the counting cost per call without Redis.
func BenchmarkChargeLocal(b *testing.B) {
	sink, _ := OpenFile(filepath.Join(b.TempDir(), "usage.json"))
	m, _ := NewMeter(Config{Sink: sink, Log: quiet()})
	defer m.Close()
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		_, _ = m.Charge(ctx, Charge{Account: "bench", Quota: Unlimited, Call: Lookup, Session: sessions[i%len(sessions)]})
	}
}

var sessions = func() []string {
	s := make([]string, 512)
	for i := range s {
		s[i] = fmt.Sprintf("chk-%d", i)
	}
	return s
}()

// Redis stalls without losing data (a pause, a partition): what was counted locally
// meanwhile is added to its totals once it answers again.
func TestRedisStallReplayed(t *testing.T) {
	srv := gatewaytest.StartRedisServer(t)
	rdb := srv.FailFastClient(t)
	m := outageMeter(t, rdb, "p:")
	ctx := context.Background()
	charge := func() {
		t.Helper()
		if _, err := m.Charge(ctx, Charge{Account: "p", Quota: Unlimited, Call: Validate}); err != nil {
			t.Fatal(err)
		}
	}
	charge()
	admin := srv.Client()
	defer admin.Close()
	if err := admin.Do(ctx, "CLIENT", "PAUSE", "400", "ALL").Err(); err != nil {
		t.Fatal(err)
	}
	charge()
	charge()
	if !m.Degraded() {
		t.Fatal("a stalled Redis was waited for")
	}
	time.Sleep(500 * time.Millisecond)
	charge()
	if m.Degraded() {
		t.Fatal("not back on Redis")
	}
	v, err := admin.HGet(ctx, "p:usage:"+Month(time.Now())+":{p}", "v").Int()
	if err != nil || v != 4 {
		t.Errorf("redis holds %d (%v), want 4", v, err)
	}
}

// Calls of one session arriving together still count once, and a burst of session-less
// suggest calls counts one per ten, however they interleave.
func TestConcurrentCharges(t *testing.T) {
	for _, mode := range []string{"local", "redis"} {
		t.Run(mode, func(t *testing.T) {
			m := modeMeter(t, mode)
			ctx := context.Background()
			var wg sync.WaitGroup
			for i := range 40 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					c := Charge{Account: "c", Quota: Unlimited, Call: Suggest}
					if i%2 == 0 {
						c.Session = "same"
					}
					if _, err := m.Charge(ctx, c); err != nil {
						t.Error(err)
					}
				}()
			}
			wg.Wait()
			// 20 calls of one session: 1; 20 loose suggests: 2.
			if got, _ := m.Used(ctx, "c", time.Now()); got.Verifications != 3 || got.SuggestCalls != 20 {
				t.Errorf("used %+v, want 3 verifications, 20 suggest calls", got)
			}
		})
	}
}

// outageMeter is a meter on a file sink and rdb with short time-outs and retries, for the
// tests that take Redis away.
func outageMeter(t *testing.T, rdb *redis.Client, prefix string) *Meter {
	t.Helper()
	sink, err := OpenFile(filepath.Join(t.TempDir(), "usage.json"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewMeter(Config{Sink: sink, Redis: rdb, Prefix: prefix, Timeout: 50 * time.Millisecond, Retry: 100 * time.Millisecond,
		Log: quiet(), FlushEvery: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// Month names the month as formatting it would, however the times asked for jump between
// months (it keeps the last month it named) and on either side of a boundary.
func TestMonth(t *testing.T) {
	cet := time.FixedZone("CET", 3600)
	for _, tm := range []time.Time{
		time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC),
		time.Date(2026, 11, 30, 23, 59, 59, 999_999_999, time.UTC),
		time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 11, 30, 23, 59, 59, 999_999_999, time.UTC),
		time.Date(2027, 1, 1, 0, 30, 0, 0, cet), // still December in UTC
		time.Date(2028, 2, 29, 23, 0, 0, 0, time.UTC),
		time.Date(2028, 3, 1, 0, 0, 0, 1, time.UTC),
		time.Date(1969, 12, 31, 23, 59, 59, 500, time.UTC),
		time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC),
	} {
		if got, want := Month(tm), tm.UTC().Format("2006-01"); got != want {
			t.Errorf("Month(%v) = %s, want %s", tm, got, want)
		}
	}
}
