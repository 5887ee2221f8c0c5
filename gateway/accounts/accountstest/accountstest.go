// Package accountstest is the conformance suite every accounts.Store passes: the file store
// of the embedded default and the Postgres store behave alike, so the dashboard can be
// tested on either.
package accountstest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/adreswijzer/adreswijzer/gateway/accounts"
)

// Run runs the suite; open returns an empty store each time it is called.
func Run(t *testing.T, open func(t *testing.T) accounts.Store) {
	for _, c := range []struct {
		name string
		fn   func(*testing.T, accounts.Store)
	}{
		{"CreateAndFind", createAndFind},
		{"EmailIsUnique", emailIsUnique},
		{"Identities", identities},
		{"Changes", changes},
		{"Delete", deleteAccount},
		{"LinkOnce", linkOnce},
		{"LinkExpires", linkExpires},
		{"LinkRace", linkRace},
		{"OpenRace", openRace},
	} {
		t.Run(c.name, func(t *testing.T) { c.fn(t, open(t)) })
	}
}

var now = time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)

func mustOpen(t *testing.T, s accounts.Store, email string) *accounts.Account {
	t.Helper()
	a, created, err := accounts.Open(context.Background(), s, email, "free", "nl", now)
	if err != nil || !created {
		t.Fatalf("open %s: created %v, %v", email, created, err)
	}
	return a
}

func createAndFind(t *testing.T, s accounts.Store) {
	ctx := context.Background()
	a := mustOpen(t, s, "winkel@example.nl")
	b := mustOpen(t, s, "dev@example.be")
	for _, find := range []func() (*accounts.Account, error){
		func() (*accounts.Account, error) { return s.Get(ctx, a.ID) },
		func() (*accounts.Account, error) { return s.ByEmail(ctx, "winkel@example.nl") },
	} {
		got, err := find()
		if err != nil || got.ID != a.ID || got.Email != a.Email || got.Plan != "free" || got.Language != "nl" ||
			!got.Created.Equal(a.Created) || !got.SignedOut.IsZero() {
			t.Errorf("found %+v, %v; want %+v", got, err, a)
		}
	}
	if _, err := s.Get(ctx, "acct_0000000000000000"); !errors.Is(err, accounts.ErrNotFound) {
		t.Errorf("unknown id: %v", err)
	}
	if _, err := s.ByEmail(ctx, "nobody@example.nl"); !errors.Is(err, accounts.ErrNotFound) {
		t.Errorf("unknown address: %v", err)
	}
	list, err := s.List(ctx)
	if err != nil || len(list) != 2 || list[0].ID != a.ID && list[1].ID != a.ID || list[0].ID != b.ID && list[1].ID != b.ID {
		t.Errorf("list %v, %v", list, err)
	}
	// Opening again finds the same account.
	again, created, err := accounts.Open(ctx, s, "winkel@example.nl", "free", "en", now)
	if err != nil || created || again.ID != a.ID {
		t.Errorf("open again: %+v %v %v", again, created, err)
	}
}

func emailIsUnique(t *testing.T, s accounts.Store) {
	a := mustOpen(t, s, "winkel@example.nl")
	dup := &accounts.Account{ID: "acct_1111111111111111", Email: a.Email, Plan: "free", Created: now}
	if err := s.Create(context.Background(), dup); !errors.Is(err, accounts.ErrExists) {
		t.Errorf("second account with the same address: %v", err)
	}
}

func identities(t *testing.T, s accounts.Store) {
	ctx := context.Background()
	a := mustOpen(t, s, "winkel@example.nl")
	id := accounts.Identity{Provider: "github", Subject: "4242", Account: a.ID, Created: now}
	if err := s.AddIdentity(ctx, id); err != nil {
		t.Fatal(err)
	}
	if err := s.AddIdentity(ctx, id); !errors.Is(err, accounts.ErrExists) {
		t.Errorf("identity twice: %v", err)
	}
	if err := s.AddIdentity(ctx, accounts.Identity{Provider: "gitlab", Subject: "1", Account: "acct_0000000000000000", Created: now}); !errors.Is(err, accounts.ErrNotFound) {
		t.Errorf("identity of no account: %v", err)
	}
	got, err := s.ByIdentity(ctx, "github", "4242")
	if err != nil || got.ID != a.ID {
		t.Errorf("by identity: %+v %v", got, err)
	}
	// The same subject at another provider is another person.
	if _, err := s.ByIdentity(ctx, "gitlab", "4242"); !errors.Is(err, accounts.ErrNotFound) {
		t.Errorf("other provider: %v", err)
	}
}

func changes(t *testing.T, s accounts.Store) {
	ctx := context.Background()
	a := mustOpen(t, s, "winkel@example.nl")
	out := now.Add(time.Hour)
	for _, err := range []error{
		s.SetPlan(ctx, a.ID, "business"),
		s.SetLanguage(ctx, a.ID, "en"),
		s.SignOut(ctx, a.ID, out),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Get(ctx, a.ID)
	if err != nil || got.Plan != "business" || got.Language != "en" || !got.SignedOut.Equal(out) {
		t.Errorf("after changes: %+v %v", got, err)
	}
	for name, err := range map[string]error{
		"plan":     s.SetPlan(ctx, "acct_0000000000000000", "free"),
		"language": s.SetLanguage(ctx, "acct_0000000000000000", "nl"),
		"sign out": s.SignOut(ctx, "acct_0000000000000000", out),
	} {
		if !errors.Is(err, accounts.ErrNotFound) {
			t.Errorf("%s of no account: %v", name, err)
		}
	}
}

func deleteAccount(t *testing.T, s accounts.Store) {
	ctx := context.Background()
	a := mustOpen(t, s, "winkel@example.nl")
	b := mustOpen(t, s, "dev@example.be")
	if err := s.AddIdentity(ctx, accounts.Identity{Provider: "github", Subject: "1", Account: a.ID, Created: now}); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, a.ID); !errors.Is(err, accounts.ErrNotFound) {
		t.Errorf("deleted account found: %v", err)
	}
	if _, err := s.ByIdentity(ctx, "github", "1"); !errors.Is(err, accounts.ErrNotFound) {
		t.Errorf("deleted account's identity found: %v", err)
	}
	if _, err := s.Get(ctx, b.ID); err != nil {
		t.Errorf("other account: %v", err)
	}
	if err := s.Delete(ctx, a.ID); !errors.Is(err, accounts.ErrNotFound) {
		t.Errorf("delete twice: %v", err)
	}
	// The address may sign up again, as a new account.
	if c := mustOpen(t, s, "winkel@example.nl"); c.ID == a.ID {
		t.Error("new account has the deleted one's id")
	}
}

func linkOnce(t *testing.T, s accounts.Store) {
	ctx := context.Background()
	token, l, err := accounts.NewLink("winkel@example.nl", now)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AddLink(ctx, l); err != nil {
		t.Fatal(err)
	}
	if _, err := s.UseLink(ctx, accounts.HashToken(token+"x"), now); !errors.Is(err, accounts.ErrLinkInvalid) {
		t.Errorf("wrong token: %v", err)
	}
	email, err := s.UseLink(ctx, accounts.HashToken(token), now.Add(time.Minute))
	if err != nil || email != "winkel@example.nl" {
		t.Errorf("first use: %q %v", email, err)
	}
	if _, err := s.UseLink(ctx, accounts.HashToken(token), now.Add(2*time.Minute)); !errors.Is(err, accounts.ErrLinkInvalid) {
		t.Errorf("second use: %v", err)
	}
}

func linkExpires(t *testing.T, s accounts.Store) {
	ctx := context.Background()
	token, l, _ := accounts.NewLink("winkel@example.nl", now)
	if err := s.AddLink(ctx, l); err != nil {
		t.Fatal(err)
	}
	if _, err := s.UseLink(ctx, accounts.HashToken(token), now.Add(accounts.LinkLifetime)); !errors.Is(err, accounts.ErrLinkInvalid) {
		t.Errorf("expired link: %v", err)
	}
	// Spent by the refused use too: it never works later.
	if _, err := s.UseLink(ctx, accounts.HashToken(token), now); !errors.Is(err, accounts.ErrLinkInvalid) {
		t.Errorf("expired link used again: %v", err)
	}
}

func linkRace(t *testing.T, s accounts.Store) {
	ctx := context.Background()
	token, l, _ := accounts.NewLink("winkel@example.nl", time.Now())
	if err := s.AddLink(ctx, l); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	wins := 0
	for range 8 {
		wg.Go(func() {
			if _, err := s.UseLink(ctx, accounts.HashToken(token), time.Now()); err == nil {
				mu.Lock()
				wins++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if wins != 1 {
		t.Errorf("%d uses of one link succeeded", wins)
	}
}

func openRace(t *testing.T, s accounts.Store) {
	ctx := context.Background()
	ids := make([]string, 6)
	var wg sync.WaitGroup
	for i := range ids {
		wg.Go(func() {
			a, _, err := accounts.Open(ctx, s, "winkel@example.nl", "free", "nl", now)
			if err != nil {
				ids[i] = fmt.Sprint("error: ", err)
				return
			}
			ids[i] = a.ID
		})
	}
	wg.Wait()
	for _, id := range ids[1:] {
		if id != ids[0] {
			t.Fatalf("first sign-ins at once reached different accounts: %v", ids)
		}
	}
}
