package gatewaydb

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/adreswijzer/adreswijzer/gateway/authserver"
)

// OAuth is the authorization server's store (migration 004), shared by every gateway on the
// database: a token one gateway issued is refreshed or revoked at any other.
func (db *DB) OAuth() authserver.Store { return oauthStore{db.pool} }

type oauthStore struct{ pool *pgxpool.Pool }

// notFound maps "no row" to the store's ErrNotFound and wraps other errors.
func notFound(what string, err error) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return authserver.ErrNotFound
	}
	return fmt.Errorf("%s: %w", what, err)
}

// exec runs one statement.
func (s oauthStore) exec(ctx context.Context, what, sql string, args ...any) error {
	if _, err := s.pool.Exec(ctx, sql, args...); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

func (s oauthStore) AddClient(ctx context.Context, c *authserver.Client) error {
	return s.exec(ctx, "register client", `INSERT INTO gateway_oauth_clients (id, name, redirect_uris, grant_types, created)
VALUES ($1,$2,$3,$4,$5)`, c.ID, c.Name, c.RedirectURIs, c.GrantTypes, c.Created)
}

func (s oauthStore) Client(ctx context.Context, id string) (*authserver.Client, error) {
	var c authserver.Client
	err := s.pool.QueryRow(ctx, `SELECT id, name, redirect_uris, grant_types, created FROM gateway_oauth_clients WHERE id = $1`, id).
		Scan(&c.ID, &c.Name, &c.RedirectURIs, &c.GrantTypes, &c.Created)
	if err != nil {
		return nil, notFound("read client", err)
	}
	c.Created = c.Created.UTC()
	return &c, nil
}

// AddRequest drops expired requests in the same round trip.
func (s oauthStore) AddRequest(ctx context.Context, r authserver.Request) error {
	b := &pgx.Batch{}
	b.Queue(`DELETE FROM gateway_oauth_requests WHERE expires <= now()`)
	b.Queue(`INSERT INTO gateway_oauth_requests (id, client, redirect_uri, state, challenge, scope, resource, expires)
VALUES ($1,$2,$3,$4,$5,$6,$7,$8)`, r.ID, r.Client, r.RedirectURI, r.State, r.Challenge, r.Scope, r.Resource, r.Expires)
	if err := s.pool.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("store authorization request: %w", err)
	}
	return nil
}

const requestColumns = `id, client, redirect_uri, state, challenge, scope, resource, expires`

func scanRequest(row pgx.Row) (*authserver.Request, error) {
	var r authserver.Request
	if err := row.Scan(&r.ID, &r.Client, &r.RedirectURI, &r.State, &r.Challenge, &r.Scope, &r.Resource, &r.Expires); err != nil {
		return nil, err
	}
	r.Expires = r.Expires.UTC()
	return &r, nil
}

func (s oauthStore) Request(ctx context.Context, id string, now time.Time) (*authserver.Request, error) {
	r, err := scanRequest(s.pool.QueryRow(ctx, `SELECT `+requestColumns+` FROM gateway_oauth_requests WHERE id = $1 AND expires > $2`, id, now))
	if err != nil {
		return nil, notFound("read authorization request", err)
	}
	return r, nil
}

// TakeRequest deletes and reads in one statement, so that of two takes one finds it.
func (s oauthStore) TakeRequest(ctx context.Context, id string, now time.Time) (*authserver.Request, error) {
	r, err := scanRequest(s.pool.QueryRow(ctx, `DELETE FROM gateway_oauth_requests WHERE id = $1 RETURNING `+requestColumns, id))
	if err != nil {
		return nil, notFound("take authorization request", err)
	}
	if !r.Expires.After(now) {
		return nil, authserver.ErrNotFound
	}
	return r, nil
}

func (s oauthStore) AddCode(ctx context.Context, c authserver.Code) error {
	req, err := json.Marshal(c.Request)
	if err != nil {
		return fmt.Errorf("store authorization code: %w", err)
	}
	b := &pgx.Batch{}
	b.Queue(`DELETE FROM gateway_oauth_codes WHERE expires <= now()`)
	b.Queue(`INSERT INTO gateway_oauth_codes (hash, request, account, expires) VALUES ($1,$2,$3,$4)`, c.Hash[:], req, c.Account, c.Expires)
	if err := s.pool.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("store authorization code: %w", err)
	}
	return nil
}

// UseCode deletes and reads in one statement: a code is spent by the first use.
func (s oauthStore) UseCode(ctx context.Context, h authserver.Hash, now time.Time) (*authserver.Code, error) {
	var req []byte
	c := authserver.Code{Hash: h}
	err := s.pool.QueryRow(ctx, `DELETE FROM gateway_oauth_codes WHERE hash = $1 RETURNING request, account, expires`, h[:]).
		Scan(&req, &c.Account, &c.Expires)
	if err != nil {
		return nil, notFound("use authorization code", err)
	}
	if !c.Expires.After(now) {
		return nil, authserver.ErrNotFound
	}
	if err := json.Unmarshal(req, &c.Request); err != nil {
		return nil, fmt.Errorf("use authorization code: %w", err)
	}
	return &c, nil
}

func (s oauthStore) AddGrant(ctx context.Context, g *authserver.Grant) error {
	return s.exec(ctx, "record grant", `INSERT INTO gateway_oauth_grants (id, account, client, scope, resource, created)
VALUES ($1,$2,$3,$4,$5,$6)`, g.ID, g.Account, g.Client, g.Scope, g.Resource, g.Created)
}

const grantColumns = `id, account, client, scope, resource, created, revoked`

func scanGrant(row pgx.Row) (*authserver.Grant, error) {
	var g authserver.Grant
	var revoked *time.Time
	if err := row.Scan(&g.ID, &g.Account, &g.Client, &g.Scope, &g.Resource, &g.Created, &revoked); err != nil {
		return nil, err
	}
	g.Created = g.Created.UTC()
	if revoked != nil {
		g.Revoked = revoked.UTC()
	}
	return &g, nil
}

func (s oauthStore) Grant(ctx context.Context, id string) (*authserver.Grant, error) {
	g, err := scanGrant(s.pool.QueryRow(ctx, `SELECT `+grantColumns+` FROM gateway_oauth_grants WHERE id = $1`, id))
	if err != nil {
		return nil, notFound("read grant", err)
	}
	return g, nil
}

func (s oauthStore) Grants(ctx context.Context, account string) ([]*authserver.Grant, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+grantColumns+` FROM gateway_oauth_grants
WHERE account = $1 AND revoked IS NULL ORDER BY created, id`, account)
	if err != nil {
		return nil, fmt.Errorf("list grants: %w", err)
	}
	defer rows.Close()
	var out []*authserver.Grant
	for rows.Next() {
		g, err := scanGrant(rows)
		if err != nil {
			return nil, fmt.Errorf("list grants: %w", err)
		}
		out = append(out, g)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list grants: %w", err)
	}
	return out, nil
}

// RevokeGrant revokes the grant and deletes its refresh tokens in one transaction.
func (s oauthStore) RevokeGrant(ctx context.Context, id string, at time.Time) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE gateway_oauth_grants SET revoked = COALESCE(revoked, $2) WHERE id = $1`,
			id, at.UTC().Truncate(time.Second))
		if err != nil {
			return fmt.Errorf("revoke grant: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return authserver.ErrNotFound
		}
		if _, err := tx.Exec(ctx, `DELETE FROM gateway_oauth_refresh WHERE grant_id = $1`, id); err != nil {
			return fmt.Errorf("revoke grant: %w", err)
		}
		return nil
	})
}

func (s oauthStore) AddRefresh(ctx context.Context, r authserver.Refresh) error {
	b := &pgx.Batch{}
	b.Queue(`DELETE FROM gateway_oauth_refresh WHERE expires <= now()`)
	b.Queue(`INSERT INTO gateway_oauth_refresh (hash, grant_id, expires, spent) VALUES ($1,$2,$3,$4)`, r.Hash[:], r.Grant, r.Expires, r.Spent)
	if err := s.pool.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("store refresh token: %w", err)
	}
	return nil
}

// UseRefresh marks the token spent and reads whether it was already, in one statement: the
// row lock makes the second of two uses at once see the first one's mark.
func (s oauthStore) UseRefresh(ctx context.Context, h authserver.Hash, now time.Time) (string, error) {
	var grant string
	var was bool
	err := s.pool.QueryRow(ctx, `UPDATE gateway_oauth_refresh r SET spent = true
FROM (SELECT hash, spent FROM gateway_oauth_refresh WHERE hash = $1 AND expires > $2 FOR UPDATE) old
WHERE r.hash = old.hash RETURNING r.grant_id, old.spent`, h[:], now).Scan(&grant, &was)
	if err != nil {
		return "", notFound("use refresh token", err)
	}
	if was {
		return grant, authserver.ErrReused
	}
	return grant, nil
}

func (s oauthStore) Keys(ctx context.Context) ([]authserver.Key, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, private, active, created FROM gateway_oauth_keys ORDER BY created, id`)
	if err != nil {
		return nil, fmt.Errorf("read signing keys: %w", err)
	}
	defer rows.Close()
	var out []authserver.Key
	for rows.Next() {
		var k authserver.Key
		if err := rows.Scan(&k.ID, &k.Private, &k.Active, &k.Created); err != nil {
			return nil, fmt.Errorf("read signing keys: %w", err)
		}
		k.Active, k.Created = k.Active.UTC(), k.Created.UTC()
		out = append(out, k)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read signing keys: %w", err)
	}
	return out, nil
}

func (s oauthStore) AddKey(ctx context.Context, k authserver.Key) error {
	return s.exec(ctx, "store signing key", `INSERT INTO gateway_oauth_keys (id, private, active, created) VALUES ($1,$2,$3,$4)`,
		k.ID, k.Private, k.Active, k.Created)
}

func (s oauthStore) DeleteKey(ctx context.Context, id string) error {
	return s.exec(ctx, "delete signing key", `DELETE FROM gateway_oauth_keys WHERE id = $1`, id)
}
