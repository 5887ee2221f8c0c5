package caddymodule

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	caddycmd "github.com/caddyserver/caddy/v2/cmd"
	"github.com/spf13/cobra"

	"github.com/adreswijzer/adreswijzer/gateway/backend"
	"github.com/adreswijzer/adreswijzer/gateway/gatewaytest"
	"github.com/adreswijzer/adreswijzer/gateway/keys"
)

// runKeys runs `gateway keys args...` as the binary would, in process.
func runKeys(t *testing.T, args ...string) (string, error) { return runCommand(t, "keys", args...) }

// runCommand runs `gateway name args...` in process.
func runCommand(t *testing.T, name string, args ...string) (string, error) {
	t.Helper()
	c, ok := caddycmd.Commands()[name]
	if !ok {
		t.Fatalf("%s command not registered", name)
	}
	cmd := &cobra.Command{Use: name, SilenceUsage: true, SilenceErrors: true}
	c.CobraFunc(cmd)
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs(args)
	err := cmd.ExecuteContext(context.Background())
	return out.String(), err
}

var secretLine = regexp.MustCompile(`(?m)^secret:\s+(aw_\S+)$`)
var idLine = regexp.MustCompile(`(?m)^id:\s+(key_[0-9a-f]+)$`)

func TestKeysCommandFile(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	file := filepath.Join(t.TempDir(), "var", "keys.json")
	out, err := runKeys(t, "create", "--file", file, "--kind", "pk_live", "--account", "acct-1",
		"--origin", "https://shop.example", "--origin", "https://www.shop.example:443", "--name", "Demo shop")
	if err != nil {
		t.Fatalf("create: %v\n%s", err, out)
	}
	m := secretLine.FindStringSubmatch(out)
	if m == nil || !strings.HasPrefix(m[1], "aw_pk_live_") {
		t.Fatalf("create printed no publishable secret:\n%s", out)
	}
	secret := m[1]
	id := idLine.FindStringSubmatch(out)[1]

	st, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("key file mode %v, want 0600", st.Mode().Perm())
	}
	raw, _ := os.ReadFile(file)
	if bytes.Contains(raw, []byte(secret)) || bytes.Contains(raw, []byte(secret[len("aw_pk_live_"):])) {
		t.Error("the key file holds the secret")
	}
	store, err := keys.OpenFile(file)
	if err != nil {
		t.Fatal(err)
	}
	k, err := store.Lookup(context.Background(), keys.HashOf(secret))
	if err != nil {
		t.Fatalf("created key not found by its secret: %v", err)
	}
	if k.Account != "acct-1" || k.Plan != "free" || !k.HasScope(keys.ScopeVerify) ||
		strings.Join(k.Origins, " ") != "https://shop.example https://www.shop.example" {
		t.Errorf("stored key %+v", k)
	}

	out, err = runKeys(t, "list", "--file", file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, id) || strings.Contains(out, secret[len("aw_pk_live_"):]) {
		t.Errorf("list:\n%s", out)
	}
	if out, err := runKeys(t, "revoke", "--file", file, id); err != nil || !strings.Contains(out, "revoked") {
		t.Fatalf("revoke: %v %s", err, out)
	}
	store, _ = keys.OpenFile(file)
	if k, err := store.Lookup(context.Background(), keys.HashOf(secret)); err != nil || k.Active() {
		t.Errorf("after revoke: active %v err %v", k != nil && k.Active(), err)
	}
	if _, err := runKeys(t, "revoke", "--file", file, "key_0000"); err == nil {
		t.Error("revoking an unknown key succeeded")
	}
	for _, bad := range [][]string{
		{"create", "--file", file, "--kind", "gold", "--account", "a"},
		{"create", "--file", file, "--kind", "pk_test", "--account", "a"},                                       // no origin
		{"create", "--file", file, "--kind", "live", "--account", "a", "--origin", "https://shop.example"},      // origin on a secret key
		{"create", "--file", file, "--kind", "live", "--account", "a{b}"},                                       // unsafe account
		{"create", "--file", file, "--kind", "pk_live", "--account", "a", "--origin", "https://shop.example/x"}, // not an origin
		{"create", "--file", file, "--kind", "live"},                                                            // no account
	} {
		if _, err := runKeys(t, bad...); err == nil {
			t.Errorf("%v succeeded", bad)
		}
	}
}

func TestKeysCommandPostgres(t *testing.T) {
	db := gatewaytest.Postgres(t)
	out, err := runKeys(t, "create", "--database", db, "--kind", "test", "--account", "acct-2", "--scope", "address:verify", "--scope", "usage:read")
	if err != nil {
		t.Fatalf("create: %v\n%s", err, out)
	}
	id := idLine.FindStringSubmatch(out)[1]
	out, err = runKeys(t, "list", "--database", db)
	if err != nil || !strings.Contains(out, id) || !strings.Contains(out, "address:verify,usage:read") {
		t.Fatalf("list: %v\n%s", err, out)
	}
	if _, err := runKeys(t, "revoke", "--database", db, id); err != nil {
		t.Fatal(err)
	}
	store, closeStore, err := backend.OpenKeys(context.Background(), db, "")
	if err != nil {
		t.Fatal(err)
	}
	defer closeStore()
	list, err := store.List(context.Background())
	if err != nil || len(list) != 1 || list[0].ID != id || list[0].Active() {
		t.Errorf("after revoke: %v, %d keys", err, len(list))
	}
}
