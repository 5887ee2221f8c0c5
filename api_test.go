package adreswijzer_test

import (
	"testing"

	"github.com/adreswijzer/adreswijzer"
)

// The spec's blocking rule 2: with customerConfirmed only format errors, a missing house
// number and a disallowed PO box still block; every other code gives way to a confirmation.
func TestBlocksConfirmed(t *testing.T) {
	still := map[adreswijzer.IssueCode]bool{
		adreswijzer.IssueFormatInvalid:      true,
		adreswijzer.IssueMissingHouseNumber: true,
		adreswijzer.IssuePoBoxNotAllowed:    true,
	}
	for _, c := range adreswijzer.IssueCodes {
		if got := c.BlocksConfirmed(); got != still[c] {
			t.Errorf("%s.BlocksConfirmed() = %v, want %v", c, got, still[c])
		}
	}
}

// Lower is the path form of every country code, registers or not.
func TestCountryLower(t *testing.T) {
	for c, want := range map[adreswijzer.Country]string{adreswijzer.NL: "nl", adreswijzer.BE: "be", "DE": "de", "": ""} {
		if got := c.Lower(); got != want {
			t.Errorf("%q.Lower() = %q, want %q", c, got, want)
		}
	}
	if n := testing.AllocsPerRun(100, func() { _ = adreswijzer.BE.Lower() }); n != 0 {
		t.Errorf("BE.Lower() allocates %v times", n)
	}
}

// The path and body forms of the two register countries are read without an allocation;
// every other spelling still reads as before.
func TestParseCountryForms(t *testing.T) {
	for s, want := range map[string]adreswijzer.Country{"nl": adreswijzer.NL, "NL": adreswijzer.NL, " Nl ": adreswijzer.NL, "be": adreswijzer.BE, "bE": adreswijzer.BE, "de": "", "": ""} {
		if got, ok := adreswijzer.ParseCountry(s); got != want || ok != (want != "") {
			t.Errorf("ParseCountry(%q) = %q, %v; want %q", s, got, ok, want)
		}
	}
	if n := testing.AllocsPerRun(100, func() { adreswijzer.ParseCountry("be") }); n != 0 {
		t.Errorf(`ParseCountry("be") allocates %v times`, n)
	}
}
