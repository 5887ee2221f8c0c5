package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// server is a child process that serves until it is stopped.
type server struct {
	name string
	cmd  *exec.Cmd
	log  string
	done chan struct{}
	err  error
}

// startServer starts argv with its output in a log file of the working directory. The child
// gets SIGTERM should the driver die, so no server outlives an interrupted run.
func startServer(name, logDir string, env []string, argv ...string) (*server, error) {
	logPath := filepath.Join(logDir, name+".log")
	f, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	if err := cmd.Start(); err != nil {
		f.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	s := &server{name: name, cmd: cmd, log: logPath, done: make(chan struct{})}
	go func() {
		s.err = cmd.Wait()
		f.Close()
		close(s.done)
	}()
	return s, nil
}

func (s *server) pid() int { return s.cmd.Process.Pid }

// exited reports an early exit, with the end of its log.
func (s *server) exited() error {
	select {
	case <-s.done:
		return fmt.Errorf("%s exited: %v\n%s", s.name, s.err, logTail(s.log))
	default:
		return nil
	}
}

// stop asks the server to shut down and kills it if it has not within ten seconds.
func (s *server) stop() {
	if s == nil {
		return
	}
	select {
	case <-s.done:
		return
	default:
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
}

func logTail(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	if len(b) > 3000 {
		b = b[len(b)-3000:]
	}
	return string(b)
}

// freePorts finds loopback ports nobody listens on. Another process could take one before
// the server binds it; the server then fails to start, which the driver reports.
func freePorts(n int) ([]int, error) {
	var ps []int
	var lns []net.Listener
	defer func() {
		for _, ln := range lns {
			ln.Close()
		}
	}()
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		lns = append(lns, ln)
		ps = append(ps, ln.Addr().(*net.TCPAddr).Port)
	}
	return ps, nil
}

var client = &http.Client{Timeout: 10 * time.Second}

// waitReady polls url until ok says the answer is the one expected, the server exits, or
// the time is up.
func waitReady(ctx context.Context, s *server, url string, limit time.Duration, ok func(status int, body []byte) bool) error {
	deadline := time.Now().Add(limit)
	var last string
	for {
		if err := s.exited(); err != nil {
			return err
		}
		if resp, err := client.Get(url); err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if ok(resp.StatusCode, body) {
				return nil
			}
			last = fmt.Sprintf("status %d: %.200s", resp.StatusCode, body)
		} else {
			last = err.Error()
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not ready after %v (%s)\n%s", s.name, limit, last, logTail(s.log))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// request sends one request of a key file line ("GET <target>" or "POST <target> <body>").
func request(base, line, bearer string) (*http.Response, []byte, error) {
	method, target, body, ok := parseKeyLine(line)
	if !ok {
		return nil, nil, fmt.Errorf("not a request: %q", line)
	}
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, base+target, rd)
	if err != nil {
		return nil, nil, err
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp, b, err
}

// runLogged runs a command to completion with its output in a log file, returning its
// process state for the rusage.
func runLogged(ctx context.Context, logPath string, env []string, argv ...string) (*os.ProcessState, []byte, error) {
	f, err := os.Create(logPath)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	var stdout strings.Builder
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdout = io.MultiWriter(f, &stdout)
	cmd.Stderr = f
	cmd.Env = append(os.Environ(), env...)
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 30 * time.Second
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	err = cmd.Run()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) || ctx.Err() == nil {
			return cmd.ProcessState, nil, fmt.Errorf("%s: %w\n%s", filepath.Base(argv[0]), err, logTail(logPath))
		}
		return cmd.ProcessState, nil, err
	}
	return cmd.ProcessState, []byte(stdout.String()), nil
}
