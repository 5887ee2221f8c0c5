package gateway

import (
	"context"
	"errors"
	"time"

	"github.com/adreswijzer/adreswijzer/gateway/apierr"
	"github.com/adreswijzer/adreswijzer/gateway/usage"
)

// quota is the monthly verifications of plan; a plan the policy does not know gets the
// default plan's.
func (g *Gateway) quota(plan string) int64 {
	if q, ok := g.cfg.Plans[plan]; ok {
		return q
	}
	return g.cfg.Plans[g.cfg.DefaultPlan]
}

// Charge counts verifications of a decided request against the account of its principal
// and the plan's quota, for extensions that count what the gateway cannot see (the agent
// extension counts tool calls). c's Account and Quota are taken from d. The charge is
// refunded with the gateway's own when the request is refused or not answered, and, when
// tag is not empty, when a Settler finds in the answer that what tag names was not served.
// Testing principals are never counted: Charge does nothing for them.
func (g *Gateway) Charge(ctx context.Context, d *Decision, c usage.Charge, tag string) *apierr.Error {
	if d.Principal == nil || d.Principal.Testing {
		return nil
	}
	return g.charge(ctx, d, c, tag)
}

// CountDaily counts calls of a decided request against the daily cap of a test key and
// reports whether they fit, how many calls the key has left today (see usage.Meter), and if
// they did not fit, how long until they would. Other credentials have no daily cap (left is
// then -1).
func (g *Gateway) CountDaily(ctx context.Context, d *Decision, calls int) (ok bool, left int, wait time.Duration) {
	if d.Principal == nil || !d.Principal.Testing {
		return true, -1, 0
	}
	return g.Meter.CountDaily(ctx, d.Principal.ID, g.cfg.TestDailyCap, calls)
}

// TestDailyCap is the calls a day of a test key, for the refusals that name it.
func (g *Gateway) TestDailyCap() int { return g.cfg.TestDailyCap }

// countsCalls reports whether an extension counts the calls of route itself.
func (g *Gateway) countsCalls(route Route) bool {
	for _, x := range g.Extensions {
		if c, ok := x.(CallCounter); ok && c.CountsCalls(route) {
			return true
		}
	}
	return false
}

func (g *Gateway) charge(ctx context.Context, d *Decision, c usage.Charge, tag string) *apierr.Error {
	c.Account, c.Quota = d.Principal.Account, g.quota(d.Principal.Plan)
	rec, err := g.Meter.Charge(ctx, c)
	switch {
	case errors.Is(err, usage.ErrQuota):
		return apierr.QuotaExceeded(g.cfg.UpgradeURL)
	case err != nil:
		if ctx.Err() != nil {
			return apierr.Unavailable()
		}
		// The meter counts on what it knows when its stores are away, so this is a fault of
		// its own. A checkout must not stop for that: serve, uncounted, and say so.
		g.ops.Error("usage not counted", "route", d.Route.String(), "error", err)
		return nil
	}
	if d.receipts == nil {
		d.receipts = d.own.receipts[:0]
	}
	d.receipts = append(d.receipts, charge{tag: tag, r: rec})
	return nil
}
