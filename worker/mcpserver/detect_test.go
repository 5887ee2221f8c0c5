package mcpserver

import (
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

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
		{"Kerkstraat 999, 2000 Weesp", verdict{status: "invalid", country: "NL", issues: []adreswijzer.IssueCode{format, adreswijzer.IssueHouseNumberNotFound}, blocking: true}},
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
	if res := call(t, cs, ToolBatch, map[string]any{"addresses": []any{
		map[string]any{"id": "junk", "address": "asdfghjkl"},
		map[string]any{"id": "paris", "address": "Rue de Rivoli 1, 75001 Paris"},
	}}, &out); res.IsError || len(out.Results) != 2 {
		t.Fatalf("batch: error %v, %d results", res.IsError, len(out.Results))
	}
	for _, r := range out.Results {
		if r.Status != "invalid" || r.CountryCode != nil || !r.Blocking || slices.Contains(r.Issues, ambiguous) || !slices.Contains(r.Issues, format) {
			t.Errorf("batch %s: %+v", r.ID, r)
		}
	}
}

// TestRegisterNotLoaded runs workers that hold one country's register only. An address
// whose evidence points to the other country gets the unavailable answer, which tells the
// agent to accept it and verify it later, in verify_address and per item in a batch; the
// loaded country's addresses and input that fits no country are still answered.
func TestRegisterNotLoaded(t *testing.T) {
	nlOnly := connect(t, serve(t, sampleOf(t, adreswijzer.NL), Options{}), "2026-07-28")
	beOnly := connect(t, serve(t, sampleOf(t, adreswijzer.BE), Options{}), "2025-06-18")
	cases := []struct {
		name    string
		cs      *mcp.ClientSession
		args    map[string]any
		want    verdict // when the tool answers
		unavail bool
	}{
		{"be free-form on an nl worker", nlOnly, map[string]any{"address": "Rue du Pré aux Oies 134 bte 1, 1130 Haren"}, verdict{}, true},
		{"be free-form without a city", nlOnly, map[string]any{"address": "Stevens-de Waelplein 9 bus 2, 1502"}, verdict{}, true},
		{"be country given", nlOnly, map[string]any{"address": "Rue du Pré aux Oies 134 bte 1, 1130 Haren", "countryCode": "BE"}, verdict{}, true},
		{"nl on an nl worker", nlOnly, map[string]any{"address": "Achtergracht 1, 1381 BK Weesp"}, verdict{status: "valid", country: "NL", zip: "1381 BK"}, false},
		{"no evidence on an nl worker", nlOnly, map[string]any{"address": "asdfghjkl"},
			verdict{status: "invalid", issues: []adreswijzer.IssueCode{adreswijzer.IssueMissingHouseNumber, adreswijzer.IssueFormatInvalid}, blocking: true}, false},
		{"nl free-form on a be worker", beOnly, map[string]any{"address": "Achtergracht 1, 1381 BK Weesp"}, verdict{}, true},
		{"nl postcode area on a be worker", beOnly, map[string]any{"address": "Achtergracht 1, 1381 Weesp"}, verdict{}, true},
		{"be on a be worker", beOnly, map[string]any{"address": "Ganzenweidestraat 134 bus 1, 1130 Haren"}, verdict{status: "valid", country: "BE", zip: "1130", unit: "bus 1"}, false},
		{"be number unknown on a be worker", beOnly, map[string]any{"address": "Ganzenweidestraat 999, 1130 Haren"}, verdict{}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.unavail {
				text := errorText(t, call(t, tc.cs, ToolVerify, tc.args, nil))
				if !strings.Contains(text, "temporarily unavailable") || !strings.Contains(text, "Accept the address") {
					t.Errorf("%q", text)
				}
				return
			}
			if got, _ := verifyVerdict(t, tc.cs, tc.args); !sameVerdict(got, tc.want) {
				t.Errorf("got  %v\nwant %v", got, tc.want)
			}
		})
	}

	// A batch on the Dutch worker: the Belgian items are unavailable, the rest answered.
	var out BatchOutput
	res := call(t, nlOnly, ToolBatch, map[string]any{"lang": "en", "addresses": []any{
		map[string]any{"id": "nl", "address": "Achtergracht 1, 1381 BK Weesp"},
		map[string]any{"id": "be", "address": "Rue du Pré aux Oies 134 bte 1, 1130 Haren"},
		map[string]any{"id": "be-given", "address1": "Stevens-de Waelplein 9", "zip": "1502", "countryCode": "BE"},
		map[string]any{"id": "bad"},
	}}, &out)
	if res.IsError {
		t.Fatalf("batch: %s", errorText(t, res))
	}
	want := map[string]string{"nl": "valid", "be": statusUnavailable, "be-given": statusUnavailable, "bad": statusError}
	for _, r := range out.Results {
		if r.Status != want[r.ID] {
			t.Errorf("batch %s: status %s, want %s", r.ID, r.Status, want[r.ID])
		}
		if r.Status == statusUnavailable && (r.CountryCode != nil || !strings.Contains(r.Error, "Accept the address") || r.Blocking) {
			t.Errorf("batch %s: %+v", r.ID, r)
		}
	}
	if out.Meta.Source == nil || strings.Contains(*out.Meta.Source, "BeST") {
		t.Errorf("meta names a register that is not loaded: %+v", out.Meta)
	}
	// A batch of which nothing can be checked fails open as a whole.
	text := errorText(t, call(t, nlOnly, ToolBatch, map[string]any{"addresses": []any{
		map[string]any{"id": "be", "address": "Rue du Pré aux Oies 134 bte 1, 1130 Haren"},
	}}, nil))
	if !strings.Contains(text, "temporarily unavailable") {
		t.Errorf("batch of Belgian addresses only: %q", text)
	}
}
