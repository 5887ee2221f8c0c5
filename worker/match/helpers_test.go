package match

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/internal/golden"
	"github.com/adreswijzer/adreswijzer/worker/openapi/openapitest"
)

// goldenJSON compares v, as indented JSON, with testdata/<name>.golden; go test -update
// rewrites the file.
func goldenJSON(t *testing.T, name string, v any) {
	t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden.Compare(t, name+".golden", append(got, '\n'))
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
