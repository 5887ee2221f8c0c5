package match

import (
	"strings"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/worker/messages"
)

// A chosen group resolved: the address within it by the letter, toevoeging or box, and the
// verdict; or the ambiguity of two groups that read the input equally well.

// resolve picks the address within the chosen group by the letter, toevoeging or box
// (unitOutcome), names what was typed differently (placeIssues), and decides between valid,
// corrected, ambiguous and invalid (verdict, when one address is found).
func (v *validation) resolve(g *group) outcome {
	g.addrs = sortPostal(g.addrs)
	out := outcome{streetHit: &g.street}
	u := resolveUnit(v.c, g.addrs, v.nums)
	if m := v.unitAsWritten(g.addrs); m != nil {
		u = unitResult{kind: unitExact, match: m}
	}
	v.unitOutcome(&out, u)
	if out.match == nil {
		v.placeIssues(&out, g, &g.addrs[0])
		return out
	}
	v.placeIssues(&out, g, out.match)
	if out.match.Planned() {
		out.issues = append(out.issues, pending{code: adreswijzer.IssueAddressPlanned})
	}
	v.verdict(&out, g, u.kind == unitExact)
	return out
}

// unitOutcome takes in how the typed letter, toevoeging or box resolved: the address it
// names, with an issue when the register completed or dropped part of it; or, when it names
// none, the addresses to choose from.
func (v *validation) unitOutcome(out *outcome, u unitResult) {
	typedField := v.unitField
	switch u.kind {
	case unitExact:
		out.match = u.match
	case unitCompleted:
		out.match = u.match
		out.issues = append(out.issues, pending{code: adreswijzer.IssueSuffixNotFound, field: typedField, options: []adreswijzer.Address{*u.match}})
	case unitDropped:
		out.match = u.match
		out.issues = append(out.issues, pending{code: adreswijzer.IssueUnitNotFound, field: typedField, unit: u.unitType})
	case unitRequired:
		out.status, out.cands, out.confidence, out.situation = adreswijzer.VerdictAmbiguous, u.cands, adreswijzer.ConfidenceLow, messages.Ambiguous
		out.issues = append(out.issues, pending{code: adreswijzer.IssueUnitRequired, field: adreswijzer.FieldAddress2, unit: u.unitType, options: u.cands})
	case suffixNotFound, unitNotFound:
		code := adreswijzer.IssueSuffixNotFound
		field := adreswijzer.FieldAddress1
		if u.kind == unitNotFound {
			code, field = adreswijzer.IssueUnitNotFound, typedField
		}
		out.status, out.cands, out.confidence, out.situation = adreswijzer.VerdictInvalid, u.cands, adreswijzer.ConfidenceLow, messages.InvalidConfirmable
		out.issues = append(out.issues, pending{code: code, field: field, unit: u.unitType, options: u.cands})
		v.confirmed(out)
	}
}

// verdict decides for the one address matched in g: valid when everything was typed as the
// register writes it (exactUnit: the letter, toevoeging or box too), else corrected, with the
// confidence the spec gives the correction.
func (v *validation) verdict(out *outcome, g *group, exactUnit bool) {
	a := out.match
	exact := exactUnit && g.street.level == levelExact && !v.moved && !v.altered.any() &&
		(v.city.empty() || g.city.level == levelExact) && v.pcExact && a.Postcode == v.pc
	switch {
	case exact:
		out.status, out.confidence, out.situation = adreswijzer.VerdictValid, adreswijzer.ConfidenceHigh, messages.Valid
		if a.Planned() {
			out.situation = messages.ValidPlanned
		}
	default:
		// The spec pairs a correction with medium confidence, even when only the
		// postcode's spelling changed ("1381AT" for "1381 AT").
		out.status, out.confidence, out.situation = adreswijzer.VerdictCorrected, adreswijzer.ConfidenceMedium, messages.Corrected
		// A partial match is low (the spec's table): a street the typed name only contains,
		// or one merely similar to it at another postcode than the known one typed. Two
		// fields typed differently at once is also how a new street the register does not
		// have yet looks ("Nieuwbouwstraat" at its new postcode, near a Nieuwstraat).
		similarElsewhere := g.street.level < levelCore && v.zip == zipOK && v.pcKnown && a.Postcode != v.pc
		if !v.street.empty() && (g.street.level <= levelContain || similarElsewhere) {
			out.confidence = adreswijzer.ConfidenceLow
		}
	}
}

// unitAsWritten returns the address whose toevoeging or box is address2 as typed (letter
// case, accents and a box word as stripBoxWord knows them aside), or whose box is written
// so in answers (adreswijzer.BoxNumber), when exactly one at the number has it. The unit
// grammar reads what people mean ("2 hoog" is toevoeging 2, "1er étage" no box at all),
// but a register writes some boxes as floors ("1ET", "2ét" in Malmedy): a customer who
// copied the register's box meant that box, whatever it looks like. And the grammar drops
// separators, where a Brussels number may have both "b013" and "b1.3": "bus 13" and "bus
// 1.3", as answers write them, are each the one box.
func (v *validation) unitAsWritten(as []adreswijzer.Address) *adreswijzer.Address {
	typed := v.addr2
	if typed == "" || !v.hasNumber || v.line.Number.Unit != "" {
		return nil
	}
	key := compact(stripBoxWord(fold(typed)))
	written := ""
	if v.c == adreswijzer.BE {
		written = afterBoxWord(typed)
	}
	suffix := adreswijzer.LooseExtensionOf(v.line.Number.Suffix)
	var found *adreswijzer.Address
	for i := range as {
		a := &as[i]
		if a.Unit() == "" || adreswijzer.LooseExtensionOf(a.HouseNumberSuffix) != suffix {
			continue
		}
		if compact(a.Unit()) != key && (written == "" || !strings.EqualFold(adreswijzer.BoxNumber(a.Box), written)) {
			continue
		}
		if found != nil {
			return nil
		}
		found = a
	}
	return found
}

// afterBoxWord is typed text without the box or apartment word before it, the rest as
// typed: "bus 1.3" gives "1.3", "Bte 13" gives "13".
func afterBoxWord(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, " .:"); i > 0 {
		switch fold(s[:i]) {
		case "bus", "bte", "box", "boite", "bt", "bx", "b", "app", "apt", "appt", "ap", "appartement":
			return strings.TrimLeft(s[i:], " .:")
		}
	}
	return s
}

// tied answers two groups that fit equally well, offering both: the same street name in two
// postcodes of the town when no usable postcode was typed, or two streets the typed name is
// as close to.
func (v *validation) tied(best, tie *group) outcome {
	cands := sortPostal(append(append([]adreswijzer.Address{}, best.addrs...), tie.addrs...))
	p := pending{code: adreswijzer.IssueStreetMismatch, field: adreswijzer.FieldAddress1}
	if v.zip != zipOK {
		p = pending{code: adreswijzer.IssueFormatInvalid, field: adreswijzer.FieldZip}
	}
	return outcome{
		status:     adreswijzer.VerdictAmbiguous,
		streetHit:  &best.street,
		cands:      cands,
		confidence: adreswijzer.ConfidenceLow,
		situation:  messages.Ambiguous,
		issues:     []pending{p},
	}
}

// bothReadings answers two readings that conflict: ambiguous, offering what each finds. Its
// issue names the one thing typed differently from both: the street, which the register
// has otherwise at the typed postcode and number. Nothing there was "not found": the
// number, and the unit typed, are at that postcode.
func (v *validation) bothReadings(best, other *group) outcome {
	var cands []adreswijzer.Address
	for _, g := range [...]*group{best, other} {
		u := resolveUnit(v.c, g.addrs, v.nums) // sorted by conflicting
		switch {
		case u.match != nil:
			cands = append(cands, *u.match)
		case len(u.cands) > 0:
			cands = append(cands, u.cands...)
		default:
			cands = append(cands, g.addrs...)
		}
	}
	return outcome{
		status:     adreswijzer.VerdictAmbiguous,
		streetHit:  &best.street,
		cands:      cands,
		confidence: adreswijzer.ConfidenceLow,
		situation:  messages.Ambiguous,
		issues: []pending{
			{code: adreswijzer.IssueStreetMismatch, field: adreswijzer.FieldAddress1, street: &other.addrs[0], atPostcode: true},
		},
	}
}
