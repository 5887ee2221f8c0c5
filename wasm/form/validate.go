package form

import (
	"slices"
	"strings"
	"unicode"

	"github.com/adreswijzer/adreswijzer"
)

// Validate: the address sent for the verdict at the submit, and what the form does with each
// verdict.

// validate sends the address for the verdict. It is sent at the submit, once per address:
// every lookup before it shares its session, and the session goes on until the address is
// handed over, so a confirmation or a retried submit is still the same address.
func (m *Machine) validate(n normAddr, confirmed bool) {
	var w writer
	w.beginObject()
	w.str("countryCode", string(m.cfg.Country))
	w.str("address1", n.address1)
	if n.address2 != nil && strings.TrimSpace(*n.address2) != "" {
		w.str("address2", *n.address2)
	}
	w.str("zip", n.zip)
	if strings.TrimSpace(n.city) != "" {
		w.str("city", n.city)
	}
	if confirmed {
		w.flag("customerConfirmed", true)
	}
	if m.cfg.AllowPoBox {
		w.flag("allowPoBox", true)
	}
	w.str("lang", string(m.cfg.Lang))
	if m.cfg.Carrier != "" {
		w.str("carrier", string(m.cfg.Carrier))
	}
	w.str("sessionId", m.sessionID())
	w.endObject()
	m.sentConfirm, m.sentPicked = confirmed, false
	m.sent = n
	m.send(callValidate, "POST", "/v1/validate", "", string(w.b))
}

// validatePicked validates a register address the customer picked (from the lookup's list,
// or a suggestion of an ambiguous or invalid answer): whatever the verdict, it is that
// address.
func (m *Machine) validatePicked(n normAddr) {
	m.validate(n, false)
	m.sentPicked = true
}

// typedAddr is the address as the customer typed it, in checkout fields.
func (m *Machine) typedAddr() normAddr {
	c := m.cfg.Country
	street := strings.TrimSpace(m.val[FieldStreet])
	number := strings.TrimSpace(m.val[FieldNumber])
	n := normAddr{
		address1:    strings.TrimSpace(street + " " + number),
		zip:         adreswijzer.FormatPostcode(c, strings.TrimSpace(m.val[FieldPostcode])),
		city:        strings.TrimSpace(m.val[FieldCity]),
		countryCode: string(c),
		street:      street,
	}
	typedUnit, typedMarker := adreswijzer.ParseUnit(c, m.val[FieldAddition])
	if add := strings.TrimSpace(m.val[FieldAddition]); add != "" {
		// A box gets its marker, as the register's own address2 has it ("bus 3", "bte 3");
		// text the grammar does not read as a unit is kept as typed, never dropped.
		if typedUnit != "" && (c == adreswijzer.BE || typedMarker != "") {
			add = m.boxMarker() + " " + typedUnit
		}
		n.address2 = &add
	}
	if h, ok := adreswijzer.ParseHouseNumber(c, number); ok {
		n.houseNumber = itoa(h.Number)
		unit, marker := typedUnit, typedMarker
		if unit == "" {
			unit, marker = h.Unit, h.UnitMarker
		}
		switch {
		case unit == "":
			n.numberAddition = h.Suffix
		case c == adreswijzer.BE || marker != "":
			n.numberAddition = strings.TrimSpace(h.Suffix + " " + m.boxMarker() + " " + unit)
		default:
			n.numberAddition = h.Suffix + unit
		}
	}
	return n
}

// boxMarker is the word before a box number in the form's language, as bpost and the
// register's answers write it.
func (m *Machine) boxMarker() string {
	if m.cfg.Lang == adreswijzer.LangFR {
		return "bte"
	}
	return "bus"
}

// onValidate takes the verdict on the address sent: a correction is shown beside what was
// typed, for the customer to choose; a valid address, one the customer picked or confirmed
// is handed over; an ambiguous answer's candidates are offered; an invalid one names its
// issue, with the confirmation where one can pass.
func (m *Machine) onValidate(a validateAnswer) {
	if a.attribution != "" {
		m.attribution = a.attribution
	}
	notes := ""
	for _, is := range a.issues {
		if is.severity != "error" {
			notes = joinText(notes, is.message)
		}
	}
	switch {
	case a.status == "corrected" && a.normalized != nil && !m.sentConfirm && !m.sentPicked && !sameButCaseOrSpacing(m.sent, *a.normalized):
		// The register's version differs from what the customer typed: shown beside it,
		// and the customer chooses; the submit goes on after the choice.
		m.corrections, m.correctionMatch = []normAddr{*a.normalized}, a.match
		// Every candidate the answer carries is offered, not only the first: the register
		// may hold the typed number on another street at the typed postcode.
		for _, s := range a.suggestions {
			if !slices.ContainsFunc(m.corrections, func(c normAddr) bool { return sameButCaseOrSpacing(c, s) }) {
				m.corrections = append(m.corrections, s)
			}
		}
		msg := ""
		for _, is := range a.issues {
			msg = joinText(msg, is.message)
		}
		m.setMessage(joinText(msg, a.nextStep), "warning", noField)
		if m.submitWaiting {
			m.emit(effect{typ: "focus", field: "correction"})
		}
		m.submitWaiting = false
	case (a.status == "valid" || a.status == "corrected") && a.normalized != nil:
		// Valid, or corrected in letter case and spacing only ("1381cs", "weesp"): the
		// register's writing is taken without asking, as nothing the customer meant changes.
		n := *a.normalized
		m.showMatch(a.match, &n)
		m.commit(n, a.status, false, m.sentConfirm)
		t := txtChosen
		if m.sentConfirm {
			t = txtConfirmed
		}
		m.setMessage(joinText(say(m.cfg.Lang, t, 0, n.label()), notes), "info", noField)
		if m.submitWaiting {
			m.proceed()
		}
	case m.sentPicked:
		// A register address the customer picked is that address, whatever the verdict:
		// the worker answers ambiguous for the bare number of a building with boxes, and
		// another list to choose from would be a dead end.
		m.acceptPicked(m.sent)
	case !a.blocking && m.sentConfirm:
		// The customer confirmed an address the register does not know (a new build, a
		// register lag, a postcode the register lacks), or kept theirs over the candidates
		// of an ambiguous answer: accepted, and the commit says it was confirmed and not
		// verified, as a fail-open's is, for the shop to check. Another list would be a
		// dead end.
		n := m.sent
		if !m.commit(n, a.status, true, true) {
			return
		}
		m.setMessage(joinText(say(m.cfg.Lang, txtConfirmed, 0, n.label()), notes), "info", noField)
		if m.submitWaiting {
			m.proceed()
		}
	case a.status == "ambiguous" && len(a.suggestions) > 0:
		m.alts = a.suggestions
		msg := a.nextStep
		if len(a.issues) > 0 {
			msg = joinText(a.issues[0].message, a.nextStep)
		}
		if m.submitWaiting && m.atTypedNumber(a.suggestions) && m.askChoices() {
			m.setMessage(msg, "warning", noField)
			return // the lookup's list, every address at the number, is offered
		}
		m.setMessage(m.withHint(msg), "warning", noField)
		m.offerAlts()
		if m.submitWaiting {
			m.focus(FieldAddition)
		}
		m.submitWaiting = false
	default:
		is := firstIssue(a.issues)
		f := m.issueField(is)
		m.manual = true
		msg, kind := joinText(is.message, a.nextStep), "warning"
		switch {
		case a.blocking && (m.sentConfirm || blocksConfirmed(a.issues)):
			// Nothing to confirm: a malformed part, no house number, a PO box.
			kind = "error"
		case a.blocking:
			// blocking is advice: the register does not know the address (a postcode it
			// lacks, a new street), but the customer may know better and confirm it.
			m.needConfirm, kind = true, "error"
		default:
			m.needConfirm = true
		}
		offer := len(a.suggestions) > 0
		if offer {
			// The register's candidates (the additions the number has where the one typed
			// is not among them, the typed street and number at other postcodes) are
			// offered whole, as an ambiguity's are, beside the confirmation where one can
			// pass: choosing one is the way on that keeps the address verified.
			m.alts = a.suggestions
			m.list, m.listOpen, m.listActive = listAlts, true, -1
			msg = m.withHint(msg)
		}
		m.setMessage(msg, kind, f)
		if m.submitWaiting {
			switch {
			case offer:
				m.focus(FieldAddition)
			case m.needConfirm:
				m.emit(effect{typ: "focus", field: "confirm"})
			default:
				m.focus(f)
			}
		}
		m.submitWaiting = false
	}
}

// showMatch writes the register's version into the fields, so the customer sees what will
// be used when the API corrected what was typed.
func (m *Machine) showMatch(ma *matchAddr, n *normAddr) {
	if ma == nil {
		return
	}
	c := m.cfg.Country
	m.val[FieldStreet] = ma.street
	m.val[FieldCity] = ma.locality
	m.val[FieldPostcode] = adreswijzer.FormatPostcode(c, ma.postcode)
	num := ""
	if ma.number > 0 {
		num = itoa(ma.number)
	}
	n.street, n.houseNumber = ma.street, num
	if c == adreswijzer.NL {
		m.val[FieldNumber] = num
		m.val[FieldAddition] = ma.suffix + ma.unit
		n.numberAddition = ma.suffix + ma.unit
	} else {
		m.val[FieldNumber] = num + ma.suffix
		m.val[FieldAddition] = ma.unit
		box := ""
		if n.address2 != nil {
			box = *n.address2
		}
		n.numberAddition = strings.TrimSpace(ma.suffix + " " + box)
	}
	m.invalid = [numFields]bool{}
}

// showNormalized writes a register address given as checkout fields (a suggestion of an
// answer, which carries no parts) into the form's fields, and fills its split fields.
func (m *Machine) showNormalized(np *normAddr) {
	n := *np
	c := m.cfg.Country
	line := adreswijzer.ParseAddressLine(c, n.address1)
	// The letter as the register writes it ("3e"): the parser reads it in capitals.
	suffix := line.Number.Suffix
	if k := len(n.address1) - len(suffix); k >= 0 && strings.EqualFold(n.address1[k:], suffix) {
		suffix = n.address1[k:]
	}
	m.val[FieldStreet] = line.Street
	if line.HasNumber {
		m.val[FieldNumber] = itoa(line.Number.Number) + suffix
		n.houseNumber = itoa(line.Number.Number)
	}
	n.street = line.Street
	m.val[FieldAddition] = ""
	n.numberAddition = suffix
	if n.address2 != nil {
		// As the carrier field has it: the Dutch letter and toevoeging written together
		// ("A1"), the Belgian box after the letter and its marker ("A bus 21").
		m.val[FieldAddition] = *n.address2
		if c == adreswijzer.NL {
			n.numberAddition = suffix + *n.address2
		} else {
			n.numberAddition = strings.TrimSpace(suffix + " " + *n.address2)
		}
	}
	m.val[FieldPostcode], m.val[FieldCity] = n.zip, n.city
	m.invalid = [numFields]bool{}
	*np = n
}

// blocksConfirmed reports whether an answer names what still blocks with customerConfirmed
// (the spec's States: format errors, a missing house number, a disallowed PO box), so that a
// confirmation is not offered for what no confirmation can pass.
func blocksConfirmed(issues []issue) bool {
	for _, is := range issues {
		if adreswijzer.IssueCode(is.code).BlocksConfirmed() {
			return true
		}
	}
	return false
}

// sameButCaseOrSpacing reports whether the register's version of an address differs from
// what was typed only in letter case and spaces.
func sameButCaseOrSpacing(typed, reg normAddr) bool {
	fold := func(s string) string {
		return strings.Map(func(r rune) rune {
			if unicode.IsSpace(r) {
				return -1
			}
			return unicode.ToLower(r)
		}, s)
	}
	opt := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	return fold(typed.address1) == fold(reg.address1) && fold(opt(typed.address2)) == fold(opt(reg.address2)) &&
		fold(typed.zip) == fold(reg.zip) && fold(typed.city) == fold(reg.city)
}

// onCorrection takes the customer's choice between the register's versions of a corrected
// address (i indexes them) and their own, and lets the submit that found it go on. Their own
// goes as typed, flagged unverified and confirmed, for the shop to check.
func (m *Machine) onCorrection(use bool, i int) {
	if m.corrections == nil || use && (i < 0 || i >= len(m.corrections)) {
		return
	}
	if use {
		n := m.corrections[i]
		if i == 0 {
			m.showMatch(m.correctionMatch, &n)
		} else {
			m.showNormalized(&n)
		}
		m.corrections, m.correctionMatch = nil, nil
		m.commit(n, "corrected", false, false)
		m.setMessage(say(m.cfg.Lang, txtChosen, 0, n.label()), "info", noField)
	} else {
		n := m.sent
		m.corrections, m.correctionMatch = nil, nil
		if !m.commit(n, "", true, true) {
			return
		}
		m.setMessage(say(m.cfg.Lang, txtAcceptedAsTyped, 0, n.label()), "info", noField)
	}
	m.proceed()
}

// acceptPicked hands over a register address the customer picked, as picked.
func (m *Machine) acceptPicked(n normAddr) {
	m.commit(n, "valid", false, false)
	m.setMessage(say(m.cfg.Lang, txtChosen, 0, n.label()), "info", noField)
	if m.submitWaiting {
		m.proceed()
	}
}
