package xmlscan

import (
	"archive/zip"
	"bytes"
	"io"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/adreswijzer/adreswijzer/store/storetest"
)

var (
	samplesMu sync.Mutex
	samples   = map[string]map[string][]byte{}
)

// sampleXML returns the XML files of a real BAG delivery by base name, unpacked from its
// nested zips: a delivery holds a GEM or MUT zip, which holds one zip per object type.
func sampleXML(t testing.TB, delivery string) map[string][]byte {
	t.Helper()
	samplesMu.Lock()
	defer samplesMu.Unlock()
	if m, ok := samples[delivery]; ok {
		return m
	}
	m := map[string][]byte{}
	var walk func(zr *zip.Reader) error
	walk = func(zr *zip.Reader) error {
		for _, e := range zr.File {
			base := path.Base(e.Name)
			if strings.HasPrefix(base, "._") || !strings.HasSuffix(base, ".zip") && !strings.HasSuffix(base, ".xml") {
				continue
			}
			rc, err := e.Open()
			if err != nil {
				return err
			}
			b, err := io.ReadAll(rc)
			rc.Close()
			if err != nil {
				return err
			}
			if strings.HasSuffix(base, ".xml") {
				m[base] = b
				continue
			}
			inner, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
			if err != nil {
				return err
			}
			if err := walk(inner); err != nil {
				return err
			}
		}
		return nil
	}
	zr, err := zip.OpenReader(storetest.File(t, "nl", delivery))
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	if err := walk(&zr.Reader); err != nil {
		t.Fatalf("%s: %v", delivery, err)
	}
	samples[delivery] = m
	return m
}

// weespFiles returns the Weesp XML files whose names match re, in name order.
func weespFiles(t testing.TB, re string) [][]byte {
	t.Helper()
	m := sampleXML(t, "BAGGEM0457L-15102021.zip")
	var names []string
	for n := range m {
		if regexp.MustCompile(re).MatchString(n) {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		t.Fatalf("no Weesp file matches %s", re)
	}
	var out [][]byte
	slices.Sort(names)
	for _, n := range names {
		out = append(out, m[n])
	}
	return out
}

// The real register files give the same tokens as encoding/xml, reading every token and
// skipping subtrees.
func TestRealFilesMatchEncodingXML(t *testing.T) {
	files := weespFiles(t, `^0457(NUM|OPR|WPL|LIG|STA)15102021-000001\.xml$|^0457VBO15102021-000003\.xml$|^Leveringsdocument`)
	for i, data := range files {
		for _, skip := range []skipRule{0, 9, 4} {
			if err := compare(data, skip); err != nil {
				t.Fatalf("file %d, skip rule %d: %v", i, skip, err)
			}
		}
	}
}
