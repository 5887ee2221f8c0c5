package caddymodule_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/adreswijzer/adreswijzer/gateway/keys"
)

// revoke revokes a key in the key file; the gateway sees it within a second.
func revoke(t *testing.T, g *gw, name string) {
	t.Helper()
	store, err := keys.OpenFile(filepath.Join(g.dir, "keys.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Revoke(context.Background(), g.ids[name], time.Now()); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1100 * time.Millisecond)
}
