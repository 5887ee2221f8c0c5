package gateway

import (
	"net/http"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/gateway/answercache"
	"github.com/adreswijzer/adreswijzer/gateway/keys"
	"github.com/adreswijzer/adreswijzer/gateway/usage"
)

// Challenges are the WWW-Authenticate values of a route's 401s and of its 403 for a
// credential without the scope.
type Challenges struct {
	// Missing: the request carried no credential the gateway read (none, or one in the URL).
	Missing string
	// Refused: it carried a bearer credential that was refused, an unknown or revoked key:
	// RFC 6750 asks for error="invalid_token" then, so that a client knows to get a new one
	// rather than retry the one it has.
	Refused string
	// Scope: the credential is good but lacks the scope address:verify (RFC 6750's
	// insufficient_scope, with the scope to ask for), sent with the 403.
	Scope string
}

// restChallenges are the challenges of the REST interface (and of routes whose extension
// sets none). The realm names the service; a REST client has no metadata to discover.
var restChallenges = Challenges{
	Missing: `Bearer realm="adreswijzer"`,
	Refused: `Bearer realm="adreswijzer", error="invalid_token"`,
	Scope:   `Bearer realm="adreswijzer", error="insufficient_scope", scope="` + keys.ScopeVerify + `"`,
}

// Decision is the outcome of Decide for a request that may go on.
type Decision struct {
	Route Route
	// Country routes the request to that country's workers; "" means any worker.
	Country adreswijzer.Country
	// Principal is nil for public routes and preflights.
	Principal *Principal
	// Preflight: answer the CORS preflight with WritePreflight; do not proxy.
	Preflight bool
	// Health marks GET /health: when no worker answers it, the gateway answers the spec's
	// health body itself (WriteHealthDown), not an error. (Beside Preflight, so that the two
	// share a word: see maxDecisionSize.)
	Health bool
	// credRefused: a bearer credential was presented and refused; scopeRefused: it lacked
	// the scope (see Challenges).
	credRefused, scopeRefused bool
	// finished: Finish or Refuse settled the request; a second call changes nothing.
	finished bool
	// Origin to allow in CORS headers ("" for none).
	Origin string
	// Cache is set when the answer may come from and go to the answer cache.
	Cache *answercache.Query
	// SessionID the call was counted under ("" for none).
	SessionID string
	// Body is the request body as read (POST), for extensions; the request keeps its own copy.
	Body []byte
	// Answer, set by an extension's Screen, answers the request instead of the workers (a
	// document the gateway serves itself).
	Answer http.Handler
	// Challenge, set by an extension's Screen, gives the WWW-Authenticate of every 401 of
	// this request that does not bring its own (the agent interface points to its OAuth
	// metadata). One value per extension, shared by its requests.
	Challenge *Challenges

	receipts []charge
	// own holds what Principal, Cache and receipts point to on an ordinary call (an API key,
	// a cacheable lookup, one charge), so that deciding it costs one allocation and not four.
	own struct {
		principal Principal
		cache     answercache.Query
		receipts  [1]charge
	}
}

// maxDecisionSize is the most a Decision may take: up to 512 bytes the allocator keeps an
// object's pointer bitmap in its span and takes a cheaper path than for larger ones, and a
// Decision is allocated on every request.
const maxDecisionSize = 512

// charge is one charge of a request; tag says what it was for (see Gateway.Charge).
type charge struct {
	tag string
	r   usage.Receipt
}

// Charged reports the verifications this call counted, for logs and tests: 0 or 1 for a
// REST call, the tool calls' verifications for the agent interface.
func (d *Decision) Charged() int {
	n := 0
	for _, c := range d.receipts {
		n += c.r.Units
	}
	return n
}

// WantsAnswer reports whether Settle needs the body of a successful answer: some charge
// depends on what the answer says.
func (d *Decision) WantsAnswer() bool {
	for _, c := range d.receipts {
		if c.tag != "" {
			return true
		}
	}
	return false
}
