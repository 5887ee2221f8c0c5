package httpapi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime"
	"runtime/debug"
	"strconv"
	"sync"
	"time"

	// Writes the answers as encoding/json does (the golden answers hold it to that), with
	// less reflection per value; every answer is encoded.
	json "github.com/segmentio/encoding/json"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/worker/messages"
)

// outcome is what a computation running under the request deadline came to.
type outcome[T any] struct {
	v   T
	err error
}

// panicked is a panic of a computation, carried back to the request's goroutine so it can
// answer 500 (a panic left in another goroutine would end the process).
type panicked struct {
	value any
	stack []byte
}

func (p *panicked) Error() string { return "panic" }

// within runs f under a deadline of d and returns its result, or the deadline's error the
// moment it passes, whether or not f has noticed it. This is what keeps the promise that a
// request never hangs: a store that stops answering costs a goroutine until it does, not a
// caller's connection. f must not touch the request or the ResponseWriter.
//
// With inline set, f runs on the caller's goroutine: for a store in memory, which never
// waits on anything but the deadline itself, the hand-over to another goroutine costs as
// much as the lookup it guards.
func within[T any](parent context.Context, d time.Duration, inline bool, f func(context.Context) (T, error)) (T, error) {
	ctx, cancel := context.WithTimeout(parent, d)
	defer cancel()
	if inline {
		out := call(ctx, f)
		return out.v, out.err
	}
	done := make(chan outcome[T], 1)
	go func() { done <- call(ctx, f) }()
	select {
	case out := <-done:
		return out.v, out.err
	case <-ctx.Done():
		select {
		case out := <-done: // finished in the same instant: the answer is good
			return out.v, out.err
		default:
		}
		var zero T
		return zero, fmt.Errorf("request deadline: %w", ctx.Err())
	}
}

// call runs f, turning a panic into an error the request's goroutine answers 500 with.
func call[T any](ctx context.Context, f func(context.Context) (T, error)) (out outcome[T]) {
	defer func() {
		if p := recover(); p != nil {
			out = outcome[T]{err: &panicked{value: p, stack: debug.Stack()}}
		}
	}()
	out.v, out.err = f(ctx)
	return out
}

// serve computes a data answer under the request deadline and writes it, with the
// dataset version in X-Dataset-Version. finish makes the answer's slices non-nil (the
// document's arrays are never null) and returns its meta. keep, when not nil, is handed the
// encoded body and the dataset version of the answer before it is written.
func serve[T any](h *Handler, w http.ResponseWriter, r *http.Request, lang adreswijzer.Language,
	compute func(context.Context) (T, error), finish func(*T) *adreswijzer.Meta, keep func(body []byte, version string)) {
	v, err := within(r.Context(), h.timeout, h.inMemory, compute)
	if err != nil {
		h.fail(w, lang, err)
		return
	}
	m := finish(&v)
	version := ""
	if m.DatasetVersion != nil {
		version = *m.DatasetVersion
		w.Header().Set("X-Dataset-Version", version)
	}
	var encoded func([]byte)
	if keep != nil {
		encoded = func(b []byte) { keep(b, version) }
	}
	writeAnswer(w, http.StatusOK, &v, encoded)
}

// fail answers a computation's error. The store not answering, a dataset not loaded yet
// and the deadline passing are all 503: the register is unavailable and the caller fails
// open. Anything else is a fault of ours, 500.
func (h *Handler) fail(w http.ResponseWriter, lang adreswijzer.Language, err error) {
	noteErr(w, err)
	var p *panicked
	switch {
	case errors.As(err, &p):
		h.logPanic(w, p.value, p.stack)
		writeError(w, http.StatusInternalServerError, adreswijzer.ErrInternal, lang, "")
	case errors.Is(err, adreswijzer.ErrUnavailable), errors.Is(err, adreswijzer.ErrNoDataset),
		errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		writeError(w, http.StatusServiceUnavailable, adreswijzer.ErrServiceUnavailable, lang, "")
	default:
		writeError(w, http.StatusInternalServerError, adreswijzer.ErrInternal, lang, "")
	}
}

// noteErr hands an error to the access log line of the request. Errors of the engine and
// the stores name fields and datasets, never submitted values.
func noteErr(w http.ResponseWriter, err error) {
	if rec, ok := w.(*recorder); ok && err != nil {
		rec.err = err
	}
}

// logPanic logs a panic with its stack. The value itself only when the runtime made it
// (a nil dereference, an index out of range): a value a handler panicked with may hold
// what the caller sent.
func (h *Handler) logPanic(w http.ResponseWriter, value any, stack []byte) {
	desc := fmt.Sprintf("%T", value)
	if re, ok := value.(runtime.Error); ok {
		desc = re.Error()
	}
	route := ""
	if rec, ok := w.(*recorder); ok {
		route = rec.route
	}
	h.log.LogAttrs(context.Background(), slog.LevelError, "panic",
		slog.String("route", route), slog.String("panic", desc), slog.String("stack", string(stack)))
}

// answerBufs keeps encoding buffers between requests. An answer is encoded whole before
// anything is written, so that Content-Length is known and a failed encoding can still be
// a 500; reusing the buffer spares every request its allocation and growth.
var answerBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooledAnswer is the largest buffer kept for reuse: a rare huge answer does not pin
// its memory.
const maxPooledAnswer = 64 << 10

// writeJSON writes an answer.
func writeJSON(w http.ResponseWriter, status int, v any) { writeAnswer(w, status, v, nil) }

// writeAnswer writes an answer; encoded, when not nil, sees the body of a successful
// encoding before it is written (the buffer is reused afterwards: it must copy what it keeps).
func writeAnswer(w http.ResponseWriter, status int, v any, encoded func([]byte)) {
	buf := answerBufs.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= maxPooledAnswer {
			answerBufs.Put(buf)
		}
	}()
	buf.Reset()
	// Encode writes what Marshal would, and the newline every answer ends with.
	var b []byte
	if err := json.NewEncoder(buf).Encode(v); err != nil {
		// The wire types hold strings, numbers and booleans only; this cannot happen.
		noteErr(w, fmt.Errorf("encode answer: %w", err))
		status, b = http.StatusInternalServerError, append(errorBody(adreswijzer.ErrInternal, adreswijzer.LangEN, ""), '\n')
	} else {
		b = buf.Bytes()
		if encoded != nil {
			encoded(b)
		}
	}
	jsonHeaders(w.Header(), len(b))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// Header values every JSON answer carries, shared rather than allocated per answer; a
// header is only ever replaced, never appended to in place (their capacity is their length).
var (
	hdrJSON    = []string{"application/json; charset=utf-8"}
	hdrNoStore = []string{"no-store"}
	hdrNoSniff = []string{"nosniff"}
)

// jsonHeaders sets the headers of a JSON answer of n bytes. Every answer of the worker
// concerns personal data or the moment (health), so none may be kept by a cache on the way;
// the gateway's answer cache decides on its own.
func jsonHeaders(hdr http.Header, n int) { jsonHeadersOf(hdr, []string{strconv.Itoa(n)}) }

// jsonHeadersOf sets the headers of a JSON answer whose Content-Length value is length.
func jsonHeadersOf(hdr http.Header, length []string) {
	hdr["Content-Type"] = hdrJSON
	hdr["Content-Length"] = length
	hdr["Cache-Control"] = hdrNoStore
	hdr["X-Content-Type-Options"] = hdrNoSniff
}

// writeError writes an ErrorResponse with the texts of worker/messages. message, when not
// empty, replaces the code's general message (a 422 names the parameter).
func writeError(w http.ResponseWriter, status int, code adreswijzer.ErrorCode, lang adreswijzer.Language, message string) {
	hdr := w.Header()
	hdr.Del("X-Dataset-Version")
	b := append(errorBody(code, lang, message), '\n')
	jsonHeaders(hdr, len(b))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// writeMethodNotAllowed answers 405 with the methods the path takes in its message; the
// caller sets the Allow header.
func writeMethodNotAllowed(w http.ResponseWriter, allow string) {
	msg, next := messages.MethodNotAllowed(allow)
	b, _ := json.Marshal(adreswijzer.ErrorResponse{Error: adreswijzer.ErrorBody{Code: adreswijzer.ErrNotFound, Message: msg, NextStep: next}})
	b = append(b, '\n')
	jsonHeaders(w.Header(), len(b))
	w.WriteHeader(http.StatusMethodNotAllowed)
	_, _ = w.Write(b)
}

func errorBody(code adreswijzer.ErrorCode, lang adreswijzer.Language, message string) []byte {
	msg, next := messages.Error(lang, code)
	if message != "" {
		msg = message
	}
	b, _ := json.Marshal(adreswijzer.ErrorResponse{Error: adreswijzer.ErrorBody{Code: code, Message: msg, NextStep: next}})
	return b
}

// writeInvalid answers 422 naming the parameter and what is wrong with it.
func writeInvalid(w http.ResponseWriter, c *check) {
	msg := messages.Invalid(c.lang, c.bad.param, c.bad.problem, c.bad.max)
	writeError(w, http.StatusUnprocessableEntity, adreswijzer.ErrValidationFailed, c.lang, msg)
}

// writeBodyError answers a body that could not be read (413, 400).
func writeBodyError(w http.ResponseWriter, e *bodyError) {
	writeError(w, e.status, e.code, adreswijzer.LangEN, "")
}

// writeStatic writes one of the published documents, which change only with a release.
func writeStatic(w http.ResponseWriter, contentType string, b []byte) {
	hdr := w.Header()
	hdr.Set("Content-Type", contentType)
	hdr.Set("Content-Length", strconv.Itoa(len(b)))
	hdr.Set("Cache-Control", "public, max-age=300")
	hdr.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
}

// The finish functions guarantee what openapi.json promises of every answer: arrays are
// arrays, never null, however the engine built them.

func finishLookup(v *adreswijzer.LookupResponse) *adreswijzer.Meta {
	v.Addresses = nonNil(v.Addresses)
	v.Additions = nonNil(v.Additions)
	v.Issues = nonNil(v.Issues)
	for i := range v.Addresses {
		a := &v.Addresses[i]
		a.Formatted = nonNil(a.Formatted)
		a.Carrier.Warnings = nonNil(a.Carrier.Warnings)
	}
	return &v.Meta
}

func finishSuggest(v *adreswijzer.SuggestResponse) *adreswijzer.Meta {
	v.Suggestions = nonNil(v.Suggestions)
	v.Issues = nonNil(v.Issues)
	return &v.Meta
}

func finishAutocomplete(v *adreswijzer.AutocompleteResponse) *adreswijzer.Meta {
	v.Suggestions = nonNil(v.Suggestions)
	v.Issues = nonNil(v.Issues)
	return &v.Meta
}

func finishValidate(v *adreswijzer.ValidateResponse) *adreswijzer.Meta {
	v.Suggestions = nonNil(v.Suggestions)
	v.Issues = nonNil(v.Issues)
	if v.Carrier != nil {
		v.Carrier.Warnings = nonNil(v.Carrier.Warnings)
	}
	return &v.Meta
}

func nonNil[S ~[]E, E any](s S) S {
	if s == nil {
		return S{}
	}
	return s
}
