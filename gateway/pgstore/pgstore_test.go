package pgstore

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/adreswijzer/adreswijzer/gateway/accounts"
	"github.com/adreswijzer/adreswijzer/gateway/accounts/accountstest"
	"github.com/adreswijzer/adreswijzer/gateway/gatewaytest"
	"github.com/adreswijzer/adreswijzer/gateway/keys"
	"github.com/adreswijzer/adreswijzer/gateway/usage"
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
		if err := s.Add(ctx, batch); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Add(ctx, []usage.Delta{{Account: "a", Month: "2026-11", Totals: usage.Totals{Verifications: -1}}}); err != nil {
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
