package authserver

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/adreswijzer/adreswijzer/gateway/accounts"
)

// Pending is an authorization request as the consent page shows it: who asks, where the
// answer goes, and for what.
type Pending struct {
	ID         string
	ClientID   string
	ClientName string
	// RedirectHost is where the person's browser goes next: the host (and port) of the
	// redirect URI, which tells a local agent (127.0.0.1) from a web service.
	RedirectHost string
	Scope        []string
	Resource     string
}

// Pending reads a request waiting for consent, or ErrNotFound when it is unknown, was
// answered or expired.
func (s *Server) Pending(ctx context.Context, id string) (*Pending, error) {
	r, err := s.cfg.Store.Request(ctx, id, s.now())
	if err != nil {
		return nil, err
	}
	c, err := s.cfg.Store.Client(ctx, r.Client)
	if err != nil {
		return nil, err
	}
	p := &Pending{ID: r.ID, ClientID: c.ID, ClientName: c.Name, Scope: r.Scope, Resource: r.Resource}
	if u, err := url.Parse(r.RedirectURI); err == nil {
		p.RedirectHost = u.Host
	}
	return p, nil
}

// Approve answers a request with the account's consent: a code, single use and valid for a
// minute, and the URL to send the browser to with it.
func (s *Server) Approve(ctx context.Context, id, account string) (string, error) {
	r, err := s.cfg.Store.TakeRequest(ctx, id, s.now())
	if err != nil {
		return "", err
	}
	code, h, err := newToken(codePrefix)
	if err != nil {
		return "", err
	}
	c := Code{Hash: h, Request: *r, Account: account, Expires: s.now().Add(codeLifetime).UTC()}
	if err := s.cfg.Store.AddCode(ctx, c); err != nil {
		return "", fmt.Errorf("store authorization code: %w", err)
	}
	s.log.Info("agent allowed", "account", account, "client", r.Client)
	return s.answerURL(r.RedirectURI, r.State, url.Values{"code": {code}}), nil
}

// Deny answers a request with the person's refusal: access_denied to the client (RFC 6749
// §4.1.2.1).
func (s *Server) Deny(ctx context.Context, id string) (string, error) {
	r, err := s.cfg.Store.TakeRequest(ctx, id, s.now())
	if err != nil {
		return "", err
	}
	s.log.Info("agent refused by its person", "client", r.Client)
	return s.answerURL(r.RedirectURI, r.State, url.Values{"error": {"access_denied"},
		"error_description": {"the person did not allow this agent"}}), nil
}

// Agent is a connected agent as the dashboard lists it.
type Agent struct {
	Grant        string
	ClientID     string
	ClientName   string
	RedirectHost string
	Created      time.Time
}

// Agents lists the agents an account allowed and has not revoked, oldest first.
func (s *Server) Agents(ctx context.Context, account string) ([]Agent, error) {
	grants, err := s.cfg.Store.Grants(ctx, account)
	if err != nil {
		return nil, err
	}
	out := make([]Agent, 0, len(grants))
	for _, g := range grants {
		a := Agent{Grant: g.ID, ClientID: g.Client, Created: g.Created}
		c, err := s.cfg.Store.Client(ctx, g.Client)
		switch {
		case err == nil:
			a.ClientName = c.Name
			if len(c.RedirectURIs) > 0 {
				if u, err := url.Parse(c.RedirectURIs[0]); err == nil {
					a.RedirectHost = u.Hostname()
				}
			}
		case !errors.Is(err, ErrNotFound):
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// RevokeAgent revokes one of the account's grants. A grant of another account is answered
// as one that does not exist: ids cannot be probed.
func (s *Server) RevokeAgent(ctx context.Context, account, grantID string) error {
	g, err := s.cfg.Store.Grant(ctx, grantID)
	if err != nil {
		return err
	}
	if g.Account != account || !g.Active() {
		return ErrNotFound
	}
	return s.revoke(ctx, g.ID, "revoked on the dashboard")
}

// RevokeAccount revokes every grant of an account, when it is deleted.
func (s *Server) RevokeAccount(ctx context.Context, account string) error {
	grants, err := s.cfg.Store.Grants(ctx, account)
	if err != nil {
		return err
	}
	for _, g := range grants {
		if err := s.revoke(ctx, g.ID, "account deleted"); err != nil {
			return err
		}
	}
	return nil
}

// GrantStatus is what the gateway needs of a grant on every call: whether it stands, and
// whose account (and plan) the call is billed to.
type GrantStatus struct {
	Active  bool
	Account string
	Plan    string
}

// CheckGrant reports whether a grant still stands and the plan of its account, read from
// the store at most every few seconds per grant: a JWT cannot be recalled, so this is what
// stops a revoked agent. A grant whose account is gone stands no more.
func (s *Server) CheckGrant(ctx context.Context, id string) (GrantStatus, error) {
	if st, ok := s.grants.Get(id); ok {
		return st, nil
	}
	var st GrantStatus
	g, err := s.cfg.Store.Grant(ctx, id)
	switch {
	case errors.Is(err, ErrNotFound):
	case err != nil:
		return GrantStatus{}, err
	case g.Active():
		a, err := s.account(ctx, g.Account)
		if err != nil && !errors.Is(err, accounts.ErrNotFound) {
			return GrantStatus{}, err
		}
		if err == nil {
			st = GrantStatus{Active: true, Account: a.ID, Plan: a.Plan}
		}
	}
	s.grants.Add(id, st)
	return st, nil
}
