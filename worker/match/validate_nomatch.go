package match

import (
	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/worker/messages"
)

// Answers without a register address: a PO box, which no register lists, and an address the
// register does not have, explained by the field that failed.

// missingNumber answers a street line without a house number: invalid and blocking, as the
// spec has it, with the postcode's own issues.
func (v *validation) missingNumber() outcome {
	out := outcome{
		status:    adreswijzer.VerdictInvalid,
		blocking:  true,
		situation: messages.MissingHouseNumber,
		issues:    []pending{{code: adreswijzer.IssueMissingHouseNumber, field: adreswijzer.FieldAddress1}},
	}
	v.zipIssues(&out)
	out.confidence = adreswijzer.ConfidenceLow
	return out
}

// poBox answers a PO-box line. The registers hold no PO boxes, so an allowed one can only be
// accepted unverified: invalid, not blocking, and like every invalid answer naming the field
// the register could not confirm. That is the postcode when the register does not have it
// (a Dutch PO-box postcode such as 1380 AC never has an address in the BAG), else the box
// number, which no register lists at a postcode that does exist (a Belgian postcode, or a
// Dutch street postcode typed with a PO box).
func (v *validation) poBox() outcome {
	if !v.r.AllowPoBox {
		return outcome{
			status:     adreswijzer.VerdictInvalid,
			blocking:   true,
			confidence: adreswijzer.ConfidenceLow,
			situation:  messages.PoBoxNotAllowed,
			issues:     []pending{{code: adreswijzer.IssuePoBoxNotAllowed, field: adreswijzer.FieldAddress1}},
		}
	}
	out := outcome{status: adreswijzer.VerdictInvalid, confidence: adreswijzer.ConfidenceLow, situation: messages.InvalidConfirmable}
	v.zipIssues(&out)
	switch {
	case v.zip != zipOK:
	case !v.pcKnown:
		out.issues = append(out.issues, pending{code: adreswijzer.IssuePostcodeNotFound, field: adreswijzer.FieldZip})
	default:
		out.issues = append(out.issues, pending{code: adreswijzer.IssueHouseNumberNotFound, field: adreswijzer.FieldAddress1})
	}
	v.confirmed(&out)
	return out
}

// noMatch explains an address the register does not have, naming the field that failed,
// and blocks only where the spec says the address cannot be delivered as written: by what
// the postcode typed is, unreadable (unreadablePostcode), unknown to the register
// (unknownPostcode) or known (notInPostcode).
func (v *validation) noMatch(groups []*group) (outcome, error) {
	out := outcome{status: adreswijzer.VerdictInvalid, confidence: adreswijzer.ConfidenceLow, situation: messages.InvalidConfirmable}
	if v.lineIsStreet() {
		// "Plein 1813" is a street without a house number, not number 1813 of "Plein".
		out.blocking, out.situation = true, messages.MissingHouseNumber
		out.issues = append(out.issues, pending{code: adreswijzer.IssueMissingHouseNumber, field: adreswijzer.FieldAddress1})
		return out, nil
	}
	switch {
	case v.zip != zipOK:
		v.unreadablePostcode(&out, groups)
	case !v.pcKnown:
		v.unknownPostcode(&out, groups)
	default:
		v.notInPostcode(&out, groups)
	}
	v.confirmed(&out)
	return out, nil
}

// unreadablePostcode: the postcode cannot be read, and nothing else placed the address. The
// addresses with the typed street and number are offered, for the customer to pick.
func (v *validation) unreadablePostcode(out *outcome, groups []*group) {
	v.zipIssues(out)
	out.cands = onTypedStreet(groups)
	if len(out.cands) == 0 && v.streetInCity() {
		// The street is in the town typed; the number is not.
		out.issues = append(out.issues, pending{code: adreswijzer.IssueHouseNumberNotFound, field: adreswijzer.FieldAddress1})
	}
}

// unknownPostcode: the register does not have the postcode. The typed street and number
// elsewhere, where nothing placed them, are offered, and the address may be one of them, so
// it is not certainly undeliverable.
func (v *validation) unknownPostcode(out *outcome, groups []*group) {
	out.issues = append(out.issues, pending{code: adreswijzer.IssuePostcodeNotFound, field: adreswijzer.FieldZip})
	out.cands = onTypedStreet(groups)
	if v.c == adreswijzer.NL && len(out.cands) == 0 && !v.streetInCity() {
		// A Dutch postcode the register does not know has neither the number nor the
		// street. When the typed street does exist in the typed city, a new build may have
		// a postcode the register has not yet published: the customer may confirm it.
		out.blocking = true
		out.situation = messages.Blocking(adreswijzer.FieldZip)
	}
}

// notInPostcode: the register has the postcode, but not the address in it. The street is in
// the postcode when a street there matches it; it may be when one only contains it, which is
// not enough to say so but too much to block on (the spec blocks a Dutch postcode "where
// neither the number nor the street exists", and blocking is for what certainly cannot be
// delivered).
func (v *validation) notInPostcode(out *outcome, groups []*group) {
	streetInPC, maybeInPC := v.street.empty(), v.street.empty()
	for _, st := range v.ix.postcodeStreets(v.pc) {
		var buf [4]nameVariant
		switch l := matchStreet(v.street, v.ix.streetVariants(st, &buf)).level; {
		case l >= levelFuzzy:
			streetInPC, maybeInPC = true, true
		case l >= levelContain:
			maybeInPC = true
		}
		if streetInPC {
			break
		}
	}
	switch {
	case streetInPC:
		out.issues = append(out.issues, pending{code: adreswijzer.IssueHouseNumberNotFound, field: adreswijzer.FieldAddress1})
	default:
		out.issues = append(out.issues, pending{code: adreswijzer.IssueStreetMismatch, field: adreswijzer.FieldAddress1})
		if v.c == adreswijzer.NL && !v.numberAtPC && !maybeInPC {
			out.blocking = true
			out.situation = messages.Blocking(adreswijzer.FieldAddress1)
		}
	}
	if v.numberAtPC && v.c == adreswijzer.BE {
		// The number exists in the postcode on other streets: offer them.
		for _, g := range groups {
			if g.addrs[0].Postcode == v.pc {
				out.cands = append(out.cands, g.addrs...)
			}
		}
		out.cands = sortPostal(out.cands)
	}
}

// onTypedStreet lists, in postal order, the addresses found on a street that matches the
// typed one: where no postcode placed the address, they are the ones to offer.
func onTypedStreet(groups []*group) []adreswijzer.Address {
	var cands []adreswijzer.Address
	for _, g := range groups {
		if g.street.level >= levelFuzzy {
			cands = append(cands, g.addrs...)
		}
	}
	return sortPostal(cands)
}

// streetInCity reports whether the typed street exists in one of the typed city's
// localities.
func (v *validation) streetInCity() bool {
	if v.street.empty() {
		return false
	}
	var buf [4]nameVariant
	for _, l := range v.cityLocalities() {
		for _, st := range v.ix.locStreets[l] {
			if matchStreet(v.street, v.ix.streetVariants(st, &buf)).level >= levelFuzzy {
				return true
			}
		}
	}
	return false
}

// lineIsStreet reports whether the whole street line is the name of a street in the typed
// postcode or city: the parser reads a trailing number as the house number, and only the
// register can tell that it belongs to the name.
func (v *validation) lineIsStreet() bool {
	t := newTypedName(v.r.Address1)
	if t.empty() || !v.hasNumber || !v.numberInAddress1() {
		return false
	}
	var streets []uint32
	if v.zip == zipOK && v.pcKnown {
		streets = v.ix.postcodeStreets(v.pc)
	}
	for _, l := range v.cityLocalities() {
		streets = append(streets, v.ix.locStreets[l]...)
	}
	var buf [4]nameVariant
	for _, st := range streets {
		if matchStreetExactly(t, v.ix.streetVariants(st, &buf)).level >= levelCanon {
			return true
		}
	}
	return false
}
