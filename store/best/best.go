package best

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/adreswijzer/adreswijzer"
)

// Progress is reported while an import runs. Done and Total count input bytes (uncompressed
// for zip members) of the current phase, so a progress bar is exact without a first pass to
// count rows.
type Progress struct {
	Phase       string
	Done, Total int64
}

// Phases of an import, in the order they run. The official CSV has no references phase.
const (
	// PhaseReferences reads streets, municipalities, parts of municipality and postal infos,
	// which the addresses of the load layout and the XML only point to.
	PhaseReferences = "references"
	// PhaseAddresses reads the addresses and calls add.
	PhaseAddresses = "addresses"
)

// Options tune an import.
type Options struct {
	// Progress, when set, is called from the importing goroutine at the start and end of each
	// phase and about every MiB in between.
	Progress func(Progress)
	// Date (YYYY-MM-DD) is the register date of the data. It overrides what the input says,
	// for an operator who knows when BOSA published the files; the official CSV carries no date
	// at all. It also decides which addresses have ended (see the package documentation).
	Date string
}

// Result summarises an import.
type Result struct {
	Version adreswijzer.DatasetVersion // "best:<date>"
	// Read counts address records; Read == Kept + the sum of Skipped.
	Read     int64
	Kept     int64
	Skipped  map[string]int64 // reason (the Skip constants) -> count
	Warnings []string
}

// Reasons an address record is not passed to add, as keys of Result.Skipped.
const (
	SkipRetired             = "retired"
	SkipEnded               = "ended"
	SkipUnknownStatus       = "unknown status"
	SkipStreetMissing       = "street missing"
	SkipMunicipalityMissing = "municipality missing"
	SkipPostcodeMissing     = "postcode missing"
	SkipPostcodeInvalid     = "postcode invalid"
	SkipHouseNumberInvalid  = "house number invalid"
	SkipInvalidDate         = "invalid date"
	SkipMalformed           = "malformed row"
)

// DatasetID is the dataset id in the version ("best:2021-10-20").
const DatasetID = "best"

// Import reads BeST data given as files or directories and calls add once per current address from one goroutine.
//
// An error from add stops the import and is returned wrapped. On any error the Result is the
// zero value: the caller must not commit what add received. Input that yields no current
// address at all is an error too, so a wrong or empty file never replaces a served dataset.
func Import(ctx context.Context, files []string, add func(adreswijzer.Address) error, opts Options) (Result, error) {
	if len(files) == 0 {
		return Result{}, errors.New("import BeST: no input files given")
	}
	if add == nil {
		return Result{}, errors.New("import BeST: add is nil")
	}
	var fixedDate time.Time
	if opts.Date != "" {
		t, err := time.Parse(time.DateOnly, opts.Date)
		if err != nil {
			return Result{}, fmt.Errorf("import BeST: Options.Date must be YYYY-MM-DD: %w", err)
		}
		fixedDate = t
	}
	in, err := collect(files)
	if err != nil {
		return Result{}, err
	}
	defer in.close()

	imp := newImporter(ctx, add, opts.Progress, fixedDate)
	imp.warnings = append(imp.warnings, in.warnings...)
	switch in.format {
	case formatLayout:
		err = imp.readLayout(in)
	case formatOfficial:
		err = imp.readOfficial(in)
	case formatXML:
		err = imp.readXML(in)
	}
	if err != nil {
		return Result{}, err
	}
	if imp.kept == 0 {
		return Result{}, fmt.Errorf("import BeST: no current addresses in the input (%d address records read, skipped %v)", imp.read, imp.skipped)
	}
	date := opts.Date
	if date == "" {
		date = imp.datasetDate(in)
	}
	imp.finishWarnings()
	return Result{
		Version:  adreswijzer.JoinVersion(adreswijzer.VersionPart{ID: DatasetID, Date: date}),
		Read:     imp.read,
		Kept:     imp.kept,
		Skipped:  imp.skipped,
		Warnings: imp.warnings,
	}, nil
}

// row is one address record as any of the three formats gives it, resolved against its
// references, before the checks all formats share.
type row struct {
	id, streetID        string
	houseNumber, box    string
	postcode, status    string
	validFrom, validTo  string
	beginLife, endLife  string
	street              adreswijzer.Names
	municipality        adreswijzer.Names
	sub, postName       adreswijzer.Names
	streetMissing       bool
	municipalityMissing bool
}

// maxListedProblems caps the per-row warnings so a broken file cannot fill memory with them;
// the counts in Skipped stay exact.
const maxListedProblems = 20

type importer struct {
	ctx      context.Context
	add      func(adreswijzer.Address) error
	progress func(Progress)
	// endRef is the instant on or before which a validTo or endLifeSpanVersion means ended.
	endRef time.Time
	now    time.Time

	read, kept int64
	skipped    map[string]int64
	warnings   []string
	problems   int // malformed rows seen, for maxListedProblems

	newestRowDate string // newest validFrom/beginLifeSpanVersion date not after now
	headerDate    string // newest XML root timestamp date

	partMissing, postalNamesMissing int64
	unknownNamespaces               map[string]bool

	strs map[string]string // interned names and postcodes

	phase                string
	done, total, lastRep int64
	rows                 int64
}

func newImporter(ctx context.Context, add func(adreswijzer.Address) error, progress func(Progress), fixedDate time.Time) *importer {
	now := time.Now()
	endRef := now
	if !fixedDate.IsZero() {
		endRef = fixedDate
	}
	return &importer{
		ctx:               ctx,
		add:               add,
		progress:          progress,
		endRef:            endRef,
		now:               now,
		skipped:           map[string]int64{},
		unknownNamespaces: map[string]bool{},
		strs:              map[string]string{},
	}
}

// intern shares one copy of a repeated string (street and place names, postcodes) across all
// addresses, and detaches it from the line buffer it was cut from.
func (imp *importer) intern(s string) string {
	if s == "" {
		return ""
	}
	if v, ok := imp.strs[s]; ok {
		return v
	}
	s = strings.Clone(s)
	imp.strs[s] = s
	return s
}

func (imp *importer) internNames(n adreswijzer.Names) adreswijzer.Names {
	return adreswijzer.Names{NL: imp.intern(n.NL), FR: imp.intern(n.FR), DE: imp.intern(n.DE)}
}

func (imp *importer) skip(reason string) {
	imp.read++
	imp.skipped[reason]++
}

// malformed skips a record that could not be read at all and lists where it is. The message
// names the file, the line and the problem, never the content.
func (imp *importer) malformed(file string, line int64, problem string) {
	imp.skip(SkipMalformed)
	imp.problem(fmt.Sprintf("%s line %d: %s", file, line, problem))
}

func (imp *importer) problem(msg string) {
	imp.problems++
	if imp.problems <= maxListedProblems {
		imp.warnings = append(imp.warnings, msg)
	}
}

// noteDate keeps the newest validFrom or beginLifeSpanVersion date, the fallback dataset date.
// Dates after the import are left out: a proposed address may carry the day it will start.
func (imp *importer) noteDate(ts string) {
	if ts == "" {
		return
	}
	t, ok := parseTimestamp(ts)
	if !ok || t.After(imp.now) {
		return
	}
	if d := t.Format(time.DateOnly); d > imp.newestRowDate {
		imp.newestRowDate = d
	}
}

// emit applies the checks every format shares and hands a current address to add.
func (imp *importer) emit(r *row) error {
	imp.noteDate(r.validFrom)
	imp.noteDate(r.beginLife)

	var status adreswijzer.Status
	switch strings.ToLower(strings.TrimSpace(r.status)) {
	case "current":
		status = adreswijzer.StatusInUse
	case "proposed", "reserved":
		status = adreswijzer.StatusPlanned
	case "retired":
		imp.skip(SkipRetired)
		return nil
	default:
		imp.skip(SkipUnknownStatus)
		return nil
	}
	for _, ts := range [...]string{r.validTo, r.endLife} {
		if strings.TrimSpace(ts) == "" {
			continue
		}
		t, ok := parseTimestamp(ts)
		if !ok {
			imp.skip(SkipInvalidDate)
			return nil
		}
		if !t.After(imp.endRef) {
			imp.skip(SkipEnded)
			return nil
		}
	}
	if r.streetMissing {
		imp.skip(SkipStreetMissing)
		return nil
	}
	if r.municipalityMissing {
		imp.skip(SkipMunicipalityMissing)
		return nil
	}
	number, suffix, err := splitHouseNumber(r.houseNumber)
	if err != nil {
		imp.skip(SkipHouseNumberInvalid)
		return nil
	}
	pc := strings.TrimSpace(r.postcode)
	switch {
	case pc == "":
		imp.skip(SkipPostcodeMissing)
		return nil
	case !validPostcode(pc):
		imp.skip(SkipPostcodeInvalid)
		return nil
	}
	locality := r.postName
	if locality.IsZero() {
		locality = r.sub
	}
	if locality.IsZero() {
		locality = r.municipality
	}
	a := adreswijzer.Address{
		Country:           adreswijzer.BE,
		ID:                strings.Clone(r.id),
		StreetID:          imp.intern(r.streetID),
		Street:            r.street,
		HouseNumber:       number,
		HouseNumberSuffix: strings.Clone(suffix),
		Box:               strings.Clone(strings.TrimSpace(r.box)),
		Postcode:          imp.intern(pc),
		Locality:          locality,
		Municipality:      r.municipality,
		SubMunicipality:   r.sub,
		Status:            status,
	}
	imp.read++
	if err := imp.add(a); err != nil {
		return fmt.Errorf("add: %w", err)
	}
	imp.kept++
	return nil
}

// startPhase begins counting the bytes of a phase.
func (imp *importer) startPhase(phase string, total int64) {
	imp.phase, imp.done, imp.total, imp.lastRep = phase, 0, total, 0
	imp.report()
}

func (imp *importer) endPhase() {
	imp.done = imp.total
	imp.report()
}

func (imp *importer) report() {
	if imp.progress != nil {
		imp.progress(Progress{Phase: imp.phase, Done: imp.done, Total: imp.total})
	}
	imp.lastRep = imp.done
}

const (
	checkEvery  = 1024    // rows between context checks
	reportEvery = 1 << 20 // bytes between progress reports
)

// tick runs once per record: it notices a cancelled context and reports progress now and then.
func (imp *importer) tick() error {
	imp.rows++
	if imp.rows%checkEvery != 0 {
		return nil
	}
	if err := imp.ctx.Err(); err != nil {
		return err
	}
	if imp.done-imp.lastRep >= reportEvery {
		imp.report()
	}
	return nil
}

// countingReader adds what passes through it to the importer's progress.
type countingReader struct {
	r io.Reader
	n *int64
}

func (c countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	*c.n += int64(n)
	return n, err
}

// datasetDate picks the register date when Options.Date is not given: the XML root timestamp,
// else the newest validFrom/beginLifeSpanVersion in the rows, else the newest modification time
// of the input files, which says when the files were made at best, so it comes with a warning.
func (imp *importer) datasetDate(in *inputSet) string {
	if imp.headerDate != "" {
		return imp.headerDate
	}
	if imp.newestRowDate != "" {
		return imp.newestRowDate
	}
	var newest time.Time
	for _, s := range in.sources {
		if s.mod.After(newest) {
			newest = s.mod
		}
	}
	if newest.IsZero() {
		newest = imp.now
	}
	d := newest.UTC().Format(time.DateOnly)
	imp.warnings = append(imp.warnings, fmt.Sprintf(
		"the input carries no register date; the dataset date %s is the newest file modification time: pass Options.Date to set the date BOSA published the data", d))
	return d
}

func (imp *importer) finishWarnings() {
	if imp.problems > maxListedProblems {
		imp.warnings = append(imp.warnings, fmt.Sprintf("%d more problem rows not listed", imp.problems-maxListedProblems))
	}
	if imp.partMissing > 0 {
		imp.warnings = append(imp.warnings, fmt.Sprintf(
			"%d address records refer to a part of municipality that is not in the input; they have no sub-municipality", imp.partMissing))
	}
	if imp.postalNamesMissing > 0 {
		imp.warnings = append(imp.warnings, fmt.Sprintf(
			"%d address records refer to a postal info that is not in the input; their postcode comes from the reference and they have no postal name", imp.postalNamesMissing))
	}
	if len(imp.unknownNamespaces) > 0 {
		ns := make([]string, 0, len(imp.unknownNamespaces))
		for n := range imp.unknownNamespaces {
			ns = append(ns, n)
		}
		sort.Strings(ns)
		imp.warnings = append(imp.warnings, fmt.Sprintf(
			"unknown namespaces kept in full in the ids: %s", strings.Join(ns, ", ")))
	}
}
