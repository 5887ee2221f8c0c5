package form

import (
	"crypto/rand"
	"testing"

	"github.com/adreswijzer/adreswijzer"
)

// TestShowNormalized writes candidates of real answers into the fields and checks what the
// shop would receive against the carrier fields the worker gives for the same address
// (Weesp BAG extract 2021-10-15; BOSA BeST sample, Lembeek).
func TestShowNormalized(t *testing.T) {
	str := func(s string) *string { return &s }
	tests := []struct {
		c adreswijzer.Country
		n normAddr
		// the number and addition fields, and the carrier's houseNumber and
		// houseNumberAddition
		number, addition, houseNumber, carrier string
	}{
		{adreswijzer.NL, normAddr{address1: "Prinses Beatrixlaan 3e", zip: "1381 AG", city: "Weesp"}, "3e", "", "3", "e"},
		{adreswijzer.NL, normAddr{address1: "Bloemendalerweg 51A", address2: str("1"), zip: "1382 KB", city: "Weesp"}, "51A", "1", "51", "A1"},
		{adreswijzer.NL, normAddr{address1: "Hugo de Grootlaan 16", address2: str("bov"), zip: "1381 CS", city: "Weesp"}, "16", "bov", "16", "bov"},
		{adreswijzer.BE, normAddr{address1: "Prinsenbos 2A", address2: str("bus 21"), zip: "1502", city: "Lembeek"}, "2A", "bus 21", "2", "A bus 21"},
	}
	for _, tt := range tests {
		m := New(Config{Country: tt.c, Lang: adreswijzer.LangNL}, rand.Reader)
		n := tt.n
		m.showNormalized(&n)
		if m.val[FieldNumber] != tt.number || m.val[FieldAddition] != tt.addition {
			t.Errorf("%s: number and addition fields %q, %q; want %q, %q", tt.n.address1, m.val[FieldNumber], m.val[FieldAddition], tt.number, tt.addition)
		}
		if n.houseNumber != tt.houseNumber || n.numberAddition != tt.carrier {
			t.Errorf("%s: houseNumber %q, houseNumberAddition %q; want the carrier's %q, %q", tt.n.address1, n.houseNumber, n.numberAddition, tt.houseNumber, tt.carrier)
		}
	}
}
