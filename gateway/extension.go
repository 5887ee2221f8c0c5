package gateway

import (
	"context"
	"net/http"

	"github.com/adreswijzer/adreswijzer/gateway/apierr"
)

// Binder is implemented by an Extension that needs the gateway's parts (the meter to count
// agent tool calls, the limiter for per-tool limits); New calls Bind once.
type Binder interface {
	Bind(g *Gateway)
}

// Extension is where credentials and checks the gateway does not know plug in: the
// agents' OAuth 2.1 tokens (verified against the authorization server's keys) and the
// per-tool agent limits. Extensions run in order.
type Extension interface {
	// Authenticate may claim a credential that is neither an API key nor a platform token.
	// ok false passes it on; a non-nil error refuses the request.
	Authenticate(ctx context.Context, r *http.Request, route Route, credential string) (p *Principal, ok bool, err *apierr.Error)
	// Check runs after the gateway's own checks and charges passed; a refusal here refunds
	// the gateway's charge. Calls on RouteAgent are not charged by the gateway: counting
	// tool calls (a batch counts its items) is the agent extension's job, through
	// Gateway.Charge.
	Check(ctx context.Context, r *http.Request, d *Decision) *apierr.Error
}

// Screener is implemented by an Extension that looks at requests before any credential is:
// it may serve a document itself (set d.Answer: the agent interface's OAuth metadata),
// refuse a request whose Host or Origin it does not serve, and set the challenge of the
// route's 401s (d.Challenge). Screen runs for every request to an existing endpoint.
type Screener interface {
	Screen(r *http.Request, d *Decision) *apierr.Error
}

// CallCounter is implemented by an Extension that counts the calls inside a request to a
// route itself: the agent extension counts a test key's tool calls against its daily cap
// (through Gateway.CountDaily), so that initialize, tools/list and the free tool do not use
// it up. Without one, every request counts as one call.
type CallCounter interface {
	CountsCalls(route Route) bool
}

// Recaster is implemented by an Extension that answers the refusals of its route in a form of
// its own: the agent extension answers refused tool calls (the plan's rate or quota, no
// worker answering) with tool results the agent's model reads, where an HTTP error would
// only tell its host that something failed. Recast gets every refusal of a request whose
// body was read (a POST), from Decide and from the adapter when no worker answered, and
// returns it as it is to be written (e itself when it has nothing to change).
type Recaster interface {
	Recast(r *http.Request, d *Decision, e *apierr.Error) *apierr.Error
}

// Settler is implemented by an Extension whose charges depend on the answer. Unserved reads
// the body of a successful answer and returns what it did not serve, by the tags of the
// charges (see Gateway.Charge); those are given back, whole or in part.
type Settler interface {
	Unserved(d *Decision, answer []byte) []Unserved
}

// Unserved names a charge, by its tag, that an answer did not serve or served only in part.
type Unserved struct {
	Tag string
	// Served is how many of the charge's units the answer served: a batch of which some
	// addresses were never checked. 0 gives the whole charge back.
	Served int
}
