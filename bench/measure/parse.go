package measure

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Stats is what a load generator reports of one bounded run.
type Stats struct {
	Requests int64   `json:"requests"`
	Seconds  float64 `json:"seconds"`
	RPS      float64 `json:"rps"`
	// Latency percentiles in milliseconds.
	P50 float64 `json:"p50_ms"`
	P75 float64 `json:"p75_ms,omitempty"`
	P90 float64 `json:"p90_ms,omitempty"`
	P99 float64 `json:"p99_ms"`
	// Max is the slowest request (paced loads only).
	Max float64 `json:"max_ms,omitempty"`
	// BytesRead is what the generator received, headers included (wrk only).
	BytesRead float64 `json:"bytes_read,omitempty"`
	// Errors are answers other than 2xx/3xx plus socket errors (wrk), or failed
	// transactions (pgbench). A run with errors measured something else than intended.
	Errors    int64  `json:"errors"`
	ErrorText string `json:"error_text,omitempty"`
}

var (
	wrkRequests = regexp.MustCompile(`(?m)^\s*(\d+) requests in ([\d.]+)(us|ms|s|m|h), ([\d.]+)([KMGT]?B) read`)
	wrkRPS      = regexp.MustCompile(`(?m)^Requests/sec:\s+([\d.]+)`)
	wrkPct      = regexp.MustCompile(`(?m)^\s+(50|75|90|99)%\s+([\d.]+)(us|ms|s|m|h)\s*$`)
	wrkNon2xx   = regexp.MustCompile(`(?m)^\s*Non-2xx or 3xx responses: (\d+)`)
	wrkSocket   = regexp.MustCompile(`(?m)^\s*Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)`)
)

// ms converts a wrk duration to milliseconds.
func ms(v float64, unit string) float64 {
	switch unit {
	case "us":
		return v / 1e3
	case "s":
		return v * 1e3
	case "m":
		return v * 60e3
	case "h":
		return v * 3600e3
	}
	return v
}

func bytesOf(v float64, unit string) float64 {
	switch unit {
	case "KB":
		return v * (1 << 10)
	case "MB":
		return v * (1 << 20)
	case "GB":
		return v * (1 << 30)
	case "TB":
		return v * (1 << 40)
	}
	return v
}

// ParseWrk reads the report of `wrk --latency`.
func ParseWrk(out string) (Stats, error) {
	var s Stats
	m := wrkRequests.FindStringSubmatch(out)
	r := wrkRPS.FindStringSubmatch(out)
	if m == nil || r == nil {
		return s, errors.New("wrk: no request count in its report")
	}
	s.Requests, _ = strconv.ParseInt(m[1], 10, 64)
	d, _ := strconv.ParseFloat(m[2], 64)
	s.Seconds = ms(d, m[3]) / 1e3
	b, _ := strconv.ParseFloat(m[4], 64)
	s.BytesRead = bytesOf(b, m[5])
	s.RPS, _ = strconv.ParseFloat(r[1], 64)
	for _, p := range wrkPct.FindAllStringSubmatch(out, -1) {
		v, _ := strconv.ParseFloat(p[2], 64)
		switch p[1] {
		case "50":
			s.P50 = ms(v, p[3])
		case "75":
			s.P75 = ms(v, p[3])
		case "90":
			s.P90 = ms(v, p[3])
		case "99":
			s.P99 = ms(v, p[3])
		}
	}
	if s.P99 == 0 {
		return s, errors.New("wrk: no latency distribution (run it with --latency)")
	}
	var errs []string
	if m := wrkNon2xx.FindStringSubmatch(out); m != nil {
		n, _ := strconv.ParseInt(m[1], 10, 64)
		s.Errors += n
		errs = append(errs, m[1]+" non-2xx")
	}
	if m := wrkSocket.FindStringSubmatch(out); m != nil {
		var n int64
		for _, v := range m[1:] {
			k, _ := strconv.ParseInt(v, 10, 64)
			n += k
		}
		if n > 0 {
			s.Errors += n
			_, what, _ := strings.Cut(strings.TrimSpace(m[0]), ": ")
			errs = append(errs, "socket errors "+what)
		}
	}
	s.ErrorText = strings.Join(errs, "; ")
	return s, nil
}

var (
	pgTPS    = regexp.MustCompile(`(?m)^tps = ([\d.]+)`)
	pgCount  = regexp.MustCompile(`(?m)^number of transactions actually processed: (\d+)`)
	pgFailed = regexp.MustCompile(`(?m)^number of failed transactions: (\d+)`)
	pgDur    = regexp.MustCompile(`(?m)^duration: (\d+) s`)
)

// ParsePgbench reads pgbench's summary. Its percentiles come from the transaction logs
// (PgbenchLatencies), as the summary has only the mean.
func ParsePgbench(out string) (Stats, error) {
	var s Stats
	t := pgTPS.FindStringSubmatch(out)
	n := pgCount.FindStringSubmatch(out)
	if t == nil || n == nil {
		return s, errors.New("pgbench: no tps in its report")
	}
	s.RPS, _ = strconv.ParseFloat(t[1], 64)
	s.Requests, _ = strconv.ParseInt(n[1], 10, 64)
	if d := pgDur.FindStringSubmatch(out); d != nil {
		s.Seconds, _ = strconv.ParseFloat(d[1], 64)
	}
	if f := pgFailed.FindStringSubmatch(out); f != nil {
		s.Errors, _ = strconv.ParseInt(f[1], 10, 64)
		if s.Errors > 0 {
			s.ErrorText = f[1] + " failed transactions"
		}
	}
	return s, nil
}

// PgbenchLatencies fills the percentiles from the per-transaction logs pgbench -l wrote
// with prefix: the third field of each line is the latency in microseconds.
func PgbenchLatencies(s *Stats, prefix string) error {
	files, err := filepath.Glob(prefix + ".*")
	if err != nil {
		return err
	}
	var lat []float64
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			return err
		}
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) < 3 {
				continue
			}
			if v, err := strconv.ParseFloat(fields[2], 64); err == nil {
				lat = append(lat, v/1e3)
			}
		}
		fh.Close()
		if err := sc.Err(); err != nil {
			return fmt.Errorf("pgbench log %s: %w", f, err)
		}
	}
	if len(lat) == 0 {
		return errors.New("pgbench: no transaction log")
	}
	slices.Sort(lat)
	at := func(p float64) float64 { return lat[int(p*float64(len(lat)-1))] }
	s.P50, s.P75, s.P90, s.P99 = at(0.50), at(0.75), at(0.90), at(0.99)
	return nil
}

// Bench is one result line of `go test -bench`.
type Bench struct {
	Package    string   `json:"package"`
	Name       string   `json:"name"`
	Iterations int64    `json:"iterations"`
	Metrics    []Metric `json:"metrics"`
}

// Metric is one value/unit pair of a benchmark line, in the order the line gives them.
type Metric struct {
	Value float64 `json:"value"`
	Unit  string  `json:"unit"`
}

// Get returns the metric with the unit.
func (b Bench) Get(unit string) (float64, bool) {
	for _, m := range b.Metrics {
		if m.Unit == unit {
			return m.Value, true
		}
	}
	return 0, false
}

var (
	benchName   = regexp.MustCompile(`^(Benchmark\S+?)(?:-\d+)?(?:\s+(.*))?$`)
	benchResult = regexp.MustCompile(`^\s*(\d+)\s+(\d.*)$`)
)

// ParseGoBench reads the result lines of `go test -bench` output; other lines (logs, PASS,
// ok) are ignored. The package is taken from the "pkg:" header. go test prints a
// benchmark's name before running it and its figures after, so whatever the code under test
// writes meanwhile (Caddy logs to stderr, which go test merges) can split the line: a name
// without figures is kept until a line of figures follows.
func ParseGoBench(r io.Reader) ([]Bench, error) {
	var out []Bench
	pkg, pending := "", ""
	add := func(name, result string) bool {
		m := benchResult.FindStringSubmatch(result)
		if m == nil {
			return false
		}
		n, _ := strconv.ParseInt(m[1], 10, 64)
		b := Bench{Package: pkg, Name: name, Iterations: n}
		f := strings.Fields(m[2])
		for i := 0; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				break
			}
			b.Metrics = append(b.Metrics, Metric{Value: v, Unit: f[i+1]})
		}
		out = append(out, b)
		return true
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if p, ok := strings.CutPrefix(line, "pkg: "); ok {
			pkg = strings.TrimSpace(p)
			continue
		}
		if m := benchName.FindStringSubmatch(line); m != nil {
			pending = ""
			if !add(m[1], m[2]) {
				pending = m[1]
			}
			continue
		}
		if pending != "" && add(pending, line) {
			pending = ""
		}
	}
	return out, sc.Err()
}
