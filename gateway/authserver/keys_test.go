package authserver

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// Keys rotate on schedule: the next key is published before it signs, and an old key stays
// published until no token it signed can be valid, then goes.
func TestKeyRotation(t *testing.T) {
	store, err := OpenFile(filepath.Join(t.TempDir(), "oauth.json"))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	ring := &keyRing{store: store, rotate: 24 * time.Hour, lifetime: 10 * time.Minute, now: clock}
	ctx := context.Background()
	step := func(d time.Duration) (signer string, published []string) {
		t.Helper()
		now = now.Add(d)
		k, err := ring.signer(ctx)
		if err != nil {
			t.Fatal(err)
		}
		ring.read = time.Time{} // read the store again, as another gateway would
		pub, err := ring.public(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range pub {
			published = append(published, p.ID)
		}
		return k.ID, published
	}
	first, pub := step(0)
	if len(pub) != 1 || pub[0] != first {
		t.Fatalf("first key %s, published %v", first, pub)
	}
	if s, pub := step(23 * time.Hour); s != first || len(pub) != 1 {
		t.Fatalf("before rotation: %s %v", s, pub)
	}
	// A day less a minute: the next key is published, the first still signs.
	s, pub := step(time.Hour - keyPublish)
	if s != first || len(pub) != 2 {
		t.Fatalf("next key not published: %s %v", s, pub)
	}
	second := pub[1]
	// A day: the second signs; the first is still published for its tokens.
	if s, pub := step(keyPublish); s != second || len(pub) != 2 {
		t.Fatalf("at rotation: %s %v", s, pub)
	}
	// Past a token's lifetime (and a minute of leeway): the first is gone.
	if s, pub := step(12 * time.Minute); s != second || len(pub) != 1 || pub[0] != second {
		t.Fatalf("after the lifetime: %s %v", s, pub)
	}
	// Another gateway (a ring of its own on the same store) signs with the same key.
	other := &keyRing{store: store, rotate: 24 * time.Hour, lifetime: 10 * time.Minute, now: clock}
	if k, err := other.signer(ctx); err != nil || k.ID != second {
		t.Errorf("other gateway signs with %s (%v), want %s", k.ID, err, second)
	}
}
