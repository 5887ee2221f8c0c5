package dashboard

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/adreswijzer/adreswijzer/gateway/accounts"
	"github.com/adreswijzer/adreswijzer/gateway/codehost"
)

// Provider is a code-hosting sign-in.
type Provider = codehost.Provider

func (d *Dashboard) provider(name string) Provider {
	for _, p := range d.cfg.Providers {
		if p.Name() == name {
			return p
		}
	}
	return nil
}

// beginProvider sends the browser to the code host, keeping state, PKCE verifier and nonce
// in the session.
func (d *Dashboard) beginProvider(w http.ResponseWriter, r *http.Request) {
	p := d.provider(r.PathValue("provider"))
	if p == nil {
		d.providerFailed(w, r, http.StatusNotFound, "provider.unknown")
		return
	}
	pending, err := p.Begin(r.Context(), d.url(Prefix+"/signin/"+p.Name()+"/callback"))
	if err != nil {
		d.providerError(w, r, err)
		return
	}
	b, err := json.Marshal(pending)
	if err != nil {
		d.fail(w, r, "keep code-host sign-in", err)
		return
	}
	d.sessions.Put(r.Context(), keyPending, string(b))
	http.Redirect(w, r, pending.URL, http.StatusSeeOther)
}

// completeProvider finishes the sign-in: the account is found by the identity, else by
// the verified e-mail address (so that e-mail and code-host sign-in reach one account),
// else made.
func (d *Dashboard) completeProvider(w http.ResponseWriter, r *http.Request) {
	p := d.provider(r.PathValue("provider"))
	if p == nil {
		d.providerFailed(w, r, http.StatusNotFound, "provider.unknown")
		return
	}
	var pending codehost.Pending
	raw := d.sessions.PopString(r.Context(), keyPending)
	if raw == "" || json.Unmarshal([]byte(raw), &pending) != nil || pending.Provider != p.Name() {
		d.providerFailed(w, r, http.StatusBadRequest, "provider.state")
		return
	}
	id, err := p.Complete(r.Context(), pending, r.URL.Query())
	if err != nil {
		d.providerError(w, r, err)
		return
	}
	a, created, err := d.identityAccount(r, id)
	if err != nil {
		d.fail(w, r, "open account of identity", err)
		return
	}
	d.finishSignIn(w, r, a, created, p.Name())
}

// identityAccount finds or makes the account of a code-host identity and links the two.
func (d *Dashboard) identityAccount(r *http.Request, id codehost.Identity) (*accounts.Account, bool, error) {
	ctx := r.Context()
	a, err := d.cfg.Accounts.ByIdentity(ctx, id.Provider, id.Subject)
	if err == nil || !errors.Is(err, accounts.ErrNotFound) {
		return a, false, err
	}
	email, err := accounts.NormaliseEmail(id.Email)
	if err != nil {
		return nil, false, err
	}
	a, created, err := accounts.Open(ctx, d.cfg.Accounts, email, d.cfg.DefaultPlan, d.lang(r), d.now())
	if err != nil {
		return nil, false, err
	}
	err = d.cfg.Accounts.AddIdentity(ctx, accounts.Identity{Provider: id.Provider, Subject: id.Subject, Account: a.ID, Created: d.now()})
	if err != nil && !errors.Is(err, accounts.ErrExists) {
		return nil, false, err
	}
	return a, created, nil
}

// providerError shows what went wrong at the code host, as a page that says what to do;
// never a 500, for the fault is not ours to fix.
func (d *Dashboard) providerError(w http.ResponseWriter, r *http.Request, err error) {
	d.log.Warn("code-host sign-in failed", "error", err)
	switch {
	case errors.Is(err, codehost.ErrStateMismatch):
		d.providerFailed(w, r, http.StatusBadRequest, "provider.state")
	case errors.Is(err, codehost.ErrDenied):
		d.providerFailed(w, r, http.StatusForbidden, "provider.denied")
	case errors.Is(err, codehost.ErrUnverifiedEmail):
		d.providerFailed(w, r, http.StatusForbidden, "provider.unverified")
	case errors.Is(err, codehost.ErrExchange):
		d.providerFailed(w, r, http.StatusBadGateway, "provider.exchange")
	default:
		d.providerFailed(w, r, http.StatusServiceUnavailable, "provider.down")
	}
}

func (d *Dashboard) providerFailed(w http.ResponseWriter, r *http.Request, status int, body string) {
	d.say(w, r, status, "provider.title", body, &link{Prefix + "/signin", d.t(r)("provider.back")})
}
