package match

import (
	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/worker/messages"
)

// The issues of an answer: what was typed differently from the register, named while the
// outcome is decided and written once its language is known (answer).

// pending is an issue whose message is written once the answer's language is known (it may
// depend on the street the customer typed) and whose names come from the matched address.
type pending struct {
	code    adreswijzer.IssueCode
	field   adreswijzer.Field
	unit    adreswijzer.UnitType
	street  *adreswijzer.Address // STREET_MISMATCH names its street
	city    *adreswijzer.Address // CITY_MISMATCH names its locality
	options []adreswijzer.Address
	// atPostcode: street is the one at the typed postcode and number, offered beside
	// another reading, not the street of an address the answer chose.
	atPostcode bool
}

// zipIssues reports a missing or malformed postcode, which blocks: the spec's "missing or
// impossible postcode".
func (v *validation) zipIssues(out *outcome) {
	if v.zip == zipOK {
		return
	}
	out.issues = append(out.issues, pending{code: adreswijzer.IssueFormatInvalid, field: adreswijzer.FieldZip})
	if v.otherCountryPostcode() {
		out.issues = append(out.issues, pending{code: adreswijzer.IssueCountryAmbiguous, field: adreswijzer.FieldCountryCode})
		if !out.blocking {
			out.situation = messages.CountryAmbiguous
		}
	}
	if !out.blocking {
		out.blocking = true
		if out.situation != messages.CountryAmbiguous {
			out.situation = messages.Blocking(adreswijzer.FieldZip)
		}
	}
}

// otherCountryPostcode reports whether a postcode that does not fit the chosen country is a
// postcode of the other one that its register knows ("1130" in a Dutch form, "1382 KB" in a
// Belgian one): then the country is what to ask about.
func (v *validation) otherCountryPostcode() bool {
	if v.zip != zipBad {
		return false
	}
	other := adreswijzer.BE
	if v.c == adreswijzer.BE {
		other = adreswijzer.NL
	}
	pc, err := adreswijzer.NormalizePostcode(other, v.r.Zip)
	if err != nil {
		return false
	}
	ds, err := v.e.store.Active(v.ctx, other)
	if err != nil {
		return false
	}
	return ds.Catalog().HasPostcode(pc)
}

// placeIssues names what was typed differently from the address a (or the group, when no
// single address was chosen): street, city and postcode.
func (v *validation) placeIssues(out *outcome, g *group, a *adreswijzer.Address) {
	if g.street.level != levelExact || v.altered.address1 {
		out.issues = append(out.issues, pending{code: adreswijzer.IssueStreetMismatch, field: adreswijzer.FieldAddress1, street: a})
	}
	if !v.city.empty() && (g.city.level != levelExact || v.altered.city) {
		out.issues = append(out.issues, pending{code: adreswijzer.IssueCityMismatch, field: adreswijzer.FieldCity, city: a})
	}
	switch {
	case v.zip != zipOK:
		// Recovered from street and city; the postcode as typed could not be right.
		out.issues = append(out.issues, pending{code: adreswijzer.IssueFormatInvalid, field: adreswijzer.FieldZip})
	case a.Postcode == v.pc:
	case !v.pcKnown:
		out.issues = append(out.issues, pending{code: adreswijzer.IssuePostcodeNotFound, field: adreswijzer.FieldZip})
	case v.numberAtPC:
		// The postcode has the number, on another street ("Troelstralaan 5" at 1381 CS,
		// where Hugo de Grootlaan 5 is): it was not "not found" there. No issue code says
		// that a postcode belongs to another address; the answer's postcode shows it.
	default:
		// The postcode exists but does not hold this street and number.
		out.issues = append(out.issues, pending{code: adreswijzer.IssueHouseNumberNotFound, field: adreswijzer.FieldZip})
	}
}

// confirmed applies customerConfirmed: only format errors and disallowed PO boxes keep
// blocking, and an address the register does not know is accepted for review.
func (v *validation) confirmed(out *outcome) {
	if !v.r.CustomerConfirmed || out.status != adreswijzer.VerdictInvalid {
		return
	}
	for _, p := range out.issues {
		if p.code.BlocksConfirmed() {
			return
		}
	}
	out.blocking = false
	out.situation = messages.ConfirmedByCustomer
	out.issues = append(out.issues, pending{code: adreswijzer.IssueUnverifiedConfirmed})
}
