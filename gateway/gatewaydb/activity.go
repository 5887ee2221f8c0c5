package gatewaydb

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/adreswijzer/adreswijzer/gateway/usage"
)

// addActivity adds activity rows and moves the credentials' last use on, one statement
// each. Counts are added and the later time kept, so that gateways sharing the database add
// up; rows are summed per key first, for ON CONFLICT may see each key once per statement.
func addActivity(ctx context.Context, tx pgx.Tx, rows []usage.Activity) error {
	if len(rows) == 0 {
		return nil
	}
	n := len(rows)
	accounts, days, keyIDs, routes := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	calls, verifications, last := make([]int64, n), make([]int64, n), make([]time.Time, n)
	for i, a := range rows {
		accounts[i], days[i], keyIDs[i], routes[i] = a.Account, a.Day, a.Key, a.Route
		calls[i], verifications[i], last[i] = a.Calls, a.Verifications, a.LastUsed
	}
	if _, err := tx.Exec(ctx, `
INSERT INTO gateway_activity (account, day, key_id, route, calls, verifications, last_used)
SELECT a, d::date, k, r, sum(c), sum(v), max(l)
FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::bigint[], $7::timestamptz[])
	AS t(a, d, k, r, c, v, l)
GROUP BY a, d, k, r
ON CONFLICT (account, day, key_id, route) DO UPDATE SET
	calls = gateway_activity.calls + excluded.calls,
	verifications = gateway_activity.verifications + excluded.verifications,
	last_used = GREATEST(gateway_activity.last_used, excluded.last_used)`,
		accounts, days, keyIDs, routes, calls, verifications, last); err != nil {
		return fmt.Errorf("activity rows: %w", err)
	}
	if _, err := tx.Exec(ctx, `
INSERT INTO gateway_key_use (account, key_id, last_used)
SELECT a, k, max(l) FROM unnest($1::text[], $2::text[], $3::timestamptz[]) AS t(a, k, l)
GROUP BY a, k
ON CONFLICT (account, key_id) DO UPDATE SET
	last_used = GREATEST(gateway_key_use.last_used, excluded.last_used)`,
		accounts, keyIDs, last); err != nil {
		return fmt.Errorf("last use of keys: %w", err)
	}
	return nil
}

// Activity returns an account's rows from day from to day to, both included.
func (s usageSink) Activity(ctx context.Context, account, from, to string) ([]usage.Activity, error) {
	if _, _, err := usage.CheckSpan(from, to); err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `
SELECT to_char(day, 'YYYY-MM-DD'), key_id, route, calls, verifications, last_used
FROM gateway_activity WHERE account = $1 AND day BETWEEN $2::date AND $3::date
ORDER BY day, key_id, route`, account, from, to)
	if err != nil {
		return nil, fmt.Errorf("read activity: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (usage.Activity, error) {
		a := usage.Activity{Account: account}
		err := row.Scan(&a.Day, &a.Key, &a.Route, &a.Calls, &a.Verifications, &a.LastUsed)
		a.LastUsed = a.LastUsed.UTC()
		return a, err
	})
	if err != nil {
		return nil, fmt.Errorf("read activity: %w", err)
	}
	return out, nil
}

// LastUsed returns when each credential of an account last had a call answered.
func (s usageSink) LastUsed(ctx context.Context, account string) (map[string]time.Time, error) {
	rows, err := s.pool.Query(ctx, `SELECT key_id, last_used FROM gateway_key_use WHERE account = $1`, account)
	if err != nil {
		return nil, fmt.Errorf("read last use of keys: %w", err)
	}
	defer rows.Close()
	out := map[string]time.Time{}
	for rows.Next() {
		var k string
		var t time.Time
		if err := rows.Scan(&k, &t); err != nil {
			return nil, fmt.Errorf("read last use of keys: %w", err)
		}
		out[k] = t.UTC()
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read last use of keys: %w", err)
	}
	return out, nil
}
