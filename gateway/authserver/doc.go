// Package authserver makes the gateway an OAuth 2.1 authorization server for agents, on the
// dashboard's accounts: an agent registers itself (RFC 7591, a public client), sends its
// person to the authorization endpoint with a PKCE S256 challenge and the /mcp resource
// (RFC 8707), the person signs in to the dashboard and allows it there, and the agent
// exchanges the code for a short-lived access token (a JWT signed ES256, audience the /mcp
// resource, scope address:verify, subject the consenting account, with the grant's id) and
// a refresh token (opaque, stored as a hash, rotated on every use). The gateway accepts the
// access tokens on /mcp with its ordinary verification (gateway/agentpolicy/oauth) against
// this server's key set, and asks CheckGrant whether the grant still stands, so that
// revoking the agent on the dashboard stops it within seconds although a JWT cannot be
// recalled.
//
// The protocol is github.com/zitadel/oidc/v3's op package, through its Server interface:
// the library routes, parses requests and writes RFC 6749 errors; the grants are ours. Its
// older Provider/Storage interface was not used because it decides what this server must
// not: it issues an ID token with every token response, whose audience would be the /mcp
// resource (an ID token would then pass for an access token), it issues refresh tokens only
// for the OpenID offline_access scope, it accepts plain PKCE, and it does not read the
// resource parameter. Keys are crypto/ecdsa's; tokens are signed with go-jose, as zitadel
// signs its own.
//
// It is gateway policy in plain Go. Logs name what happened and to which account, client or
// grant id, never a code, a token, a state or an e-mail address.
package authserver

// Grant types a client may register.
const (
	grantCode    = "authorization_code"
	grantRefresh = "refresh_token"
)

// Scope is the one scope there is: the data calls of the agent interface.
const Scope = "address:verify"
