package form

import (
	"errors"
	"strconv"
	"unicode/utf8"
)

// The form core reads events and API answers and writes effects as JSON, but encoding/json
// would add a megabyte (a third of the gzipped download) to the WebAssembly build through
// reflection. The subset here is all the core needs: a parser into a small tree and an
// appending writer. Both are cross-checked against encoding/json in the tests.

// kind of a JSON value.
type kind uint8

const (
	kindNull kind = iota
	kindBool
	kindNumber
	kindString
	kindArray
	kindObject
)

// value is a parsed JSON value. Numbers keep their text so that integers of any size round
// trip and the parser needs no float formatting.
type value struct {
	kind  kind
	b     bool
	text  string // number text or decoded string
	items []value
	keys  []string // object keys, parallel to items
}

// maxDepth bounds nesting: API answers nest four levels; anything deeper is not ours.
const maxDepth = 32

var errJSON = errors.New("malformed JSON")

// parseJSON parses one JSON document. Duplicate keys keep the last value, as encoding/json
// does.
func parseJSON(s string) (value, error) {
	p := parser{s: s}
	v, err := p.value(0)
	if err != nil {
		return value{}, err
	}
	p.space()
	if p.i != len(p.s) {
		return value{}, errJSON
	}
	return v, nil
}

type parser struct {
	s string
	i int
}

func (p *parser) space() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *parser) value(depth int) (value, error) {
	if depth > maxDepth {
		return value{}, errJSON
	}
	p.space()
	if p.i >= len(p.s) {
		return value{}, errJSON
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		s, err := p.str()
		return value{kind: kindString, text: s}, err
	case c == 't':
		return value{kind: kindBool, b: true}, p.literal("true")
	case c == 'f':
		return value{kind: kindBool}, p.literal("false")
	case c == 'n':
		return value{}, p.literal("null")
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	}
	return value{}, errJSON
}

func (p *parser) literal(word string) error {
	if len(p.s)-p.i < len(word) || p.s[p.i:p.i+len(word)] != word {
		return errJSON
	}
	p.i += len(word)
	return nil
}

func (p *parser) object(depth int) (value, error) {
	v := value{kind: kindObject}
	p.i++ // {
	p.space()
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		return v, nil
	}
	for {
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != '"' {
			return value{}, errJSON
		}
		k, err := p.str()
		if err != nil {
			return value{}, err
		}
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return value{}, errJSON
		}
		p.i++
		item, err := p.value(depth + 1)
		if err != nil {
			return value{}, err
		}
		if j := v.index(k); j >= 0 {
			v.items[j] = item
		} else {
			v.keys = append(v.keys, k)
			v.items = append(v.items, item)
		}
		p.space()
		if p.i >= len(p.s) {
			return value{}, errJSON
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			return v, nil
		default:
			return value{}, errJSON
		}
	}
}

func (p *parser) array(depth int) (value, error) {
	v := value{kind: kindArray}
	p.i++ // [
	p.space()
	if p.i < len(p.s) && p.s[p.i] == ']' {
		p.i++
		return v, nil
	}
	for {
		item, err := p.value(depth + 1)
		if err != nil {
			return value{}, err
		}
		v.items = append(v.items, item)
		p.space()
		if p.i >= len(p.s) {
			return value{}, errJSON
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case ']':
			p.i++
			return v, nil
		default:
			return value{}, errJSON
		}
	}
}

// number accepts exactly JSON's grammar: -?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?
func (p *parser) number() (value, error) {
	start := p.i
	if p.s[p.i] == '-' {
		p.i++
	}
	switch {
	case p.i < len(p.s) && p.s[p.i] == '0':
		p.i++
	case p.i < len(p.s) && p.s[p.i] >= '1' && p.s[p.i] <= '9':
		p.digits()
	default:
		return value{}, errJSON
	}
	if p.i < len(p.s) && p.s[p.i] == '.' {
		p.i++
		if !p.digits() {
			return value{}, errJSON
		}
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		p.i++
		if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
			p.i++
		}
		if !p.digits() {
			return value{}, errJSON
		}
	}
	return value{kind: kindNumber, text: p.s[start:p.i]}, nil
}

func (p *parser) digits() bool {
	start := p.i
	for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
		p.i++
	}
	return p.i > start
}

// str reads a string literal. Invalid UTF-8 and lone surrogates become U+FFFD, as in
// encoding/json, so that what the core passes on is always valid text.
func (p *parser) str() (string, error) {
	p.i++ // "
	start := p.i
	// Fast path: no escapes and plain ASCII or valid UTF-8.
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c == '"' {
			s := p.s[start:p.i]
			p.i++
			if utf8.ValidString(s) {
				return s, nil
			}
			return string([]rune(s)), nil // replaces invalid bytes with U+FFFD
		}
		if c == '\\' || c < 0x20 {
			break
		}
		p.i++
	}
	b := []byte(p.s[start:p.i])
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			if utf8.Valid(b) {
				return string(b), nil
			}
			return string([]rune(string(b))), nil
		case c < 0x20:
			return "", errJSON
		case c != '\\':
			b = append(b, c)
			p.i++
			continue
		}
		p.i++ // backslash
		if p.i >= len(p.s) {
			return "", errJSON
		}
		e := p.s[p.i]
		p.i++
		switch e {
		case '"', '\\', '/':
			b = append(b, e)
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r, ok := p.hex4()
			if !ok {
				return "", errJSON
			}
			if r >= 0xD800 && r < 0xDC00 {
				// A high surrogate needs a low one right after it.
				save := p.i
				if p.i+1 < len(p.s) && p.s[p.i] == '\\' && p.s[p.i+1] == 'u' {
					p.i += 2
					if lo, ok := p.hex4(); ok && lo >= 0xDC00 && lo < 0xE000 {
						r = (r-0xD800)<<10 + (lo - 0xDC00) + 0x10000
					} else {
						p.i = save
						r = utf8.RuneError
					}
				} else {
					r = utf8.RuneError
				}
			} else if r >= 0xDC00 && r < 0xE000 {
				r = utf8.RuneError
			}
			b = utf8.AppendRune(b, r)
		default:
			return "", errJSON
		}
	}
	return "", errJSON
}

func (p *parser) hex4() (rune, bool) {
	if len(p.s)-p.i < 4 {
		return 0, false
	}
	var r rune
	for _, c := range []byte(p.s[p.i : p.i+4]) {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	p.i += 4
	return r, true
}

// index of key k in an object, -1 when absent.
func (v value) index(k string) int {
	for i, key := range v.keys {
		if key == k {
			return i
		}
	}
	return -1
}

// get returns the member k of an object; a null value when v is no object or k is absent,
// so lookups chain without checks and absent reads like null, as the API's optional fields
// want.
func (v value) get(k string) value {
	if v.kind != kindObject {
		return value{}
	}
	if i := v.index(k); i >= 0 {
		return v.items[i]
	}
	return value{}
}

// str returns the string, "" for anything else (null included).
func (v value) str() string {
	if v.kind != kindString {
		return ""
	}
	return v.text
}

// strPtr distinguishes null (nil) from a string, for the API's "string or null" fields.
func (v value) strPtr() *string {
	if v.kind != kindString {
		return nil
	}
	s := v.text
	return &s
}

// int returns an integer member, 0 when v is no integer of at most 15 digits (every number
// the core reads is a count, an id, a status or milliseconds). Read by hand: strconv's
// parsers bring their float tables and error type into the WebAssembly build.
func (v value) int() int {
	s := v.text
	if v.kind != kindNumber || s == "" {
		return 0
	}
	neg := s[0] == '-'
	if neg {
		s = s[1:]
	}
	if len(s) == 0 || len(s) > 15 {
		return 0
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0
		}
		n = n*10 + int(s[i]-'0')
	}
	if neg {
		return -n
	}
	return n
}

func (v value) boolean() bool { return v.kind == kindBool && v.b }

// list returns the items of an array, nil for anything else.
func (v value) list() []value {
	if v.kind != kindArray {
		return nil
	}
	return v.items
}

// writer appends JSON. Callers write keys and values in order; comma placement is tracked
// per nesting level so the call sites read like the document they produce.
type writer struct {
	b    []byte
	need []bool // per open container: a comma is needed before the next element
}

func (w *writer) sep() {
	if n := len(w.need); n > 0 {
		if w.need[n-1] {
			w.b = append(w.b, ',')
		}
		w.need[n-1] = true
	}
}

func (w *writer) open(c byte) {
	w.sep()
	w.b = append(w.b, c)
	w.need = append(w.need, false)
}

func (w *writer) close(c byte) {
	w.b = append(w.b, c)
	w.need = w.need[:len(w.need)-1]
}

func (w *writer) beginObject() { w.open('{') }
func (w *writer) endObject()   { w.close('}') }
func (w *writer) beginArray()  { w.open('[') }
func (w *writer) endArray()    { w.close(']') }

// key writes an object key; the value written next belongs to it.
func (w *writer) key(k string) {
	w.sep()
	w.b = appendQuoted(w.b, k)
	w.b = append(w.b, ':')
	w.need[len(w.need)-1] = false
}

func (w *writer) value() { w.sep() }

func (w *writer) string(s string) {
	w.value()
	w.b = appendQuoted(w.b, s)
}

func (w *writer) int(n int) {
	w.value()
	w.b = strconv.AppendInt(w.b, int64(n), 10)
}

func (w *writer) bool(v bool) {
	w.value()
	w.b = strconv.AppendBool(w.b, v)
}

func (w *writer) null() {
	w.value()
	w.b = append(w.b, "null"...)
}

// stringOrNull writes nil as null.
func (w *writer) stringOrNull(s *string) {
	if s == nil {
		w.null()
		return
	}
	w.string(*s)
}

// Shorthands for object members.
func (w *writer) str(k, v string)         { w.key(k); w.string(v) }
func (w *writer) num(k string, v int)     { w.key(k); w.int(v) }
func (w *writer) flag(k string, v bool)   { w.key(k); w.bool(v) }
func (w *writer) opt(k string, v *string) { w.key(k); w.stringOrNull(v) }

const hexDigits = "0123456789abcdef"

// appendQuoted writes s as a JSON string. Invalid UTF-8 becomes U+FFFD; U+2028 and U+2029
// are escaped so the text is also safe inside a script, as encoding/json does.
func appendQuoted(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, "\ufffd"...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}
