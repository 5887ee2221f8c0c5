//go:build faults

package faults_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/adreswijzer/adreswijzer"
)

// The log scan is only worth something if it finds a value in the forms a leak takes, and
// not in the numbers every log is full of.
func TestLogScanFindsLeaks(t *testing.T) {
	a := &adreswijzer.Address{Country: adreswijzer.NL, Street: adreswijzer.Names{NL: "Hugo de Grootlaan"}, HouseNumber: 16,
		Addition: "ben", Postcode: "1381CS", Locality: adreswijzer.Names{NL: "Weesp"}}
	b := &adreswijzer.Address{Country: adreswijzer.BE, Street: adreswijzer.Names{NL: "Stevens-de Waelplein"}, HouseNumber: 9,
		Box: "01", Postcode: "1502", Locality: adreswijzer.Names{NL: "Lembeek"}}
	calls := []*call{nlLookup(a, 1), validateCall(a, false, 0), beLookup(b), autocompleteCall(b, 0)}
	const secret = "aw_live_0000fakeSecretOfTheLogScanSelfTest0000000"
	ns := needles(calls, secret)

	for _, tc := range []struct {
		name, line string
		leak       bool
	}{
		{"query string", `{"uri":"/v1/nl/lookup?number=16&postcode=1381+CS"}`, true},
		{"normalised postcode", `{"msg":"no match","postcode":"1381CS"}`, true},
		{"street and number", `error: no Grootlaan 16 here`, true},
		{"address as typed, with its typo", `{"body":{"address1":"Hugo de Groolaan 16"}}`, true},
		{"number and addition", `unit "16 ben" unknown`, true},
		{"register street", `candidate HUGO DE GROOTLAAN`, true},
		{"place", `{"city":"Weesp"}`, true},
		{"Belgian postcode parameter", `GET /v1/be/lookup?postcode=1502&street=x`, true},
		{"Belgian street URL-encoded", `q=Stevens-de%20Waelplein`, true},
		{"typed text", `{"q":"Stevens-de Waelplein 9"}`, true},
		{"secret", `Authorization: Bearer ` + secret, true},
		{"secret without its prefix", `token 0000fakeSecretOfTheLogScanSelfTest0000000`, true},
		{"numbers of an honest log", `{"ts":1502.16,"status":200,"durationMs":16,"port":1502,"bytes":1381}`, false},
		{"route and status", `{"msg":"request","method":"GET","route":"/v1/{country}/lookup","status":503}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "x.log"), []byte("start\n"+tc.line+"\nend\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			f, _, err := leaks(dir, ns)
			if err != nil {
				t.Fatal(err)
			}
			if found := len(f.order) > 0; found != tc.leak {
				t.Errorf("leak found: %v, want %v (%v)", found, tc.leak, f.examples)
			}
		})
	}
}
