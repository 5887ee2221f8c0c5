package authserver

import (
	"context"
	"errors"
	"strings"

	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// Revocation (RFC 7009) revokes the grant a refresh or access token belongs to: the agent
// signs out, and every token of that grant stops (§2.1 asks that revoking a refresh token
// revokes the access tokens of its grant; a JWT cannot be revoked alone). A token that is
// unknown, expired, or another client's is answered 200 all the same (§2.2): the answer
// must not tell whether it was valid.
func (o *opServer) Revocation(ctx context.Context, r *op.ClientRequest[oidc.RevocationRequest]) (*op.Response, error) {
	s, c := o.s, r.Client.(*opClient)
	grantID, client := "", ""
	if strings.HasPrefix(r.Data.Token, refreshPrefix) {
		// Spent by this, so it can never be used again whatever follows.
		if id, err := s.cfg.Store.UseRefresh(ctx, HashToken(r.Data.Token), s.now()); err == nil || errors.Is(err, ErrReused) {
			grantID = id
		}
	} else if claims, ok := s.parseAccess(ctx, r.Data.Token); ok {
		grantID, client = claims.Grant, claims.ClientID
	}
	if grantID == "" {
		return op.NewResponse(nil), nil
	}
	g, err := s.cfg.Store.Grant(ctx, grantID)
	switch {
	case errors.Is(err, ErrNotFound):
		return op.NewResponse(nil), nil
	case err != nil:
		return nil, serverError(err)
	case g.Client != c.ID || client != "" && client != c.ID:
		s.log.Warn("revocation of another client's token refused", "client", c.ID, "grant", g.ID)
		return op.NewResponse(nil), nil
	}
	if err := s.revoke(ctx, g.ID, "revoked by the agent"); err != nil {
		return nil, serverError(err)
	}
	return op.NewResponse(nil), nil
}

// revoke revokes a grant and forgets its cached check at once.
func (s *Server) revoke(ctx context.Context, grantID, why string) error {
	if err := s.cfg.Store.RevokeGrant(ctx, grantID, s.now()); err != nil && !errors.Is(err, ErrNotFound) {
		return err
	}
	s.grants.Remove(grantID)
	s.log.Info("agent's grant revoked", "grant", grantID, "reason", why)
	return nil
}
