package authserver

import (
	"net/url"
	"slices"
	"time"

	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// opClient is a registered client as the library sees it: a native (public) client that
// authenticates with nothing but PKCE, may only use the code flow, and receives JWT access
// tokens. refusal carries a fault of its authorization request found before the library's
// own checks ran (see opServer.VerifyAuthRequest).
type opClient struct {
	*Client
	refusal *oidc.Error
}

func (c *opClient) GetID() string                       { return c.ID }
func (c *opClient) RedirectURIs() []string              { return c.Client.RedirectURIs }
func (c *opClient) PostLogoutRedirectURIs() []string    { return nil }
func (c *opClient) ApplicationType() op.ApplicationType { return op.ApplicationTypeNative }
func (c *opClient) AuthMethod() oidc.AuthMethod         { return oidc.AuthMethodNone }
func (c *opClient) ResponseTypes() []oidc.ResponseType {
	return []oidc.ResponseType{oidc.ResponseTypeCode}
}
func (c *opClient) LoginURL(string) string               { return "" }
func (c *opClient) AccessTokenType() op.AccessTokenType  { return op.AccessTokenTypeJWT }
func (c *opClient) IDTokenLifetime() time.Duration       { return 0 }
func (c *opClient) DevMode() bool                        { return false }
func (c *opClient) IDTokenUserinfoClaimsAssertion() bool { return false }
func (c *opClient) ClockSkew() time.Duration             { return 0 }
func (c *opClient) IsScopeAllowed(scope string) bool     { return scope == Scope }
func (c *opClient) RestrictAdditionalIdTokenScopes() func([]string) []string {
	return func([]string) []string { return nil }
}
func (c *opClient) RestrictAdditionalAccessTokenScopes() func([]string) []string {
	return func(s []string) []string { return s }
}

// GrantTypes are the grants the client registered.
func (c *opClient) GrantTypes() []oidc.GrantType {
	out := make([]oidc.GrantType, len(c.Client.GrantTypes))
	for i, g := range c.Client.GrantTypes {
		out[i] = oidc.GrantType(g)
	}
	return out
}

// redirectAllowed reports whether uri is one the client registered: the same string, or for
// a loopback URI the same but for the port, which a native app picks when it starts
// (RFC 8252 §7.3). Scheme, host, path and query must match.
func (c *Client) redirectAllowed(uri string) bool {
	if slices.Contains(c.RedirectURIs, uri) {
		return true
	}
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "http" || !isLoopback(u.Hostname()) || u.Fragment != "" || u.User != nil {
		return false
	}
	for _, r := range c.RedirectURIs {
		reg, err := url.Parse(r)
		if err == nil && reg.Scheme == u.Scheme && reg.Hostname() == u.Hostname() &&
			reg.EscapedPath() == u.EscapedPath() && reg.RawQuery == u.RawQuery {
			return true
		}
	}
	return false
}
