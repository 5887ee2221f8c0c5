package match

import (
	"context"
	"strings"
	"testing"

	"github.com/adreswijzer/adreswijzer"
)

// TestBoxAsWritten types every real Belgian box that the unit grammar reads as something else
// (a floor such as "1ET" or "2ét", or with text around the number) into address2 exactly as
// the register writes it, in lower case and with a box word: it is that box.
func TestBoxAsWritten(t *testing.T) {
	e, s := sampleEngine(t)
	ctx := context.Background()
	n := 0
	for i := range s.be {
		a := &s.be[i]
		if a.Box == "" || a.Status != adreswijzer.StatusInUse {
			continue
		}
		if u, _ := adreswijzer.ParseUnit(adreswijzer.BE, a.Box); adreswijzer.LooseExtensionOf(u) == adreswijzer.LooseExtensionOf(a.Box) {
			continue // the grammar reads it as written; the other tests cover those
		}
		if !uniqueBox(s.be, a) {
			continue
		}
		n++
		for _, typed := range []string{a.Box, strings.ToLower(a.Box), "bte " + a.Box} {
			r := clean(a, a.Street.NL == "" || a.Postcode == "4960")
			r.Address2 = &typed
			resp, err := e.Validate(ctx, r)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Status != adreswijzer.VerdictValid || !matches(resp.Match, a) {
				t.Errorf("%s %s box %q typed %q: %s %v", a.Street.PickPrimary(true), a.NumberText(), a.Box, typed, resp.Status, issueCodes(resp.Issues))
			}
		}
	}
	if n < 10 {
		t.Errorf("only %d boxes the grammar misreads; the samples have more", n)
	}
}

// uniqueBox reports whether no other address at a's number has a box that folds to the
// same text.
func uniqueBox(rows []adreswijzer.Address, a *adreswijzer.Address) bool {
	for i := range rows {
		b := &rows[i]
		if b.ID != a.ID && b.StreetID == a.StreetID && b.Postcode == a.Postcode && b.HouseNumber == a.HouseNumber &&
			b.HouseNumberSuffix == a.HouseNumberSuffix && compact(b.Box) == compact(a.Box) {
			return false
		}
	}
	return true
}
