package caddymodule_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adreswijzer/adreswijzer/gateway/gatewaytest"
	"github.com/adreswijzer/adreswijzer/store/storetest"
	"github.com/adreswijzer/adreswijzer/worker/mcpserver/mcpservertest"
)

// The gateway is tested in front of a real register worker: bin/worker, built from this
// checkout, serving snapshots imported from the real samples (the BAG extract of Weesp and
// BOSA's BeST sample: Haren in Brussels, Lembeek, Malmedy), started once for the package and
// shared by the tests, which never change it. Tests that must steer the worker (new dataset
// versions, failures, hangs, what it received) use gatewaytest's stand-in instead.
// ADRESWIJZER_TEST_UPSTREAM names a worker that is already running, to use instead.

var (
	workDir   string // the built binary and the snapshots
	workerBin string

	workerOnce sync.Once
	workerURL  string
	workerErr  error
	workerCmd  *exec.Cmd
	workerLog  bytes.Buffer
)

func TestMain(m *testing.M) {
	code, err := runTests(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	os.Exit(code)
}

func runTests(m *testing.M) (int, error) {
	dir, err := os.MkdirTemp("", "gateway-test-worker-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	workDir, workerBin = dir, filepath.Join(dir, "worker")
	if os.Getenv(gatewaytest.UpstreamEnv) == "" {
		gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
		if p, err := exec.LookPath("go"); err == nil {
			gobin = p
		}
		build := exec.Command(gobin, "build", "-o", workerBin, "github.com/adreswijzer/adreswijzer/worker/cmd/worker")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			return 0, fmt.Errorf("build the worker: %w", err)
		}
	}
	defer stopWorker()
	return m.Run(), nil
}

// upstream is the worker the gateway under test proxies to: the real one.
func upstream(t testing.TB) string {
	t.Helper()
	if u := os.Getenv(gatewaytest.UpstreamEnv); u != "" {
		return strings.TrimSuffix(u, "/")
	}
	workerOnce.Do(func() {
		// Stays the error when startWorker ends the test that called it (missing samples).
		workerErr = errors.New("the register samples are missing: see the first test that failed")
		workerURL, workerErr = startWorker(t)
	})
	if workerErr != nil {
		t.Fatalf("real worker: %v", workerErr)
	}
	return workerURL
}

// startWorker imports the samples and serves them. It reports errors rather than failing
// the test that happened to start it, so that every test that needs the worker fails.
func startWorker(t testing.TB) (string, error) {
	nlSnap, beSnap := filepath.Join(workDir, "nl.snap"), filepath.Join(workDir, "be.snap")
	for _, args := range [][]string{
		{"--country", "nl", "--from", storetest.File(t, "nl", "BAGGEM0457L-15102021.zip"), "--snapshot", nlSnap},
		{"--country", "be", "--from", filepath.Join(storetest.DataDir(t), "be"), "--snapshot", beSnap},
	} {
		out, err := exec.Command(workerBin, append([]string{"import", "--quiet"}, args...)...).CombinedOutput()
		if err != nil {
			return "", fmt.Errorf("worker import %s: %v\n%s", args[1], err, out)
		}
	}
	addr := fmt.Sprintf("127.0.0.1:%d", gatewaytest.FreePort(t))
	workerCmd = exec.Command(workerBin, "serve", "--listen", addr, "--snapshot", nlSnap, "--snapshot", beSnap)
	workerCmd.Stdout, workerCmd.Stderr = &lockedWriter{w: &workerLog}, &lockedWriter{w: &workerLog}
	if err := workerCmd.Start(); err != nil {
		return "", fmt.Errorf("worker serve: %w", err)
	}
	base := "http://" + addr
	client := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := client.Get(base + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return base, nil
			}
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("worker serve did not become healthy: %v\n%s", err, workerLogText())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// toolSchemas are the tool schemas the real worker publishes, which every tool result of
// these tests is checked against (see mcpservertest), listed once, straight from the worker.
func toolSchemas(t testing.TB) *mcpservertest.Tools {
	t.Helper()
	base := upstream(t)
	toolsOnce.Do(func() {
		client := mcp.NewClient(&mcp.Implementation{Name: "adreswijzer-gateway-test", Version: "1"}, nil)
		cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: base + "/mcp", MaxRetries: -1},
			&mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
		if err != nil {
			t.Fatalf("connect to the worker: %v", err)
		}
		defer cs.Close()
		tools = mcpservertest.New(t, cs)
	})
	if tools == nil {
		t.Fatal("the worker's tool schemas could not be listed: see the first test that failed")
	}
	return tools
}

var (
	toolsOnce sync.Once
	tools     *mcpservertest.Tools
)

// realWorker reports whether url is the real worker, whose tool results the tests check
// against its schemas (gatewaytest's stand-in answers every tool call with a tool list).
func realWorker(url string) bool {
	return url != "" && (url == workerURL || url == strings.TrimSuffix(os.Getenv(gatewaytest.UpstreamEnv), "/"))
}

// stopWorker ends the shared worker the way an operator's service manager does.
func stopWorker() {
	if workerCmd == nil || workerCmd.Process == nil {
		return
	}
	_ = workerCmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- workerCmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			fmt.Fprintf(os.Stderr, "worker serve ended with %v\n%s", err, workerLogText())
		}
	case <-time.After(15 * time.Second):
		_ = workerCmd.Process.Kill()
		<-done
	}
}

var workerLogMu sync.Mutex

type lockedWriter struct{ w *bytes.Buffer }

func (l *lockedWriter) Write(p []byte) (int, error) {
	workerLogMu.Lock()
	defer workerLogMu.Unlock()
	return l.w.Write(p)
}

// workerLogText is what the worker logged, for failures; the worker logs no request data.
func workerLogText() string {
	workerLogMu.Lock()
	defer workerLogMu.Unlock()
	return workerLog.String()
}
