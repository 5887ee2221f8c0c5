// Package backend opens the gateway's state from its configuration: files for a single
// gateway, Postgres and Redis for several. Both the Caddy adapter and the `keys` command
// open stores through here, so they always agree on where keys are.
package backend

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"time"

	"github.com/alexedwards/scs/v2"
	"github.com/alexedwards/scs/v2/memstore"
	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"

	"github.com/adreswijzer/adreswijzer/gateway/accounts"
	"github.com/adreswijzer/adreswijzer/gateway/authserver"
	"github.com/adreswijzer/adreswijzer/gateway/gatewaydb"
	"github.com/adreswijzer/adreswijzer/gateway/keys"
	"github.com/adreswijzer/adreswijzer/gateway/limit"
	"github.com/adreswijzer/adreswijzer/gateway/usage"
)

// Config says where state lives.
type Config struct {
	// DatabaseURL: Postgres for keys and usage. Empty: KeyFile and UsageFile.
	DatabaseURL string
	KeyFile     string
	UsageFile   string
	// AccountFile keeps the dashboard's accounts when no database is used.
	AccountFile string
	// RedisURL: Redis for limits, sessions and shared counters. Empty: in memory.
	RedisURL    string
	RedisPrefix string
	// RedisTimeout bounds each Redis call; beyond it the gateway decides locally.
	RedisTimeout time.Duration
	// RedisRetry is how often a failed Redis is tried again.
	RedisRetry  time.Duration
	SessionIdle time.Duration
	// KeyCacheTTL: how long a key looked up in Postgres is trusted (and so how long a
	// revocation takes to reach every gateway).
	KeyCacheTTL time.Duration
	// KeyMaxStale: how long past KeyCacheTTL a known key is still accepted while Postgres
	// fails (negative: not at all).
	KeyMaxStale time.Duration
	// StoreTimeout bounds each wait of a request on Postgres (a key, an account's usage
	// totals); beyond it the gateway decides on what it knows, or answers 503.
	StoreTimeout time.Duration
	Log          *slog.Logger
}

// Defaults.
const (
	DefaultKeyFile      = "./var/keys.json"
	DefaultUsageFile    = "./var/usage.json"
	DefaultAccountFile  = "./var/accounts.json"
	DefaultRedisPrefix  = "aw:"
	DefaultRedisTimeout = 50 * time.Millisecond
	DefaultKeyCacheTTL  = keys.DefaultCacheTTL
	DefaultKeyMaxStale  = keys.DefaultMaxStale
	DefaultStoreTimeout = keys.DefaultLookupTimeout
	DefaultSessionIdle  = 30 * time.Minute
	localLimiterKeys    = 1 << 16
)

func (c *Config) defaults() {
	if c.KeyFile == "" {
		c.KeyFile = DefaultKeyFile
	}
	if c.UsageFile == "" {
		c.UsageFile = DefaultUsageFile
	}
	if c.AccountFile == "" {
		c.AccountFile = DefaultAccountFile
	}
	if c.RedisPrefix == "" {
		c.RedisPrefix = DefaultRedisPrefix
	}
	if c.RedisTimeout <= 0 {
		c.RedisTimeout = DefaultRedisTimeout
	}
	if c.RedisRetry <= 0 {
		c.RedisRetry = time.Second
	}
	if c.SessionIdle <= 0 {
		c.SessionIdle = DefaultSessionIdle
	}
	if c.KeyCacheTTL <= 0 {
		c.KeyCacheTTL = DefaultKeyCacheTTL
	}
	if c.KeyMaxStale == 0 {
		c.KeyMaxStale = DefaultKeyMaxStale
	}
	if c.StoreTimeout <= 0 {
		c.StoreTimeout = DefaultStoreTimeout
	}
	if c.Log == nil {
		c.Log = slog.Default()
	}
}

// Backend is the opened state.
type Backend struct {
	Keys  keys.Store
	Meter *usage.Meter
	// Usage reads back what the Meter wrote (totals, activity, keys' last use), for the
	// dashboard: the same store the bill comes from.
	Usage   usage.Reader
	Limiter limit.Limiter
	// Redis is nil without one.
	Redis *redis.Client
	// Accounts and Sessions are the dashboard's: in Postgres with a database, so that every
	// gateway knows them; otherwise a file and memory (a restart signs people out).
	Accounts accounts.Store
	Sessions scs.Store
	// OAuth is the agents' authorization server's state: in Postgres with a database, else
	// oauth.json beside the account file.
	OAuth authserver.Store
	db    *gatewaydb.DB
	// stopSessions ends the memory session store's sweeper.
	stopSessions func()
}

// Open opens everything. A Redis that does not answer now is no reason to fail: the
// gateway starts on local state and picks Redis up when it answers.
func Open(ctx context.Context, cfg Config) (*Backend, error) {
	cfg.defaults()
	b := &Backend{}
	var sink usage.Store
	if cfg.DatabaseURL != "" {
		db, err := gatewaydb.Open(ctx, cfg.DatabaseURL)
		if err != nil {
			return nil, err
		}
		b.db = db
		b.Keys = keys.NewCache(db.Keys(), cfg.keyCache())
		sink = db.Usage()
		b.Accounts, b.Sessions, b.OAuth = db.Accounts(), db.Sessions(), db.OAuth()
	} else {
		ks, err := keys.OpenFile(cfg.KeyFile)
		if err != nil {
			return nil, err
		}
		b.Keys = ks
		us, err := usage.OpenFile(cfg.UsageFile)
		if err != nil {
			return nil, err
		}
		sink = us
		as, err := accounts.OpenFile(cfg.AccountFile)
		if err != nil {
			return nil, err
		}
		b.Accounts = as
		if b.OAuth, err = authserver.OpenFile(OAuthFile(cfg.AccountFile)); err != nil {
			return nil, err
		}
		mem := memstore.New()
		b.stopSessions = mem.StopCleanup
		b.Sessions = mem
	}
	local := limit.NewLocal(localLimiterKeys)
	b.Limiter = local
	if cfg.RedisURL != "" {
		rdb, err := NewRedis(cfg.RedisURL, cfg.RedisTimeout)
		if err != nil {
			b.Close()
			return nil, err
		}
		b.Redis = rdb
		b.Limiter = limit.NewShared(rdb, local, cfg.RedisPrefix, cfg.RedisTimeout, cfg.RedisRetry, cfg.Log)
	}
	m, err := usage.NewMeter(usage.Config{
		Sink: sink, Redis: b.Redis, Prefix: cfg.RedisPrefix, Timeout: cfg.RedisTimeout,
		Retry: cfg.RedisRetry, SessionIdle: cfg.SessionIdle, StoreTimeout: cfg.StoreTimeout, Log: cfg.Log,
	})
	if err != nil {
		b.Close()
		return nil, err
	}
	b.Meter, b.Usage = m, sink
	return b, nil
}

// OAuthFile is where the authorization server keeps its state without a database: beside
// the account file, whose accounts its grants belong to.
func OAuthFile(accountFile string) string {
	if accountFile == "" {
		accountFile = DefaultAccountFile
	}
	return filepath.Join(filepath.Dir(accountFile), "oauth.json")
}

// NewRedis makes a client that fails fast: no retries inside the client (the caller falls
// back instead), timeouts from the context, short dial and pool waits.
func NewRedis(url string, timeout time.Duration) (*redis.Client, error) {
	quietRedisLog.Do(func() { redis.SetLogger(redisLog{}) })
	opt, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("redis url: %w", err)
	}
	opt.ContextTimeoutEnabled = true
	opt.MaxRetries = -1
	opt.DialerRetries = 1 // one dial; the client's default retries a refused dial for half a second
	opt.DialTimeout = max(2*timeout, 100*time.Millisecond)
	opt.ReadTimeout = max(2*timeout, 100*time.Millisecond)
	opt.WriteTimeout = opt.ReadTimeout
	opt.PoolTimeout = timeout
	opt.DisableIdentity = true
	opt.MaintNotificationsConfig = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
	return redis.NewClient(opt), nil
}

// quietRedisLog routes the Redis client's own log lines (one per failed dial while Redis is
// down) to slog at debug level: the breakers already report outages once, at warn.
var quietRedisLog sync.Once

type redisLog struct{}

func (redisLog) Printf(ctx context.Context, format string, v ...any) {
	slog.Default().DebugContext(ctx, fmt.Sprintf(format, v...), "component", "redis client")
}

// Close flushes usage and closes connections.
func (b *Backend) Close() error {
	var errs []error
	if b.Meter != nil {
		errs = append(errs, b.Meter.Close())
	}
	if b.Redis != nil {
		errs = append(errs, b.Redis.Close())
	}
	if b.stopSessions != nil {
		b.stopSessions()
	}
	if b.db != nil {
		b.db.Close()
	}
	return errors.Join(errs...)
}

// OpenKeys opens only the key store, for the command line. close releases it.
func OpenKeys(ctx context.Context, databaseURL, keyFile string) (store keys.Store, close func(), err error) {
	if databaseURL != "" {
		db, err := gatewaydb.Open(ctx, databaseURL)
		if err != nil {
			return nil, nil, err
		}
		return db.Keys(), db.Close, nil
	}
	if keyFile == "" {
		keyFile = DefaultKeyFile
	}
	ks, err := keys.OpenFile(keyFile)
	if err != nil {
		return nil, nil, err
	}
	return ks, func() {}, nil
}

// OpenAccounts opens the account store and the key store beside it, for the command line:
// a plan change is written to the account and to its keys. close releases them.
func OpenAccounts(ctx context.Context, databaseURL, accountFile, keyFile string) (accounts.Store, keys.Store, func(), error) {
	if databaseURL != "" {
		db, err := gatewaydb.Open(ctx, databaseURL)
		if err != nil {
			return nil, nil, nil, err
		}
		return db.Accounts(), db.Keys(), db.Close, nil
	}
	if accountFile == "" {
		accountFile = DefaultAccountFile
	}
	as, err := accounts.OpenFile(accountFile)
	if err != nil {
		return nil, nil, nil, err
	}
	ks, closeKeys, err := OpenKeys(ctx, "", keyFile)
	if err != nil {
		return nil, nil, nil, err
	}
	return as, ks, closeKeys, nil
}

func (c Config) keyCache() keys.CacheConfig {
	return keys.CacheConfig{TTL: c.KeyCacheTTL, MaxStale: c.KeyMaxStale, Timeout: c.StoreTimeout,
		Retry: c.RedisRetry, Log: c.Log}
}

// Tune applies the settings a configuration reload may change to a Backend kept across
// the reload: the session idle time, the time-outs, and the key cache's TTL and staleness.
func (b *Backend) Tune(cfg Config) {
	cfg.defaults()
	b.Meter.Tune(cfg.SessionIdle, cfg.RedisTimeout, cfg.StoreTimeout)
	if s, ok := b.Limiter.(*limit.Shared); ok {
		s.Tune(cfg.RedisTimeout)
	}
	if c, ok := b.Keys.(*keys.Cache); ok {
		c.Tune(cfg.keyCache())
	}
}

// Identity is what makes two configurations share one Backend: the places state lives.
// Settings outside it are applied with Tune.
func (c Config) Identity() string {
	c.defaults()
	if c.DatabaseURL != "" {
		return fmt.Sprintf("pg=%s redis=%s prefix=%s", c.DatabaseURL, c.RedisURL, c.RedisPrefix)
	}
	return fmt.Sprintf("keys=%s usage=%s accounts=%s redis=%s prefix=%s", c.KeyFile, c.UsageFile, c.AccountFile, c.RedisURL, c.RedisPrefix)
}
