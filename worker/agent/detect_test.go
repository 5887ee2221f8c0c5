package agent

import (
	"slices"
	"strings"
	"testing"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/worker/messages"
)

// TestCountryFromEvidence: the country comes from what the address says. Input that says
// nothing Dutch or Belgian is told what is wrong with it (no postcode, no house number)
// rather than asked to choose between two countries it has nothing to do with, and
// COUNTRY_AMBIGUOUS stays for input that fits both.
func TestCountryFromEvidence(t *testing.T) {
	cs := connect(t, serve(t, sampleData(t), Options{}), "2026-07-28")
	const (
		missingNumber = adreswijzer.IssueMissingHouseNumber
		format        = adreswijzer.IssueFormatInvalid
		ambiguous     = adreswijzer.IssueCountryAmbiguous
	)
	cases := []struct {
		address string
		want    verdict
	}{
		// Nothing Dutch or Belgian: what is wrong, blocking, no country.
		{"asdfghjkl", verdict{status: "invalid", issues: []adreswijzer.IssueCode{missingNumber, format}, blocking: true}},
		{"12345", verdict{status: "invalid", issues: []adreswijzer.IssueCode{format}, blocking: true}},
		{"😀😀😀", verdict{status: "invalid", issues: []adreswijzer.IssueCode{missingNumber, format}, blocking: true}},
		{"Rue de Rivoli 1, 75001 Paris", verdict{status: "invalid", issues: []adreswijzer.IssueCode{format}, blocking: true}},
		{"Kerkstraat 1, Paris", verdict{status: "invalid", issues: []adreswijzer.IssueCode{format}, blocking: true}},
		{"Achtergracht 1 Parijs", verdict{status: "invalid", issues: []adreswijzer.IssueCode{format}, blocking: true}},
		// A place one register knows names the country and the locality.
		{"Achtergracht 1 Weesp", verdict{status: "corrected", country: "NL", issues: []adreswijzer.IssueCode{format}, zip: "1381 BK"}},
		{"Achtergracht 1, Weesp", verdict{status: "corrected", country: "NL", issues: []adreswijzer.IssueCode{format}, zip: "1381 BK"}},
		{"Kerkstraat 1, Lembeek", verdict{status: "invalid", country: "BE", issues: []adreswijzer.IssueCode{format}, blocking: true}},
		{"Route du Barrage 83 Malmedy", verdict{status: "corrected", country: "BE", issues: []adreswijzer.IssueCode{format}, zip: "4960"}},
		{"Kerkstraat 1, 2000 Weesp", verdict{status: "corrected", country: "NL", issues: []adreswijzer.IssueCode{format}, zip: "1381 XN"}},
		{"Kerkstraat 999, 2000 Weesp", verdict{status: "invalid", country: "NL", issues: []adreswijzer.IssueCode{format}, blocking: true}},
		// Four bare digits that neither register settles fit both countries.
		{"Kerkstraat 1, 2000", verdict{status: "ambiguous", issues: []adreswijzer.IssueCode{ambiguous}}},
	}
	for _, tc := range cases {
		t.Run(tc.address, func(t *testing.T) {
			got, out := verifyVerdict(t, cs, map[string]any{"address": tc.address, "lang": "en"})
			if !sameVerdict(got, tc.want) {
				t.Errorf("got  %v\nwant %v", got, tc.want)
			}
			if got.country == "" && out.CountryDetected || got.country != "" && !out.CountryDetected {
				t.Errorf("countryDetected %v for country %q", out.CountryDetected, got.country)
			}
			if tc.want.country == "" && !slices.Contains(tc.want.issues, ambiguous) {
				// Both registers were asked; the answer names them, and its step is the
				// first thing to fix.
				step := messages.NextStep(adreswijzer.LangEN, messages.Blocking(adreswijzer.FieldZip))
				if slices.Contains(tc.want.issues, missingNumber) {
					step = messages.NextStep(adreswijzer.LangEN, messages.MissingHouseNumber)
				}
				if out.NextStep != step || out.Meta.Source == nil || !strings.Contains(*out.Meta.Source, ";") {
					t.Errorf("nextStep %q, meta %+v", out.NextStep, out.Meta)
				}
				if m := out.Issues[len(out.Issues)-1].Message; m != messages.Issue(adreswijzer.LangEN, format, messages.Details{Field: adreswijzer.FieldZip}) {
					t.Errorf("postcode message %q names a country's format", m)
				}
			}
		})
	}
	// A batch answers its items the same way.
	var out BatchOutput
	call(t, cs, ToolBatch, map[string]any{"addresses": []any{
		map[string]any{"id": "junk", "address": "asdfghjkl"},
		map[string]any{"id": "paris", "address": "Rue de Rivoli 1, 75001 Paris"},
	}}, &out)
	for _, r := range out.Results {
		if r.Status != "invalid" || r.CountryCode != nil || !r.Blocking || slices.Contains(r.Issues, ambiguous) || !slices.Contains(r.Issues, format) {
			t.Errorf("batch %s: %+v", r.ID, r)
		}
	}
}
