package authserver

import (
	"context"
	"errors"
	"net/url"
	"slices"
	"strings"

	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// opServer is the library's Server interface over this server: the endpoints it routes to
// us. Unimplemented ones (userinfo, introspection, other grants) answer as the library's
// default does: 404, or unsupported_grant_type at the token endpoint.
type opServer struct {
	op.UnimplementedServer
	s *Server
}

// errInvalidTarget is RFC 8707's refusal of a resource this server issues no tokens for.
func errInvalidTarget() *oidc.Error {
	return &oidc.Error{ErrorType: oidc.InvalidTarget, Description: "resource must be the agent interface (/mcp) of this service"}
}

// VerifyAuthRequest finds the client and checks the redirect URI against it: until both are
// known good, a fault is shown to the person (as the library writes it) and never sent to
// the redirect URI, which could be anyone's. Faults of the rest of the request are found
// here too but kept on the client (opClient.refusal) and the request set so that the
// library's own checks pass; Authorize then sends them to the client. So every refusal
// after this point is ours to word and to log, and none carries the request's state into a
// log line.
func (o *opServer) VerifyAuthRequest(ctx context.Context, r *op.Request[oidc.AuthRequest]) (*op.ClientRequest[oidc.AuthRequest], error) {
	a := r.Data
	if a.RequestParam != "" {
		return nil, oidc.ErrRequestNotSupported().WithDescription("request objects are not supported")
	}
	if a.ClientID == "" {
		return nil, oidc.ErrInvalidRequestRedirectURI().WithDescription("client_id is missing")
	}
	c, err := o.s.cfg.Store.Client(ctx, a.ClientID)
	if errors.Is(err, ErrNotFound) {
		return nil, oidc.ErrInvalidRequestRedirectURI().WithDescription("client_id is not a registered client; register at %s", o.s.url(RegisterPath))
	}
	if err != nil {
		return nil, oidc.ErrServerError().WithParent(err).WithDescription("the client could not be read; try again")
	}
	if a.RedirectURI == "" || !c.redirectAllowed(a.RedirectURI) {
		return nil, oidc.ErrInvalidRequestRedirectURI().WithDescription("redirect_uri is not one the client registered")
	}
	refusal := o.s.refusal(a, r.Form)
	if refusal != nil {
		a.ResponseType, a.CodeChallengeMethod, a.Prompt = oidc.ResponseTypeCode, oidc.CodeChallengeMethodS256, nil
	}
	if len(a.Scopes) == 0 {
		a.Scopes = oidc.SpaceDelimitedArray{Scope}
	}
	return &op.ClientRequest[oidc.AuthRequest]{Request: r, Client: &opClient{Client: c, refusal: refusal}}, nil
}

// maxState bounds the state kept with a request waiting for consent.
const maxState = 1024

// refusal checks what the authorization request asks for: the code flow, PKCE with S256
// (never plain: a challenge that is the verifier protects nothing), answers in the query,
// a person to ask, and the /mcp resource.
func (s *Server) refusal(a *oidc.AuthRequest, form url.Values) *oidc.Error {
	switch {
	case a.ResponseType != oidc.ResponseTypeCode:
		return &oidc.Error{ErrorType: "unsupported_response_type", Description: "response_type must be code"}
	case a.CodeChallenge == "":
		return oidc.ErrInvalidRequest().WithDescription("code_challenge is required (PKCE, RFC 7636) with code_challenge_method S256")
	case a.CodeChallengeMethod != oidc.CodeChallengeMethodS256:
		return oidc.ErrInvalidRequest().WithDescription("code_challenge_method must be S256")
	case !validChallenge(a.CodeChallenge):
		return oidc.ErrInvalidRequest().WithDescription("code_challenge must be the base64url SHA-256 of the verifier (43 characters)")
	case a.ResponseMode != "" && a.ResponseMode != oidc.ResponseModeQuery:
		return oidc.ErrInvalidRequest().WithDescription("response_mode must be query")
	case slices.Contains(a.Prompt, oidc.PromptNone):
		return oidc.ErrInteractionRequired().WithDescription("an agent is only allowed by its person, on the consent page")
	case len(a.State) > maxState:
		return oidc.ErrInvalidRequest().WithDescription("state is too long")
	case !s.resourceOK(form["resource"]):
		return errInvalidTarget()
	}
	return nil
}

// validChallenge reports whether a S256 challenge has its one possible form: 32 bytes in
// unpadded base64url.
func validChallenge(c string) bool {
	return len(c) == 43 && !strings.ContainsFunc(c, func(r rune) bool { return !isBase64URL(r) })
}

func isBase64URL(r rune) bool {
	return r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_'
}

// resourceOK accepts no resource parameter (the one resource is meant) or only the
// configured one (RFC 8707); a trailing slash is the same resource.
func (s *Server) resourceOK(resources []string) bool {
	for _, r := range resources {
		if strings.TrimSuffix(r, "/") != strings.TrimSuffix(s.cfg.Resource, "/") {
			return false
		}
	}
	return true
}

// Authorize keeps the request and sends the person to the consent page, or sends a refusal
// found by VerifyAuthRequest to the client.
func (o *opServer) Authorize(ctx context.Context, r *op.ClientRequest[oidc.AuthRequest]) (*op.Redirect, error) {
	a, c := r.Data, r.Client.(*opClient)
	if c.refusal != nil {
		o.s.log.Info("authorization request refused", "client", c.ID, "error", string(c.refusal.ErrorType))
		return op.NewRedirect(o.s.answerURL(a.RedirectURI, a.State, url.Values{
			"error": {string(c.refusal.ErrorType)}, "error_description": {c.refusal.Description}})), nil
	}
	id, err := newID("req_")
	if err != nil {
		return nil, op.NewStatusError(oidc.ErrServerError().WithParent(err), 500)
	}
	req := Request{ID: id, Client: c.ID, RedirectURI: a.RedirectURI, State: a.State, Challenge: a.CodeChallenge,
		Scope: []string{Scope}, Resource: o.s.cfg.Resource, Expires: o.s.now().Add(requestLifetime).UTC()}
	if err := o.s.cfg.Store.AddRequest(ctx, req); err != nil {
		return nil, op.NewStatusError(oidc.ErrServerError().WithParent(err).WithDescription("the request could not be kept; try again"), 500)
	}
	return op.NewRedirect(o.s.cfg.ConsentURL + "?request=" + url.QueryEscape(id)), nil
}

// answerURL is the redirect URI with an authorization response in its query: the params,
// the client's state and this server's issuer (RFC 9207), which tells a client talking to
// several servers which one answered.
func (s *Server) answerURL(redirectURI, state string, params url.Values) string {
	u, err := url.Parse(redirectURI)
	if err != nil {
		return redirectURI // checked against the client's registration before: cannot happen
	}
	q := u.Query()
	for k, v := range params {
		q[k] = v
	}
	if state != "" {
		q.Set("state", state)
	}
	q.Set("iss", s.cfg.Issuer)
	u.RawQuery = q.Encode()
	return u.String()
}
