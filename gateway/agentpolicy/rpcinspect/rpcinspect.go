// Package rpcinspect reads the JSON-RPC body of a request to the agent interface (/mcp)
// without serving it, so that whatever stands in front of the MCP server (the gateway) can
// count tool calls against an account's limits and refuse them before a worker spends time
// on them.
//
// It is gateway policy in plain Go. The MCP server takes the names of the tools whose cost
// is not one call from here, so that what the gateway counts and what the server serves
// cannot drift apart. Fingerprints
// are hashes, never the arguments, because they end up as keys in Redis and nothing a caller
// submits may be stored.
package rpcinspect

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	sdkjson "github.com/segmentio/encoding/json"

	"github.com/adreswijzer/adreswijzer"
)

// Tool names whose cost is not one call. The MCP server registers its tools under these
// names, so the two cannot drift apart.
const (
	// ToolVerifyBatch counts each of its addresses.
	ToolVerifyBatch = "verify_addresses_batch"
	// ToolListCountries is free: it reads no address.
	ToolListCountries = "list_supported_countries"
	// BatchItemsArgument is the argument of ToolVerifyBatch that holds the addresses.
	BatchItemsArgument = "addresses"
	// MaxBatchItems is the largest batch the server accepts; a larger one is refused by the
	// tool without verifying anything, so it costs one call, not its length.
	MaxBatchItems = 100
)

// The tools that read addresses one call at a time, as the gateway counts them: a verify
// counts like a REST validate, a lookup like a lookup, a suggestion like a suggest call.
const (
	ToolVerify  = "verify_address"
	ToolLookup  = "lookup_address"
	ToolSuggest = "suggest_address"
)

// MaxBodyBytes bounds a request to /mcp, on the gateway as on the worker (whose agent package
// has the same bound): the largest honest request, a batch of 100 addresses in parts of 200
// characters each, is well under it even in three-byte UTF-8.
const MaxBodyBytes = 1 << 20

// MethodToolsCall is the JSON-RPC method of a tool call.
const MethodToolsCall = "tools/call"

// metaProtocolVersion is where a request of the stateless revision (2026-07-28) carries its
// protocol version, as there is no initialize to negotiate it.
const metaProtocolVersion = "io.modelcontextprotocol/protocolVersion"

// ErrMalformed is returned for a body that is not a JSON-RPC message or batch. The gateway
// may pass such a body on (the server answers it with a parse error) or refuse it itself;
// either way nothing in it is a tool call to count.
var ErrMalformed = errors.New("body is not a JSON-RPC message or batch")

// Call is one tools/call message of a request.
type Call struct {
	// ID is the JSON-RPC id as sent (a number or a string), needed to answer the call.
	ID json.RawMessage
	// Tool is the tool name, empty when the params name none.
	Tool string
	// Cost is what the call counts against the agent limits: one, the number of addresses
	// of a batch, or zero for the free tool.
	Cost int
	// Fingerprint identifies the call by tool name and canonical arguments: two calls with
	// the same tool and the same arguments, whatever their key order, spacing or number
	// spelling, have the same fingerprint. It is a keyed hash in hex.
	Fingerprint string
	// ProtocolVersion is the revision named in the call's _meta (stateless revision); empty
	// for clients that negotiated one with initialize.
	ProtocolVersion string
	// Session is the call's sessionId argument (verify, lookup and suggest take one), when it
	// is one the tool's schema takes; "" otherwise. Calls that share one count as one
	// verification with the verify that ends them, as REST calls do.
	Session string
	// Confirmed: a verify with customerConfirmed true, which counts as REST's validate with
	// it does (see usage.Charge.Confirmed).
	Confirmed bool
}

// Request is what a body holds.
type Request struct {
	// Batch is true when the body is a JSON array of messages.
	Batch bool
	// Calls are the tool calls in body order.
	Calls []Call
	// Messages counts every message, tool call or not.
	Messages int
}

// Cost is the sum of the calls' costs.
func (r Request) Cost() int {
	n := 0
	for _, c := range r.Calls {
		n += c.Cost
	}
	return n
}

// message is the part of a JSON-RPC message the inspection reads.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

type callParams struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Meta      map[string]any  `json:"_meta"`
}

// Inspect reads a request body: one JSON-RPC message or a batch of them. key makes the
// fingerprints an HMAC, so that they cannot be matched against hashes of guessed addresses;
// every gateway that shares a limits store must use the same key. A nil key gives plain
// SHA-256 fingerprints.
func Inspect(body []byte, key []byte) (Request, error) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return Request{}, ErrMalformed
	}
	var msgs []message
	var req Request
	switch body[0] {
	case '[':
		req.Batch = true
		if decode(body, &msgs) != nil {
			return Request{}, ErrMalformed // not the decoder's error: it quotes the body
		}
		if len(msgs) == 0 {
			return Request{}, ErrMalformed
		}
	case '{':
		var m message
		if decode(body, &m) != nil {
			return Request{}, ErrMalformed
		}
		msgs = []message{m}
	default:
		return Request{}, ErrMalformed
	}
	req.Messages = len(msgs)
	var mac hash.Hash
	if key != nil {
		mac = hmac.New(sha256.New, key)
	} else {
		mac = sha256.New()
	}
	for _, m := range msgs {
		if m.Method != MethodToolsCall {
			continue
		}
		req.Calls = append(req.Calls, inspectCall(m, mac))
	}
	return req, nil
}

// inspectCall reads one tools/call. Params the server will reject (not an object, no name)
// still make a call that costs one: the server does the work of answering it, and a caller
// must not get free calls by sending broken ones.
func inspectCall(m message, mac hash.Hash) Call {
	c := Call{ID: m.ID, Cost: 1}
	var p callParams
	if err := decode(m.Params, &p); err != nil {
		c.Fingerprint = fingerprint(mac, "", canonicalOrRaw(m.Params))
		return c
	}
	c.Tool = p.Name
	if v, ok := p.Meta[metaProtocolVersion].(string); ok {
		c.ProtocolVersion = v
	}
	args := canonicalOrRaw(p.Arguments)
	c.Fingerprint = fingerprint(mac, p.Name, args)
	switch p.Name {
	case ToolListCountries:
		c.Cost = 0
	case ToolVerifyBatch:
		c.Cost = batchCost(p.Arguments)
	case ToolVerify, ToolLookup, ToolSuggest:
		c.Session, c.Confirmed = sessionOf(p.Arguments)
		c.Confirmed = c.Confirmed && p.Name == ToolVerify
	}
	return c
}

// sessionArgs are the arguments the counting of a call reads.
type sessionArgs struct {
	SessionID         json.RawMessage `json:"sessionId"`
	CustomerConfirmed json.RawMessage `json:"customerConfirmed"`
}

// sessionOf reads the sessionId of a call's arguments, when it is a string the tool's schema
// takes (a call with another is refused by the tool and given back), and whether
// customerConfirmed is true.
func sessionOf(args json.RawMessage) (session string, confirmed bool) {
	var a sessionArgs
	if decode(args, &a) != nil {
		return "", false
	}
	confirmed = string(bytes.TrimSpace(a.CustomerConfirmed)) == "true"
	if len(a.SessionID) == 0 || a.SessionID[0] != '"' || decode(a.SessionID, &session) != nil || !adreswijzer.ValidSessionID(session) {
		return "", confirmed
	}
	return session, confirmed
}

// batchCost is the number of addresses of a batch the server will verify, and one for a
// batch it refuses without verifying anything. A batch is verified only when its arguments
// pass the tool's input schema (1 to MaxBatchItems items); the schema fails the whole call
// for one bad item. So the rule is all or one: the number of items when "addresses" is an
// array of 1 to MaxBatchItems objects that each have the one required member, "id", as a
// usable id (see usableID); otherwise one, like any other call the server answers with an
// error (see inspectCall). Charging every item of a batch the schema rejects would spend an
// agent's rate budget on calls that were never served.
//
// The schema's other rules (the types and lengths of the other members, the enums of lang
// and carrier, no members it does not know) and the tool's (ids unique) are not checked
// here: they would copy the worker's schema into the gateway. A batch that breaks only those
// is charged its items against the agent limits; the tool error it gets gives its
// verifications back (Extension.Unserved).
func batchCost(args json.RawMessage) int {
	var a map[string]json.RawMessage
	if err := decode(args, &a); err != nil {
		return 1
	}
	var items []batchItem
	if err := decode(a[BatchItemsArgument], &items); err != nil {
		return 1 // not an array, or an item that is not an object
	}
	if n := len(items); n < 1 || n > MaxBatchItems {
		return 1
	}
	for _, it := range items {
		if !usableID(it.ID) {
			return 1 // no id (a null item has none either), or one the schema refuses
		}
	}
	return len(items)
}

// MaxIDLength is the longest id of a batch item the tool's schema takes.
const MaxIDLength = 100

// usableID reports whether a batch item's id passes the tool's schema: a string of 1 to
// MaxIDLength characters with one that is not a space (the schema's pattern \S, which the
// server's validator reads as Go's regexp does: tab, newline, form feed, carriage return and
// space are spaces).
func usableID(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return false
	}
	id := raw[1 : len(raw)-1] // the body parsed: without escapes, these are the id's bytes
	if bytes.IndexByte(id, '\\') >= 0 {
		var s string
		if decode(raw, &s) != nil {
			return false
		}
		id = []byte(s)
	}
	if len(id) == 0 || utf8.RuneCount(id) > MaxIDLength {
		return false
	}
	return bytes.ContainsFunc(id, func(r rune) bool { return !strings.ContainsRune("\t\n\f\r ", r) })
}

// batchItem is the part of a batch item batchCost checks: the member the tool's schema
// requires.
type batchItem struct {
	ID json.RawMessage `json:"id"`
}

// decode reads JSON exactly as the MCP SDK's server reads a request: with
// segmentio/encoding/json, member names matched exactly, and what follows the first value
// ignored, as the SDK's streaming decoder ignores it. The standard library matches names
// regardless of case, so a body holding both "method" and "METHOD" (or "name" and "NAME")
// would be counted here as one call and served by the SDK as another; and a body the
// gateway refused to read for trailing bytes would pass uncounted to a server that serves
// it. Duplicate members resolve as the SDK resolves them, the last one winning, because it
// is the same decoder.
func decode(b []byte, v any) error {
	_, err := sdkjson.Parse(b, v, sdkjson.DontMatchCaseInsensitiveStructFields)
	return err
}

func fingerprint(mac hash.Hash, tool string, canonicalArgs []byte) string {
	mac.Reset()
	io.WriteString(mac, tool)
	mac.Write([]byte{0})
	mac.Write(canonicalArgs)
	return hex.EncodeToString(mac.Sum(nil)[:16])
}

// canonicalOrRaw returns the canonical form of a JSON value, or the bytes as they are when
// they are not JSON (such a call is answered with an error, and repeating it is still a loop).
// Absent arguments and an empty object are the same call.
func canonicalOrRaw(raw json.RawMessage) []byte {
	if t := bytes.TrimSpace(raw); len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return []byte("{}")
	}
	c, err := Canonical(raw)
	if err != nil {
		return raw
	}
	return c
}

// Canonical writes a JSON value in one form: object keys sorted, no insignificant space, and
// numbers written from their float64 value, so that 1, 1.0 and 1e0 are the same.
func Canonical(raw []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data after JSON value")
	}
	var b bytes.Buffer
	if err := writeCanonical(&b, v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func writeCanonical(b *bytes.Buffer, v any) error {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys) // byte order of the UTF-8 keys
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, k)
			b.WriteByte(':')
			if err := writeCanonical(b, x[k]); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeCanonical(b, e); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			// Out of float64 range: keep the literal, which is still deterministic.
			b.WriteString(string(x))
			return nil
		}
		b.WriteString(strconv.FormatFloat(f, 'g', -1, 64))
	case string:
		writeString(b, x)
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case nil:
		b.WriteString("null")
	default:
		return fmt.Errorf("unexpected JSON value of type %T", v)
	}
	return nil
}

func writeString(b *bytes.Buffer, s string) {
	out, _ := json.Marshal(s) // a string always marshals
	b.Write(out)
}
