//go:build faults

package faults_test

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// tempDirs are removed when the run ends.
var tempDirs []string

// The binaries under test, built once per run from this checkout, as an operator runs them.
var bin struct{ worker, gateway string }

func TestMain(m *testing.M) {
	flag.Parse()
	dir, err := os.MkdirTemp("", "faults-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin.worker = filepath.Join(dir, "worker")
	bin.gateway = filepath.Join(dir, "gateway")
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if p, err := exec.LookPath("go"); err == nil {
		gobin = p
	}
	start := time.Now()
	for _, b := range []struct{ out, pkg string }{
		{bin.worker, "github.com/adreswijzer/adreswijzer/worker/cmd/worker"},
		{bin.gateway, "github.com/adreswijzer/adreswijzer/caddymodule/cmd/gateway"},
	} {
		build := exec.Command(gobin, "build", "-o", b.out, b.pkg)
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			fmt.Fprintf(os.Stderr, "build %s: %v\n", b.pkg, err)
			os.RemoveAll(dir)
			os.Exit(1)
		}
	}
	if testing.Verbose() {
		fmt.Fprintf(os.Stderr, "built bin/worker and bin/gateway in %.1f s\n", time.Since(start).Seconds())
	}
	code := m.Run()
	os.RemoveAll(dir)
	for _, d := range tempDirs {
		os.RemoveAll(d)
	}
	os.Exit(code)
}
