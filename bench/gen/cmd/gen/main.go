// Command gen writes national-size SYNTHETIC datasets in the official register formats for
// benchmarks: a Dutch LV BAG 2.0 national extract (BAGNLDL zip) and the Belgian BeST Address
// official CSV per region. Names are real, everything else is made up; the same seed gives
// the same bytes.
//
//	go run ./bench/gen/cmd/gen -out DIR -seed 1 -nl 10000000 -be 6500000
//
// It writes DIR/nl/BAGNLDL-ddmmyyyy-SYNTHETIC.zip, DIR/be/openaddress-be{bru,vlg,wal}-SYNTHETIC.csv
// and DIR/SYNTHETIC-manifest.json with the counts an importer must reproduce, and prints
// every file with its size and time.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"time"

	"github.com/adreswijzer/adreswijzer/bench/gen"
)

func main() {
	out := flag.String("out", "", "output directory (required)")
	seed := flag.Uint64("seed", 1, "random seed: the same seed writes the same bytes")
	nl := flag.Int64("nl", 10_000_000, "Dutch Nummeraanduidingen; 0 writes no NL extract")
	be := flag.Int64("be", 6_500_000, "Belgian addresses (CSV rows) over the three regions; 0 writes no BE files")
	date := flag.String("date", gen.DefaultDate.Format(time.DateOnly), "register date (StandTechnischeDatum) of the NL extract, YYYY-MM-DD")
	data := flag.String("data", gen.DataDir(), "directory of the register samples (nl/ and be/) whose real names are used")
	workers := flag.Int("workers", runtime.GOMAXPROCS(0), "parallel compressors for the NL extract")
	flag.Parse()
	if *out == "" || flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	d, err := time.Parse(time.DateOnly, *date)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen: -date must be YYYY-MM-DD")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, *out, *seed, *nl, *be, d, *data, *workers); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

// manifest records what was generated, for benchmark drivers that check an import against it.
type manifest struct {
	Note  string       `json:"note"`
	Seed  uint64       `json:"seed"`
	Date  string       `json:"date"`
	NL    *gen.NLStats `json:"nl,omitempty"`
	BE    *gen.BEStats `json:"be,omitempty"`
	Total float64      `json:"seconds"`
}

func run(ctx context.Context, out string, seed uint64, nl, be int64, date time.Time, data string, workers int) error {
	start := time.Now()
	m := manifest{Note: "SYNTHETIC benchmark data, not a register delivery: real names, made-up addresses", Seed: seed, Date: date.Format(time.DateOnly)}
	show := func(f gen.FileInfo) {
		rate := float64(f.Uncompressed) / 1e6 / f.Duration.Seconds()
		fmt.Printf("  %-40s %10.1f MB stored %10.1f MB raw %11d records %7.1f s  %6.0f MB/s raw\n",
			f.Name, mb(f.Bytes), mb(f.Uncompressed), f.Records, f.Duration.Seconds(), rate)
	}
	if nl > 0 {
		t := time.Now()
		fmt.Printf("NL: %d Nummeraanduidingen, seed %d, stand %s\n", nl, seed, m.Date)
		st, err := gen.WriteNL(ctx, filepath.Join(out, "nl"), gen.NLOptions{Addresses: nl, Seed: seed, Date: date, DataDir: data, Workers: workers, OnFile: show})
		if err != nil {
			return err
		}
		s := time.Since(t).Seconds()
		fmt.Printf("NL: wrote %s, %.1f MB in %.1f s: %.0f Nummeraanduidingen/s\n", st.Path, mb(st.Bytes), s, float64(st.Nummeraanduidingen)/s)
		fmt.Printf("    %d current (%d in use, %d planned), %d withdrawn, %d object withdrawn, %d without postcode, %d superseded voorkomens\n",
			st.Current(), st.InUse, st.Planned, st.Withdrawn, st.ObjectWithdrawn, st.NoPostcode, st.Superseded)
		fmt.Printf("    %d woonplaatsen, %d gemeenten, %d openbare ruimtes, %d postcodes, %d VBO, %d LIG, %d STA, %d PND\n",
			st.Woonplaatsen, st.Gemeenten, st.OpenbareRuimtes, st.Postcodes, st.Verblijfsobjecten, st.Ligplaatsen, st.Standplaatsen, st.Panden)
		m.NL = &st
	}
	if be > 0 {
		t := time.Now()
		fmt.Printf("BE: %d addresses, seed %d\n", be, seed)
		st, err := gen.WriteBE(ctx, filepath.Join(out, "be"), gen.BEOptions{Addresses: be, Seed: seed, DataDir: data, OnFile: show})
		if err != nil {
			return err
		}
		s := time.Since(t).Seconds()
		var bytes, rows int64
		for _, r := range st.Regions {
			bytes += r.Bytes
			rows += r.Rows
			fmt.Printf("    %s: %d rows, %d current, %d proposed, %d retired, %.1f %% with box, %d municipalities, %d streets, %d postcodes\n",
				r.Region, r.Rows, r.Current, r.Proposed, r.Retired, 100*float64(r.WithBox)/float64(max(r.Rows, 1)), r.Municipalities, r.Streets, r.Postcodes)
		}
		fmt.Printf("BE: wrote %.1f MB in %.1f s: %.0f rows/s\n", mb(bytes), s, float64(rows)/s)
		m.BE = &st
	}
	m.Total = time.Since(start).Seconds()
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "SYNTHETIC-manifest.json"), append(b, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Printf("done in %.1f s\n", m.Total)
	return nil
}

func mb(n int64) float64 { return float64(n) / 1e6 }
