package caddymodule_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/gateway/backend"
	"github.com/adreswijzer/adreswijzer/gateway/gatewaytest"
	"github.com/adreswijzer/adreswijzer/gateway/keys"
	"github.com/adreswijzer/adreswijzer/gateway/usage"
)

// Limits and counters in the shared Redis, under a key prefix of this run.
func TestRedisBacked(t *testing.T) {
	rdb, prefix := gatewaytest.Redis(t)
	t.Setenv("ADRESWIJZER_TEST_REDIS_URL", "redis://"+gatewaytest.RedisAddr())
	g := startGateway(t, gatewayConfig{
		upstream: upstream(t),
		// The URL comes from the environment at run time, as in deploy/Caddyfile. A generous
		// timeout: this test is about state in Redis, not about a slow Redis, and the machine
		// may be busy.
		extra: fmt.Sprintf(`redis {env.ADRESWIJZER_TEST_REDIS_URL}
			redis_prefix %s
			redis_timeout 1s
			limit live 3/s burst 3`, prefix),
		keys: []keys.Options{{Name: "live", Kind: keys.Live, Account: "acct-redis"}},
	})
	for i := range 3 {
		expect(t, fmt.Sprintf("call %d", i+1), g.do(req{path: nlLookup + "&sessionId=x" + fmt.Sprint(i), key: "live"}), 200, "")
	}
	expect(t, "over the burst", g.do(req{path: nlLookup, key: "live"}), 429, adreswijzer.ErrRateLimited)

	ctx := context.Background()
	if n, err := rdb.Exists(ctx, "rate:"+prefix+g.ids["live"]).Result(); err != nil || n != 1 {
		t.Errorf("no rate limit state in Redis (%v)", err)
	}
	v, err := rdb.HGet(ctx, prefix+"usage:"+usage.Month(time.Now())+":{acct-redis}", "v").Int()
	if err != nil || v != 3 {
		t.Errorf("Redis counts %d verifications (%v), want 3", v, err)
	}
	if n, _ := rdb.Exists(ctx, prefix+"sess:{acct-redis}:x1").Result(); n != 1 {
		t.Error("session not in Redis")
	}
	g.waitUsage("acct-redis", 3) // and durably in the usage file
}

// Redis dies under the gateway and comes back: the gateway keeps serving and limiting on
// its own meanwhile, and returns to Redis when it answers again.
func TestRedisKilled(t *testing.T) {
	srv := gatewaytest.StartRedisServer(t)
	g := startGateway(t, gatewayConfig{
		upstream: upstream(t),
		extra: fmt.Sprintf(`redis %s
			redis_prefix gw:
			redis_timeout 200ms
			limit live 20/s burst 5`, srv.URL()),
		keys: []keys.Options{{Name: "live", Kind: keys.Live, Account: "acct-kill"}},
	})
	expect(t, "with Redis", g.do(req{path: nlLookup, key: "live"}), 200, "")
	if len(srv.Keys("rate:gw:*")) != 1 {
		t.Fatal("the limiter does not use Redis")
	}

	srv.Kill()
	time.Sleep(300 * time.Millisecond) // let the burst refill
	var slowest time.Duration
	allowed, limited := 0, 0
	for range 12 {
		a := g.do(req{path: "/v1/suggest?country=nl&q=Hugo", key: "live"})
		slowest = max(slowest, a.took)
		switch a.status {
		case 200:
			allowed++
		case 429:
			limited++
		default:
			t.Fatalf("without Redis: status %d %s", a.status, a.body)
		}
	}
	t.Logf("without Redis: %d allowed, %d limited, slowest %v", allowed, limited, slowest)
	if allowed < 5 || limited == 0 {
		t.Errorf("without Redis: %d allowed, %d limited; want the burst of 5 allowed locally and the rest limited", allowed, limited)
	}
	if slowest > 300*time.Millisecond {
		t.Errorf("a request waited %v for a dead Redis", slowest)
	}

	srv.Start()
	deadline := time.Now().Add(5 * time.Second)
	for len(srv.Keys("rate:gw:*")) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the gateway did not return to Redis")
		}
		time.Sleep(300 * time.Millisecond)
		a := g.do(req{path: nlLookup, key: "live"})
		if a.status != 200 && a.status != 429 {
			t.Fatalf("after Redis came back: %d", a.status)
		}
	}
	// Counts made while Redis was away were replayed into it.
	deadline = time.Now().Add(3 * time.Second)
	for len(srv.Keys("gw:usage:*")) == 0 && time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
		g.do(req{path: "/v1/suggest?country=nl&q=Hugo", key: "live"})
	}
	if len(srv.Keys("gw:usage:*")) == 0 {
		t.Error("usage counters are not back in Redis")
	}
}

// Keys and usage in Postgres (a fresh database), as several gateways would share them.
func TestPostgresBacked(t *testing.T) {
	dbURL := gatewaytest.Postgres(t)
	ctx := context.Background()
	store, closeStore, err := backend.OpenKeys(ctx, dbURL, "")
	if err != nil {
		t.Fatal(err)
	}
	k, secret, err := keys.New(keys.Options{Kind: keys.Live, Account: "acct-pg", Name: "pg"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Create(ctx, k); err != nil {
		t.Fatal(err)
	}
	closeStore()

	g := startGateway(t, gatewayConfig{upstream: upstream(t), extra: "database " + dbURL})
	g.secrets["pg"] = secret
	expect(t, "lookup", g.do(req{path: nlLookup, key: "pg"}), 200, "")
	expect(t, "validate", g.do(req{path: "/v1/validate", key: "pg", body: validateBody("")}), 200, "")
	other := []byte(secret)
	other[len(other)-1] ^= 1 // same shape, another secret
	expect(t, "unknown key", g.do(req{path: nlLookup, auth: "Bearer " + string(other)}), 401, adreswijzer.ErrUnauthorized)

	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	deadline := time.Now().Add(3 * time.Second)
	for {
		var v int64
		err := conn.QueryRow(ctx, `SELECT verifications FROM gateway_usage WHERE account = $1 AND month = $2`,
			"acct-pg", usage.Month(time.Now())).Scan(&v)
		if err == nil && v == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("usage in Postgres: %d (%v), want 2", v, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	// The same calls as the key's activity, for the dashboard; the refused one is not there.
	rows, err := conn.Query(ctx, `SELECT key_id || ' ' || route || ' ' || calls || '/' || verifications
		FROM gateway_activity WHERE account = $1 ORDER BY key_id, route`, "acct-pg")
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if want := []string{k.ID + " lookup 1/1", k.ID + " validate 1/1"}; err != nil || !slices.Equal(got, want) {
		t.Errorf("activity in Postgres: %q (%v), want %q", got, err, want)
	}
}
