package gatewaydb

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/adreswijzer/adreswijzer/gateway/accounts"
	"github.com/adreswijzer/adreswijzer/gateway/accounts/accountstest"
	"github.com/adreswijzer/adreswijzer/gateway/authserver"
	"github.com/adreswijzer/adreswijzer/gateway/authserver/authservertest"
	"github.com/adreswijzer/adreswijzer/gateway/gatewaytest"
	"github.com/adreswijzer/adreswijzer/gateway/keys"
	"github.com/adreswijzer/adreswijzer/gateway/usage"
	"github.com/adreswijzer/adreswijzer/gateway/usage/usagetest"
)

func open(t *testing.T) *DB {
	t.Helper()
	url := gatewaytest.Postgres(t)
	db, err := Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	return db
}

func TestKeys(t *testing.T) {
	db := open(t)
	ctx := context.Background()
	s := db.Keys()
	k, secret, err := keys.New(keys.Options{Kind: keys.PKLive, Account: "a", Name: "shop", Origins: []string{"https://shop.example"}}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Create(ctx, k); err != nil {
		t.Fatal(err)
	}
	k2, _, _ := keys.New(keys.Options{Kind: keys.Test, Account: "b"}, time.Now().Add(time.Second))
	if err := s.Create(ctx, k2); err != nil {
		t.Fatal(err)
	}
	got, err := s.Lookup(ctx, keys.HashOf(secret))
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != k.ID || got.Kind != keys.PKLive || got.Account != "a" || got.Name != "shop" || !got.Active() ||
		len(got.Origins) != 1 || !got.HasScope(keys.ScopeVerify) || !got.Created.Equal(k.Created) {
		t.Errorf("read back %+v", got)
	}
	if _, err := s.Lookup(ctx, keys.HashOf("aw_live_nothing")); !errors.Is(err, keys.ErrNotFound) {
		t.Errorf("unknown: %v", err)
	}
	if err := s.Revoke(ctx, k.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := s.Revoke(ctx, "key_none", time.Now()); !errors.Is(err, keys.ErrNotFound) {
		t.Errorf("revoke unknown: %v", err)
	}
	list, err := s.List(ctx)
	if err != nil || len(list) != 2 || list[0].ID != k.ID || list[0].Active() || !list[1].Active() || list[1].Origins != nil {
		t.Errorf("list %v %+v", err, list)
	}
}

func TestUsage(t *testing.T) {
	db := open(t)
	ctx := context.Background()
	s := db.Usage()
	if got, err := s.Get(ctx, "a", "2026-11"); err != nil || got != (usage.Totals{}) {
		t.Fatalf("empty: %+v %v", got, err)
	}
	batch := []usage.Delta{
		{Account: "a", Month: "2026-11", Totals: usage.Totals{Verifications: 3, SuggestCalls: 12}},
		{Account: "b", Month: "2026-11", Totals: usage.Totals{Verifications: 1}},
	}
	for range 2 {
		if err := s.Add(ctx, usage.Batch{Deltas: batch}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Add(ctx, usage.Batch{Deltas: []usage.Delta{{Account: "a", Month: "2026-11", Totals: usage.Totals{Verifications: -1}}}}); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Get(ctx, "a", "2026-11"); got != (usage.Totals{Verifications: 5, SuggestCalls: 24}) {
		t.Errorf("a: %+v", got)
	}
	if got, _ := s.Get(ctx, "b", "2026-12"); got != (usage.Totals{}) {
		t.Errorf("other month: %+v", got)
	}
}

// Gateways starting together on one database all get their tables.
func TestOpenConcurrently(t *testing.T) {
	url := gatewaytest.Postgres(t)
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			db, err := Open(context.Background(), url)
			if err == nil {
				db.Close()
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

func TestAccounts(t *testing.T) {
	accountstest.Run(t, func(t *testing.T) accounts.Store { return open(t).Accounts() })
}

// Two gateways on one database see the same accounts and keys: what one dashboard
// creates, the other's key store finds.
func TestTwoGatewaysShareAccounts(t *testing.T) {
	url := gatewaytest.Postgres(t)
	ctx := context.Background()
	var dbs [2]*DB
	for i := range dbs {
		db, err := Open(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(db.Close)
		dbs[i] = db
	}
	a, _, err := accounts.Open(ctx, dbs[0].Accounts(), "winkel@example.nl", "free", "nl", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	k, secret, _ := keys.New(keys.Options{Kind: keys.Live, Account: a.ID}, time.Now())
	if err := dbs[0].Keys().Create(ctx, k); err != nil {
		t.Fatal(err)
	}
	if got, err := dbs[1].Accounts().ByEmail(ctx, "winkel@example.nl"); err != nil || got.ID != a.ID {
		t.Fatalf("other gateway: %+v %v", got, err)
	}
	if err := dbs[1].Accounts().SetPlan(ctx, a.ID, "business"); err != nil {
		t.Fatal(err)
	}
	if err := dbs[1].Keys().SetPlan(ctx, a.ID, "business"); err != nil {
		t.Fatal(err)
	}
	got, err := dbs[0].Keys().Lookup(ctx, keys.HashOf(secret))
	if err != nil || got.Plan != "business" {
		t.Errorf("key after the plan change: %+v %v", got, err)
	}
	list, err := dbs[0].Keys().ListAccount(ctx, a.ID)
	if err != nil || len(list) != 1 || list[0].ID != k.ID {
		t.Errorf("keys of the account: %v %v", list, err)
	}
}

// A database made before migrations were versioned (the tables, no version table) is
// brought up to date without losing its keys.
func TestUpgradeUnversioned(t *testing.T) {
	url := gatewaytest.Postgres(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	first, _ := migrations.ReadFile("migrations/001_keys_usage.sql")
	if _, err := conn.Exec(ctx, string(first)); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `INSERT INTO gateway_keys (id, hash, kind, account, plan, scopes, created)
VALUES ('key_1', decode(repeat('ab', 32), 'hex'), 'live', 'a', 'free', '{address:verify}', now())`); err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)
	db, err := Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if list, err := db.Keys().List(ctx); err != nil || len(list) != 1 || list[0].ID != "key_1" {
		t.Errorf("keys after the upgrade: %v %v", list, err)
	}
	if _, err := db.Accounts().List(ctx); err != nil {
		t.Errorf("accounts table after the upgrade: %v", err)
	}
}

func TestUsageConformance(t *testing.T) {
	usagetest.Run(t, func(t *testing.T) usage.Store { return open(t).Usage() })
}

// Two gateways on one database, each with its own connection and Meter, add up: their
// calls and verifications are summed in the same rows and totals, whatever the order of
// their flushes.
func TestTwoMetersAddUp(t *testing.T) {
	url := gatewaytest.Postgres(t)
	ctx := context.Background()
	start := time.Now()
	var wg sync.WaitGroup
	var reader usage.Store
	for g := range 2 {
		db, err := Open(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(db.Close)
		reader = db.Usage()
		m, err := usage.NewMeter(usage.Config{Sink: db.Usage(), FlushEvery: 5 * time.Millisecond,
			Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if err := m.Close(); err != nil {
					t.Error(err)
				}
			}()
			for i := range 200 {
				if _, err := m.Charge(ctx, usage.Charge{Account: "a", Quota: usage.Unlimited, Call: usage.Validate}); err != nil {
					t.Error(err)
					return
				}
				m.Record("a", "key_1", "validate", 1)
				m.Record("a", fmt.Sprintf("key_g%d", g), "lookup", 0)
				if i%50 == 0 {
					time.Sleep(10 * time.Millisecond) // let a flush happen in between
				}
			}
		}()
	}
	wg.Wait()
	got := usagetest.Sum(t, reader, "a", start, time.Now())
	want := map[[2]string]usage.Activity{
		{"key_1", "validate"}: {Calls: 400, Verifications: 400},
		{"key_g0", "lookup"}:  {Calls: 200},
		{"key_g1", "lookup"}:  {Calls: 200},
	}
	for k, w := range want {
		if g := got[k]; g.Calls != w.Calls || g.Verifications != w.Verifications || len(got) != len(want) {
			t.Errorf("%v: %d calls, %d verifications; want %d, %d (all: %v)", k, g.Calls, g.Verifications, w.Calls, w.Verifications, got)
		}
	}
	if tot, err := reader.Get(ctx, "a", usage.Month(start)); err != nil || tot.Verifications != 400 {
		t.Errorf("totals %+v (%v), want 400", tot, err)
	}
	last, err := reader.LastUsed(ctx, "a")
	if err != nil || len(last) != 3 {
		t.Errorf("last used %v (%v), want three keys", last, err)
	}
}

func TestOAuthConformance(t *testing.T) {
	authservertest.Run(t, func(t *testing.T) authserver.Store { return open(t).OAuth() })
}
