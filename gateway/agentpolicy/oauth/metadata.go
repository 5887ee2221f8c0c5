package oauth

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

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
// never allows a credential in a URL). Without an issuer (a gateway that takes API keys
// only) the document names no authorization server, which RFC 9728 allows: clients then
// learn that the resource exists and which scope it wants, and use a key.
func Metadata(cfg Config) *oauthex.ProtectedResourceMetadata {
	name := cfg.ResourceName
	if name == "" {
		name = "Adreswijzer address verification for agents (NL, BE)"
	}
	m := &oauthex.ProtectedResourceMetadata{
		Resource:               cfg.Resource,
		ScopesSupported:        []string{Scope},
		BearerMethodsSupported: []string{"header"},
		ResourceName:           name,
		ResourceDocumentation:  cfg.ResourceDocumentation,
	}
	if cfg.Issuer != "" {
		m.AuthorizationServers = []string{cfg.Issuer}
	}
	return m
}

// metadataMaxAge lets clients and caches keep the document for an hour: it changes only
// with the configuration.
const metadataMaxAge = "public, max-age=3600"

// MetadataHandler serves Metadata at MetadataPath: GET and HEAD, and OPTIONS for browsers'
// preflight. Any origin may read it, as RFC 9728 intends: it is public, and agents running
// in a browser read it to learn how to sign in.
func MetadataHandler(cfg Config) http.Handler {
	body, _ := json.Marshal(Metadata(cfg)) // strings and string slices: cannot fail
	body = append(body, '\n')
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", "*")
		switch r.Method {
		case http.MethodOptions:
			h.Set("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS")
			h.Set("Access-Control-Allow-Headers", "Content-Type, MCP-Protocol-Version")
			w.WriteHeader(http.StatusNoContent)
		case http.MethodGet, http.MethodHead:
			h.Set("Content-Type", "application/json")
			h.Set("Cache-Control", metadataMaxAge)
			h.Set("Content-Length", strconv.Itoa(len(body)))
			w.WriteHeader(http.StatusOK)
			if r.Method == http.MethodGet {
				_, _ = w.Write(body)
			}
		default:
			h.Set("Allow", "GET, HEAD, OPTIONS")
			http.Error(w, "Method not allowed", http.StatusMethodNotAllowed)
		}
	})
}

// Challenge is the WWW-Authenticate value of a 401 for a request without a credential:
// where the metadata is and which scope to ask for, so that an MCP client can start the
// OAuth flow on its own.
//
// With no metadata URL (a resource without an authorization server, which takes API keys
// only) it is a plain challenge with the realm and the scope: a resource_metadata there
// would send clients to metadata that names no authorization server, which the MCP
// authorization spec requires of it, and an OAuth flow that cannot work. Without the
// parameter, and with the metadata answered 404, an MCP client finds no authorization
// server to sign in with and is left to the API key it was configured with.
func Challenge(metadataURL string) string {
	if metadataURL == "" {
		return fmt.Sprintf("Bearer realm=%q, scope=%q", Realm, Scope)
	}
	return fmt.Sprintf("Bearer resource_metadata=%q, scope=%q", metadataURL, Scope)
}

// Realm names the service in challenges that point to no metadata.
const Realm = "adreswijzer"

// ChallengeFor is the WWW-Authenticate value for a Verify error (RFC 6750 §3):
// invalid_token for a refused token, insufficient_scope for a token without address:verify.
// Other errors (keys unavailable: a 503) get the plain challenge. An empty metadata URL
// gives the challenge without resource_metadata, as Challenge does.
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
	if metadataURL == "" {
		return fmt.Sprintf("Bearer realm=%q, error=%q, scope=%q", Realm, code, Scope)
	}
	return fmt.Sprintf("Bearer error=%q, resource_metadata=%q, scope=%q", code, metadataURL, Scope)
}
