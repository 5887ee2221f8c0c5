// Package form is the logic of the embeddable address form: a state machine that takes what
// happens in the page (typing, focus, keys, timers, answers of the API) and returns what the
// page must do (fetch, wait, focus, fill the shop's fields) and what it must show.
//
// It is pure and deterministic — no clock, no network, no DOM, randomness only from the
// reader it is given — so that the same code is tested natively, runs compiled to
// WebAssembly under wazero in tests, and runs in the browser behind a thin shell. The shell
// performs every effect literally; all decisions (when to call the API, which answer still
// counts, when to fail open, what to say) are made here, once.
//
// The rules it keeps, from the interface specification and from what customers complain
// about elsewhere: never block a checkout because the service is slow or down (a fetch that
// takes longer than 1.5 s, a 5xx, a 429 or a network error accepts the address as typed and
// flags it for validation later); never lose what was typed (additions and boxes typed into
// the number field are matched against the register's list); always let the customer type the
// address themselves; debounce and drop out-of-order answers; one sessionId per address,
// shared by its lookups and the one validate at the submit.
package form

import (
	"io"
	"strings"
	"unicode/utf8"

	"github.com/adreswijzer/adreswijzer"
)

// Field is one input of the form.
type Field uint8

const (
	FieldPostcode Field = iota
	FieldNumber
	FieldAddition // NL toevoeging, BE box
	FieldStreet
	FieldCity
	numFields
	noField Field = 255
)

var fieldNames = [numFields]string{"postcode", "number", "addition", "street", "city"}

func (f Field) String() string {
	if f < numFields {
		return fieldNames[f]
	}
	return ""
}

func parseField(s string) Field {
	for i, n := range fieldNames {
		if n == s {
			return Field(i)
		}
	}
	return noField
}

// call is a kind of API request. Each kind has its own debounce timer and at most one
// request whose answer still counts.
type call uint8

const (
	callSuggest call = iota
	callLookup
	callValidate
	numCalls
)

var callNames = [numCalls]string{"suggest", "lookup", "validate"}

// submitTimer names the timer of a submit's budget; retryTimer the wait after a failure.
const (
	submitTimer = "submit"
	retryTimer  = "retry"
)

func parseCall(s string) (call, bool) {
	for i, n := range callNames {
		if n == s {
			return call(i), true
		}
	}
	return 0, false
}

// Timing. The debounce sits in the 100–250 ms range that keeps a type-ahead responsive
// without a request per keystroke; the time-out is the spec's for a person waiting in a form.
// After a failure the API is asked again after a backoff that doubles from RetryMs up to
// MaxRetryMs, or after the Retry-After the API sent.
const (
	DebounceMs = 150
	TimeoutMs  = 1500
	RetryMs    = 2000
	MaxRetryMs = 60000
	// minSuggest is how much of a street must be typed before suggestions are asked for:
	// within one postcode two letters narrow tens of streets to a handful; country-wide the
	// API itself starts at three.
	minSuggestInPostcode = 2
	minSuggestAnywhere   = 3
)

// mode says whether the API is being asked.
type mode uint8

const (
	modeOnline   mode = iota
	modeOffline       // failed open: the address is taken as typed, to be validated later
	modeDisabled      // the credential was refused (401/403): a setup problem of the shop
)

// Config is what the page says about the form.
type Config struct {
	Country adreswijzer.Country
	Lang    adreswijzer.Language
	// Carrier, when set, is passed to lookup and validate so the answers check its limits.
	Carrier adreswijzer.Carrier
	// AllowPoBox accepts a PO box (for invoice addresses).
	AllowPoBox bool
	// Touch: the page is used with a touch screen, where hints about arrow keys mean nothing.
	Touch bool
}

// listSource is what the open list offers.
type listSource uint8

const (
	listNone      listSource = iota
	listAdditions            // the addresses at one number (toevoegingen, boxes)
	listStreets              // street suggestions, under suggestField
	listAlts                 // the suggestions of an ambiguous or invalid validation
)

// Machine is one form on a page. It is not safe for concurrent use; a page runs one event at
// a time.
type Machine struct {
	cfg  Config
	rand io.Reader

	val     [numFields]string
	invalid [numFields]bool
	focused Field

	// session is the sessionId of the address being entered. Lookups, suggestions and the
	// validate that ends them count as one verification when they share it, so it is kept
	// from the first call until the address is handed over at the submit (sessionEnded), or
	// until the customer types another postcode (sessionPC), which is another address: not
	// per lookup, per choice, per language or per retried submit.
	session      string
	sessionEnded bool
	sessionPC    string // the postcode the session's calls were made for, "" before one
	// repick is the extension of the register address chosen before a switch of language,
	// chosen again from the new lookup of repickKey.
	repick    *string
	repickKey string

	nextID   int
	inflight [numCalls]int // id of the request whose answer counts, 0 when none
	sentAt   [numCalls]int
	timeout  [numCalls]int // ms the request in flight was given
	timerSeq [numCalls]int
	armed    [numCalls]bool // a debounce timer is running
	now      int            // time of the event being handled, in ms, from the shell's clock

	lookupKey string       // query of the lookup held in found or awaited
	found     []lookupAddr // the register's addresses at the number
	chosen    int          // index in found of the customer's address, -1 when none
	// lookupNote holds what the lookup said beside its addresses (a corrected street), to
	// repeat with the announcement of the address.
	lookupNote string
	streets    []streetSug
	// suggestField is the input the street suggestions are for: the street, or the Dutch
	// postcode field when a street is typed into it ("Hugo de Gr"); streetNumber the house
	// number typed there after the street, for the number field once a street is chosen.
	suggestField Field
	streetNumber string
	alts         []normAddr
	// alt is the suggestion of an ambiguous or invalid validation the customer picked: a
	// register address, validated as picked at the next submit.
	alt *normAddr

	list       listSource
	listOpen   bool
	listActive int

	mode mode
	// failures counts the calls that failed in a row; the wait before the API is asked again
	// doubles with each. retrySeq tells the retry timer from an older one.
	failures     int
	retrySeq     int
	manual       bool // street and city are typed by the customer
	manualChosen bool // the customer chose to type the whole address: the API is only asked at the end
	needConfirm  bool // the register does not know the address, or reads it several ways; the customer may confirm it
	confirmed    bool
	sentConfirm  bool // the validate in flight carries customerConfirmed
	sentPicked   bool // the validate in flight carries a register address the customer picked
	// corrections are the register's versions of a corrected address: the normalized one
	// first (correctionMatch holds its parts), then every other candidate the answer carried.
	// They are offered beside the customer's own until they choose one.
	corrections     []normAddr
	correctionMatch *matchAddr
	sent            normAddr // the address that validate carries

	committed     bool
	unverified    bool
	submitWaiting bool
	// submitDeadline ends the submit's budget: whatever it still waits for (a lookup typed
	// just before, the validate), the address is taken as typed then, so the customer can
	// always submit within the spec's 1.5 s. submitSeq tells its timer from an older one.
	submitDeadline int
	submitSeq      int

	msg         string
	msgKind     string // error, warning, info
	msgField    Field
	attribution string

	out []effect
}

// New returns a form. rand supplies the session ids (crypto/rand in the browser).
func New(cfg Config, rand io.Reader) *Machine {
	m := &Machine{rand: rand, focused: noField, msgField: noField, chosen: -1, listActive: -1, suggestField: noField}
	m.configure(cfg)
	return m
}

func (m *Machine) configure(cfg Config) {
	if c, ok := adreswijzer.ParseCountry(string(cfg.Country)); ok {
		cfg.Country = c
	} else {
		cfg.Country = adreswijzer.NL
	}
	if l, ok := adreswijzer.ParseLanguage(string(cfg.Lang)); ok {
		cfg.Lang = l
	} else {
		cfg.Lang = adreswijzer.DefaultLanguage
	}
	if k, ok := adreswijzer.ParseCarrier(string(cfg.Carrier)); ok {
		cfg.Carrier = k
	} else {
		cfg.Carrier = ""
	}
	m.cfg = cfg
}

// event is one thing that happened in the page.
type event struct {
	typ    string
	field  Field
	text   string
	key    string
	name   string
	seq    int
	id     int
	status int
	body   string
	err    string
	index  int
	// retryAfter is the answer's Retry-After in seconds, 0 when it had none.
	retryAfter int
	checked    bool
	use        bool
	values     value
	focus      string
	now        int
	cfg        Config
}

func readEvent(v value) event {
	return event{
		typ:    v.get("type").str(),
		field:  parseField(v.get("field").str()),
		text:   v.get("text").str(),
		key:    v.get("key").str(),
		name:   v.get("name").str(),
		seq:    v.get("seq").int(),
		id:     v.get("id").int(),
		status: v.get("status").int(),
		body:   v.get("body").str(),
		err:    v.get("error").str(),
		index:  v.get("index").int(),
		// Read from the answer's header by the shell (CORS exposes it).
		retryAfter: v.get("retryAfter").int(),
		checked:    v.get("checked").boolean(),
		use:        v.get("use").boolean(),
		values:     v.get("values"),
		focus:      v.get("focus").str(),
		now:        v.get("now").int(),
		cfg: Config{
			Country:    adreswijzer.Country(v.get("country").str()),
			Lang:       adreswijzer.Language(v.get("lang").str()),
			Carrier:    adreswijzer.Carrier(v.get("carrier").str()),
			AllowPoBox: v.get("allowPoBox").boolean(),
			Touch:      v.get("touch").boolean(),
		},
	}
}

// HandleJSON runs one event given as JSON and returns the result as JSON:
//
//	{"handled":bool,"effects":[...],"view":{...}}
//
// handled tells the shell to suppress the browser's default for a key (an arrow moving
// through the list, Enter choosing from it). A malformed or unknown event changes nothing and
// returns the current view, so a shell bug cannot break the form; {"type":"render"} is how a
// shell asks for the first view.
//
// Events, each with "now" (ms, the shell's monotonic clock):
//
//	{"type":"input","field":F,"text":S}       F: postcode, number, addition, street, city
//	{"type":"focus","field":F}  {"type":"blur","field":F}
//	{"type":"key","field":F,"key":K}          K: ArrowDown, ArrowUp, Enter, Escape
//	{"type":"choose","index":I}               an option of the list clicked
//	{"type":"timer","name":N,"seq":Q}         a timer effect fired
//	{"type":"response","id":I,"status":C,"body":S,"retryAfter":R} or {"type":"response","id":I,"error":"timeout"|"network"}
//	{"type":"submit"}  {"type":"confirm","checked":B}
//	{"type":"manual"}                         type the address by hand; again: have it looked up
//	{"type":"correction","use":B,"index":I}   the register's version I (true) or the customer's
//	{"type":"config","country":"NL","lang":"nl","carrier":"","allowPoBox":false,"touch":false}
//	{"type":"prefill","values":{"address1":S,"zip":S,…},"focus":K}   what was typed while the
//	    core loaded, keyed as data-fields (the shop's own fields) or by the form's field names
//	    (postcode, number, addition, street, city: its own fields), K the one with the focus
//
// Effects, carried out in order:
//
//	{"type":"fetch","id":I,"method":M,"path":P,"query":Q,"body":S,"timeoutMs":1500}
//	    the shell adds Authorization: Bearer <key> and aborts after timeoutMs
//	{"type":"abort","id":I}                   its answer no longer counts
//	{"type":"timer","name":N,"seq":Q,"ms":D}  replaces the timer of that name
//	{"type":"focus","field":F}                F may also be "confirm" or "correction"
//	{"type":"commit","address":{...},"status":V,"unverified":B,"confirmed":B}
//	{"type":"uncommit"}                       clear what was handed to the shop
//	{"type":"proceed"}                        let the shop's form submit
func (m *Machine) HandleJSON(in []byte) []byte {
	v, err := parseJSON(string(in))
	handled := false
	if err == nil {
		handled = m.handle(readEvent(v))
	}
	return m.result(handled)
}

// ConfigJSON reads a Config from the JSON the shell passes at creation.
func ConfigJSON(in []byte) Config {
	v, _ := parseJSON(string(in))
	return readEvent(v).cfg
}

func (m *Machine) handle(e event) bool {
	m.now = e.now
	switch e.typ {
	case "input":
		if e.field < numFields {
			m.onInput(e.field, e.text)
		}
	case "focus":
		m.onFocus(e.field)
	case "blur":
		m.onBlur(e.field)
	case "key":
		return m.onKey(e.field, e.key)
	case "choose":
		m.pick(e.index)
	case "timer":
		if c, ok := parseCall(e.name); ok && e.seq == m.timerSeq[c] {
			m.onTimer(c)
		} else if e.name == submitTimer && e.seq == m.submitSeq && m.submitWaiting {
			m.goOffline(modeOffline, txtOffline, 0)
		} else if e.name == retryTimer && e.seq == m.retrySeq {
			m.recover()
		}
	case "response":
		m.onResponse(e)
	case "submit":
		m.onSubmit()
	case "manual":
		m.onManual()
	case "confirm":
		m.confirmed = e.checked
	case "correction":
		m.onCorrection(e.use, e.index)
	case "config":
		m.reset(e.cfg)
	case "prefill":
		m.onPrefill(e.values, e.focus)
	}
	return false
}

// reset starts over, for a new country or language chosen in the shop's form. What was
// typed stays: the customer should not type it again because the shop switched country.
// A country the form does not know (an empty data-country, a select left on no option)
// keeps the current one: falling back to NL would throw away a Belgian street and box.
func (m *Machine) reset(cfg Config) {
	vals := m.val
	country := m.cfg.Country
	if _, ok := adreswijzer.ParseCountry(string(cfg.Country)); !ok {
		cfg.Country = country
	}
	for c := call(0); c < numCalls; c++ {
		m.cancel(c)
	}
	if m.committed {
		m.uncommit()
	}
	var repick *string
	if m.chosen >= 0 {
		ext, _ := m.found[m.chosen].extension()
		repick = &ext
	}
	out := m.out
	*m = Machine{rand: m.rand, focused: m.focused, msgField: noField, chosen: -1, listActive: -1, suggestField: noField, out: out, nextID: m.nextID, timerSeq: m.timerSeq, submitSeq: m.submitSeq,
		// Still the same address: its session goes on, and an address chosen from the
		// register is chosen again once the lookup answers in the new language.
		session: m.session, sessionEnded: m.sessionEnded, sessionPC: m.sessionPC, repick: repick, repickKey: m.lookupKey,
		// A service that failed is not asked before its retry is due, in any language.
		mode: m.mode, failures: m.failures, retrySeq: m.retrySeq, manual: m.mode != modeOnline}
	m.configure(cfg)
	m.val = vals
	if m.cfg.Country != country {
		// A postcode, street or city of one country is never valid in the other.
		m.val[FieldStreet], m.val[FieldCity] = "", ""
	}
	m.refreshLookup()
}

// clip bounds text to max characters: what is kept of a field to the API's field length
// (200), a suggest query to its q length (100).
func clip(s string, max int) string {
	if len(s) <= max {
		return s
	}
	n := 0
	for i := range s {
		if n == max {
			return s[:i]
		}
		n++
	}
	return s
}

func (m *Machine) onInput(f Field, text string) {
	text = clip(text, adreswijzer.MaxFieldLength)
	if m.val[f] == text {
		return
	}
	m.val[f] = text
	m.invalid[f] = false
	if m.msgField == f || m.msgKind != "error" {
		m.clearMessage()
	}
	m.addressChanged()
	if f == FieldNumber && numberTooLong(text) {
		// More digits never make it a number: say so now, not "enter a house number" at
		// the submit, and ask nothing the API would refuse.
		m.setMessage(m.say(txtNumberTooLong), "error", FieldNumber)
	}
	if m.mode != modeOnline {
		// Taken as typed from here on: an address picked before the service went away no
		// longer stands once the customer edits it.
		m.chosen = -1
		return
	}
	switch f {
	case FieldPostcode, FieldNumber:
		if m.list == listAlts {
			m.closeList()
		}
		m.chosen = -1
		m.refreshLookup()
		if f == FieldPostcode && m.cfg.Country == adreswijzer.BE {
			m.streets = nil
		}
		if f == FieldPostcode && m.cfg.Country == adreswijzer.NL {
			// A street typed where the postcode goes ("Hugo de Gr"): suggest streets, as in
			// the street field.
			m.askStreets(FieldPostcode)
		}
	case FieldStreet:
		if m.cfg.Country == adreswijzer.BE || m.manual {
			m.chosen = -1
			m.askStreets(FieldStreet)
		}
	case FieldAddition:
		m.filterAdditions()
	}
}

// addressChanged withdraws what was handed to the shop: the address it describes is no
// longer the one in the form.
func (m *Machine) addressChanged() {
	if m.committed {
		m.uncommit()
	}
	m.needConfirm, m.confirmed = false, false
	m.alts, m.alt = nil, nil
	m.corrections, m.correctionMatch = nil, nil
}

func (m *Machine) onFocus(f Field) {
	m.focused = f
	if f < numFields && m.listField() == f && len(m.options()) > 0 && m.selected() < 0 {
		m.listOpen = true
	}
}

func (m *Machine) onBlur(f Field) {
	if m.focused == f {
		m.focused = noField
	}
	if m.listField() == f {
		m.listOpen = false
		m.listActive = -1
	}
	switch f {
	case FieldPostcode:
		if m.list == listStreets && m.suggestField == FieldPostcode {
			m.listOpen, m.listActive = false, -1
		}
		m.checkPostcode()
	case FieldStreet:
		m.splitStreetLine()
		if m.cfg.Country == adreswijzer.BE && m.mode == modeOnline {
			m.refreshLookup()
		}
	case FieldAddition:
		if m.list == listAdditions && m.chosen < 0 && strings.TrimSpace(m.val[FieldAddition]) != "" {
			m.selectTyped()
			m.listOpen = false
		}
	}
}

// checkPostcode shows the printed form of a good postcode and says so at once when it
// cannot be one, rather than after a round trip. A street typed there (NL) is a search, not a
// postcode.
func (m *Machine) checkPostcode() {
	s := m.val[FieldPostcode]
	if strings.TrimSpace(s) == "" || m.streetQuery(FieldPostcode) != "" {
		return
	}
	if _, err := adreswijzer.NormalizePostcode(m.cfg.Country, s); err != nil {
		m.invalid[FieldPostcode] = true
		t := txtPostcodeFormat
		if m.cfg.Country == adreswijzer.BE {
			t = txtPostcodeFormatBE
		}
		m.setMessage(say(m.cfg.Lang, t, 0, ""), "error", FieldPostcode)
		return
	}
	m.val[FieldPostcode] = adreswijzer.FormatPostcode(m.cfg.Country, s)
}

// splitStreetLine moves a house number typed into the street field ("Kerkstraat 12", or a
// browser's autofill of address-line1) into the number field when that is still empty, and a
// toevoeging or box typed with it into the addition field, so none of it is lost.
func (m *Machine) splitStreetLine() {
	if strings.TrimSpace(m.val[FieldNumber]) != "" || strings.TrimSpace(m.val[FieldStreet]) == "" {
		return
	}
	line := adreswijzer.ParseAddressLine(m.cfg.Country, m.val[FieldStreet])
	if !line.HasNumber || line.PoBox || line.Street == "" {
		return
	}
	h := line.Number
	number := itoa(h.Number) + h.Suffix
	switch {
	case h.Unit == "":
	case strings.TrimSpace(m.val[FieldAddition]) == "":
		m.val[FieldAddition] = h.Unit
	default:
		number += "-" + h.Unit
	}
	m.val[FieldStreet], m.val[FieldNumber] = line.Street, number
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	neg := n < 0
	if neg {
		n = -n
	}
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}

// onManual switches to typing the whole address by hand, and back: the way back has the
// register look the address up again from what is typed.
func (m *Machine) onManual() {
	if m.mode != modeOnline {
		return
	}
	if m.manualChosen {
		m.manualChosen, m.manual = false, false
		m.clearMessage()
		m.focus(FieldPostcode)
		m.refreshLookup()
		return
	}
	m.manualChosen, m.manual = true, true
	m.cancel(callLookup)
	m.cancel(callSuggest)
	m.closeList()
	m.list = listNone
	m.chosen = -1
	m.setMessage(say(m.cfg.Lang, txtManualHint, 0, ""), "info", noField)
	m.focus(m.firstEmpty(FieldStreet))
}

// onPrefill takes over what the customer typed into the shop's own fields while the core was
// loading (they are shown until it runs), so that nothing typed is lost when the form takes
// their place, and the focus goes on in the field that takes the place of the one that had
// it. keys are data-fields keys; the street line is split as a browser's autofill of it is.
func (m *Machine) onPrefill(v value, focus string) {
	get := func(k string) string { return strings.TrimSpace(v.get(k).str()) }
	set := func(f Field, s string) {
		if s != "" && m.val[f] == "" {
			m.val[f] = clip(s, adreswijzer.MaxFieldLength)
		}
	}
	// The form's own fields, typed before the core was there.
	for f := Field(0); f < numFields; f++ {
		set(f, get(f.String()))
	}
	set(FieldPostcode, get("zip"))
	set(FieldCity, get("city"))
	set(FieldAddition, get("address2"))
	lineNumber := false
	if street, number := get("street"), get("houseNumber"); street != "" || number != "" {
		set(FieldStreet, street)
		set(FieldNumber, strings.TrimSpace(number+" "+get("houseNumberAddition")))
	} else if line := get("address1"); line != "" && m.val[FieldStreet] == "" && m.val[FieldNumber] == "" {
		set(FieldStreet, line)
		m.splitStreetLine()
		lineNumber = m.val[FieldNumber] != ""
	}
	f := parseField(focus)
	switch focus {
	case "zip":
		f = FieldPostcode
	case "city":
		f = FieldCity
	case "address2":
		f = FieldAddition
	case "street":
		f = FieldStreet
	case "houseNumber", "houseNumberAddition":
		f = FieldNumber
	case "address1":
		// Typing "Kerkstraat 1" goes on in the number ("12"); a line without a number yet
		// goes on in the street.
		f = FieldStreet
		if lineNumber {
			f = FieldNumber
		}
	}
	if f != FieldPostcode {
		m.checkPostcode() // left behind, as on a blur
	}
	if f != noField {
		m.focused = f
		m.focus(f)
	}
	if m.mode == modeOnline {
		m.refreshLookup()
		switch {
		case f == FieldStreet && m.cfg.Country == adreswijzer.BE:
			m.askStreets(FieldStreet)
		case f == FieldPostcode && m.cfg.Country == adreswijzer.NL:
			m.askStreets(FieldPostcode)
		}
	}
}

// firstEmpty is the first empty field of street and city after f, or f.
func (m *Machine) firstEmpty(f Field) Field {
	for _, g := range []Field{FieldStreet, FieldCity} {
		if strings.TrimSpace(m.val[g]) == "" {
			return g
		}
	}
	return f
}

// numberTooLong reports whether the first run of digits typed as a house number is longer
// than a house number can be (the API's 1 to 6 digits): the parser then finds no number at
// all, and the customer would be told to type the number they just typed.
func numberTooLong(s string) bool {
	n := 0
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] >= '0' && s[i] <= '9':
			n++
		case n > 0:
			return n > adreswijzer.MaxNumberDigits
		}
	}
	return n > adreswijzer.MaxNumberDigits
}

// say is a text of the form in its language, with the count the text speaks of.
func (m *Machine) say(t text) string {
	n := 0
	if t == txtNumberTooLong {
		n = adreswijzer.MaxNumberDigits
	}
	return say(m.cfg.Lang, t, n, "")
}

func (m *Machine) setMessage(s, kind string, f Field) {
	m.msg, m.msgKind, m.msgField = s, kind, f
	if f < numFields && kind == "error" {
		m.invalid[f] = true
	}
}

func (m *Machine) clearMessage() { m.msg, m.msgKind, m.msgField = "", "", noField }

// runeLen counts characters, for minimum lengths people think of in letters.
func runeLen(s string) int { return utf8.RuneCountInString(strings.TrimSpace(s)) }
