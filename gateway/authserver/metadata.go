package authserver

import (
	"context"
	"net/http"

	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// Metadata is the RFC 8414 authorization server metadata: where each endpoint is and what
// this server accepts. It names only what is true of it: public clients with PKCE S256,
// the code grant and refresh tokens, one scope, answers in the query with the issuer
// (RFC 9207). It is not an OpenID Provider: it issues no ID tokens.
type Metadata struct {
	Issuer                                     string   `json:"issuer"`
	AuthorizationEndpoint                      string   `json:"authorization_endpoint"`
	TokenEndpoint                              string   `json:"token_endpoint"`
	RegistrationEndpoint                       string   `json:"registration_endpoint"`
	RevocationEndpoint                         string   `json:"revocation_endpoint"`
	JWKSURI                                    string   `json:"jwks_uri"`
	ScopesSupported                            []string `json:"scopes_supported"`
	ResponseTypesSupported                     []string `json:"response_types_supported"`
	ResponseModesSupported                     []string `json:"response_modes_supported"`
	GrantTypesSupported                        []string `json:"grant_types_supported"`
	TokenEndpointAuthMethodsSupported          []string `json:"token_endpoint_auth_methods_supported"`
	RevocationEndpointAuthMethodsSupported     []string `json:"revocation_endpoint_auth_methods_supported"`
	CodeChallengeMethodsSupported              []string `json:"code_challenge_methods_supported"`
	AuthorizationResponseIssParameterSupported bool     `json:"authorization_response_iss_parameter_supported"`
}

// Metadata returns the server's metadata document.
func (s *Server) Metadata() Metadata {
	return Metadata{
		Issuer:                                     s.cfg.Issuer,
		AuthorizationEndpoint:                      s.url(AuthorizePath),
		TokenEndpoint:                              s.url(TokenPath),
		RegistrationEndpoint:                       s.url(RegisterPath),
		RevocationEndpoint:                         s.url(RevokePath),
		JWKSURI:                                    s.url(JWKSPath),
		ScopesSupported:                            []string{Scope},
		ResponseTypesSupported:                     []string{"code"},
		ResponseModesSupported:                     []string{"query"},
		GrantTypesSupported:                        []string{grantCode, grantRefresh},
		TokenEndpointAuthMethodsSupported:          []string{"none"},
		RevocationEndpointAuthMethodsSupported:     []string{"none"},
		CodeChallengeMethodsSupported:              []string{"S256"},
		AuthorizationResponseIssParameterSupported: true,
	}
}

// metadataServer serves Metadata at /.well-known/oauth-authorization-server through the
// library's handler, which answers the RFC 8414 path forms, HEAD and CORS preflights.
type metadataServer struct {
	op.UnimplementedMetadataServer
	s *Server
}

// AuthorizationServerMetadata answers for the issuer without a path, the only one here.
func (m metadataServer) AuthorizationServerMetadata(_ context.Context, r *op.Request[op.MetadataRequest]) (*op.Response, error) {
	if r.Data.IssuerPath != "" {
		return nil, op.NewStatusError(oidc.ErrInvalidRequest().WithDescription("no authorization server at this path"), http.StatusNotFound)
	}
	resp := op.NewResponse(m.s.Metadata())
	// Public and the same for everyone; it changes only with the configuration.
	resp.Header.Set("Cache-Control", "public, max-age=3600")
	return resp, nil
}
