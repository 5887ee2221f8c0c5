package apierr

import (
	"net/http"
	"time"

	"github.com/adreswijzer/adreswijzer"
)

// The texts of every refusal, in English, in one place so that the localised texts of
// worker/messages can replace them without touching the policy. None of them names a value
// the caller sent: a message may end up in a client's log next to the customer's address.

const failOpen = "Accept the address as typed and validate it again later."

// Unauthorized: no credential, or one we do not know, or one revoked or expired.
func Unauthorized() *Error {
	return &Error{Status: http.StatusUnauthorized, Code: adreswijzer.ErrUnauthorized,
		Message:  "A valid credential is required.",
		NextStep: "Send the credential as 'Authorization: Bearer <credential>'."}
}

// CredentialInURL: a credential in the query string or the URL user info. URLs end up in
// proxy and browser logs, so such a credential must be treated as leaked.
func CredentialInURL() *Error {
	return &Error{Status: http.StatusUnauthorized, Code: adreswijzer.ErrUnauthorized,
		Message:  "Credentials are not accepted in the URL.",
		NextStep: "Send the credential only in the Authorization header, and replace it: a credential sent in a URL must be treated as exposed."}
}

// MissingScope: the credential is valid but may not verify addresses.
func MissingScope() *Error {
	return &Error{Status: http.StatusForbidden, Code: adreswijzer.ErrForbidden,
		Message:  "This credential lacks the scope address:verify.",
		NextStep: "Use a key with the scope address:verify."}
}

// RouteNotAllowed: the credential kind may not call this endpoint (a publishable key on
// autocomplete, a platform token outside checkout routes).
func RouteNotAllowed() *Error {
	return &Error{Status: http.StatusForbidden, Code: adreswijzer.ErrForbidden,
		Message:  "This kind of credential may not call this endpoint.",
		NextStep: "Call this endpoint from your server with a secret API key."}
}

// ForeignOrigin: a publishable key used from a page its owner did not allow.
func ForeignOrigin() *Error {
	return &Error{Status: http.StatusForbidden, Code: adreswijzer.ErrForbidden,
		Message:  "This publishable key is not allowed from this origin.",
		NextStep: "Add the page's origin to the key's allowed origins."}
}

// NotFound: a path the service does not have.
func NotFound() *Error {
	return &Error{Status: http.StatusNotFound, Code: adreswijzer.ErrNotFound,
		Message: "No such endpoint."}
}

// MethodNotAllowed: a path the service has, with a method it does not take there. The code
// stays NOT_FOUND, the spec's code for a call to something that is not there; the message
// names the methods, as the Allow header does.
func MethodNotAllowed(allow string) *Error {
	return &Error{Status: http.StatusMethodNotAllowed, Code: adreswijzer.ErrNotFound,
		Message:  "This endpoint does not take this method; it takes " + allow + ".",
		NextStep: "Send the request with one of the methods in the Allow header.", Allow: allow}
}

// TooLarge: a body over the limit.
func TooLarge() *Error {
	return &Error{Status: http.StatusRequestEntityTooLarge, Code: adreswijzer.ErrPayloadTooLarge,
		Message:  "The request body is larger than 64 KB.",
		NextStep: "Send one address per request."}
}

// TooLargeAgent: a request to the agent interface over its limit, which a batch of 100
// addresses is far below.
func TooLargeAgent() *Error {
	return &Error{Status: http.StatusRequestEntityTooLarge, Code: adreswijzer.ErrPayloadTooLarge,
		Message:  "The request body is larger than 1 MB.",
		NextStep: "Send at most 100 addresses per verify_addresses_batch call."}
}

// ForeignHost: a request to the agent interface under a name or from a page the service
// does not serve it for. A page on another site that makes a browser call a local gateway
// (DNS rebinding) looks like this.
func ForeignHost() *Error {
	return &Error{Status: http.StatusForbidden, Code: adreswijzer.ErrForbidden,
		Message:  "The agent interface is not served for this host or origin.",
		NextStep: "Call the agent interface at its published address, from an agent rather than a web page."}
}

// InsufficientScope: a valid agent token without the scope address:verify.
func InsufficientScope(challenge string) *Error {
	return &Error{Status: http.StatusForbidden, Code: adreswijzer.ErrForbidden,
		Message:   "This token lacks the scope address:verify.",
		NextStep:  "Sign in again and grant the scope address:verify.",
		Challenge: challenge}
}

// SessionRequired: a publishable key without a usable sessionId.
func SessionRequired() *Error {
	return &Error{Status: http.StatusUnprocessableEntity, Code: adreswijzer.ErrValidationFailed,
		Message:  "The field sessionId is required with a publishable key.",
		NextStep: "Send a sessionId of 1 to 64 letters, digits or the characters _ . : - for each address being entered."}
}

// BadSessionID: a sessionId that does not match the spec's pattern.
func BadSessionID() *Error {
	return &Error{Status: http.StatusUnprocessableEntity, Code: adreswijzer.ErrValidationFailed,
		Message:  "The field sessionId is malformed.",
		NextStep: "Send a sessionId of 1 to 64 letters, digits or the characters _ . : -."}
}

// BadBody: a POST body that is not JSON (the worker answers the same).
func BadBody() *Error {
	return &Error{Status: http.StatusBadRequest, Code: adreswijzer.ErrBadRequest,
		Message: "The request body must be a JSON object."}
}

// SlowBody: the request body did not arrive within the request's deadline (headers sent,
// the body trickled or withheld). A bad request rather than 408, which the spec does not
// list: the caller did not send what it announced, and retrying unchanged will not help.
func SlowBody() *Error {
	return &Error{Status: http.StatusBadRequest, Code: adreswijzer.ErrBadRequest,
		Message:  "The request body did not arrive in time.",
		NextStep: "Send the whole body right after the headers, with a Content-Length that matches it."}
}

// RateLimited: too many calls in a short time.
func RateLimited(retry time.Duration) *Error {
	return &Error{Status: http.StatusTooManyRequests, Code: adreswijzer.ErrRateLimited,
		Message:    "Too many requests.",
		NextStep:   "Wait for the number of seconds in Retry-After, then try again.",
		RetryAfter: retry}
}

// DailyCapReached: a test key used its calls for the day.
func DailyCapReached(retry time.Duration) *Error {
	return &Error{Status: http.StatusTooManyRequests, Code: adreswijzer.ErrDailyCapReached,
		Message:    "This test key has used its calls for today.",
		NextStep:   "Wait until the day ends (UTC), or use a live key.",
		RetryAfter: retry}
}

// QuotaExceeded: the account used its verifications for the month.
func QuotaExceeded(upgradeURL string) *Error {
	return &Error{Status: http.StatusTooManyRequests, Code: adreswijzer.ErrQuotaExceeded,
		Message:    "This account has used its verifications for this month.",
		NextStep:   "Upgrade the plan, or accept addresses as typed until the next month.",
		UpgradeURL: upgradeURL}
}

// Internal: our own failure; the caller fails open.
func Internal() *Error {
	return &Error{Status: http.StatusInternalServerError, Code: adreswijzer.ErrInternal,
		Message: "Internal error.", NextStep: failOpen}
}

// Unavailable: no register worker answered in time.
func Unavailable() *Error {
	return &Error{Status: http.StatusServiceUnavailable, Code: adreswijzer.ErrServiceUnavailable,
		Message: "The address register is temporarily unavailable.", NextStep: failOpen}
}

// ForStatus is the refusal of the spec's shape for an error status that came without one (a
// handler of the site, or the upstream, answered with a bare status or a page of its own):
// the one code openapi.json pairs with the status. A status the document does not list
// becomes 400 BAD_REQUEST when it blames the request and 500 INTERNAL_ERROR otherwise;
// 502 and 504, a worker that could not be reached or did not answer, become 503
// SERVICE_UNAVAILABLE, the status on which callers fail open by the spec.
func ForStatus(status int) *Error {
	switch {
	case status == http.StatusUnauthorized:
		return Unauthorized()
	case status == http.StatusNotFound, status == http.StatusMethodNotAllowed:
		e := NotFound()
		e.Status = status
		return e
	case status == http.StatusRequestEntityTooLarge:
		return TooLarge()
	case status == http.StatusForbidden:
		return &Error{Status: status, Code: adreswijzer.ErrForbidden, Message: "This request is not allowed."}
	case status == http.StatusUnprocessableEntity:
		return &Error{Status: status, Code: adreswijzer.ErrValidationFailed,
			Message: "A parameter is missing or malformed."}
	case status == http.StatusTooManyRequests:
		return RateLimited(0)
	case status == http.StatusBadGateway, status == http.StatusServiceUnavailable, status == http.StatusGatewayTimeout:
		return Unavailable()
	case status >= 400 && status < 500:
		return &Error{Status: http.StatusBadRequest, Code: adreswijzer.ErrBadRequest, Message: "The request is malformed."}
	}
	return Internal()
}
