package dashboard

import (
	"errors"
	"net/http"
	"time"

	"github.com/adreswijzer/adreswijzer/gateway/accounts"
	"github.com/adreswijzer/adreswijzer/gateway/authserver"
)

// consentPage shows who asks for what: the agent's name (as it registered itself, so shown
// as its claim), where the browser goes next, the scope and the resource. A person who is
// not signed in signs in first and comes back here (signedIn keeps the URL).
func (d *Dashboard) consentPage(w http.ResponseWriter, r *http.Request, a *accounts.Account) {
	id := r.URL.Query().Get("request")
	p, err := d.pending(r, id)
	if err != nil {
		d.consentGone(w, r, err)
		return
	}
	d.render(w, r, http.StatusOK, "consent", "consent.title", "", p)
}

// pending reads a request waiting for consent; ids are bounded before any lookup.
func (d *Dashboard) pending(r *http.Request, id string) (*authserver.Pending, error) {
	if id == "" || len(id) > 100 {
		return nil, authserver.ErrNotFound
	}
	return d.cfg.OAuth.Pending(r.Context(), id)
}

// consentGone answers a request that is unknown, answered or expired, or a store that failed.
func (d *Dashboard) consentGone(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, authserver.ErrNotFound) {
		d.say(w, r, http.StatusBadRequest, "consent.title", "consent.gone", &link{Prefix + "/agents", d.t(r)("consent.toagents")})
		return
	}
	d.fail(w, r, "read authorization request", err)
}

// consent answers the request with the person's choice and sends the browser back to the
// agent: with a code when allowed, with access_denied when not.
func (d *Dashboard) consent(w http.ResponseWriter, r *http.Request, a *accounts.Account) {
	id := r.PostFormValue("request")
	if _, err := d.pending(r, id); err != nil {
		d.consentGone(w, r, err)
		return
	}
	var back string
	var err error
	switch r.PostFormValue("decision") {
	case "allow":
		back, err = d.cfg.OAuth.Approve(r.Context(), id, a.ID)
	case "deny":
		back, err = d.cfg.OAuth.Deny(r.Context(), id)
	default:
		d.say(w, r, http.StatusBadRequest, "consent.title", "consent.choose", nil)
		return
	}
	if err != nil {
		d.consentGone(w, r, err)
		return
	}
	// The redirect URI was checked against the agent's registration when the request came.
	http.Redirect(w, r, back, http.StatusSeeOther)
}

// agentRow is a connected agent as the list shows it.
type agentRow struct {
	authserver.Agent
	LastUsed time.Time
}

// agentsPage lists the agents the account allowed, with when each last called.
func (d *Dashboard) agentsPage(w http.ResponseWriter, r *http.Request, a *accounts.Account) {
	list, err := d.cfg.OAuth.Agents(r.Context(), a.ID)
	if err != nil {
		d.fail(w, r, "list agents", err)
		return
	}
	used, err := d.cfg.Usage.LastUsed(r.Context(), a.ID)
	if err != nil {
		d.fail(w, r, "read last use of agents", err)
		return
	}
	rows := make([]agentRow, 0, len(list))
	for i := len(list) - 1; i >= 0; i-- { // newest first
		rows = append(rows, agentRow{Agent: list[i], LastUsed: used[list[i].Grant]})
	}
	d.render(w, r, http.StatusOK, "agents", "agents.title", "agents", struct {
		Agents []agentRow
		MCP    string
	}{rows, d.base.String() + "/mcp"})
}

// revokeAgent revokes one of the account's agents: its next call is refused. Another
// account's grant is answered as one that does not exist.
func (d *Dashboard) revokeAgent(w http.ResponseWriter, r *http.Request, a *accounts.Account) {
	id := r.PathValue("id")
	err := d.cfg.OAuth.RevokeAgent(r.Context(), a.ID, id)
	switch {
	case errors.Is(err, authserver.ErrNotFound):
		d.say(w, r, http.StatusNotFound, "agents.title", "agents.notfound", &link{Prefix + "/agents", d.t(r)("agents.back")})
		return
	case err != nil:
		d.fail(w, r, "revoke agent", err)
		return
	}
	d.log.Info("agent revoked", "account", a.ID, "grant", id)
	http.Redirect(w, r, Prefix+"/agents", http.StatusSeeOther)
}
