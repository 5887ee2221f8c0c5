package gateway

import "slices"

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
