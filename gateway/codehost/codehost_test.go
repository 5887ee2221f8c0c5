package codehost_test

import (
	"bytes"
	"context"
	"encoding/gob"
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/adreswijzer/adreswijzer/gateway/codehost"
	"github.com/adreswijzer/adreswijzer/gateway/codehost/codehosttest"
)

// callbackURL is where the providers send the browser back; nothing needs to listen
// there, the tests read the redirect.
const callbackURL = "http://127.0.0.1:8080/dashboard/signin/callback?from=test"

// host is a running local code host and a provider configured for it.
type host struct {
	provider codehost.Provider
	deny     func(bool)
	outage   func(codehosttest.Outage)
	close    func()
	secret   string
	want     codehost.Identity
}

// hostOptions vary the account and the client.
type hostOptions struct {
	unverified bool
	timeout    time.Duration
}

// hosts are the local code hosts every sign-in case runs against.
var hosts = []struct {
	name  string
	start func(t *testing.T, o hostOptions) host
}{
	{"github", startGitHub},
	{"gitlab", startGitLab},
}

// startGitHub runs a local GitHub whose signed-in account has a mixed-case primary
// address, verified unless told otherwise (then only a secondary one is).
func startGitHub(t *testing.T, o hostOptions) host {
	user := codehosttest.GitHubUser{ID: 583231, Login: "octocat", Name: "Mona Lisa Octocat",
		Emails: []codehosttest.GitHubEmail{{Email: "Mona.Octocat@Example.NL", Primary: true, Verified: !o.unverified}}}
	if o.unverified {
		user.Emails = append(user.Emails, codehosttest.GitHubEmail{Email: "mona@example.be", Verified: true})
	}
	gh := codehosttest.NewGitHub(t, user)
	cfg := gh.Config()
	cfg.Timeout = o.timeout
	p, err := codehost.NewGitHub(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return host{provider: p, deny: gh.Deny, outage: gh.SetOutage, close: gh.Close, secret: gh.ClientSecret,
		want: codehost.Identity{Provider: "github", Subject: "583231", Email: "mona.octocat@example.nl", Name: "Mona Lisa Octocat"}}
}

// startGitLab runs a local GitLab whose signed-in account has a mixed-case address,
// verified unless told otherwise.
func startGitLab(t *testing.T, o hostOptions) host {
	gl := codehosttest.NewGitLab(t, codehosttest.GitLabUser{Subject: "1094325", Email: "Jan.Jansen@Example.NL",
		EmailVerified: !o.unverified, Name: "Jan Jansen", Username: "jjansen"})
	cfg := gl.Config()
	cfg.Timeout = o.timeout
	p, err := codehost.NewGitLab(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return host{provider: p, deny: gl.Deny, outage: gl.SetOutage, close: gl.Close, secret: gl.ClientSecret,
		want: codehost.Identity{Provider: "gitlab", Subject: "1094325", Email: "jan.jansen@example.nl", Name: "Jan Jansen"}}
}

// signIn runs the flow as the dashboard and a browser would, with tamper acting between
// the provider's redirect and the callback, and checks that a failure is a typed error
// that gives nothing away.
func signIn(t *testing.T, h host, tamper func(t *testing.T, h host, p *codehost.Pending, q url.Values)) (codehost.Identity, error) {
	t.Helper()
	ctx := context.Background()
	p, err := h.provider.Begin(ctx, callbackURL)
	if err != nil {
		t.Fatalf("Begin: %v", err)
	}
	q := codehosttest.Authorize(t, p.URL)
	if tamper != nil {
		tamper(t, h, &p, q)
	}
	id, err := h.provider.Complete(ctx, p, q)
	if err != nil {
		var ce *codehost.Error
		if !errors.As(err, &ce) {
			t.Errorf("Complete: error %v is not a *codehost.Error", err)
		}
		for what, secret := range map[string]string{"code": q.Get("code"), "verifier": p.Verifier, "state": p.State,
			"nonce": p.Nonce, "client secret": h.secret, "e-mail": h.want.Email} {
			if secret != "" && strings.Contains(strings.ToLower(err.Error()), strings.ToLower(secret)) {
				t.Errorf("Complete: error %q holds the %s", err, what)
			}
		}
	}
	return id, err
}

func TestSignIn(t *testing.T) {
	cases := []struct {
		name    string
		options hostOptions
		deny    bool
		tamper  func(t *testing.T, h host, p *codehost.Pending, q url.Values)
		want    error
	}{
		{name: "signed in"},
		{name: "pending kept as JSON", tamper: func(t *testing.T, _ host, p *codehost.Pending, _ url.Values) {
			raw, err := json.Marshal(*p)
			if err != nil {
				t.Fatal(err)
			}
			*p = codehost.Pending{}
			if err := json.Unmarshal(raw, p); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "pending kept as gob in a session map", tamper: func(t *testing.T, _ host, p *codehost.Pending, _ url.Values) {
			gob.Register(codehost.Pending{})
			var buf bytes.Buffer
			if err := gob.NewEncoder(&buf).Encode(map[string]any{"codehost": *p}); err != nil {
				t.Fatal(err)
			}
			var session map[string]any
			if err := gob.NewDecoder(&buf).Decode(&session); err != nil {
				t.Fatal(err)
			}
			*p = session["codehost"].(codehost.Pending)
		}},
		{name: "forged state", want: codehost.ErrStateMismatch, tamper: func(_ *testing.T, _ host, _ *codehost.Pending, q url.Values) {
			q.Set("state", oauth2.GenerateVerifier())
		}},
		{name: "no state", want: codehost.ErrStateMismatch, tamper: func(_ *testing.T, _ host, _ *codehost.Pending, q url.Values) {
			q.Del("state")
		}},
		{name: "no sign-in begun", want: codehost.ErrStateMismatch, tamper: func(_ *testing.T, _ host, p *codehost.Pending, q url.Values) {
			*p = codehost.Pending{Provider: p.Provider, Expires: p.Expires}
			q.Set("state", "")
		}},
		{name: "begun with another provider", want: codehost.ErrStateMismatch, tamper: func(_ *testing.T, _ host, p *codehost.Pending, _ url.Values) {
			p.Provider = "bitbucket"
		}},
		{name: "expired attempt", want: codehost.ErrStateMismatch, tamper: func(_ *testing.T, _ host, p *codehost.Pending, _ url.Values) {
			p.Expires = time.Now().Add(-time.Second)
		}},
		{name: "wrong PKCE verifier", want: codehost.ErrExchange, tamper: func(_ *testing.T, _ host, p *codehost.Pending, _ url.Values) {
			p.Verifier = oauth2.GenerateVerifier()
		}},
		{name: "other callback URL", want: codehost.ErrExchange, tamper: func(_ *testing.T, _ host, p *codehost.Pending, _ url.Values) {
			p.RedirectURL = "http://127.0.0.1:8080/elsewhere"
		}},
		{name: "no code", want: codehost.ErrExchange, tamper: func(_ *testing.T, _ host, _ *codehost.Pending, q url.Values) {
			q.Del("code")
		}},
		{name: "forged code", want: codehost.ErrExchange, tamper: func(_ *testing.T, _ host, _ *codehost.Pending, q url.Values) {
			q.Set("code", "SplxlOBeZQQYbYS6WxSbIA")
		}},
		{name: "code replayed", want: codehost.ErrExchange, tamper: func(t *testing.T, h host, p *codehost.Pending, q url.Values) {
			if _, err := h.provider.Complete(context.Background(), *p, q); err != nil {
				t.Fatalf("first Complete: %v", err)
			}
		}},
		{name: "other provider error", want: codehost.ErrExchange, tamper: func(_ *testing.T, _ host, _ *codehost.Pending, q url.Values) {
			q.Del("code")
			q.Set("error", "invalid_scope")
		}},
		{name: "provider error with prose", want: codehost.ErrExchange, tamper: func(_ *testing.T, h host, _ *codehost.Pending, q url.Values) {
			q.Del("code")
			q.Set("error", "write to "+h.want.Email)
		}},
		{name: "person refused", deny: true, want: codehost.ErrDenied},
		{name: "unverified e-mail", options: hostOptions{unverified: true}, want: codehost.ErrUnverifiedEmail},
		{name: "provider answers 503", want: codehost.ErrProviderDown, tamper: func(_ *testing.T, h host, _ *codehost.Pending, _ url.Values) {
			h.outage(codehosttest.Unavailable)
		}},
		{name: "provider gone", want: codehost.ErrProviderDown, tamper: func(_ *testing.T, h host, _ *codehost.Pending, _ url.Values) {
			h.close()
		}},
		{name: "provider stalls", options: hostOptions{timeout: 300 * time.Millisecond}, want: codehost.ErrProviderDown,
			tamper: func(_ *testing.T, h host, _ *codehost.Pending, _ url.Values) {
				h.outage(codehosttest.Stalled)
			}},
		{name: "provider temporarily unavailable at authorization", want: codehost.ErrProviderDown,
			tamper: func(_ *testing.T, _ host, _ *codehost.Pending, q url.Values) {
				q.Del("code")
				q.Set("error", "temporarily_unavailable")
			}},
	}
	for _, hc := range hosts {
		for _, tc := range cases {
			t.Run(hc.name+"/"+tc.name, func(t *testing.T) {
				h := hc.start(t, tc.options)
				h.deny(tc.deny)
				id, err := signIn(t, h, tc.tamper)
				if tc.want == nil {
					if err != nil {
						t.Fatalf("Complete: %v", err)
					}
					if id != h.want {
						t.Fatalf("Complete = %+v, want %+v", id, h.want)
					}
					return
				}
				if !errors.Is(err, tc.want) {
					t.Fatalf("Complete: error %v, want %v", err, tc.want)
				}
				if id != (codehost.Identity{}) {
					t.Fatalf("Complete returned %+v with an error", id)
				}
			})
		}
	}
}

// TestBegin checks what leaves for the provider: the S256 challenge of the verifier but
// never the verifier, and for OpenID Connect a nonce.
func TestBegin(t *testing.T) {
	for _, hc := range hosts {
		t.Run(hc.name, func(t *testing.T) {
			h := hc.start(t, hostOptions{})
			p, err := h.provider.Begin(context.Background(), callbackURL)
			if err != nil {
				t.Fatal(err)
			}
			u, err := url.Parse(p.URL)
			if err != nil {
				t.Fatal(err)
			}
			q := u.Query()
			checks := map[string]string{
				"state":                 p.State,
				"code_challenge":        oauth2.S256ChallengeFromVerifier(p.Verifier),
				"code_challenge_method": "S256",
				"redirect_uri":          callbackURL,
				"response_type":         "code",
			}
			if hc.name == "gitlab" {
				checks["nonce"] = p.Nonce
			}
			for k, want := range checks {
				if got := q.Get(k); got != want || want == "" {
					t.Errorf("authorization URL %s = %q, want %q", k, got, want)
				}
			}
			if strings.Contains(p.URL, p.Verifier) {
				t.Error("authorization URL holds the PKCE verifier")
			}
			if p.Provider != h.provider.Name() || time.Until(p.Expires) <= 0 {
				t.Errorf("Pending = %+v", p)
			}
			again, err := h.provider.Begin(context.Background(), callbackURL)
			if err != nil {
				t.Fatal(err)
			}
			if again.State == p.State || again.Verifier == p.Verifier || (again.Nonce == p.Nonce && p.Nonce != "") {
				t.Error("two sign-ins share a secret")
			}
			for _, bad := range []string{"", "/relative/callback", "javascript:alert(1)", "https://example.nl/cb#frag"} {
				if _, err := h.provider.Begin(context.Background(), bad); err == nil {
					t.Errorf("Begin(%q) accepted the redirect URL", bad)
				}
			}
		})
	}
}

func TestGitHubIdentity(t *testing.T) {
	cases := []struct {
		name string
		user codehosttest.GitHubUser
		want codehost.Identity
		err  error
	}{
		{"no display name: the login", codehosttest.VerifiedUser(9, "jdevries", "j.devries@example.nl"),
			codehost.Identity{Provider: "github", Subject: "9", Email: "j.devries@example.nl", Name: "jdevries"}, nil},
		{"verified address that is not the primary one", codehosttest.GitHubUser{ID: 10, Login: "pp", Emails: []codehosttest.GitHubEmail{
			{Email: "pp@example.nl", Primary: true}, {Email: "pp@example.be", Verified: true}}}, codehost.Identity{}, codehost.ErrUnverifiedEmail},
		{"no address", codehosttest.GitHubUser{ID: 11, Login: "nomail"}, codehost.Identity{}, codehost.ErrUnverifiedEmail},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			gh := codehosttest.NewGitHub(t, tc.user)
			p, err := codehost.NewGitHub(gh.Config())
			if err != nil {
				t.Fatal(err)
			}
			id, err := signIn(t, host{provider: p, secret: gh.ClientSecret}, nil)
			if !errors.Is(err, tc.err) || id != tc.want {
				t.Fatalf("Complete = %+v, %v; want %+v, %v", id, err, tc.want, tc.err)
			}
		})
	}
}

// TestSignInAs checks that the local hosts sign in the account a test chose.
func TestSignInAs(t *testing.T) {
	gh := codehosttest.NewGitHub(t, codehosttest.VerifiedUser(1, "anna", "anna@example.nl"), codehosttest.VerifiedUser(2, "bram", "bram@example.nl"))
	gh.SignInAs("bram")
	ghp, err := codehost.NewGitHub(gh.Config())
	if err != nil {
		t.Fatal(err)
	}
	gl := codehosttest.NewGitLab(t, codehosttest.GitLabUser{Subject: "1", Username: "anna", Email: "anna@example.nl", EmailVerified: true},
		codehosttest.GitLabUser{Subject: "2", Username: "bram", Email: "bram@example.nl", EmailVerified: true})
	gl.SignInAs("bram")
	glp, err := codehost.NewGitLab(gl.Config())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []codehost.Provider{ghp, glp} {
		id, err := signIn(t, host{provider: p}, nil)
		if err != nil || id.Subject != "2" || id.Email != "bram@example.nl" || id.Name != "bram" {
			t.Errorf("%s: Complete = %+v, %v; want bram", p.Name(), id, err)
		}
	}
}

func TestNewRefusesIncompleteConfig(t *testing.T) {
	if _, err := codehost.NewGitHub(codehost.GitHubConfig{ClientID: "x"}); err == nil {
		t.Error("NewGitHub accepted a configuration without a secret")
	}
	if _, err := codehost.NewGitHub(codehost.GitHubConfig{ClientID: "x", ClientSecret: "y", TokenURL: "github.com/token"}); err == nil {
		t.Error("NewGitHub accepted a relative token URL")
	}
	if _, err := codehost.NewGitLab(codehost.GitLabConfig{ClientSecret: "y"}); err == nil {
		t.Error("NewGitLab accepted a configuration without a client id")
	}
	if _, err := codehost.NewGitLab(codehost.GitLabConfig{ClientID: "x", ClientSecret: "y", Issuer: "gitlab.example.nl"}); err == nil {
		t.Error("NewGitLab accepted an issuer that is not a URL")
	}
	p, err := codehost.NewGitHub(codehost.GitHubConfig{ClientID: "x", ClientSecret: "y"})
	if err != nil || p.Label() != "GitHub" || p.Name() != "github" {
		t.Errorf("NewGitHub defaults: %v, %v", p, err)
	}
	l, err := codehost.NewGitLab(codehost.GitLabConfig{ClientID: "x", ClientSecret: "y", Label: "GitLab (eigen server)"})
	if err != nil || l.Label() != "GitLab (eigen server)" || l.Name() != "gitlab" {
		t.Errorf("NewGitLab: %v, %v", l, err)
	}
}
