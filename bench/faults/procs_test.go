//go:build faults

package faults_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/redis/go-redis/v9"
)

// process is a server the test started and may kill, stop and start again. Its output goes
// to one log file across restarts, because the log scan must see every incarnation.
type process struct {
	t    testing.TB
	name string
	log  string
	bin  string
	args []string
	env  []string
	cred *syscall.Credential
	// tree: a freeze reaches the process's children too (Postgres' backends, which are
	// session leaders of their own, so a process group would not do).
	tree bool

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
}

func newProcess(t testing.TB, name, logPath, bin string, args ...string) *process {
	return &process{t: t, name: name, log: logPath, bin: bin, args: args}
}

// start runs the process. The kernel kills it if the test binary dies (a -timeout panic
// runs no cleanups), so no server outlives a broken run on a shared machine.
func (p *process) start() {
	p.t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd != nil {
		p.t.Fatalf("%s is running already", p.name)
	}
	f, err := os.OpenFile(p.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		p.t.Fatalf("log of %s: %v", p.name, err)
	}
	cmd := exec.Command(p.bin, p.args...)
	cmd.Env = append(os.Environ(), p.env...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Credential: p.cred}
	if err := cmd.Start(); err != nil {
		f.Close()
		p.t.Fatalf("start %s: %v", p.name, err)
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		f.Close()
		close(done)
	}()
	p.cmd, p.done = cmd, done
}

// signal sends sig and, when wait is set, waits up to d for the process to end, killing it
// after that.
func (p *process) signal(sig syscall.Signal, wait bool, d time.Duration) {
	p.mu.Lock()
	cmd, done := p.cmd, p.done
	p.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Signal(sig)
	if p.tree && (sig == syscall.SIGSTOP || sig == syscall.SIGCONT) {
		for _, pid := range children(cmd.Process.Pid) {
			_ = syscall.Kill(pid, sig)
		}
	}
	if !wait {
		return
	}
	select {
	case <-done:
	case <-time.After(d):
		_ = cmd.Process.Kill()
		<-done
	}
	p.mu.Lock()
	p.cmd, p.done = nil, nil
	p.mu.Unlock()
}

// kill ends the process at once (SIGKILL), as a crash would.
func (p *process) kill() { p.signal(syscall.SIGKILL, true, 5*time.Second) }

// stop asks the process to end (SIGTERM) and kills it if it does not within 10 s.
func (p *process) stop() { p.signal(syscall.SIGTERM, true, 10*time.Second) }

// freeze and thaw stop and continue the process (SIGSTOP, SIGCONT): a server that hangs
// without closing its connections, which only time-outs can detect.
func (p *process) freeze() { p.signal(syscall.SIGSTOP, false, 0) }
func (p *process) thaw()   { p.signal(syscall.SIGCONT, false, 0) }

// running reports whether the process was started and not stopped by the test.
func (p *process) running() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cmd != nil
}

// exited reports whether the process ended on its own.
func (p *process) exited() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done == nil {
		return false
	}
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// children lists the processes whose parent is pid, from /proc.
func children(pid int) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so read after the last ')'.
		i := strings.LastIndexByte(string(b), ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) > 1 && f[1] == strconv.Itoa(pid) {
			out = append(out, child)
		}
	}
	return out
}

// freePort returns a TCP port that was free a moment ago on 127.0.0.1.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("free port: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// waitFor polls cond every 50 ms until it holds or d passes.
func waitFor(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// postgresServer is a throwaway cluster of the test's own. The postmaster is the test's
// child (so it dies with the test binary); it is stopped the way an operator's
// `pg_ctl stop -m immediate` does, which is how a crash looks to clients.
type postgresServer struct {
	t       testing.TB
	bindir  string
	dir     string // cluster directory: data, socket
	data    string
	port    int
	cred    *syscall.Credential
	postmas *process
}

// pgBindir finds the server programs: ADRESWIJZER_PG_BINDIR, else what pg_config says,
// else initdb on PATH.
func pgBindir(t testing.TB) string {
	t.Helper()
	if d := os.Getenv("ADRESWIJZER_PG_BINDIR"); d != "" {
		return d
	}
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		d := strings.TrimSpace(string(out))
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Dir(r)
		}
		return filepath.Dir(p)
	}
	missing(t, "PostgreSQL server programs (initdb; set ADRESWIJZER_PG_BINDIR)", exec.ErrNotFound)
	return ""
}

// missing fails the test for a server program it cannot find, or skips it when the run
// opted out of services on purpose (ADRESWIJZER_SKIP_SERVICES=1, as the other tests do).
func missing(t testing.TB, what string, err error) {
	t.Helper()
	if os.Getenv("ADRESWIJZER_SKIP_SERVICES") == "1" {
		t.Skipf("%s not found and ADRESWIJZER_SKIP_SERVICES=1: %v", what, err)
	}
	t.Fatalf("%s not found (set ADRESWIJZER_SKIP_SERVICES=1 to skip on purpose): %v", what, err)
}

// serviceCredential is the user the Postgres programs run as: initdb and postgres refuse
// root, so a root test runs them as the postgres user.
func serviceCredential(t testing.TB) *syscall.Credential {
	t.Helper()
	if os.Geteuid() != 0 {
		return nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		t.Fatalf("running as root needs the postgres user for the test cluster: %v", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), NoSetGroups: true}
}

func startPostgres(t testing.TB, logDir string) *postgresServer {
	t.Helper()
	s := &postgresServer{t: t, bindir: pgBindir(t), port: freePort(t), cred: serviceCredential(t)}
	dir, err := os.MkdirTemp("", "faults-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if s.cred != nil {
		if err := os.Chown(dir, int(s.cred.Uid), int(s.cred.Gid)); err != nil {
			t.Fatal(err)
		}
	}
	s.dir, s.data = dir, filepath.Join(dir, "data")
	initdb := exec.Command(filepath.Join(s.bindir, "initdb"), "-D", s.data, "-U", "postgres", "-A", "trust",
		"--no-sync", "-E", "UTF8", "--locale", "C")
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred}
	if out, err := initdb.CombinedOutput(); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	// The server's own log goes to stderr, which the process log collects: that is the
	// file an operator would read, so it is scanned like the others.
	s.postmas = newProcess(t, "postgres", filepath.Join(logDir, "postgres.log"), filepath.Join(s.bindir, "postgres"),
		"-D", s.data, "-p", strconv.Itoa(s.port), "-k", dir,
		"-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "synchronous_commit=off",
		"-c", "full_page_writes=off", "-c", "max_connections=200", "-c", "logging_collector=off")
	s.postmas.cred = s.cred
	s.postmas.tree = true
	s.start()
	t.Cleanup(func() { s.postmas.thaw(); s.stopImmediate() })
	return s
}

// start starts the postmaster and waits until it accepts connections.
func (s *postgresServer) start() {
	s.t.Helper()
	s.postmas.start()
	ok := waitFor(30*time.Second, func() bool {
		if s.postmas.exited() {
			return false
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, s.url("postgres"))
		if err != nil {
			return false
		}
		c.Close(ctx)
		return true
	})
	if !ok {
		s.t.Fatalf("test Postgres on port %d did not start (see %s)", s.port, s.postmas.log)
	}
}

// stopImmediate is `pg_ctl stop -m immediate`: every backend is dropped, no checkpoint,
// crash recovery on the next start.
func (s *postgresServer) stopImmediate() {
	if !s.postmas.running() {
		return
	}
	if s.postmas.exited() {
		s.postmas.signal(syscall.SIGKILL, true, time.Second)
		return
	}
	ctl := exec.Command(filepath.Join(s.bindir, "pg_ctl"), "stop", "-D", s.data, "-m", "immediate", "-w", "-t", "20")
	ctl.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred}
	if out, err := ctl.CombinedOutput(); err != nil {
		s.t.Logf("pg_ctl stop: %v\n%s", err, out)
	}
	// Reaps the postmaster (and kills it if pg_ctl could not).
	s.postmas.signal(syscall.SIGQUIT, true, 10*time.Second)
}

func (s *postgresServer) url(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", s.port, db)
}

// createDB makes a database and returns its URL.
func (s *postgresServer) createDB(name string) string {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, s.url("postgres"))
	if err != nil {
		s.t.Fatal(err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		s.t.Fatalf("create database %s: %v", name, err)
	}
	return s.url(name)
}

// redisServer is a redis-server of the test's own, without persistence.
type redisServer struct {
	t    testing.TB
	addr string
	proc *process
}

func startRedis(t testing.TB, logDir string) *redisServer {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		missing(t, "redis-server", err)
	}
	port := freePort(t)
	s := &redisServer{t: t, addr: "127.0.0.1:" + strconv.Itoa(port)}
	s.proc = newProcess(t, "redis", filepath.Join(logDir, "redis.log"), bin,
		"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--daemonize", "no", "--loglevel", "notice", "--logfile", "")
	s.start()
	t.Cleanup(func() { s.proc.thaw(); s.proc.kill() })
	return s
}

func (s *redisServer) start() {
	s.t.Helper()
	s.proc.start()
	rdb := s.client()
	defer rdb.Close()
	ok := waitFor(10*time.Second, func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		return rdb.Ping(ctx).Err() == nil
	})
	if !ok {
		s.t.Fatalf("redis-server on %s did not answer", s.addr)
	}
}

func (s *redisServer) client() *redis.Client {
	return redis.NewClient(&redis.Options{Addr: s.addr, MaxRetries: -1, DialTimeout: 200 * time.Millisecond,
		ReadTimeout: 500 * time.Millisecond})
}

func (s *redisServer) url() string { return "redis://" + s.addr }

// keys lists the keys matching pattern; an error when Redis does not answer.
func (s *redisServer) keys(pattern string) ([]string, error) {
	rdb := s.client()
	defer rdb.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	ks, err := rdb.Keys(ctx, pattern).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, err
	}
	return ks, nil
}
