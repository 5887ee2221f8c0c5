package match

import (
	"errors"
	"slices"
	"strings"

	"github.com/adreswijzer/adreswijzer"
)

// Reading the input: the street line, the house number and its unit, the city and the
// postcode as the customer typed them, into the fields of a validation.

// parse takes in the request with address1 read as line: what address2 adds to the line
// (fromAddress2), the readings of the house number (readNumbers), the street and city, and
// the postcode (readPostcode).
func (v *validation) parse(line adreswijzer.AddressLine) {
	v.line = line
	addr2 := ""
	if v.r.Address2 != nil {
		addr2 = *v.r.Address2
	}
	v.addr2 = v.fromAddress2(addr2)
	v.hasNumber = v.line.HasNumber && v.line.Number.Number > 0
	v.readNumbers()
	v.street = newTypedName(v.line.Street)
	if v.r.City != nil {
		v.city = newTypedName(*v.r.City)
	}
	v.readPostcode()
}

// fromAddress2 completes a line without a house number from address2, and returns what is
// left of address2: the unit as typed, or "" when address2 held the line or the number.
func (v *validation) fromAddress2(addr2 string) string {
	if v.line.HasNumber || v.line.PoBox || strings.TrimSpace(addr2) == "" {
		return addr2
	}
	// The street line may be in address2 (a company name in address1), or address2 may hold
	// just the house number, with its toevoeging or box: "16 bov" and "22 bus 3" read as
	// lines too (number first, street "bov" or "bus 3"), but after a street in address1
	// they are the number.
	l2 := adreswijzer.ParseAddressLine(v.c, addr2)
	h, isNumber := adreswijzer.ParseHouseNumber(v.c, addr2)
	numberOnly := isNumber && v.line.Street != "" && (additionLike(l2.Street) || h.UnitMarker != "")
	switch {
	case l2.HasNumber && l2.Street != "" && !numberOnly:
		v.line = l2
		return ""
	case isNumber:
		v.line.Number, v.line.HasNumber = h, true
		return ""
	}
	return addr2
}

// readNumbers lists the readings of the house number, the likeliest first (v.nums), and
// notes the field the typed unit came from (v.unitField).
func (v *validation) readNumbers() {
	v.unitField = adreswijzer.FieldAddress1
	h := v.line.Number
	v.nums = []adreswijzer.HouseNumber{h}
	u := adreswijzer.ParseUnitField(v.c, v.addr2)
	if u.Unit == "" || !v.hasNumber {
		return
	}
	switch {
	case h.Unit == "":
		h.Unit, h.UnitMarker, h.Floor = u.Unit, u.UnitMarker, u.Floor
		v.nums = []adreswijzer.HouseNumber{h}
		v.unitField = adreswijzer.FieldAddress2
	case adreswijzer.LooseExtensionOf(h.Unit) != adreswijzer.LooseExtensionOf(u.Unit):
		// Two units: as for "16/1 bus 8", the one in the street line belongs to the house
		// number; else either one alone.
		merged := h
		merged.Suffix, merged.Unit, merged.UnitMarker, merged.Floor = h.Suffix+h.Unit, u.Unit, u.UnitMarker, u.Floor
		replaced := h
		replaced.Unit, replaced.UnitMarker, replaced.Floor = u.Unit, u.UnitMarker, u.Floor
		v.nums = []adreswijzer.HouseNumber{merged, replaced, h}
		v.unitField = adreswijzer.FieldAddress2
	}
}

// readPostcode reads the typed postcode and, when it is well-formed, whether the register
// has it, whether it was typed as printed, and the localities it lies in.
func (v *validation) readPostcode() {
	pc, err := adreswijzer.NormalizePostcode(v.c, v.r.Zip)
	switch {
	case errors.Is(err, adreswijzer.ErrPostcodeEmpty):
		v.zip = zipMissing
		return
	case err != nil:
		v.zip = zipBad
		return
	}
	v.zip, v.pc = zipOK, pc
	cat := v.ds.Catalog()
	v.pcKnown = v.ix.hasPostcode(pc)
	v.pcExact = sameText(v.r.Zip, adreswijzer.FormatPostcode(v.c, pc))
	// A Belgian postcode has hundreds of places in a few localities: their names are
	// compared only where the locality changes.
	last := -1
	for _, p := range v.ix.placesIn(pc) {
		if int(p.Locality) == last {
			continue
		}
		last = int(p.Locality)
		if n := cat.Localities[p.Locality].Names; !slices.Contains(v.pcPlaces, n) {
			v.pcPlaces = append(v.pcPlaces, n)
		}
	}
}

// numberInAddress1 reports whether the house number was read from address1 itself, not
// from address2 under a street typed without one ("Rue du Commerce" and "22 bus 3").
func (v *validation) numberInAddress1() bool {
	return adreswijzer.ParseAddressLine(v.c, v.r.Address1).HasNumber
}
