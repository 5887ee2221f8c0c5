package codehost

import (
	"crypto/rand"
	"crypto/subtle"
	"errors"
	"net/url"
	"time"

	"golang.org/x/oauth2"
)

// newPending draws the secrets of one sign-in: a state, a PKCE verifier and, for OpenID
// Connect, a nonce.
func newPending(provider, redirectURL string, withNonce bool) (Pending, error) {
	if err := checkRedirectURL(redirectURL); err != nil {
		return Pending{}, err
	}
	p := Pending{
		Provider:    provider,
		State:       rand.Text(),
		Verifier:    oauth2.GenerateVerifier(),
		RedirectURL: redirectURL,
		Expires:     time.Now().Add(pendingTTL),
	}
	if withNonce {
		p.Nonce = rand.Text()
	}
	return p, nil
}

// checkRedirectURL refuses a callback URL a provider would refuse anyway, before the
// person is sent there.
func checkRedirectURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.Fragment != "" {
		return errors.New("codehost: the redirect URL must be an absolute http(s) URL without a fragment")
	}
	return nil
}

// checkCallback accepts a callback only for the sign-in p began, and returns its code.
// The state is compared in constant time and before anything else the callback says, so
// a forged callback learns nothing.
func checkCallback(provider string, p Pending, q url.Values) (string, error) {
	switch {
	case p.Provider != provider:
		return "", fail(provider, ErrStateMismatch, "the sign-in was begun with another provider", nil)
	case p.State == "" || subtle.ConstantTimeCompare([]byte(p.State), []byte(q.Get("state"))) != 1:
		return "", fail(provider, ErrStateMismatch, "the callback's state is not the one sent", nil)
	case time.Now().After(p.Expires):
		return "", fail(provider, ErrStateMismatch, "the sign-in attempt expired", nil)
	case q.Get("error") != "":
		return "", callbackError(provider, q.Get("error"))
	case q.Get("code") == "":
		return "", fail(provider, ErrExchange, "the callback holds no code", nil)
	}
	return q.Get("code"), nil
}
