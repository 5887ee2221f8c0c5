package gatewaydb

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/adreswijzer/adreswijzer/gateway/accounts"
)

// Accounts is the account store, shared by every gateway on the database.
func (db *DB) Accounts() accounts.Store { return accountStore{db.pool} }

type accountStore struct{ pool *pgxpool.Pool }

const accountColumns = `id, email, plan, language, created, signed_out`

func scanAccount(row pgx.Row) (*accounts.Account, error) {
	var a accounts.Account
	var signedOut *time.Time
	if err := row.Scan(&a.ID, &a.Email, &a.Plan, &a.Language, &a.Created, &signedOut); err != nil {
		return nil, err
	}
	if signedOut != nil {
		a.SignedOut = signedOut.UTC()
	}
	a.Created = a.Created.UTC()
	return &a, nil
}

// one reads the account a query finds, or ErrNotFound.
func (s accountStore) one(ctx context.Context, sql string, args ...any) (*accounts.Account, error) {
	a, err := scanAccount(s.pool.QueryRow(ctx, sql, args...))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, accounts.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("read account: %w", err)
	}
	return a, nil
}

func (s accountStore) Get(ctx context.Context, id string) (*accounts.Account, error) {
	return s.one(ctx, `SELECT `+accountColumns+` FROM gateway_accounts WHERE id = $1`, id)
}

func (s accountStore) ByEmail(ctx context.Context, email string) (*accounts.Account, error) {
	return s.one(ctx, `SELECT `+accountColumns+` FROM gateway_accounts WHERE email = $1`, email)
}

func (s accountStore) ByIdentity(ctx context.Context, provider, subject string) (*accounts.Account, error) {
	return s.one(ctx, `SELECT a.id, a.email, a.plan, a.language, a.created, a.signed_out
FROM gateway_identities i JOIN gateway_accounts a ON a.id = i.account
WHERE i.provider = $1 AND i.subject = $2`, provider, subject)
}

func (s accountStore) List(ctx context.Context) ([]*accounts.Account, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+accountColumns+` FROM gateway_accounts ORDER BY created, id`)
	if err != nil {
		return nil, fmt.Errorf("list accounts: %w", err)
	}
	defer rows.Close()
	var out []*accounts.Account
	for rows.Next() {
		a, err := scanAccount(rows)
		if err != nil {
			return nil, fmt.Errorf("list accounts: %w", err)
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list accounts: %w", err)
	}
	return out, nil
}

func (s accountStore) Create(ctx context.Context, a *accounts.Account) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO gateway_accounts (`+accountColumns+`) VALUES ($1,$2,$3,$4,$5,NULL)`,
		a.ID, a.Email, a.Plan, a.Language, a.Created)
	if isUniqueViolation(err) {
		return accounts.ErrExists
	}
	if err != nil {
		return fmt.Errorf("create account: %w", err)
	}
	return nil
}

func (s accountStore) AddIdentity(ctx context.Context, id accounts.Identity) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO gateway_identities (provider, subject, account, created) VALUES ($1,$2,$3,$4)`,
		id.Provider, id.Subject, id.Account, id.Created.UTC().Truncate(time.Second))
	var pe *pgconn.PgError
	switch {
	case isUniqueViolation(err):
		return accounts.ErrExists
	case errors.As(err, &pe) && pe.Code == "23503": // foreign_key_violation
		return accounts.ErrNotFound
	case err != nil:
		return fmt.Errorf("link identity: %w", err)
	}
	return nil
}

// set runs an update of one account, or returns ErrNotFound.
func (s accountStore) set(ctx context.Context, what, sql string, args ...any) error {
	tag, err := s.pool.Exec(ctx, sql, args...)
	if err != nil {
		return fmt.Errorf("set %s of account: %w", what, err)
	}
	if tag.RowsAffected() == 0 {
		return accounts.ErrNotFound
	}
	return nil
}

func (s accountStore) SetPlan(ctx context.Context, id, plan string) error {
	return s.set(ctx, "plan", `UPDATE gateway_accounts SET plan = $2 WHERE id = $1`, id, plan)
}

func (s accountStore) SetLanguage(ctx context.Context, id, lang string) error {
	return s.set(ctx, "language", `UPDATE gateway_accounts SET language = $2 WHERE id = $1`, id, lang)
}

func (s accountStore) SignOut(ctx context.Context, id string, at time.Time) error {
	return s.set(ctx, "sign-out time", `UPDATE gateway_accounts SET signed_out = $2 WHERE id = $1`, id, at.UTC())
}

// Delete removes the account; its identities go with it (ON DELETE CASCADE).
func (s accountStore) Delete(ctx context.Context, id string) error {
	return s.set(ctx, "deletion", `DELETE FROM gateway_accounts WHERE id = $1`, id)
}

func (s accountStore) AddLink(ctx context.Context, l accounts.Link) error {
	b := &pgx.Batch{}
	b.Queue(`DELETE FROM gateway_signin_links WHERE expires <= now()`)
	b.Queue(`INSERT INTO gateway_signin_links (hash, email, expires) VALUES ($1,$2,$3)`, l.Hash[:], l.Email, l.Expires)
	if err := s.pool.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("store sign-in link: %w", err)
	}
	return nil
}

// UseLink deletes the link and reads it in one statement, so that of two uses at once one
// finds it and the other nothing.
func (s accountStore) UseLink(ctx context.Context, h accounts.Hash, now time.Time) (string, error) {
	var email string
	var expires time.Time
	err := s.pool.QueryRow(ctx, `DELETE FROM gateway_signin_links WHERE hash = $1 RETURNING email, expires`, h[:]).
		Scan(&email, &expires)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return "", accounts.ErrLinkInvalid
	case err != nil:
		return "", fmt.Errorf("use sign-in link: %w", err)
	case !expires.After(now):
		return "", accounts.ErrLinkInvalid
	}
	return email, nil
}

func isUniqueViolation(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23505"
}
