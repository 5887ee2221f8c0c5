package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/adreswijzer/adreswijzer/bench/measure"
)

// loader runs the wrk loads of one benchmark run.
type loader struct {
	cfg    config
	script string // bench/wrk/requests.lua
	keys   string // directory of the key files
	log    io.Writer
}

// wrk loads base with the requests of keyFile and measures the server processes.
func (l *loader) wrk(ctx context.Context, group, name string, conns int, base, keyFile, bearer string, server func() []int) (measure.LoadRow, error) {
	argv := []string{"wrk", "-t", strconv.Itoa(min(l.cfg.threads, conns)), "-c", strconv.Itoa(conns),
		"-d", fmt.Sprintf("%ds", int(l.cfg.duration.Seconds())), "--latency", "-s", l.script, base, "--",
		filepath.Join(l.keys, keyFile)}
	if bearer != "" {
		argv = append(argv, bearer)
	}
	run, err := l.cfg.guard.Measure(ctx, measure.Load{Name: name, Cmd: argv, Server: server, Parse: measure.ParseWrk})
	if bearer != "" {
		// The key is made for this run and revoked with its key file, but it has no
		// business in a report.
		run.Cmd = strings.ReplaceAll(run.Cmd, bearer, "KEY")
	}
	row := measure.LoadRow{Group: group, Conns: conns, Run: run}
	if err != nil {
		return row, fmt.Errorf("%s: %w", name, err)
	}
	fmt.Fprintf(l.log, "  %-34s c%-3d %9.0f req/s  p50 %6.2f ms  p99 %7.2f ms  %6.1f µs/req  load %.2f  other %.2f cores%s\n",
		name, conns, run.RPS, run.P50, run.P99, run.ServerUSPerReq, run.Load1, run.OtherCores, errorsNote(run))
	return row, nil
}

// errorsNote is what the progress log adds to the line of a load that had errors.
func errorsNote(run measure.Run) string {
	if run.Errors == 0 {
		return ""
	}
	return " ERRORS: " + run.ErrorText
}

// pgbench runs `pgbench -S -M prepared` against db and measures its backends.
func (l *loader) pgbench(ctx context.Context, work string, pg pgTarget, db string, conns int) (measure.LoadRow, error) {
	logDir := filepath.Join(work, "pgbench-log")
	prefix := filepath.Join(logDir, "tx")
	argv := append([]string{"pgbench"}, pg.args()...)
	argv = append(argv, "-S", "-M", "prepared", "-c", strconv.Itoa(conns), "-j", strconv.Itoa(min(l.cfg.threads, conns)),
		"-T", strconv.Itoa(int(l.cfg.duration.Seconds())), "-l", "--log-prefix", prefix, db)
	name := "pgbench -S point select"
	run, err := l.cfg.guard.Measure(ctx, measure.Load{
		Name: name, Cmd: argv, Server: backendsOf(db),
		Before: func() error {
			if err := os.RemoveAll(logDir); err != nil {
				return err
			}
			return os.MkdirAll(logDir, 0o755)
		},
		Parse: func(out string) (measure.Stats, error) {
			st, err := measure.ParsePgbench(out)
			if err != nil {
				return st, err
			}
			return st, measure.PgbenchLatencies(&st, prefix)
		},
	})
	row := measure.LoadRow{Group: "postgres", Conns: conns, Run: run}
	if err != nil {
		return row, err
	}
	fmt.Fprintf(l.log, "  %-34s c%-3d %9.0f tx/s   p50 %6.2f ms  p99 %7.2f ms  %6.1f µs/tx   load %.2f  other %.2f cores\n",
		name, conns, run.RPS, run.P50, run.P99, run.ServerUSPerReq, run.Load1, run.OtherCores)
	return row, nil
}

// checkKeys sends the first n requests of a key file and counts the answers that are 200,
// and the lookups among them that found an address: the loads are only worth their figures
// if they ask for what exists.
func checkKeys(base, path, bearer string, n int, header string) (ok, found, withHeader int, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, 0, err
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	for _, line := range lines[:min(n, len(lines))] {
		resp, body, err := request(base, line, bearer)
		if err != nil {
			return ok, found, withHeader, err
		}
		if resp.StatusCode == 200 {
			ok++
		}
		if bytes.Contains(body, []byte(`"addresses":[{`)) {
			found++
		}
		if header != "" && strings.Contains(resp.Header.Get(header), "HIT") {
			withHeader++
		}
	}
	return ok, found, withHeader, nil
}
