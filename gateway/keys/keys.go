// Package keys holds the API keys of the gateway: their kinds, how a secret is made and
// recognised, and where keys are kept.
//
// Only a SHA-256 hash of each secret is stored. A secret is 256 random bits, so its hash
// cannot be reversed or brute-forced; slow password hashes (bcrypt, argon2) exist to protect
// low-entropy passwords, would cost milliseconds on every request, and would make a lookup by
// hash impossible. The hash covers the whole credential including its prefix, so a secret
// cannot be replayed as another kind of key.
package keys

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Kind of key. The kind decides where a key may be used, its limits and whether its calls
// are counted.
type Kind string

const (
	Live   Kind = "live"    // secret server key, production, counted
	Test   Kind = "test"    // secret server key, free, capped per day, never counted
	PKLive Kind = "pk_live" // publishable key of the embedded form, counted
	PKTest Kind = "pk_test" // publishable key for trying the form, capped, never counted
)

// Kinds lists every kind, for flags and documentation.
var Kinds = []Kind{Live, Test, PKLive, PKTest}

// Prefix starts every key, so that secret scanners and people can recognise one.
const Prefix = "aw_"

// ScopeVerify is the scope every data endpoint requires.
const ScopeVerify = "address:verify"

// ParseKind accepts the names of Kinds.
func ParseKind(s string) (Kind, bool) {
	k := Kind(strings.ToLower(strings.TrimSpace(s)))
	return k, slices.Contains(Kinds, k)
}

// Publishable keys live in web pages and are bound to origins and sessions.
func (k Kind) Publishable() bool { return k == PKLive || k == PKTest }

// Testing keys are free: capped per day, never counted as verifications.
func (k Kind) Testing() bool { return k == Test || k == PKTest }

func (k Kind) prefix() string { return Prefix + string(k) + "_" }

// Hash identifies a key by its secret.
type Hash [sha256.Size]byte

// HashOf hashes a whole credential. A key's credential is copied to the stack to be hashed:
// []byte(credential) would put it on the heap, being longer than the compiler's own buffer.
func HashOf(credential string) Hash {
	var buf [64]byte
	if len(credential) <= len(buf) {
		return sha256.Sum256(append(buf[:0], credential...))
	}
	return sha256.Sum256([]byte(credential))
}

func (h Hash) String() string { return hex.EncodeToString(h[:]) }

// Equal compares in constant time. Keys are found by hash in a map or an index; comparing
// again this way keeps the final decision free of timing differences.
func (h Hash) Equal(o Hash) bool { return subtle.ConstantTimeCompare(h[:], o[:]) == 1 }

// MarshalText writes the hash in hex, for the key file.
func (h Hash) MarshalText() ([]byte, error) { return []byte(h.String()), nil }

// UnmarshalText reads a hex hash.
func (h *Hash) UnmarshalText(b []byte) error {
	if hex.DecodedLen(len(b)) != len(h) {
		return errors.New("key hash must be 64 hex digits")
	}
	_, err := hex.Decode(h[:], b)
	return err
}

// secretLen is the length of the random part: 32 bytes in base62.
const secretLen = 43

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// Recognise tells which kind of key a credential claims to be. It checks only the shape, so
// that garbage is refused without a store lookup; whether the key exists is the store's
// business. It runs on every credential and every query parameter, so its prefixes and
// alphabet are made once.
func Recognise(credential string) (Kind, bool) {
	if !strings.HasPrefix(credential, Prefix) {
		return "", false
	}
	for _, k := range recognised {
		if rest, ok := strings.CutPrefix(credential, k.prefix); ok {
			if len(rest) != secretLen {
				return "", false
			}
			for i := 0; i < len(rest); i++ {
				if !base62Digit[rest[i]] {
					return "", false
				}
			}
			return k.kind, true
		}
	}
	return "", false
}

// recognised are the kinds in the order Recognise tries their prefixes: publishable first,
// "aw_pk_live_" must not read as kind "pk".
var recognised = [...]struct {
	kind   Kind
	prefix string
}{{PKLive, PKLive.prefix()}, {PKTest, PKTest.prefix()}, {Live, Live.prefix()}, {Test, Test.prefix()}}

// base62Digit marks the bytes of base62.
var base62Digit = func() (t [256]bool) {
	for i := 0; i < len(base62); i++ {
		t[base62[i]] = true
	}
	return t
}()

// Key is one API key as stored: everything but its secret.
type Key struct {
	ID      string     `json:"id"`
	Kind    Kind       `json:"kind"`
	Hash    Hash       `json:"hash"`
	Account string     `json:"account"`
	Plan    string     `json:"plan"`
	Name    string     `json:"name,omitempty"`
	Scopes  []string   `json:"scopes"`
	Origins []string   `json:"origins,omitempty"`
	Created time.Time  `json:"created"`
	Revoked *time.Time `json:"revoked,omitempty"`
}

// Active reports whether the key may be used.
func (k *Key) Active() bool { return k.Revoked == nil }

// HasScope reports whether the key carries the scope.
func (k *Key) HasScope(s string) bool { return slices.Contains(k.Scopes, s) }

// AllowsOrigin reports whether a page at this Origin header value may use the key.
func (k *Key) AllowsOrigin(origin string) bool {
	o, err := NormaliseOrigin(origin)
	return err == nil && slices.Contains(k.Origins, o)
}

// NormaliseOrigin brings an origin to the form browsers send: scheme://host[:port], lower
// case, no path, default ports dropped. Keys store origins in this form.
func NormaliseOrigin(s string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" ||
		u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return "", errors.New("origin must be scheme://host[:port], e.g. https://shop.example")
	}
	host := strings.ToLower(u.Host)
	if p := u.Port(); (u.Scheme == "https" && p == "443") || (u.Scheme == "http" && p == "80") {
		host = strings.ToLower(u.Hostname())
	}
	return u.Scheme + "://" + host, nil
}

// ValidAccount reports whether s can name an account: ids travel into Redis keys and URLs,
// so they are kept to a safe alphabet.
func ValidAccount(s string) bool {
	if len(s) < 1 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// Options describe a key to create.
type Options struct {
	Kind    Kind
	Account string
	Plan    string   // default "free"
	Name    string   // for people: which shop or system uses it
	Scopes  []string // default address:verify
	Origins []string // publishable keys only, at least one
}

// New makes a key and its secret. The secret is returned once and never stored.
func New(o Options, now time.Time) (*Key, string, error) {
	if !slices.Contains(Kinds, o.Kind) {
		return nil, "", fmt.Errorf("kind must be one of %v", Kinds)
	}
	if !ValidAccount(o.Account) {
		return nil, "", errors.New("account must be 1 to 64 letters, digits or _ - .")
	}
	if o.Plan == "" {
		o.Plan = "free"
	}
	if !ValidAccount(o.Plan) {
		return nil, "", errors.New("plan must be 1 to 64 letters, digits or _ - .")
	}
	if len(o.Name) > 100 {
		return nil, "", errors.New("name must be at most 100 characters")
	}
	if len(o.Scopes) == 0 {
		o.Scopes = []string{ScopeVerify}
	}
	var origins []string
	for _, s := range o.Origins {
		n, err := NormaliseOrigin(s)
		if err != nil {
			return nil, "", err
		}
		if !slices.Contains(origins, n) {
			origins = append(origins, n)
		}
	}
	switch {
	case o.Kind.Publishable() && len(origins) == 0:
		return nil, "", errors.New("a publishable key needs at least one allowed origin")
	case !o.Kind.Publishable() && len(origins) > 0:
		return nil, "", errors.New("only publishable keys take allowed origins; secret keys must not be used from web pages")
	}
	secret, err := randomSecret()
	if err != nil {
		return nil, "", err
	}
	idBytes := make([]byte, 8)
	if _, err := rand.Read(idBytes); err != nil {
		return nil, "", fmt.Errorf("key id: %w", err)
	}
	credential := o.Kind.prefix() + secret
	k := &Key{
		ID:      "key_" + hex.EncodeToString(idBytes),
		Kind:    o.Kind,
		Hash:    HashOf(credential),
		Account: o.Account,
		Plan:    o.Plan,
		Name:    o.Name,
		Scopes:  slices.Clone(o.Scopes),
		Origins: origins,
		Created: now.UTC().Truncate(time.Second),
	}
	return k, credential, nil
}

func randomSecret() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("key secret: %w", err)
	}
	n := new(big.Int).SetBytes(b)
	out := make([]byte, secretLen)
	base := big.NewInt(62)
	mod := new(big.Int)
	for i := secretLen - 1; i >= 0; i-- {
		n.DivMod(n, base, mod)
		out[i] = base62[mod.Int64()]
	}
	return string(out), nil
}
