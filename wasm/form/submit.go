package form

import (
	"strings"

	"github.com/adreswijzer/adreswijzer"
)

// The submit: its time budget, the answers it waits for, and handing the address to the shop.

// onSubmit starts the submit's budget and goes as far as it can now.
func (m *Machine) onSubmit() {
	m.listOpen, m.listActive = false, -1
	if m.committed {
		m.proceed()
		return
	}
	if !m.submitWaiting {
		m.submitWaiting = true
		m.submitDeadline = m.now + TimeoutMs
		m.submitSeq++
		m.emit(effect{typ: "timer", name: submitTimer, seq: m.submitSeq, ms: TimeoutMs})
	}
	m.cancel(callSuggest)
	m.continueSubmit()
}

// continueSubmit takes a waiting submit a step further: at the submit, and again when an
// answer it waited for arrives.
func (m *Machine) continueSubmit() {
	if !m.submitWaiting {
		return
	}
	if m.mode != modeOnline {
		m.acceptTyped(m.missing())
		return
	}
	if m.inflight[callValidate] != 0 {
		return // its answer decides
	}
	if m.pending(callLookup) {
		// The lookup for what is typed has not answered (Enter right after the number): its
		// answer, within the submit's budget, tells the street; validating without it would
		// send a number without a street.
		if m.armed[callLookup] {
			m.armed[callLookup] = false
			m.timerSeq[callLookup]++
			m.sendLookup()
		}
		return
	}
	if f, t := m.missing(); f != noField {
		m.block(f, t)
		return
	}
	switch {
	case m.chosen >= 0:
		m.validatePicked(m.found[m.chosen].fields(m.cfg.Country))
		return
	case m.alt != nil:
		m.validatePicked(*m.alt)
		return
	case m.list == listAlts && len(m.alts) > 0:
		if m.needConfirm && m.confirmed {
			break // kept as typed: validated below with customerConfirmed
		}
		m.listOpen = true
		m.block(FieldAddition, txtChooseSuggestion)
		return
	case len(m.found) > 1:
		if exact, _ := m.typedExtension(); exact == "" {
			if i := m.matchExtension("", false); i >= 0 {
				// The bare number is an address of its own: what was typed is valid.
				m.choose(i)
				if len(m.alts) > 0 {
					// Just validated as typed (ambiguous), which is this address: no second call.
					m.acceptPicked(m.found[i].fields(m.cfg.Country))
					return
				}
				m.validatePicked(m.found[i].fields(m.cfg.Country))
				return
			}
		}
		m.listOpen = true
		t := txtChooseAddition
		if m.cfg.Country == adreswijzer.BE {
			t = txtChooseBox
		}
		m.block(FieldAddition, t)
		return
	case m.corrections != nil:
		// Still to choose: the register's version or their own.
		m.emit(effect{typ: "focus", field: "correction"})
		m.submitWaiting = false
		return
	case m.needConfirm && !m.confirmed:
		m.emit(effect{typ: "focus", field: "confirm"})
		m.submitWaiting = false
		return
	}
	m.validate(m.typedAddr(), m.needConfirm && m.confirmed)
}

// missing names the first field the address cannot do without, and what to say.
func (m *Machine) missing() (Field, text) {
	if m.chosen >= 0 {
		return noField, 0
	}
	if _, err := adreswijzer.NormalizePostcode(m.cfg.Country, m.val[FieldPostcode]); err != nil {
		if m.cfg.Country == adreswijzer.BE {
			return FieldPostcode, txtPostcodeFormatBE
		}
		return FieldPostcode, txtPostcodeFormat
	}
	if numberTooLong(m.val[FieldNumber]) {
		return FieldNumber, txtNumberTooLong
	}
	if _, ok := adreswijzer.ParseHouseNumber(m.cfg.Country, m.val[FieldNumber]); !ok {
		return FieldNumber, txtNumberMissing
	}
	if m.streetRequired() && strings.TrimSpace(m.val[FieldStreet]) == "" {
		return FieldStreet, txtStreetMissing
	}
	if m.cityRequired() && strings.TrimSpace(m.val[FieldCity]) == "" {
		return FieldCity, txtCityMissing
	}
	return noField, 0
}

// streetRequired: a Belgian lookup needs the street; a Dutch postcode and number find it,
// unless the customer types the address or the register cannot be asked.
func (m *Machine) streetRequired() bool {
	return m.cfg.Country == adreswijzer.BE || m.manual || m.mode != modeOnline
}

// cityRequired: the register fills the city from the postcode; typed by hand or taken as
// typed, a parcel needs it written.
func (m *Machine) cityRequired() bool { return m.mode != modeOnline || m.manual }

// block stops the submit at input f, saying t there.
func (m *Machine) block(f Field, t text) {
	m.setMessage(m.say(t), "error", f)
	m.focus(f)
	m.submitWaiting = false
}

// commit hands the address to the shop. An address the register did not give (unverified)
// is handed over only with a street, a number, a postcode and a town: otherwise the customer
// is asked for what is missing and commit reports false. No path through the form posts a
// bare number.
func (m *Machine) commit(n normAddr, status string, unverified, confirmed bool) bool {
	if unverified {
		if f, t := incomplete(n); f != noField {
			m.manual = true
			m.block(f, t)
			return false
		}
	}
	m.committed, m.unverified = true, unverified
	m.emit(effect{typ: "commit", addr: n, status: status, unverified: unverified, confirmed: confirmed})
	return true
}

// incomplete names the first part an address handed to the shop lacks.
func incomplete(n normAddr) (Field, text) {
	switch {
	case strings.TrimSpace(n.zip) == "":
		return FieldPostcode, txtPostcodeFormat
	case strings.TrimSpace(n.houseNumber) == "":
		return FieldNumber, txtNumberMissing
	case strings.TrimSpace(n.street) == "":
		return FieldStreet, txtStreetMissing
	case strings.TrimSpace(n.city) == "":
		return FieldCity, txtCityMissing
	}
	return noField, 0
}

// uncommit takes back the address handed to the shop, once the customer changes it.
func (m *Machine) uncommit() {
	m.committed, m.unverified = false, false
	m.emit(effect{typ: "uncommit"})
}

// proceed lets the shop's form submit: the address is handed over, and whatever the customer
// types next is another address in a session of its own.
func (m *Machine) proceed() {
	m.submitWaiting = false
	m.sessionEnded = true
	m.emit(effect{typ: "proceed"})
}
