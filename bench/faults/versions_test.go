//go:build faults

package faults_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/adreswijzer/adreswijzer"
)

// step is one dataset activation of a country during the load.
type step struct {
	country  adreswijzer.Country
	from, to string
	start    time.Time // the import (or the snapshot move) began
	agreed   time.Time // every worker's /health was seen serving it
}

// newer reports whether version a has a later register date than b.
func newer(a, b string) bool {
	da, err1 := adreswijzer.DatasetVersion(a).Date()
	db, err2 := adreswijzer.DatasetVersion(b).Date()
	return err1 == nil && err2 == nil && da.After(db)
}

// checkVersions holds the answers around each activation to the versions served:
//
//   - between the start of an activation and the next one, answers are of the old or the
//     new version only;
//   - a request sent after every worker serves the new version is not answered from the
//     old one by a worker (a worker's /health and its answers read the same active dataset);
//   - the gateway's cache: once a caller has been answered from a newer version, no cached
//     answer of the older one follows. The gateway learns a newer version from the first
//     answer that carries it. A switch to an older register date (a rollback) it follows
//     only when every worker agrees, by its one-second poll of their /health; so after a
//     rollback, cached answers of the newer version may go on until that poll, and no
//     longer. How long they went on is reported.
func checkVersions(t *testing.T, l *load, steps []step) {
	t.Helper()
	f := newFindings()
	recs := l.records()
	for i, st := range steps {
		end := time.Now().Add(time.Hour)
		for _, next := range steps[i+1:] {
			if next.country == st.country {
				end = next.start
				break
			}
		}
		forward := newer(st.to, st.from)
		// When the caller first saw the new version, in any answer.
		var seen time.Time
		for _, r := range recs {
			if r.call.country == st.country && r.status == http.StatusOK && r.version == st.to &&
				!r.start.Before(st.start) && (seen.IsZero() || r.end.Before(seen)) {
				seen = r.end
			}
		}
		var lastStale time.Time
		for k := range recs {
			r := &recs[k]
			if r.call.country != st.country || r.status != http.StatusOK || r.start.Before(st.start) || !r.start.Before(end) {
				continue
			}
			if r.version != st.from && r.version != st.to {
				f.add("answer of neither version around an activation", "%s: %q during %s → %s", at(l, r), r.version, st.from, st.to)
				continue
			}
			if r.version != st.from {
				continue
			}
			if r.cache != "HIT" {
				if r.start.After(st.agreed) {
					f.add("old version answered after every worker switched", "%s: %s, every worker served %s from +%.2fs",
						at(l, r), r.version, st.to, st.agreed.Sub(l.started).Seconds())
				}
				continue
			}
			if r.start.After(lastStale) {
				lastStale = r.start
			}
			switch {
			case forward && !seen.IsZero() && r.start.After(seen):
				f.add("gateway cache served the old version after the new one was answered", "%s: cached %s, %s answered at +%.2fs",
					at(l, r), r.version, st.to, seen.Sub(l.started).Seconds())
			case !forward && r.start.After(st.agreed.Add(2*gatewayPoll+500*time.Millisecond)):
				f.add("gateway cache served the old version after its poll could know the new one", "%s: cached %s, every worker served %s from +%.2fs",
					at(l, r), r.version, st.to, st.agreed.Sub(l.started).Seconds())
			}
		}
		kind := "newer register date"
		if !forward {
			kind = "older register date (rollback)"
		}
		switch {
		case seen.IsZero():
			t.Logf("%s %s → %s (%s): no answer of the new version seen", st.country, st.from, st.to, kind)
		case lastStale.After(seen):
			t.Logf("%s %s → %s (%s): cached answers of %s went on %v after callers got %s",
				st.country, st.from, st.to, kind, st.from, lastStale.Sub(seen).Round(10*time.Millisecond), st.to)
		default:
			t.Logf("%s %s → %s (%s): no cached answer of %s after callers got %s", st.country, st.from, st.to, kind, st.from, st.to)
		}
	}
	f.report(t)
}
