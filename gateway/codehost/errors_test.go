package codehost

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
)

// TestGetJSONStatus checks how an API answer's status is read: a refused token is the
// sign-in's fault, a failing or rate-limited API is the provider's.
func TestGetJSONStatus(t *testing.T) {
	cases := []struct {
		status    int
		rateLimit string
		want      error
	}{
		{http.StatusOK, "", nil},
		{http.StatusUnauthorized, "", ErrExchange},
		{http.StatusForbidden, "12", ErrExchange},
		{http.StatusForbidden, "0", ErrProviderDown},
		{http.StatusNotFound, "", ErrExchange},
		{http.StatusTooManyRequests, "", ErrProviderDown},
		{http.StatusInternalServerError, "", ErrProviderDown},
		{http.StatusBadGateway, "", ErrProviderDown},
	}
	for _, tc := range cases {
		t.Run(strconv.Itoa(tc.status)+"/"+tc.rateLimit, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				if tc.rateLimit != "" {
					w.Header().Set("X-RateLimit-Remaining", tc.rateLimit)
				}
				w.WriteHeader(tc.status)
				_, _ = w.Write([]byte(`{"id": 1}`))
			}))
			defer srv.Close()
			req, err := http.NewRequest(http.MethodGet, srv.URL+"/user", nil)
			if err != nil {
				t.Fatal(err)
			}
			var v struct{ ID int }
			err = getJSON("github", newClient(0), req, &v)
			if tc.want == nil {
				if err != nil || v.ID != 1 {
					t.Fatalf("getJSON = %v, %v", v, err)
				}
				return
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("getJSON: %v, want %v", err, tc.want)
			}
		})
	}
}

func TestGetJSONUnreadable(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`<html>maintenance</html>`))
	}))
	defer srv.Close()
	req, err := http.NewRequest(http.MethodGet, srv.URL+"/user", nil)
	if err != nil {
		t.Fatal(err)
	}
	var v struct{ ID int }
	if err := getJSON("github", newClient(0), req, &v); !errors.Is(err, ErrProviderDown) {
		t.Fatalf("getJSON: %v, want ErrProviderDown", err)
	}
}

func TestErrorCode(t *testing.T) {
	cases := map[string]string{
		"access_denied":              "access_denied",
		"bad_verification_code":      "bad_verification_code",
		"":                           "no error code",
		"contact jan@example.nl":     "unreadable error code",
		"invalid_grant\nforged line": "unreadable error code",
		"a_very_long_error_code_that_is_prose_really_and_not_a_code": "unreadable error code",
	}
	for in, want := range cases {
		if got := errorCode(in); got != want {
			t.Errorf("errorCode(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestErrorText(t *testing.T) {
	err := fail("github", ErrExchange, "token endpoint refused the code (bad_verification_code)", nil)
	if got, want := err.Error(), "github sign-in: sign-in refused by the provider: token endpoint refused the code (bad_verification_code)"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if !errors.Is(err, ErrExchange) || errors.Is(err, ErrProviderDown) {
		t.Error("errors.Is does not follow Kind")
	}
}
