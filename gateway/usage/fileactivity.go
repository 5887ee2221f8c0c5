package usage

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"
)

// fileRow is an activity row in the usage file, under its account and day.
type fileRow struct {
	Key           string    `json:"key"`
	Route         string    `json:"route"`
	Calls         int64     `json:"calls"`
	Verifications int64     `json:"verifications"`
	LastUsed      time.Time `json:"lastUsed"`
}

// checkDays refuses a batch with a row whose day is not a date, as Postgres does, so that
// both sinks take the same batches and the file holds no row that no read would find.
func checkDays(rows []Activity) error {
	for _, a := range rows {
		if _, err := time.Parse(time.DateOnly, a.Day); err != nil {
			return fmt.Errorf("activity day %q: want YYYY-MM-DD", a.Day)
		}
	}
	return nil
}

// addActivity merges activity rows into the file's days and credentials' last use. A day's
// rows are copied before they change, so that undo can put the old ones back.
func (s *FileSink) addActivity(rows []Activity, undo *undoLog) {
	for _, a := range rows {
		days := inner(s.data.Activity, a.Account, undo)
		keep(undo, days, a.Day)
		day := slices.Clone(days[a.Day])
		i := slices.IndexFunc(day, func(r fileRow) bool { return r.Key == a.Key && r.Route == a.Route })
		if i < 0 {
			day = append(day, fileRow{Key: a.Key, Route: a.Route})
			day[len(day)-1].add(a)
			slices.SortFunc(day, compareRows)
		} else {
			day[i].add(a)
		}
		days[a.Day] = day

		last := inner(s.data.LastUsed, a.Account, undo)
		if a.LastUsed.After(last[a.Key]) {
			keep(undo, last, a.Key)
			last[a.Key] = a.LastUsed.UTC()
		}
	}
}

// add merges an activity count into the row: counts add up, the later time stays.
func (r *fileRow) add(a Activity) {
	r.Calls += a.Calls
	r.Verifications += a.Verifications
	if a.LastUsed.After(r.LastUsed) {
		r.LastUsed = a.LastUsed.UTC()
	}
}

// compareRows orders a day's rows by credential and route, so that the file reads and
// diffs the same way every time.
func compareRows(a, b fileRow) int {
	return cmp.Or(cmp.Compare(a.Key, b.Key), cmp.Compare(a.Route, b.Route))
}

// Activity returns an account's rows from day from to day to, both included.
func (s *FileSink) Activity(_ context.Context, account, from, to string) ([]Activity, error) {
	first, last, err := CheckSpan(from, to)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	days := s.data.Activity[account]
	var out []Activity
	for d := first; !d.After(last); d = d.AddDate(0, 0, 1) {
		day := d.Format(time.DateOnly)
		for _, r := range days[day] {
			out = append(out, Activity{Account: account, Key: r.Key, Day: day, Route: r.Route,
				Calls: r.Calls, Verifications: r.Verifications, LastUsed: r.LastUsed})
		}
	}
	return out, nil
}

// LastUsed returns when each credential of an account last had a call answered.
func (s *FileSink) LastUsed(_ context.Context, account string) (map[string]time.Time, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]time.Time, len(s.data.LastUsed[account]))
	for k, t := range s.data.LastUsed[account] {
		out[k] = t
	}
	return out, nil
}
