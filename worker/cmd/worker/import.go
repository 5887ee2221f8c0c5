package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/store/bag"
	"github.com/adreswijzer/adreswijzer/store/best"
	"github.com/adreswijzer/adreswijzer/store/memory"
	"github.com/adreswijzer/adreswijzer/store/postgres"
)

// importConfig is a parsed import command line.
type importConfig struct {
	country     adreswijzer.Country
	files       []string
	date        string
	databaseURL string
	snapshot    string
	quiet       bool
}

func parseImport(args []string, stderr io.Writer) (importConfig, error) {
	fs := flag.NewFlagSet("worker import", flag.ContinueOnError)
	country := fs.String("country", "", "country of the register: nl (BAG) or be (BeST Address)")
	var from listFlag
	fs.Var(&from, "from", "register `FILE`s or directories; repeat the option or list them after it")
	date := fs.String("date", "", "register date `YYYY-MM-DD` of a BeST delivery (be only; the official CSV carries none)")
	dbURL := fs.String("database-url", "", "import into Postgres at `URL` (default $DATABASE_URL)")
	snapshot := fs.String("snapshot", "", "import into the snapshot `FILE` of the embedded store")
	quiet := fs.Bool("quiet", false, "no progress, only warnings and the summary")
	rest, err := parse(fs, args, stderr)
	if err != nil {
		return importConfig{}, err
	}
	cfg := importConfig{files: append([]string(from), rest...), date: *date, databaseURL: *dbURL, snapshot: *snapshot, quiet: *quiet}
	c, ok := adreswijzer.ParseCountry(*country)
	switch {
	case *country == "":
		return cfg, usagef("--country is required (nl or be)")
	case !ok:
		return cfg, usagef("--country must be nl or be")
	}
	cfg.country = c
	if len(cfg.files) == 0 {
		return cfg, usagef("--from is required: the register files to import")
	}
	if cfg.date != "" {
		if c != adreswijzer.BE {
			return cfg, usagef("--date applies to be only: a BAG extract names its own date")
		}
		if _, err := time.Parse(time.DateOnly, cfg.date); err != nil {
			return cfg, usagef("--date must be YYYY-MM-DD")
		}
	}
	if cfg.snapshot != "" && cfg.databaseURL != "" {
		return cfg, usagef("give --snapshot or --database-url, not both")
	}
	if cfg.snapshot == "" && cfg.databaseURL == "" {
		cfg.databaseURL = os.Getenv("DATABASE_URL")
	}
	if cfg.snapshot == "" && cfg.databaseURL == "" {
		return cfg, usagef("give --snapshot FILE or --database-url URL (or set DATABASE_URL)")
	}
	return cfg, nil
}

// importCmd runs the importer of the country into a new dataset of the chosen store and
// activates it. On any error, or an interrupt, the dataset is abandoned and the previous
// one keeps serving.
func importCmd(ctx context.Context, args []string, stdout, stderr io.Writer, log *slog.Logger) error {
	cfg, err := parseImport(args, stderr)
	if err != nil {
		return err
	}
	for _, f := range cfg.files {
		if _, err := os.Stat(f); err != nil {
			return fmt.Errorf("register input: %w", err)
		}
	}
	start := time.Now()
	loader, closeLoader, err := openLoader(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer closeLoader()

	w, err := loader.Begin(ctx, cfg.country)
	if err != nil {
		return fmt.Errorf("begin %s dataset: %w", cfg.country, err)
	}
	prog := newProgress(stderr, cfg.country, cfg.quiet)
	res, err := runImporter(ctx, cfg, w.Add, prog)
	if err != nil {
		prog.abandon()
		// The context may be the interrupted one; the abort must still run.
		if aerr := w.Abort(context.WithoutCancel(ctx)); aerr != nil {
			log.Warn("abandoned dataset not cleaned up; the next import removes it", "err", aerr)
		}
		return fmt.Errorf("import %s: %w", cfg.country, err)
	}
	prog.commit()
	info, err := w.Commit(ctx, res.version)
	if err != nil {
		prog.abandon()
		return fmt.Errorf("activate %s dataset %s: %w", cfg.country, res.version, err)
	}
	prog.done()
	for _, warn := range res.warnings {
		fmt.Fprintf(stderr, "warning: %s\n", warn)
	}
	fmt.Fprintln(stdout, summary(info, res, time.Since(start)))
	return nil
}

// openLoader opens the store the import writes to. The snapshot's directory is checked
// first, so a typo costs a second rather than a whole import.
func openLoader(ctx context.Context, cfg importConfig, log *slog.Logger) (adreswijzer.Loader, func(), error) {
	if cfg.snapshot != "" {
		dir := filepath.Dir(cfg.snapshot)
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return nil, nil, fmt.Errorf("snapshot directory %s: not a directory", dir)
		}
		s := memory.New(memory.Options{
			Snapshots: map[adreswijzer.Country]string{cfg.country: cfg.snapshot},
			Logger:    log,
		})
		return s, func() {}, nil
	}
	s, err := postgres.Open(ctx, cfg.databaseURL, postgres.Options{Logger: log})
	if err != nil {
		return nil, nil, err
	}
	return s, s.Close, nil
}

// imported is what the two importers' results have in common.
type imported struct {
	version  adreswijzer.DatasetVersion
	read     int64
	kept     int64
	skipped  map[string]int64
	warnings []string
}

func runImporter(ctx context.Context, cfg importConfig, add func(adreswijzer.Address) error, p *progress) (imported, error) {
	switch cfg.country {
	case adreswijzer.NL:
		res, err := bag.Import(ctx, cfg.files, add, bag.Options{Progress: func(pr bag.Progress) {
			unit := unitBytes
			if pr.Phase == bag.PhaseAddresses {
				unit = unitAddresses
			}
			p.update(pr.Phase, pr.Done, pr.Total, unit)
		}})
		return imported{res.Version, res.Read, res.Kept, res.Skipped, res.Warnings}, err
	case adreswijzer.BE:
		res, err := best.Import(ctx, cfg.files, add, best.Options{Date: cfg.date, Progress: func(pr best.Progress) {
			p.update(pr.Phase, pr.Done, pr.Total, unitBytes)
		}})
		return imported{res.Version, res.Read, res.Kept, res.Skipped, res.Warnings}, err
	}
	return imported{}, errors.New("no importer for this country")
}

// summary is the one line an import ends with, e.g.
//
//	NL bag:2021-10-15 active: 71234 records read, 12694 addresses kept, 3419 skipped (ended 3400, no street 19), 15.8 s
func summary(info adreswijzer.DatasetInfo, res imported, took time.Duration) string {
	var skipped int64
	reasons := make([]string, 0, len(res.skipped))
	for _, r := range slices.Sorted(maps.Keys(res.skipped)) {
		if n := res.skipped[r]; n > 0 {
			skipped += n
			reasons = append(reasons, fmt.Sprintf("%s %d", r, n))
		}
	}
	s := fmt.Sprintf("%s %s active: %d records read, %d addresses kept, %d skipped", info.Country, info.Version, res.read, info.Addresses, skipped)
	if len(reasons) > 0 {
		s += " (" + strings.Join(reasons, ", ") + ")"
	}
	return s + fmt.Sprintf(", %.1f s", took.Seconds())
}
