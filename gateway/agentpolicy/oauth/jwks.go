package oauth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// maxDocument bounds metadata and key-set documents: real ones are a few kilobytes.
const maxDocument = 1 << 20

// minRSABits refuses keys too weak to trust (RFC 7518 §3.3 requires 2048).
const minRSABits = 2048

var errUnknownKey = errors.New("unknown signing key")

// keySet caches the authorization server's signing keys by key id.
type keySet struct {
	cfg Config
	now func() time.Time

	mu      sync.Mutex // guards the fields below
	keys    map[string]signingKey
	fetched time.Time // when keys were last fetched successfully
	tried   time.Time // when a fetch was last attempted
	lastErr error     // how that attempt ended
	jwksURL string    // resolved from the issuer's metadata when not configured

	fetchMu sync.Mutex // one fetch at a time; waiters use its result
}

func newKeySet(cfg Config) *keySet {
	return &keySet{cfg: cfg, now: time.Now, jwksURL: cfg.JWKSURL}
}

// key returns the key that must have signed t. It fetches the key set when none is cached or
// the cached one is older than RefreshInterval, and again when the token names a key id it
// does not hold (the server has rotated its keys); refresh keeps those fetches apart by
// MinRefetch. A failed fetch keeps the keys already held, so an authorization server outage
// does not lock out agents whose tokens are still good.
func (s *keySet) key(ctx context.Context, t *jwt.Token) (any, error) {
	kid, _ := t.Header["kid"].(string)
	if kid == "" {
		return nil, fmt.Errorf("%w: token names no key id", errUnknownKey)
	}
	s.mu.Lock()
	k, ok := s.keys[kid]
	stale := s.keys == nil || s.now().Sub(s.fetched) >= s.cfg.RefreshInterval
	s.mu.Unlock()
	if stale || !ok {
		fetchErr := s.refresh(ctx)
		s.mu.Lock()
		k, ok = s.keys[kid]
		empty := s.keys == nil
		s.mu.Unlock()
		if empty {
			return nil, fmt.Errorf("%w: %v", ErrKeysUnavailable, fetchErr)
		}
	}
	if !ok {
		return nil, errUnknownKey
	}
	alg := t.Method.Alg()
	if k.alg != "" && k.alg != alg {
		return nil, fmt.Errorf("%w: key is for another algorithm", errUnknownKey)
	}
	switch pub := k.pub.(type) {
	case *rsa.PublicKey:
		if alg == "RS256" {
			return pub, nil
		}
	case *ecdsa.PublicKey:
		if alg == "ES256" && pub.Curve == elliptic.P256() {
			return pub, nil
		}
	}
	return nil, fmt.Errorf("%w: key type does not match the algorithm", errUnknownKey)
}

// refresh fetches the key set, unless a fetch was attempted less than MinRefetch ago (by
// this goroutine's predecessors, or by one it waited for): then that attempt's error stands.
// One fetch runs at a time, so a burst of tokens at start-up makes one request.
func (s *keySet) refresh(ctx context.Context) error {
	s.fetchMu.Lock()
	defer s.fetchMu.Unlock()
	s.mu.Lock()
	if !s.tried.IsZero() && s.now().Sub(s.tried) < s.cfg.MinRefetch {
		err := s.lastErr
		s.mu.Unlock()
		return err
	}
	s.tried = s.now()
	jwksURL := s.jwksURL
	s.mu.Unlock()

	keys, err := s.fetch(ctx, jwksURL)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lastErr = err
	if err != nil {
		return err
	}
	s.keys, s.fetched = keys, s.now()
	return nil
}

// fetch finds the key set's URL when it is not known yet, and reads the set.
func (s *keySet) fetch(ctx context.Context, jwksURL string) (map[string]signingKey, error) {
	if jwksURL == "" {
		u, err := discoverJWKS(ctx, s.cfg)
		if err != nil {
			return nil, err
		}
		jwksURL = u
		s.mu.Lock()
		s.jwksURL = u
		s.mu.Unlock()
	}
	return fetchKeys(ctx, s.cfg.HTTPClient, jwksURL)
}

// discoverJWKS reads jwks_uri from the issuer's RFC 8414 metadata, or else from its OpenID
// Connect discovery document; both must name the configured issuer.
func discoverJWKS(ctx context.Context, cfg Config) (string, error) {
	u, err := url.Parse(cfg.Issuer)
	if err != nil {
		return "", err
	}
	rfc8414 := u.Scheme + "://" + u.Host + "/.well-known/oauth-authorization-server" + strings.TrimSuffix(u.Path, "/")
	meta, err := oauthex.GetAuthServerMeta(ctx, rfc8414, cfg.Issuer, cfg.HTTPClient)
	if err != nil {
		return "", fmt.Errorf("authorization server metadata: %w", err)
	}
	if meta != nil && meta.JWKSURI != "" {
		return meta.JWKSURI, nil
	}
	var oidc struct {
		Issuer  string `json:"issuer"`
		JWKSURI string `json:"jwks_uri"`
	}
	if err := getJSON(ctx, cfg.HTTPClient, strings.TrimSuffix(cfg.Issuer, "/")+"/.well-known/openid-configuration", &oidc); err != nil {
		return "", fmt.Errorf("authorization server metadata: %w", err)
	}
	if strings.TrimSuffix(oidc.Issuer, "/") != strings.TrimSuffix(cfg.Issuer, "/") {
		return "", errors.New("authorization server metadata names another issuer")
	}
	if err := checkURL(oidc.JWKSURI); err != nil {
		return "", fmt.Errorf("jwks_uri: %w", err)
	}
	return oidc.JWKSURI, nil
}

func getJSON(ctx context.Context, c *http.Client, u string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: status %d", u, resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxDocument+1))
	if err != nil {
		return err
	}
	if len(body) > maxDocument {
		return fmt.Errorf("GET %s: document larger than %d bytes", u, maxDocument)
	}
	return json.Unmarshal(body, v)
}

// signingKey is a public key with the algorithm its JWK restricts it to ("" for any).
type signingKey struct {
	pub any
	alg string
}

type jwk struct {
	Kty string `json:"kty"`
	Kid string `json:"kid"`
	Use string `json:"use"`
	Alg string `json:"alg"`
	N   string `json:"n"`
	E   string `json:"e"`
	Crv string `json:"crv"`
	X   string `json:"x"`
	Y   string `json:"y"`
}

// fetchKeys reads a JWK set. Keys we cannot use (encryption keys, other key types, weak
// RSA keys, keys without an id) are skipped rather than failing the set, because servers
// publish keys for other purposes beside their signing keys.
func fetchKeys(ctx context.Context, c *http.Client, u string) (map[string]signingKey, error) {
	var set struct {
		Keys []jwk `json:"keys"`
	}
	if err := getJSON(ctx, c, u, &set); err != nil {
		return nil, fmt.Errorf("key set: %w", err)
	}
	keys := make(map[string]signingKey)
	for _, k := range set.Keys {
		if k.Kid == "" || (k.Use != "" && k.Use != "sig") {
			continue
		}
		pub, err := k.publicKey()
		if err != nil {
			continue
		}
		keys[k.Kid] = signingKey{pub: pub, alg: k.Alg}
	}
	if len(keys) == 0 {
		return nil, errors.New("key set: no usable signing key")
	}
	return keys, nil
}

func (k jwk) publicKey() (any, error) {
	switch k.Kty {
	case "RSA":
		n, err := b64int(k.N)
		if err != nil {
			return nil, err
		}
		e, err := b64int(k.E)
		if err != nil {
			return nil, err
		}
		if n.BitLen() < minRSABits || !e.IsInt64() || e.Int64() < 3 || e.Int64() > 1<<31-1 || e.Bit(0) == 0 {
			return nil, errors.New("weak or malformed RSA key")
		}
		return &rsa.PublicKey{N: n, E: int(e.Int64())}, nil
	case "EC":
		if k.Crv != "P-256" {
			return nil, errors.New("unsupported curve")
		}
		x, err := base64.RawURLEncoding.DecodeString(k.X)
		if err != nil || len(x) != 32 {
			return nil, errors.New("malformed EC key")
		}
		y, err := base64.RawURLEncoding.DecodeString(k.Y)
		if err != nil || len(y) != 32 {
			return nil, errors.New("malformed EC key")
		}
		// Checks that the point is on the curve.
		return ecdsa.ParseUncompressedPublicKey(elliptic.P256(), append(append([]byte{4}, x...), y...))
	}
	return nil, errors.New("unsupported key type")
}

func b64int(s string) (*big.Int, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(b) == 0 {
		return nil, errors.New("malformed key parameter")
	}
	return new(big.Int).SetBytes(b), nil
}
