package form

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/adreswijzer/adreswijzer"
)

// Suggest: the streets offered while the customer types a street, and taking one.

// askStreets asks for street suggestions for what is typed in f (the street field, or a
// street typed into the Dutch postcode field) once enough is typed, in both countries and in
// manual entry alike.
func (m *Machine) askStreets(f Field) {
	min := minSuggestAnywhere
	if _, err := adreswijzer.NormalizePostcode(m.cfg.Country, m.val[FieldPostcode]); err == nil {
		min = minSuggestInPostcode
	}
	q := m.streetQuery(f)
	if m.mode != modeOnline || runeLen(q) < min {
		if m.suggestField == f || m.suggestField == noField {
			m.cancel(callSuggest)
			m.streets = nil
			if m.list == listStreets {
				m.dropList()
			}
		}
		return
	}
	m.suggestField = f
	m.schedule(callSuggest)
}

// streetQuery is the street to search for in what f holds: the street field's text, or the
// text of the Dutch postcode field when it starts with a letter (a postcode starts with its
// digits), without a house number typed after the street. "" when f holds no street.
func (m *Machine) streetQuery(f Field) string {
	text := strings.TrimSpace(m.val[f])
	if f != FieldPostcode {
		return text
	}
	if m.cfg.Country != adreswijzer.NL || text == "" {
		return ""
	}
	if r, _ := utf8.DecodeRuneInString(text); !unicode.IsLetter(r) {
		return ""
	}
	if line := adreswijzer.ParseAddressLine(m.cfg.Country, text); line.HasNumber && line.Street != "" && !line.PoBox {
		return line.Street
	}
	return text
}

// sendSuggest asks for the streets that match what the suggested field holds, within the
// typed postcode when there is one and the search is not typed in the postcode field itself.
func (m *Machine) sendSuggest() {
	f := m.suggestField
	if f == noField {
		return
	}
	text := clip(m.streetQuery(f), adreswijzer.MaxQueryLength)
	if text == "" {
		return
	}
	var q query
	q.add("country", m.cfg.Country.Lower())
	q.add("q", text)
	if pc, err := adreswijzer.NormalizePostcode(m.cfg.Country, m.val[FieldPostcode]); err == nil && f != FieldPostcode {
		q.add("postcode", pc)
	}
	m.common(&q)
	m.send(callSuggest, "GET", "/v1/suggest", string(q), "")
}

// onSuggest offers the streets found, unless the customer has gone on to a list of the
// number's addresses meanwhile.
func (m *Machine) onSuggest(a suggestAnswer) {
	if a.attribution != "" {
		m.attribution = a.attribution
	}
	m.streets = a.suggestions
	if len(m.streets) == 0 {
		if m.list == listStreets {
			m.dropList()
		}
		if len(a.issues) > 0 {
			m.setMessage(a.issues[0].message, severityKind(a.issues[0].severity), FieldStreet)
		}
		return
	}
	if m.list == listAdditions || m.list == listAlts {
		// The customer went on to the number before the suggestions came: the addresses
		// at the number are the list on offer now.
		return
	}
	m.list, m.listOpen, m.listActive = listStreets, m.focused == m.suggestField, -1
	t := txtStreets
	if len(m.streets) == 1 {
		t = txtStreet1
	}
	m.setMessage(m.withHint(say(m.cfg.Lang, t, len(m.streets), "")), "info", noField)
}

// chooseStreet takes street suggestion i into the form, with its town and postcode, and
// looks the typed number up at once.
func (m *Machine) chooseStreet(i int) {
	if i < 0 || i >= len(m.streets) {
		return
	}
	s := m.streets[i]
	m.addressChanged()
	fromPostcode := m.suggestField == FieldPostcode
	if fromPostcode {
		// Searched from the Dutch postcode field: the street's postcode takes the place of
		// the search, and a number typed after the street goes to the number field.
		line := adreswijzer.ParseAddressLine(m.cfg.Country, m.val[FieldPostcode])
		m.val[FieldPostcode] = adreswijzer.FormatPostcode(m.cfg.Country, s.postcode)
		if line.HasNumber && strings.TrimSpace(m.val[FieldNumber]) == "" {
			m.val[FieldNumber] = itoa(line.Number.Number) + line.Number.Suffix
			if line.Number.Unit != "" && strings.TrimSpace(m.val[FieldAddition]) == "" {
				m.val[FieldAddition] = line.Number.Unit
			}
		}
		// The street and city are shown, as typed ones are, until the lookup confirms them.
		m.manual = true
	}
	m.val[FieldStreet] = s.street
	if s.locality != "" {
		m.val[FieldCity] = s.locality
	}
	if _, err := adreswijzer.NormalizePostcode(m.cfg.Country, m.val[FieldPostcode]); err != nil && s.postcode != "" {
		m.val[FieldPostcode] = adreswijzer.FormatPostcode(m.cfg.Country, s.postcode)
	}
	m.invalid[FieldStreet], m.invalid[FieldPostcode] = false, false
	m.dropList()
	m.streets, m.suggestField = nil, noField
	m.clearMessage()
	m.chosen = -1
	switch {
	case strings.TrimSpace(m.val[FieldPostcode]) == "":
		m.focus(FieldPostcode)
	case strings.TrimSpace(m.val[FieldNumber]) == "":
		m.focus(FieldNumber)
	case fromPostcode:
		m.focus(FieldNumber)
	}
	m.lookupNow(true)
}
