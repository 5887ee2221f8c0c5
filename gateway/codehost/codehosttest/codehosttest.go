// Package codehosttest runs local code hosts for tests: a GitHub speaking its OAuth web
// flow and REST API, and a GitLab speaking OpenID Connect. GitHub and GitLab cannot be
// reached from tests; these speak the same protocols on 127.0.0.1, so codehost's clients
// run unchanged against them, from any package's tests:
//
//	gh := codehosttest.NewGitHub(t, codehosttest.VerifiedUser(1, "anna", "anna@example.nl"))
//	provider, err := codehost.NewGitHub(gh.Config())
//
//	gl := codehosttest.NewGitLab(t, codehosttest.GitLabUser{Subject: "7", Email: "bo@example.nl", EmailVerified: true})
//	provider, err := codehost.NewGitLab(gl.Config())
//
// A browser driven by a test follows the authorization URL as it would the real one; a
// test without a browser uses Authorize.
package codehosttest

import (
	"net/http"
	"net/url"
	"sync"
	"testing"
)

// Outage is how a local code host fails.
type Outage int

const (
	// Up answers normally.
	Up Outage = iota
	// Unavailable answers every request with 503.
	Unavailable
	// Stalled answers nothing until the client gives up.
	Stalled
)

// outageSwitch fails every request as its Outage says.
type outageSwitch struct {
	mu      sync.Mutex
	outage  Outage
	done    chan struct{} // closed when the server stops, releasing stalled requests
	stopped bool
}

// newOutageSwitch starts Up.
func newOutageSwitch() *outageSwitch { return &outageSwitch{done: make(chan struct{})} }

// set changes the outage.
func (s *outageSwitch) set(o Outage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.outage = o
}

// close releases stalled requests; safe to call twice.
func (s *outageSwitch) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.stopped {
		s.stopped = true
		close(s.done)
	}
}

// wrap puts the switch in front of next.
func (s *outageSwitch) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		o := s.outage
		s.mu.Unlock()
		switch o {
		case Unavailable:
			http.Error(w, "Service Unavailable", http.StatusServiceUnavailable)
		case Stalled:
			select {
			case <-r.Context().Done():
			case <-s.done:
			}
		default:
			next.ServeHTTP(w, r)
		}
	})
}

// Authorize does what a browser does with an authorization URL: it asks the provider's
// page, which approves (or refuses) at once, and returns the query the provider sends
// back to the callback URL. It fails the test when the provider does not redirect.
func Authorize(t testing.TB, authURL string) url.Values {
	t.Helper()
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Get(authURL)
	if err != nil {
		t.Fatalf("codehosttest: authorization page: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusFound && resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("codehosttest: authorization page answered %s, want a redirect", resp.Status)
	}
	back, err := url.Parse(resp.Header.Get("Location"))
	if err != nil {
		t.Fatalf("codehosttest: authorization redirect: %v", err)
	}
	return back.Query()
}
