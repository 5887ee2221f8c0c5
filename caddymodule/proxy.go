package caddymodule

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/adreswijzer/adreswijzer/gateway"
	"github.com/adreswijzer/adreswijzer/gateway/apierr"
	"github.com/adreswijzer/adreswijzer/gateway/versions"
)

// bufPool holds the buffers data answers are recorded into until they are whole.
var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooledBuffer keeps a rare huge answer's buffer out of the pool.
const maxPooledBuffer = 256 << 10

// proxy passes r to the next handler (reverse_proxy to the workers), holding back the
// answers the gateway must see whole before they go out (see holdsAnswer), and settles the
// call by how it ended.
func (h *Handler) proxy(clientCtx context.Context, w http.ResponseWriter, r *http.Request, d *gateway.Decision, next caddyhttp.Handler) error {
	buf := bufPool.Get().(*bytes.Buffer)
	buf.Reset()
	defer func() {
		if buf.Cap() <= maxPooledBuffer {
			bufPool.Put(buf)
		}
	}()
	settle := d.WantsAnswer()
	rec := caddyhttp.NewResponseRecorder(w, buf, func(status int, hdr http.Header) bool {
		h.gw.Observe(d, hdr)
		return holdsAnswer(d, settle, status, hdr)
	})
	if err := serveNext(next, rec, r); err != nil {
		h.proxyFailed(clientCtx, w, r, d, rec, err)
		return nil
	}
	h.finalizeResponse(clientCtx, w, r, d, rec, settle)
	return nil
}

// holdsAnswer reports whether an answer is held back until it is whole. Every data answer
// (lookup, suggest, autocomplete, validate: small JSON), so that one that breaks off half
// way is answered 503 and not counted, instead of reaching the caller cut short under a 200
// it would take for a whole answer; lookups also go to the cache from it. Agents' answers
// that say which tool calls failed (JSON, as the worker answers; an event stream is passed
// through as it comes); error answers that are not in the spec's shape, to be replaced.
func holdsAnswer(d *gateway.Decision, settle bool, status int, hdr http.Header) bool {
	return d.Route.Data() ||
		settle && status >= 200 && status <= 299 && isJSON(hdr) ||
		foreignError(d, status, hdr)
}

// proxyFailed settles and, where it still can, answers a call whose proxying ended in an
// error: an answer broken off half way through being passed on, a caller that left, a
// later handler's client error, or no worker answering.
func (h *Handler) proxyFailed(ctx context.Context, w http.ResponseWriter, r *http.Request, d *gateway.Decision, rec caddyhttp.ResponseRecorder, err error) {
	if status := rec.Status(); status != 0 && !rec.Buffered() {
		// The answer broke off half way through being passed on (an event stream of the
		// agent interface, a public document); nothing more can be sent.
		h.gw.Finish(ctx, d, http.StatusBadGateway)
		// Not the error text: a transport error may quote the request URL, and with it the
		// query.
		h.ops.Warn("upstream answer interrupted", "route", d.Route.String(), "status", status)
		if errors.Is(err, errAborted) {
			// The caller must see that the answer broke off, not take what came for all of it.
			panic(http.ErrAbortHandler)
		}
		return
	}
	if ctx.Err() != nil {
		h.gw.Finish(ctx, d, 499)
		return // the caller left; nobody reads an answer
	}
	h.answerInstead(ctx, w, r, d, h.refusalFor(d, err))
}

// refusalFor is the answer to a proxying error with nothing of the answer sent yet.
func (h *Handler) refusalFor(d *gateway.Decision, err error) *apierr.Error {
	var he caddyhttp.HandlerError
	if errors.As(err, &he) && he.StatusCode >= 400 && he.StatusCode < 500 {
		// A client error raised by a handler of the site after this one: answered here in
		// the spec's shape rather than returned, for Caddy's error log would print the
		// request as it arrived, query and all.
		return apierr.ForStatus(he.StatusCode)
	}
	// Only the status, for the reason above.
	h.ops.Warn("no worker answered", "route", d.Route.String(), "status", he.StatusCode)
	return apierr.Unavailable()
}

// finalizeResponse settles a call the next handler answered. A held answer that is an error
// not in the spec's shape is replaced; a held answer of success goes to the answer cache and
// settles the charges that depend on it before it goes out; the call is then counted or not
// by the status sent.
func (h *Handler) finalizeResponse(ctx context.Context, w http.ResponseWriter, r *http.Request, d *gateway.Decision, rec caddyhttp.ResponseRecorder, settle bool) {
	status := rec.Status()
	if rec.Buffered() {
		if foreignError(d, status, w.Header()) {
			// Every error answer carries the spec's ErrorResponse; a page of the worker's
			// server or of a proxy between (500 text/html, 502 text/plain) does not. Its
			// status decides the code; a 502 or 504 becomes 503, on which callers fail open.
			h.ops.Warn("upstream error answer replaced", "route", d.Route.String(), "status", status)
			h.answerInstead(ctx, w, r, d, apierr.ForStatus(status))
			return
		}
		if status == http.StatusOK {
			h.gw.Store(d, w.Header(), rec.Buffer().Bytes())
		}
		if settle && status >= 200 && status <= 299 {
			h.gw.Settle(ctx, d, rec.Buffer().Bytes())
		}
		if err := rec.WriteResponse(); err != nil {
			h.gw.Finish(ctx, d, http.StatusBadGateway)
			return
		}
	}
	if status == 0 {
		status = http.StatusOK
	}
	h.gw.Finish(ctx, d, status)
}

// answerInstead answers e in place of what came from the worker or a later handler, settling
// the call as refused. A failed attempt may have left the worker's headers on w; those that
// describe its body do not describe this one. A /health that no worker answered gets the
// health body of a register that is down; tool calls that no worker answered get tool
// results that say so (see gateway.Recaster).
func (h *Handler) answerInstead(ctx context.Context, w http.ResponseWriter, r *http.Request, d *gateway.Decision, e *apierr.Error) {
	h.gw.Finish(ctx, d, e.Status)
	if d.Body != nil {
		e = h.gw.Recast(r, d, e)
	}
	hdr := w.Header()
	for _, k := range bodyHeaders {
		hdr.Del(k)
	}
	if d.Health {
		gateway.WriteHealthDown(w, time.Now())
		return
	}
	apierr.Write(w, e)
}

// bodyHeaders describe a body; apierr.Write sets its own Content-Type and Content-Length.
var bodyHeaders = []string{gateway.CacheHeader, versions.Header, "Content-Encoding", "Content-Language",
	"Content-Disposition", "ETag", "Last-Modified"}

func isJSON(h http.Header) bool { return strings.HasPrefix(h.Get("Content-Type"), "application/json") }

// foreignError reports whether an error answer is not in the spec's shape. The agent
// interface's client errors are exempt: the MCP transport answers its faults (a missing
// Accept header, a wrong Content-Type, GET on /mcp) in plain text, as openapi.json
// documents and MCP clients expect. Its server errors are all replaced, JSON or not: tool
// calls that no worker served are answered with tool results that say so (see
// gateway.Recaster), whatever the worker's server or a proxy between wrote.
func foreignError(d *gateway.Decision, status int, h http.Header) bool {
	switch {
	case status < 400:
		return false
	case d.Route == gateway.RouteAgent:
		return status >= 500
	}
	return !isJSON(h)
}

// errAborted stands for reverse_proxy's panic(http.ErrAbortHandler), with which it ends a
// worker's answer that broke off after its headers (the deadline passed during the body, the
// worker died). It is caught so that the call is settled (not counted) and, when nothing of
// the answer has reached the caller yet (a data answer, held back until whole), answered 503.
var errAborted = errors.New("upstream answer broke off")

func serveNext(next caddyhttp.Handler, w http.ResponseWriter, r *http.Request) (err error) {
	defer func() {
		if v := recover(); v != nil {
			if v != http.ErrAbortHandler {
				panic(v)
			}
			err = errAborted
		}
	}()
	return next.ServeHTTP(w, r)
}
