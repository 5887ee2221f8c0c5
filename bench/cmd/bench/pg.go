package main

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"regexp"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
)

// pgTarget is the Postgres server the benchmark may create scratch databases on.
type pgTarget struct {
	admin *url.URL
}

func newPGTarget(adminURL string) (pgTarget, error) {
	u, err := url.Parse(adminURL)
	if err != nil {
		return pgTarget{}, fmt.Errorf("database URL: %w", err)
	}
	if h := u.Hostname(); h != "127.0.0.1" && h != "localhost" && h != "::1" {
		return pgTarget{}, fmt.Errorf("database URL: the benchmark runs on loopback only, not on %s", h)
	}
	return pgTarget{admin: u}, nil
}

// url is the URL of database db on the same server.
func (p pgTarget) url(db string) string {
	u := *p.admin
	u.Path = "/" + db
	return u.String()
}

// args are pgbench's connection options.
func (p pgTarget) args() []string {
	a := []string{"-h", p.admin.Hostname()}
	if port := p.admin.Port(); port != "" {
		a = append(a, "-p", port)
	}
	if u := p.admin.User.Username(); u != "" {
		a = append(a, "-U", u)
	}
	return a
}

func (p pgTarget) exec(ctx context.Context, sql string) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, p.admin.String())
	if err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, sql); err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	return nil
}

func (p pgTarget) create(ctx context.Context, db string) error {
	return p.exec(ctx, "CREATE DATABASE "+pgx.Identifier{db}.Sanitize())
}

// drop removes a scratch database, closing what is still connected to it.
func (p pgTarget) drop(ctx context.Context, db string) error {
	return p.exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{db}.Sanitize()+" WITH (FORCE)")
}

func (p pgTarget) version(ctx context.Context) string {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, p.admin.String())
	if err != nil {
		return "PostgreSQL (unreachable)"
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var v string
	if err := conn.QueryRow(ctx, "SHOW server_version").Scan(&v); err != nil {
		return "PostgreSQL"
	}
	return "PostgreSQL " + v
}

var pgbenchDone = regexp.MustCompile(`done in ([\d.]+) s`)

// pgbenchRows is what `pgbench -i -s 10` loads into pgbench_accounts.
const pgbenchRows = 1_000_000

// pgbenchInit loads pgbench's tables into db and returns how long the load took by
// pgbench's own account (COPY, vacuum, primary keys): the rate at which this server takes
// in rows, the baseline of the imports into Postgres.
func pgbenchInit(ctx context.Context, work string, p pgTarget, db string) (seconds float64, err error) {
	argv := append([]string{"pgbench"}, p.args()...)
	argv = append(argv, "-i", "-s", strconv.Itoa(pgbenchRows/100_000), "-q", db)
	if _, _, err := runLogged(ctx, filepath.Join(work, "pgbench-init.log"), nil, argv...); err != nil {
		return 0, err
	}
	m := pgbenchDone.FindStringSubmatch(logTail(filepath.Join(work, "pgbench-init.log")))
	if m == nil {
		return 0, fmt.Errorf("pgbench -i: no duration in its output")
	}
	return strconv.ParseFloat(m[1], 64)
}
