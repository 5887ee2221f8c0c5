package caddymodule

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/adreswijzer/adreswijzer/gateway/accounts"
	"github.com/adreswijzer/adreswijzer/gateway/gatewaydb"
	"github.com/adreswijzer/adreswijzer/gateway/gatewaytest"
	"github.com/adreswijzer/adreswijzer/gateway/keys"
)

// set-plan records a plan on the account and its keys, in the file stores and in Postgres.
func TestAccountsSetPlan(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		args []string
		open func() (accounts.Store, keys.Store)
	}{
		{"files", []string{"--file", filepath.Join(dir, "accounts.json"), "--keys", filepath.Join(dir, "keys.json")},
			func() (accounts.Store, keys.Store) {
				as, _ := accounts.OpenFile(filepath.Join(dir, "accounts.json"))
				ks, _ := keys.OpenFile(filepath.Join(dir, "keys.json"))
				return as, ks
			}},
		{"postgres", nil, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.open == nil {
				url := gatewaytest.Postgres(t)
				db, err := gatewaydb.Open(ctx, url)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(db.Close)
				c.args = []string{"--database", url}
				c.open = func() (accounts.Store, keys.Store) { return db.Accounts(), db.Keys() }
			}
			t.Setenv("DATABASE_URL", "")
			as, ks := c.open()
			a, _, err := accounts.Open(ctx, as, "winkel@example.nl", "free", "nl", time.Now())
			if err != nil {
				t.Fatal(err)
			}
			k, secret, _ := keys.New(keys.Options{Kind: keys.Live, Account: a.ID}, time.Now())
			if err := ks.Create(ctx, k); err != nil {
				t.Fatal(err)
			}
			out, err := runCommand(t, "accounts", append([]string{"set-plan", "Winkel@Example.nl", "business"}, c.args...)...)
			if err != nil || !strings.Contains(out, "plan business (was free)") {
				t.Fatalf("set-plan: %v\n%s", err, out)
			}
			if got, _ := as.Get(ctx, a.ID); got.Plan != "business" {
				t.Errorf("account plan %s", got.Plan)
			}
			if got, _ := ks.Lookup(ctx, keys.HashOf(secret)); got.Plan != "business" {
				t.Errorf("key plan %s", got.Plan)
			}
			out, err = runCommand(t, "accounts", append([]string{"list"}, c.args...)...)
			if err != nil || !strings.Contains(out, a.ID) || !strings.Contains(out, "business") {
				t.Errorf("list: %v\n%s", err, out)
			}
			for _, bad := range [][]string{{"set-plan", "nobody@example.nl", "business"}, {"set-plan", a.ID, "bad plan"}} {
				if _, err := runCommand(t, "accounts", append(bad, c.args...)...); err == nil {
					t.Errorf("%v accepted", bad)
				}
			}
		})
	}
}
