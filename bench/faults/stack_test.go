//go:build faults

package faults_test

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
	"strconv"
	"strings"
	"sync"
	"testing"
	"text/template"
	"time"

	"github.com/adreswijzer/adreswijzer"
)

// stack is the service as deployed, on 127.0.0.1: the gateway in front of two workers,
// Redis for limits and sessions, Postgres for keys and usage and (unless the workers serve
// snapshots) the registers. Everything it starts is stopped when the test ends.
type stack struct {
	t      *testing.T
	dir    string
	logDir string // every file here is scanned for submitted values
	memory bool

	pg             *postgresServer
	redis          *redisServer
	registerDB     string
	gatewayDB      string
	workers        []*workerProc
	gateway        *process
	gatewayURL     string
	liveKey, pkKey string

	load *load // the last one started, for keepLogs

	snapMu    sync.Mutex
	snapshots map[string]string // prebuilt snapshot per register version
}

type workerProc struct {
	*process
	url string
}

const (
	// clientBudget is what a form waits (the spec's recommended client time-out): every
	// answer, a 503 included, must come within it.
	clientBudget = 1500 * time.Millisecond
	// gatewayPoll is how often the gateway reads the workers' /health (its default).
	gatewayPoll = time.Second
)

func newStack(t *testing.T, memory bool, initial ...*register) *stack {
	t.Helper()
	dir := t.TempDir()
	s := &stack{t: t, dir: dir, logDir: filepath.Join(dir, "logs"), memory: memory, snapshots: map[string]string{}}
	if err := os.MkdirAll(s.logDir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.keepLogs)
	s.pg = startPostgres(t, s.logDir)
	s.registerDB = s.pg.createDB("registers")
	s.gatewayDB = s.pg.createDB("gateway")
	s.redis = startRedis(t, s.logDir)
	for _, r := range initial {
		s.activate(r)
	}
	for i := range 2 {
		port := freePort(t)
		// Every request gets its line, so that the log scan reads the most the worker can write.
		args := []string{"serve", "--listen", "127.0.0.1:" + strconv.Itoa(port), "--access-log", "all"}
		if memory {
			args = append(args, "--snapshot", s.snapshotPath(adreswijzer.NL), "--snapshot", s.snapshotPath(adreswijzer.BE))
		} else {
			args = append(args, "--database-url", s.registerDB)
		}
		name := fmt.Sprintf("worker%d", i+1)
		w := &workerProc{process: newProcess(t, name, filepath.Join(s.logDir, name+".log"), bin.worker, args...),
			url: "http://127.0.0.1:" + strconv.Itoa(port)}
		s.workers = append(s.workers, w)
		w.start()
		t.Cleanup(w.stop)
	}
	for _, r := range initial {
		s.waitVersion(r, 60*time.Second)
	}
	s.liveKey = s.createKey("--kind", "live", "--account", "faults", "--name", "load")
	s.pkKey = s.createKey("--kind", "pk_live", "--account", "faults-shop", "--name", "limit probe", "--origin", shopOrigin)
	s.startGateway()
	return s
}

// keepLogs copies the processes' logs to ADRESWIJZER_FAULTS_LOGS, when set, for a person
// to read; the test's own directory is removed with the test.
func (s *stack) keepLogs() {
	dst := os.Getenv("ADRESWIJZER_FAULTS_LOGS")
	if dst == "" {
		return
	}
	to := filepath.Join(dst, strings.ReplaceAll(s.t.Name(), "/", "_"))
	if err := os.MkdirAll(to, 0o755); err != nil {
		s.t.Log(err)
		return
	}
	// After every process has stopped: cleanups run last-in first-out, and this one was
	// registered first.
	if s.load != nil {
		if err := s.load.dump(filepath.Join(to, "requests.csv")); err != nil {
			s.t.Log(err)
		}
	}
	ents, _ := os.ReadDir(s.logDir)
	for _, e := range ents {
		if b, err := os.ReadFile(filepath.Join(s.logDir, e.Name())); err == nil {
			_ = os.WriteFile(filepath.Join(to, e.Name()), b, 0o644)
		}
	}
	s.t.Logf("logs kept in %s", to)
}

// run runs a command to the end; its output goes to a log that is not scanned (imports read
// register data, and the keys command prints the secret it makes, by design).
func (s *stack) run(name string, args ...string) string {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	f, ferr := os.OpenFile(filepath.Join(s.dir, name+".out"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if ferr == nil {
		f.Write(errb.Bytes())
		f.Close()
	}
	if err != nil {
		s.t.Fatalf("%s: %v\n%s%s", name, err, out.String(), errb.String())
	}
	return out.String()
}

// importArgs are the arguments of `worker import` for r.
func importArgs(r *register) []string {
	args := []string{bin.worker, "import", "--country", strings.ToLower(string(r.country)), "--quiet"}
	if r.date != "" {
		args = append(args, "--date", r.date)
	}
	for _, f := range r.files {
		args = append(args, "--from", f)
	}
	return args
}

func (s *stack) snapshotPath(c adreswijzer.Country) string {
	return filepath.Join(s.dir, strings.ToLower(string(c))+".snap")
}

// activate makes r the active dataset of its country, as an operator does: an import into
// Postgres, or for snapshot workers a snapshot file moved over the one they serve.
func (s *stack) activate(r *register) {
	s.t.Helper()
	if !s.memory {
		s.run("import", append(importArgs(r), "--database-url", s.registerDB)...)
		return
	}
	s.snapMu.Lock()
	built, ok := s.snapshots[r.version]
	s.snapMu.Unlock()
	if !ok {
		built = filepath.Join(s.dir, "built-"+strings.NewReplacer(":", "-", "+", "_").Replace(r.version)+".snap")
		s.run("import", append(importArgs(r), "--snapshot", built)...)
		s.snapMu.Lock()
		s.snapshots[r.version] = built
		s.snapMu.Unlock()
	}
	dst := s.snapshotPath(r.country)
	tmp := dst + ".new"
	b, err := os.ReadFile(built)
	if err != nil {
		s.t.Fatal(err)
	}
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		s.t.Fatal(err)
	}
	if err := os.Rename(tmp, dst); err != nil {
		s.t.Fatal(err)
	}
}

// health reads a worker's /health; ok is false when it does not answer or answers neither
// 200 nor 503 with a health document.
func health(url string, timeout time.Duration) (adreswijzer.HealthResponse, int, bool) {
	var h adreswijzer.HealthResponse
	client := http.Client{Timeout: timeout}
	resp, err := client.Get(url + "/health")
	if err != nil {
		return h, 0, false
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || json.Unmarshal(b, &h) != nil {
		return h, resp.StatusCode, false
	}
	return h, resp.StatusCode, resp.StatusCode == http.StatusOK || resp.StatusCode == http.StatusServiceUnavailable
}

func versionOf(h adreswijzer.HealthResponse, c adreswijzer.Country) string {
	for _, d := range h.Datasets {
		if d.Country == string(c) {
			return d.Version
		}
	}
	return ""
}

// waitVersion waits until every running worker serves r's version, healthy.
func (s *stack) waitVersion(r *register, d time.Duration) {
	s.t.Helper()
	ok := waitFor(d, func() bool {
		for _, w := range s.workers {
			h, status, ok := health(w.url, time.Second)
			if !ok || status != http.StatusOK || versionOf(h, r.country) != r.version {
				return false
			}
		}
		return true
	})
	if !ok {
		s.t.Fatalf("workers do not serve %s %s after %v", r.country, r.version, d)
	}
}

// waitWorker waits until the worker answers /health with 200.
func (s *stack) waitWorker(w *workerProc, d time.Duration) {
	s.t.Helper()
	if !waitFor(d, func() bool { _, status, _ := health(w.url, time.Second); return status == http.StatusOK }) {
		s.t.Fatalf("%s not healthy after %v", w.name, d)
	}
}

func (s *stack) createKey(args ...string) string {
	s.t.Helper()
	out := s.run("keys", append([]string{bin.gateway, "keys", "create", "--database", s.gatewayDB}, args...)...)
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "secret:"); ok {
			return strings.TrimSpace(v)
		}
	}
	s.t.Fatalf("keys create printed no secret")
	return ""
}

// caddyfile is the gateway's configuration: that of deploy/Caddyfile for data calls (the
// worker pool, its health checks and time-outs, the Redis time-out, the cache, the access
// log with its filter), so that what is tested is what runs, on 127.0.0.1 and plain HTTP.
// Only the limits differ: the load is one account, and the rate-limit probe has a low
// limit of its own to run into.
var caddyfile = template.Must(template.New("Caddyfile").Parse(`{
	admin 127.0.0.1:{{.Admin}}
	auto_https off
	persist_config off
	grace_period 1s
}

(worker_pool) {
	header_up -Authorization
	header_up -Cookie

	lb_policy least_conn
	lb_retries 2
	lb_try_duration 500ms
	lb_try_interval 50ms

	health_uri /health
	health_interval 2s
	health_timeout 500ms
	health_status 2xx
	fail_duration 10s
	max_fails 2

	transport adreswijzer {
		dial_timeout 250ms
		response_header_timeout 900ms
	}
}

http://127.0.0.1:{{.Port}} {
	bind 127.0.0.1
	log {
		output file {{.AccessLog}}
		format filter {
			wrap json
			request>uri regexp \?.*$ ""
			request>headers>Authorization delete
			request>headers>Cookie delete
			request>headers>Referer delete
			request>remote_ip ip_mask 16 32
			request>client_ip ip_mask 16 32
		}
	}

	handle {
		adreswijzer {
			database {{.GatewayDB}}
			redis {{.Redis}}
			redis_prefix faults:
			redis_timeout 50ms
			session_idle 30m
			cache 50000 1h
			workers{{range .Workers}} {{.}}{{end}}
			upstream_timeout 1s

			limit live 100000/s burst 100000
			limit pk_live 5/s burst 5
			plan free unlimited
		}

		@nl vars adreswijzer.country nl
		@be vars adreswijzer.country be
		handle @nl {
			reverse_proxy{{range .Upstreams}} {{.}}{{end}} {
				import worker_pool
			}
		}
		handle @be {
			reverse_proxy{{range .Upstreams}} {{.}}{{end}} {
				import worker_pool
			}
		}
		handle {
			reverse_proxy{{range .Upstreams}} {{.}}{{end}} {
				import worker_pool
			}
		}
	}
}
`))

func (s *stack) startGateway() {
	s.t.Helper()
	port := freePort(s.t)
	var workers, upstreams []string
	for _, w := range s.workers {
		workers = append(workers, w.url)
		upstreams = append(upstreams, strings.TrimPrefix(w.url, "http://"))
	}
	var buf bytes.Buffer
	err := caddyfile.Execute(&buf, map[string]any{
		"Admin": freePort(s.t), "Port": port, "AccessLog": filepath.Join(s.logDir, "gateway-access.log"),
		"GatewayDB": s.gatewayDB, "Redis": s.redis.url(), "Workers": workers, "Upstreams": upstreams,
	})
	if err != nil {
		s.t.Fatal(err)
	}
	conf := filepath.Join(s.dir, "Caddyfile")
	if err := os.WriteFile(conf, buf.Bytes(), 0o644); err != nil {
		s.t.Fatal(err)
	}
	s.gateway = newProcess(s.t, "gateway", filepath.Join(s.logDir, "gateway.log"), bin.gateway,
		"run", "--config", conf, "--adapter", "caddyfile")
	s.gateway.env = []string{"XDG_DATA_HOME=" + filepath.Join(s.dir, "caddy-data"),
		"XDG_CONFIG_HOME=" + filepath.Join(s.dir, "caddy-config"), "HOME=" + s.dir}
	s.gateway.start()
	s.t.Cleanup(s.gateway.stop)
	s.gatewayURL = "http://127.0.0.1:" + strconv.Itoa(port)
	ok := waitFor(30*time.Second, func() bool {
		_, status, _ := health(s.gatewayURL, time.Second)
		return status == http.StatusOK
	})
	if !ok {
		s.t.Fatalf("gateway not up (see %s)", s.gateway.log)
	}
}

// versionWatch polls every worker's /health, as the gateway does but ten times as often,
// to know when each worker switched datasets.
type versionWatch struct {
	mu      sync.Mutex
	seen    []versionSeen
	stop    chan struct{}
	done    chan struct{}
	stopped sync.Once
}

type versionSeen struct {
	at      time.Time // when the answer came
	worker  int
	country adreswijzer.Country
	version string
}

func (s *stack) watchVersions() *versionWatch {
	v := &versionWatch{stop: make(chan struct{}), done: make(chan struct{})}
	s.t.Cleanup(v.close)
	go func() {
		defer close(v.done)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			for i, w := range s.workers {
				h, _, ok := health(w.url, 500*time.Millisecond)
				if !ok {
					continue
				}
				now := time.Now()
				v.mu.Lock()
				for _, d := range h.Datasets {
					v.seen = append(v.seen, versionSeen{at: now, worker: i, country: adreswijzer.Country(d.Country), version: d.Version})
				}
				v.mu.Unlock()
			}
			select {
			case <-v.stop:
				return
			case <-tick.C:
			}
		}
	}()
	return v
}

func (v *versionWatch) close() {
	v.stopped.Do(func() {
		close(v.stop)
		<-v.done
	})
}

// switched returns when every worker was first seen serving version after since.
func (v *versionWatch) switched(c adreswijzer.Country, version string, since time.Time, workers int) (time.Time, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	first := map[int]time.Time{}
	for _, o := range v.seen {
		if o.country != c || o.version != version || o.at.Before(since) {
			continue
		}
		if _, ok := first[o.worker]; !ok {
			first[o.worker] = o.at
		}
	}
	if len(first) < workers {
		return time.Time{}, false
	}
	var last time.Time
	for _, at := range first {
		if at.After(last) {
			last = at
		}
	}
	return last, true
}
