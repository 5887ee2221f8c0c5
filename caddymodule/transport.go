package caddymodule

import (
	"fmt"
	"net/http"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp/reverseproxy"

	"github.com/adreswijzer/adreswijzer/gateway/hop"
)

func init() {
	caddy.RegisterModule(Transport{})
}

// Transport is reverse_proxy's transport to the register workers
// (http.reverse_proxy.transport.adreswijzer): HTTP/1.1 over persistent connections, each
// request written and its answer read on the request's own goroutine (see gateway/hop).
// It speaks plain HTTP to workers on a private network, nothing else: no TLS, no HTTP/2,
// no forward proxy. reverse_proxy's load balancing, retries and health checks work as
// with `transport http`; a failure to connect is a dial error, which lb_retries retries on
// another worker.
type Transport struct {
	// How long connecting to a worker may take. Default 250ms.
	DialTimeout caddy.Duration `json:"dial_timeout,omitempty"`
	// How long to wait for an answer's headers once the request is sent; 0 leaves it to
	// the request's deadline (the adreswijzer handler's upstream_timeout).
	ResponseHeaderTimeout caddy.Duration `json:"response_header_timeout,omitempty"`
	// Idle connections kept per worker. Default 64.
	MaxIdle int `json:"max_idle,omitempty"`
	// How long an idle connection is kept; under the worker's own idle limit (2 minutes).
	// Default 90s.
	IdleTimeout caddy.Duration `json:"idle_timeout,omitempty"`

	hop *hop.Transport
}

// CaddyModule returns the Caddy module information.
func (Transport) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.reverse_proxy.transport.adreswijzer",
		New: func() caddy.Module { return new(Transport) },
	}
}

// Provision sets up the connection pool.
func (t *Transport) Provision(caddy.Context) error {
	t.hop = &hop.Transport{
		DialTimeout:           time.Duration(t.DialTimeout),
		ResponseHeaderTimeout: time.Duration(t.ResponseHeaderTimeout),
		MaxIdle:               t.MaxIdle,
		IdleTimeout:           time.Duration(t.IdleTimeout),
		DialError:             func(err error) error { return reverseproxy.NewDialError(err) },
	}
	return nil
}

// Validate refuses settings that cannot work.
func (t *Transport) Validate() error {
	switch {
	case t.DialTimeout < 0, t.ResponseHeaderTimeout < 0, t.IdleTimeout < 0:
		return fmt.Errorf("transport adreswijzer: negative duration")
	case t.MaxIdle < 0:
		return fmt.Errorf("transport adreswijzer: negative max_idle")
	}
	return nil
}

// RoundTrip sends a request to a worker.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	return t.hop.RoundTrip(req)
}

// Cleanup closes the idle connections of a configuration that was replaced.
func (t *Transport) Cleanup() error {
	t.hop.Close()
	return nil
}

// Interface guards.
var (
	_ caddy.Provisioner  = (*Transport)(nil)
	_ caddy.Validator    = (*Transport)(nil)
	_ caddy.CleanerUpper = (*Transport)(nil)
	_ http.RoundTripper  = (*Transport)(nil)
)
