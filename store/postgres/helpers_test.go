package postgres_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net"
	"net/url"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/store/postgres"
)

var quiet = slog.New(slog.DiscardHandler)

func serverURL() string {
	if u := os.Getenv("TEST_DATABASE_URL"); u != "" {
		return u
	}
	return "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
}

// freshDatabase creates a database for one test and drops it when the test ends. Without a
// server the test fails, unless ADRESWIJZER_SKIP_SERVICES=1 says to skip on purpose.
func freshDatabase(t testing.TB) string {
	t.Helper()
	if os.Getenv("ADRESWIJZER_SKIP_SERVICES") == "1" {
		t.Skip("ADRESWIJZER_SKIP_SERVICES=1: Postgres tests skipped on purpose")
	}
	base := serverURL()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("TEST_DATABASE_URL: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("Postgres at %s unreachable (set ADRESWIJZER_SKIP_SERVICES=1 to skip on purpose): %v", u.Host, err)
	}
	defer admin.Close(ctx)
	var b [6]byte
	rand.Read(b[:])
	name := "aw_test_" + hex.EncodeToString(b[:])
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create test database: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		admin, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Errorf("drop test database %s: %v", name, err)
			return
		}
		defer admin.Close(ctx)
		if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("drop test database %s: %v", name, err)
		}
	})
	u.Path = "/" + name
	return u.String()
}

func openStore(t testing.TB, databaseURL string, opts postgres.Options) *postgres.Store {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = quiet
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := postgres.Open(ctx, databaseURL, opts)
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// admin connects to a test database for checks the Store API does not offer.
func admin(t testing.TB, databaseURL string) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, databaseURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// lockHolder returns the backend holding the country's import lock, or 0.
func lockHolder(t testing.TB, db *pgx.Conn, c adreswijzer.Country) int32 {
	t.Helper()
	var pid int32
	err := db.QueryRow(context.Background(), `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted
		AND classid = $1::bigint::oid AND objid = $2::bigint::oid AND objsubid = 2`,
		int64(postgres.LockClass), int64(postgres.CountryLock(c))).Scan(&pid)
	if err == pgx.ErrNoRows {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

type datasetRow struct {
	version, schema, state string
	addresses              int64
}

func datasets(t testing.TB, db *pgx.Conn, c adreswijzer.Country) []datasetRow {
	t.Helper()
	rows, err := db.Query(context.Background(),
		"SELECT version, schema_name, state, addresses FROM adreswijzer.datasets WHERE country = $1 ORDER BY id", string(c))
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (datasetRow, error) {
		var d datasetRow
		return d, r.Scan(&d.version, &d.schema, &d.state, &d.addresses)
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func schemaExists(t testing.TB, db *pgx.Conn, schema string) bool {
	t.Helper()
	var ok bool
	if err := db.QueryRow(context.Background(), "SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)", schema).Scan(&ok); err != nil {
		t.Fatal(err)
	}
	return ok
}

func datasetSchemas(t testing.TB, db *pgx.Conn) int {
	t.Helper()
	var n int
	if err := db.QueryRow(context.Background(), "SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'aw\\_ds\\_%'").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// proxy stands between a Store and Postgres so a test can make the database stall or vanish
// without touching the real server, which other tests share.
type proxy struct {
	t      testing.TB
	target string
	addr   string

	mu    sync.Mutex
	ln    net.Listener
	conns map[net.Conn]bool
	gate  chan struct{} // closed while bytes flow
}

func startProxy(t testing.TB, target string) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{t: t, target: target, addr: ln.Addr().String(), conns: map[net.Conn]bool{}, gate: make(chan struct{})}
	close(p.gate)
	p.serve(ln)
	t.Cleanup(p.down)
	return p
}

// via returns databaseURL with the proxy as host.
func (p *proxy) via(databaseURL string) string {
	u, err := url.Parse(databaseURL)
	if err != nil {
		p.t.Fatal(err)
	}
	u.Host = p.addr
	return u.String()
}

func (p *proxy) serve(ln net.Listener) {
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.pipe(c)
		}
	}()
}

func (p *proxy) pipe(client net.Conn) {
	server, err := net.Dial("tcp", p.target)
	if err != nil {
		client.Close()
		return
	}
	p.mu.Lock()
	p.conns[client], p.conns[server] = true, true
	p.mu.Unlock()
	forward := func(dst, src net.Conn) {
		buf := make([]byte, 32<<10)
		for {
			n, err := src.Read(buf)
			if n > 0 {
				p.mu.Lock()
				gate := p.gate
				p.mu.Unlock()
				<-gate
				if _, werr := dst.Write(buf[:n]); werr != nil {
					break
				}
			}
			if err != nil {
				break
			}
		}
		dst.Close()
		src.Close()
	}
	go forward(server, client)
	go forward(client, server)
}

// freeze stops all bytes: connections stay open and nothing answers, like a stalled server.
func (p *proxy) freeze() {
	p.mu.Lock()
	p.gate = make(chan struct{})
	p.mu.Unlock()
}

func (p *proxy) thaw() {
	p.mu.Lock()
	select {
	case <-p.gate:
	default:
		close(p.gate)
	}
	p.mu.Unlock()
}

// down closes every connection and the port: connections are refused.
func (p *proxy) down() {
	p.thaw()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for c := range p.conns {
		c.Close()
	}
	p.conns = map[net.Conn]bool{}
}

// up listens again on the same port.
func (p *proxy) up() {
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		p.t.Fatalf("proxy up: %v", err)
	}
	p.serve(ln)
}
