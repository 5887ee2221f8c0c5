// Package e2etest runs the real system for end-to-end tests: it builds the binaries, starts
// them as processes with their logs kept as artifacts, and drives Debian's headless
// Chromium, with an accessibility check (axe-core) of the pages it visits.
package e2etest

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"testing"
	"time"

	"github.com/adreswijzer/adreswijzer/widget/assets"
)

// Root is the module's root directory, where make runs.
func Root(t testing.TB) string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot locate the repository")
	}
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// FromRoot takes a relative path from an environment variable as relative to Root.
func FromRoot(t testing.TB, p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(Root(t), p)
}

// Artifacts is the directory for the screenshots and service logs of a test package: under
// ADRESWIJZER_ARTIFACTS, or a new temporary directory (printed).
func Artifacts(t testing.TB, name string) string {
	dir := FromRoot(t, os.Getenv("ADRESWIJZER_ARTIFACTS"))
	if dir == "" {
		d, err := os.MkdirTemp("", "adreswijzer-e2e-")
		if err != nil {
			t.Fatal(err)
		}
		dir = d
	}
	dir = filepath.Join(dir, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshots and service logs in %s", dir)
	return dir
}

// Build builds a command of the module into out.
func Build(t testing.TB, out, pkg string) { build(t, out, pkg, nil) }

func build(t testing.TB, out, pkg string, env []string, flags ...string) {
	t.Helper()
	cmd := exec.Command("go", append(append([]string{"build", "-o", out}, flags...), pkg)...)
	cmd.Dir = Root(t)
	cmd.Env = append(os.Environ(), env...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, b)
	}
}

// Widget writes the form's files into dir as `make build` writes widget/dist, and returns
// their names. The core is ADRESWIJZER_WASM (the Makefile passes the one it built), or one
// built here as the Makefile builds it.
func Widget(t testing.TB, dir string) assets.Files {
	t.Helper()
	core := FromRoot(t, os.Getenv("ADRESWIJZER_WASM"))
	if core == "" {
		core = filepath.Join(t.TempDir(), "adreswijzer.wasm")
		build(t, core, "./wasm", []string{"GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0"},
			"-buildmode=c-shared", "-trimpath", "-ldflags=-s -w", "-gcflags=github.com/adreswijzer/adreswijzer/...=-l")
	}
	files, err := assets.Build(filepath.Join(Root(t), "widget"), core, dir)
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// WidgetBlock is the /widget/* block of deploy/Caddyfile.local, as shipped: its root comes
// from ADRESWIJZER_WIDGET_DIR.
func WidgetBlock(t testing.TB) string {
	t.Helper()
	local, err := os.ReadFile(filepath.Join(Root(t), "deploy", "Caddyfile.local"))
	if err != nil {
		t.Fatal(err)
	}
	block, err := assets.CaddyBlock(string(local))
	if err != nil {
		t.Fatal(err)
	}
	return block
}

// FreePort returns a TCP port that was free a moment ago on 127.0.0.1.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// Service is a process the test started; it is killed when the test ends.
type Service struct {
	cmd  *exec.Cmd
	done chan struct{}
}

// Start runs bin with args in bin's directory, with env added to this process's
// environment, its output in logs/name.log.
func Start(t testing.TB, logs, name string, env []string, bin string, args ...string) *Service {
	t.Helper()
	logf, err := os.Create(filepath.Join(logs, name+".log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = filepath.Dir(bin)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	s := &Service{cmd: cmd, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); logf.Close(); close(s.done) }()
	t.Cleanup(s.Stop)
	return s
}

// Stop kills the process and waits for it.
func (s *Service) Stop() {
	select {
	case <-s.done:
		return
	default:
	}
	_ = s.cmd.Process.Kill()
	<-s.done
}

// Run runs bin with args to its end and returns what it printed.
func Run(t testing.TB, bin string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = filepath.Dir(bin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %v: %v\n%s%s", filepath.Base(bin), args, err, out.String(), errb.String())
	}
	return out.String()
}

// WaitHTTP waits until url answers 200, or fails the test when s ends first or after 90 s.
func WaitHTTP(t testing.TB, url string, s *Service) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-s.done:
			t.Fatalf("%s exited before it served %s", s.cmd.Path, url)
		default:
		}
		resp, err := http.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s did not answer 200 in time", url)
}

// Listen opens a listener on a free loopback port, closed when the test ends.
func Listen(t testing.TB) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln
}

// unsafeChars are replaced in artifact file names.
var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// FileName makes a test's name and a word into an artifact's file name.
func FileName(test, word, ext string) string {
	return unsafeChars.ReplaceAllString(fmt.Sprintf("%s-%s", test, word), "-") + ext
}
