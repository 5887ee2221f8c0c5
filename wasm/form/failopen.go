package form

import "strings"

// Failing open: when the API is slow, fails or refuses the credential, the address is taken
// as typed; the API is asked again once it may answer.

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
