package dashboard

import (
	"net/http"
)

// planRow is a plan as the plans page lists it.
type planRow struct {
	Plan
	Current bool
}

// plans is the page QUOTA_EXCEEDED's upgradeUrl points to: every plan's quota, the
// account's own marked, and how to ask for another. No payment is taken here.
func (d *Dashboard) plans(w http.ResponseWriter, r *http.Request) {
	current := ""
	a, err := d.current(r.Context())
	if err == nil {
		current = a.Plan
		r = r.WithContext(withAccount(r.Context(), a))
	}
	rows := make([]planRow, len(d.cfg.Plans))
	for i, p := range d.cfg.Plans {
		rows[i] = planRow{Plan: p, Current: p.Name == current}
	}
	d.render(w, r, http.StatusOK, "plans", "plans.title", "plans", struct {
		Plans        []planRow
		TestDailyCap int
		Contact      string
	}{rows, d.cfg.TestDailyCap, d.cfg.PlanContact})
}
