package dashboard

import (
	"net/http"

	"github.com/adreswijzer/adreswijzer/gateway/accounts"
)

func (d *Dashboard) accountPage(w http.ResponseWriter, r *http.Request, a *accounts.Account) {
	d.render(w, r, http.StatusOK, "account", "account.title", "account", struct{ Error string }{})
}

// deleteAccount revokes every key and agent of the account first, so that a failure half way leaves
// keys revoked rather than an account gone with live keys, then deletes the account and
// ends the session.
func (d *Dashboard) deleteAccount(w http.ResponseWriter, r *http.Request, a *accounts.Account) {
	if r.PostFormValue("confirm") != "yes" {
		d.render(w, r, http.StatusUnprocessableEntity, "account", "account.title", "account",
			struct{ Error string }{d.t(r)("account.deleteneeds")})
		return
	}
	list, err := d.cfg.Keys.ListAccount(r.Context(), a.ID)
	if err != nil {
		d.fail(w, r, "list keys", err)
		return
	}
	for _, k := range list {
		if !k.Active() {
			continue
		}
		if err := d.cfg.Keys.Revoke(r.Context(), k.ID, d.now()); err != nil {
			d.fail(w, r, "revoke key", err)
			return
		}
	}
	if d.cfg.OAuth != nil {
		if err := d.cfg.OAuth.RevokeAccount(r.Context(), a.ID); err != nil {
			d.fail(w, r, "revoke agents", err)
			return
		}
	}
	if err := d.cfg.Accounts.Delete(r.Context(), a.ID); err != nil {
		d.fail(w, r, "delete account", err)
		return
	}
	if err := d.sessions.Destroy(r.Context()); err != nil {
		d.fail(w, r, "end session", err)
		return
	}
	d.log.Info("account deleted", "account", a.ID, "keys", len(list))
	r = r.WithContext(withAccount(r.Context(), nil))
	d.say(w, r, http.StatusOK, "account.deletedtitle", "account.deleted", &link{Prefix + "/signin", d.t(r)("signin.short")})
}
