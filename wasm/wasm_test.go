//go:build !wasip1

package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/rand"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/adreswijzer/adreswijzer/wasm/form/formtest"
)

// These tests run the form's core as the browser gets it: this package built as a WASI
// reactor, loaded by wazero, driven through its exports with JSON. ADRESWIJZER_WASM names a
// prebuilt file (the Makefile passes widget/adreswijzer.wasm; a relative path is taken from the
// repository root); without it the test builds one.

// buildFlags are the release flags, the same the Makefile uses for widget/adreswijzer.wasm:
// no inlining in our own packages, which makes their code a third smaller (the runtime's
// is left as it is).
var buildFlags = []string{"build", "-buildmode=c-shared", "-trimpath", "-ldflags=-s -w", "-gcflags=github.com/adreswijzer/adreswijzer/...=-l"}

var (
	wasmOnce sync.Once
	wasmPath string
	wasmErr  error
)

// wasmFile returns the path of the reactor, building it once per test binary.
func wasmFile(tb testing.TB) string {
	tb.Helper()
	if p := os.Getenv("ADRESWIJZER_WASM"); p != "" {
		if !filepath.IsAbs(p) {
			p = filepath.Join("..", p) // relative to the repository root, as make passes it
		}
		if _, err := os.Stat(p); err != nil {
			tb.Fatalf("ADRESWIJZER_WASM: %v", err)
		}
		return p
	}
	wasmOnce.Do(func() {
		dir, err := os.MkdirTemp("", "adreswijzer-wasm-")
		if err != nil {
			wasmErr = err
			return
		}
		wasmPath = filepath.Join(dir, "adreswijzer.wasm")
		wasmErr = goBuild(".", wasmPath)
	})
	if wasmErr != nil {
		tb.Fatalf("build the reactor: %v", wasmErr)
	}
	return wasmPath
}

// goBuild builds the package in dir (a directory of this module, or of a module of its own)
// for wasip1.
func goBuild(dir, out string) error { return goBuildFlags(dir, out, buildFlags) }

func goBuildFlags(dir, out string, flags []string) error {
	cmd := exec.Command("go", append(flags, "-o", out, ".")...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		return &buildError{err: err, out: string(b)}
	}
	return nil
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return e.err.Error() + "\n" + e.out }

// reactor is one instance of the module: the runtime and the exports the shell uses.
type reactor struct {
	ctx                        context.Context
	mod                        api.Module
	alloc, free, create, event api.Function
	destroy                    api.Function
	rt                         wazero.Runtime
}

// compileCache keeps wazero's compiled code between test runs: compiling the module takes
// about two seconds, loading it from the cache a tenth of that.
func compileCache(tb testing.TB) wazero.CompilationCache {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	cache, err := wazero.NewCompilationCacheWithDir(filepath.Join(dir, "adreswijzer", "wazero"))
	if err != nil {
		tb.Fatalf("wazero cache: %v", err)
	}
	return cache
}

func newReactor(tb testing.TB) *reactor {
	tb.Helper()
	code, err := os.ReadFile(wasmFile(tb))
	if err != nil {
		tb.Fatal(err)
	}
	ctx := context.Background()
	r := &reactor{ctx: ctx}
	r.rt = wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().WithCompilationCache(compileCache(tb)))
	tb.Cleanup(func() { r.rt.Close(ctx) })
	wasi_snapshot_preview1.MustInstantiate(ctx, r.rt)
	cm, err := r.rt.CompileModule(ctx, code)
	if err != nil {
		tb.Fatalf("compile: %v", err)
	}
	r.mod, err = r.rt.InstantiateModule(ctx, cm, wazero.NewModuleConfig().
		WithStartFunctions("_initialize"). // a reactor: without it every export traps
		WithStderr(os.Stderr).WithSysWalltime().WithSysNanotime().WithRandSource(rand.Reader))
	if err != nil {
		tb.Fatalf("instantiate: %v", err)
	}
	for name, f := range map[string]*api.Function{"alloc": &r.alloc, "free": &r.free, "create": &r.create, "event": &r.event, "destroy": &r.destroy} {
		if *f = r.mod.ExportedFunction(name); *f == nil {
			tb.Fatalf("the module does not export %s", name)
		}
	}
	return r
}

// write copies b into memory the module allocated, and returns its address.
func (r *reactor) write(tb testing.TB, b []byte) uint32 {
	tb.Helper()
	res, err := r.alloc.Call(r.ctx, uint64(len(b)))
	if err != nil {
		tb.Fatalf("alloc: %v", err)
	}
	p := uint32(res[0])
	if !r.mod.Memory().Write(p, b) {
		tb.Fatalf("write %d bytes at %d: out of range", len(b), p)
	}
	return p
}

func (r *reactor) newForm(tb testing.TB, cfg []byte) uint32 {
	tb.Helper()
	p := r.write(tb, cfg)
	res, err := r.create.Call(r.ctx, uint64(p), uint64(len(cfg)))
	if err != nil {
		tb.Fatalf("create: %v", err)
	}
	r.free.Call(r.ctx, uint64(p))
	return uint32(res[0])
}

func (r *reactor) send(tb testing.TB, handle uint32, ev []byte) []byte {
	tb.Helper()
	p := r.write(tb, ev)
	res, err := r.event.Call(r.ctx, uint64(handle), uint64(p), uint64(len(ev)))
	if err != nil {
		tb.Fatalf("event: %v", err)
	}
	if _, err := r.free.Call(r.ctx, uint64(p)); err != nil {
		tb.Fatalf("free: %v", err)
	}
	ptr, n := uint32(res[0]>>32), uint32(res[0])
	out, ok := r.mod.Memory().Read(ptr, n)
	if !ok {
		tb.Fatalf("result at %d+%d is out of range", ptr, n)
	}
	return bytes.Clone(out) // valid only until the next call
}

// form is one form in the reactor, as formtest drives it.
type form struct {
	r      *reactor
	handle uint32
}

func (f form) Event(tb testing.TB, ev []byte) []byte { return f.r.send(tb, f.handle, ev) }

func TestJourneys(t *testing.T) {
	r := newReactor(t)
	// All journeys share one instance, each with forms of its own, as a page with a shipping
	// and a billing form shares one.
	formtest.Run(t, func(tb testing.TB, cfg []byte) formtest.Core {
		f := form{r: r, handle: r.newForm(tb, cfg)}
		tb.Cleanup(func() { r.destroy.Call(r.ctx, uint64(f.handle)) })
		return f
	})
}

// TestImports pins what the module needs from its host: the browser shim implements exactly
// these, so a new import (a package that opens files, reads the clock in a new way) must be
// noticed and the shim extended.
func TestImports(t *testing.T) {
	code, err := os.ReadFile(wasmFile(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().WithCompilationCache(compileCache(t)))
	defer rt.Close(ctx)
	cm, err := rt.CompileModule(ctx, code)
	if err != nil {
		t.Fatal(err)
	}
	shim := map[string]bool{
		"args_get": true, "args_sizes_get": true, "environ_get": true, "environ_sizes_get": true,
		"clock_time_get": true, "random_get": true, "fd_write": true, "fd_close": true,
		"fd_fdstat_get": true, "fd_fdstat_set_flags": true, "fd_prestat_get": true,
		"fd_prestat_dir_name": true, "poll_oneoff": true, "sched_yield": true, "proc_exit": true,
	}
	for _, f := range cm.ImportedFunctions() {
		mod, name, _ := f.Import()
		if mod != "wasi_snapshot_preview1" || !shim[name] {
			t.Errorf("import %s.%s is not implemented by widget/wasi.js", mod, name)
		}
	}
	exports := cm.ExportedFunctions()
	for _, name := range []string{"_initialize", "alloc", "free", "create", "event", "destroy"} {
		if _, ok := exports[name]; !ok {
			t.Errorf("export %s missing", name)
		}
	}
}

// TestNoHeavyPackages keeps the packages that made the module a megabyte larger out of the
// build: encoding/json and fmt through reflection, regexp, and crypto/rand (math/big); and
// time, context and syscall, which cost 200 kB through the runtime settings (godebug) time
// registers and its timers.
func TestNoHeavyPackages(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", ".")
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		switch pkg {
		case "encoding/json", "fmt", "reflect", "regexp", "crypto/rand", "math/big", "net/url", "os", "time", "context", "syscall":
			t.Errorf("the reactor depends on %s", pkg)
		}
	}
}

// TestReportWasmSize reports the module's size raw and gzipped, and as a ratio to the Go
// runtime's floor (an empty reactor built in the same run), for make bench. It fails only
// when the module is not built.
func TestReportWasmSize(t *testing.T) {
	code, err := os.ReadFile(wasmFile(t))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	floorSrc := "//go:build wasip1\n\npackage main\n\nfunc main() {}\n\n//go:wasmexport nop\nfunc nop() {}\n"
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(floorSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module floor\n\ngo "+strings.TrimPrefix(runtime.Version(), "go")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	floorPath := filepath.Join(dir, "floor.wasm")
	if err := goBuild(dir, floorPath); err != nil {
		t.Fatalf("build the empty reactor: %v", err)
	}
	floor, err := os.ReadFile(floorPath)
	if err != nil {
		t.Fatal(err)
	}
	raw, gz := len(code), gzipped(t, code)
	fraw, fgz := len(floor), gzipped(t, floor)
	t.Logf("adreswijzer.wasm: %d bytes raw (%.2f MB), %d bytes gzip -9 (%.0f KB)", raw, float64(raw)/1e6, gz, float64(gz)/1e3)
	t.Logf("empty Go reactor (runtime floor, same toolchain and flags): %d raw, %d gzip", fraw, fgz)
	t.Logf("ratio to the floor: %.2f raw, %.2f gzip; the form's own share: %d raw, %d gzip", float64(raw)/float64(fraw), float64(gz)/float64(fgz), raw-fraw, gz-fgz)
}

func gzipped(t *testing.T, b []byte) int {
	var buf bytes.Buffer
	w, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(b)
	w.Close()
	return buf.Len()
}

// BenchmarkKeystroke measures one typed character through the WebAssembly boundary: write
// the event, run it, read the effects and view.
func BenchmarkKeystroke(b *testing.B) {
	r := newReactor(b)
	h := r.newForm(b, []byte(`{"country":"NL","lang":"nl"}`))
	evs := [][]byte{[]byte(`{"type":"input","field":"postcode","text":"1381","now":1}`), []byte(`{"type":"input","field":"postcode","text":"138","now":2}`)}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		r.send(b, h, evs[i%2])
	}
}
