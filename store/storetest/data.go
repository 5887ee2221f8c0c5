// Package storetest holds what tests across the project share about the register samples:
// where they are, and the conformance tests every Store must pass.
package storetest

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// DataDir returns the directory with the real register samples. They are never copied into
// the repository: by default they sit in ../shared/data beside the checkout; ADRESWIJZER_DATA
// points elsewhere. A missing directory fails the test, because a test that silently skips
// its data proves nothing.
func DataDir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("ADRESWIJZER_DATA")
	if dir == "" {
		_, file, _, ok := runtime.Caller(0)
		if !ok {
			t.Fatal("cannot locate the repository to find ../shared/data; set ADRESWIJZER_DATA")
		}
		// file is <repo>/store/storetest/data.go
		dir = filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "data")
	}
	if _, err := os.Stat(filepath.Join(dir, "SOURCES.md")); err != nil {
		t.Fatalf("register samples not found in %s (set ADRESWIJZER_DATA): %v", dir, err)
	}
	return dir
}

// File returns the path of one sample file, e.g. File(t, "nl", "BAGGEM0457L-15102021.zip").
func File(t testing.TB, parts ...string) string {
	t.Helper()
	p := filepath.Join(append([]string{DataDir(t)}, parts...)...)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("register sample missing: %v", err)
	}
	return p
}
