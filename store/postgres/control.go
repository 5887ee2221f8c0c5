package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/adreswijzer/adreswijzer"
)

// Rollback activates the country's previous dataset again (the one retired by the last
// activation) and retires the current one, for an operator who finds the new register data
// wrong. A second Rollback undoes the first.
func (s *Store) Rollback(ctx context.Context, c adreswijzer.Country) (adreswijzer.DatasetInfo, error) {
	if _, ok := s.active[c]; !ok {
		return adreswijzer.DatasetInfo{}, fmt.Errorf("rollback: unsupported country %q", c)
	}
	info, err := s.rollback(ctx, c)
	if err != nil {
		return info, fmt.Errorf("rollback %s: %w", c, err)
	}
	if err := s.refresh(ctx); err != nil {
		s.log.Warn("dataset rolled back but not yet loaded here", "country", string(c), "err", err)
	}
	return info, nil
}

func (s *Store) rollback(ctx context.Context, c adreswijzer.Country) (adreswijzer.DatasetInfo, error) {
	tx, err := s.primary.Begin(ctx)
	if err != nil {
		return adreswijzer.DatasetInfo{}, fmt.Errorf("%w: %w", adreswijzer.ErrUnavailable, err)
	}
	defer tx.Rollback(ctx)
	var locked bool
	if err := tx.QueryRow(ctx, "SELECT pg_try_advisory_xact_lock($1, $2)", lockClass, countryLock(c)).Scan(&locked); err != nil {
		return adreswijzer.DatasetInfo{}, err
	}
	if !locked {
		return adreswijzer.DatasetInfo{}, ErrImportRunning
	}
	var prev int64
	err = tx.QueryRow(ctx, `SELECT id FROM adreswijzer.datasets WHERE country = $1 AND state = 'retired'
		ORDER BY activated_at DESC, id DESC LIMIT 1`, string(c)).Scan(&prev)
	if errors.Is(err, pgx.ErrNoRows) {
		return adreswijzer.DatasetInfo{}, errors.New("no previous dataset to return to")
	}
	if err != nil {
		return adreswijzer.DatasetInfo{}, err
	}
	if _, err := tx.Exec(ctx, "UPDATE adreswijzer.datasets SET state = 'retired' WHERE country = $1 AND state = 'active'", string(c)); err != nil {
		return adreswijzer.DatasetInfo{}, err
	}
	info := adreswijzer.DatasetInfo{Country: c}
	var version string
	var n int64
	err = tx.QueryRow(ctx, `UPDATE adreswijzer.datasets SET state = 'active', activated_at = now() WHERE id = $1
		RETURNING version, activated_at, addresses`, prev).Scan(&version, &info.ActivatedAt, &n)
	if err != nil {
		return adreswijzer.DatasetInfo{}, err
	}
	if err := tx.Commit(ctx); err != nil {
		return adreswijzer.DatasetInfo{}, err
	}
	info.Version, info.Addresses, info.ActivatedAt = adreswijzer.DatasetVersion(version), int(n), info.ActivatedAt.UTC()
	return info, nil
}

// Cleanup removes what interrupted imports left behind, for every country whose import is not
// running now. Begin does the same for its own country; Cleanup is for an operator or a
// scheduled job that wants the space back before the next import.
func (s *Store) Cleanup(ctx context.Context) error {
	conn, err := s.primary.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("cleanup: %w: %w", adreswijzer.ErrUnavailable, err)
	}
	defer conn.Release()
	for _, c := range adreswijzer.Countries {
		var locked bool
		if err := conn.QueryRow(ctx, "SELECT pg_try_advisory_lock($1, $2)", lockClass, countryLock(c)).Scan(&locked); err != nil {
			return fmt.Errorf("cleanup %s: %w", c, err)
		}
		if !locked {
			continue // an import is running
		}
		err := dropLoading(ctx, conn, c, s.log)
		if _, uerr := conn.Exec(ctx, "SELECT pg_advisory_unlock($1, $2)", lockClass, countryLock(c)); uerr != nil && err == nil {
			err = uerr
		}
		if err != nil {
			return fmt.Errorf("cleanup %s: %w", c, err)
		}
	}
	return nil
}
