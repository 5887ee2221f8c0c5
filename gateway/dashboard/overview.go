package dashboard

import (
	"net/http"

	"github.com/adreswijzer/adreswijzer/gateway/accounts"
	"github.com/adreswijzer/adreswijzer/gateway/usage"
)

// overview is the first page after signing in: this month against the plan, and the keys.
func (d *Dashboard) overview(w http.ResponseWriter, r *http.Request, a *accounts.Account) {
	totals, err := d.cfg.Usage.Get(r.Context(), a.ID, usage.Month(d.now()))
	if err != nil {
		d.fail(w, r, "read usage totals", err)
		return
	}
	list, err := d.cfg.Keys.ListAccount(r.Context(), a.ID)
	if err != nil {
		d.fail(w, r, "list keys", err)
		return
	}
	d.render(w, r, http.StatusOK, "overview", "overview.title", "overview", struct {
		Quota      quota
		ActiveKeys int
	}{d.quotaOf(a.Plan, totals.Verifications), countActive(list)})
}
