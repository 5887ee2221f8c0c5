//go:build !wasip1

// Not in wasip1 builds: the address form's WebAssembly core (wasm/) needs the domain's
// parsing, not dataset versions, and leaving this file out keeps time and context (with the
// runtime settings they register) out of the file every shopper downloads.

package adreswijzer

import (
	"errors"
	"sort"
	"strings"
	"time"
)

// DatasetVersion names the register data an answer came from: one or more
// "<dataset_id>:<date>" parts joined by "+", e.g. "bag:2021-10-15" or, after daily mutations,
// "bag:2021-10-15+bagmut:2021-11-14". The spec requires this form in meta.datasetVersion so
// callers can tell which register snapshot judged an address.
type DatasetVersion string

// VersionPart is one "<dataset_id>:<date>" element of a DatasetVersion.
type VersionPart struct {
	ID   string // e.g. "bag", "best"
	Date string // YYYY-MM-DD
}

// ErrBadVersion is returned for a version that is not "<id>:<YYYY-MM-DD>" parts joined by "+".
var ErrBadVersion = errors.New("dataset version must be <dataset_id>:<YYYY-MM-DD> parts joined by +")

// JoinVersion composes a version from its parts in the order given.
func JoinVersion(parts ...VersionPart) DatasetVersion {
	s := make([]string, len(parts))
	for i, p := range parts {
		s[i] = p.ID + ":" + p.Date
	}
	return DatasetVersion(strings.Join(s, "+"))
}

// Parts splits and checks the version.
func (v DatasetVersion) Parts() ([]VersionPart, error) {
	if v == "" {
		return nil, ErrBadVersion
	}
	var out []VersionPart
	for _, p := range strings.Split(string(v), "+") {
		id, date, ok := strings.Cut(p, ":")
		if !ok || id == "" || strings.ContainsAny(id, ": +") {
			return nil, ErrBadVersion
		}
		if _, err := time.Parse(time.DateOnly, date); err != nil {
			return nil, ErrBadVersion
		}
		out = append(out, VersionPart{ID: id, Date: date})
	}
	return out, nil
}

// Date returns the newest date among the parts: the register state the data reflects, used
// for the age in hours that /health reports.
func (v DatasetVersion) Date() (time.Time, error) {
	parts, err := v.Parts()
	if err != nil {
		return time.Time{}, err
	}
	dates := make([]string, len(parts))
	for i, p := range parts {
		dates[i] = p.Date
	}
	sort.Strings(dates)
	return time.Parse(time.DateOnly, dates[len(dates)-1])
}

// CombineVersions joins the versions of several countries' datasets for an answer that used
// more than one (an agent batch, or the health of the whole service), dropping duplicates.
func CombineVersions(vs ...DatasetVersion) DatasetVersion {
	var out []string
	for _, v := range vs {
		for _, p := range strings.Split(string(v), "+") {
			if p != "" && !contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return DatasetVersion(strings.Join(out, "+"))
}

// DatasetInfo describes one activated dataset.
type DatasetInfo struct {
	Country     Country
	Version     DatasetVersion
	ActivatedAt time.Time
	Addresses   int // addresses kept, for health and the import summary
}

// AgeHours is how old the register state is at now, from the version's newest date.
func (d DatasetInfo) AgeHours(now time.Time) float64 {
	t, err := d.Version.Date()
	if err != nil {
		return 0
	}
	return now.Sub(t).Hours()
}
