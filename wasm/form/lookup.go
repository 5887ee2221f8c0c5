package form

import (
	"strings"

	"github.com/adreswijzer/adreswijzer"
)

// Lookup: the register's addresses at the typed postcode and number, and choosing one of
// them by its letter, toevoeging or box.

// lookupQuery is the lookup for what is typed, without lang and session, so that it also
// tells whether the answer held is still the right one. ok is false while something it needs
// is missing or cannot be valid.
func (m *Machine) lookupQuery() (string, bool) {
	pc, err := adreswijzer.NormalizePostcode(m.cfg.Country, m.val[FieldPostcode])
	if err != nil {
		return "", false
	}
	h, ok := adreswijzer.ParseHouseNumber(m.cfg.Country, m.val[FieldNumber])
	if !ok {
		return "", false
	}
	var q query
	q.add("postcode", pc)
	q.add("number", itoa(h.Number))
	if m.cfg.Country == adreswijzer.BE {
		st := strings.TrimSpace(m.val[FieldStreet])
		if st == "" {
			return "", false
		}
		q.add("street", st)
	}
	return string(q), true
}

// refreshLookup asks the register for the addresses at the typed number once the typing
// pauses, unless the answer held is already for it.
func (m *Machine) refreshLookup() { m.lookupNow(false) }

// lookupNow is refreshLookup, asking at once rather than after the debounce when now is
// set.
func (m *Machine) lookupNow(now bool) {
	if m.mode != modeOnline {
		return
	}
	key, ok := m.lookupQuery()
	if ok && key == m.lookupKey && (m.pending(callLookup) || m.found != nil) {
		if m.found != nil && m.chosen < 0 && len(m.found) > 0 {
			m.selectTyped()
		}
		return
	}
	m.cancel(callLookup)
	m.found, m.chosen, m.lookupNote = nil, -1, ""
	if m.list == listAdditions {
		m.dropList()
	}
	m.lookupKey = ""
	if !ok || m.manualChosen {
		// Typed by hand: the register is asked at the submit (askChoices).
		return
	}
	m.lookupKey = key
	if now {
		m.sendLookup()
		return
	}
	m.schedule(callLookup)
}

// askChoices asks the register for every address at the typed number, for a validate that
// found several: its suggestions stop at ten, the lookup lists them all (a Malmedy number
// has 35). It reports whether the typed address allows a lookup.
func (m *Machine) askChoices() bool {
	key, ok := m.lookupQuery()
	if !ok || m.mode != modeOnline {
		return false
	}
	m.cancel(callLookup)
	m.found, m.chosen, m.lookupNote = nil, -1, ""
	m.lookupKey = key
	m.sendLookup()
	return true
}

// atTypedNumber reports whether every candidate of an answer is at the typed postcode and
// number, so that the lookup's list of that number holds them all. Candidates elsewhere (the
// typed street at another postcode, the typed unit on another street) are offered as the
// answer gives them: a lookup of the number would drop them.
func (m *Machine) atTypedNumber(cands []normAddr) bool {
	pc, err := adreswijzer.NormalizePostcode(m.cfg.Country, m.val[FieldPostcode])
	if err != nil {
		return false
	}
	h, ok := adreswijzer.ParseHouseNumber(m.cfg.Country, m.val[FieldNumber])
	if !ok {
		return false
	}
	for _, c := range cands {
		cpc, err := adreswijzer.NormalizePostcode(m.cfg.Country, c.zip)
		line := adreswijzer.ParseAddressLine(m.cfg.Country, c.address1)
		if err != nil || cpc != pc || !line.HasNumber || line.Number.Number != h.Number {
			return false
		}
	}
	return true
}

// sendLookup asks for the addresses the lookup key names, for the form's carrier.
func (m *Machine) sendLookup() {
	q := query(m.lookupKey)
	if m.cfg.Carrier != "" {
		q.add("carrier", string(m.cfg.Carrier))
	}
	m.common(&q)
	m.send(callLookup, "GET", "/v1/"+m.cfg.Country.Lower()+"/lookup", string(q), "")
}

// onLookup takes the register's addresses at the typed number: one, or the one typed, is
// chosen; several are offered; none is explained. A waiting submit goes on.
func (m *Machine) onLookup(a lookupAnswer) {
	if a.attribution != "" {
		m.attribution = a.attribution
	}
	m.found = make([]lookupAddr, 0, len(a.addresses))
	m.found = append(m.found, a.addresses...)
	m.lookupNote = ""
	if len(m.found) == 0 && len(m.alts) > 0 {
		// Asked for an ambiguous answer and nothing at the number: its suggestions are
		// what there is to choose from.
		m.offerAlts()
		m.continueSubmit()
		return
	}
	if len(m.found) == 0 {
		m.manual = true
		if len(a.issues) > 0 {
			is := a.issues[0]
			m.setMessage(joinText(is.message, a.nextStep), severityKind(is.severity), m.issueField(is))
		} else {
			m.setMessage(a.nextStep, "error", FieldNumber)
		}
		m.continueSubmit()
		return
	}
	for _, is := range a.issues {
		m.lookupNote = joinText(m.lookupNote, is.message)
	}
	m.manual = m.manualChosen
	if !m.manualChosen {
		first := m.found[0]
		m.val[FieldStreet], m.val[FieldCity] = first.street, first.locality
	}
	m.invalid = [numFields]bool{}
	m.selectTyped()
	m.continueSubmit()
}

// selectTyped picks the register address the customer already typed: one address at the
// number, or the letter, toevoeging or box typed into the number or addition field, or the
// one chosen before the language changed. Otherwise the addresses are offered to choose from.
func (m *Machine) selectTyped() {
	if len(m.found) == 1 {
		m.choose(0)
		return
	}
	if r := m.repick; r != nil {
		m.repick = nil
		if m.lookupKey == m.repickKey {
			if i := m.matchExtension(*r, false); i >= 0 {
				m.choose(i)
				return
			}
		}
	}
	exact, loose := m.typedExtension()
	if exact != "" {
		if i := m.matchExtension(exact, false); i >= 0 {
			m.choose(i)
			return
		}
		if i := m.matchExtension(loose, true); i >= 0 {
			m.choose(i)
			return
		}
	}
	m.list, m.listOpen, m.listActive = listAdditions, true, -1
	t, pick := txtAdditions, txtChooseAddition
	if m.cfg.Country == adreswijzer.BE {
		t, pick = txtBoxes, txtChooseBox
	}
	if exact != "" {
		m.setMessage(joinText(m.lookupNote, say(m.cfg.Lang, pick, 0, "")), "warning", FieldAddition)
		return
	}
	m.setMessage(joinText(m.lookupNote, m.withHint(say(m.cfg.Lang, t, len(m.found), ""))), "info", noField)
}

// typedExtension is what the customer typed after the number, in the register's comparison
// forms.
func (m *Machine) typedExtension() (exact, loose string) {
	c := m.cfg.Country
	unit, _ := adreswijzer.ParseUnit(c, m.val[FieldAddition])
	h, _ := adreswijzer.ParseHouseNumber(c, m.val[FieldNumber])
	return adreswijzer.ExtensionOf(h.Suffix, h.Unit, unit), adreswijzer.LooseExtensionOf(h.Suffix, h.Unit, unit)
}

// matchExtension returns the only address whose extension equals ext, -1 when none or
// several do.
func (m *Machine) matchExtension(ext string, loose bool) int {
	hit := -1
	for i, a := range m.found {
		e, l := a.extension()
		if loose {
			e = l
		}
		if e == ext {
			if hit >= 0 {
				return -1
			}
			hit = i
		}
	}
	return hit
}

// filterAdditions moves the list's active option to the first addition that starts with
// what is typed in the addition field, without choosing it: the customer may still be typing.
func (m *Machine) filterAdditions() {
	if m.list != listAdditions {
		return
	}
	m.chosen = -1
	unit, _ := adreswijzer.ParseUnit(m.cfg.Country, m.val[FieldAddition])
	typed := adreswijzer.ExtensionOf(unit)
	m.listOpen, m.listActive = true, -1
	if typed == "" {
		return
	}
	for i, a := range m.found {
		if e, _ := a.extension(); strings.HasPrefix(e, typed) {
			m.listActive = i
			return
		}
	}
}

// choose takes a register address at the number as the customer's. It is not validated
// yet: the customer may still be typing ("1" found an address, "11" is the one meant), and a
// validate ends the billed session; the submit validates the address chosen last, once.
func (m *Machine) choose(i int) {
	if i < 0 || i >= len(m.found) {
		return
	}
	if m.committed {
		m.uncommit()
	}
	m.chosen = i
	a := m.found[i]
	c := m.cfg.Country
	m.val[FieldPostcode] = adreswijzer.FormatPostcode(c, a.postcode)
	m.val[FieldStreet], m.val[FieldCity] = a.street, a.locality
	if c == adreswijzer.NL {
		m.val[FieldNumber] = a.numberDigits()
		m.val[FieldAddition] = ""
		if a.addition != nil {
			m.val[FieldAddition] = *a.addition
		}
	} else {
		m.val[FieldNumber] = a.numberText()
		m.val[FieldAddition] = a.unit
	}
	m.invalid = [numFields]bool{}
	m.list, m.listOpen, m.listActive = listAdditions, false, -1
	if len(m.found) < 2 {
		m.list = listNone
	}
	m.manual = m.manualChosen
	n := a.fields(c)
	m.setMessage(joinText(m.lookupNote, say(m.cfg.Lang, txtFound, 0, n.label())), "info", noField)
}
