package codehost

import (
	"cmp"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/mail"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// maxAnswer bounds what is read of a provider's answer.
const maxAnswer = 1 << 20

// newClient is the HTTP client for every call to a provider: a slow provider costs the
// person a bounded wait and the server a bounded goroutine.
func newClient(timeout time.Duration) *http.Client {
	return &http.Client{Timeout: cmp.Or(timeout, defaultTimeout)}
}

// checkEndpoint refuses a configured endpoint that is not an absolute http(s) URL.
func checkEndpoint(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return errors.New("endpoint " + strconv.Quote(s) + " is not an absolute http(s) URL")
	}
	return nil
}

// getJSON does req and decodes a 200 answer into v. A refused token is ErrExchange; a
// failing or rate-limited provider is ErrProviderDown.
func getJSON(provider string, client *http.Client, req *http.Request, v any) error {
	step := req.Method + " " + req.URL.Path
	resp, err := client.Do(req)
	if err != nil {
		return networkError(provider, step, err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusOK:
	case resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests ||
		resp.StatusCode == http.StatusForbidden && resp.Header.Get("X-RateLimit-Remaining") == "0":
		return fail(provider, ErrProviderDown, step+" answered "+strconv.Itoa(resp.StatusCode), nil)
	default:
		return fail(provider, ErrExchange, step+" answered "+strconv.Itoa(resp.StatusCode), nil)
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxAnswer)).Decode(v); err != nil {
		return fail(provider, ErrProviderDown, step+": unreadable answer", nil)
	}
	return nil
}

// normalizeEmail lower-cases an address and refuses what is not a bare address.
func normalizeEmail(s string) (string, bool) {
	a, err := mail.ParseAddress(s)
	if err != nil || a.Name != "" || a.Address != strings.TrimSpace(s) {
		return "", false
	}
	return strings.ToLower(a.Address), true
}

// watched is a copy of client that notes its first failed call.
func watched(client *http.Client) (*http.Client, *watchedTransport) {
	t := &watchedTransport{base: cmp.Or[http.RoundTripper](client.Transport, http.DefaultTransport)}
	c := *client
	c.Transport = t
	return &c, t
}

// watchedTransport notes the first failed call through it: a network error or a 5xx or
// 429 answer. It lets a caller tell "the provider is down" from "the provider said no"
// where a library reports both as text.
type watchedTransport struct {
	base http.RoundTripper

	mu     sync.Mutex
	failed error
}

// RoundTrip passes the request on and notes a failure.
func (t *watchedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	switch {
	case err != nil:
		t.note(&url.Error{Op: req.Method, URL: req.URL.Redacted(), Err: err})
	case resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests:
		t.note(errors.New(req.Method + " " + req.URL.Path + " answered " + strconv.Itoa(resp.StatusCode)))
	}
	return resp, err
}

// note keeps the first failure.
func (t *watchedTransport) note(err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.failed == nil {
		t.failed = err
	}
}

// failure is the first failed call, or nil.
func (t *watchedTransport) failure() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.failed
}
