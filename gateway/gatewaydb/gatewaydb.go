// Package gatewaydb keeps the gateway's own state in Postgres, for deployments where
// several gateways must see the same keys and add up to one bill: the API keys, the usage
// counts and each account's activity, the dashboard's accounts and sessions, and the agents'
// OAuth clients, grants and signing keys. The registers' addresses are not here: the
// workers read them from their own database (store/postgres).
package gatewaydb

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/alexedwards/scs/pgxstore"
	"github.com/alexedwards/scs/v2"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/adreswijzer/adreswijzer/gateway/keys"
	"github.com/adreswijzer/adreswijzer/gateway/usage"
)

// DB is a connection pool with the gateway's tables.
type DB struct {
	pool     *pgxpool.Pool
	sessions *pgxstore.PostgresStore
}

// Open connects and brings the tables up to date (see upgrade).
func Open(ctx context.Context, url string) (*DB, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("gateway database url: %w", err)
	}
	if cfg.MaxConns > 8 {
		cfg.MaxConns = 8 // one lookup per unknown key and one upsert per second: little traffic
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("gateway database: %w", err)
	}
	if err := upgrade(ctx, pool); err != nil {
		pool.Close()
		return nil, err
	}
	return &DB{pool: pool}, nil
}

// Close closes the pool.
func (db *DB) Close() {
	if db.sessions != nil {
		db.sessions.StopCleanup()
	}
	db.pool.Close()
}

// Sessions is the dashboard's session store, in the sessions table (migration 002), so
// that a person stays signed in whichever gateway answers. The first call starts a sweeper
// of expired sessions, which Close stops.
func (db *DB) Sessions() scs.Store {
	if db.sessions == nil {
		db.sessions = pgxstore.New(db.pool)
	}
	return db.sessions
}

// Keys is the key store.
func (db *DB) Keys() keys.Store { return keyStore{db.pool} }

// Usage is the durable usage sink, which the dashboard also reads.
func (db *DB) Usage() usage.Store { return usageSink{db.pool} }

type keyStore struct{ pool *pgxpool.Pool }

const keyColumns = `id, hash, kind, account, plan, name, scopes, origins, created, revoked`

func scanKey(row pgx.Row) (*keys.Key, error) {
	var k keys.Key
	var hash []byte
	var kind string
	if err := row.Scan(&k.ID, &hash, &kind, &k.Account, &k.Plan, &k.Name, &k.Scopes, &k.Origins, &k.Created, &k.Revoked); err != nil {
		return nil, err
	}
	if len(hash) != len(k.Hash) {
		return nil, fmt.Errorf("key %s: stored hash has %d bytes", k.ID, len(hash))
	}
	copy(k.Hash[:], hash)
	k.Kind = keys.Kind(kind)
	if len(k.Origins) == 0 {
		k.Origins = nil
	}
	return &k, nil
}

func (s keyStore) Lookup(ctx context.Context, h keys.Hash) (*keys.Key, error) {
	k, err := scanKey(s.pool.QueryRow(ctx, `SELECT `+keyColumns+` FROM gateway_keys WHERE hash = $1`, h[:]))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, keys.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("look up key: %w", err)
	}
	if !k.Hash.Equal(h) {
		return nil, keys.ErrNotFound
	}
	return k, nil
}

func (s keyStore) Create(ctx context.Context, k *keys.Key) error {
	origins := k.Origins
	if origins == nil {
		origins = []string{}
	}
	_, err := s.pool.Exec(ctx, `INSERT INTO gateway_keys (`+keyColumns+`) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10)`,
		k.ID, k.Hash[:], string(k.Kind), k.Account, k.Plan, k.Name, k.Scopes, origins, k.Created, k.Revoked)
	if err != nil {
		return fmt.Errorf("create key %s: %w", k.ID, err)
	}
	return nil
}

func (s keyStore) List(ctx context.Context) ([]*keys.Key, error) {
	return s.list(ctx, `SELECT `+keyColumns+` FROM gateway_keys ORDER BY created, id`)
}

func (s keyStore) list(ctx context.Context, sql string, args ...any) ([]*keys.Key, error) {
	rows, err := s.pool.Query(ctx, sql, args...)
	if err != nil {
		return nil, fmt.Errorf("list keys: %w", err)
	}
	defer rows.Close()
	var out []*keys.Key
	for rows.Next() {
		k, err := scanKey(rows)
		if err != nil {
			return nil, fmt.Errorf("list keys: %w", err)
		}
		out = append(out, k)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list keys: %w", err)
	}
	return out, nil
}

func (s keyStore) ListAccount(ctx context.Context, account string) ([]*keys.Key, error) {
	return s.list(ctx, `SELECT `+keyColumns+` FROM gateway_keys WHERE account = $1 ORDER BY created, id`, account)
}

func (s keyStore) SetPlan(ctx context.Context, account, plan string) error {
	if _, err := s.pool.Exec(ctx, `UPDATE gateway_keys SET plan = $2 WHERE account = $1`, account, plan); err != nil {
		return fmt.Errorf("set plan of keys: %w", err)
	}
	return nil
}

func (s keyStore) Revoke(ctx context.Context, id string, at time.Time) error {
	tag, err := s.pool.Exec(ctx, `UPDATE gateway_keys SET revoked = COALESCE(revoked, $2) WHERE id = $1`,
		id, at.UTC().Truncate(time.Second))
	if err != nil {
		return fmt.Errorf("revoke key %s: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return keys.ErrNotFound
	}
	return nil
}

type usageSink struct{ pool *pgxpool.Pool }

func (s usageSink) Get(ctx context.Context, account, month string) (usage.Totals, error) {
	var t usage.Totals
	err := s.pool.QueryRow(ctx, `SELECT verifications, suggest_calls FROM gateway_usage WHERE account = $1 AND month = $2`,
		account, month).Scan(&t.Verifications, &t.SuggestCalls)
	if errors.Is(err, pgx.ErrNoRows) {
		return usage.Totals{}, nil
	}
	if err != nil {
		return usage.Totals{}, fmt.Errorf("read usage: %w", err)
	}
	return t, nil
}

// Add writes a batch in one transaction, so that a batch the Meter sends again after a
// failure was not partly counted before.
func (s usageSink) Add(ctx context.Context, b usage.Batch) error {
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if err := addDeltas(ctx, tx, b.Deltas); err != nil {
			return err
		}
		return addActivity(ctx, tx, b.Activity)
	})
	if err != nil {
		return fmt.Errorf("write usage (%d deltas, %d activity rows): %w", len(b.Deltas), len(b.Activity), err)
	}
	return nil
}

// addDeltas upserts all deltas in one statement: one round trip per flush, however many
// accounts were active. The Meter sends each (account, month) at most once per batch, as
// ON CONFLICT requires.
func addDeltas(ctx context.Context, tx pgx.Tx, deltas []usage.Delta) error {
	if len(deltas) == 0 {
		return nil
	}
	accounts := make([]string, len(deltas))
	months := make([]string, len(deltas))
	v := make([]int64, len(deltas))
	sc := make([]int64, len(deltas))
	for i, d := range deltas {
		accounts[i], months[i], v[i], sc[i] = d.Account, d.Month, d.Verifications, d.SuggestCalls
	}
	_, err := tx.Exec(ctx, `
INSERT INTO gateway_usage (account, month, verifications, suggest_calls)
SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[])
ON CONFLICT (account, month) DO UPDATE SET
	verifications = gateway_usage.verifications + excluded.verifications,
	suggest_calls = gateway_usage.suggest_calls + excluded.suggest_calls,
	updated = now()`, accounts, months, v, sc)
	if err != nil {
		return fmt.Errorf("usage rows: %w", err)
	}
	return nil
}
