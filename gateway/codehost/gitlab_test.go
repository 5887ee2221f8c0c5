package codehost_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/adreswijzer/adreswijzer/gateway/codehost"
	"github.com/adreswijzer/adreswijzer/gateway/codehost/codehosttest"
)

// jan is the account the GitLab tests sign in with.
var jan = codehosttest.GitLabUser{Subject: "1094325", Email: "jan@example.nl", EmailVerified: true, Name: "Jan Jansen", Username: "jjansen"}

// startJan runs a local GitLab with jan and a provider for it.
func startJan(t *testing.T) (*codehosttest.GitLab, *codehost.GitLab) {
	gl := codehosttest.NewGitLab(t, jan)
	p, err := codehost.NewGitLab(gl.Config())
	if err != nil {
		t.Fatal(err)
	}
	return gl, p
}

// TestGitLabIDTokenRefused checks that an ID token signed by the provider's key but not
// meant for this sign-in, and one not signed by that key, are refused.
func TestGitLabIDTokenRefused(t *testing.T) {
	cases := []struct {
		name   string
		tamper func(gl *codehosttest.GitLab, p *codehost.Pending)
		want   error
	}{
		{"wrong nonce", func(gl *codehosttest.GitLab, _ *codehost.Pending) {
			gl.AlterNextIDToken(func(c map[string]any) { c["nonce"] = "n-0S6_WzA2Mj" })
		}, codehost.ErrExchange},
		{"no nonce", func(gl *codehosttest.GitLab, _ *codehost.Pending) {
			gl.AlterNextIDToken(func(c map[string]any) { delete(c, "nonce") })
		}, codehost.ErrExchange},
		{"nonce of another sign-in", func(_ *codehosttest.GitLab, p *codehost.Pending) {
			p.Nonce = "n-0S6_WzA2Mj"
		}, codehost.ErrExchange},
		{"wrong audience", func(gl *codehosttest.GitLab, _ *codehost.Pending) {
			gl.AlterNextIDToken(func(c map[string]any) { c["aud"] = []string{"another-application"} })
		}, codehost.ErrExchange},
		{"wrong issuer", func(gl *codehosttest.GitLab, _ *codehost.Pending) {
			gl.AlterNextIDToken(func(c map[string]any) { c["iss"] = "https://gitlab.example.nl" })
		}, codehost.ErrExchange},
		{"expired", func(gl *codehosttest.GitLab, _ *codehost.Pending) {
			gl.AlterNextIDToken(func(c map[string]any) { c["exp"] = time.Now().Add(-time.Hour).Unix() })
		}, codehost.ErrExchange},
		{"signed with another key", func(gl *codehosttest.GitLab, _ *codehost.Pending) {
			gl.ForgeNextIDToken()
		}, codehost.ErrExchange},
		{"no subject", func(gl *codehosttest.GitLab, _ *codehost.Pending) {
			gl.AlterNextIDToken(func(c map[string]any) { delete(c, "sub") })
		}, codehost.ErrExchange},
		{"no email claim", func(gl *codehosttest.GitLab, _ *codehost.Pending) {
			gl.AlterNextIDToken(func(c map[string]any) { delete(c, "email"); delete(c, "email_verified") })
		}, codehost.ErrUnverifiedEmail},
		{"email_verified absent", func(gl *codehosttest.GitLab, _ *codehost.Pending) {
			gl.AlterNextIDToken(func(c map[string]any) { delete(c, "email_verified") })
		}, codehost.ErrUnverifiedEmail},
		{"not an address", func(gl *codehosttest.GitLab, _ *codehost.Pending) {
			gl.AlterNextIDToken(func(c map[string]any) { c["email"] = "Jan Jansen <jan@example.nl>" })
		}, codehost.ErrUnverifiedEmail},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			gl, p := startJan(t)
			_, err := signIn(t, host{provider: p, secret: gl.ClientSecret, want: codehost.Identity{Email: jan.Email}},
				func(_ *testing.T, _ host, pending *codehost.Pending, _ url.Values) { tc.tamper(gl, pending) })
			if !errors.Is(err, tc.want) {
				t.Fatalf("Complete: error %v, want %v", err, tc.want)
			}
		})
	}
}

// TestGitLabStartsWhileDown checks that discovery waits for the first sign-in, that a
// failed one is remembered for RetryDiscovery and then tried again.
func TestGitLabStartsWhileDown(t *testing.T) {
	gl := codehosttest.NewGitLab(t, jan)
	gl.SetOutage(codehosttest.Unavailable)
	cfg := gl.Config()
	cfg.RetryDiscovery = time.Hour
	patient, err := codehost.NewGitLab(cfg)
	if err != nil {
		t.Fatalf("NewGitLab while GitLab is down: %v", err)
	}
	cfg.RetryDiscovery = time.Nanosecond
	eager, err := codehost.NewGitLab(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []*codehost.GitLab{patient, eager} {
		if _, err := p.Begin(context.Background(), callbackURL); !errors.Is(err, codehost.ErrProviderDown) {
			t.Fatalf("Begin while GitLab is down: %v, want ErrProviderDown", err)
		}
	}
	gl.SetOutage(codehosttest.Up)
	if _, err := patient.Begin(context.Background(), callbackURL); !errors.Is(err, codehost.ErrProviderDown) {
		t.Errorf("Begin within RetryDiscovery of a failure: %v, want the remembered ErrProviderDown", err)
	}
	id, err := signIn(t, host{provider: eager}, nil)
	if err != nil || id.Email != jan.Email {
		t.Errorf("sign-in after GitLab came back: %+v, %v", id, err)
	}
}

func TestGitLabDiscoveryRefused(t *testing.T) {
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	gl := codehosttest.NewGitLab(t, jan)
	for name, issuer := range map[string]string{
		"closed port":                  gone.URL,
		"issuer not the one discovery": gl.Issuer + "/",
		"no discovery document":        gl.Issuer + "/elsewhere",
	} {
		t.Run(name, func(t *testing.T) {
			cfg := gl.Config()
			cfg.Issuer = issuer
			p, err := codehost.NewGitLab(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := p.Begin(context.Background(), callbackURL); !errors.Is(err, codehost.ErrProviderDown) {
				t.Fatalf("Begin: %v, want ErrProviderDown", err)
			}
		})
	}
}

// TestGitLabKeysDown checks that keys that cannot be fetched after a good exchange read as
// GitLab being down, not as a forged token.
func TestGitLabKeysDown(t *testing.T) {
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "Bad Gateway", http.StatusBadGateway)
	}))
	t.Cleanup(failing.Close)
	for name, keysURL := range map[string]string{"closed port": gone.URL + "/oauth/discovery/keys", "502": failing.URL + "/oauth/discovery/keys"} {
		t.Run(name, func(t *testing.T) {
			gl, p := startJan(t)
			_, err := signIn(t, host{provider: p, secret: gl.ClientSecret}, func(*testing.T, host, *codehost.Pending, url.Values) {
				p.SetKeysURL(keysURL)
			})
			if !errors.Is(err, codehost.ErrProviderDown) {
				t.Fatalf("Complete: %v, want ErrProviderDown", err)
			}
		})
	}
}
