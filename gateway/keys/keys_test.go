package keys

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestRecognise(t *testing.T) {
	s := strings.Repeat("a", secretLen)
	for _, c := range []struct {
		in   string
		kind Kind
		ok   bool
	}{
		{"aw_live_" + s, Live, true},
		{"aw_test_" + s, Test, true},
		{"aw_pk_live_" + s, PKLive, true},
		{"aw_pk_test_" + s, PKTest, true},
		{"aw_live_" + s[1:], "", false},       // short
		{"aw_live_" + s + "a", "", false},     // long
		{"aw_live_" + s[1:] + "-", "", false}, // outside base62
		{"aw_pk_" + s, "", false},
		{"sk_live_" + s, "", false},
		{"", "", false},
	} {
		k, ok := Recognise(c.in)
		if k != c.kind || ok != c.ok {
			t.Errorf("Recognise(%q) = %q %v", c.in, k, ok)
		}
	}
}

func TestNew(t *testing.T) {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	seen := map[string]bool{}
	for _, kind := range Kinds {
		o := Options{Kind: kind, Account: "acct-1"}
		if kind.Publishable() {
			o.Origins = []string{"HTTPS://Shop.Example:443/", "https://shop.example"}
		}
		k, secret, err := New(o, now)
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		if got, ok := Recognise(secret); !ok || got != kind {
			t.Errorf("%s: secret %q recognised as %q %v", kind, secret, got, ok)
		}
		if k.Hash != HashOf(secret) || k.Plan != "free" || !k.HasScope(ScopeVerify) || seen[secret] || seen[k.ID] {
			t.Errorf("%s: key %+v", kind, k)
		}
		seen[secret], seen[k.ID] = true, true
		if kind.Publishable() && (len(k.Origins) != 1 || k.Origins[0] != "https://shop.example") {
			t.Errorf("origins %v", k.Origins)
		}
	}
	// The prefix is part of the hash: a live secret cannot pass as a test key.
	_, secret, _ := New(Options{Kind: Live, Account: "a"}, now)
	if HashOf(secret) == HashOf("aw_test_"+secret[len("aw_live_"):]) {
		t.Error("hash ignores the kind")
	}
	for _, o := range []Options{
		{Kind: "gold", Account: "a"},
		{Kind: Live, Account: ""},
		{Kind: Live, Account: "a b"},
		{Kind: Live, Account: "a", Plan: "x{y}"},
		{Kind: PKLive, Account: "a"},
		{Kind: Live, Account: "a", Origins: []string{"https://shop.example"}},
		{Kind: PKTest, Account: "a", Origins: []string{"ftp://shop.example"}},
		{Kind: Live, Account: "a", Name: strings.Repeat("n", 101)},
	} {
		if _, _, err := New(o, now); err == nil {
			t.Errorf("New(%+v) succeeded", o)
		}
	}
}

func TestNormaliseOrigin(t *testing.T) {
	for in, want := range map[string]string{
		"https://shop.example":          "https://shop.example",
		"https://SHOP.example/":         "https://shop.example",
		"https://shop.example:443":      "https://shop.example",
		"http://localhost:3000":         "http://localhost:3000",
		"http://shop.example:80":        "http://shop.example",
		"https://shop.example:8443":     "https://shop.example:8443",
		"https://shop.example/checkout": "",
		"https://u:p@shop.example":      "",
		"shop.example":                  "",
		"null":                          "",
		"https://shop.example?x=1":      "",
	} {
		got, err := NormaliseOrigin(in)
		if (err != nil) != (want == "") || got != want {
			t.Errorf("NormaliseOrigin(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	k := &Key{Origins: []string{"https://shop.example"}}
	if !k.AllowsOrigin("https://shop.example") || !k.AllowsOrigin("https://shop.example:443") || k.AllowsOrigin("https://evil.example") {
		t.Error("AllowsOrigin")
	}
}

func TestFileStore(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "state", "keys.json")
	s, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Lookup(ctx, HashOf("aw_live_x")); !errors.Is(err, ErrNotFound) {
		t.Errorf("empty store: %v", err)
	}
	k, secret, _ := New(Options{Kind: Live, Account: "a"}, time.Now())
	if err := s.Create(ctx, k); err != nil {
		t.Fatal(err)
	}
	if err := s.Create(ctx, k); err == nil {
		t.Error("created a key twice")
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v %v", err, st)
	}
	got, err := s.Lookup(ctx, HashOf(secret))
	if err != nil || got.ID != k.ID {
		t.Fatalf("lookup: %v", err)
	}

	// Another process (the command) adds and revokes keys; this one sees it within a second.
	other, _ := OpenFile(path)
	k2, secret2, _ := New(Options{Kind: Test, Account: "b"}, time.Now())
	if err := other.Create(ctx, k2); err != nil {
		t.Fatal(err)
	}
	if err := other.Revoke(ctx, k.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := other.Revoke(ctx, "key_none", time.Now()); !errors.Is(err, ErrNotFound) {
		t.Errorf("revoke unknown: %v", err)
	}
	deadline := time.Now().Add(3 * time.Second)
	for {
		a, err1 := s.Lookup(ctx, HashOf(secret))
		_, err2 := s.Lookup(ctx, HashOf(secret2))
		if err1 == nil && !a.Active() && err2 == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("changes by another writer not seen")
		}
		time.Sleep(50 * time.Millisecond)
	}
	list, _ := s.List(ctx)
	if len(list) != 2 || list[0].ID != k.ID {
		t.Errorf("list: %d keys", len(list))
	}
	raw, _ := os.ReadFile(path)
	if strings.Contains(string(raw), secret[len("aw_live_"):]) {
		t.Error("secret stored")
	}
}

// Writers in parallel lose no key: the lock file serialises them.
func TestFileStoreAccountKeys(t *testing.T) {
	ctx := context.Background()
	s, err := OpenFile(filepath.Join(t.TempDir(), "keys.json"))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	a1, _, _ := New(Options{Kind: Live, Account: "acct_a"}, now)
	b1, _, _ := New(Options{Kind: Test, Account: "acct_b"}, now.Add(time.Second))
	a2, secret, _ := New(Options{Kind: PKTest, Account: "acct_a", Origins: []string{"https://shop.example"}}, now.Add(2*time.Second))
	for _, k := range []*Key{a1, b1, a2} {
		if err := s.Create(ctx, k); err != nil {
			t.Fatal(err)
		}
	}
	list, err := s.ListAccount(ctx, "acct_a")
	if err != nil || len(list) != 2 || list[0].ID != a1.ID || list[1].ID != a2.ID {
		t.Fatalf("keys of acct_a: %v %v", list, err)
	}
	if err := s.SetPlan(ctx, "acct_a", "business"); err != nil {
		t.Fatal(err)
	}
	all, _ := s.List(ctx)
	for _, k := range all {
		if want := map[string]string{"acct_a": "business", "acct_b": "free"}[k.Account]; k.Plan != want {
			t.Errorf("key of %s has plan %s, want %s", k.Account, k.Plan, want)
		}
	}
	if k, err := s.Lookup(ctx, HashOf(secret)); err != nil || k.Plan != "business" {
		t.Errorf("lookup after the plan change: %+v %v", k, err)
	}
}

func TestFileStoreConcurrentWriters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "keys.json")
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := OpenFile(path)
			if err != nil {
				t.Error(err)
				return
			}
			k, _, _ := New(Options{Kind: Live, Account: "a"}, time.Now())
			if err := s.Create(context.Background(), k); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	s, _ := OpenFile(path)
	if list, _ := s.List(context.Background()); len(list) != 8 {
		t.Errorf("%d keys, want 8", len(list))
	}
}

type countingStore struct {
	Store
	lookups int
}

func (c *countingStore) Lookup(ctx context.Context, h Hash) (*Key, error) {
	c.lookups++
	return c.Store.Lookup(ctx, h)
}

func TestCache(t *testing.T) {
	ctx := context.Background()
	fs, _ := OpenFile(filepath.Join(t.TempDir(), "keys.json"))
	k, secret, _ := New(Options{Kind: Live, Account: "a"}, time.Now())
	_ = fs.Create(ctx, k)
	cs := &countingStore{Store: fs}
	c := NewCache(cs, CacheConfig{Size: 100, TTL: time.Minute})
	for range 3 {
		if _, err := c.Lookup(ctx, HashOf(secret)); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Lookup(ctx, HashOf("aw_live_unknown")); !errors.Is(err, ErrNotFound) {
			t.Fatal(err)
		}
	}
	if cs.lookups != 2 {
		t.Errorf("%d store lookups, want 2 (one hit, one miss, then memory)", cs.lookups)
	}
	if err := c.Revoke(ctx, k.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	if got, _ := c.Lookup(ctx, HashOf(secret)); got == nil || got.Active() {
		t.Error("revocation not seen by the revoking process")
	}
}
