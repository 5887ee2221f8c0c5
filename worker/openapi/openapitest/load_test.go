package openapitest

import (
	"bytes"
	"strings"
	"testing"

	"github.com/adreswijzer/adreswijzer/worker/openapi"
)

func TestEmbeddedDocumentLoads(t *testing.T) {
	v, err := load(openapi.JSON())
	if err != nil {
		t.Fatal(err)
	}
	if got := len(v.Document().Paths.Map()); got != 11 {
		t.Errorf("%d paths, want 11", got)
	}
}

// Loading validates the document and every example in it against its schema, so an example
// in the reference cannot show an answer the service may not give.
func TestLoadRejectsBrokenDocuments(t *testing.T) {
	doc := openapi.JSON()
	for _, tc := range []struct{ name, old, new, want string }{
		{"example outside an enum", `"confidence": "high"`, `"confidence": "certain"`, "certain"},
		{"example with an extra member", `"nextStep": "Kies de toevoeging: ben of bov.",`, `"nextStep": "Kies de toevoeging: ben of bov.", "score": 1,`, "score"},
		{"dangling reference", `"$ref": "#/components/schemas/LookupResponse"`, `"$ref": "#/components/schemas/LookupAnswer"`, "LookupAnswer"},
		{"declared as 3.0", `"openapi": "3.1.0"`, `"openapi": "3.0.3"`, "3.1"},
	} {
		if !bytes.Contains(doc, []byte(tc.old)) {
			t.Fatalf("%s: %q is not in openapi.json", tc.name, tc.old)
		}
		_, err := load(bytes.Replace(doc, []byte(tc.old), []byte(tc.new), 1))
		if err == nil {
			t.Errorf("%s: loaded without error", tc.name)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error does not mention %q: %v", tc.name, tc.want, err)
		}
	}
}
