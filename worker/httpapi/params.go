package httpapi

import (
	"unicode/utf8"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/internal/query"
	"github.com/adreswijzer/adreswijzer/worker/messages"
)

// kind is what a parameter was given as. A query parameter is always text; a JSON member
// may be anything, and openapi.json says which kinds each member takes.
type kind uint8

const (
	absent kind = iota
	text
	null
	boolean
	other // number, object or array
)

// value is one parameter as the request gave it, from the query or a JSON member, before
// any check.
type value struct {
	kind kind
	s    string // the text, or "true"/"false" for a boolean
}

func (v value) isText() bool { return v.kind == text }

// readQuery hands each parameter of a query to set, in their order; the query is read as
// url.ParseQuery reads it, without the map. set keeps the first value of a name
// (keepFirst), as url.Values.Get has it. It is handed the names and values rather than
// asked where to keep them, so that the input it fills stays on the request's stack.
func readQuery(raw string, set func(name, s string)) {
	var q query.Values
	q.Parse(raw)
	for _, p := range q.All() {
		set(p.Key, p.Value)
	}
}

// keepFirst keeps s as the text of a route's parameter (v, nil for a parameter the route
// does not have) unless an earlier one of the same name came first.
func keepFirst(v *value, s string) {
	if v != nil && v.kind == absent {
		*v = value{kind: text, s: s}
	}
}

// fault is the first thing wrong with a request's parameters: which one (its wire name) and
// how. A 422 names it, never what it held.
type fault struct {
	param   string
	problem messages.Problem
	max     int
}

// check collects the first fault while the parameters are read in the order openapi.json
// lists them, so a request with several faults always names the same one.
type check struct {
	// lang is the language of the answer's error texts: the lang parameter when it is one of
	// the four, English otherwise, as the document's error messages are.
	lang adreswijzer.Language
	bad  *fault
}

func newCheck(lang value) check {
	c := check{lang: adreswijzer.LangEN}
	if l, ok := exactLanguage(lang); ok {
		c.lang = l
	}
	return c
}

func (c *check) fail(param string, p messages.Problem, max int) {
	if c.bad == nil {
		c.bad = &fault{param: param, problem: p, max: max}
	}
}

// required is a text parameter with minLength 1: empty counts as missing.
func (c *check) required(param string, v value, max int) string {
	switch {
	case v.kind == absent || (v.isText() && v.s == ""):
		c.fail(param, messages.Missing, 0)
	case !v.isText():
		c.fail(param, messages.Malformed, 0)
	case tooLong(v.s, max):
		c.fail(param, messages.TooLong, max)
	}
	return v.s
}

// present is a required text member that may be empty (validate's address1 and zip: an
// empty one is judged, not rejected).
func (c *check) present(param string, v value, max int) string {
	switch {
	case v.kind == absent:
		c.fail(param, messages.Missing, 0)
	case !v.isText():
		c.fail(param, messages.Malformed, 0)
	case tooLong(v.s, max):
		c.fail(param, messages.TooLong, max)
	}
	return v.s
}

// optional is a text parameter that may be left out (and, when nullable, be null).
func (c *check) optional(param string, v value, max int, nullable bool) *string {
	switch {
	case v.kind == absent || (nullable && v.kind == null):
		return nil
	case !v.isText():
		c.fail(param, messages.Malformed, 0)
	case tooLong(v.s, max):
		c.fail(param, messages.TooLong, max)
	}
	s := v.s
	return &s
}

// country is a required code of exactly two characters, any letter case.
func (c *check) country(param string, v value) string {
	switch {
	case v.kind == absent || (v.isText() && v.s == ""):
		c.fail(param, messages.Missing, 0)
	case !v.isText() || utf8.RuneCountInString(v.s) != 2:
		c.fail(param, messages.Malformed, 0)
	}
	return v.s
}

// pathCountry is the lower-case country of /v1/{country}/lookup (^[a-z]{2}$).
func (c *check) pathCountry(s string) {
	if s == "" {
		c.fail("country", messages.Missing, 0)
		return
	}
	if len(s) != 2 || s[0] < 'a' || s[0] > 'z' || s[1] < 'a' || s[1] > 'z' {
		c.fail("country", messages.Malformed, 0)
	}
}

// number is a required house number of 1 to 6 ASCII digits (^\d{1,6}$).
func (c *check) number(param string, v value) int {
	switch {
	case v.kind == absent || (v.isText() && v.s == ""):
		c.fail(param, messages.Missing, 0)
		return 0
	case !v.isText() || len(v.s) > adreswijzer.MaxNumberDigits:
		c.fail(param, messages.Malformed, 0)
		return 0
	}
	n := 0
	for i := 0; i < len(v.s); i++ {
		d := v.s[i]
		if d < '0' || d > '9' {
			c.fail(param, messages.Malformed, 0)
			return 0
		}
		n = n*10 + int(d-'0')
	}
	return n
}

// language is the optional lang parameter; only the enum's exact values pass.
func (c *check) language(v value) adreswijzer.Language {
	if v.kind == absent {
		return ""
	}
	l, ok := exactLanguage(v)
	if !ok {
		c.fail("lang", messages.Malformed, 0)
	}
	return l
}

func exactLanguage(v value) (adreswijzer.Language, bool) {
	if !v.isText() {
		return "", false
	}
	l, ok := adreswijzer.ParseLanguage(v.s)
	return l, ok && string(l) == v.s
}

// carrier is the optional carrier parameter; only the enum's exact values pass.
func (c *check) carrier(v value) adreswijzer.Carrier {
	if v.kind == absent {
		return ""
	}
	k, ok := adreswijzer.ParseCarrier(v.s)
	if !v.isText() || !ok || string(k) != v.s {
		c.fail("carrier", messages.Malformed, 0)
		return ""
	}
	return k
}

// session is the optional sessionId. The worker does not use it (the gateway counts by
// it), but a malformed one is refused here as well, so a request reaching the worker
// directly is judged as through the gateway.
func (c *check) session(v value) string {
	if v.kind == absent {
		return ""
	}
	if !v.isText() || !adreswijzer.ValidSessionID(v.s) {
		c.fail("sessionId", messages.Malformed, 0)
		return ""
	}
	return v.s
}

// flag is an optional boolean member.
func (c *check) flag(param string, v value) bool {
	switch v.kind {
	case absent:
		return false
	case boolean:
		return v.s == "true"
	}
	c.fail(param, messages.Malformed, 0)
	return false
}

// tooLong counts characters as JSON Schema's maxLength does: code points, not bytes.
func tooLong(s string, max int) bool {
	return len(s) > max && utf8.RuneCountInString(s) > max
}
