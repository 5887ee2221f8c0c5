package dashboard

import (
	"cmp"
	"encoding/csv"
	"html/template"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/adreswijzer/adreswijzer/gateway/accounts"
	"github.com/adreswijzer/adreswijzer/gateway/keys"
	"github.com/adreswijzer/adreswijzer/gateway/usage"
)

// quota is the block that shows a month's verifications against the plan.
type quota struct {
	Plan                      string
	Used, Quota, Left, Capped int64
	Percent                   int
}

func (d *Dashboard) quotaOf(plan string, used int64) quota {
	q := quota{Plan: plan, Used: used, Quota: d.planQuota(plan)}
	if q.Quota >= 0 {
		q.Left = max(q.Quota-used, 0)
		q.Capped = min(used, q.Quota)
		if q.Quota > 0 {
			q.Percent = int(min(used*100/q.Quota, 100))
		}
	}
	return q
}

// planQuota is a plan's verifications a month; a plan not listed has the default plan's,
// as the gateway counts it.
func (d *Dashboard) planQuota(plan string) int64 {
	for _, p := range d.cfg.Plans {
		if p.Name == plan {
			return p.Quota
		}
	}
	for _, p := range d.cfg.Plans {
		if p.Name == d.cfg.DefaultPlan {
			return p.Quota
		}
	}
	return -1
}

// dayRow is one day of the month: the chart's bar and the table's row.
type dayRow struct {
	Day                  string
	Calls, Verifications int64
}

// routeRow is one route's month.
type routeRow struct {
	Route                string
	Calls, Verifications int64
}

type testKeyRow struct {
	ID, Name string
	Calls    int
}

type usageData struct {
	Month, Prev, Next string
	Quota             quota
	Days              []dayRow
	Routes            []routeRow
	Chart             template.HTML
	TestKeys          []testKeyRow
	TestDailyCap      int
}

// month reads ?month=YYYY-MM, the current month when absent or not a month.
func (d *Dashboard) month(r *http.Request) time.Time {
	now := d.now().UTC()
	cur := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	m, err := time.Parse("2006-01", r.URL.Query().Get("month"))
	if err != nil || m.After(cur) {
		return cur
	}
	return m
}

func (d *Dashboard) usagePage(w http.ResponseWriter, r *http.Request, a *accounts.Account) {
	m := d.month(r)
	name := m.Format("2006-01")
	totals, err := d.cfg.Usage.Get(r.Context(), a.ID, name)
	if err != nil {
		d.fail(w, r, "read usage totals", err)
		return
	}
	rows, err := d.activity(r, a.ID, name)
	if err != nil {
		d.fail(w, r, "read usage activity", err)
		return
	}
	tests, err := d.testKeys(r, a.ID)
	if err != nil {
		d.fail(w, r, "read test keys' calls", err)
		return
	}
	data := usageData{Month: name, Prev: m.AddDate(0, -1, 0).Format("2006-01"), Quota: d.quotaOf(a.Plan, totals.Verifications),
		Days: perDay(m, rows), Routes: perRoute(rows), TestKeys: tests, TestDailyCap: d.cfg.TestDailyCap}
	if next := m.AddDate(0, 1, 0); !next.After(d.now()) {
		data.Next = next.Format("2006-01")
	}
	data.Chart = chart(data.Days, d.t(r), monthName(name, d.lang(r)), d.lang(r))
	d.render(w, r, http.StatusOK, "usage", "usage.title", "usage", data)
}

func (d *Dashboard) activity(r *http.Request, account, month string) ([]usage.Activity, error) {
	from, to, err := usage.MonthDays(month)
	if err != nil {
		return nil, err
	}
	return d.cfg.Usage.Activity(r.Context(), account, from, to)
}

// perDay adds up each day of month m, days without calls included.
func perDay(m time.Time, rows []usage.Activity) []dayRow {
	days := make([]dayRow, m.AddDate(0, 1, -1).Day())
	for i := range days {
		days[i].Day = m.AddDate(0, 0, i).Format(time.DateOnly)
	}
	for _, a := range rows {
		t, err := time.Parse(time.DateOnly, a.Day)
		if err != nil || t.Year() != m.Year() || t.Month() != m.Month() {
			continue
		}
		days[t.Day()-1].Calls += a.Calls
		days[t.Day()-1].Verifications += a.Verifications
	}
	return days
}

// routeOrder is the order the routes are listed in: the request path of a checkout.
var routeOrder = []string{"suggest", "autocomplete", "lookup", "validate", "agent"}

func perRoute(rows []usage.Activity) []routeRow {
	sums := map[string]*routeRow{}
	for _, a := range rows {
		s := sums[a.Route]
		if s == nil {
			s = &routeRow{Route: a.Route}
			sums[a.Route] = s
		}
		s.Calls += a.Calls
		s.Verifications += a.Verifications
	}
	var out []routeRow
	for _, r := range routeOrder {
		if s := sums[r]; s != nil {
			out = append(out, *s)
		}
	}
	return out
}

// testKeys are the account's active test keys with their calls today, as their cap
// counts them.
func (d *Dashboard) testKeys(r *http.Request, account string) ([]testKeyRow, error) {
	list, err := d.cfg.Keys.ListAccount(r.Context(), account)
	if err != nil {
		return nil, err
	}
	var out []testKeyRow
	for _, k := range list {
		if !k.Active() || !k.Kind.Testing() {
			continue
		}
		n, err := d.cfg.Daily.DailyCalls(r.Context(), k.ID)
		if err != nil {
			return nil, err
		}
		out = append(out, testKeyRow{ID: k.ID, Name: k.Name, Calls: n})
	}
	return out, nil
}

// usageCSV exports a month's rows: one per day, key and route, with the key's name and
// kind, for a spreadsheet or a bookkeeping system.
func (d *Dashboard) usageCSV(w http.ResponseWriter, r *http.Request, a *accounts.Account) {
	name := d.month(r).Format("2006-01")
	rows, err := d.activity(r, a.ID, name)
	if err != nil {
		d.fail(w, r, "read usage activity", err)
		return
	}
	list, err := d.cfg.Keys.ListAccount(r.Context(), a.ID)
	if err != nil {
		d.fail(w, r, "list keys", err)
		return
	}
	byID := map[string]*keys.Key{}
	for _, k := range list {
		byID[k.ID] = k
	}
	slices.SortStableFunc(rows, func(x, y usage.Activity) int {
		return cmp.Or(cmp.Compare(x.Day, y.Day), cmp.Compare(x.Key, y.Key), cmp.Compare(x.Route, y.Route))
	})
	h := w.Header()
	h.Set("Content-Type", "text/csv; charset=utf-8")
	h.Set("Content-Disposition", `attachment; filename="adreswijzer-usage-`+name+`.csv"`)
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"day", "key_id", "key_name", "key_kind", "route", "calls", "verifications"})
	for _, row := range rows {
		var kname, kind string
		if k := byID[row.Key]; k != nil {
			kname, kind = csvSafe(k.Name), string(k.Kind)
		}
		_ = cw.Write([]string{row.Day, row.Key, kname, kind, row.Route,
			strconv.FormatInt(row.Calls, 10), strconv.FormatInt(row.Verifications, 10)})
	}
	cw.Flush()
}

// csvSafe keeps a name a person typed from being read as a formula by a spreadsheet.
func csvSafe(s string) string {
	if s != "" && (s[0] == '=' || s[0] == '+' || s[0] == '-' || s[0] == '@' || s[0] == '\t' || s[0] == '\r') {
		return "'" + s
	}
	return s
}
