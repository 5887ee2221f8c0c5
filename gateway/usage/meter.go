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
	Log        *slog.Logger
}

// Meter counts. Create one per process and sink; Close flushes.
type Meter struct {
	cfg     Config
	local   *local
	shared  *shared
	breaker *breaker.Breaker
	now     func() time.Time

	pendMu  sync.Mutex
	pending map[acctMonth]Totals // not yet in the sink
	debt    map[acctMonth]Totals // counted locally while Redis was away, not yet in Redis

	// redisRun is the run id of the Redis last talked to (see replayDebt).
	redisRun atomic.Value

	// Tunables that a configuration reload may change while the Meter lives on.
	idle    atomic.Int64
	timeout atomic.Int64

	stop chan struct{}
	done chan struct{}
}

// Tune changes the session idle time and the Redis timeout of a running Meter.
func (m *Meter) Tune(sessionIdle, timeout time.Duration) {
	if sessionIdle > 0 {
		m.idle.Store(int64(sessionIdle))
	}
	if timeout > 0 {
		m.timeout.Store(int64(timeout))
	}
}

func (m *Meter) sessionIdle() time.Duration  { return time.Duration(m.idle.Load()) }
func (m *Meter) redisTimeout() time.Duration { return time.Duration(m.timeout.Load()) }

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
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	m := &Meter{
		cfg:     cfg,
		local:   newLocal(),
		now:     time.Now,
		pending: map[acctMonth]Totals{},
		debt:    map[acctMonth]Totals{},
		stop:    make(chan struct{}),
		done:    make(chan struct{}),
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
	m.Tune(cfg.SessionIdle, cfg.Timeout)
	go m.flushLoop()
	return m, nil
}

// Charge counts one call, or returns ErrQuota and counts nothing.
func (m *Meter) Charge(ctx context.Context, c Charge) (Receipt, error) {
	now := m.now()
	month := Month(now)
	if m.useShared(ctx, now) {
		r, err := m.chargeShared(ctx, c, month)
		if err == nil || errors.Is(err, ErrQuota) {
			if err == nil {
				m.record(r, 1)
			}
			return r, err
		}
		if ctx.Err() != nil {
			return Receipt{}, ctx.Err()
		}
		if m.breaker.Fail(now, err) {
			m.local.forget()
		}
	}
	r, err := m.local.charge(ctx, c, month, now, m.sessionIdle(), m.seed)
	if err != nil {
		return r, err
	}
	m.record(r, 1)
	return r, nil
}

func (m *Meter) chargeShared(ctx context.Context, c Charge, month string) (Receipt, error) {
	cctx, cancel := context.WithTimeout(ctx, m.redisTimeout())
	defer cancel()
	r, err := m.shared.charge(cctx, c, month, m.sessionIdle(), nil)
	if !errors.Is(err, errNeedSeed) {
		return r, err
	}
	// First charge of the month in Redis (or Redis lost its data): start from the durable
	// totals. Reading them may take longer than a Redis call; it happens once per account
	// and month.
	t, err := m.seed(ctx, c.Account, month)
	if err != nil {
		return Receipt{}, err
	}
	cctx2, cancel2 := context.WithTimeout(ctx, m.redisTimeout())
	defer cancel2()
	return m.shared.charge(cctx2, c, month, m.sessionIdle(), &t)
}

// seed reads the durable totals plus what this process has not flushed yet.
func (m *Meter) seed(ctx context.Context, account, month string) (Totals, error) {
	t, err := m.cfg.Sink.Get(ctx, account, month)
	if err != nil {
		return Totals{}, fmt.Errorf("usage of account: %w", err)
	}
	m.pendMu.Lock()
	p := m.pending[acctMonth{account, month}]
	m.pendMu.Unlock()
	t.add(p)
	return t, nil
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
	m.pendMu.Unlock()
	last, _ := m.redisRun.Swap(id).(string)
	if len(debt) == 0 || (last != "" && last != id) {
		return nil
	}
	if err := m.shared.add(cctx, debt); err != nil {
		m.pendMu.Lock()
		for k, t := range debt {
			q := m.debt[k]
			q.add(t)
			m.debt[k] = q
		}
		m.pendMu.Unlock()
		return err
	}
	return nil
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
	m.local.refund(r, now, m.sessionIdle())
	m.record(r, -1)
}

// CountDaily counts one call of a capped (test) key and reports whether it is within the
// daily limit, and if not, how long until the next day.
func (m *Meter) CountDaily(ctx context.Context, keyID string, limit int) (bool, time.Duration) {
	now := m.now()
	if m.useShared(ctx, now) {
		cctx, cancel := context.WithTimeout(ctx, m.redisTimeout())
		ok, err := m.shared.countDaily(cctx, keyID, limit, now)
		cancel()
		if err == nil {
			return ok, untilTomorrow(now)
		}
		if ctx.Err() == nil && m.breaker.Fail(now, err) {
			m.local.forget()
		}
	}
	return m.local.countDaily(keyID, limit, now), untilTomorrow(now)
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
	return m.seed(ctx, account, month)
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
				m.cfg.Log.Error("usage flush failed, will retry", "error", err)
			}
			cancel()
		}
	}
}

// Flush writes pending deltas to the sink. On failure they stay pending.
func (m *Meter) Flush(ctx context.Context) error {
	m.pendMu.Lock()
	if len(m.pending) == 0 {
		m.pendMu.Unlock()
		return nil
	}
	batch := m.pending
	m.pending = map[acctMonth]Totals{}
	m.pendMu.Unlock()
	deltas := make([]Delta, 0, len(batch))
	for k, t := range batch {
		if t != (Totals{}) {
			deltas = append(deltas, Delta{Account: k.account, Month: k.month, Totals: t})
		}
	}
	if len(deltas) == 0 {
		return nil
	}
	if err := m.cfg.Sink.Add(ctx, deltas); err != nil {
		m.pendMu.Lock()
		for k, t := range batch {
			p := m.pending[k]
			p.add(t)
			m.pending[k] = p
		}
		m.pendMu.Unlock()
		return fmt.Errorf("flush %d usage deltas: %w", len(deltas), err)
	}
	return nil
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
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return m.Flush(ctx)
}
