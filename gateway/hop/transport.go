// Package hop carries requests from the gateway to the register workers: HTTP/1.1 over
// persistent connections, written and read on the goroutine of the request itself.
//
// net/http's Transport gives every connection a reading and a writing goroutine and hands
// each request and its answer between them and the caller over channels; for the small
// answers of a worker, those hand-offs cost more than the worker's own lookup. A worker
// answers one request at a time per connection and never pushes anything unasked, so
// nothing needs to read a connection between requests. The wire format is net/http's own
// (Request.Write, ReadResponse); only the connection pool and who does the I/O differ.
package hop

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"
)

// Defaults for a Transport's zero fields.
const (
	DefaultDialTimeout = 250 * time.Millisecond
	DefaultMaxIdle     = 64
	// DefaultIdleTimeout stays under the worker's own keep-alive limit (2 minutes), so that
	// the gateway, not the worker, closes an idle connection in most cases.
	DefaultIdleTimeout = 90 * time.Second
)

// Transport is an http.RoundTripper for the gateway→worker hop. Its zero value is usable;
// set its fields before the first request.
type Transport struct {
	// DialTimeout bounds connecting to a worker.
	DialTimeout time.Duration
	// ResponseHeaderTimeout bounds the wait for an answer's headers once the request is
	// written; 0 leaves it to the request's context.
	ResponseHeaderTimeout time.Duration
	// MaxIdle is how many idle connections are kept per worker.
	MaxIdle int
	// IdleTimeout is how long an idle connection is kept.
	IdleTimeout time.Duration
	// DialError wraps a failure to connect, so that a caller can tell it from a failure
	// after the request may have reached the worker (Caddy retries the first kind only).
	DialError func(error) error

	mu     sync.Mutex
	idle   map[string][]*conn
	closed bool
}

// errTransportClosed answers requests made after Close.
var errTransportClosed = errors.New("hop: transport closed")

// RoundTrip sends req to the worker at req.URL.Host and reads its answer's headers; the
// body is read from the connection as the caller reads it. A request that fails on a
// reused connection before any answer came is sent once more on a new one: the worker may
// have closed the connection while it was idle, in which case it never saw the request.
// Every request to a worker may be repeated (a worker changes nothing), provided its body
// can be had again.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	// reverse_proxy leaves the scheme to its transport: empty is plain HTTP.
	if req.URL.Scheme != "http" && req.URL.Scheme != "" {
		return nil, closeBody(req, fmt.Errorf("hop: scheme %q: workers are reached over plain HTTP", req.URL.Scheme))
	}
	c, err := t.get(req.Context(), req.URL.Host)
	if err != nil {
		return nil, closeBody(req, err)
	}
	resp, err := c.roundTrip(req, t.ResponseHeaderTimeout)
	if err == nil || !c.reused || !errors.Is(err, errNoAnswer) || !replayable(req) {
		return resp, err
	}
	if req, err = rewind(req); err != nil {
		return nil, err
	}
	if c, err = t.dial(req.Context(), req.URL.Host); err != nil {
		return nil, closeBody(req, err)
	}
	return c.roundTrip(req, t.ResponseHeaderTimeout)
}

// CloseIdleConnections closes the idle connections; those in use close when their answer
// is done. Requests after it still work.
func (t *Transport) CloseIdleConnections() {
	t.mu.Lock()
	idle := t.idle
	t.idle = nil
	t.mu.Unlock()
	for _, cs := range idle {
		for _, c := range cs {
			c.nc.Close()
		}
	}
}

// Close closes the idle connections and refuses new requests: a reloaded configuration
// has a Transport of its own.
func (t *Transport) Close() {
	t.mu.Lock()
	t.closed = true
	t.mu.Unlock()
	t.CloseIdleConnections()
}

// get takes the most recently used idle connection to host, or dials one. The most recent
// is the least likely to have been closed by the worker, and keeps few connections warm.
func (t *Transport) get(ctx context.Context, host string) (*conn, error) {
	now := time.Now()
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil, errTransportClosed
	}
	cs := t.idle[host]
	for len(cs) > 0 {
		c := cs[len(cs)-1]
		cs[len(cs)-1] = nil
		cs = cs[:len(cs)-1]
		if now.Sub(c.idleSince) < t.idleTimeout() {
			t.idle[host] = cs
			t.mu.Unlock()
			c.reused = true
			return c, nil
		}
		c.nc.Close()
	}
	if t.idle != nil {
		t.idle[host] = cs
	}
	t.mu.Unlock()
	return t.dial(ctx, host)
}

// put keeps c for the next request to its host, or closes it when enough are kept.
func (t *Transport) put(c *conn) {
	c.idleSince = time.Now()
	t.mu.Lock()
	if !t.closed && len(t.idle[c.host]) < t.maxIdle() {
		if t.idle == nil {
			t.idle = make(map[string][]*conn)
		}
		t.idle[c.host] = append(t.idle[c.host], c)
		t.mu.Unlock()
		return
	}
	t.mu.Unlock()
	c.nc.Close()
}

// dial connects to host within the dial timeout and the request's context.
func (t *Transport) dial(ctx context.Context, host string) (*conn, error) {
	d := net.Dialer{Timeout: t.dialTimeout()}
	nc, err := d.DialContext(ctx, "tcp", host)
	if err != nil {
		err = fmt.Errorf("hop: connect to worker: %w", err)
		if t.DialError != nil {
			err = t.DialError(err)
		}
		return nil, err
	}
	return newConn(t, host, nc), nil
}

func (t *Transport) dialTimeout() time.Duration {
	if t.DialTimeout > 0 {
		return t.DialTimeout
	}
	return DefaultDialTimeout
}

func (t *Transport) maxIdle() int {
	if t.MaxIdle > 0 {
		return t.MaxIdle
	}
	return DefaultMaxIdle
}

func (t *Transport) idleTimeout() time.Duration {
	if t.IdleTimeout > 0 {
		return t.IdleTimeout
	}
	return DefaultIdleTimeout
}

// replayable reports whether req can be sent again: without a body, or with one it can
// have again.
func replayable(req *http.Request) bool {
	return req.Body == nil || req.Body == http.NoBody || req.GetBody != nil
}

// rewind gives req its body again for a second attempt.
func rewind(req *http.Request) (*http.Request, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return req, nil
	}
	body, err := req.GetBody()
	if err != nil {
		return nil, fmt.Errorf("hop: request body again: %w", err)
	}
	r := *req
	r.Body = body
	return &r, nil
}

// closeBody closes req's body, as a RoundTripper must even when it fails, and returns err.
func closeBody(req *http.Request, err error) error {
	if req.Body != nil {
		req.Body.Close()
	}
	return err
}

var _ http.RoundTripper = (*Transport)(nil)
