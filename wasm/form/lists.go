package form

import (
	"strings"

	"github.com/adreswijzer/adreswijzer"
)

// The list on offer below an input (the addresses at a number, streets, the candidates of an
// answer): its options, moving through them, and picking one.

// options are the labels of the list on offer.
func (m *Machine) options() []string {
	var out []string
	switch m.list {
	case listAdditions:
		none := txtNoAddition
		if m.cfg.Country == adreswijzer.BE {
			none = txtNoBox
		}
		for _, a := range m.found {
			s := a.numberDigits()
			if a.addition != nil {
				s += " " + *a.addition
			} else {
				s += " (" + say(m.cfg.Lang, none, 0, "") + ")"
			}
			out = append(out, s)
		}
	case listStreets:
		for _, s := range m.streets {
			out = append(out, s.street+", "+strings.TrimSpace(s.postcode+" "+s.locality))
		}
	case listAlts:
		out = m.versionLabels(m.alts)
	}
	return out
}

// versionLabels are the register's versions of the address validated last (a correction's,
// or the candidates of an ambiguous or invalid answer), each whole (street, number,
// addition, postcode and town); one without the addition the customer typed says so, so
// that choosing it never drops what was typed unnoticed.
func (m *Machine) versionLabels(list []normAddr) []string {
	typed := m.sentAddition()
	out := make([]string, 0, len(list))
	for _, n := range list {
		s := n.label()
		if typed != "" && m.bare(n) {
			s += " " + say(m.cfg.Lang, txtWithout, 0, typed)
		}
		out = append(out, s)
	}
	return out
}

// sentAddition is the addition sent with the address validated last: what was typed in the
// addition field, or else a letter or toevoeging typed after the number. "" when none.
func (m *Machine) sentAddition() string {
	if m.sent.address2 != nil && strings.TrimSpace(*m.sent.address2) != "" {
		return strings.TrimSpace(*m.sent.address2)
	}
	return strings.TrimSpace(m.sent.numberAddition)
}

// bare reports whether a register address has neither a letter nor an addition.
func (m *Machine) bare(n normAddr) bool {
	if n.address2 != nil && strings.TrimSpace(*n.address2) != "" {
		return false
	}
	line := adreswijzer.ParseAddressLine(m.cfg.Country, n.address1)
	return line.Number.Suffix == "" && line.Number.Unit == ""
}

// listField is the input the list on offer belongs to.
func (m *Machine) listField() Field {
	switch m.list {
	case listAdditions, listAlts:
		return FieldAddition
	case listStreets:
		return m.suggestField
	}
	return noField
}

// selected is the option that is the customer's current choice, -1 when none.
func (m *Machine) selected() int {
	if m.list == listAdditions {
		return m.chosen
	}
	return -1
}

// offerAlts offers the candidates of an ambiguous answer (alts), each a whole address, and
// beside them the confirmation: what the customer typed may be right where the register
// reads it several ways (a street at another postcode, the number on another street), and
// they may keep it, flagged for the shop to check, rather than be stopped by the list.
func (m *Machine) offerAlts() {
	m.list, m.listOpen, m.listActive = listAlts, true, -1
	m.needConfirm, m.confirmed = true, false
}

// chooseAlt takes candidate i of an answer into the form, to be validated as picked at the
// submit.
func (m *Machine) chooseAlt(i int) {
	if i < 0 || i >= len(m.alts) {
		return
	}
	n := m.alts[i]
	m.showNormalized(&n)
	m.dropList()
	m.alts, m.alt = nil, &n
	m.needConfirm, m.confirmed = false, false
	m.setMessage(say(m.cfg.Lang, txtFound, 0, n.label()), "info", noField)
}

// pick takes option i of the list on offer.
func (m *Machine) pick(i int) {
	switch m.list {
	case listAdditions:
		m.addressChangedKeepList()
		m.choose(i)
	case listStreets:
		m.chooseStreet(i)
	case listAlts:
		m.chooseAlt(i)
	}
}

// addressChangedKeepList is addressChanged for a new choice from the list on offer: the
// list itself stays valid.
func (m *Machine) addressChangedKeepList() {
	if m.committed {
		m.uncommit()
	}
	m.needConfirm, m.confirmed = false, false
}

// closeList hides the list; it stays on offer.
func (m *Machine) closeList() { m.listOpen, m.listActive = false, -1 }

// dropList takes the list off offer.
func (m *Machine) dropList() {
	m.closeList()
	m.list = listNone
}

// onKey moves through the list on offer with the arrow keys, picks with Enter and closes
// it with Escape. It reports whether the form used the key.
func (m *Machine) onKey(f Field, key string) bool {
	opts := m.options()
	n := len(opts)
	if f == FieldNumber && key == "ArrowDown" && m.list == listAdditions && n > 0 {
		// From the number straight into its additions.
		m.focus(FieldAddition)
		m.focused = FieldAddition
		m.listOpen, m.listActive = true, max(m.selected(), 0)
		return true
	}
	if f != m.listField() || n == 0 {
		return false
	}
	switch key {
	case "ArrowDown":
		if !m.listOpen {
			m.listOpen, m.listActive = true, max(m.selected(), 0)
		} else {
			m.listActive = (m.listActive + 1) % n
		}
		return true
	case "ArrowUp":
		if !m.listOpen || m.listActive <= 0 {
			m.listActive = n - 1
		} else {
			m.listActive--
		}
		m.listOpen = true
		return true
	case "Enter":
		if m.listOpen && m.listActive >= 0 {
			m.pick(m.listActive)
			return true
		}
	case "Escape":
		if m.listOpen {
			m.closeList()
			return true
		}
	}
	return false
}

// withHint adds how to choose from a list, for keyboards; a touch screen has no arrow keys.
func (m *Machine) withHint(s string) string {
	if m.cfg.Touch {
		return s
	}
	return joinText(s, say(m.cfg.Lang, txtHintKeys, 0, ""))
}
