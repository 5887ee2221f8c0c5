package gateway

import (
	"context"
	"net/http"
	"slices"

	"github.com/adreswijzer/adreswijzer/gateway/apierr"
)

// Principal is who is calling, as far as policy cares.
type Principal struct {
	// Kind names the credential kind: "live", "test", "pk_live", "pk_test", "platform", or
	// the kind an Extension defines (e.g. "agent"). Rate rules are configured per kind.
	Kind string
	// ID is stable per credential, for limits: a key id, or platform and shop.
	ID      string
	Account string
	Plan    string
	Scopes  []string
	// Routes the credential may call.
	Routes Routes
	// Origins a publishable credential may be used from; nil means no browser use.
	Origins []string
	// Publishable credentials need an allowed Origin and a sessionId on every call.
	Publishable bool
	// Browser credentials are made to be used from web pages of any origin: their answers,
	// and refusals, carry CORS headers for the calling origin. A platform's session token is
	// one: the platform's checkout extension runs in the shopper's browser on an origin of
	// the platform's choosing, so no list of origins can be kept, and the token itself,
	// short-lived and signed for one shop, is what is checked; the origin would add nothing.
	// (Secret keys are not: a page that holds one has leaked it.)
	Browser bool
	// Testing credentials are capped per day and never counted.
	Testing bool
	// LimitKey is what the rate is counted under; the client address is added for
	// publishable credentials. Each kind of principal has a namespace of its own: an API
	// key's id as it is ("key_" and hex, so it needs no prefix and costs no allocation per
	// request), "platform:" and "agent:" for the others.
	LimitKey string
	// Uncounted principals are never charged verifications at the gateway (agents, whose
	// tool calls an Extension counts).
	Uncounted bool
}

func (p *Principal) hasScope(s string) bool { return slices.Contains(p.Scopes, s) }

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
