package adreswijzer_test

import (
	"testing"

	"github.com/adreswijzer/adreswijzer"
)

func TestBoxNumber(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		// Real BeST values (addresses_part.csv) and the box a customer types for them.
		{"Be.4", "4"}, {"Bte5", "5"}, {"Ap.8", "8"}, {"b00D", "D"}, {"bA01", "A01"},
		{"000B", "B"}, {"BeA2", "A2"}, {"Be15", "15"}, {"be.7", "7"}, {"ap5", "5"},
		{"b001", "1"}, {"b113", "113"}, {"0001", "1"}, {"02", "2"}, {"bs21", "21"},
		{"bC.8", "C.8"}, {"b00a", "a"},
		// The box itself.
		{"b0.2", "0.2"}, {"0-11", "0-11"}, {"1.0", "1.0"}, {"A/2", "A/2"}, {"2ét", "2ét"},
		{"1.Et", "1.Et"}, {"B1", "B1"}, {"B.8", "B.8"}, {"BUSE", "BUSE"}, {"Db02", "Db02"},
		{"Ab11", "Ab11"}, {"0", "0"}, {"glvl", "glvl"}, {"b", "b"}, {"Bus", "Bus"},
	} {
		if got := adreswijzer.BoxNumber(c.in); got != c.want {
			t.Errorf("BoxNumber(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
