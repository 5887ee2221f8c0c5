package match

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/adreswijzer/adreswijzer"
)

// TestBoxNumbersKeepAddressesApart: the box as answers write it (adreswijzer.BoxNumber,
// without the register's marker and padding) tells apart every address that answers
// offer at a number (sortPostal), over every box of the BeST sample. Two register boxes
// written alike ("21" and "bs21" at Edingensesteenweg 879, Lembeek) are one letterbox,
// counted once.
func TestBoxNumbersKeepAddressesApart(t *testing.T) {
	s := loadSamples(t)
	byNumber := map[string][]adreswijzer.Address{}
	boxes := 0
	for _, a := range s.be {
		if a.Box != "" {
			boxes++
		}
		k := a.Postcode + "|" + a.StreetID + "|" + strconv.Itoa(a.HouseNumber) + "|" + a.HouseNumberSuffix
		byNumber[k] = append(byNumber[k], a)
	}
	if boxes < 1000 {
		t.Fatalf("only %d boxes in the sample", boxes)
	}
	merged := 0
	for _, as := range byNumber {
		offered := sortPostal(append([]adreswijzer.Address{}, as...))
		merged += len(as) - len(offered)
		seen := map[string]string{}
		for _, a := range offered {
			w := strings.ToUpper(adreswijzer.BoxNumber(a.Box))
			if other, ok := seen[w]; ok {
				t.Errorf("boxes %q and %q at %s %d%s are both offered as %q", other, a.Box, a.Street.PickPrimary(true), a.HouseNumber, a.HouseNumberSuffix, w)
			}
			seen[w] = a.Box
		}
	}
	if merged == 0 {
		t.Error("no box written twice was counted once; the sample has \"21\" and \"bs21\" at one number")
	}
}

// TestValidateBoxAsTyped: every real BeST box typed as a customer types it, after each box
// word, is found and valid (Be.4 as "bus 4", b00D as "bus D", bA01 as "bt. A01", BeA2 as
// "A2"). Left out are the few boxes that typed text cannot tell from another at the same
// number, as the grammar drops separators ("J--2" and "J/2", "b1.3" and "b013").
func TestValidateBoxAsTyped(t *testing.T) {
	e, s := sampleEngine(t)
	ctx := context.Background()
	typedAs := map[string]int{} // number and box as typed: how many boxes
	key := func(a *adreswijzer.Address) string {
		return a.Postcode + "|" + a.StreetID + "|" + strconv.Itoa(a.HouseNumber) + a.HouseNumberSuffix + "|" +
			adreswijzer.LooseExtensionOf(adreswijzer.BoxNumber(a.Box))
	}
	for i := range s.be {
		if a := &s.be[i]; a.Box != "" {
			typedAs[key(a)]++
		}
	}
	words := []string{"bus ", "bte ", "box ", "boîte ", "bt. ", ""}
	checked := 0
	for i, a := range s.be {
		if a.Box == "" || a.Postcode == "" || a.Status != adreswijzer.StatusInUse || typedAs[key(&a)] > 1 {
			continue
		}
		street := a.Street.PickPrimary(a.Street.NL == "" || a.Postcode == "1130")
		r := adreswijzer.ValidateRequest{
			CountryCode: "BE",
			Address1:    street + " " + strconv.Itoa(a.HouseNumber) + a.HouseNumberSuffix,
			Address2:    str(words[i%len(words)] + adreswijzer.BoxNumber(a.Box)),
			Zip:         a.Postcode,
		}
		resp, err := e.Validate(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		if resp.Status != adreswijzer.VerdictValid || resp.Match == nil || resp.Match.Unit == nil || !sameBox(*resp.Match.Unit, a.Box) {
			t.Errorf("%s | %s (register box %q): %s %v match %v", r.Address1, *r.Address2, a.Box, resp.Status, issueCodes(resp.Issues), matchKey(resp.Match))
		}
	}
	if checked < 1000 {
		t.Fatalf("only %d boxes checked", checked)
	}
}
