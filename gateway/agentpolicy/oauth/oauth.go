// Package oauth makes the agent interface an OAuth 2.1 protected resource: it verifies the
// JWT access tokens an authorization server issues to agents (signature against the server's
// published keys, issuer, audience, expiry, scope), and writes what clients need to find that
// server: the RFC 9728 protected-resource metadata and the WWW-Authenticate challenge.
//
// It is gateway policy in plain Go: the gateway authenticates agents before anything reaches
// a worker, so the workers never see a token. Error strings name what failed, never what a
// token held.
package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// Scope is the scope every data call of the service needs, agents' included.
const Scope = "address:verify"

// Algorithms are the JWS algorithms accepted. RS256 and ES256 are what authorization servers
// sign access tokens with; allowing only these shuts out "none" and the HMAC confusion attack
// (a token "signed" with the public key as an HMAC secret).
var Algorithms = []string{"RS256", "ES256"}

var (
	// ErrInvalidToken: the token is not one of ours (bad signature, unknown key, expired,
	// wrong issuer or audience, malformed). Answer 401 with a challenge.
	ErrInvalidToken = auth.ErrInvalidToken
	// ErrInsufficientScope: a valid token without the address:verify scope. Answer 403.
	ErrInsufficientScope = errors.New("token lacks the " + Scope + " scope")
	// ErrKeysUnavailable: the authorization server's keys could not be fetched and none are
	// cached, so no token can be judged. Answer 503: the token may well be good.
	ErrKeysUnavailable = errors.New("authorization server keys unavailable")
)

// Config names the authorization server and this resource.
type Config struct {
	// Issuer is the authorization server's issuer identifier; tokens must carry it in iss.
	Issuer string
	// Resource is the URL of the agent interface (e.g. https://api.example.nl/mcp): the
	// audience tokens must be issued for (RFC 8707), and the resource of the metadata.
	Resource string
	// JWKSURL is where the server publishes its signing keys. Empty: found from the issuer's
	// metadata (RFC 8414 /.well-known/oauth-authorization-server, then OpenID Connect
	// /.well-known/openid-configuration).
	JWKSURL string
	// AccountClaim names the claim that holds the account a token acts for (limits and
	// billing are per account). Empty: the subject (sub) is the account. When set, a token
	// without it is refused, as it could not be counted.
	AccountClaim string
	// ResourceName and ResourceDocumentation are shown by clients that present the metadata.
	ResourceName          string
	ResourceDocumentation string
	// HTTPClient fetches metadata and keys; a client with a 10 s timeout when nil.
	HTTPClient *http.Client
	// RefreshInterval is how long fetched keys are used before they are fetched again;
	// 15 minutes when zero. A token signed by a key not yet fetched triggers a fetch sooner.
	RefreshInterval time.Duration
	// MinRefetch bounds fetches triggered by unknown keys, so that tokens with made-up key
	// ids cannot make us hammer the authorization server; 30 seconds when zero.
	MinRefetch time.Duration
	// Leeway tolerates clock skew on exp, nbf and iat; 30 seconds when zero.
	Leeway time.Duration
}

// Principal is who a verified token speaks for.
type Principal struct {
	// Subject is the token's sub: the user or client the server issued it to.
	Subject string
	// Account is what limits and billing count: the AccountClaim, or the subject.
	Account string
	// ClientID is the OAuth client (client_id, else azp), empty when the token names none.
	ClientID string
	// Grant names the consent the token was issued under (the "grant" claim of the
	// gateway's own authorization server), empty when the token names none.
	Grant   string
	Scopes  []string
	Expires time.Time
}

// Verifier verifies access tokens. It is safe for concurrent use.
type Verifier struct {
	cfg    Config
	keys   *keySet
	parser *jwt.Parser
}

// NewVerifier checks the configuration. It fetches nothing: keys are fetched on the first
// token, so that the gateway starts even while the authorization server is down.
func NewVerifier(cfg Config) (*Verifier, error) {
	if cfg.Issuer == "" {
		return nil, errors.New("oauth: issuer is required")
	}
	if err := checkURL(cfg.Issuer); err != nil {
		return nil, fmt.Errorf("oauth: issuer: %w", err)
	}
	if err := checkURL(cfg.Resource); err != nil {
		return nil, fmt.Errorf("oauth: resource: %w", err)
	}
	if cfg.JWKSURL != "" {
		if err := checkURL(cfg.JWKSURL); err != nil {
			return nil, fmt.Errorf("oauth: JWKS URL: %w", err)
		}
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 10 * time.Second}
	}
	if cfg.RefreshInterval <= 0 {
		cfg.RefreshInterval = 15 * time.Minute
	}
	if cfg.MinRefetch <= 0 {
		cfg.MinRefetch = 30 * time.Second
	}
	if cfg.Leeway <= 0 {
		cfg.Leeway = 30 * time.Second
	}
	v := &Verifier{
		cfg:  cfg,
		keys: newKeySet(cfg),
		parser: jwt.NewParser(
			jwt.WithValidMethods(Algorithms),
			jwt.WithIssuer(cfg.Issuer),
			jwt.WithExpirationRequired(),
			jwt.WithIssuedAt(),
			jwt.WithLeeway(cfg.Leeway),
		),
	}
	return v, nil
}

// checkURL accepts absolute http(s) URLs; http is for tests and local servers only, which
// the operator guide says.
func checkURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return err
	}
	if (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return errors.New("must be an absolute https URL")
	}
	if u.Fragment != "" {
		return errors.New("must not have a fragment")
	}
	return nil
}

// Verify checks a token and that it grants address:verify.
func (v *Verifier) Verify(ctx context.Context, token string) (Principal, error) {
	p, err := v.verify(ctx, token)
	if err != nil {
		return Principal{}, err
	}
	if !slices.Contains(p.Scopes, Scope) {
		return Principal{}, ErrInsufficientScope
	}
	return p, nil
}

// verify checks everything but the scope.
func (v *Verifier) verify(ctx context.Context, token string) (Principal, error) {
	claims := jwt.MapClaims{}
	var keyErr error
	_, err := v.parser.ParseWithClaims(token, claims, func(t *jwt.Token) (any, error) {
		k, err := v.keys.key(ctx, t)
		keyErr = err
		return k, err
	})
	if errors.Is(keyErr, ErrKeysUnavailable) {
		return Principal{}, keyErr
	}
	if err != nil {
		return Principal{}, fmt.Errorf("%w: %s", ErrInvalidToken, reason(err))
	}
	aud, err := claims.GetAudience()
	if err != nil || !oauthex.MatchesResource(aud, v.cfg.Resource) {
		return Principal{}, fmt.Errorf("%w: not issued for this resource", ErrInvalidToken)
	}
	p := Principal{Scopes: scopes(claims)}
	p.Subject, _ = claims["sub"].(string)
	if p.Subject == "" {
		return Principal{}, fmt.Errorf("%w: no subject", ErrInvalidToken)
	}
	p.Account = p.Subject
	if v.cfg.AccountClaim != "" {
		acct, _ := claims[v.cfg.AccountClaim].(string)
		if acct == "" {
			return Principal{}, fmt.Errorf("%w: no account claim", ErrInvalidToken)
		}
		p.Account = acct
	}
	if id, ok := claims["client_id"].(string); ok {
		p.ClientID = id
	} else if id, ok := claims["azp"].(string); ok {
		p.ClientID = id
	}
	p.Grant, _ = claims["grant"].(string)
	if exp, err := claims.GetExpirationTime(); err == nil && exp != nil {
		p.Expires = exp.Time
	}
	return p, nil
}

// reason says in a few words why the JWT library refused a token, for the error (which may
// be logged) and the challenge's error_description.
func reason(err error) string {
	switch {
	case errors.Is(err, jwt.ErrTokenExpired):
		return "expired"
	case errors.Is(err, jwt.ErrTokenNotValidYet), errors.Is(err, jwt.ErrTokenUsedBeforeIssued):
		return "not valid yet"
	case errors.Is(err, jwt.ErrTokenInvalidIssuer):
		return "wrong issuer"
	case errors.Is(err, jwt.ErrTokenRequiredClaimMissing):
		return "required claim missing"
	case errors.Is(err, jwt.ErrTokenSignatureInvalid):
		return "bad signature"
	case errors.Is(err, errUnknownKey):
		return "unknown signing key"
	case errors.Is(err, jwt.ErrTokenUnverifiable):
		return "cannot be verified"
	case errors.Is(err, jwt.ErrTokenMalformed):
		return "malformed"
	}
	return "invalid"
}

// scopes reads "scope" (RFC 9068: one space-separated string) and, as some servers write
// it, "scp" (an array or a string).
func scopes(c jwt.MapClaims) []string {
	var out []string
	add := func(v any) {
		switch x := v.(type) {
		case string:
			out = append(out, strings.Fields(x)...)
		case []any:
			for _, e := range x {
				if s, ok := e.(string); ok {
					out = append(out, s)
				}
			}
		}
	}
	add(c["scope"])
	add(c["scp"])
	return out
}

// TokenVerifier adapts the verifier to the MCP SDK's auth.RequireBearerToken, for serving
// /mcp with the SDK's own middleware. The scope is left to the middleware
// (RequireBearerTokenOptions.Scopes = []string{Scope}), which answers 403 without it.
func (v *Verifier) TokenVerifier() auth.TokenVerifier {
	return func(ctx context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		p, err := v.verify(ctx, token)
		if err != nil {
			return nil, err
		}
		return &auth.TokenInfo{
			Scopes:     p.Scopes,
			Expiration: p.Expires,
			UserID:     p.Account,
			Extra:      map[string]any{"subject": p.Subject, "clientId": p.ClientID},
		}, nil
	}
}

// Status is the HTTP status for a Verify error: 401, 403 or 503.
func Status(err error) int {
	switch {
	case errors.Is(err, ErrInsufficientScope):
		return http.StatusForbidden
	case errors.Is(err, ErrKeysUnavailable):
		return http.StatusServiceUnavailable
	}
	return http.StatusUnauthorized
}
