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
