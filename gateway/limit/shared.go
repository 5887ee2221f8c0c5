package limit

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"

	"github.com/adreswijzer/adreswijzer/gateway/breaker"
)

// Shared limits through Redis (redis_rate's GCRA script) so that all gateways draw from
// one budget per key, and falls back to Local when Redis errs or takes longer than the
// timeout. While Redis is down each gateway limits on its own, so a client spread over n
// gateways may get up to n times its rate for that time; refusing or delaying checkouts
// would be worse.
type Shared struct {
	redis   *redis_rate.Limiter
	local   *Local
	breaker *breaker.Breaker
	timeout atomic.Int64
	prefix  string
}

// NewShared limits through rdb. prefix separates this deployment's (or test run's) keys;
// redis_rate adds its own "rate:" in front.
func NewShared(rdb *redis.Client, local *Local, prefix string, timeout, retry time.Duration, log *slog.Logger) *Shared {
	s := &Shared{
		redis:   redis_rate.NewLimiter(rdb),
		local:   local,
		breaker: breaker.New("rate limiter", retry, log),
		prefix:  prefix,
	}
	s.Tune(timeout)
	return s
}

// Tune changes the Redis timeout of a running limiter (on a configuration reload).
func (s *Shared) Tune(timeout time.Duration) {
	if timeout > 0 {
		s.timeout.Store(int64(timeout))
	}
}

// Allow never fails: a Redis failure is answered locally.
func (s *Shared) Allow(ctx context.Context, key string, r Rule) (Result, error) {
	now := time.Now()
	if s.breaker.Use(now) {
		cctx, cancel := context.WithTimeout(ctx, time.Duration(s.timeout.Load()))
		res, err := s.redis.Allow(cctx, s.prefix+key, redis_rate.Limit{Rate: r.Rate, Period: r.Period, Burst: r.Burst})
		cancel()
		if err == nil {
			s.breaker.Succeed()
			out := Result{Allowed: res.Allowed > 0, Remaining: res.Remaining, ResetAfter: res.ResetAfter}
			if !out.Allowed {
				out.RetryAfter = res.RetryAfter
			}
			return out, nil
		}
		if ctx.Err() != nil {
			// The client went away; that says nothing about Redis.
			return Result{}, ctx.Err()
		}
		s.breaker.Fail(now, err)
	}
	return s.local.AllowAt(key, r, now), nil
}

// Degraded reports whether limits are local right now.
func (s *Shared) Degraded() bool { return s.breaker.Down() }
