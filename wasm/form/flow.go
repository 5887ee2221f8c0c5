package form

import (
	"io"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/adreswijzer/adreswijzer"
)

// effect is one thing the shell must do.
type effect struct {
	typ        string // fetch, abort, timer, focus, commit, uncommit, proceed
	id         int
	method     string
	path       string
	query      string
	body       string
	name       string
	seq        int
	ms         int
	field      string
	addr       normAddr
	status     string
	unverified bool
	confirmed  bool
}

func (m *Machine) emit(e effect) { m.out = append(m.out, e) }

func (m *Machine) focus(f Field) {
	if f < numFields {
		m.emit(effect{typ: "focus", field: f.String()})
	}
}

// sessionID returns the id of the address being entered, starting a new one for the first
// call of an address: the first call of the form, the first after an address was handed over
// at a submit, and the first for another postcode than the session's.
func (m *Machine) sessionID() string {
	pc, err := adreswijzer.NormalizePostcode(m.cfg.Country, m.val[FieldPostcode])
	if err != nil {
		pc = ""
	}
	if m.session == "" || m.sessionEnded || pc != "" && m.sessionPC != "" && pc != m.sessionPC {
		m.sessionPC = ""
		var b [16]byte
		// crypto/rand does not fail (Go 1.24+); a reader that does leaves zeros, which is
		// still a well-formed id.
		_, _ = io.ReadFull(m.rand, b[:])
		s := make([]byte, 0, 2+2*len(b))
		s = append(s, "aw"...)
		for _, c := range b {
			s = append(s, hexDigits[c>>4], hexDigits[c&0xF])
		}
		m.session, m.sessionEnded = string(s), false
	}
	if pc != "" {
		m.sessionPC = pc
	}
	return m.session
}

func (m *Machine) schedule(c call) {
	m.timerSeq[c]++
	m.armed[c] = true
	m.emit(effect{typ: "timer", name: callNames[c], seq: m.timerSeq[c], ms: DebounceMs})
}

// cancel forgets a pending timer and the request in flight of one kind: its answer, should
// it still arrive, no longer counts.
func (m *Machine) cancel(c call) {
	if m.armed[c] {
		m.armed[c] = false
		m.timerSeq[c]++
	}
	if m.inflight[c] != 0 {
		m.emit(effect{typ: "abort", id: m.inflight[c]})
		m.inflight[c] = 0
	}
}

func (m *Machine) pending(c call) bool { return m.armed[c] || m.inflight[c] != 0 }

// send asks the API. A request made while a submit waits gets what is left of the submit's
// budget rather than a fresh 1.5 s.
func (m *Machine) send(c call, method, path, q, body string) {
	m.cancel(c)
	m.nextID++
	m.inflight[c] = m.nextID
	m.sentAt[c] = m.now
	ms := TimeoutMs
	if m.submitWaiting && m.now > 0 {
		ms = max(1, min(ms, m.submitDeadline-m.now))
	}
	m.timeout[c] = ms
	m.emit(effect{typ: "fetch", id: m.nextID, method: method, path: path, query: q, body: body, ms: ms})
}

// common appends the parameters every GET carries; the session id last, because taking it
// may start a new session.
func (m *Machine) common(q *query) {
	q.add("lang", string(m.cfg.Lang))
	q.add("sessionId", m.sessionID())
}

func (m *Machine) onTimer(c call) {
	m.armed[c] = false
	switch c {
	case callLookup:
		m.sendLookup()
	case callSuggest:
		m.sendSuggest()
	}
}

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

func (m *Machine) sendLookup() {
	q := query(m.lookupKey)
	if m.cfg.Carrier != "" {
		q.add("carrier", string(m.cfg.Carrier))
	}
	m.common(&q)
	m.send(callLookup, "GET", "/v1/"+m.cfg.Country.Lower()+"/lookup", string(q), "")
}

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

func (m *Machine) onResponse(e event) {
	c := numCalls
	for k := call(0); k < numCalls; k++ {
		if e.id != 0 && m.inflight[k] == e.id {
			c = k
		}
	}
	if c == numCalls {
		return // superseded or cancelled: an answer out of order must not overwrite a newer one
	}
	m.inflight[c] = 0
	late := m.now > 0 && m.sentAt[c] > 0 && m.now-m.sentAt[c] > m.timeout[c]
	switch {
	case e.err != "" || e.status == 0 || late:
		m.failOpen(0)
	case e.status == 401 || e.status == 403:
		m.goOffline(modeDisabled, txtDisabled, 0)
	case e.status != 200:
		m.failOpen(e.retryAfter)
	default:
		v, err := parseJSON(e.body)
		if err != nil {
			m.failOpen(0)
			return
		}
		m.failures = 0
		ok := false
		switch c {
		case callLookup:
			var a lookupAnswer
			if a, ok = readLookup(v); ok {
				m.onLookup(a)
			}
		case callSuggest:
			var a suggestAnswer
			if a, ok = readSuggest(v); ok {
				m.onSuggest(a)
			}
		case callValidate:
			var a validateAnswer
			if a, ok = readValidate(v); ok {
				m.onValidate(a)
			}
		}
		if !ok {
			m.failOpen(0)
		}
	}
}

// failOpen takes the address as typed for now: the spec's rule for a slow, failing or
// unreachable service. The street and city are shown for the customer to type, the commit is
// flagged unverified so the shop validates it later, and the API is asked again after
// retryAfter seconds (its Retry-After) or a backoff that doubles with each failure in a row.
func (m *Machine) failOpen(retryAfter int) {
	m.failures++
	ms := retryAfter * 1000
	if ms <= 0 {
		ms = RetryMs << min(m.failures-1, 5)
	}
	m.goOffline(modeOffline, txtOffline, min(ms, 24*3600*1000))
}

// goOffline stops asking the API until the retry after retryMs (none when 0: a refused key
// stays refused). The street and city are shown and required; a submit that was waiting goes
// through with the address as typed when it is complete, and stops at the first part missing
// when not: an address without street or town cannot be delivered.
func (m *Machine) goOffline(md mode, t text, retryMs int) {
	for c := call(0); c < numCalls; c++ {
		m.cancel(c)
	}
	m.mode = md
	m.manual = true
	m.needConfirm = false
	m.closeList()
	m.list = listNone
	m.setMessage(say(m.cfg.Lang, t, 0, ""), "warning", noField)
	if retryMs > 0 {
		m.retrySeq++
		m.emit(effect{typ: "timer", name: retryTimer, seq: m.retrySeq, ms: retryMs})
	}
	if m.submitWaiting {
		f, ft := m.missing()
		m.acceptTyped(f, ft)
	}
}

// recover asks the API again once the retry is due: what is typed is looked up, and the next
// submit is validated. The street and city the customer typed meanwhile stay.
func (m *Machine) recover() {
	if m.mode != modeOffline {
		return
	}
	m.mode = modeOnline
	if m.msgKind == "warning" && m.msg == say(m.cfg.Lang, txtOffline, 0, "") {
		m.clearMessage()
	}
	m.manual = m.manualChosen || strings.TrimSpace(m.val[FieldStreet]) != "" || strings.TrimSpace(m.val[FieldCity]) != ""
	m.refreshLookup()
}

// acceptTyped hands the address over as typed (or as picked from the register before the
// service went away), flagged unverified, unless f names a field it cannot do without.
func (m *Machine) acceptTyped(f Field, t text) {
	if f != noField {
		m.block(f, t)
		if m.mode != modeOnline {
			m.setMessage(joinText(say(m.cfg.Lang, txtOffline, 0, ""), m.say(t)), "error", f)
		}
		return
	}
	n := m.typedAddr()
	if m.chosen >= 0 {
		n = m.found[m.chosen].fields(m.cfg.Country)
	}
	if !m.commit(n, "", true, false) {
		return
	}
	m.setMessage(say(m.cfg.Lang, txtAcceptedAsTyped, 0, n.label()), "warning", noField)
	m.proceed()
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

func (m *Machine) block(f Field, t text) {
	m.setMessage(m.say(t), "error", f)
	m.focus(f)
	m.submitWaiting = false
}

// proceed lets the shop's form submit: the address is handed over, and whatever the customer
// types next is another address in a session of its own.
func (m *Machine) proceed() {
	m.submitWaiting = false
	m.sessionEnded = true
	m.emit(effect{typ: "proceed"})
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

func (m *Machine) uncommit() {
	m.committed, m.unverified = false, false
	m.emit(effect{typ: "uncommit"})
}

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

// withHint adds how to choose from a list, for keyboards; a touch screen has no arrow keys.
func (m *Machine) withHint(s string) string {
	if m.cfg.Touch {
		return s
	}
	return joinText(s, say(m.cfg.Lang, txtHintKeys, 0, ""))
}

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

// offerAlts offers the candidates of an ambiguous answer (alts), each a whole address, and
// beside them the confirmation: what the customer typed may be right where the register
// reads it several ways (a street at another postcode, the number on another street), and
// they may keep it, flagged for the shop to check, rather than be stopped by the list.
func (m *Machine) offerAlts() {
	m.list, m.listOpen, m.listActive = listAlts, true, -1
	m.needConfirm, m.confirmed = true, false
}

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

// acceptPicked hands over a register address the customer picked, as picked.
func (m *Machine) acceptPicked(n normAddr) {
	m.commit(n, "valid", false, false)
	m.setMessage(say(m.cfg.Lang, txtChosen, 0, n.label()), "info", noField)
	if m.submitWaiting {
		m.proceed()
	}
}

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

func (m *Machine) closeList() { m.listOpen, m.listActive = false, -1 }

func (m *Machine) dropList() {
	m.closeList()
	m.list = listNone
}

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

// issueField maps the API's field of an issue to the input the customer should look at.
func (m *Machine) issueField(is issue) Field {
	switch is.field {
	case "zip":
		return FieldPostcode
	case "address2":
		return FieldAddition
	case "city":
		return FieldCity
	case "address1":
		if is.code == string(adreswijzer.IssueStreetMismatch) {
			return FieldStreet
		}
		return FieldNumber
	}
	return noField
}

func firstIssue(list []issue) issue {
	for _, is := range list {
		if is.severity == "error" {
			return is
		}
	}
	if len(list) > 0 {
		return list[0]
	}
	return issue{}
}

func severityKind(s string) string {
	switch s {
	case "error", "warning", "info":
		return s
	}
	return "warning"
}

// joinText joins sentences with a space, skipping empty ones.
func joinText(a, b string) string {
	a, b = strings.TrimSpace(a), strings.TrimSpace(b)
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + " " + b
}

// query is an URL query under construction. Every byte outside the unreserved set is
// percent-encoded, so typed text can never change the query's structure.
type query string

func (q *query) add(k, v string) {
	b := []byte(*q)
	if len(b) > 0 {
		b = append(b, '&')
	}
	b = appendEscaped(b, k)
	b = append(b, '=')
	b = appendEscaped(b, v)
	*q = query(b)
}

func appendEscaped(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '.', c == '_', c == '~':
			b = append(b, c)
		default:
			b = append(b, '%', "0123456789ABCDEF"[c>>4], "0123456789ABCDEF"[c&0xF])
		}
	}
	return b
}
