package best

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/store/storetest"
)

// The five files of BOSA's load layout in the shared samples.
var layoutFiles = []string{"addresses_part.csv", "streets_part.csv", "municipalities.csv", "municipalityparts.csv", "postals.csv"}

func sampleDir(t testing.TB) string {
	t.Helper()
	return filepath.Join(storetest.DataDir(t), "be")
}

func sampleFile(t testing.TB, name string) string {
	t.Helper()
	return storetest.File(t, "be", name)
}

func sampleFiles(t testing.TB) []string {
	t.Helper()
	out := make([]string, len(layoutFiles))
	for i, f := range layoutFiles {
		out[i] = sampleFile(t, f)
	}
	return out
}

// rawSample is the sample read the simplest possible way (split on ';'; the files hold no
// quotes), independently of the importer, so tests can compare the importer against it.
type rawSample struct {
	addresses [][]string // 17 fields each, in file order
	streets   map[string][]string
	munis     map[string][]string
	parts     map[string][]string
	postals   map[string][]string
}

func readRaw(t testing.TB, name string, fields int) [][]string {
	t.Helper()
	b, err := os.ReadFile(sampleFile(t, name))
	if err != nil {
		t.Fatal(err)
	}
	var out [][]string
	for i, line := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		f := strings.Split(line, ";")
		if len(f) != fields {
			t.Fatalf("%s line %d: %d fields, want %d", name, i+1, len(f), fields)
		}
		out = append(out, f)
	}
	return out
}

// noVersion keeps "<prefix>/<object>" of an identifier.
func noVersion(id string) string {
	p := strings.SplitN(id, "/", 3)
	return p[0] + "/" + p[1]
}

func loadRaw(t testing.TB) *rawSample {
	t.Helper()
	byID := func(rows [][]string) map[string][]string {
		m := map[string][]string{}
		for _, r := range rows {
			m[noVersion(r[0])] = r
		}
		return m
	}
	return &rawSample{
		addresses: readRaw(t, "addresses_part.csv", 17),
		streets:   byID(readRaw(t, "streets_part.csv", 12)),
		munis:     byID(readRaw(t, "municipalities.csv", 5)),
		parts:     byID(readRaw(t, "municipalityparts.csv", 4)),
		postals:   byID(readRaw(t, "postals.csv", 5)),
	}
}

// importAll runs Import and collects what add receives, in order.
func importAll(t testing.TB, files []string, opts Options) (Result, []adreswijzer.Address) {
	t.Helper()
	var got []adreswijzer.Address
	res, err := Import(context.Background(), files, func(a adreswijzer.Address) error {
		got = append(got, a)
		return nil
	}, opts)
	if err != nil {
		t.Fatalf("Import: %v", err)
	}
	return res, got
}

func byID(t testing.TB, list []adreswijzer.Address) map[string]adreswijzer.Address {
	t.Helper()
	m := make(map[string]adreswijzer.Address, len(list))
	for _, a := range list {
		if _, dup := m[a.ID]; dup {
			t.Fatalf("address %s was added twice", a.ID)
		}
		m[a.ID] = a
	}
	return m
}

// sameAddresses fails unless both imports produced exactly the same addresses.
func sameAddresses(t *testing.T, want, got []adreswijzer.Address) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d addresses, want %d", len(got), len(want))
	}
	g := byID(t, got)
	diffs := 0
	for _, w := range want {
		a, ok := g[w.ID]
		if !ok {
			t.Errorf("address %s missing", w.ID)
			diffs++
		} else if a != w {
			t.Errorf("address %s differs:\n got %+v\nwant %+v", w.ID, a, w)
			diffs++
		}
		if diffs > 10 {
			t.Fatal("too many differences")
		}
	}
}

func sortedKeys(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func writeFile(t testing.TB, path, content string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
