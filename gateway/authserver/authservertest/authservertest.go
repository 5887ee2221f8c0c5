// Package authservertest is the conformance suite every authserver.Store passes: the file
// store of the embedded default and the Postgres store behave alike, so the authorization
// server can be tested on either.
package authservertest

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/adreswijzer/adreswijzer/gateway/authserver"
)

// Run runs the suite; open returns an empty store each time it is called.
func Run(t *testing.T, open func(t *testing.T) authserver.Store) {
	for _, c := range []struct {
		name string
		fn   func(*testing.T, authserver.Store)
	}{
		{"Clients", clients},
		{"Requests", requests},
		{"RequestRace", requestRace},
		{"CodeOnce", codeOnce},
		{"CodeRace", codeRace},
		{"Grants", grants},
		{"RefreshRotation", refreshRotation},
		{"RefreshRace", refreshRace},
		{"RevokeForgetsRefresh", revokeForgetsRefresh},
		{"Keys", keys},
	} {
		t.Run(c.name, func(t *testing.T) { c.fn(t, open(t)) })
	}
}

var (
	ctx = context.Background()
	now = time.Now().UTC().Truncate(time.Second)
)

func hash(s string) authserver.Hash { return authserver.HashToken(s) }

func clients(t *testing.T, s authserver.Store) {
	c := &authserver.Client{ID: "awc_1", Name: "Claude Desktop", RedirectURIs: []string{"http://127.0.0.1/callback", "https://agent.example/cb"},
		GrantTypes: []string{"authorization_code", "refresh_token"}, Created: now}
	if err := s.AddClient(ctx, c); err != nil {
		t.Fatal(err)
	}
	got, err := s.Client(ctx, "awc_1")
	if err != nil || got.Name != c.Name || !slices.Equal(got.RedirectURIs, c.RedirectURIs) ||
		!slices.Equal(got.GrantTypes, c.GrantTypes) || !got.Created.Equal(now) || !got.Refreshes() {
		t.Errorf("read back %+v, %v", got, err)
	}
	if _, err := s.Client(ctx, "awc_2"); !errors.Is(err, authserver.ErrNotFound) {
		t.Errorf("unknown client: %v", err)
	}
}

func request(id string, expires time.Time) authserver.Request {
	return authserver.Request{ID: id, Client: "awc_1", RedirectURI: "http://127.0.0.1:4242/cb", State: "xyz",
		Challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", Scope: []string{"address:verify"},
		Resource: "https://api.example/mcp", Expires: expires}
}

func requests(t *testing.T, s authserver.Store) {
	r := request("req_1", now.Add(10*time.Minute))
	if err := s.AddRequest(ctx, r); err != nil {
		t.Fatal(err)
	}
	if err := s.AddRequest(ctx, request("req_old", now.Add(time.Minute))); err != nil {
		t.Fatal(err)
	}
	got, err := s.Request(ctx, "req_1", now)
	if err != nil || got.Client != r.Client || got.RedirectURI != r.RedirectURI || got.State != r.State ||
		got.Challenge != r.Challenge || !slices.Equal(got.Scope, r.Scope) || got.Resource != r.Resource || !got.Expires.Equal(r.Expires) {
		t.Errorf("read back %+v, %v", got, err)
	}
	if _, err := s.Request(ctx, "req_old", now.Add(time.Minute)); !errors.Is(err, authserver.ErrNotFound) {
		t.Errorf("expired request: %v", err)
	}
	if _, err := s.TakeRequest(ctx, "req_old", now.Add(2*time.Minute)); !errors.Is(err, authserver.ErrNotFound) {
		t.Errorf("take an expired request: %v", err)
	}
	if got, err := s.TakeRequest(ctx, "req_1", now); err != nil || got.ID != "req_1" {
		t.Fatalf("take: %+v %v", got, err)
	}
	for name, err := range map[string]error{
		"read a taken request": func() error { _, err := s.Request(ctx, "req_1", now); return err }(),
		"take it again":        func() error { _, err := s.TakeRequest(ctx, "req_1", now); return err }(),
	} {
		if !errors.Is(err, authserver.ErrNotFound) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// race runs fn from 8 goroutines at once and returns how many succeeded.
func race(fn func() error) int {
	var wg sync.WaitGroup
	var mu sync.Mutex
	wins := 0
	for range 8 {
		wg.Go(func() {
			if fn() == nil {
				mu.Lock()
				wins++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return wins
}

func requestRace(t *testing.T, s authserver.Store) {
	if err := s.AddRequest(ctx, request("req_1", now.Add(time.Hour))); err != nil {
		t.Fatal(err)
	}
	if wins := race(func() error { _, err := s.TakeRequest(ctx, "req_1", now); return err }); wins != 1 {
		t.Errorf("%d takes of one request succeeded", wins)
	}
}

func codeOnce(t *testing.T, s authserver.Store) {
	c := authserver.Code{Hash: hash("code-1"), Request: request("req_1", now.Add(time.Hour)), Account: "acct_1", Expires: now.Add(time.Minute)}
	if err := s.AddCode(ctx, c); err != nil {
		t.Fatal(err)
	}
	if err := s.AddCode(ctx, authserver.Code{Hash: hash("code-old"), Request: c.Request, Account: "acct_1", Expires: now}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.UseCode(ctx, hash("code-2"), now); !errors.Is(err, authserver.ErrNotFound) {
		t.Errorf("unknown code: %v", err)
	}
	if _, err := s.UseCode(ctx, hash("code-old"), now); !errors.Is(err, authserver.ErrNotFound) {
		t.Errorf("expired code: %v", err)
	}
	got, err := s.UseCode(ctx, hash("code-1"), now)
	if err != nil || got.Account != "acct_1" || got.Request.Challenge != c.Request.Challenge || got.Request.RedirectURI != c.Request.RedirectURI {
		t.Fatalf("first use: %+v %v", got, err)
	}
	if _, err := s.UseCode(ctx, hash("code-1"), now); !errors.Is(err, authserver.ErrNotFound) {
		t.Errorf("second use: %v", err)
	}
}

func codeRace(t *testing.T, s authserver.Store) {
	if err := s.AddCode(ctx, authserver.Code{Hash: hash("code-1"), Request: request("r", now.Add(time.Hour)), Account: "acct_1", Expires: now.Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	if wins := race(func() error { _, err := s.UseCode(ctx, hash("code-1"), now); return err }); wins != 1 {
		t.Errorf("%d uses of one code succeeded", wins)
	}
}

func grant(id, account string, created time.Time) *authserver.Grant {
	return &authserver.Grant{ID: id, Account: account, Client: "awc_1", Scope: []string{"address:verify"},
		Resource: "https://api.example/mcp", Created: created}
}

func grants(t *testing.T, s authserver.Store) {
	for _, g := range []*authserver.Grant{grant("grt_2", "acct_1", now.Add(time.Second)), grant("grt_1", "acct_1", now), grant("grt_3", "acct_2", now)} {
		if err := s.AddGrant(ctx, g); err != nil {
			t.Fatal(err)
		}
	}
	list, err := s.Grants(ctx, "acct_1")
	if err != nil || len(list) != 2 || list[0].ID != "grt_1" || list[1].ID != "grt_2" {
		t.Fatalf("grants of acct_1: %v %v", list, err)
	}
	g, err := s.Grant(ctx, "grt_1")
	if err != nil || g.Account != "acct_1" || g.Client != "awc_1" || !slices.Equal(g.Scope, []string{"address:verify"}) ||
		g.Resource != "https://api.example/mcp" || !g.Created.Equal(now) || !g.Active() {
		t.Errorf("grant %+v %v", g, err)
	}
	at := now.Add(time.Hour)
	if err := s.RevokeGrant(ctx, "grt_1", at); err != nil {
		t.Fatal(err)
	}
	if err := s.RevokeGrant(ctx, "grt_1", at.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if g, err := s.Grant(ctx, "grt_1"); err != nil || !g.Revoked.Equal(at) {
		t.Errorf("revoked grant %+v %v", g, err)
	}
	if list, _ := s.Grants(ctx, "acct_1"); len(list) != 1 || list[0].ID != "grt_2" {
		t.Errorf("active grants after the revocation: %v", list)
	}
	if _, err := s.Grant(ctx, "grt_9"); !errors.Is(err, authserver.ErrNotFound) {
		t.Errorf("unknown grant: %v", err)
	}
	if err := s.RevokeGrant(ctx, "grt_9", at); !errors.Is(err, authserver.ErrNotFound) {
		t.Errorf("revoke an unknown grant: %v", err)
	}
	if l, err := s.Grants(ctx, "acct_9"); err != nil || len(l) != 0 {
		t.Errorf("grants of an account without any: %v %v", l, err)
	}
}

func refreshRotation(t *testing.T, s authserver.Store) {
	if err := s.AddGrant(ctx, grant("grt_1", "acct_1", now)); err != nil {
		t.Fatal(err)
	}
	for _, r := range []authserver.Refresh{
		{Hash: hash("rt-1"), Grant: "grt_1", Expires: now.Add(time.Hour)},
		{Hash: hash("rt-old"), Grant: "grt_1", Expires: now},
	} {
		if err := s.AddRefresh(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.UseRefresh(ctx, hash("rt-old"), now); !errors.Is(err, authserver.ErrNotFound) {
		t.Errorf("expired: %v", err)
	}
	if _, err := s.UseRefresh(ctx, hash("rt-2"), now); !errors.Is(err, authserver.ErrNotFound) {
		t.Errorf("unknown: %v", err)
	}
	if g, err := s.UseRefresh(ctx, hash("rt-1"), now); err != nil || g != "grt_1" {
		t.Fatalf("first use: %q %v", g, err)
	}
	if g, err := s.UseRefresh(ctx, hash("rt-1"), now); !errors.Is(err, authserver.ErrReused) || g != "grt_1" {
		t.Errorf("second use: %q %v", g, err)
	}
}

func refreshRace(t *testing.T, s authserver.Store) {
	if err := s.AddRefresh(ctx, authserver.Refresh{Hash: hash("rt-1"), Grant: "grt_1", Expires: now.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if wins := race(func() error { _, err := s.UseRefresh(ctx, hash("rt-1"), now); return err }); wins != 1 {
		t.Errorf("%d uses of one refresh token succeeded", wins)
	}
}

func revokeForgetsRefresh(t *testing.T, s authserver.Store) {
	if err := s.AddGrant(ctx, grant("grt_1", "acct_1", now)); err != nil {
		t.Fatal(err)
	}
	if err := s.AddRefresh(ctx, authserver.Refresh{Hash: hash("rt-1"), Grant: "grt_1", Expires: now.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if err := s.RevokeGrant(ctx, "grt_1", now); err != nil {
		t.Fatal(err)
	}
	if _, err := s.UseRefresh(ctx, hash("rt-1"), now); !errors.Is(err, authserver.ErrNotFound) {
		t.Errorf("refresh token of a revoked grant: %v", err)
	}
}

func keys(t *testing.T, s authserver.Store) {
	ks := []authserver.Key{
		{ID: "k2", Private: []byte{2, 2}, Active: now.Add(time.Minute), Created: now.Add(time.Second)},
		{ID: "k1", Private: []byte{1, 1}, Active: now, Created: now},
	}
	for _, k := range ks {
		if err := s.AddKey(ctx, k); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Keys(ctx)
	if err != nil || len(got) != 2 || got[0].ID != "k1" || got[1].ID != "k2" || !slices.Equal(got[1].Private, []byte{2, 2}) ||
		!got[1].Active.Equal(ks[0].Active) || !got[1].Created.Equal(ks[0].Created) {
		t.Fatalf("keys %+v %v", got, err)
	}
	if err := s.DeleteKey(ctx, "k1"); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Keys(ctx); len(got) != 1 || got[0].ID != "k2" {
		t.Errorf("after deleting k1: %+v", got)
	}
}
