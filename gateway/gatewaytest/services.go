// Package gatewaytest helps the gateway's tests: real Redis and Postgres servers with a
// fresh key prefix or database per run, a Redis server of the test's own that it may kill,
// and a stand-in register worker that keeps the worker's HTTP contract.
//
// Tests that need a service fail when it is missing, unless ADRESWIJZER_SKIP_SERVICES=1 is
// set on purpose; then they skip.
package gatewaytest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/redis/go-redis/v9"
)

// SkipServices reports whether the run opted out of Redis and Postgres.
func SkipServices() bool { return os.Getenv("ADRESWIJZER_SKIP_SERVICES") == "1" }

func unavailable(t testing.TB, what string, err error) {
	t.Helper()
	if SkipServices() {
		t.Skipf("%s not available and ADRESWIJZER_SKIP_SERVICES=1: %v", what, err)
	}
	t.Fatalf("%s not available (set ADRESWIJZER_SKIP_SERVICES=1 to skip on purpose): %v", what, err)
}

// RandomID is a short random name part, for prefixes and database names.
func RandomID() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// RedisAddr is the shared test Redis (TEST_REDIS_ADDR, default 127.0.0.1:6379).
func RedisAddr() string {
	if a := os.Getenv("TEST_REDIS_ADDR"); a != "" {
		return a
	}
	return "127.0.0.1:6379"
}

// Redis connects to the shared test Redis and returns a fresh key prefix; the prefix's
// keys are deleted when the test ends.
func Redis(t testing.TB) (*redis.Client, string) {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: RedisAddr()})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := rdb.Ping(ctx).Err(); err != nil {
		rdb.Close()
		unavailable(t, "Redis at "+RedisAddr(), err)
	}
	prefix := "awtest:" + RandomID() + ":"
	t.Cleanup(func() {
		ctx := context.Background()
		for _, pattern := range []string{prefix + "*", "rate:" + prefix + "*"} {
			iter := rdb.Scan(ctx, 0, pattern, 1000).Iterator()
			for iter.Next(ctx) {
				rdb.Del(ctx, iter.Val())
			}
		}
		rdb.Close()
	})
	return rdb, prefix
}

// PostgresURL is the test server (TEST_DATABASE_URL, default the local postgres user).
func PostgresURL() string {
	if u := os.Getenv("TEST_DATABASE_URL"); u != "" {
		return u
	}
	return "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
}

// Postgres creates a fresh database for the test and returns its URL; it is dropped when
// the test ends.
func Postgres(t testing.TB) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	admin, err := pgx.Connect(ctx, PostgresURL())
	if err != nil {
		unavailable(t, "Postgres at "+PostgresURL(), err)
	}
	name := "gwtest_" + RandomID()
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		admin.Close(ctx)
		t.Fatalf("create test database: %v", err)
	}
	admin.Close(ctx)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if c, err := pgx.Connect(ctx, PostgresURL()); err == nil {
			_, _ = c.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
			c.Close(ctx)
		}
	})
	u, err := url.Parse(PostgresURL())
	if err != nil {
		t.Fatalf("TEST_DATABASE_URL: %v", err)
	}
	u.Path = "/" + name
	return u.String()
}

// FreePort returns a TCP port that was free a moment ago on 127.0.0.1.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("free port: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// RedisServer is a redis-server of the test's own, which the test may kill and restart
// (never the shared one).
type RedisServer struct {
	Addr string
	t    testing.TB
	bin  string
	port int
	cmd  *exec.Cmd
}

// StartRedisServer starts redis-server on a free port, without persistence.
func StartRedisServer(t testing.TB) *RedisServer {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		unavailable(t, "redis-server binary", err)
	}
	s := &RedisServer{t: t, bin: bin, port: FreePort(t)}
	s.Addr = "127.0.0.1:" + strconv.Itoa(s.port)
	s.Start()
	t.Cleanup(s.Kill)
	return s
}

// Start (re)starts the server on its port and waits until it answers.
func (s *RedisServer) Start() {
	s.t.Helper()
	s.cmd = exec.Command(s.bin, "--port", strconv.Itoa(s.port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--daemonize", "no", "--loglevel", "warning")
	if err := s.cmd.Start(); err != nil {
		s.t.Fatalf("start redis-server: %v", err)
	}
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr})
	defer rdb.Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		err := rdb.Ping(ctx).Err()
		cancel()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("redis-server on %s did not answer: %v", s.Addr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Kill stops the server at once (SIGKILL), as a crash would.
func (s *RedisServer) Kill() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
	s.cmd = nil
}

// Client connects to this server.
func (s *RedisServer) Client() *redis.Client { return redis.NewClient(&redis.Options{Addr: s.Addr}) }

// FailFastClient connects to this server as the gateway under test should see it during an
// outage: no retries and one dial attempt, so a killed or paused server shows at once. It
// is closed with the test.
func (s *RedisServer) FailFastClient(t testing.TB) *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: s.Addr, MaxRetries: -1, DialerRetries: 1, ContextTimeoutEnabled: true})
	t.Cleanup(func() { c.Close() })
	return c
}

// URL of this server.
func (s *RedisServer) URL() string { return "redis://" + s.Addr }

// Keys lists the server's keys matching pattern.
func (s *RedisServer) Keys(pattern string) []string {
	rdb := s.Client()
	defer rdb.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	ks, err := rdb.Keys(ctx, pattern).Result()
	if err != nil {
		s.t.Fatalf("keys %s: %v", pattern, err)
	}
	return ks
}

// Within runs f and fails the test when it has not returned after limit: a request must
// never wait on a failing store beyond its timeout, and a hung call must not hang the test.
func Within[T any](t testing.TB, limit time.Duration, f func() (T, error)) (T, error, time.Duration) {
	t.Helper()
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	start := time.Now()
	go func() {
		v, err := f()
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err, time.Since(start)
	case <-time.After(limit):
		t.Fatalf("still waiting on the store after %v", limit)
		var zero T
		return zero, nil, 0
	}
}
