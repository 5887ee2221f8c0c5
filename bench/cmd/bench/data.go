package main

import (
	"archive/zip"
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"time"

	"github.com/adreswijzer/adreswijzer/bench/measure"
)

// registers are the generated national files.
type registers struct {
	nlZip   string
	beFiles []string
	date    string
	// What the generator says an import following the register rules keeps.
	nlCurrent, beKept int64
	genSeconds        float64
	reused            bool
}

// manifest is the part of bench/gen's SYNTHETIC-manifest.json the driver reads.
type manifest struct {
	Seed    uint64  `json:"seed"`
	Date    string  `json:"date"`
	Seconds float64 `json:"seconds"`
	NL      *struct {
		Path               string
		Nummeraanduidingen int64
		InUse, Planned     int64
	} `json:"nl"`
	BE *struct {
		Regions []struct {
			Path                    string
			Rows, Current, Proposed int64
		}
	} `json:"be"`
}

func readManifest(dir string) (*manifest, error) {
	b, err := os.ReadFile(filepath.Join(dir, "SYNTHETIC-manifest.json"))
	if err != nil {
		return nil, err
	}
	var m manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("generator manifest: %w", err)
	}
	if m.NL == nil || m.BE == nil {
		return nil, fmt.Errorf("generator manifest in %s lacks a country", dir)
	}
	return &m, nil
}

func (m *manifest) matches(seed uint64, nl, be int64) bool {
	var rows int64
	for _, r := range m.BE.Regions {
		rows += r.Rows
	}
	return m.Seed == seed && m.NL.Nummeraanduidingen == nl && rows == be
}

// generate writes the registers with bench/gen, or reuses those in dir when they were
// made with the same seed and sizes (a national extract takes minutes to write).
func generate(ctx context.Context, cfg config, dir, work string, log io.Writer) (registers, error) {
	var reg registers
	m, err := readManifest(dir)
	if err != nil || !m.matches(cfg.seed, cfg.nl, cfg.be) {
		bin := filepath.Join(work, "gen")
		if _, _, err := runLogged(ctx, filepath.Join(work, "build-gen.log"), nil,
			"go", "build", "-o", bin, "./bench/gen/cmd/gen"); err != nil {
			return reg, err
		}
		fmt.Fprintf(log, "generating %d NL and %d BE addresses into %s\n", cfg.nl, cfg.be, dir)
		if _, _, err := runLogged(ctx, filepath.Join(work, "gen.log"), nil, bin, "-out", dir,
			"-seed", fmt.Sprint(cfg.seed), "-nl", fmt.Sprint(cfg.nl), "-be", fmt.Sprint(cfg.be)); err != nil {
			return reg, err
		}
		if m, err = readManifest(dir); err != nil {
			return reg, err
		}
	} else {
		reg.reused = true
		fmt.Fprintf(log, "reusing the registers generated in %s\n", dir)
	}
	reg.nlZip, reg.date, reg.genSeconds = m.NL.Path, m.Date, m.Seconds
	reg.nlCurrent = m.NL.InUse + m.NL.Planned
	for _, r := range m.BE.Regions {
		reg.beFiles = append(reg.beFiles, r.Path)
		reg.beKept += r.Current + r.Proposed
	}
	return reg, nil
}

// objectZip names the object files of a BAG extract that hold what an address import
// needs; PND (buildings) is not read by the importer, so the floor leaves it out too.
var objectZip = regexp.MustCompile(`^[0-9]{4}(NUM|OPR|WPL|VBO|LIG|STA)[0-9]{8}\.zip$`)

// floor is a lower bound for an import: the time one core needs just to get the register's
// bytes out of their container, before any parsing.
type floor struct {
	seconds float64 // one core, for all the bytes
	raw     int64
	sampled int64
}

// inflateFloor estimates how long one core takes to inflate the XML an NL import reads. It
// inflates a sample for about budget, drawn from each object type in proportion to its
// size, and extrapolates by CPU time, which other tenants do not inflate.
func inflateFloor(ctx context.Context, path string, budget time.Duration) (floor, error) {
	var fl floor
	f, err := os.Open(path)
	if err != nil {
		return fl, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fl, err
	}
	outer, err := zip.NewReader(f, st.Size())
	if err != nil {
		return fl, err
	}
	type kind struct {
		files        []*zip.File
		raw, sampled int64
		next         int
	}
	var kinds []*kind
	for _, e := range outer.File {
		if !objectZip.MatchString(filepath.Base(e.Name)) {
			continue
		}
		if e.Method != zip.Store {
			return fl, fmt.Errorf("%s: the floor needs the object zips stored, as Kadaster delivers them", e.Name)
		}
		off, err := e.DataOffset()
		if err != nil {
			return fl, err
		}
		size := int64(e.CompressedSize64)
		inner, err := zip.NewReader(io.NewSectionReader(f, off, size), size)
		if err != nil {
			return fl, fmt.Errorf("%s: %w", e.Name, err)
		}
		k := &kind{}
		for _, x := range inner.File {
			k.files = append(k.files, x)
			k.raw += int64(x.UncompressedSize64)
		}
		fl.raw += k.raw
		kinds = append(kinds, k)
	}
	if fl.raw == 0 {
		return fl, fmt.Errorf("%s: no object files", path)
	}
	self := os.Getpid()
	cpu0, _ := measure.ProcCPU(self)
	start := time.Now()
	for time.Since(start) < budget {
		if err := ctx.Err(); err != nil {
			return fl, err
		}
		// The type least sampled for its size goes next.
		var pick *kind
		for _, k := range kinds {
			if k.next < len(k.files) && (pick == nil || float64(k.sampled)/float64(k.raw) < float64(pick.sampled)/float64(pick.raw)) {
				pick = k
			}
		}
		if pick == nil {
			break
		}
		rc, err := pick.files[pick.next].Open()
		if err != nil {
			return fl, err
		}
		n, err := io.Copy(io.Discard, rc)
		rc.Close()
		if err != nil {
			return fl, err
		}
		pick.next++
		pick.sampled += n
		fl.sampled += n
	}
	cpu1, _ := measure.ProcCPU(self)
	if fl.sampled == 0 {
		return fl, fmt.Errorf("%s: nothing inflated", path)
	}
	fl.seconds = cpuSeconds(cpu1-cpu0) * float64(fl.raw) / float64(fl.sampled)
	return fl, nil
}

// readFloor is the time one core takes to read the CSV files and find their lines: the
// least a BeST import must do.
func readFloor(files []string) (floor, error) {
	var fl floor
	self := os.Getpid()
	cpu0, _ := measure.ProcCPU(self)
	buf := make([]byte, 1<<20)
	var lines int64
	for _, p := range files {
		f, err := os.Open(p)
		if err != nil {
			return fl, err
		}
		r := bufio.NewReaderSize(f, 1<<20)
		for {
			n, err := r.Read(buf)
			for _, c := range buf[:n] {
				if c == '\n' {
					lines++
				}
			}
			fl.raw += int64(n)
			if err == io.EOF {
				break
			}
			if err != nil {
				f.Close()
				return fl, err
			}
		}
		f.Close()
	}
	cpu1, _ := measure.ProcCPU(self)
	fl.sampled = fl.raw
	fl.seconds = cpuSeconds(cpu1 - cpu0)
	if lines == 0 {
		return fl, fmt.Errorf("no lines in %v", files)
	}
	return fl, nil
}

// cpuSeconds keeps a CPU time below the resolution of /proc (tiny quick runs) from
// becoming a zero that a ratio would divide by.
func cpuSeconds(d time.Duration) float64 { return max(d.Seconds(), 0.01) }
