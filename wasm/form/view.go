package form

import (
	"strings"

	"github.com/adreswijzer/adreswijzer"
)

// fieldOrder is the order of the inputs: the Dutch form asks postcode and number first (they
// find the street); the Belgian one asks the postcode, then the street within it, then the
// number, as a Belgian postcode spans many streets.
func (m *Machine) fieldOrder() [numFields]Field {
	if m.cfg.Country == adreswijzer.BE {
		return [numFields]Field{FieldPostcode, FieldStreet, FieldNumber, FieldAddition, FieldCity}
	}
	return [numFields]Field{FieldPostcode, FieldNumber, FieldAddition, FieldStreet, FieldCity}
}

// fromRegister: the street and city shown are the register's, not typed.
func (m *Machine) fromRegister() bool {
	return m.mode == modeOnline && !m.manual && len(m.found) > 0
}

func (m *Machine) visible(f Field) bool {
	if m.cfg.Country == adreswijzer.BE {
		return true
	}
	switch f {
	case FieldAddition:
		return m.list == listAdditions || m.list == listAlts || m.val[f] != "" || m.manual || m.mode != modeOnline
	case FieldStreet, FieldCity:
		return m.found != nil || m.manual || m.mode != modeOnline || m.val[f] != ""
	}
	return true
}

func (m *Machine) readOnly(f Field) bool {
	switch f {
	case FieldCity:
		return m.fromRegister() && (m.cfg.Country == adreswijzer.NL || m.chosen >= 0)
	case FieldStreet:
		return m.cfg.Country == adreswijzer.NL && m.fromRegister()
	}
	return false
}

func (m *Machine) required(f Field) bool {
	switch f {
	case FieldPostcode, FieldNumber:
		return true
	case FieldAddition:
		return m.list == listAdditions && len(m.found) > 1 && m.matchExtension("", false) < 0
	case FieldStreet:
		return m.streetRequired()
	case FieldCity:
		return m.cityRequired()
	}
	return false
}

func (m *Machine) label(f Field) string {
	l := m.cfg.Lang
	switch f {
	case FieldPostcode:
		return say(l, txtPostcode, 0, "")
	case FieldNumber:
		return say(l, txtNumber, 0, "")
	case FieldAddition:
		t := txtAddition
		if m.cfg.Country == adreswijzer.BE {
			t = txtBox
		}
		s := say(l, t, 0, "")
		if !m.required(f) {
			s += " " + say(l, txtOptional, 0, "")
		}
		return s
	case FieldStreet:
		return say(l, txtStreet, 0, "")
	case FieldCity:
		return say(l, txtCity, 0, "")
	}
	return ""
}

// autocomplete tokens let browsers fill the fields from a saved address (the shell adds the
// shop's section, e.g. "shipping"). HTML has no token for a house number on its own; a
// browser filling address-line1 into the street gets its number moved over on blur.
var autocomplete = [numFields]string{"postal-code", "", "", "address-line1", "address-level2"}

func (m *Machine) inputMode(f Field) string {
	if f == FieldPostcode && m.cfg.Country == adreswijzer.BE {
		return "numeric"
	}
	return "text"
}

func (m *Machine) busy() bool {
	for c := call(0); c < numCalls; c++ {
		if c != callSuggest && m.inflight[c] != 0 {
			return true
		}
	}
	return false
}

func (m *Machine) state() string {
	switch m.mode {
	case modeOffline:
		return "offline"
	case modeDisabled:
		return "disabled"
	}
	return "online"
}

// result writes the effects gathered while handling an event, and the view after it.
func (m *Machine) result(handled bool) []byte {
	var w writer
	w.b = make([]byte, 0, 2048)
	w.beginObject()
	w.flag("handled", handled)
	w.key("effects")
	w.beginArray()
	for _, e := range m.out {
		writeEffect(&w, e)
	}
	w.endArray()
	m.out = m.out[:0]
	w.key("view")
	m.writeView(&w)
	w.endObject()
	return w.b
}

func writeEffect(w *writer, e effect) {
	w.beginObject()
	w.str("type", e.typ)
	switch e.typ {
	case "fetch":
		w.num("id", e.id)
		w.str("method", e.method)
		w.str("path", e.path)
		w.str("query", e.query)
		if e.body != "" {
			w.str("body", e.body)
		}
		w.num("timeoutMs", e.ms)
	case "abort":
		w.num("id", e.id)
	case "timer":
		w.str("name", e.name)
		w.num("seq", e.seq)
		w.num("ms", e.ms)
	case "focus":
		w.str("field", e.field)
	case "commit":
		w.key("address")
		writeAddress(w, e.addr)
		w.str("status", e.status)
		w.flag("unverified", e.unverified)
		w.flag("confirmed", e.confirmed)
	}
	w.endObject()
}

// writeAddress writes the checkout fields the shop receives: the NormalizedAddress members
// plus the split street, number and addition for shops with separate inputs.
func writeAddress(w *writer, n normAddr) {
	w.beginObject()
	w.str("address1", n.address1)
	w.opt("address2", n.address2)
	w.str("zip", n.zip)
	w.str("city", n.city)
	w.str("countryCode", n.countryCode)
	w.str("street", n.street)
	w.str("houseNumber", n.houseNumber)
	w.str("houseNumberAddition", n.numberAddition)
	w.endObject()
}

func (m *Machine) writeView(w *writer) {
	l := m.cfg.Lang
	w.beginObject()
	w.str("country", string(m.cfg.Country))
	w.str("lang", string(l))
	w.str("title", say(l, txtRegion, 0, ""))
	w.str("state", m.state())
	w.flag("busy", m.busy())
	w.key("fields")
	w.beginArray()
	for _, f := range m.fieldOrder() {
		w.beginObject()
		w.str("name", f.String())
		w.str("label", m.label(f))
		w.str("value", m.val[f])
		w.flag("visible", m.visible(f))
		w.flag("readOnly", m.readOnly(f))
		w.flag("required", m.required(f))
		w.flag("invalid", m.invalid[f])
		w.str("autocomplete", autocomplete[f])
		w.str("inputMode", m.inputMode(f))
		w.flag("combo", m.combo(f))
		w.endObject()
	}
	w.endArray()
	w.key("list")
	if opts := m.options(); len(opts) > 0 {
		f := m.listField()
		w.beginObject()
		w.str("field", f.String())
		w.str("label", m.listLabel(f))
		w.flag("open", m.listOpen)
		w.num("active", m.listActive)
		w.num("selected", m.selected())
		w.key("options")
		w.beginArray()
		for _, o := range opts {
			w.string(o)
		}
		w.endArray()
		w.endObject()
	} else {
		w.null()
	}
	msg, kind := m.msg, m.msgKind
	if msg == "" && m.mode != modeOnline {
		// The customer keeps being told why nothing is looked up any more.
		t := txtOffline
		if m.mode == modeDisabled {
			t = txtDisabled
		}
		msg, kind = say(l, t, 0, ""), "warning"
	}
	w.str("message", msg)
	w.str("messageKind", kind)
	w.str("messageField", m.msgField.String())
	w.key("manual")
	w.beginObject()
	w.flag("visible", m.mode == modeOnline)
	manual := txtManual
	if m.manualChosen {
		manual = txtSearchBack
	}
	w.str("label", say(l, manual, 0, ""))
	w.flag("back", m.manualChosen)
	w.endObject()
	w.key("confirm")
	w.beginObject()
	w.flag("visible", m.needConfirm)
	w.str("label", say(l, txtConfirm, 0, ""))
	w.flag("checked", m.confirmed)
	w.endObject()
	w.key("correction")
	w.beginObject()
	w.flag("visible", m.corrections != nil)
	labels := m.versionLabels(m.corrections)
	switch len(labels) {
	case 0:
		w.str("text", "")
	case 1:
		w.str("text", say(l, txtCorrection, 0, labels[0]))
	default:
		w.str("text", say(l, txtCorrections, 0, ""))
	}
	w.key("options")
	w.beginArray()
	for _, s := range labels {
		w.string(say(l, txtUseThis, 0, s))
	}
	w.endArray()
	w.str("keep", say(l, txtKeepTyped, 0, ""))
	w.endObject()
	w.flag("committed", m.committed)
	w.flag("unverified", m.unverified)
	w.str("attribution", m.credit())
	w.endObject()
}

// credit is the licence credit of the answers shown, in the form's language: the API words
// it in English, the register's licence (CC BY 4.0) asks for it where the data is shown.
func (m *Machine) credit() string {
	if strings.Contains(m.attribution, "BeST") {
		return say(m.cfg.Lang, txtCredit, 0, "")
	}
	return m.attribution
}

// listLabel names the list on offer for assistive technology: the field's label, or "Address"
// for a validation's candidates, whole addresses rather than additions.
func (m *Machine) listLabel(f Field) string {
	if m.list == listAlts {
		return say(m.cfg.Lang, txtRegion, 0, "")
	}
	return strings.TrimSpace(m.label(f))
}

// combo says which inputs offer a list: the addition (the addresses at the number), the
// street (suggestions), and in the Netherlands the postcode, where a street may be typed.
func (m *Machine) combo(f Field) bool {
	switch f {
	case FieldAddition, FieldStreet:
		return true
	case FieldPostcode:
		return m.cfg.Country == adreswijzer.NL
	}
	return false
}
