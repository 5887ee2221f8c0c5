package codehosttest_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/oauth2"

	"github.com/adreswijzer/adreswijzer/gateway/codehost/codehosttest"
)

const callback = "http://127.0.0.1:8080/callback"

// authorizeGitHub asks the local GitHub for a code with the S256 challenge of verifier.
func authorizeGitHub(t *testing.T, gh *codehosttest.GitHub, verifier string) string {
	t.Helper()
	q := url.Values{"client_id": {gh.ClientID}, "redirect_uri": {callback}, "state": {"st"}, "scope": {"user:email"},
		"code_challenge": {oauth2.S256ChallengeFromVerifier(verifier)}, "code_challenge_method": {"S256"}}
	back := codehosttest.Authorize(t, gh.URL+"/login/oauth/authorize?"+q.Encode())
	if back.Get("state") != "st" || back.Get("code") == "" {
		t.Fatalf("callback query %v", back)
	}
	return back.Get("code")
}

// exchange posts a token request and returns the answer's status, content type and body.
func exchange(t *testing.T, gh *codehosttest.GitHub, form url.Values, accept string, basic bool) (int, string, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, gh.URL+"/login/oauth/access_token", strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	if basic {
		req.SetBasicAuth(gh.ClientID, gh.ClientSecret)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(body)
}

// TestGitHubTokenEndpoint checks the token endpoint's answers as GitHub gives them: status
// 200 with an error code, a form unless JSON is accepted.
func TestGitHubTokenEndpoint(t *testing.T) {
	verifier := oauth2.GenerateVerifier()
	cases := []struct {
		name      string
		form      func(gh *codehosttest.GitHub, code string) url.Values
		accept    string
		basic     bool
		wantError string
	}{
		{name: "form answer", form: func(gh *codehosttest.GitHub, code string) url.Values {
			return url.Values{"client_id": {gh.ClientID}, "client_secret": {gh.ClientSecret}, "code": {code}, "redirect_uri": {callback}, "code_verifier": {verifier}}
		}},
		{name: "JSON answer, Basic credentials", accept: "application/json", basic: true, form: func(_ *codehosttest.GitHub, code string) url.Values {
			return url.Values{"code": {code}, "code_verifier": {verifier}}
		}},
		{name: "wrong secret", form: func(gh *codehosttest.GitHub, code string) url.Values {
			return url.Values{"client_id": {gh.ClientID}, "client_secret": {"not-the-secret"}, "code": {code}, "code_verifier": {verifier}}
		}, wantError: "incorrect_client_credentials"},
		{name: "no verifier", accept: "application/json", form: func(gh *codehosttest.GitHub, code string) url.Values {
			return url.Values{"client_id": {gh.ClientID}, "client_secret": {gh.ClientSecret}, "code": {code}}
		}, wantError: "invalid_grant"},
		{name: "wrong redirect_uri", form: func(gh *codehosttest.GitHub, code string) url.Values {
			return url.Values{"client_id": {gh.ClientID}, "client_secret": {gh.ClientSecret}, "code": {code}, "code_verifier": {verifier}, "redirect_uri": {callback + "/other"}}
		}, wantError: "redirect_uri_mismatch"},
		{name: "unknown code", form: func(gh *codehosttest.GitHub, _ string) url.Values {
			return url.Values{"client_id": {gh.ClientID}, "client_secret": {gh.ClientSecret}, "code": {"0123456789abcdefghij"}, "code_verifier": {verifier}}
		}, wantError: "bad_verification_code"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			gh := codehosttest.NewGitHub(t, codehosttest.VerifiedUser(1, "anna", "anna@example.nl"))
			code := authorizeGitHub(t, gh, verifier)
			status, ctype, body := exchange(t, gh, tc.form(gh, code), tc.accept, tc.basic)
			if status != http.StatusOK {
				t.Fatalf("status %d, want 200 as GitHub answers", status)
			}
			answer := url.Values{}
			if tc.accept == "application/json" {
				var m map[string]string
				if err := json.Unmarshal([]byte(body), &m); err != nil || !strings.HasPrefix(ctype, "application/json") {
					t.Fatalf("answer %q (%s) is not JSON: %v", body, ctype, err)
				}
				for k, v := range m {
					answer.Set(k, v)
				}
			} else {
				var err error
				if answer, err = url.ParseQuery(body); err != nil || !strings.HasPrefix(ctype, "application/x-www-form-urlencoded") {
					t.Fatalf("answer %q (%s) is not a form: %v", body, ctype, err)
				}
			}
			if got := answer.Get("error"); got != tc.wantError {
				t.Fatalf("error %q, want %q", got, tc.wantError)
			}
			if tc.wantError == "" && (answer.Get("token_type") != "bearer" || answer.Get("access_token") == "") {
				t.Fatalf("answer %v holds no bearer token", answer)
			}
		})
	}
}

func TestGitHubCodeSingleUse(t *testing.T) {
	gh := codehosttest.NewGitHub(t, codehosttest.VerifiedUser(1, "anna", "anna@example.nl"))
	verifier := oauth2.GenerateVerifier()
	code := authorizeGitHub(t, gh, verifier)
	form := url.Values{"client_id": {gh.ClientID}, "client_secret": {gh.ClientSecret}, "code": {code}, "code_verifier": {"wrong-" + verifier}}
	if _, _, body := exchange(t, gh, form, "", false); !strings.Contains(body, "error=invalid_grant") {
		t.Fatalf("wrong verifier: %q", body)
	}
	form.Set("code_verifier", verifier)
	if _, _, body := exchange(t, gh, form, "", false); !strings.Contains(body, "error=bad_verification_code") {
		t.Fatalf("code used after a failed exchange: %q", body)
	}
}

func TestGitHubAPI(t *testing.T) {
	gh := codehosttest.NewGitHub(t, codehosttest.VerifiedUser(42, "anna", "anna@example.nl"))
	verifier := oauth2.GenerateVerifier()
	code := authorizeGitHub(t, gh, verifier)
	_, _, body := exchange(t, gh, url.Values{"code": {code}, "code_verifier": {verifier}}, "", true)
	answer, err := url.ParseQuery(body)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		auth, path string
		status     int
		want       string
	}{
		{"Bearer " + answer.Get("access_token"), "/user", http.StatusOK, `"id":42`},
		{"token " + answer.Get("access_token"), "/user/emails", http.StatusOK, `"primary":true`},
		{"Bearer gho_forged", "/user", http.StatusUnauthorized, "Bad credentials"},
		{"", "/user/emails", http.StatusUnauthorized, "Bad credentials"},
	} {
		req, err := http.NewRequest(http.MethodGet, gh.URL+tc.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if tc.auth != "" {
			req.Header.Set("Authorization", tc.auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status || !strings.Contains(string(got), tc.want) {
			t.Errorf("GET %s with %q: %d %s, want %d with %s", tc.path, tc.auth, resp.StatusCode, got, tc.status, tc.want)
		}
	}
}

// TestGitHubAuthorizeRefusals checks that a request GitHub would not redirect gets an
// error page, and that outages answer as told.
func TestGitHubAuthorizeRefusals(t *testing.T) {
	gh := codehosttest.NewGitHub(t, codehosttest.VerifiedUser(1, "anna", "anna@example.nl"))
	get := func(q url.Values) int {
		client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		resp, err := client.Get(gh.URL + "/login/oauth/authorize?" + q.Encode())
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	good := url.Values{"client_id": {gh.ClientID}, "redirect_uri": {callback}, "state": {"st"}}
	for name, change := range map[string]func(q url.Values){
		"unknown client":       func(q url.Values) { q.Set("client_id", "Iv1.unknown") },
		"relative redirect":    func(q url.Values) { q.Set("redirect_uri", "/callback") },
		"plain PKCE challenge": func(q url.Values) { q.Set("code_challenge", "abc"); q.Set("code_challenge_method", "plain") },
	} {
		q := url.Values{}
		for k, v := range good {
			q[k] = v
		}
		change(q)
		if status := get(q); status == http.StatusFound {
			t.Errorf("%s: redirected", name)
		}
	}
	if status := get(good); status != http.StatusFound {
		t.Errorf("good request: %d", status)
	}
	gh.SetOutage(codehosttest.Unavailable)
	if status := get(good); status != http.StatusServiceUnavailable {
		t.Errorf("during an outage: %d, want 503", status)
	}
}
