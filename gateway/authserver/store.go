package authserver

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"time"
)

// Errors of a Store.
var (
	// ErrNotFound: no such client, request, code, grant or refresh token, or one that expired
	// or was used. One error for all of them, so that an answer says nothing of which it was.
	ErrNotFound = errors.New("not found, used or expired")
	// ErrReused: a refresh token that was spent already. Someone holds a copy of it: the
	// grant it belongs to is revoked.
	ErrReused = errors.New("refresh token used twice")
)

// Client is an agent registered by dynamic client registration (RFC 7591): a public client,
// which has no secret and proves itself with PKCE.
type Client struct {
	// ID is the client_id: "awc_" and 32 hex digits.
	ID string `json:"id"`
	// Name is the client_name shown on the consent page; empty when none was given.
	Name         string    `json:"name,omitempty"`
	RedirectURIs []string  `json:"redirectUris"`
	GrantTypes   []string  `json:"grantTypes"`
	Created      time.Time `json:"created"`
}

// Refreshes reports whether the client registered the refresh_token grant.
func (c *Client) Refreshes() bool {
	for _, g := range c.GrantTypes {
		if g == grantRefresh {
			return true
		}
	}
	return false
}

// Request is an authorization request waiting for a person's consent on the dashboard.
// Everything the code will be checked against later is kept here, as asked.
type Request struct {
	ID          string    `json:"id"`
	Client      string    `json:"client"`
	RedirectURI string    `json:"redirectUri"`
	State       string    `json:"state,omitempty"`
	Challenge   string    `json:"challenge"` // PKCE, S256 only
	Scope       []string  `json:"scope"`
	Resource    string    `json:"resource"`
	Expires     time.Time `json:"expires"`
}

// Code is an authorization code as stored: its hash, and what it was issued for.
type Code struct {
	Hash    Hash      `json:"hash"`
	Request Request   `json:"request"`
	Account string    `json:"account"`
	Expires time.Time `json:"expires"`
}

// Grant is an account's consent to one client: what the dashboard lists as a connected
// agent, and what every token of that agent names, so that revoking it stops them all.
type Grant struct {
	// ID is "grt_" and 32 hex digits.
	ID       string    `json:"id"`
	Account  string    `json:"account"`
	Client   string    `json:"client"`
	Scope    []string  `json:"scope"`
	Resource string    `json:"resource"`
	Created  time.Time `json:"created"`
	// Revoked is zero while the grant stands.
	Revoked time.Time `json:"revoked,omitzero"`
}

// Active reports whether the grant still stands.
func (g *Grant) Active() bool { return g.Revoked.IsZero() }

// Refresh is a refresh token as stored: its hash, never the token.
type Refresh struct {
	Hash    Hash      `json:"hash"`
	Grant   string    `json:"grant"`
	Expires time.Time `json:"expires"`
	// Spent is set when the token was exchanged; it is kept until it expires, so that a
	// second use is recognised as one.
	Spent bool `json:"spent,omitempty"`
}

// Key is a signing key as stored. Every gateway signs with the same keys, and publishes
// them all in its key set, so any gateway verifies what another issued.
type Key struct {
	// ID is the JWS key id (kid).
	ID string `json:"id"`
	// Private is the ECDSA P-256 key in PKCS #8 DER.
	Private []byte `json:"private"`
	// Active is when the key begins to sign: a new key is published before it is used,
	// so that verifiers holding the old key set have time to fetch the new one.
	Active  time.Time `json:"active"`
	Created time.Time `json:"created"`
}

// Store keeps the authorization server's state. FileStore is the embedded default; the
// gateway's Postgres package provides one for deployments with several gateways. Both pass
// authservertest.Run.
type Store interface {
	// AddClient registers a client.
	AddClient(ctx context.Context, c *Client) error
	// Client finds a client by id, or ErrNotFound.
	Client(ctx context.Context, id string) (*Client, error)

	// AddRequest keeps an authorization request; expired ones may be dropped.
	AddRequest(ctx context.Context, r Request) error
	// Request reads a request that has not expired, or ErrNotFound.
	Request(ctx context.Context, id string, now time.Time) (*Request, error)
	// TakeRequest removes a request and returns it when it had not expired. Two takes at
	// once: one wins.
	TakeRequest(ctx context.Context, id string, now time.Time) (*Request, error)

	// AddCode keeps an authorization code.
	AddCode(ctx context.Context, c Code) error
	// UseCode spends a code once and returns it, or ErrNotFound. Two uses at once: one wins.
	UseCode(ctx context.Context, h Hash, now time.Time) (*Code, error)

	// AddGrant records a consent.
	AddGrant(ctx context.Context, g *Grant) error
	// Grant finds a grant by id, active or revoked, or ErrNotFound.
	Grant(ctx context.Context, id string) (*Grant, error)
	// Grants lists an account's active grants, oldest first.
	Grants(ctx context.Context, account string) ([]*Grant, error)
	// RevokeGrant revokes a grant (once: a later call keeps the first time) and forgets
	// its refresh tokens.
	RevokeGrant(ctx context.Context, id string, at time.Time) error

	// AddRefresh keeps a refresh token; expired ones may be dropped.
	AddRefresh(ctx context.Context, r Refresh) error
	// UseRefresh spends a refresh token and returns its grant. A token spent before gives
	// its grant and ErrReused; an unknown or expired one ErrNotFound. Two uses at once: one
	// wins, the other is a reuse.
	UseRefresh(ctx context.Context, h Hash, now time.Time) (string, error)

	// Keys lists the signing keys, oldest first.
	Keys(ctx context.Context) ([]Key, error)
	// AddKey stores a signing key.
	AddKey(ctx context.Context, k Key) error
	// DeleteKey forgets a signing key that signs no live token any more.
	DeleteKey(ctx context.Context, id string) error
}

// Hash identifies a code or refresh token by its value: SHA-256, enough for 256 random bits,
// so that reading the store does not give anyone a working token.
type Hash [sha256.Size]byte

// HashToken hashes a token.
func HashToken(token string) Hash { return sha256.Sum256([]byte(token)) }

// Equal compares in constant time.
func (h Hash) Equal(o Hash) bool { return subtle.ConstantTimeCompare(h[:], o[:]) == 1 }

// MarshalText writes the hash in hex, for the file store.
func (h Hash) MarshalText() ([]byte, error) { return []byte(hex.EncodeToString(h[:])), nil }

// UnmarshalText reads a hex hash.
func (h *Hash) UnmarshalText(b []byte) error {
	if hex.DecodedLen(len(b)) != len(h) {
		return errors.New("token hash must be 64 hex digits")
	}
	_, err := hex.Decode(h[:], b)
	return err
}

// newToken makes a bearer secret: prefix and 256 random bits.
func newToken(prefix string) (string, Hash, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", Hash{}, fmt.Errorf("new token: %w", err)
	}
	t := prefix + base64.RawURLEncoding.EncodeToString(b)
	return t, HashToken(t), nil
}

// newID makes an identifier: prefix and 128 random bits in hex. Request ids travel in the
// consent page's URL, so they must not be guessable either.
func newID(prefix string) (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("new id: %w", err)
	}
	return prefix + hex.EncodeToString(b), nil
}
