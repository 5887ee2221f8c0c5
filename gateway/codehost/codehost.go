// Package codehost signs people in with a code-hosting account: GitHub over OAuth 2.0 and
// GitLab over OpenID Connect, both as authorization-code flows with state and PKCE (S256).
// What it returns is the account's verified e-mail address, so an account found by e-mail
// and one found through a code host are the same account.
//
// The flow has two halves around a browser redirect:
//
//	p, err := provider.Begin(ctx, callbackURL) // keep p in the person's server-side session
//	http.Redirect(w, r, p.URL, http.StatusSeeOther)
//	...
//	id, err := provider.Complete(ctx, p, r.URL.Query()) // on the callback; then drop p
//
// Every failure is an *Error whose Kind is one of the Err values below, so a caller can show
// a page that says what to do; error strings never hold an e-mail address, a code, a token
// or a secret.
package codehost

import (
	"context"
	"net/url"
	"time"
)

// Provider is one code host people can sign in with.
type Provider interface {
	// Name is the short, stable name: "github" or "gitlab".
	Name() string
	// Label is what the sign-in button says ("GitHub").
	Label() string
	// Begin starts a sign-in that comes back to redirectURL; the caller keeps the
	// Pending and sends the browser to its URL.
	Begin(ctx context.Context, redirectURL string) (Pending, error)
	// Complete finishes the sign-in from the callback's query with the Pending that
	// Begin returned, and returns who signed in.
	Complete(ctx context.Context, p Pending, callback url.Values) (Identity, error)
}

// Pending is a begun sign-in, kept server-side between Begin and Complete. Its fields are
// plain values so a session store can encode it as JSON or gob (gob needs
// gob.Register(Pending{}) when it is kept in a map of any).
type Pending struct {
	// Provider is the Name of the provider that began it.
	Provider string
	// State ties the callback to this browser session.
	State string
	// Verifier is the PKCE code verifier; only its S256 challenge left this server.
	Verifier string
	// Nonce ties an OpenID Connect ID token to this sign-in (GitLab only).
	Nonce string
	// RedirectURL is the callback URL the provider was told; the token request repeats it.
	RedirectURL string
	// Expires is when Complete stops accepting it.
	Expires time.Time
	// URL is the provider's authorization page to send the browser to; keeping it is harmless.
	URL string
}

// Identity is who signed in.
type Identity struct {
	// Provider is the Name of the provider.
	Provider string
	// Subject is the provider's stable id of the account (GitHub's numeric user id,
	// GitLab's sub claim).
	Subject string
	// Email is the account's verified e-mail address, lower-cased.
	Email string
	// Name is the display name, or the user name when the account has none; it may be empty.
	Name string
}

// pendingTTL bounds how long a person may take at the provider; GitHub's codes live ten
// minutes too.
const pendingTTL = 10 * time.Minute

// defaultTimeout bounds every call to a provider when the configuration names none.
const defaultTimeout = 10 * time.Second
