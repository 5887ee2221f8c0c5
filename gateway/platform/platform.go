// Package platform accepts the session tokens that e-commerce platforms give to apps
// embedded in a shop's checkout or admin (Shopify's session tokens are the model: an HS256
// JWT signed with the app's secret, naming the app's client id as audience and the shop as
// destination). A shop that installed our app can then call the checkout routes without
// shipping an API key to the browser.
package platform

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Platform is one app registration on one platform.
type Platform struct {
	Name string
	// Secret is the app secret the platform signs tokens with.
	Secret string
	// Audience is the app's client id; a token must name it in aud. It also selects the
	// platform, so it must be unique.
	Audience string
	// Account is billed for tokens of any shop when Shops is empty.
	Account string
	// Plan of Account.
	Plan string
	// Shops maps a shop's host (from the dest claim) to the account it is billed to. When
	// set, only these shops are accepted.
	Shops map[string]string
}

// Session is a verified token.
type Session struct {
	Platform string
	Account  string
	Plan     string
	// Shop is the host of the shop the token was issued for, or "" when the token names none.
	Shop string
}

// ErrInvalid covers every reason to refuse a token; the reasons are not told to the caller.
var ErrInvalid = errors.New("invalid platform session token")

// maxTokenLength refuses absurd inputs before parsing them.
const maxTokenLength = 4096

// leeway absorbs clock differences between the platform and us.
const leeway = 5 * time.Second

// Verifier checks tokens against the configured platforms.
type Verifier struct {
	byAudience map[string]*Platform
	now        func() time.Time
}

// NewVerifier checks the configuration.
func NewVerifier(ps []Platform) (*Verifier, error) {
	v := &Verifier{byAudience: map[string]*Platform{}, now: time.Now}
	for i := range ps {
		p := ps[i]
		switch {
		case p.Name == "":
			return nil, errors.New("platform: name is required")
		case len(p.Secret) < 16:
			return nil, fmt.Errorf("platform %s: secret is required (at least 16 characters)", p.Name)
		case p.Audience == "":
			return nil, fmt.Errorf("platform %s: audience (the app's client id) is required", p.Name)
		case p.Account == "" && len(p.Shops) == 0:
			return nil, fmt.Errorf("platform %s: an account or shop accounts are required", p.Name)
		}
		if _, dup := v.byAudience[p.Audience]; dup {
			return nil, fmt.Errorf("platform %s: audience used by another platform", p.Name)
		}
		if p.Plan == "" {
			p.Plan = "free"
		}
		v.byAudience[p.Audience] = &p
	}
	return v, nil
}

// Empty reports whether no platform is configured.
func (v *Verifier) Empty() bool { return v == nil || len(v.byAudience) == 0 }

// LooksLikeJWT tells a JWT from an API key by shape alone.
func LooksLikeJWT(s string) bool {
	return strings.HasPrefix(s, "eyJ") && strings.Count(s, ".") == 2 && len(s) <= maxTokenLength
}

type claims struct {
	jwt.RegisteredClaims
	Dest string `json:"dest,omitempty"`
}

// Verify checks signature, algorithm, audience and expiry (required), and binds the token
// to an account.
func (v *Verifier) Verify(token string) (*Session, error) {
	if v.Empty() || !LooksLikeJWT(token) {
		return nil, ErrInvalid
	}
	var unverified claims
	if _, _, err := jwt.NewParser().ParseUnverified(token, &unverified); err != nil {
		return nil, ErrInvalid
	}
	var p *Platform
	for _, aud := range unverified.Audience {
		if q, ok := v.byAudience[aud]; ok {
			p = q
			break
		}
	}
	if p == nil {
		return nil, ErrInvalid
	}
	var c claims
	parser := jwt.NewParser(
		jwt.WithValidMethods([]string{"HS256"}),
		jwt.WithExpirationRequired(),
		jwt.WithAudience(p.Audience),
		jwt.WithLeeway(leeway),
		jwt.WithTimeFunc(v.now),
	)
	if _, err := parser.ParseWithClaims(token, &c, func(*jwt.Token) (any, error) {
		return []byte(p.Secret), nil
	}); err != nil {
		return nil, ErrInvalid
	}
	s := &Session{Platform: p.Name, Account: p.Account, Plan: p.Plan, Shop: shopHost(c.Dest)}
	if len(p.Shops) > 0 {
		acct, ok := p.Shops[s.Shop]
		if !ok || s.Shop == "" {
			return nil, ErrInvalid
		}
		s.Account = acct
	}
	return s, nil
}

// shopHost accepts dest as a URL ("https://shop.example") or a bare host.
func shopHost(dest string) string {
	if dest == "" {
		return ""
	}
	if u, err := url.Parse(dest); err == nil && u.Host != "" {
		return strings.ToLower(u.Host)
	}
	return strings.ToLower(dest)
}
