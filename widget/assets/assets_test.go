package assets_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"

	"github.com/adreswijzer/adreswijzer/widget/assets"
)

// core returns the form's core: ADRESWIJZER_WASM (relative to the repository root, as make
// passes it), or one built here with the release flags.
func core(t *testing.T) string {
	if p := os.Getenv("ADRESWIJZER_WASM"); p != "" {
		if !filepath.IsAbs(p) {
			p = filepath.Join("..", "..", p)
		}
		return p
	}
	out := filepath.Join(t.TempDir(), "adreswijzer.wasm")
	cmd := exec.Command("go", "build", "-buildmode=c-shared", "-trimpath", "-ldflags=-s -w",
		"-gcflags=github.com/adreswijzer/adreswijzer/...=-l", "-o", out, "./wasm")
	cmd.Dir = filepath.Join("..", "..")
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build the core: %v\n%s", err, b)
	}
	return out
}

func TestBuild(t *testing.T) {
	out := t.TempDir()
	wasm := core(t)
	// Something of another build to be replaced, and a file of someone else's to be kept.
	for _, n := range []string{"wasi.000000000000.js", "wasi.000000000000.js.br", "README"} {
		os.WriteFile(filepath.Join(out, n), []byte("old"), 0o644)
	}
	f, err := assets.Build("..", wasm, out)
	if err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(out)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	want := append(f.All(), "README")
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Fatalf("files %q, want %q", names, want)
	}
	for _, n := range []string{f.Shim, f.Core} {
		if !assets.Hashed.MatchString(n) {
			t.Errorf("%s is not content-hashed", n)
		}
	}
	orig, _ := os.ReadFile(wasm)
	if got, _ := os.ReadFile(filepath.Join(out, f.Core)); !bytes.Equal(got, orig) {
		t.Error("the served core differs from the build")
	}
	entry, _ := os.ReadFile(filepath.Join(out, f.Entry))
	for _, n := range []string{f.Core, f.Shim} {
		if !bytes.Contains(entry, []byte("'./"+n+"'")) {
			t.Errorf("%s does not load %s", f.Entry, n)
		}
	}
	if bytes.Contains(entry, []byte("'./adreswijzer.wasm'")) || bytes.Contains(entry, []byte("'./wasi.js'")) {
		t.Errorf("%s still names the unhashed files", f.Entry)
	}
	// Each precompressed file is the file.
	for _, n := range []string{f.Entry, f.Shim, f.Core} {
		plain, _ := os.ReadFile(filepath.Join(out, n))
		br, _ := os.ReadFile(filepath.Join(out, n+".br"))
		gz, _ := os.ReadFile(filepath.Join(out, n+".gz"))
		fromBr, err := io.ReadAll(brotli.NewReader(bytes.NewReader(br)))
		if err != nil || !bytes.Equal(fromBr, plain) {
			t.Errorf("%s.br does not decode to %s: %v", n, n, err)
		}
		zr, err := gzip.NewReader(bytes.NewReader(gz))
		if err != nil {
			t.Fatal(err)
		}
		fromGz, err := io.ReadAll(zr)
		if err != nil || !bytes.Equal(fromGz, plain) {
			t.Errorf("%s.gz does not decode to %s: %v", n, n, err)
		}
		if len(br) >= len(gz) && len(plain) > 1000 {
			t.Errorf("%s: brotli %d bytes, gzip %d: brotli should be smaller", n, len(br), len(gz))
		}
		t.Logf("%s: %d raw, %d brotli, %d gzip", n, len(plain), len(br), len(gz))
	}
}

func TestBuildRefusesAnEntryWithoutItsNames(t *testing.T) {
	src := t.TempDir()
	os.WriteFile(filepath.Join(src, "adreswijzer-form.js"), []byte("const CORE = './core.wasm';\n"), 0o644)
	os.WriteFile(filepath.Join(src, "wasi.js"), []byte("export {};\n"), 0o644)
	os.WriteFile(filepath.Join(src, "core.wasm"), []byte("\x00asm"), 0o644)
	_, err := assets.Build(src, filepath.Join(src, "core.wasm"), t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "CORE") {
		t.Fatalf("err = %v, want one naming the missing CORE declaration", err)
	}
}
