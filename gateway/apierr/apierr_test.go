package apierr

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/adreswijzer/adreswijzer"
)

// Each refusal pairs the status and code the spec's table gives.
func TestStatusAndCode(t *testing.T) {
	for _, c := range []struct {
		e      *Error
		status int
		code   adreswijzer.ErrorCode
	}{
		{Unauthorized(), 401, adreswijzer.ErrUnauthorized},
		{CredentialInURL(), 401, adreswijzer.ErrUnauthorized},
		{MissingScope(), 403, adreswijzer.ErrForbidden},
		{RouteNotAllowed(), 403, adreswijzer.ErrForbidden},
		{ForeignOrigin(), 403, adreswijzer.ErrForbidden},
		{NotFound(), 404, adreswijzer.ErrNotFound},
		{TooLarge(), 413, adreswijzer.ErrPayloadTooLarge},
		{SessionRequired(), 422, adreswijzer.ErrValidationFailed},
		{BadSessionID(), 422, adreswijzer.ErrValidationFailed},
		{BadBody(), 400, adreswijzer.ErrBadRequest},
		{SlowBody(), 400, adreswijzer.ErrBadRequest},
		{RateLimited(time.Second), 429, adreswijzer.ErrRateLimited},
		{DailyCapReached(time.Hour), 429, adreswijzer.ErrDailyCapReached},
		{QuotaExceeded("https://x.example/up"), 429, adreswijzer.ErrQuotaExceeded},
		{Internal(), 500, adreswijzer.ErrInternal},
		{Unavailable(), 503, adreswijzer.ErrServiceUnavailable},
		{TooLargeAgent(), 413, adreswijzer.ErrPayloadTooLarge},
		{ForeignHost(), 403, adreswijzer.ErrForbidden},
		{InsufficientScope(""), 403, adreswijzer.ErrForbidden},
	} {
		if c.e.Status != c.status || c.e.Code != c.code || c.e.Message == "" {
			t.Errorf("%s: %d %s %q", c.code, c.e.Status, c.e.Code, c.e.Message)
		}
	}
}

func TestWrite(t *testing.T) {
	for _, c := range []struct {
		e          *Error
		retryAfter string
		challenge  bool
	}{
		{RateLimited(1500 * time.Millisecond), "2", false},
		{RateLimited(10 * time.Millisecond), "1", false}, // never 0
		{RateLimited(0), "1", false},
		{DailyCapReached(90 * time.Minute), "5400", false},
		{QuotaExceeded("https://x.example/up"), "", false},
		{Unauthorized(), "", true},
		{Unavailable(), "", false},
		{InsufficientScope(`Bearer error="insufficient_scope"`), "", true},
		{ForeignHost(), "", false},
		{TooLargeAgent(), "", false},
		{MethodNotAllowed("GET, HEAD"), "", false},
	} {
		w := httptest.NewRecorder()
		Write(w, c.e)
		if got := w.Header().Get("Allow"); got != c.e.Allow || (c.e.Status == http.StatusMethodNotAllowed) != (got != "") {
			t.Errorf("%s %d: Allow %q", c.e.Code, c.e.Status, got)
		}
		if w.Code != c.e.Status {
			t.Errorf("%s: status %d", c.e.Code, w.Code)
		}
		if got := w.Header().Get("Retry-After"); got != c.retryAfter {
			t.Errorf("%s: Retry-After %q, want %q", c.e.Code, got, c.retryAfter)
		}
		if got := w.Header().Get("WWW-Authenticate") != ""; got != c.challenge {
			t.Errorf("%s: challenge %v", c.e.Code, got)
		}
		if w.Header().Get("Content-Type") != "application/json; charset=utf-8" || w.Header().Get("Cache-Control") != "no-store" {
			t.Errorf("%s: headers %v", c.e.Code, w.Header())
		}
		var body map[string]map[string]any
		if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
			t.Fatal(err)
		}
		e := body["error"]
		if e["code"] != string(c.e.Code) || e["message"] == "" {
			t.Errorf("%s: body %s", c.e.Code, w.Body)
		}
		if _, ok := e["upgradeUrl"]; ok != (c.e.Code == adreswijzer.ErrQuotaExceeded) {
			t.Errorf("%s: upgradeUrl present %v", c.e.Code, ok)
		}
	}
	w := httptest.NewRecorder()
	e := Unauthorized()
	e.Challenge = `Bearer resource_metadata="https://api.example/.well-known/oauth-protected-resource/mcp"`
	Write(w, e)
	if w.Header().Get("WWW-Authenticate") != e.Challenge {
		t.Errorf("custom challenge lost: %q", w.Header().Get("WWW-Authenticate"))
	}

	// A reply replaces the ErrorResponse: the status and body the agent interface chose,
	// with Retry-After when it says when.
	reply := []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":true}}`)
	for _, c := range []struct {
		e          *Error
		retryAfter string
	}{
		{&Error{Status: http.StatusOK, Code: adreswijzer.ErrRateLimited, Reply: reply, RetryAfter: 2 * time.Second}, "2"},
		{&Error{Status: http.StatusOK, Code: adreswijzer.ErrRateLimited, Reply: reply}, ""},
	} {
		w = httptest.NewRecorder()
		Write(w, c.e)
		if w.Code != 200 || w.Body.String() != string(reply) || w.Header().Get("Retry-After") != c.retryAfter ||
			w.Header().Get("Content-Length") != strconv.Itoa(len(reply)) || w.Header().Get("WWW-Authenticate") != "" {
			t.Errorf("reply: %d %q, headers %v", w.Code, w.Body, w.Header())
		}
	}
}

// A bare error status gets the code openapi.json pairs with it; statuses it does not list
// become 400 or 500, and an unreachable or silent worker 503, on which callers fail open.
func TestForStatus(t *testing.T) {
	for _, c := range []struct {
		in, status int
		code       adreswijzer.ErrorCode
	}{
		{400, 400, adreswijzer.ErrBadRequest}, {401, 401, adreswijzer.ErrUnauthorized},
		{403, 403, adreswijzer.ErrForbidden}, {404, 404, adreswijzer.ErrNotFound},
		{405, 405, adreswijzer.ErrNotFound}, {408, 400, adreswijzer.ErrBadRequest},
		{413, 413, adreswijzer.ErrPayloadTooLarge}, {418, 400, adreswijzer.ErrBadRequest},
		{422, 422, adreswijzer.ErrValidationFailed}, {429, 429, adreswijzer.ErrRateLimited},
		{500, 500, adreswijzer.ErrInternal}, {501, 500, adreswijzer.ErrInternal},
		{502, 503, adreswijzer.ErrServiceUnavailable}, {503, 503, adreswijzer.ErrServiceUnavailable},
		{504, 503, adreswijzer.ErrServiceUnavailable},
	} {
		e := ForStatus(c.in)
		if e.Status != c.status || e.Code != c.code || e.Message == "" {
			t.Errorf("%d: %d %s %q, want %d %s", c.in, e.Status, e.Code, e.Message, c.status, c.code)
		}
	}
}
