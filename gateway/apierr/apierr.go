// Package apierr writes the gateway's refusals in the specification's ErrorResponse shape.
//
// Every answer the gateway gives instead of the worker goes through here, so that each status
// carries the code the spec pairs with it, the headers a client needs to react (Retry-After,
// WWW-Authenticate) are never forgotten, and no refusal echoes what the caller submitted.
package apierr

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/adreswijzer/adreswijzer"
)

// Error is a refusal: the HTTP status, the body and the headers that go with it.
type Error struct {
	Status     int
	Code       adreswijzer.ErrorCode
	Message    string
	NextStep   string
	UpgradeURL string
	// RetryAfter is sent as whole seconds, at least 1; always with RATE_LIMITED and
	// DAILY_CAP_REACHED, otherwise when positive. Never with QUOTA_EXCEEDED: waiting does
	// not help there.
	RetryAfter time.Duration
	// Challenge replaces the default WWW-Authenticate of a 401 (the agent interface points
	// to its OAuth protected resource metadata), and is sent with other statuses when set
	// (RFC 6750's insufficient_scope goes with a 403).
	Challenge string
	// Allow is the Allow header of a 405: the methods the path takes.
	Allow string
	// Reply, when set, is sent as the JSON body instead of the ErrorResponse: the agent
	// interface refuses tool calls with a JSON-RPC result (status 200) that the agent's
	// model reads, where an HTTP error would only tell its host that something failed.
	Reply []byte
}

func (e *Error) Error() string { return string(e.Code) + ": " + e.Message }

// Response is the JSON body.
func (e *Error) Response() adreswijzer.ErrorResponse {
	return adreswijzer.ErrorResponse{Error: adreswijzer.ErrorBody{
		Code: e.Code, Message: e.Message, NextStep: e.NextStep, UpgradeURL: e.UpgradeURL,
	}}
}

// RetryAfterSeconds rounds up, because a client that waits the rounded-down time would be
// refused again; and never says 0, which some clients read as "retry at once".
func RetryAfterSeconds(d time.Duration) int {
	s := int((d + time.Second - 1) / time.Second)
	if s < 1 {
		s = 1
	}
	return s
}

// Write sends the refusal. Headers the caller set before (CORS) are kept.
func Write(w http.ResponseWriter, e *Error) {
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	// A refusal depends on the credential and the moment; no cache may keep it.
	h.Set("Cache-Control", "no-store")
	h.Del("Content-Length")
	switch {
	case e.Challenge != "":
		h.Set("WWW-Authenticate", e.Challenge)
	case e.Status == http.StatusUnauthorized:
		h.Set("WWW-Authenticate", `Bearer realm="adreswijzer"`)
	}
	if e.Allow != "" {
		h.Set("Allow", e.Allow)
	}
	if e.RetryAfter > 0 || e.Reply == nil && (e.Code == adreswijzer.ErrRateLimited || e.Code == adreswijzer.ErrDailyCapReached) {
		h.Set("Retry-After", strconv.Itoa(RetryAfterSeconds(e.RetryAfter)))
	}
	body := e.Reply
	if body == nil {
		body, _ = json.Marshal(e.Response()) // plain strings only; cannot fail
		body = append(body, '\n')
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(e.Status)
	_, _ = w.Write(body)
}
