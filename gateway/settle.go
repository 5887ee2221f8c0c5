package gateway

import (
	"context"
	"net/http"
)

// Finish settles a decided request once the answer's status is known: a call that did
// not get a successful answer is not counted; one that did goes into its account's
// activity (see record). A request is settled once: a later Finish or Refuse of the same
// decision does nothing, so that no call is recorded or refunded twice.
func (g *Gateway) Finish(ctx context.Context, d *Decision, status int) {
	if d.finished {
		return
	}
	d.finished = true
	if status < 200 || status > 299 {
		g.refund(ctx, d)
		return
	}
	g.record(d)
}

// record notes an answered call of a principal for the dashboard: its credential, route
// and the verifications it counted in the end (after Settle; none for a test key, a HEAD
// or a later call of a session). Calls without a principal (public documents, preflights)
// belong to no account.
func (g *Gateway) record(d *Decision) {
	if p := d.Principal; p != nil {
		g.Meter.Record(p.Account, p.ID, d.Route.String(), d.Charged())
	}
}

func (g *Gateway) refund(ctx context.Context, d *Decision) {
	for _, c := range d.receipts {
		g.Meter.Refund(ctx, c.r)
	}
	d.receipts = nil
}

// Settle gives back the charges of a successful answer that the answer shows were not
// served: a tool call that ended in a tool error (bad arguments, register unavailable) is
// not counted, as a REST call answered 422 or 503 is not, and neither are the addresses of a
// batch that were never checked. Call it with the body of a 2xx answer when WantsAnswer;
// Finish still follows.
func (g *Gateway) Settle(ctx context.Context, d *Decision, answer []byte) {
	if !d.WantsAnswer() {
		return
	}
	for _, x := range g.Extensions {
		s, ok := x.(Settler)
		if !ok {
			continue
		}
		for _, u := range s.Unserved(d, answer) {
			g.settle(ctx, d, u)
		}
	}
}

// settle gives back the charges of u: whole, or the units beyond those served, the rest
// staying for Finish.
func (g *Gateway) settle(ctx context.Context, d *Decision, u Unserved) {
	kept := d.receipts[:0]
	for _, c := range d.receipts {
		switch {
		case c.tag != u.Tag:
		case u.Served <= 0:
			g.Meter.Refund(ctx, c.r)
			continue
		case u.Served < c.r.Units:
			if part, ok := c.r.Part(c.r.Units - u.Served); ok {
				g.Meter.Refund(ctx, part)
				c.r.Units = u.Served
			}
		}
		kept = append(kept, c)
	}
	d.receipts = kept
}

// Refuse settles a request the gateway refused after Decide (a body it could not pass on):
// the same as Finish with a failure.
func (g *Gateway) Refuse(ctx context.Context, d *Decision) { g.Finish(ctx, d, http.StatusBadGateway) }
