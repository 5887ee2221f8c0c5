package usage

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/adreswijzer/adreswijzer/gateway/breaker"
	"github.com/adreswijzer/adreswijzer/gateway/oplog"
)

// Config of a Meter.
type Config struct {
	// Sink keeps usage durably. Required.
	Sink Sink
	// Redis shares totals, sessions and daily counts between gateways; nil keeps them in
	// memory.
	Redis *redis.Client
	// Prefix of every Redis key, so that deployments (and test runs) sharing a Redis stay
	// apart.
	Prefix string
	// Timeout of one Redis call; beyond it the call is answered locally.
	Timeout time.Duration
	// Retry is how often a Redis that failed is tried again.
	Retry time.Duration
	// SessionIdle is how long a session stays open without calls.
	SessionIdle time.Duration
	// FlushEvery is how often deltas go to the sink.
	FlushEvery time.Duration
	// StoreTimeout is the longest a call waits for an account's durable totals, read from
	// the sink when the account is first counted in this process or in Redis. Beyond it the
	// call is counted on what is known and the totals join in when they come: a checkout
	// does not wait on the billing database.
	StoreTimeout time.Duration
	Log          *slog.Logger
}

// DefaultStoreTimeout leaves most of a request's budget to the workers.
const DefaultStoreTimeout = 250 * time.Millisecond

// seedTimeout bounds a read of durable totals that goes on in the background after the
// calls waiting for it gave up; longer than StoreTimeout, so that a slow but working sink
// (a database recovering) still delivers.
const seedTimeout = 2 * time.Second

// Meter counts. Create one per process and sink; Close flushes.
type Meter struct {
	cfg     Config
	local   *local
	shared  *shared
	breaker *breaker.Breaker // Redis
	store   *breaker.Breaker // the durable sink
	ops     *oplog.Throttle
	now     func() time.Time

	// sinkMu is held for writing while a batch is on its way to the sink, and for reading
	// while durable totals are read, so that a read never misses a batch that has left
	// pending but not arrived.
	sinkMu sync.RWMutex

	pendMu  sync.Mutex
	pending map[acctMonth]Totals // not yet in the sink
	debt    map[acctMonth]Totals // counted locally while Redis was away, not yet in Redis
	debtGen uint64               // changes when replayDebt takes the debt

	// activity is the calls recorded since the last flush (see Record).
	activity *activityLog

	seedMu sync.Mutex
	seeds  map[acctMonth]*seed // reads of durable totals under way

	// redisRun is the run id of the Redis last talked to (see replayDebt).
	redisRun atomic.Value

	// Tunables that a configuration reload may change while the Meter lives on.
	idle      atomic.Int64
	timeout   atomic.Int64
	storeWait atomic.Int64

	stop chan struct{}
	done chan struct{}
}

// seed is a read of an account's durable totals that calls may wait on together.
type seed struct {
	done    chan struct{}
	started time.Time
	redis   bool  // also start the month in Redis with them (under seedMu)
	err     error // set before done is closed
}

// Tune changes the session idle time, the Redis timeout and the store timeout of a running
// Meter; zero keeps a value.
func (m *Meter) Tune(sessionIdle, redisTimeout, storeTimeout time.Duration) {
	if sessionIdle > 0 {
		m.idle.Store(int64(sessionIdle))
	}
	if redisTimeout > 0 {
		m.timeout.Store(int64(redisTimeout))
	}
	if storeTimeout > 0 {
		m.storeWait.Store(int64(storeTimeout))
	}
}

func (m *Meter) sessionIdle() time.Duration  { return time.Duration(m.idle.Load()) }
func (m *Meter) redisTimeout() time.Duration { return time.Duration(m.timeout.Load()) }
func (m *Meter) storeTimeout() time.Duration { return time.Duration(m.storeWait.Load()) }

// NewMeter starts the flusher.
func NewMeter(cfg Config) (*Meter, error) {
	if cfg.Sink == nil {
		return nil, errors.New("usage: a sink is required")
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 50 * time.Millisecond
	}
	if cfg.Retry <= 0 {
		cfg.Retry = time.Second
	}
	if cfg.SessionIdle <= 0 {
		cfg.SessionIdle = 30 * time.Minute
	}
	if cfg.FlushEvery <= 0 {
		cfg.FlushEvery = time.Second
	}
	if cfg.StoreTimeout <= 0 {
		cfg.StoreTimeout = DefaultStoreTimeout
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	m := &Meter{
		cfg:      cfg,
		local:    newLocal(),
		store:    breaker.New("usage store", cfg.Retry, cfg.Log),
		ops:      oplog.New(cfg.Log, 0),
		now:      time.Now,
		pending:  map[acctMonth]Totals{},
		activity: newActivityLog(),
		debt:     map[acctMonth]Totals{},
		seeds:    map[acctMonth]*seed{},
		stop:     make(chan struct{}),
		done:     make(chan struct{}),
	}
	if cfg.Redis != nil {
		m.shared = &shared{rdb: cfg.Redis, prefix: cfg.Prefix}
		m.breaker = breaker.New("usage counter", cfg.Retry, cfg.Log)
		ctx, cancel := context.WithTimeout(context.Background(), 4*cfg.Timeout)
		if id, err := m.shared.runID(ctx); err == nil {
			m.redisRun.Store(id)
		}
		cancel()
	}
	m.Tune(cfg.SessionIdle, cfg.Timeout, cfg.StoreTimeout)
	go m.flushLoop()
	return m, nil
}

// Charge counts one call, or returns ErrQuota and counts nothing. It waits on Redis for
// at most the Redis timeout and on the durable sink for at most the store timeout, and not
// at all while either is known to be failing.
func (m *Meter) Charge(ctx context.Context, c Charge) (Receipt, error) {
	now := m.now()
	month := Month(now)
	k := acctMonth{c.Account, month}
	if m.useShared(ctx, now) {
		r, err := m.chargeShared(ctx, c, month)
		if errors.Is(err, errNeedSeed) && m.awaitSeed(ctx, k, true) {
			// First charge of the month in Redis (or Redis lost its data): Redis now starts
			// from the durable totals.
			r, err = m.chargeShared(ctx, c, month)
		}
		switch {
		case err == nil:
			m.record(r, 1)
			return r, nil
		case errors.Is(err, ErrQuota):
			return r, err
		case ctx.Err() != nil:
			return Receipt{}, ctx.Err()
		case errors.Is(err, errNeedSeed):
			// The durable totals are slow to come: counted here, and added to Redis's once
			// they are in (see runSeed).
		default:
			if m.breaker.Fail(now, err) {
				m.local.forget()
			}
		}
	}
	r, err := m.local.charge(c, month, now, m.sessionIdle(), m.noteCharge, true)
	if !errors.Is(err, errNeedSeed) {
		return r, err
	}
	m.awaitSeed(ctx, k, false)
	return m.local.charge(c, month, now, m.sessionIdle(), m.noteCharge, false)
}

func (m *Meter) noteCharge(r Receipt) { m.record(r, 1) }
func (m *Meter) noteRefund(r Receipt) { m.record(r, -1) }

func (m *Meter) chargeShared(ctx context.Context, c Charge, month string) (Receipt, error) {
	cctx, cancel := context.WithTimeout(ctx, m.redisTimeout())
	defer cancel()
	return m.shared.charge(cctx, c, month, m.sessionIdle())
}

// awaitSeed starts reading k's durable totals (or joins the read under way) and waits for
// them, up to the store timeout from the start of the read. It reports whether they are in
// (in the local totals, and in Redis when redis is set). It does not wait while the sink is
// known to fail, apart from one probe per retry interval: the call is then counted on what
// is known, and the read, once it succeeds, corrects the totals.
func (m *Meter) awaitSeed(ctx context.Context, k acctMonth, redis bool) bool {
	now := m.now()
	s := m.startSeed(k, redis, now)
	if s == nil {
		return false
	}
	wait := m.storeTimeout() - now.Sub(s.started)
	if wait <= 0 {
		return false
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-s.done:
		return s.err == nil
	case <-t.C:
		return false
	case <-ctx.Done():
		return false
	}
}

func (m *Meter) startSeed(k acctMonth, redis bool, now time.Time) *seed {
	m.seedMu.Lock()
	defer m.seedMu.Unlock()
	if s, ok := m.seeds[k]; ok {
		s.redis = s.redis || redis
		return s
	}
	if !m.store.Use(now) {
		return nil
	}
	s := &seed{done: make(chan struct{}), started: now, redis: redis}
	m.seeds[k] = s
	go m.runSeed(k, s)
	return s
}

// runSeed reads k's durable totals into the local totals and, when asked, starts the month
// in Redis with them.
func (m *Meter) runSeed(k acctMonth, s *seed) {
	ctx, cancel := context.WithTimeout(context.Background(), seedTimeout)
	defer cancel()
	t, debt, gen, err := m.readDurable(ctx, k)
	if err != nil {
		m.store.Fail(m.now(), err)
	} else {
		m.store.Succeed()
	}
	m.seedMu.Lock()
	redis := s.redis
	m.seedMu.Unlock()
	if err == nil && redis && m.shared != nil {
		err = m.startShared(k, t, debt, gen)
	}
	m.seedMu.Lock()
	delete(m.seeds, k)
	s.err = err
	m.seedMu.Unlock()
	close(s.done)
}

// readDurable returns k's durable totals plus what this process has not flushed yet, and
// makes them k's local totals. It is exact: no batch is on its way to the sink meanwhile
// (sinkMu), and local charges are noted under the lock under which the totals are set. It
// also returns the part of the debt to Redis that the totals include, and the debt's
// generation.
func (m *Meter) readDurable(ctx context.Context, k acctMonth) (t, debt Totals, gen uint64, err error) {
	m.sinkMu.RLock()
	defer m.sinkMu.RUnlock()
	t, err = m.cfg.Sink.Get(ctx, k.account, k.month)
	if err != nil {
		return Totals{}, Totals{}, 0, fmt.Errorf("usage of account: %w", err)
	}
	m.local.mu.Lock()
	m.pendMu.Lock()
	t.add(m.pending[k])
	debt, gen = m.debt[k], m.debtGen
	m.pendMu.Unlock()
	m.local.installLocked(k, t)
	m.local.mu.Unlock()
	return t, debt, gen, nil
}

// startShared starts k's month in Redis with the durable totals t, unless another gateway
// did first, and then adds what was counted here meanwhile and is not in t.
func (m *Meter) startShared(k acctMonth, t, inSeed Totals, gen uint64) error {
	ctx, cancel := context.WithTimeout(context.Background(), 4*m.redisTimeout())
	defer cancel()
	started, err := m.shared.start(ctx, k.account, k.month, t)
	if err != nil {
		m.breaker.Fail(m.now(), err)
		return err
	}
	m.pendMu.Lock()
	rest := m.debt[k]
	if started && gen == m.debtGen {
		// Those are in t. When another gateway started the month, it read the sink before
		// this process flushed them, most likely: they are added.
		rest.add(Totals{Verifications: -inSeed.Verifications, SuggestCalls: -inSeed.SuggestCalls})
	}
	delete(m.debt, k)
	m.pendMu.Unlock()
	if rest == (Totals{}) {
		return nil
	}
	return m.addShared(ctx, map[acctMonth]Totals{k: rest})
}

// addShared adds counts to Redis; what Redis did not take stays owed, for the next replay.
func (m *Meter) addShared(ctx context.Context, counts map[acctMonth]Totals) error {
	err := m.shared.add(ctx, counts)
	if err == nil {
		return nil
	}
	m.pendMu.Lock()
	for k, t := range counts {
		q := m.debt[k]
		q.add(t)
		m.debt[k] = q
	}
	m.pendMu.Unlock()
	return err
}

// record notes a change for the sink, and for Redis when it was made locally.
func (m *Meter) record(r Receipt, sign int64) {
	if r.Units == 0 && r.loose == 0 {
		return
	}
	d := Totals{Verifications: sign * int64(r.Units), SuggestCalls: sign * int64(r.loose)}
	k := acctMonth{r.account, r.month}
	m.pendMu.Lock()
	p := m.pending[k]
	p.add(d)
	m.pending[k] = p
	if m.shared != nil && !r.shared {
		q := m.debt[k]
		q.add(d)
		m.debt[k] = q
	}
	m.pendMu.Unlock()
}

// useShared reports whether to count in Redis now. While Redis is down it lets one probe
// through per retry interval; a probe first hands Redis what was counted locally meanwhile,
// and only when that worked is Redis used again.
func (m *Meter) useShared(ctx context.Context, now time.Time) bool {
	if m.shared == nil || !m.breaker.Use(now) {
		return false
	}
	if !m.breaker.Down() {
		return true
	}
	if err := m.replayDebt(ctx); err != nil {
		m.breaker.Fail(now, err)
		return false
	}
	m.breaker.Succeed()
	return true
}

// replayDebt adds what was counted locally to Redis's totals, before Redis counts again.
// Totals Redis does not have (it restarted empty, or they expired) are skipped: the next
// charge seeds them from the durable sink, which has the local counts. When Redis itself
// restarted, its totals may have been seeded by other gateways from the durable sink
// since, which again has the local counts; then nothing is replayed.
func (m *Meter) replayDebt(ctx context.Context) error {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 4*m.redisTimeout())
	defer cancel()
	id, err := m.shared.runID(cctx)
	if err != nil {
		return err
	}
	m.pendMu.Lock()
	debt := m.debt
	m.debt = map[acctMonth]Totals{}
	m.debtGen++
	m.pendMu.Unlock()
	last, _ := m.redisRun.Swap(id).(string)
	if len(debt) == 0 || (last != "" && last != id) {
		return nil
	}
	return m.addShared(cctx, debt)
}

// Refund undoes a charge whose call was not answered. It does not fail: a refund that
// cannot reach Redis is kept locally and replayed.
func (m *Meter) Refund(ctx context.Context, r Receipt) {
	if r.Zero() {
		return
	}
	now := m.now()
	ctx = context.WithoutCancel(ctx) // the client may be gone; the refund is still due
	if r.shared {
		cctx, cancel := context.WithTimeout(ctx, m.redisTimeout())
		err := m.shared.refund(cctx, r, m.sessionIdle())
		cancel()
		if err == nil {
			m.record(r, -1)
			return
		}
		m.breaker.Fail(now, err)
		r.shared = false // the change to the totals is replayed with the debt
		m.record(r, -1)
		return
	}
	m.local.refund(r, now, m.sessionIdle(), m.noteRefund)
}

// CountDaily counts calls of a capped (test) key and reports whether they fit in the day's
// limit, how many calls the key has left today after them (or, when they did not fit, as
// it had before), and how long until the next day. Calls that do not fit are not counted,
// so that a refused batch of tool calls does not use up what is left of the day; what is
// left is for a refusal to tell whether fewer calls would still pass.
func (m *Meter) CountDaily(ctx context.Context, keyID string, limit, calls int) (ok bool, left int, wait time.Duration) {
	now := m.now()
	if m.useShared(ctx, now) {
		cctx, cancel := context.WithTimeout(ctx, m.redisTimeout())
		ok, left, err := m.shared.countDaily(cctx, keyID, limit, calls, now)
		cancel()
		if err == nil {
			return ok, left, untilTomorrow(now)
		}
		if ctx.Err() == nil && m.breaker.Fail(now, err) {
			m.local.forget()
		}
	}
	ok, left = m.local.countDaily(keyID, limit, calls, now)
	return ok, left, untilTomorrow(now)
}

// DailyCalls returns the calls a capped (test) key has made today, as CountDaily counted
// them against its cap, without counting one: from Redis while it is used, from this
// process's counter while it is not (the counter the cap is then enforced on).
func (m *Meter) DailyCalls(ctx context.Context, keyID string) (int, error) {
	now := m.now()
	if m.shared != nil && !m.breaker.Down() {
		cctx, cancel := context.WithTimeout(ctx, 10*m.redisTimeout())
		defer cancel()
		return m.shared.dailyCalls(cctx, keyID, now)
	}
	return m.local.dailyCalls(keyID, now), nil
}

// Used returns an account's totals for the month of t, as the quota sees them.
func (m *Meter) Used(ctx context.Context, account string, t time.Time) (Totals, error) {
	month := Month(t)
	if m.shared != nil && !m.breaker.Down() {
		cctx, cancel := context.WithTimeout(ctx, 10*m.redisTimeout())
		defer cancel()
		if tot, ok, err := m.shared.used(cctx, account, month); err == nil && ok {
			return tot, nil
		}
	} else if tot, ok := m.local.used(account, month); ok {
		return tot, nil
	}
	tot, _, _, err := m.readDurable(ctx, acctMonth{account, month})
	return tot, err
}

// Degraded reports whether counting is local because Redis is away.
func (m *Meter) Degraded() bool { return m.breaker != nil && m.breaker.Down() }

func (m *Meter) flushLoop() {
	defer close(m.done)
	t := time.NewTicker(m.cfg.FlushEvery)
	defer t.Stop()
	for {
		select {
		case <-m.stop:
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			if err := m.Flush(ctx); err != nil {
				m.ops.Error("usage flush failed, will retry", "error", err)
			}
			cancel()
		}
	}
}

// Flush writes pending deltas and activity to the sink, in one batch. On failure they stay
// pending, for the next flush.
func (m *Meter) Flush(ctx context.Context) error {
	m.sinkMu.Lock()
	defer m.sinkMu.Unlock()
	m.pendMu.Lock()
	deltas := m.pending
	m.pending = map[acctMonth]Totals{}
	m.pendMu.Unlock()
	acts := m.activity.take()
	b := Batch{Deltas: deltaList(deltas), Activity: activityRows(acts)}
	if b.Empty() {
		return nil
	}
	if err := m.cfg.Sink.Add(ctx, b); err != nil {
		m.keepPending(deltas)
		m.activity.giveBack(acts)
		m.store.Fail(m.now(), err)
		return fmt.Errorf("flush %d usage deltas and %d activity rows: %w", len(b.Deltas), len(b.Activity), err)
	}
	m.store.Succeed()
	return nil
}

// deltaList is the non-zero pending deltas, in the sink's form.
func deltaList(pending map[acctMonth]Totals) []Delta {
	var deltas []Delta
	for k, t := range pending {
		if t != (Totals{}) {
			deltas = append(deltas, Delta{Account: k.account, Month: k.month, Totals: t})
		}
	}
	return deltas
}

// keepPending puts deltas whose flush failed back with those counted since.
func (m *Meter) keepPending(deltas map[acctMonth]Totals) {
	m.pendMu.Lock()
	defer m.pendMu.Unlock()
	for k, t := range deltas {
		p := m.pending[k]
		p.add(t)
		m.pending[k] = p
	}
}

// Close stops the flusher and writes what is pending.
func (m *Meter) Close() error {
	select {
	case <-m.stop:
		return nil
	default:
	}
	close(m.stop)
	<-m.done
	defer m.ops.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return m.Flush(ctx)
}
