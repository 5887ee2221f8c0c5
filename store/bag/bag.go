package bag

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"sort"
	"time"

	"github.com/adreswijzer/adreswijzer"
)

// Phases reported through Options.Progress.
const (
	// PhaseStand: reading the stand's object files; Done and Total count uncompressed XML
	// bytes (Total from the zip headers).
	PhaseStand = "stand"
	// PhaseMutations: reading the mutation files; bytes as for PhaseStand.
	PhaseMutations = "mutations"
	// PhaseAddresses: joining and handing over addresses; Done and Total count current
	// Nummeraanduidingen.
	PhaseAddresses = "addresses"
)

// Progress reports how far an import is. Total may be 0 when unknown.
type Progress struct {
	Phase       string
	Done, Total int64
}

// Options tune an import.
type Options struct {
	// Progress, when set, is called from the goroutine that called Import, at most about
	// four times a second, and once at the end.
	Progress func(Progress)
}

// Result summarises an import.
type Result struct {
	// Version is "bag:<StandTechnischeDatum>", with "+bagmut:<end of the last mutation
	// period>" when mutations were applied.
	Version adreswijzer.DatasetVersion
	// Read counts the object voorkomens read: Nummeraanduiding, OpenbareRuimte,
	// Woonplaats, Verblijfsobject, Ligplaats and Standplaats, stand and mutations.
	Read int64
	// Kept counts the addresses passed to add.
	Kept int64
	// Skipped accounts for every Nummeraanduiding voorkomen read that gave no address,
	// by reason; Kept plus all Skipped equals the Nummeraanduiding voorkomens read.
	Skipped map[string]int64
	// Warnings tell the operator about the input: gaps between deliveries, ignored
	// deliveries, status values this package does not know.
	Warnings []string
}

// Import reads one stand (BAGGEM…L-ddmmyyyy.zip, BAGNLDL-…zip or lvbag-extract-nl.zip) and
// zero or more daily mutation deliveries (BAGNLDM-…zip), applies the mutations in date
// order whatever order they are given in, and calls add once per current address, in
// identificatie order, from the calling goroutine. An error from add stops the import.
func Import(ctx context.Context, files []string, add func(adreswijzer.Address) error, opts Options) (Result, error) {
	start := time.Now()
	res := Result{Skipped: map[string]int64{}}
	if len(files) == 0 {
		return res, errors.New("import BAG: no files")
	}
	var ds []*delivery
	defer func() {
		for _, d := range ds {
			if err := d.close(); err != nil {
				slog.Warn("BAG import: cleanup failed", "file", d.name, "err", err)
			}
		}
	}()
	for _, f := range files {
		d, err := openDelivery(ctx, f)
		if err != nil {
			return res, fmt.Errorf("import BAG %s: %w", filepath.Base(f), err)
		}
		ds = append(ds, d)
	}
	stand, muts, warnings, err := plan(ds)
	if err != nil {
		return res, fmt.Errorf("import BAG: %w", err)
	}
	res.Warnings = warnings

	day := stand.standDay
	jobs := slices.Clone(stand.jobs)
	parts := []adreswijzer.VersionPart{{ID: "bag", Date: stand.standDay.String()}}
	gwrFrom := stand
	for _, m := range muts {
		jobs = append(jobs, m.jobs...)
		day = m.to
		if m.gwr != nil {
			gwrFrom = m
		}
	}
	if len(muts) > 0 {
		parts = append(parts, adreswijzer.VersionPart{ID: "bagmut", Date: day.String()})
	}
	res.Version = adreswijzer.JoinVersion(parts...)

	// The gemeente-woonplaats relation is read beside the object files: it is small but
	// sequential, and would otherwise wait for them.
	type gwrRead struct {
		m   map[uint16]string
		err error
	}
	gwrDone := make(chan gwrRead, 1)
	go func() {
		var r gwrRead
		if gwrFrom.gwr != nil {
			r.m, r.err = readGWR(gwrFrom.gwr, day)
		}
		gwrDone <- r
	}()
	tb, st, err := readJobs(ctx, jobs, day, opts.Progress)
	gr := <-gwrDone
	if err != nil {
		return res, fmt.Errorf("import BAG: %w", err) // err names the delivery and file
	}
	res.Read = st.read
	for k, v := range st.skipped {
		res.Skipped[k] += v
	}
	res.Warnings = append(res.Warnings, unknownWarnings(st.unknown)...)

	if gr.err != nil {
		return res, fmt.Errorf("import BAG %s: GEM-WPL-RELATIE: %w", gwrFrom.name, gr.err)
	}
	gwr := gr.m
	e := &emitter{
		t:  day,
		tb: tb,
		// The Leveringsdocument of a municipal extract names its gemeente; a woonplaats
		// gets that name only when the gemeente-woonplaats relation puts it there on the
		// version date, so a national delivery, or a woonplaats moved to another gemeente
		// by a later relation, leaves Municipality empty rather than guessed.
		municipality: func(w uint16) string { return stand.gemeenten[gwr[w]] },
		skip:         func(reason string) { res.Skipped[reason]++ },
		progress:     opts.Progress,
	}
	res.Kept, err = e.run(ctx, add)
	if err != nil {
		return res, fmt.Errorf("import BAG %s: %w", stand.name, err)
	}
	slog.Debug("BAG import done", "version", string(res.Version), "read", res.Read, "kept", res.Kept,
		"warnings", len(res.Warnings), "duration", time.Since(start))
	return res, nil
}

// plan picks the stand and orders the mutation deliveries by their period. A mutation
// period that ends on or before the stand date is already in the stand and is left out; a
// period that starts after the previous one ended leaves changes out, which the result
// warns about but does not refuse, because an address list a few days stale is still
// better than none.
func plan(ds []*delivery) (stand *delivery, muts []*delivery, warnings []string, err error) {
	for _, d := range ds {
		if !d.mutation {
			if stand != nil {
				return nil, nil, nil, fmt.Errorf("two stands given (%s and %s); give one stand and its mutations", stand.name, d.name)
			}
			stand = d
			continue
		}
		muts = append(muts, d)
	}
	if stand == nil {
		return nil, nil, nil, errors.New("no stand given: mutation deliveries apply to a stand (BAGGEM…L or BAGNLDL extract)")
	}
	sort.SliceStable(muts, func(i, j int) bool {
		if muts[i].from != muts[j].from {
			return muts[i].from < muts[j].from
		}
		return muts[i].to < muts[j].to
	})
	prev := stand.standDay
	out := muts[:0]
	for _, m := range muts {
		if m.to <= stand.standDay {
			warnings = append(warnings, fmt.Sprintf("%s: mutation period %s to %s ends on or before the stand date %s; ignored",
				m.name, m.from, m.to, stand.standDay))
			continue
		}
		if m.from > prev {
			warnings = append(warnings, fmt.Sprintf("%s: gap: no mutations between %s and %s; changes registered in between are missing",
				m.name, prev, m.from))
		}
		prev = max(prev, m.to)
		out = append(out, m)
	}
	return stand, out, warnings, nil
}

func unknownWarnings(m map[string]int64) []string {
	var out []string
	for k, v := range m {
		out = append(out, fmt.Sprintf("unknown status %s on %d voorkomens", k, v))
	}
	slices.Sort(out)
	return out
}
