package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"unicode/utf8"

	"github.com/adreswijzer/adreswijzer"
)

// A POST body is read in three steps, each with the status openapi.json gives it: larger
// than 64 KB is 413, not a JSON object (or not labelled application/json) is 400, and a
// member of the wrong type, a missing required member or a bad value is 422 naming the
// member. Unknown members are ignored, because checkout platforms send whole address
// objects.
//
// The members are read with a small scanner instead of encoding/json's struct decoding for
// two reasons the contract makes: encoding/json matches member names regardless of letter
// case (openapi.json's are exact), and it silently ignores null for a string, which the
// document calls the wrong type except where a member is nullable.

// bodyError is why a body could not be read, with the status and code to answer.
type bodyError struct {
	status int
	code   adreswijzer.ErrorCode
}

var (
	errTooLarge = &bodyError{http.StatusRequestEntityTooLarge, adreswijzer.ErrPayloadTooLarge}
	errNotJSON  = &bodyError{http.StatusBadRequest, adreswijzer.ErrBadRequest}
)

// readObject reads the body and hands each member of its top-level object to member,
// which returns where to keep the value, or nil to ignore a member the document does not
// name.
func readObject(w http.ResponseWriter, r *http.Request, member func(name string) *value) *bodyError {
	if r.ContentLength > adreswijzer.MaxBodyBytes {
		return errTooLarge
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return errNotJSON
	}
	// A declared length sizes the buffer exactly; an unknown one (chunked) starts small,
	// because checkout bodies are a few hundred bytes.
	size := 1 << 10
	if r.ContentLength >= 0 {
		size = int(r.ContentLength) + 1
	}
	body, err := readAll(http.MaxBytesReader(w, r.Body, adreswijzer.MaxBodyBytes), size)
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return errTooLarge
	case err != nil:
		return errNotJSON
	}
	if !json.Valid(body) {
		return errNotJSON
	}
	if !eachMember(body, func(name, raw []byte) {
		if v := member(memberName(name)); v != nil {
			*v = rawValue(raw)
		}
	}) {
		return errNotJSON
	}
	return nil
}

// readAll is io.ReadAll starting from a buffer of size bytes, so that a body of a declared
// length is read without growing the buffer.
func readAll(r io.Reader, size int) ([]byte, error) {
	b := make([]byte, 0, size)
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}

// eachMember walks the members of the top-level object of body, which json.Valid has
// accepted, so the scanner need not recheck the syntax. name and raw are the member's name
// and value as they appear in the body. It reports false when the value is not an object.
func eachMember(body []byte, f func(name, raw []byte)) bool {
	i := skipSpace(body, 0)
	if i >= len(body) || body[i] != '{' {
		return false
	}
	i = skipSpace(body, i+1)
	if body[i] == '}' {
		return true
	}
	for {
		end := stringEnd(body, i)
		name := body[i:end]
		i = skipSpace(body, end) + 1 // the colon
		i = skipSpace(body, i)
		vend := valueEnd(body, i)
		f(name, body[i:vend])
		i = skipSpace(body, vend)
		if body[i] != ',' {
			return true // the closing brace
		}
		i = skipSpace(body, i+1)
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index after the string that starts at b[i].
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(b)
}

// valueEnd returns the index after the value that starts at b[i].
func valueEnd(b []byte, i int) int {
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				j = stringEnd(b, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return len(b)
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
		j++
	}
	return j
}

// memberName decodes a member name; names without escapes are used as they are.
func memberName(raw []byte) string { return unquote(raw) }

// rawValue classifies a member's value and decodes it when it is a string.
func rawValue(raw []byte) value {
	switch {
	case raw[0] == '"':
		return value{kind: text, s: unquote(raw)}
	case string(raw) == "null":
		return value{kind: null}
	case string(raw) == "true", string(raw) == "false":
		return value{kind: boolean, s: string(raw)}
	}
	return value{kind: other}
}

// unquote decodes a JSON string that json.Valid accepted. The common case, no escapes and
// valid UTF-8, is a plain copy; the rest goes to encoding/json, which replaces invalid
// UTF-8 as the contract check does.
func unquote(raw []byte) string {
	in := raw[1 : len(raw)-1]
	if bytes.IndexByte(in, '\\') < 0 && utf8.Valid(in) {
		return string(in)
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "" // unreachable: json.Valid accepted the body
	}
	return s
}
