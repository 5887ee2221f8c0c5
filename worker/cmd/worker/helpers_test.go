package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/bench/gen"
	"github.com/adreswijzer/adreswijzer/gateway/gatewaytest"
	"github.com/adreswijzer/adreswijzer/store/bag"
	"github.com/adreswijzer/adreswijzer/store/memory"
	"github.com/adreswijzer/adreswijzer/store/storetest"
	"github.com/adreswijzer/adreswijzer/worker/openapi/openapitest"
)

// The tests build bin/worker once and run it as an operator would, on the real samples.

var workerBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "worker-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	workerBin = filepath.Join(dir, "worker")
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if p, err := exec.LookPath("go"); err == nil {
		gobin = p
	}
	build := exec.Command(gobin, "build", "-o", workerBin, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build worker:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// Register samples by role.
func weesp(t *testing.T) string { return storetest.File(t, "nl", "BAGGEM0457L-15102021.zip") }

// doesburg is a cut-down national extract with five addresses in Doesburg: a small older
// dataset to have active before a Weesp import.
func doesburg(t *testing.T) string { return storetest.File(t, "nl", "BAGNLDL-15092020-small.zip") }

func bestDir(t *testing.T) string { return filepath.Join(storetest.DataDir(t), "be") }

const (
	weespVersion    = "bag:2021-10-15"
	doesburgVersion = "bag:2020-09-15"
)

// result is a finished run of the binary.
type result struct {
	stdout, stderr string
	code           int
}

// worker runs the binary to the end.
func worker(t *testing.T, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, workerBin, args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String()}
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("run worker %v: %v", args, err)
		}
		r.code = ee.ExitCode()
	}
	return r
}

// mustImport runs an import that must succeed and returns its summary line.
func mustImport(t *testing.T, env []string, args ...string) string {
	t.Helper()
	r := worker(t, env, append([]string{"import"}, args...)...)
	if r.code != 0 {
		t.Fatalf("worker import %v: exit %d\n%s%s", args, r.code, r.stdout, r.stderr)
	}
	return strings.TrimSpace(r.stdout)
}

var summaryRE = regexp.MustCompile(`^(NL|BE) (\S+) active: (\d+) records read, (\d+) addresses kept, (\d+) skipped( \((.+)\))?, \d+\.\d s$`)

// summaryOf parses the summary line.
type summaryLine struct {
	country, version string
	read, kept, skip int64
	reasons          string
}

func parseSummary(t *testing.T, line string) summaryLine {
	t.Helper()
	m := summaryRE.FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("summary %q is not one line of the expected form", line)
	}
	n := func(s string) int64 { v, _ := strconv.ParseInt(s, 10, 64); return v }
	return summaryLine{country: m[1], version: m[2], read: n(m[3]), kept: n(m[4]), skip: n(m[5]), reasons: m[7]}
}

// snapshotInfo reads a snapshot file as the memory store does.
func snapshotInfo(t *testing.T, path string) adreswijzer.DatasetInfo {
	t.Helper()
	d, err := memory.ReadSnapshot(path)
	if err != nil {
		t.Fatalf("read snapshot: %v", err)
	}
	return d.Info()
}

var stepRE = regexp.MustCompile(`^import NL: stand (\d+)%`)

// stopMidway starts an import of Weesp and sends it sig once its progress shows it is
// half-way through the stand. It returns how the process ended and what it wrote to stderr.
func stopMidway(t *testing.T, sig syscall.Signal, env []string, args ...string) (*os.ProcessState, string) {
	t.Helper()
	cmd := exec.Command(workerBin, append([]string{"import", "--country", "nl", "--from", largeExtract(t)}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	var seen []string
	sent := false
	for sc.Scan() {
		line := sc.Text()
		seen = append(seen, line)
		if m := stepRE.FindStringSubmatch(line); m != nil && !sent {
			if pct, _ := strconv.Atoi(m[1]); pct >= 50 {
				if err := cmd.Process.Signal(sig); err != nil {
					t.Fatalf("signal import: %v", err)
				}
				sent = true
			}
		}
	}
	err = cmd.Wait()
	if !sent {
		t.Fatalf("the import never reported half-way (%v); stderr:\n%s", err, strings.Join(seen, "\n"))
	}
	return cmd.ProcessState, strings.Join(seen, "\n")
}

var (
	largeOnce sync.Once
	largePath string
	largeErr  error
)

// largeExtract is a synthetic national-layout BAG extract (bench/gen, marked SYNTHETIC) of
// 300,000 addresses, written once per test run: the Weesp extract imports in well under a
// second now, too fast to stop an import half-way with certainty, and progress lines need
// a reading that lasts.
func largeExtract(t *testing.T) string {
	t.Helper()
	largeOnce.Do(func() {
		dir := filepath.Join(filepath.Dir(workerBin), "large")
		var st gen.NLStats
		st, largeErr = gen.WriteNL(context.Background(), dir, gen.NLOptions{Addresses: 300_000, Seed: 1, DataDir: storetest.DataDir(t)})
		largePath = st.Path
	})
	if largeErr != nil {
		t.Fatalf("write the synthetic extract: %v", largeErr)
	}
	return largePath
}

// killMidway kills an import half-way (SIGKILL, as the OOM killer or a power cut would).
func killMidway(t *testing.T, env []string, args ...string) {
	t.Helper()
	ps, stderr := stopMidway(t, syscall.SIGKILL, env, args...)
	ws, ok := ps.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("the import was not killed half-way but ended with %v; stderr:\n%s", ps, stderr)
	}
}

// server is a running `worker serve`.
type server struct {
	base   string
	client *http.Client
	cmd    *exec.Cmd
	exited chan error
	once   sync.Once
	mu     sync.Mutex
	logs   bytes.Buffer
}

func (s *server) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.logs.Write(p)
}

func (s *server) log() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.logs.String()
}

// serve starts `worker serve` on a free port and waits until /health answers. When the
// test ends the server gets SIGTERM and must stop cleanly (exit 0) within seconds.
func serve(t *testing.T, env []string, args ...string) *server {
	t.Helper()
	addr := "127.0.0.1:" + strconv.Itoa(gatewaytest.FreePort(t))
	s := &server{base: "http://" + addr, client: openapitest.New(t).Client(t, nil)}
	s.cmd = exec.Command(workerBin, append([]string{"serve", "--listen", addr}, args...)...)
	s.cmd.Env = append(os.Environ(), env...)
	s.cmd.Stdout, s.cmd.Stderr = s, s
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s.exited = make(chan error, 1)
	go func() { s.exited <- s.cmd.Wait() }()
	t.Cleanup(func() { s.stop(t) })
	deadline := time.Now().Add(time.Minute)
	for {
		select {
		case err := <-s.exited:
			s.once.Do(func() {}) // it has ended: nothing left to stop
			t.Fatalf("worker serve exited at start: %v\n%s", err, s.log())
		default:
		}
		resp, err := http.Get(s.base + "/health")
		if err == nil {
			resp.Body.Close()
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("worker serve did not answer within a minute\n%s", s.log())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stop sends SIGTERM, as an operator would, and waits for a clean exit (status 0 within
// seconds). The access log is written in batches: only after stop does s.log() hold
// everything the server wrote.
func (s *server) stop(t *testing.T) {
	t.Helper()
	s.once.Do(func() {
		_ = s.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-s.exited:
			if err != nil {
				t.Errorf("worker serve did not stop cleanly on SIGTERM: %v\n%s", err, s.log())
			}
		case <-time.After(15 * time.Second):
			_ = s.cmd.Process.Kill()
			t.Errorf("worker serve did not stop within 15 s of SIGTERM\n%s", s.log())
		}
	})
}

// get fetches a path through the contract-checking client.
func (s *server) get(t *testing.T, path string) (*http.Response, string) {
	t.Helper()
	resp, err := s.client.Get(s.base + path)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(b)
}

// lookup asks for the addresses at a postcode and number and returns the dataset version
// that answered, failing unless there are some.
func (s *server) lookup(t *testing.T, country adreswijzer.Country, postcode string, number int, street string) string {
	t.Helper()
	path := "/v1/" + country.Lower() + "/lookup?postcode=" + postcode + "&number=" + strconv.Itoa(number)
	if street != "" {
		path += "&street=" + strings.ReplaceAll(street, " ", "%20")
	}
	resp, body := s.get(t, path)
	if resp.StatusCode != 200 || !strings.Contains(body, `"addresses":[{`) {
		t.Fatalf("lookup %s: %d %s", path, resp.StatusCode, body)
	}
	return resp.Header.Get("X-Dataset-Version")
}

// version is the dataset version the worker's /health gives for the country.
func (s *server) version(t *testing.T, c adreswijzer.Country) string {
	t.Helper()
	resp, body := s.get(t, "/health")
	var h adreswijzer.HealthResponse
	if err := json.Unmarshal([]byte(body), &h); err != nil {
		t.Fatalf("health: %d %s", resp.StatusCode, body)
	}
	for _, d := range h.Datasets {
		if d.Country == string(c) {
			return d.Version
		}
	}
	return ""
}

// doesburgAddress is one address of the Doesburg extract, read with the importer itself.
func doesburgAddress(t *testing.T) adreswijzer.Address {
	t.Helper()
	var first *adreswijzer.Address
	_, err := bag.Import(context.Background(), []string{doesburg(t)}, func(a adreswijzer.Address) error {
		if first == nil && a.Postcode != "" && a.HouseNumber > 0 {
			first = &a
		}
		return nil
	}, bag.Options{})
	if err != nil || first == nil {
		t.Fatalf("read the Doesburg extract: %v", err)
	}
	return *first
}
