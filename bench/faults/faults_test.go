//go:build faults

package faults_test

import (
	"bytes"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/gateway/backend"
)

// Timing of the scenarios. The recovery window is generous for a shared two-core machine;
// the per-request budget is not.
const (
	warmUp        = 3 * time.Second  // load before the fault
	faultFor      = 6 * time.Second  // how long the fault lasts
	recoveryLimit = 10 * time.Second // after the fault is removed, all calls succeed within this
	steadyAfter   = 3 * time.Second  // and keep succeeding this long
	inFlight      = clientBudget     // requests started this long before a fault may be hit by it
	// keyCacheTTL is how long the gateway trusts a key it looked up in Postgres.
	keyCacheTTL = backend.DefaultKeyCacheTTL
)

// window is a stretch of the run in which 503 is a correct answer.
type window struct{ from, to time.Time }

// onlyIn reports 503s outside the windows: the service answered "unavailable" while
// nothing was.
func onlyIn(t *testing.T, l *load, ws ...window) {
	t.Helper()
	f := newFindings()
	for _, r := range l.records() {
		if r.status != http.StatusServiceUnavailable {
			continue
		}
		in := false
		for _, w := range ws {
			if !r.start.Before(w.from) && r.start.Before(w.to) {
				in = true
			}
		}
		if !in {
			f.add("503 outside the fault", "%s", at(l, &r))
		}
	}
	f.report(t)
}

// scan runs the log scan over everything the stack's processes wrote.
func (s *stack) scan(calls []*call) {
	s.t.Helper()
	scanLogs(s.t, s.logDir, needles(calls, s.liveKey, s.pkKey))
}

// logSize is the size of a process log now, to look only at what it writes after.
func logSize(p *process) int64 {
	fi, err := os.Stat(p.log)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// servedSince counts the data requests a worker logged after offset.
func servedSince(p *process, offset int64) int {
	b, err := os.ReadFile(p.log)
	if err != nil || int64(len(b)) < offset {
		return 0
	}
	return bytes.Count(b[offset:], []byte(`"route":"/v1/`))
}

// A worker is killed (SIGKILL) under load and started again; then the other one. While one
// is gone the other serves everything: only requests in flight on the dead worker may get
// 503. The restarted worker must get traffic again (the gateway takes it back by itself),
// which the second kill proves: after it everything rests on the restarted one.
func TestWorkerKilled(t *testing.T) {
	testWorkerFault(t, "killed", (*process).kill, (*process).start)
}

// A worker hangs (SIGSTOP: its connections stay open, nothing answers) and continues after
// a while; then the other one. Requests sent to it must come back as 503 within the budget
// (the gateway's response header time-out), the gateway must stop sending it traffic, and
// take it back once it answers again.
func TestWorkerFrozen(t *testing.T) {
	testWorkerFault(t, "frozen", (*process).freeze, (*process).thaw)
}

func testWorkerFault(t *testing.T, fault string, inject, end func(*process)) {
	nl, be := weesp(t), beWhole(t)
	s := newStack(t, false, nl, be)
	refs := newReferences()
	calls := s.gather(refs, mix([]*register{nl}, be), nl, be)
	l := s.startLoad(calls)
	var windows []window
	for i, w := range s.workers {
		hold(warmUp)
		from := time.Now()
		inject(w.process)
		hold(faultFor)
		to := time.Now()
		end(w.process)
		s.waitWorker(w, 30*time.Second)
		// A thawed worker first answers what queued up while it hung, to callers long gone.
		hold(time.Second)
		offset := logSize(w.process)
		// Requests in flight on the worker when it failed, and those sent to it before the
		// gateway noticed (two failures, or an active health check), may fail.
		windows = append(windows, window{from.Add(-inFlight), from.Add(5 * time.Second)})
		took, ok := l.waitRecovered(to, recoveryLimit, steadyAfter)
		if !ok {
			t.Errorf("%s %s and back: calls still failing %v later", w.name, fault, took)
		}
		// The gateway's passive health check keeps a failed worker out for fail_duration
		// (10 s); its active one looks every 2 s.
		back := waitFor(20*time.Second, func() bool { return servedSince(w.process, offset) > 0 })
		if !back {
			t.Errorf("%s %s and back: the gateway sent it nothing for 20 s", w.name, fault)
		}
		t.Logf("%s %s (%d of 2): during the fault %s; after %s; back in the pool %v after the fault ended",
			w.name, fault, i+1, summary(l.records(), from, to), summary(l.records(), to, time.Now()),
			time.Since(to).Round(100*time.Millisecond))
	}
	hold(steadyAfter)
	l.halt()
	t.Logf("whole run: %s", summary(l.records(), l.started, time.Now()))
	checkAll(t, l, expectations{refs: refs, unavailable: true})
	onlyIn(t, l, windows...)
	s.scan(calls)
}

// Postgres stops (pg_ctl stop -m immediate: every connection dropped) under load and
// starts again (with crash recovery). Meanwhile lookups the gateway has cached may still be
// answered, everything else is 503 with the spec's body, fast; after the restart the
// workers, the key store and the usage counters reconnect by themselves. The outage is long
// enough that the gateway's cached key expires during it (keyCacheTTL after the load's
// first call), so the key store is asked while Postgres is down and while it recovers.
func TestPostgresStopped(t *testing.T) {
	testPostgresFault(t, "stopped", keyCacheTTL-warmUp+2*time.Second,
		func(s *postgresServer) { s.stopImmediate() }, (*postgresServer).start)
}

// Postgres hangs (SIGSTOP on the postmaster and every backend: connections stay open,
// nothing answers, as on a stalled disk or a lost network path) past the expiry of the
// gateway's cached key, and then continues. Nothing may wait for it beyond the budget.
func TestPostgresFrozen(t *testing.T) {
	testPostgresFault(t, "frozen", keyCacheTTL-warmUp+4*time.Second,
		func(s *postgresServer) { s.postmas.freeze() }, func(s *postgresServer) { s.postmas.thaw() })
}

func testPostgresFault(t *testing.T, fault string, d time.Duration, inject, end func(*postgresServer)) {
	nl, be := weesp(t), beWhole(t)
	s := newStack(t, false, nl, be)
	refs := newReferences()
	calls := s.gather(refs, mix([]*register{nl}, be), nl, be)
	l := s.startLoad(calls)
	hold(warmUp)
	from := time.Now()
	inject(s.pg)
	hold(d)
	to := time.Now()
	end(s.pg)
	took, ok := l.waitRecovered(to, recoveryLimit, steadyAfter)
	if !ok {
		t.Errorf("Postgres %s and back: calls still failing %v later", fault, took)
	}
	l.halt()
	recs := l.records()
	t.Logf("before: %s", summary(recs, l.started, from))
	t.Logf("Postgres %s: %s", fault, summary(recs, from, to))
	t.Logf("after: %s; all calls succeed again %v after the fault ended", summary(recs, to, time.Now()),
		took.Round(100*time.Millisecond))
	checkAll(t, l, expectations{refs: refs, unavailable: true})
	onlyIn(t, l, window{from.Add(-inFlight), to.Add(recoveryLimit)})
	s.scan(calls)
}

// Redis is killed under load and started again (empty, as it has no persistence), then
// frozen (SIGSTOP: connections stay open, nothing answers) and thawed. Callers must notice
// nothing: every call succeeds, within the budget, with limits enforced locally meanwhile
// (the rate-limit probe is still refused beyond its rate), and the gateway returns to Redis
// once it answers.
func TestRedisStopped(t *testing.T) {
	nl, be := weesp(t), beWhole(t)
	s := newStack(t, false, nl, be)
	refs := newReferences()
	calls := s.gather(refs, mix([]*register{nl}, be), nl, be)
	l := s.startLoad(calls)
	inRedis := func() bool {
		ks, err := s.redis.keys("rate:faults:*")
		return err == nil && len(ks) > 0
	}
	hold(warmUp)
	if !inRedis() {
		t.Fatal("the gateway keeps no rate limits in Redis: nothing to fail over from")
	}
	for _, fault := range []struct {
		name        string
		inject, end func()
	}{
		{"killed", s.redis.proc.kill, s.redis.start},
		{"frozen", s.redis.proc.freeze, s.redis.proc.thaw},
	} {
		from := time.Now()
		fault.inject()
		hold(faultFor)
		to := time.Now()
		fault.end()
		if fault.name == "frozen" {
			// Keys written before the freeze are still there; wait for fresh writes.
			rdb := s.redis.client()
			_ = rdb.FlushAll(t.Context()).Err()
			rdb.Close()
		}
		if !waitFor(recoveryLimit, inRedis) {
			t.Errorf("Redis %s and back: the gateway did not use it again within %v", fault.name, recoveryLimit)
		}
		recs := l.records()
		probe := statusCounts(recs, from, to, true)
		t.Logf("Redis %s: %s; rate-limit probe %v", fault.name, summary(recs, from, to), probe)
		if probe[http.StatusOK] == 0 || probe[http.StatusTooManyRequests] == 0 {
			t.Errorf("Redis %s: the probe (20/s against a limit of 5/s) got %v: limits not enforced locally", fault.name, probe)
		}
		// 5/s with a burst of 5 over the fault, and a margin for the moment of failing over.
		if max := int(5*to.Sub(from).Seconds()) + 5 + 5; probe[http.StatusOK] > max {
			t.Errorf("Redis %s: the probe got %d answers, more than its limit allows (%d)", fault.name, probe[http.StatusOK], max)
		}
		hold(steadyAfter)
	}
	l.halt()
	t.Logf("whole run: %s", summary(l.records(), l.started, time.Now()))
	checkAll(t, l, expectations{refs: refs, unavailable: false})
	s.scan(calls)
}

// A new dataset is activated under load, for both countries at once, and then the previous
// ones again: NL goes from Weesp (2021) to Doesburg (2020) and back, BE from the whole
// sample to a later, thinned delivery and back, so that each country is switched once to an
// older and once to a newer register date. Every answer must be one of the two versions
// and exactly what that version answers; once a worker serves the new version, nothing it
// answers is of the old one; and the gateway's cache serves no old answer once the new
// version is known.
func TestDatasetActivated(t *testing.T) { testActivation(t, false) }

// The same with workers serving snapshot files, which are replaced under them.
func TestSnapshotReplaced(t *testing.T) { testActivation(t, true) }

func testActivation(t *testing.T, memory bool) {
	w, d := weesp(t), doesburg(t)
	b1, b2 := beWhole(t), beThinned(t)
	s := newStack(t, memory, d, b2)
	refs := newReferences()
	calls := s.gather(refs, mix([]*register{w, d}, b1), d, b2)
	s.activate(w)
	s.activate(b1)
	s.waitVersion(w, time.Minute)
	s.waitVersion(b1, time.Minute)
	calls = s.gather(refs, calls, w, b1)

	watch := s.watchVersions()
	l := s.startLoad(calls)
	hold(warmUp)
	var steps []step
	for _, pair := range [][2]*register{{d, b2}, {w, b1}} {
		for _, r := range pair {
			st := step{country: r.country, to: r.version, from: currentVersion(steps, r.country, w, b1), start: time.Now()}
			s.activate(r)
			steps = append(steps, st)
		}
		for i := len(steps) - 2; i < len(steps); i++ {
			ok := waitFor(time.Minute, func() bool {
				var done bool
				steps[i].agreed, done = watch.switched(steps[i].country, steps[i].to, steps[i].start, len(s.workers))
				return done
			})
			if !ok {
				t.Fatalf("%s %s not served by every worker a minute after it was activated", steps[i].country, steps[i].to)
			}
			t.Logf("%s %s → %s: every worker serves it %v after the activation began",
				steps[i].country, steps[i].from, steps[i].to, steps[i].agreed.Sub(steps[i].start).Round(10*time.Millisecond))
		}
		hold(warmUp)
	}
	l.halt()
	watch.close()
	t.Logf("whole run: %s", summary(l.records(), l.started, time.Now()))
	checkAll(t, l, expectations{refs: refs, unavailable: false})
	checkVersions(t, l, steps)
	s.scan(calls)
}

// currentVersion is the version of c before the next step.
func currentVersion(steps []step, c adreswijzer.Country, initial ...*register) string {
	for i := len(steps) - 1; i >= 0; i-- {
		if steps[i].country == c {
			return steps[i].to
		}
	}
	for _, r := range initial {
		if r.country == c {
			return r.version
		}
	}
	return ""
}
