package limits

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/adreswijzer/adreswijzer/gateway/breaker"
)

// Redis is a Store in Redis, so that every gateway draws from one budget per account. Each
// method is one script, which Redis runs atomically; each touches one key, so the store also
// works on a Redis Cluster.
type Redis struct {
	rdb    *redis.Client
	prefix string
}

// NewRedis keeps state under prefix, which separates deployments (and test runs) sharing a
// Redis.
func NewRedis(rdb *redis.Client, prefix string) *Redis { return &Redis{rdb: rdb, prefix: prefix} }

// spendScript is Store.Spend. The clock is Redis's own (TIME), so that gateways whose clocks
// differ still agree. Times are whole microseconds since tatEpoch: Lua numbers are doubles,
// exact for integers up to 2^53, and microseconds since 1970 would leave little of that;
// they are written with %.0f because Lua's tostring keeps only 14 digits.
// KEYS: the budget. ARGV: emission µs, burst, cost, tatEpoch. Returns {allowed 0|1, retry
// after µs}.
var spendScript = redis.NewScript(`
local t = redis.call('TIME')
local now = (tonumber(t[1]) - tonumber(ARGV[4])) * 1000000 + tonumber(t[2])
local emission = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local cost = tonumber(ARGV[3])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then tat = now end
local need = math.min(cost, burst)
local over = tat + need * emission - now - burst * emission
if over > 0 then return {0, over} end
local newtat = tat + cost * emission
redis.call('SET', KEYS[1], string.format('%.0f', newtat), 'PX', string.format('%.0f', math.floor((newtat - now) / 1000) + 1))
return {1, 0}
`)

// tatEpoch (2026-01-01 UTC, in Unix seconds) is where the script's microseconds start.
const tatEpoch = 1767225600

// addScript is Store.Add. KEYS: the counter. ARGV: n, ttl ms.
var addScript = redis.NewScript(`
redis.call('SET', KEYS[1], '0', 'PX', ARGV[2], 'NX')
return redis.call('INCRBY', KEYS[1], ARGV[1])
`)

// Spend follows the steps documented on Store.
func (s *Redis) Spend(ctx context.Context, key string, r Rate, cost int) (RateResult, error) {
	res, err := spendScript.Run(ctx, s.rdb, []string{s.prefix + key},
		max(r.Emission.Microseconds(), 1), r.Burst, cost, tatEpoch).Int64Slice()
	if err != nil {
		return RateResult{}, fmt.Errorf("agent rate in redis: %w", err)
	}
	if len(res) != 2 {
		return RateResult{}, fmt.Errorf("agent rate in redis: unexpected reply of %d values", len(res))
	}
	if res[0] == 1 {
		return RateResult{Allowed: true}, nil
	}
	return RateResult{RetryAfter: time.Duration(res[1]) * time.Microsecond}, nil
}

// Add follows the contract documented on Store.
func (s *Redis) Add(ctx context.Context, key string, n int64, ttl time.Duration) (int64, error) {
	v, err := addScript.Run(ctx, s.rdb, []string{s.prefix + key}, n, max(ttl.Milliseconds(), 1)).Int64()
	if err != nil {
		return 0, fmt.Errorf("agent counter in redis: %w", err)
	}
	return v, nil
}

// Shared uses Redis, and Memory whenever Redis errs or takes longer than the timeout, the
// way the gateway's own rate limiter does: an agent must not wait on a limits store, and
// while Redis is away each gateway limits on its own (an account spread over n gateways may
// then get up to n times its budget, which is better than refusing everybody).
type Shared struct {
	redis   *Redis
	local   *Memory
	breaker *breaker.Breaker
	timeout atomic.Int64
}

// NewShared limits through r, falling back to local. retry is how often a failed Redis is
// tried again.
func NewShared(r *Redis, local *Memory, timeout, retry time.Duration, log *slog.Logger) *Shared {
	s := &Shared{redis: r, local: local, breaker: breaker.New("agent limits", retry, log)}
	s.timeout.Store(int64(timeout))
	return s
}

// Spend never fails unless ctx ended: a Redis failure is answered locally.
func (s *Shared) Spend(ctx context.Context, key string, r Rate, cost int) (RateResult, error) {
	now := time.Now()
	if s.breaker.Use(now) {
		cctx, cancel := context.WithTimeout(ctx, time.Duration(s.timeout.Load()))
		res, err := s.redis.Spend(cctx, key, r, cost)
		cancel()
		if err == nil {
			s.breaker.Succeed()
			return res, nil
		}
		if ctx.Err() != nil {
			return RateResult{}, ctx.Err()
		}
		s.breaker.Fail(now, err)
	}
	return s.local.Spend(ctx, key, r, cost)
}

// Add never fails unless ctx ended: a Redis failure is answered locally.
func (s *Shared) Add(ctx context.Context, key string, n int64, ttl time.Duration) (int64, error) {
	now := time.Now()
	if s.breaker.Use(now) {
		cctx, cancel := context.WithTimeout(ctx, time.Duration(s.timeout.Load()))
		v, err := s.redis.Add(cctx, key, n, ttl)
		cancel()
		if err == nil {
			s.breaker.Succeed()
			return v, nil
		}
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		s.breaker.Fail(now, err)
	}
	return s.local.Add(ctx, key, n, ttl)
}

// Degraded reports whether limits are local right now.
func (s *Shared) Degraded() bool { return s.breaker.Down() }

var (
	_ Store = (*Redis)(nil)
	_ Store = (*Shared)(nil)
)
