// Package accounts holds the people who use the service: their accounts, the code-hosting
// identities they sign in with, the one-time links of e-mail sign-in, and each account's
// plan. Keys, usage and limits name an account by its id only; the e-mail address lives here
// and nowhere else on the gateway's side.
//
// An account is found by its e-mail address, so that signing in by e-mail and with a
// code-hosting account whose verified address is the same reach the same account.
package accounts

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/mail"
	"strings"
	"time"
)

// Errors of a Store.
var (
	// ErrNotFound: no account (or identity) with this id, address or subject.
	ErrNotFound = errors.New("account not found")
	// ErrExists: an account with this e-mail address, or this identity, exists already.
	ErrExists = errors.New("account exists")
	// ErrLinkInvalid: a sign-in link that is unknown, used or expired. One error for the
	// three, so that the answer says nothing of which it was.
	ErrLinkInvalid = errors.New("sign-in link unknown, used or expired")
)

// Account is one customer of the service.
type Account struct {
	// ID names the account in keys, usage, limits and tokens: "acct_" and 16 hex digits.
	ID string `json:"id"`
	// Email is the address the account signs in with, lower-cased (see NormaliseEmail).
	Email string `json:"email"`
	// Plan decides the monthly quota; an operator changes it (no payment runs here).
	Plan string `json:"plan"`
	// Language of the dashboard and of mails: "nl" or "en".
	Language string    `json:"language,omitempty"`
	Created  time.Time `json:"created"`
	// SignedOut voids every dashboard session that began before it: "sign out everywhere".
	SignedOut time.Time `json:"signedOut,omitzero"`
}

// Identity is an account at a code-hosting service that signs in to an account here.
type Identity struct {
	Provider string    `json:"provider"` // "github", "gitlab"
	Subject  string    `json:"subject"`  // the provider's stable user id
	Account  string    `json:"account"`
	Created  time.Time `json:"created"`
}

// Link is what is stored of a one-time e-mail sign-in link: the hash of its token, never
// the token, so that reading the store does not let anyone sign in.
type Link struct {
	Hash    Hash      `json:"hash"`
	Email   string    `json:"email"`
	Expires time.Time `json:"expires"`
}

// LinkLifetime is how long a sign-in link works.
const LinkLifetime = 15 * time.Minute

// Store keeps accounts. FileStore is the embedded default; the gateway's Postgres package
// provides one for deployments with several gateways. Both pass accountstest.Run.
type Store interface {
	// Get finds an account by id.
	Get(ctx context.Context, id string) (*Account, error)
	// ByEmail finds an account by its (normalised) address.
	ByEmail(ctx context.Context, email string) (*Account, error)
	// ByIdentity finds the account an identity signs in to.
	ByIdentity(ctx context.Context, provider, subject string) (*Account, error)
	// List returns every account, oldest first, for operators.
	List(ctx context.Context) ([]*Account, error)
	// Create adds an account, or returns ErrExists when its address has one.
	Create(ctx context.Context, a *Account) error
	// AddIdentity links an identity to its account, or returns ErrExists when it is linked.
	AddIdentity(ctx context.Context, id Identity) error
	// SetPlan changes an account's plan.
	SetPlan(ctx context.Context, id, plan string) error
	// SetLanguage changes an account's language.
	SetLanguage(ctx context.Context, id, lang string) error
	// SignOut voids the account's sessions begun before at.
	SignOut(ctx context.Context, id string, at time.Time) error
	// Delete removes an account and its identities.
	Delete(ctx context.Context, id string) error
	// AddLink stores a sign-in link; expired links may be dropped at the same time.
	AddLink(ctx context.Context, l Link) error
	// UseLink spends a link once and returns its address, or ErrLinkInvalid. Two uses at
	// once: one wins.
	UseLink(ctx context.Context, h Hash, now time.Time) (string, error)
}

// NewID makes an account id.
func NewID() (string, error) {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("account id: %w", err)
	}
	return "acct_" + hex.EncodeToString(b), nil
}

// maxEmail is the longest address SMTP carries (RFC 5321's path limit less the brackets).
const maxEmail = 254

// ErrBadEmail: not an address a sign-in mail can be sent to.
var ErrBadEmail = errors.New("not an e-mail address")

// NormaliseEmail checks an address as typed and brings it to the form accounts are found
// by: trimmed and lower-cased. Lower-casing the local part is what every large mail
// provider does in effect, and one person must not get two accounts by a capital letter.
func NormaliseEmail(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > maxEmail || strings.ContainsAny(s, " <>\"\r\n") {
		return "", ErrBadEmail
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Name != "" || a.Address != s {
		return "", ErrBadEmail
	}
	local, domain, ok := strings.Cut(s, "@")
	if !ok || local == "" || !strings.Contains(domain, ".") || strings.HasSuffix(domain, ".") {
		return "", ErrBadEmail
	}
	return strings.ToLower(s), nil
}

// Hash identifies a sign-in link by its token.
type Hash [sha256.Size]byte

// HashToken hashes a link's token.
func HashToken(token string) Hash { return sha256.Sum256([]byte(token)) }

// Equal compares in constant time.
func (h Hash) Equal(o Hash) bool { return subtle.ConstantTimeCompare(h[:], o[:]) == 1 }

// MarshalText writes the hash in hex, for the file store.
func (h Hash) MarshalText() ([]byte, error) { return []byte(hex.EncodeToString(h[:])), nil }

// UnmarshalText reads a hex hash.
func (h *Hash) UnmarshalText(b []byte) error {
	if hex.DecodedLen(len(b)) != len(h) {
		return errors.New("link hash must be 64 hex digits")
	}
	_, err := hex.Decode(h[:], b)
	return err
}

// NewLink makes a sign-in link for an address: the token to send, once, and what to store.
// The token is 256 random bits, so its hash needs no slow password hashing.
func NewLink(email string, now time.Time) (token string, l Link, err error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", Link{}, fmt.Errorf("sign-in link: %w", err)
	}
	token = base64.RawURLEncoding.EncodeToString(b)
	return token, Link{Hash: HashToken(token), Email: email, Expires: now.Add(LinkLifetime).UTC()}, nil
}

// Open finds the account of an address, creating it on the first sign-in with the plan
// given. Two first sign-ins at once reach the same account.
func Open(ctx context.Context, s Store, email, plan, lang string, now time.Time) (a *Account, created bool, err error) {
	a, err = s.ByEmail(ctx, email)
	if !errors.Is(err, ErrNotFound) {
		return a, false, err
	}
	id, err := NewID()
	if err != nil {
		return nil, false, err
	}
	a = &Account{ID: id, Email: email, Plan: plan, Language: lang, Created: now.UTC().Truncate(time.Second)}
	switch err := s.Create(ctx, a); {
	case errors.Is(err, ErrExists):
		a, err = s.ByEmail(ctx, email)
		return a, false, err
	case err != nil:
		return nil, false, err
	}
	return a, true, nil
}

// ValidLanguage reports whether the dashboard speaks lang.
func ValidLanguage(lang string) bool { return lang == "nl" || lang == "en" }
