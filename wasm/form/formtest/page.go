//go:build !wasip1

package formtest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"testing"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/worker/openapi/openapitest"
)

// Core is one form of the core under test, driven with JSON events.
type Core interface {
	Event(tb testing.TB, event []byte) []byte
}

// NewCore creates a form from its JSON config ({"country":"NL","lang":"nl"}).
type NewCore func(tb testing.TB, config []byte) Core

// Result is what the core answers to an event.
type Result struct {
	Handled bool     `json:"handled"`
	Effects []Effect `json:"effects"`
	View    View     `json:"view"`
}

// Effect is one instruction to the shell.
type Effect struct {
	Type       string   `json:"type"`
	ID         int      `json:"id"`
	Method     string   `json:"method"`
	Path       string   `json:"path"`
	Query      string   `json:"query"`
	Body       string   `json:"body"`
	TimeoutMs  int      `json:"timeoutMs"`
	Name       string   `json:"name"`
	Seq        int      `json:"seq"`
	Ms         int      `json:"ms"`
	Field      string   `json:"field"`
	Address    *Address `json:"address"`
	Status     string   `json:"status"`
	Unverified bool     `json:"unverified"`
	Confirmed  bool     `json:"confirmed"`
}

// Address is what a commit hands to the shop.
type Address struct {
	Address1            string  `json:"address1"`
	Address2            *string `json:"address2"`
	Zip                 string  `json:"zip"`
	City                string  `json:"city"`
	CountryCode         string  `json:"countryCode"`
	Street              string  `json:"street"`
	HouseNumber         string  `json:"houseNumber"`
	HouseNumberAddition string  `json:"houseNumberAddition"`
}

// Commit is a commit effect.
type Commit struct {
	Address    Address
	Status     string
	Unverified bool
	Confirmed  bool
}

// View is what the shell renders.
type View struct {
	Country      string      `json:"country"`
	Lang         string      `json:"lang"`
	Title        string      `json:"title"`
	State        string      `json:"state"`
	Busy         bool        `json:"busy"`
	Fields       []FieldView `json:"fields"`
	List         *ListView   `json:"list"`
	Message      string      `json:"message"`
	MessageKind  string      `json:"messageKind"`
	MessageField string      `json:"messageField"`
	Manual       struct {
		Visible bool   `json:"visible"`
		Label   string `json:"label"`
		Back    bool   `json:"back"`
	} `json:"manual"`
	Confirm struct {
		Visible bool   `json:"visible"`
		Label   string `json:"label"`
		Checked bool   `json:"checked"`
	} `json:"confirm"`
	Correction struct {
		Visible bool     `json:"visible"`
		Text    string   `json:"text"`
		Options []string `json:"options"`
		Keep    string   `json:"keep"`
	} `json:"correction"`
	Committed   bool   `json:"committed"`
	Unverified  bool   `json:"unverified"`
	Attribution string `json:"attribution"`
}

// FieldView is one input.
type FieldView struct {
	Name         string `json:"name"`
	Label        string `json:"label"`
	Value        string `json:"value"`
	Visible      bool   `json:"visible"`
	ReadOnly     bool   `json:"readOnly"`
	Required     bool   `json:"required"`
	Invalid      bool   `json:"invalid"`
	Autocomplete string `json:"autocomplete"`
	InputMode    string `json:"inputMode"`
	Combo        bool   `json:"combo"`
}

// ListView is the listbox on offer.
type ListView struct {
	Field    string   `json:"field"`
	Label    string   `json:"label"`
	Open     bool     `json:"open"`
	Active   int      `json:"active"`
	Selected int      `json:"selected"`
	Options  []string `json:"options"`
}

// Request is one fetch the core asked for, as performed.
type Request struct {
	ID     int
	Method string
	Path   string
	Query  url.Values
	Body   map[string]any
	At     int // ms on the page's clock
	// Answer is the API's answer body, "" when a fault replaced it.
	Answer string
}

// Page plays the web component's shell around a core: a clock, the debounce timers, the
// fetches (performed against the real worker handler, each exchange checked against
// openapi.json) with the shell's 1.5 s abort, and the shop's side (commits, submit). Time is
// simulated, so journeys with time-outs run in microseconds and always alike.
type Page struct {
	tb    testing.TB
	core  Core
	api   http.Handler
	check *openapitest.Validator

	Now      int
	View     View
	Commits  []Commit
	Uncommit int
	Proceeds int
	Focus    string
	Requests []Request

	// Latency is how long the API takes to answer a request; 20 ms when nil.
	Latency func(Request) int
	// Fault, when it returns a status or an error ("network"), replaces the API's answer;
	// RetryAfter is the Retry-After (seconds) sent with a faulted status, none when 0.
	Fault      func(Request) (status int, errText string)
	RetryAfter int
	// DeliverAborted hands the core answers it aborted, as a shell whose abort came too late
	// would: the core itself must then drop them.
	DeliverAborted bool

	timers  map[string]timer
	fetches []*fetch
}

type timer struct{ seq, due int }

type fetch struct {
	id         int
	due        int
	status     int
	body       string
	errText    string
	retryAfter int
	aborted    bool
}

// NewPage starts a form with the config and renders it once.
func NewPage(tb testing.TB, newCore NewCore, api http.Handler, config map[string]any) *Page {
	tb.Helper()
	cfg, err := json.Marshal(config)
	if err != nil {
		tb.Fatal(err)
	}
	p := &Page{tb: tb, core: newCore(tb, cfg), api: api, check: openapitest.New(tb), timers: map[string]timer{}}
	p.send(map[string]any{"type": "render"})
	return p
}

// send runs one event and carries out its effects, as the shell does.
func (p *Page) send(ev map[string]any) Result {
	p.tb.Helper()
	ev["now"] = p.Now
	in, err := json.Marshal(ev)
	if err != nil {
		p.tb.Fatal(err)
	}
	out := p.core.Event(p.tb, in)
	var r Result
	if err := json.Unmarshal(out, &r); err != nil {
		p.tb.Fatalf("event %s: result is not JSON: %v\n%s", in, err, out)
	}
	p.View = r.View
	for _, e := range r.Effects {
		p.apply(e)
	}
	return r
}

func (p *Page) apply(e Effect) {
	p.tb.Helper()
	switch e.Type {
	case "timer":
		p.timers[e.Name] = timer{seq: e.Seq, due: p.Now + e.Ms}
	case "fetch":
		p.perform(e)
	case "abort":
		for _, f := range p.fetches {
			if f.id == e.ID {
				f.aborted = true
			}
		}
	case "focus":
		p.Focus = e.Field
	case "commit":
		if e.Address == nil {
			p.tb.Fatalf("commit without an address")
		}
		p.Commits = append(p.Commits, Commit{Address: *e.Address, Status: e.Status, Unverified: e.Unverified, Confirmed: e.Confirmed})
	case "uncommit":
		p.Uncommit++
	case "proceed":
		p.Proceeds++
	default:
		p.tb.Fatalf("unknown effect %q", e.Type)
	}
}

// perform sends the request to the worker now and schedules its answer; an answer slower
// than the effect's time-out arrives as the shell's abort would report it.
func (p *Page) perform(e Effect) {
	p.tb.Helper()
	// The spec's 1.5 s for a person waiting; a request made while a submit waits gets what
	// is left of the submit's 1.5 s.
	if e.TimeoutMs <= 0 || e.TimeoutMs > 1500 {
		p.tb.Errorf("fetch %s with time-out %d ms, want at most the spec's 1500 ms for a person waiting", e.Path, e.TimeoutMs)
	}
	q, err := url.ParseQuery(e.Query)
	if err != nil {
		p.tb.Fatalf("fetch %s: query %q: %v", e.Path, e.Query, err)
	}
	req := Request{ID: e.ID, Method: e.Method, Path: e.Path, Query: q, At: p.Now}
	if e.Body != "" {
		if err := json.Unmarshal([]byte(e.Body), &req.Body); err != nil {
			p.tb.Fatalf("fetch %s: body is not JSON: %v", e.Path, err)
		}
	}
	p.Requests = append(p.Requests, req)
	f := &fetch{id: e.ID}
	latency := 20
	if p.Latency != nil {
		latency = p.Latency(req)
	}
	status, errText := 0, ""
	if p.Fault != nil {
		status, errText = p.Fault(req)
	}
	switch {
	case latency > e.TimeoutMs:
		f.due, f.errText = p.Now+e.TimeoutMs, "timeout"
	case errText != "":
		f.due, f.errText = p.Now+latency, errText
	case status != 0:
		f.due, f.status, f.retryAfter = p.Now+latency, status, p.RetryAfter
		f.body = `{"error":{"code":"SERVICE_UNAVAILABLE","message":"unavailable"}}`
	default:
		f.due = p.Now + latency
		target := e.Path
		if e.Query != "" {
			target += "?" + e.Query
		}
		hr := httptest.NewRequest(e.Method, target, bytes.NewReader([]byte(e.Body)))
		if e.Body != "" {
			hr.Header.Set("Content-Type", "application/json")
		}
		rec := httptest.NewRecorder()
		p.api.ServeHTTP(rec, hr)
		body := rec.Body.Bytes()
		checked := httptest.NewRequest(e.Method, target, bytes.NewReader([]byte(e.Body)))
		checked.Header = hr.Header.Clone()
		p.check.Check(p.tb, checked, rec.Code, rec.Header(), body)
		f.status, f.body = rec.Code, string(body)
		p.Requests[len(p.Requests)-1].Answer = f.body
	}
	p.fetches = append(p.fetches, f)
}

// Advance lets ms pass, firing timers and delivering answers in time order.
func (p *Page) Advance(ms int) {
	p.tb.Helper()
	end := p.Now + ms
	for {
		name, t, okT := p.nextTimer()
		fi, okF := p.nextFetch()
		switch {
		case okT && t.due <= end && (!okF || t.due <= p.fetches[fi].due):
			delete(p.timers, name)
			p.Now = max(p.Now, t.due)
			p.send(map[string]any{"type": "timer", "name": name, "seq": t.seq})
		case okF && p.fetches[fi].due <= end:
			f := p.fetches[fi]
			p.fetches = slices.Delete(p.fetches, fi, fi+1)
			p.Now = max(p.Now, f.due)
			if f.aborted && !p.DeliverAborted {
				continue
			}
			ev := map[string]any{"type": "response", "id": f.id}
			if f.errText != "" {
				ev["error"] = f.errText
			} else {
				ev["status"], ev["body"] = f.status, f.body
				if f.retryAfter > 0 {
					ev["retryAfter"] = f.retryAfter
				}
			}
			p.send(ev)
		default:
			p.Now = end
			return
		}
	}
}

func (p *Page) nextTimer() (string, timer, bool) {
	best, bt, ok := "", timer{}, false
	for name, t := range p.timers {
		if !ok || t.due < bt.due || t.due == bt.due && name < best {
			best, bt, ok = name, t, true
		}
	}
	return best, bt, ok
}

func (p *Page) nextFetch() (int, bool) {
	best := -1
	for i, f := range p.fetches {
		if best < 0 || f.due < p.fetches[best].due {
			best = i
		}
	}
	return best, best >= 0
}

// Settle waits until no timer runs and no answer is outstanding. The retry after a failure
// does not count: it is the next attempt, seconds away, not part of what happens now; tests
// of recovery advance the clock to it.
func (p *Page) Settle() {
	p.tb.Helper()
	busy := func() bool {
		for name := range p.timers {
			if name != "retry" {
				return true
			}
		}
		return len(p.fetches) > 0
	}
	for i := 0; i < 100 && busy(); i++ {
		p.Advance(100)
	}
	if busy() {
		p.tb.Fatalf("the form does not settle: timers %v, %d fetches outstanding", p.timers, len(p.fetches))
	}
}

// RetryDue reports the page-clock time the retry after a failure is due, and whether one is.
func (p *Page) RetryDue() (int, bool) {
	t, ok := p.timers["retry"]
	return t.due, ok
}

// Type focuses the field and types text into it a character at a time, 40 ms apart, as a
// quick typist does; timers and answers due meanwhile are handled.
func (p *Page) Type(field, text string) {
	p.tb.Helper()
	p.FocusField(field)
	value := p.Field(field).Value
	for _, r := range text {
		value += string(r)
		p.send(map[string]any{"type": "input", "field": field, "text": value})
		p.Advance(40)
	}
}

// Fill replaces a field's value in one input event, as pasting or autofill does.
func (p *Page) Fill(field, text string) {
	p.tb.Helper()
	p.FocusField(field)
	p.send(map[string]any{"type": "input", "field": field, "text": text})
}

// Clear empties a field.
func (p *Page) Clear(field string) { p.Fill(field, "") }

// FocusField moves the focus, blurring the field that had it.
func (p *Page) FocusField(field string) {
	p.tb.Helper()
	if p.Focus == field {
		return
	}
	if p.Focus != "" {
		p.send(map[string]any{"type": "blur", "field": p.Focus})
	}
	p.Focus = field
	p.send(map[string]any{"type": "focus", "field": field})
}

// Blur takes the focus out of the form.
func (p *Page) Blur() {
	p.tb.Helper()
	if p.Focus != "" {
		f := p.Focus
		p.Focus = ""
		p.send(map[string]any{"type": "blur", "field": f})
	}
}

// Key presses a key in the focused field and reports whether the core took it.
func (p *Page) Key(key string) bool {
	p.tb.Helper()
	return p.send(map[string]any{"type": "key", "field": p.Focus, "key": key}).Handled
}

// Choose clicks an option of the list.
func (p *Page) Choose(i int) {
	p.tb.Helper()
	p.send(map[string]any{"type": "choose", "index": i})
}

// Submit submits the shop's form.
func (p *Page) Submit() {
	p.tb.Helper()
	p.send(map[string]any{"type": "submit"})
}

// SubmitAndWait submits the shop's form and waits until the form has settled: the address
// is checked at the submit.
func (p *Page) SubmitAndWait() {
	p.tb.Helper()
	p.Submit()
	p.Settle()
}

// Manual clicks "enter the address myself".
func (p *Page) Manual() {
	p.tb.Helper()
	p.send(map[string]any{"type": "manual"})
}

// Confirm ticks or unticks the confirmation.
func (p *Page) Confirm(checked bool) {
	p.tb.Helper()
	p.send(map[string]any{"type": "confirm", "checked": checked})
}

// Prefill hands the form what was typed into the shop's own fields while it loaded, keyed as
// data-fields is, and the key of the one that had the focus.
func (p *Page) Prefill(values map[string]string, focus string) {
	p.tb.Helper()
	p.send(map[string]any{"type": "prefill", "values": values, "focus": focus})
}

// Correction answers the offer of the register's version of a corrected address: use the
// first (true) or keep what was typed.
func (p *Page) Correction(use bool) {
	p.tb.Helper()
	p.send(map[string]any{"type": "correction", "use": use, "index": 0})
}

// UseCorrection picks the register's version i of those on offer.
func (p *Page) UseCorrection(i int) {
	p.tb.Helper()
	p.send(map[string]any{"type": "correction", "use": true, "index": i})
}

// Config switches country or language.
func (p *Page) Config(cfg map[string]any) {
	p.tb.Helper()
	ev := map[string]any{"type": "config"}
	for k, v := range cfg {
		ev[k] = v
	}
	p.send(ev)
}

// Field returns the view of one input, failing when the view has none.
func (p *Page) Field(name string) FieldView {
	p.tb.Helper()
	for _, f := range p.View.Fields {
		if f.Name == name {
			return f
		}
	}
	p.tb.Fatalf("the view has no field %q", name)
	return FieldView{}
}

// Options lists the options on offer, nil when no list is.
func (p *Page) Options() []string {
	if p.View.List == nil {
		return nil
	}
	return p.View.List.Options
}

// Calls returns the requests made to a path.
func (p *Page) Calls(path string) []Request {
	var out []Request
	for _, r := range p.Requests {
		if r.Path == path {
			out = append(out, r)
		}
	}
	return out
}

// LastCommit returns the latest commit, failing when there is none.
func (p *Page) LastCommit() Commit {
	p.tb.Helper()
	if len(p.Commits) == 0 {
		p.tb.Fatalf("nothing was committed; message %q", p.View.Message)
	}
	return p.Commits[len(p.Commits)-1]
}

// SessionOf returns the sessionId a request carried.
func SessionOf(r Request) string {
	if r.Body != nil {
		s, _ := r.Body["sessionId"].(string)
		return s
	}
	return r.Query.Get("sessionId")
}

// CheckSessions fails unless every request carried a well-formed sessionId.
func (p *Page) CheckSessions() {
	p.tb.Helper()
	for _, r := range p.Requests {
		if id := SessionOf(r); !adreswijzer.ValidSessionID(id) {
			p.tb.Errorf("%s %s carries sessionId %q, not ^[\\w.:-]{1,64}$", r.Method, r.Path, id)
		}
	}
}
