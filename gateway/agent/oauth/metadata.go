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

// KeyChallenge is the WWW-Authenticate value of a 401 of /mcp where no authorization server
// is configured: a bearer credential (an API key) and its scope, and no metadata to start an
// OAuth flow from, which could not end. refused adds RFC 6750's invalid_token, for a key
// that was sent and refused.
func KeyChallenge(refused bool) string {
	if refused {
		return fmt.Sprintf("Bearer realm=\"adreswijzer\", error=\"invalid_token\", scope=%q", Scope)
	}
	return fmt.Sprintf("Bearer realm=\"adreswijzer\", scope=%q", Scope)
}
