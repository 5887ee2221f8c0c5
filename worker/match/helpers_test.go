package match

import (
	"bytes"
	"encoding/json"
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/worker/openapi/openapitest"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// golden compares v, as indented JSON, with testdata/<name>.golden, or rewrites the file
// with -update.
func golden(t *testing.T, name string, v any) {
	t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", name+".golden")
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
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (run go test -update and review the diff):\n%s", path, got)
	}
}

// conforms checks an answer against openapi.json as the HTTP layer will send it: the
// request that asks for it (target and, for POST, body) and the answer with its headers.
func conforms(t *testing.T, method, target string, reqBody any, answer any, m adreswijzer.Meta) {
	t.Helper()
	var body *bytes.Reader
	if reqBody != nil {
		b, err := json.Marshal(reqBody)
		if err != nil {
			t.Fatal(err)
		}
		body = bytes.NewReader(b)
	}
	var req *http.Request
	if body != nil {
		req = httptest.NewRequest(method, target, body)
		req.Header.Set("Content-Type", "application/json")
	} else {
		req = httptest.NewRequest(method, target, nil)
	}
	req.Header.Set("Authorization", "Bearer aw_test_0123456789abcdef")
	out, err := json.Marshal(answer)
	if err != nil {
		t.Fatal(err)
	}
	h := http.Header{"Content-Type": {"application/json"}}
	if m.DatasetVersion != nil {
		h.Set("X-Dataset-Version", *m.DatasetVersion)
	}
	openapitest.New(t).Check(t, req, http.StatusOK, h, out)
}
