//go:build !wasip1

package main

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestReportPackageCost reports what each package costs in the module: the size of its
// functions' code, read from a build that keeps the name section (no -s -w). It is how the
// core was shrunk (time and context, syscall, strconv's parsers, inlining), and how the next
// megabyte will be found. Data (strings, tables, the runtime's function tables) is reported
// as one figure: the module does not say whose it is.
func TestReportPackageCost(t *testing.T) {
	out := filepath.Join(t.TempDir(), "named.wasm")
	flags := []string{}
	for _, f := range buildFlags {
		if f != "-ldflags=-s -w" {
			flags = append(flags, f)
		}
	}
	if err := goBuildFlags(".", out, flags); err != nil {
		t.Fatalf("build: %v", err)
	}
	code, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	cost, data, err := packageCost(code)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		pkg  string
		size int
	}
	var rows []row
	total := 0
	for p, n := range cost {
		rows = append(rows, row{p, n})
		total += n
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].size > rows[j].size })
	t.Logf("code %d bytes in %d packages, data %d bytes, file %d bytes (with names)", total, len(rows), data, len(code))
	for _, r := range rows {
		if r.size >= 1000 {
			t.Logf("%9d  %s", r.size, r.pkg)
		}
	}
	// (time is not among them: the runtime implements a few of its functions under its name.)
	for _, heavy := range []string{"context", "syscall", "fmt", "reflect", "encoding/json"} {
		if cost[heavy] > 0 {
			t.Errorf("%s costs %d bytes of code", heavy, cost[heavy])
		}
	}
}

// packageCost sums the code size of each package's functions, named by the module's name
// section (Go writes package paths with / and . as _ before the symbol's first dot), and
// the size of the data section.
func packageCost(b []byte) (map[string]int, int, error) {
	if len(b) < 8 || string(b[:4]) != "\x00asm" {
		return nil, 0, errors.New("not a WebAssembly module")
	}
	var bodies []int
	names := map[uint32]string{}
	imported, data := uint32(0), 0
	for i := 8; i < len(b); {
		id := b[i]
		i++
		size, n := binary.Uvarint(b[i:])
		i += n
		sec := b[i : i+int(size)]
		i += int(size)
		r := &reader{b: sec}
		switch id {
		case 2: // imports: function indices start after the imported functions
			for k := r.u32(); k > 0; k-- {
				r.skip(int(r.u32()))
				r.skip(int(r.u32()))
				switch r.byte() {
				case 0:
					r.u32()
					imported++
				case 1:
					r.byte()
					r.limits()
				case 2:
					r.limits()
				case 3:
					r.skip(2)
				}
			}
		case 10: // code
			for k := r.u32(); k > 0; k-- {
				start := r.i
				r.skip(int(r.u32()))
				bodies = append(bodies, r.i-start)
			}
		case 11:
			data += int(size)
		case 0:
			if string(r.bytes(int(r.u32()))) != "name" {
				continue
			}
			for r.i < len(r.b) {
				sub, end := r.byte(), 0
				end = int(r.u32())
				end += r.i
				if sub == 1 {
					for k := r.u32(); k > 0; k-- {
						idx := r.u32()
						names[idx] = string(r.bytes(int(r.u32())))
					}
				}
				r.i = end
			}
		}
	}
	cost := map[string]int{}
	for k, n := range bodies {
		cost[packageOf(names[imported+uint32(k)])] += n
	}
	return cost, data, nil
}

// packageOf reads the package from a symbol as Go names it in the name section:
// "github.com_adreswijzer_adreswijzer_wasm_form.__Machine_.onInput", "internal_strconv.fmtX".
func packageOf(sym string) string {
	if strings.HasPrefix(sym, "type_.") {
		return "(type equality and hashing)"
	}
	host := ""
	if strings.HasPrefix(sym, "github.com_") {
		host, sym = "github.com/", strings.TrimPrefix(sym, "github.com_")
	}
	if i := strings.Index(sym, "."); i >= 0 {
		sym = sym[:i]
	}
	return host + strings.ReplaceAll(sym, "_", "/")
}

type reader struct {
	b []byte
	i int
}

func (r *reader) u32() uint32 {
	v, n := binary.Uvarint(r.b[r.i:])
	r.i += n
	return uint32(v)
}

func (r *reader) byte() byte { r.i++; return r.b[r.i-1] }

func (r *reader) skip(n int) { r.i += n }

func (r *reader) bytes(n int) []byte { r.i += n; return r.b[r.i-n : r.i] }

func (r *reader) limits() {
	if r.byte()&1 != 0 {
		r.u32()
	}
	r.u32()
}
