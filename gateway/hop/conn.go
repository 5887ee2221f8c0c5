package hop

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"syscall"
	"time"
)

// errNoAnswer is a connection that ended before a byte of the answer came: on a reused
// connection, most likely one the worker closed while it was idle.
var errNoAnswer = errors.New("hop: connection closed before an answer")

// aLongTimeAgo is a deadline that has passed: setting it wakes a blocked read or write.
var aLongTimeAgo = time.Unix(1, 0)

// conn is one connection to a worker, used by one request at a time.
type conn struct {
	t         *Transport
	host      string
	nc        net.Conn
	br        *bufio.Reader
	bw        *bufio.Writer
	reused    bool
	idleSince time.Time
}

func newConn(t *Transport, host string, nc net.Conn) *conn {
	return &conn{t: t, host: host, nc: nc, br: bufio.NewReaderSize(nc, 8<<10), bw: bufio.NewWriterSize(nc, 4<<10)}
}

// roundTrip writes req and reads its answer's headers, in phases: the deadlines set, the
// request written, the answer's headers read, and the body handed over, which gives the
// connection back once read whole.
func (c *conn) roundTrip(req *http.Request, headerTimeout time.Duration) (*http.Response, error) {
	ctx := req.Context()
	// A caller that leaves, or a deadline that passes, interrupts the I/O under way.
	stop := context.AfterFunc(ctx, func() { c.nc.SetDeadline(aLongTimeAgo) })
	ctxDeadline, _ := ctx.Deadline()
	headerDeadline := ctxDeadline
	if headerTimeout > 0 {
		if d := time.Now().Add(headerTimeout); ctxDeadline.IsZero() || d.Before(ctxDeadline) {
			headerDeadline = d
		}
	}
	if err := c.nc.SetDeadline(headerDeadline); err != nil {
		return nil, c.fail(ctx, stop, fmt.Errorf("hop: set deadline: %w", err))
	}
	if err := c.write(req); err != nil {
		return nil, c.fail(ctx, stop, err)
	}
	resp, err := c.readHeaders(req, headerTimeout)
	if err != nil {
		return nil, c.fail(ctx, stop, err)
	}
	if !headerDeadline.Equal(ctxDeadline) {
		// The body may take until the request's own deadline.
		if err := c.nc.SetDeadline(ctxDeadline); err != nil {
			resp.Body.Close()
			return nil, c.fail(ctx, stop, fmt.Errorf("hop: set deadline: %w", err))
		}
	}
	resp.Body = &body{c: c, rc: resp.Body, stop: stop, keep: !resp.Close && !req.Close}
	return resp, nil
}

// write sends req in HTTP/1.1 wire format. A connection the worker closed while idle
// fails here or on the first read; either way the worker never saw the request.
func (c *conn) write(req *http.Request) error {
	err := req.Write(c.bw)
	if err == nil {
		err = c.bw.Flush()
	}
	if err != nil {
		if c.reused && closedByPeer(err) {
			return fmt.Errorf("%w: %w", errNoAnswer, err)
		}
		return fmt.Errorf("hop: send request: %w", err)
	}
	return nil
}

// readHeaders reads the answer's status line and headers, passing over interim (1xx)
// answers.
func (c *conn) readHeaders(req *http.Request, headerTimeout time.Duration) (*http.Response, error) {
	if _, err := c.br.Peek(1); err != nil {
		switch {
		case closedByPeer(err):
			return nil, fmt.Errorf("%w: %w", errNoAnswer, err)
		case errors.Is(err, os.ErrDeadlineExceeded) && req.Context().Err() == nil:
			return nil, fmt.Errorf("hop: no answer within %v", headerTimeout)
		}
		return nil, fmt.Errorf("hop: read answer: %w", err)
	}
	for {
		resp, err := http.ReadResponse(c.br, req)
		if err != nil {
			return nil, fmt.Errorf("hop: read answer: %w", err)
		}
		if resp.StatusCode >= 200 || resp.StatusCode == http.StatusSwitchingProtocols {
			return resp, nil
		}
	}
}

// fail closes the connection after a failed exchange and says why it failed: the
// caller's context first, for a caller that left or ran out of time is not the worker's
// failure.
func (c *conn) fail(ctx context.Context, stop func() bool, err error) error {
	stop()
	c.nc.Close()
	if ctx.Err() != nil {
		return fmt.Errorf("hop: %w", context.Cause(ctx))
	}
	return err
}

// closedByPeer reports whether err is the other end having closed the connection.
func closedByPeer(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// body is an answer's body read from the connection; once read whole, it gives the
// connection back for the next request.
type body struct {
	c    *conn
	rc   io.ReadCloser
	stop func() bool
	keep bool
	done bool
}

func (b *body) Read(p []byte) (int, error) {
	if b.done {
		return 0, io.EOF
	}
	n, err := b.rc.Read(p)
	switch {
	case err == io.EOF:
		b.finish(true)
	case err != nil:
		if b.finish(false) {
			err = fmt.Errorf("hop: answer interrupted: %w", err)
		}
	}
	return n, err
}

// Close gives the connection back if the body was read whole, and closes it otherwise.
func (b *body) Close() error {
	if !b.done {
		b.finish(b.rc == http.NoBody)
	}
	return nil
}

// finish ends the exchange: the connection goes back to the pool when the answer was read
// whole, may be kept, and was not interrupted; otherwise it is closed. It reports whether
// the caller's context interrupted the exchange.
func (b *body) finish(whole bool) (interrupted bool) {
	b.done = true
	interrupted = !b.stop()
	if whole && b.keep && !interrupted && b.c.br.Buffered() == 0 {
		b.c.t.put(b.c)
		return false
	}
	b.c.nc.Close()
	return interrupted
}
