package gatewaydb

import (
	"context"
	"embed"
	"fmt"
	"io/fs"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/tern/v2/migrate"
)

// migrations are the gateway's schema, one numbered file per change, applied in order and
// never edited once released: a database records the last one it ran.
//
//go:embed migrations/*.sql
var migrations embed.FS

// versionTable records how far a database's schema has been brought.
const versionTable = "gateway_schema_version"

// upgrade applies the migrations a database has not run yet. Gateways starting together
// take turns: the migrator holds an advisory lock while it works.
func upgrade(ctx context.Context, pool *pgxpool.Pool) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("gateway database: %w", err)
	}
	defer conn.Release()
	m, err := migrate.NewMigrator(ctx, conn.Conn(), versionTable)
	if err != nil {
		return fmt.Errorf("gateway database schema: %w", err)
	}
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return fmt.Errorf("gateway database schema: %w", err)
	}
	if err := m.LoadMigrations(sub); err != nil {
		return fmt.Errorf("gateway database schema: %w", err)
	}
	if err := m.Migrate(ctx); err != nil {
		return fmt.Errorf("gateway database schema: %w", err)
	}
	return nil
}
