package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/adreswijzer/adreswijzer/bench/measure"
)

// imported is one timed `worker import`.
type imported struct {
	country, store string
	wall, cpu      float64
	maxRSS         int64
	addresses      int64
	// serverCPU is what the Postgres backends of the import's database used.
	serverCPU  float64
	otherCores float64
	load1      float64
}

func (im imported) rate() float64 { return float64(im.addresses) / im.wall }

var importSummary = regexp.MustCompile(`(\d+) records read, (\d+) addresses kept`)

// runImport times one import. into is a snapshot path, or a database URL when db names the
// database (whose backends' CPU is then measured as the server side).
func runImport(ctx context.Context, cfg config, work, country string, from []string, into, db, date string, g measure.Guard, log io.Writer) (imported, error) {
	im := imported{country: country, store: "memory"}
	argv := []string{cfg.worker, "import", "--country", country, "--quiet"}
	for _, f := range from {
		argv = append(argv, "--from", f)
	}
	if date != "" {
		argv = append(argv, "--date", date)
	}
	pids := measure.StaticPIDs()
	if db != "" {
		im.store = "postgres"
		argv = append(argv, "--database-url", into)
		pids = backendsOf(db)
	} else {
		argv = append(argv, "--snapshot", into)
	}
	q := g.Wait(ctx)
	im.load1 = q.Load1
	fmt.Fprintf(log, "import %s into %s (load %.2f)\n", country, im.store, q.Load1)
	meter := measure.NewCPUMeter(pids)
	meter.Start(time.Second)
	m0, _ := measure.MachineCPU()
	start := time.Now()
	ps, out, err := runLogged(ctx, filepath.Join(work, "import-"+country+"-"+im.store+".log"), nil, argv...)
	im.wall = time.Since(start).Seconds()
	im.serverCPU = meter.Stop().Seconds()
	m1, _ := measure.MachineCPU()
	if err != nil {
		return im, err
	}
	im.cpu, im.maxRSS = measure.RusageOf(ps)
	im.otherCores = max(0, ((m1-m0).Seconds()-im.cpu-im.serverCPU)/im.wall)
	m := importSummary.FindSubmatch(out)
	if m == nil {
		return im, fmt.Errorf("import %s: no summary in %q", country, out)
	}
	im.addresses, _ = strconv.ParseInt(string(m[2]), 10, 64)
	fmt.Fprintf(log, "  %d addresses in %.1f s (%.0f/s), CPU %.1f s, peak RSS %.0f MB\n",
		im.addresses, im.wall, im.rate(), im.cpu, float64(im.maxRSS)/1e6)
	return im, nil
}

// backendsOf finds the Postgres backends serving database db by the title Postgres gives
// them; the scratch databases' names are unique enough to be found in it.
func backendsOf(db string) func() []int {
	return func() []int {
		return measure.PIDsMatching(func(cmd string) bool {
			return strings.HasPrefix(cmd, "postgres: ") && strings.Contains(cmd, " "+db+" ")
		})
	}
}

// importFigures turns an import into report rows: its time against the floor (or the
// Postgres baseline) with the wall-time limit of the national BAG import, and its rate with
// the least rate an import into memory must reach (0 for no target). A run below national
// size checks the limit scaled down to its size, so that a tenth-size run that would miss
// the national limit does not pass it only for being small.
func importFigures(im imported, base string, baseSeconds, limit, scale, minRate float64) []measure.Figure {
	name := fmt.Sprintf("%s import → %s", strings.ToUpper(im.country), im.store)
	f := measure.Figure{
		Section: "import", Name: name + ", wall time", Value: im.wall, Unit: "s",
		Baseline: base, BaseValue: baseSeconds, BaseUnit: "s", Load1: im.load1,
		Note: fmt.Sprintf("%d addresses, peak RSS %.0f MB, CPU %.0f s, other tenants %.2f cores",
			im.addresses, float64(im.maxRSS)/1e6, im.cpu, im.otherCores),
	}
	if im.store == "postgres" {
		f.Note += fmt.Sprintf(", Postgres backends %.0f s CPU", im.serverCPU)
	}
	if baseSeconds > 0 {
		f.Ratio = im.wall / baseSeconds
	}
	if limit > 0 {
		target := fmt.Sprintf("≤%.0f min", limit/60)
		if scale != 1 {
			target += fmt.Sprintf(" national, ≤%s s at scale %g", num(limit*scale), scale)
		}
		f.Checks = []measure.Check{{Target: target, OK: im.wall <= limit*scale}}
	}
	rate := measure.Figure{Section: "import", Name: name + ", rate", Value: im.rate(), Unit: "addresses/s", Load1: im.load1}
	if baseSeconds > 0 {
		rate.Baseline, rate.BaseValue, rate.BaseUnit = base, float64(im.addresses)/baseSeconds, "addresses/s"
		rate.Ratio = rate.Value / rate.BaseValue
	}
	if minRate > 0 {
		rate.Checks = []measure.Check{{Target: fmt.Sprintf("≥%.0fk/s", minRate/1e3), OK: rate.Value >= minRate}}
	}
	return []measure.Figure{f, rate}
}

// num prints a number of seconds to the hundredth, without trailing zeros.
func num(v float64) string { return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64) }
