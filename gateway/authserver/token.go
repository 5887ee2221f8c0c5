package authserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"

	"github.com/adreswijzer/adreswijzer/gateway/accounts"
)

// Token prefixes: a refresh token and a code say what they are, so that a leaked one is
// recognised (and a secret scanner can find it).
const (
	refreshPrefix = "awrt_"
	codePrefix    = "awco_"
)

// AccessClaims are the claims of an access token (RFC 9068): who consented (sub, the
// account id), for which resource (aud), to which client, with which scope, under which
// grant, so that the gateway can check the grant still stands.
type AccessClaims struct {
	Issuer   string `json:"iss"`
	Subject  string `json:"sub"`
	Audience string `json:"aud"`
	Expiry   int64  `json:"exp"`
	IssuedAt int64  `json:"iat"`
	ID       string `json:"jti"`
	ClientID string `json:"client_id"`
	Scope    string `json:"scope"`
	Grant    string `json:"grant"`
}

// GrantClaim is the claim that names the grant a token was issued under.
const GrantClaim = "grant"

// VerifyClient accepts the registered public clients, which send their client_id and no
// secret: a client that sends one was not registered here. Refusals are 401, as RFC 6749
// §5.2 asks of invalid_client.
func (o *opServer) VerifyClient(ctx context.Context, r *op.Request[op.ClientCredentials]) (op.Client, error) {
	if r.Data.ClientSecret != "" || r.Data.ClientAssertion != "" {
		return nil, op.NewStatusError(oidc.ErrInvalidClient().WithDescription("clients here are public: send client_id and no secret"), http.StatusUnauthorized)
	}
	c, err := o.s.cfg.Store.Client(ctx, r.Data.ClientID)
	if errors.Is(err, ErrNotFound) {
		return nil, op.NewStatusError(oidc.ErrInvalidClient().WithDescription("client_id is not a registered client"), http.StatusUnauthorized)
	}
	if err != nil {
		return nil, oidc.ErrServerError().WithParent(err).WithDescription("the client could not be read; try again")
	}
	return &opClient{Client: c}, nil
}

// invalidGrant is the refusal of a code or refresh token that does not work (RFC 6749 §5.2).
func invalidGrant(desc string) *oidc.Error { return oidc.ErrInvalidGrant().WithDescription("%s", desc) }

// serverError is a fault of ours at the token endpoint; the parent names what failed (a
// store), never what the client sent.
func serverError(err error) error {
	return op.NewStatusError(oidc.ErrServerError().WithParent(err).WithDescription("try again"), 500)
}

// CodeExchange trades a code for tokens: the code must be this client's, for this redirect
// URI, with the verifier of its S256 challenge. The grant is recorded here, when the agent
// has shown it holds the code.
func (o *opServer) CodeExchange(ctx context.Context, r *op.ClientRequest[oidc.AccessTokenRequest]) (*op.Response, error) {
	s, c := o.s, r.Client.(*opClient)
	if !s.resourceOK(r.Form["resource"]) {
		return nil, errInvalidTarget()
	}
	code, err := s.cfg.Store.UseCode(ctx, HashToken(r.Data.Code), s.now())
	switch {
	case errors.Is(err, ErrNotFound):
		return nil, invalidGrant("the code is unknown, used or expired")
	case err != nil:
		return nil, serverError(err)
	case code.Request.Client != c.ID:
		return nil, invalidGrant("the code was issued to another client")
	case r.Data.RedirectURI != code.Request.RedirectURI:
		return nil, invalidGrant("redirect_uri is not the authorization request's")
	case !validVerifier(r.Data.CodeVerifier) || !oidc.VerifyCodeChallenge(
		&oidc.CodeChallenge{Challenge: code.Request.Challenge, Method: oidc.CodeChallengeMethodS256}, r.Data.CodeVerifier):
		return nil, invalidGrant("code_verifier does not match the code_challenge")
	}
	if _, err := s.account(ctx, code.Account); err != nil {
		if errors.Is(err, accounts.ErrNotFound) {
			return nil, invalidGrant("the account that allowed the agent no longer exists")
		}
		return nil, serverError(err)
	}
	g := &Grant{Account: code.Account, Client: c.ID, Scope: code.Request.Scope, Resource: code.Request.Resource,
		Created: s.now().UTC().Truncate(time.Second)}
	if g.ID, err = newID("grt_"); err == nil {
		err = s.cfg.Store.AddGrant(ctx, g)
	}
	if err != nil {
		return nil, serverError(err)
	}
	s.log.Info("agent connected", "account", g.Account, "client", c.ID, "grant", g.ID)
	return s.tokens(ctx, c, g)
}

// validVerifier reports whether a PKCE verifier has RFC 7636's form: 43 to 128 unreserved
// characters.
func validVerifier(v string) bool {
	return len(v) >= 43 && len(v) <= 128 && !strings.ContainsFunc(v, func(r rune) bool {
		return !isBase64URL(r) && r != '.' && r != '~'
	})
}

// RefreshToken trades a refresh token for new tokens, and spends it: the old one stops
// working. A token spent before means two parties hold it; the grant is revoked, and both
// must ask their person again (OAuth 2.1 §4.3.1).
func (o *opServer) RefreshToken(ctx context.Context, r *op.ClientRequest[oidc.RefreshTokenRequest]) (*op.Response, error) {
	s, c := o.s, r.Client.(*opClient)
	if !s.resourceOK(r.Form["resource"]) {
		return nil, errInvalidTarget()
	}
	grantID, err := s.cfg.Store.UseRefresh(ctx, HashToken(r.Data.RefreshToken), s.now())
	switch {
	case errors.Is(err, ErrReused):
		if err := s.revoke(ctx, grantID, "refresh token used twice"); err != nil {
			return nil, serverError(err)
		}
		return nil, invalidGrant("the refresh token was used before; the agent must be allowed again")
	case errors.Is(err, ErrNotFound):
		return nil, invalidGrant("the refresh token is unknown, used or expired")
	case err != nil:
		return nil, serverError(err)
	}
	g, err := s.cfg.Store.Grant(ctx, grantID)
	switch {
	case errors.Is(err, ErrNotFound) || err == nil && !g.Active():
		return nil, invalidGrant("the agent's access was revoked")
	case err != nil:
		return nil, serverError(err)
	case g.Client != c.ID:
		return nil, invalidGrant("the refresh token was issued to another client")
	}
	for _, sc := range r.Data.Scopes {
		if sc != Scope && sc != oidc.ScopeOfflineAccess {
			return nil, oidc.ErrInvalidScope().WithDescription("scope may only be %s", Scope)
		}
	}
	if _, err := s.account(ctx, g.Account); err != nil {
		if errors.Is(err, accounts.ErrNotFound) {
			return nil, invalidGrant("the account that allowed the agent no longer exists")
		}
		return nil, serverError(err)
	}
	return s.tokens(ctx, c, g)
}

// tokens issues an access token for a grant, and a refresh token when the client
// registered the refresh grant.
func (s *Server) tokens(ctx context.Context, c *opClient, g *Grant) (*op.Response, error) {
	access, err := s.accessToken(ctx, g)
	if err != nil {
		return nil, serverError(err)
	}
	resp := &oidc.AccessTokenResponse{AccessToken: access, TokenType: oidc.BearerToken,
		ExpiresIn: uint64(s.cfg.TokenLifetime.Seconds()), Scope: g.Scope}
	if c.Refreshes() {
		token, h, err := newToken(refreshPrefix)
		if err == nil {
			err = s.cfg.Store.AddRefresh(ctx, Refresh{Hash: h, Grant: g.ID, Expires: s.now().Add(s.cfg.RefreshLifetime).UTC()})
		}
		if err != nil {
			return nil, serverError(err)
		}
		resp.RefreshToken = token
	}
	return op.NewResponse(resp), nil
}

// accessToken signs an access token for a grant with the current key.
func (s *Server) accessToken(ctx context.Context, g *Grant) (string, error) {
	k, err := s.keys.signer(ctx)
	if err != nil {
		return "", err
	}
	jti, err := newID("at_")
	if err != nil {
		return "", err
	}
	now := s.now()
	claims := AccessClaims{Issuer: s.cfg.Issuer, Subject: g.Account, Audience: g.Resource,
		Expiry: now.Add(s.cfg.TokenLifetime).Unix(), IssuedAt: now.Unix(), ID: jti, ClientID: g.Client,
		Scope: strings.Join(g.Scope, " "), Grant: g.ID}
	opts := (&jose.SignerOptions{}).WithType("at+jwt").WithHeader(jose.HeaderKey("kid"), k.ID)
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: k.priv}, opts)
	if err != nil {
		return "", fmt.Errorf("access token: %w", err)
	}
	raw, err := jwt.Signed(signer).Claims(claims).Serialize()
	if err != nil {
		return "", fmt.Errorf("access token: %w", err)
	}
	return raw, nil
}

// parseAccess reads an access token this server signed, whatever its age, for revocation.
func (s *Server) parseAccess(ctx context.Context, raw string) (*AccessClaims, bool) {
	tok, err := jwt.ParseSigned(raw, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil || len(tok.Headers) != 1 {
		return nil, false
	}
	keys, err := s.keys.public(ctx)
	if err != nil {
		return nil, false
	}
	i := slices.IndexFunc(keys, func(k ringKey) bool { return k.ID == tok.Headers[0].KeyID })
	if i < 0 {
		return nil, false
	}
	var c AccessClaims
	if err := tok.Claims(&keys[i].priv.PublicKey, &c); err != nil || c.Issuer != s.cfg.Issuer {
		return nil, false
	}
	return &c, true
}

// Keys is the key set (RFC 7517) tokens are verified with. The first call makes the first
// key, so that the set is never empty.
func (o *opServer) Keys(ctx context.Context, _ *op.Request[struct{}]) (*op.Response, error) {
	if _, err := o.s.keys.signer(ctx); err != nil {
		return nil, serverError(err)
	}
	keys, err := o.s.keys.public(ctx)
	if err != nil {
		return nil, serverError(err)
	}
	resp := op.NewResponse(jwks(keys))
	// Verifiers may keep it a minute: a new key is published longer than that before it signs.
	resp.Header.Set("Cache-Control", "public, max-age=60")
	return resp, nil
}
