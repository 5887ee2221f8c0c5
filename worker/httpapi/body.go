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
// The body is decoded into raw members rather than straight into a struct for two reasons
// the contract makes: struct decoding matches member names regardless of letter case
// (openapi.json's are exact), and it silently ignores null for a string, which the document
// calls the wrong type except where a member is nullable.

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
	var members map[string]json.RawMessage
	if err := json.Unmarshal(body, &members); err != nil || members == nil {
		return errNotJSON // not JSON, or JSON that is not an object (null included)
	}
	for name, raw := range members {
		if v := member(name); v != nil {
			*v = rawValue(raw)
		}
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

// rawValue classifies a member's value and decodes it when it is a string.
func rawValue(raw json.RawMessage) value {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) > 1 && raw[0] == '"' && bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw):
		// Without escapes a valid string's text is what stands between its quotes (the body
		// has been checked as JSON), so the member is not decoded a second time.
		return value{kind: text, s: string(raw[1 : len(raw)-1])}
	case len(raw) > 0 && raw[0] == '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return value{kind: other} // unreachable: the whole body decoded
		}
		return value{kind: text, s: s}
	case string(raw) == "null":
		return value{kind: null}
	case string(raw) == "true", string(raw) == "false":
		return value{kind: boolean, s: string(raw)}
	}
	return value{kind: other}
}
