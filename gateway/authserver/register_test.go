package authserver_test

import (
	"net/http"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/adreswijzer/adreswijzer/gateway/authserver"
)

// Registration takes public clients with loopback or https redirect URIs and answers
// refusals with RFC 7591's errors.
func TestRegistration(t *testing.T) {
	h := newHarness(t)
	many := `"https://a.example/1","https://a.example/2","https://a.example/3","https://a.example/4","https://a.example/5","https://a.example/6"`
	for _, c := range []struct {
		name, body string
		error      string // "" for a registration
	}{
		{"loopback v4", `{"redirect_uris":["http://127.0.0.1:33418/callback"]}`, ""},
		{"loopback v6 and name", `{"redirect_uris":["http://[::1]/cb"],"client_name":"Claude Code"}`, ""},
		{"localhost and https", `{"redirect_uris":["http://localhost:8000/cb","https://agent.example/oauth/cb"],"grant_types":["authorization_code","refresh_token"],"response_types":["code"],"token_endpoint_auth_method":"none","scope":"address:verify","logo_uri":"https://x.example/l.png","contacts":["x@example.com"]}`, ""},
		{"no redirect URIs", `{"client_name":"x"}`, "invalid_redirect_uri"},
		{"http on the internet", `{"redirect_uris":["http://agent.example/cb"]}`, "invalid_redirect_uri"},
		{"custom scheme", `{"redirect_uris":["com.example.app:/cb"]}`, "invalid_redirect_uri"},
		{"fragment", `{"redirect_uris":["https://agent.example/cb#x"]}`, "invalid_redirect_uri"},
		{"user information", `{"redirect_uris":["https://me@agent.example/cb"]}`, "invalid_redirect_uri"},
		{"relative", `{"redirect_uris":["/cb"]}`, "invalid_redirect_uri"},
		{"too long", `{"redirect_uris":["https://agent.example/` + strings.Repeat("a", 600) + `"]}`, "invalid_redirect_uri"},
		{"too many", `{"redirect_uris":[` + many + `]}`, "invalid_redirect_uri"},
		{"a secret wanted", `{"redirect_uris":["https://agent.example/cb"],"token_endpoint_auth_method":"client_secret_basic"}`, "invalid_client_metadata"},
		{"implicit", `{"redirect_uris":["https://agent.example/cb"],"response_types":["token"]}`, "invalid_client_metadata"},
		{"client credentials", `{"redirect_uris":["https://agent.example/cb"],"grant_types":["client_credentials"]}`, "invalid_client_metadata"},
		{"refresh alone", `{"redirect_uris":["https://agent.example/cb"],"grant_types":["refresh_token"]}`, "invalid_client_metadata"},
		{"long name", `{"redirect_uris":["https://agent.example/cb"],"client_name":"` + strings.Repeat("n", 101) + `"}`, "invalid_client_metadata"},
		{"control in name", `{"redirect_uris":["https://agent.example/cb"],"client_name":"a\u0007b"}`, "invalid_client_metadata"},
		{"not JSON", `redirect_uris=https://agent.example/cb`, "invalid_client_metadata"},
		{"wrong type", `{"redirect_uris":"https://agent.example/cb"}`, "invalid_client_metadata"},
	} {
		t.Run(c.name, func(t *testing.T) {
			st, reply := h.register(c.body)
			if c.error != "" {
				if st != http.StatusBadRequest || reply["error"] != c.error || reply["error_description"] == "" {
					t.Errorf("%d %v, want 400 %s", st, reply, c.error)
				}
				return
			}
			if st != http.StatusCreated || !strings.HasPrefix(reply["client_id"].(string), "awc_") ||
				reply["token_endpoint_auth_method"] != "none" || reply["client_secret"] != nil ||
				!reflect.DeepEqual(reply["response_types"], []any{"code"}) || reply["client_id_issued_at"] == nil {
				t.Errorf("%d %v", st, reply)
			}
		})
	}
	if a := h.do(http.MethodGet, authserver.RegisterPath, nil, ""); a.status != http.StatusMethodNotAllowed {
		t.Errorf("GET: %d", a.status)
	}
	big := `{"redirect_uris":["https://agent.example/cb"],"x":"` + strings.Repeat("x", 17<<10) + `"}`
	if st, reply := h.register(big); st != http.StatusBadRequest || reply["error"] != "invalid_client_metadata" {
		t.Errorf("17 KiB: %d %v", st, reply)
	}
}

// One address registers a few clients, not hundreds.
func TestRegistrationLimit(t *testing.T) {
	h := newHarness(t)
	refused := 0
	for range authserver.Registrations.Burst + 2 {
		st, reply := h.register(`{"redirect_uris":["http://127.0.0.1/cb"]}`)
		if st == http.StatusTooManyRequests {
			refused++
			if reply["error"] != "invalid_request" {
				t.Errorf("429 body %v", reply)
			}
		}
	}
	if refused == 0 {
		t.Error("no registration refused")
	}
}

// FuzzParseRegistration: whatever the body, the parser answers a client or an RFC 7591
// error, and what it accepts keeps the bounds.
func FuzzParseRegistration(f *testing.F) {
	for _, s := range []string{
		`{"redirect_uris":["http://127.0.0.1:33418/callback"],"client_name":"Claude"}`,
		`{"redirect_uris":["https://agent.example/cb"],"grant_types":["authorization_code","refresh_token"],"token_endpoint_auth_method":"none"}`,
		`{"redirect_uris":["http://[::1]:8080/a?b=c"],"response_types":["code"]}`,
		`{"redirect_uris":[]}`, `null`, `[]`, `{"redirect_uris":["http://127.0.0.1:0/\u0000"]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		c, e := authserver.ParseRegistration(body)
		if (c == nil) == (e == nil) {
			t.Fatalf("client %v and error %v", c, e)
		}
		if e != nil {
			if e.Code != "invalid_client_metadata" && e.Code != "invalid_redirect_uri" || e.Description == "" {
				t.Fatalf("error %+v", e)
			}
			return
		}
		if len(c.RedirectURIs) == 0 || len(c.RedirectURIs) > 5 || utf8.RuneCountInString(c.Name) > 100 || len(c.GrantTypes) == 0 {
			t.Fatalf("accepted %+v", c)
		}
		for _, u := range c.RedirectURIs {
			if len(u) > 512 || !strings.HasPrefix(u, "https://") && !strings.HasPrefix(u, "http://") {
				t.Fatalf("accepted redirect URI %q", u)
			}
		}
	})
}
