package usage

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// shared keeps totals, sessions and daily counts in Redis, for gateways that run side by
// side. Keys carry the account in braces, so that one account's keys share a Redis Cluster
// slot and the script below may touch them together.
type shared struct {
	rdb    *redis.Client
	prefix string
}

func (s *shared) usageKey(account, month string) string {
	return s.prefix + "usage:" + month + ":{" + account + "}"
}

func (s *shared) sessionKey(account, session string) string {
	return s.prefix + "sess:{" + account + "}:" + session
}

func (s *shared) dailyKey(key, d string) string { return s.prefix + "daily:" + d + ":{" + key + "}" }

// usageTTL keeps a month's totals in Redis a while after the month, for late refunds and
// reports; the durable sink has them for good.
const usageTTL = 45 * 24 * time.Hour

// chargeScript is decide() and after() in Lua, applied atomically with the quota check. A
// session's key holds its state (see sessionCalls); a session that ends is deleted.
// KEYS: usage hash, session key. ARGV: call (l|s|v), has session (0|1), quota (-1 =
// unlimited), idle ms, units of a call without a session (Charge.Units, at least 1), calls a
// session covers (SessionCalls), a validate's customerConfirmed (0|1).
// Returns {status, units, loose, moved, state of the session before}; status 0 ok, 1 quota
// used up, 2 the month is not in Redis and must be started from the durable sink first
// (startScript).
var chargeScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return {2, 0, 0, 0, 0} end
local call = ARGV[1]
local confirms = call == 'v' and ARGV[7] == '1'
local function after(calls)
  if call ~= 'v' then return calls end
  if confirms then return 0 end
  return -calls
end
local units, loose, moved, state, nxt = 0, 0, 0, 0, 0
if ARGV[2] == '1' then
  state = tonumber(redis.call('GET', KEYS[2]) or '0') or 0
  local calls = math.abs(state)
  if calls == 0 or calls >= tonumber(ARGV[6]) or (state < 0 and not confirms) then
    units, moved, nxt = 1, 1, after(1)
  elseif state > 0 then
    nxt = after(state + 1)
    if call == 'v' then moved = 1 end
  else
    moved = 1
  end
elseif call == 's' then
  loose = 1
  if tonumber(redis.call('HGET', KEYS[1], 's') or '0') % 10 == 0 then units = 1 end
else
  units = tonumber(ARGV[5])
end
local quota = tonumber(ARGV[3])
if units > 0 and quota >= 0 and tonumber(redis.call('HGET', KEYS[1], 'v') or '0') + units > quota then
  return {1, units, 0, 0, state}
end
if units > 0 then redis.call('HINCRBY', KEYS[1], 'v', units) end
if loose > 0 then redis.call('HINCRBY', KEYS[1], 's', loose) end
if ARGV[2] == '1' then
  if nxt ~= 0 then
    redis.call('SET', KEYS[2], nxt, 'PX', ARGV[4])
  else
    redis.call('DEL', KEYS[2])
  end
end
return {0, units, loose, moved, state}
`)

// uncallScript is uncall() in Lua: it gives back one call of an open session (the refund of
// a call that left it open), keeping the session's expiry. KEYS: session key.
var uncallScript = redis.NewScript(`
local n = tonumber(redis.call('GET', KEYS[1]) or '0') or 0
if n > 1 then redis.call('SET', KEYS[1], n - 1, 'KEEPTTL') end
return 0
`)

// startScript starts a month with the durable totals, unless another gateway did first.
// KEYS: usage hash. ARGV: verifications, suggest calls, usage TTL ms. Returns 1 when it
// started the month.
var startScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'v', ARGV[1], 's', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`)

// addScript adds to a month's totals only when Redis has them; otherwise the next charge
// seeds them from the durable sink, which already holds the change.
var addScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HINCRBY', KEYS[1], 'v', ARGV[1])
redis.call('HINCRBY', KEYS[1], 's', ARGV[2])
return 1
`)

// dailyScript counts ARGV[2] calls on the day's counter when they fit within ARGV[3], and
// answers {1, calls left} if they did, {0, calls left} if not. ARGV[1] is the counter's
// lifetime.
var dailyScript = redis.NewScript(`
local n = redis.call('INCRBY', KEYS[1], ARGV[2])
if n == tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
if n > tonumber(ARGV[3]) then
  redis.call('DECRBY', KEYS[1], ARGV[2])
  return {0, math.max(tonumber(ARGV[3]) - (n - tonumber(ARGV[2])), 0)}
end
return {1, tonumber(ARGV[3]) - n}
`)

var errNeedSeed = errors.New("month not in redis")

var callCode = map[Call]string{Lookup: "l", Suggest: "s", Validate: "v"}

func (s *shared) charge(ctx context.Context, c Charge, month string, idle time.Duration) (Receipt, error) {
	has := "0"
	if c.Session != "" {
		has = "1"
	}
	sk := s.prefix + "nosession"
	if c.Session != "" {
		sk = s.sessionKey(c.Account, c.Session)
	}
	confirmed := "0"
	if c.Confirmed {
		confirmed = "1"
	}
	res, err := chargeScript.Run(ctx, s.rdb, []string{s.usageKey(c.Account, month), sk},
		callCode[c.Call], has, c.Quota, idle.Milliseconds(), max(c.Units, 1), SessionCalls, confirmed).Int64Slice()
	if err != nil {
		return Receipt{}, fmt.Errorf("usage charge in redis: %w", err)
	}
	if len(res) != 5 {
		return Receipt{}, fmt.Errorf("usage charge in redis: unexpected reply of %d values", len(res))
	}
	switch res[0] {
	case 1:
		return Receipt{}, ErrQuota
	case 2:
		return Receipt{}, errNeedSeed
	}
	return Receipt{account: c.Account, month: month, session: c.Session, Units: int(res[1]), loose: int(res[2]),
		moved: res[3] == 1, prev: int(res[4]), shared: true}, nil
}

// start starts a month with the durable totals t, and reports whether it did (false: the
// month was there already).
func (s *shared) start(ctx context.Context, account, month string, t Totals) (bool, error) {
	n, err := startScript.Run(ctx, s.rdb, []string{s.usageKey(account, month)},
		t.Verifications, t.SuggestCalls, usageTTL.Milliseconds()).Int64()
	if err != nil {
		return false, fmt.Errorf("usage start in redis: %w", err)
	}
	return n == 1, nil
}

func (s *shared) refund(ctx context.Context, r Receipt, idle time.Duration) error {
	_, err := s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		if r.Units != 0 || r.loose != 0 {
			addScript.Eval(ctx, p, []string{s.usageKey(r.account, r.month)}, -r.Units, -r.loose)
		}
		sk := s.sessionKey(r.account, r.session)
		switch {
		case r.moved && r.prev == 0:
			p.Del(ctx, sk)
		case r.moved:
			p.Set(ctx, sk, r.prev, idle)
		case r.inSession():
			// Other calls of the session may have come since: give back one call, not a state
			// (see uncall).
			uncallScript.Eval(ctx, p, []string{sk})
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("usage refund in redis: %w", err)
	}
	return nil
}

// add replays changes made locally while Redis was away.
func (s *shared) add(ctx context.Context, deltas map[acctMonth]Totals) error {
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for k, t := range deltas {
			addScript.Eval(ctx, p, []string{s.usageKey(k.account, k.month)}, t.Verifications, t.SuggestCalls)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("usage replay in redis: %w", err)
	}
	return nil
}

func (s *shared) countDaily(ctx context.Context, key string, limit, calls int, now time.Time) (bool, int, error) {
	r, err := dailyScript.Run(ctx, s.rdb, []string{s.dailyKey(key, Day(now))}, (48 * time.Hour).Milliseconds(), calls, limit).Int64Slice()
	if err != nil {
		return false, 0, fmt.Errorf("daily cap in redis: %w", err)
	}
	if len(r) != 2 {
		return false, 0, fmt.Errorf("daily cap in redis: %d values in the answer", len(r))
	}
	return r[0] == 1, int(r[1]), nil
}

// dailyCalls reads a capped key's counter of today; a key without one has made no call.
func (s *shared) dailyCalls(ctx context.Context, key string, now time.Time) (int, error) {
	n, err := s.rdb.Get(ctx, s.dailyKey(key, Day(now))).Int()
	if errors.Is(err, redis.Nil) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("daily calls in redis: %w", err)
	}
	return n, nil
}

// runID names the Redis process; it changes when Redis restarts (and loses its data,
// without persistence).
func (s *shared) runID(ctx context.Context) (string, error) {
	info, err := s.rdb.Info(ctx, "server").Result()
	if err != nil {
		return "", fmt.Errorf("redis info: %w", err)
	}
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "run_id:"); ok {
			return v, nil
		}
	}
	return "", nil
}

func (s *shared) used(ctx context.Context, account, month string) (Totals, bool, error) {
	m, err := s.rdb.HGetAll(ctx, s.usageKey(account, month)).Result()
	if err != nil {
		return Totals{}, false, fmt.Errorf("usage in redis: %w", err)
	}
	if len(m) == 0 {
		return Totals{}, false, nil
	}
	v, _ := strconv.ParseInt(m["v"], 10, 64)
	sc, _ := strconv.ParseInt(m["s"], 10, 64)
	return Totals{Verifications: v, SuggestCalls: sc}, true, nil
}
