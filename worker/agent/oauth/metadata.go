package oauth

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// MetadataPath is where the protected-resource metadata of the agent interface (/mcp) is
// served, per RFC 9728 §3.1: the well-known prefix inserted before the resource's path.
const MetadataPath = "/.well-known/oauth-protected-resource/mcp"

// MetadataURL derives the metadata URL of a resource URL the way RFC 9728 §3.1 (and MCP
// clients) do: https://api.example.nl/mcp gives
// https://api.example.nl/.well-known/oauth-protected-resource/mcp.
func MetadataURL(resource string) (string, error) {
	u, err := url.Parse(resource)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return "", errors.New("oauth: resource must be an absolute URL")
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return "", errors.New("oauth: resource must have no query or fragment")
	}
	return u.Scheme + "://" + u.Host + "/.well-known/oauth-protected-resource" + strings.TrimSuffix(u.EscapedPath(), "/"), nil
}

// Metadata is the RFC 9728 document for the configured resource: its authorization server,
// the one scope there is, and that tokens go in the Authorization header only (the spec
// never allows a credential in a URL).
func Metadata(cfg Config) *oauthex.ProtectedResourceMetadata {
	name := cfg.ResourceName
	if name == "" {
		name = "Adreswijzer address verification for agents (NL, BE)"
	}
	return &oauthex.ProtectedResourceMetadata{
		Resource:               cfg.Resource,
		AuthorizationServers:   []string{cfg.Issuer},
		ScopesSupported:        []string{Scope},
		BearerMethodsSupported: []string{"header"},
		ResourceName:           name,
		ResourceDocumentation:  cfg.ResourceDocumentation,
	}
}

// MetadataHandler serves Metadata at MetadataPath (GET, and OPTIONS for browsers' preflight;
// any origin may read it, as RFC 9728 intends).
func MetadataHandler(cfg Config) http.Handler {
	return auth.ProtectedResourceMetadataHandler(Metadata(cfg))
}

// Challenge is the WWW-Authenticate value of a 401 for a request without a credential:
// where the metadata is and which scope to ask for, so that an MCP client can start the
// OAuth flow on its own.
func Challenge(metadataURL string) string {
	return fmt.Sprintf("Bearer resource_metadata=%q, scope=%q", metadataURL, Scope)
}

// ChallengeFor is the WWW-Authenticate value for a Verify error (RFC 6750 §3):
// invalid_token for a refused token, insufficient_scope for a token without address:verify.
// Other errors (keys unavailable: a 503) get the plain challenge.
func ChallengeFor(metadataURL string, err error) string {
	code := ""
	switch {
	case errors.Is(err, ErrInsufficientScope):
		code = "insufficient_scope"
	case errors.Is(err, ErrInvalidToken):
		code = "invalid_token"
	default:
		return Challenge(metadataURL)
	}
	return fmt.Sprintf("Bearer error=%q, resource_metadata=%q, scope=%q", code, metadataURL, Scope)
}
