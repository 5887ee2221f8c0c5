package codehost

import (
	"errors"
	"net/url"
	"strconv"
	"strings"

	"golang.org/x/oauth2"
)

// The kinds of failure, one page each for the person signing in.
var (
	// ErrStateMismatch: the callback does not belong to the sign-in this session began
	// (forged, replayed, expired or from another browser). Start again.
	ErrStateMismatch = errors.New("state refused")
	// ErrDenied: the person refused access at the provider.
	ErrDenied = errors.New("refused at the provider")
	// ErrUnverifiedEmail: the account has no verified e-mail address we could use.
	ErrUnverifiedEmail = errors.New("no verified e-mail address")
	// ErrProviderDown: the provider could not be reached or failed (network error,
	// timeout, 5xx, rate limit). Try again later, or sign in by e-mail.
	ErrProviderDown = errors.New("provider unavailable")
	// ErrExchange: the provider refused to finish the sign-in (the code, the PKCE
	// verifier, the client or the token was refused) or its ID token did not verify.
	// Start again.
	ErrExchange = errors.New("sign-in refused by the provider")
)

// Error is a failed sign-in. Its text is safe to log: it never holds an e-mail address, a
// code, a token or a secret.
type Error struct {
	// Provider is the Name of the provider.
	Provider string
	// Kind is one of the Err values of this package.
	Kind error
	// Reason says which step failed.
	Reason string
	// Err is the underlying network or verification error, or nil.
	Err error
}

func (e *Error) Error() string {
	s := e.Provider + " sign-in: " + e.Kind.Error() + ": " + e.Reason
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap gives errors.Is the Kind and the underlying error.
func (e *Error) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Err}
}

// fail builds an *Error.
func fail(provider string, kind error, reason string, err error) *Error {
	return &Error{Provider: provider, Kind: kind, Reason: reason, Err: err}
}

// exchangeError sorts a failed token request: the provider's refusal (an OAuth error code,
// which may come with status 200 from GitHub) from its being down. The provider's error
// description and body are left out: they may repeat the code.
func exchangeError(provider string, err error) *Error {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		status := 0
		if re.Response != nil {
			status = re.Response.StatusCode
		}
		if status >= 500 || status == 429 {
			return fail(provider, ErrProviderDown, "token endpoint answered "+strconv.Itoa(status), nil)
		}
		return fail(provider, ErrExchange, "token endpoint refused the code ("+errorCode(re.ErrorCode)+")", nil)
	}
	return networkError(provider, "exchange the code", err)
}

// networkError is a call that got no usable answer. Only a *url.Error is kept as the
// cause: it names the method, the URL (which never holds a secret here) and the network
// failure; other errors may quote the answer.
func networkError(provider, step string, err error) *Error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return fail(provider, ErrProviderDown, step, ue)
	}
	return fail(provider, ErrProviderDown, step+": unreadable answer", nil)
}

// callbackError sorts the error parameter of an authorization callback (RFC 6749 4.1.2.1).
func callbackError(provider, code string) *Error {
	switch code {
	case "access_denied":
		return fail(provider, ErrDenied, "the person refused access", nil)
	case "server_error", "temporarily_unavailable":
		return fail(provider, ErrProviderDown, "authorization failed ("+code+")", nil)
	default:
		return fail(provider, ErrExchange, "authorization refused ("+errorCode(code)+")", nil)
	}
}

// errorCode keeps an OAuth error code printable and short before it reaches a log; codes
// are plain ASCII words by RFC 6749, anything else is the provider's prose.
func errorCode(code string) string {
	const maxLen = 40
	if code == "" {
		return "no error code"
	}
	if len(code) > maxLen || strings.IndexFunc(code, func(r rune) bool {
		return !(r == '_' || r == '-' || r == '.' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9')
	}) >= 0 {
		return "unreadable error code"
	}
	return code
}
