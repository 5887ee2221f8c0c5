package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/adreswijzer/adreswijzer/bench/measure"
)

// wrk is closed-loop: each connection sends its next request when the answer to the last
// arrives, so every wrk load runs the server flat out and its p99 is mostly queueing. The
// paced loads send at a constant rate whatever the answers do (open loop), timing each
// request from when it is sent, so that a slow answer is counted as slow rather than
// delaying the requests behind it (coordinated omission): that p99 is the latency at a
// realistic rate. They use vegeta as a library, in a process of their own (`bench paced`),
// so that the CPU of the load generator is measured apart from the driver's, as wrk's is.

// pacedTimeout bounds each paced request, and with the load's duration the whole load.
const pacedTimeout = 5 * time.Second

// pacedCmd is `bench paced -rate N -duration D BASE KEYFILE`: it sends the requests of
// KEYFILE, drawn at random as bench/wrk/requests.lua draws them, to BASE at N requests a
// second for D, and prints the figures as JSON (measure.Stats) on stdout.
func pacedCmd(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("paced", flag.ContinueOnError)
	rate := fs.Int("rate", 2000, "requests per second")
	duration := fs.Duration("duration", 10*time.Second, "how long to send")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 2 || *rate < 1 || *duration <= 0 {
		return errors.New("usage: bench paced -rate N -duration D http://127.0.0.1:PORT KEYFILE")
	}
	base, keyFile := fs.Arg(0), fs.Arg(1)
	if err := loopbackOnly(base); err != nil {
		return err
	}
	targets, err := keyTargets(keyFile, base)
	if err != nil {
		return err
	}
	// The whole load is bounded even if the attacker misbehaves: stop sending after the
	// duration, and give the answers in flight at most their own timeout.
	ctx, cancel := context.WithTimeout(context.Background(), *duration+2*pacedTimeout)
	defer cancel()
	m, err := attack(ctx, targets, vegeta.ConstantPacer{Freq: *rate, Per: time.Second}, *duration)
	if err != nil {
		return err
	}
	return json.NewEncoder(stdout).Encode(pacedStats(m))
}

// loopbackOnly refuses a base URL that is not http on 127.0.0.1: the harness loads its
// own servers and nothing else.
func loopbackOnly(base string) error {
	u, err := url.Parse(base)
	if err != nil {
		return fmt.Errorf("paced: base URL: %w", err)
	}
	if u.Scheme != "http" || u.Hostname() != "127.0.0.1" {
		return fmt.Errorf("paced: %s is not http://127.0.0.1", base)
	}
	return nil
}

// attack sends targets, drawn at random, as p paces them for du, and gathers the results.
func attack(ctx context.Context, targets []vegeta.Target, p vegeta.Pacer, du time.Duration) (*vegeta.Metrics, error) {
	// The default of vegeta's attacker has no bound on its workers: when the server is
	// slow it starts more rather than sending later, which is what keeps the load open.
	a := vegeta.NewAttacker(vegeta.Timeout(pacedTimeout), vegeta.KeepAlive(true), vegeta.Redirects(vegeta.NoFollow))
	tr := func(t *vegeta.Target) error {
		*t = targets[rand.IntN(len(targets))] // safe for concurrent use, as the workers need
		return nil
	}
	var m vegeta.Metrics
	results := a.Attack(tr, p, du, "")
	for {
		select {
		case r, ok := <-results:
			if !ok {
				m.Close()
				return &m, nil
			}
			m.Add(r)
		case <-ctx.Done():
			a.Stop()
			for range results { // the attacker closes it once its workers return
			}
			return nil, fmt.Errorf("paced: the load did not end in time: %w", ctx.Err())
		}
	}
}

// keyTargets reads a key file (one request a line: "GET <target>" or "POST <target>
// <body>", as the probe writes them) into vegeta targets against base.
func keyTargets(path, base string) ([]vegeta.Target, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("paced: %w", err)
	}
	var ts []vegeta.Target
	for i, line := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		method, target, body, ok := parseKeyLine(line)
		if !ok {
			return nil, fmt.Errorf("paced: %s:%d: not a request: %q", filepath.Base(path), i+1, line)
		}
		t := vegeta.Target{Method: method, URL: base + target, Header: http.Header{}}
		if body != "" {
			t.Body = []byte(body)
			t.Header.Set("Content-Type", "application/json")
		}
		ts = append(ts, t)
	}
	if len(ts) == 0 {
		return nil, fmt.Errorf("paced: no requests in %s", path)
	}
	return ts, nil
}

// parseKeyLine splits a key file line as bench/wrk/requests.lua does: an upper-case
// method, a target, and an optional body after one space.
func parseKeyLine(line string) (method, target, body string, ok bool) {
	method, rest, _ := strings.Cut(line, " ")
	target, body, _ = strings.Cut(rest, " ")
	if method == "" || strings.ToUpper(method) != method || target == "" || strings.ContainsAny(target, " \t") {
		return "", "", "", false
	}
	return method, target, body, true
}

// pacedStats turns vegeta's metrics into the figures of a load. Every answer that is not
// 2xx counts as an error, as do requests that got no answer (status 0).
func pacedStats(m *vegeta.Metrics) measure.Stats {
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	s := measure.Stats{
		Requests: int64(m.Requests), Seconds: m.Duration.Seconds(), RPS: m.Rate,
		P50: ms(m.Latencies.P50), P90: ms(m.Latencies.P90), P99: ms(m.Latencies.P99), Max: ms(m.Latencies.Max),
	}
	var texts []string
	codes := make([]string, 0, len(m.StatusCodes))
	for c := range m.StatusCodes {
		codes = append(codes, c)
	}
	slices.Sort(codes)
	for _, c := range codes {
		if n := m.StatusCodes[c]; !strings.HasPrefix(c, "2") {
			s.Errors += int64(n)
			texts = append(texts, fmt.Sprintf("%d × status %s", n, c))
		}
	}
	if len(m.Errors) > 0 {
		texts = append(texts, "first error: "+m.Errors[0])
	}
	s.ErrorText = strings.Join(texts, ", ")
	return s
}

// parsePaced reads what `bench paced` printed: its last line is the JSON of the figures.
func parsePaced(out string) (measure.Stats, error) {
	var s measure.Stats
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &s); err != nil {
		return s, fmt.Errorf("paced: no figures in its output: %w", err)
	}
	return s, nil
}

// paced runs one paced load of keyFile against base at the run's rate and measures the
// server processes.
func (l *loader) paced(ctx context.Context, name, base, keyFile string, server func() []int) (measure.LoadRow, error) {
	self, err := os.Executable()
	if err != nil {
		return measure.LoadRow{}, err
	}
	argv := []string{self, "paced", "-rate", strconv.Itoa(l.cfg.rate), "-duration", l.cfg.duration.String(),
		base, filepath.Join(l.keys, keyFile)}
	run, err := l.cfg.guard.Measure(ctx, measure.Load{Name: name, Cmd: argv, Server: server, Parse: parsePaced})
	row := measure.LoadRow{Group: "paced", Rate: l.cfg.rate, Run: run}
	if err != nil {
		return row, fmt.Errorf("%s, paced: %w", name, err)
	}
	fmt.Fprintf(l.log, "  %-34s %5d/s %9.0f req/s  p50 %6.2f ms  p99 %7.2f ms  max %7.2f ms  %6.1f µs/req  vegeta %.2f cores  other %.2f cores%s\n",
		name, l.cfg.rate, run.RPS, run.P50, run.P99, run.Max, run.ServerUSPerReq, run.ClientCPU/max(run.Wall, 1e-9), run.OtherCores, errorsNote(run))
	return row, nil
}
