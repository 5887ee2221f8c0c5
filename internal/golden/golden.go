// Package golden holds what a test produces against a file under testdata that a reviewer
// reads, an answer as its callers get it, and rewrites the files when the tests run with
// -update: a change of an answer shows as a diff in review rather than hiding in
// assertions. One flag for every package that imports it, so that `go test ./... -update`
// means the same everywhere.
package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// Compare checks got against testdata/<name>, byte for byte; with -update it writes got
// there instead.
func Compare(t testing.TB, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		line, g, w := firstDifference(got, want)
		t.Errorf("%s differs from what the test produced, first at line %d (review the change; go test -update rewrites the file)\ngot:  %s\nwant: %s",
			path, line, g, w)
	}
}

// firstDifference finds the first line, counted from 1, where got and want differ, and the
// two lines ("" past the end of either), so that a failure names the change in a file of
// hundreds of lines.
func firstDifference(got, want []byte) (line int, g, w string) {
	gs, ws := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
	for i := 0; ; i++ {
		var gl, wl []byte
		if i < len(gs) {
			gl = gs[i]
		}
		if i < len(ws) {
			wl = ws[i]
		}
		if !bytes.Equal(gl, wl) || i >= len(gs) || i >= len(ws) {
			return i + 1, string(gl), string(wl)
		}
	}
}
