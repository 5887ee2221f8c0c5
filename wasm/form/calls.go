package form

import (
	"io"

	"github.com/adreswijzer/adreswijzer"
)

// What the machine asks of the shell (effects) and of the API: calls debounced, one answer
// that counts per kind of call, and the session the calls of one address share.

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

// emit queues an effect for the shell, which performs an event's effects in order.
func (m *Machine) emit(e effect) { m.out = append(m.out, e) }

// focus asks the shell to move the focus to input f.
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

// schedule starts the debounce timer of calls of kind c again: a timer started before no
// longer counts when it fires.
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

// pending reports whether a call of kind c waits for its timer or for its answer.
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

// onTimer sends the call whose debounce timer fired.
func (m *Machine) onTimer(c call) {
	m.armed[c] = false
	switch c {
	case callLookup:
		m.sendLookup()
	case callSuggest:
		m.sendSuggest()
	}
}

// onResponse takes an answer of the API: one no longer awaited is dropped, a failure or an
// answer that cannot be read fails open, a refused credential disables the form, and the
// rest goes to the handler of its kind of call.
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

// query is an URL query under construction. Every byte outside the unreserved set is
// percent-encoded, so typed text can never change the query's structure.
type query string

// add appends the parameter k=v, both percent-encoded.
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

// appendEscaped appends s to b with every byte outside the unreserved set percent-encoded.
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
