// Package mcpserver is the register worker's side of the agent interface: the MCP server
// (streamable HTTP) with the five tools of the specification, which the worker mounts at
// /mcp. The tools call the matching engine in-process, so an agent gets the same verdicts,
// messages and dataset versions as the REST interface.
//
// The server is stateless (protocol revision 2026-07-28, which needs no session, and the
// 2025-era revisions through initialize): every request can go to any worker behind the
// gateway, and no answer is kept. Authentication, the OAuth metadata and the agent limits
// are the gateway's (gateway/agentpolicy: oauth, limits, rpcinspect); the tool names that
// decide a call's cost are shared with it through rpcinspect.
package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/gateway/agentpolicy/rpcinspect"
	"github.com/adreswijzer/adreswijzer/worker/match"
	"github.com/adreswijzer/adreswijzer/worker/messages"
)

// Tool names. The two whose cost is not one call come from rpcinspect, which the gateway
// counts with, so that the names cannot drift apart.
const (
	ToolVerify    = "verify_address"
	ToolLookup    = "lookup_address"
	ToolSuggest   = "suggest_address"
	ToolBatch     = rpcinspect.ToolVerifyBatch
	ToolCountries = rpcinspect.ToolListCountries
)

// MaxBodyBytes bounds a request to /mcp. The largest honest request, a batch of 100
// addresses in parts of 200 characters each, is well under it even in three-byte UTF-8; the
// gateway applies the same bound before it reads a body for the limits.
const MaxBodyBytes = 1 << 20

// Defaults of Options.
const (
	// DefaultCallTimeout bounds a tool call about one address. The engine answers in
	// milliseconds; a store that takes this long is treated as unavailable, and the agent is
	// told to accept the address and verify it later.
	DefaultCallTimeout = 3 * time.Second
	// DefaultBatchTimeout bounds a batch of up to 100 addresses, inside the worker's write
	// timeout of 15 s.
	DefaultBatchTimeout = 10 * time.Second
)

// Options configure the server; the zero value serves with the defaults.
type Options struct {
	// Version is reported as the server's version to clients.
	Version string
	// Logger receives one line per tool call (tool, outcome, duration; never an argument);
	// slog.Default() when nil.
	Logger *slog.Logger
	// CallTimeout and BatchTimeout bound one tool call; the defaults when zero.
	CallTimeout  time.Duration
	BatchTimeout time.Duration
	// BatchWorkers is how many addresses of a batch are verified at once; 4 when zero.
	BatchWorkers int
}

// service holds what the tool handlers share.
type service struct {
	engine *match.Engine
	opts   Options
	log    *slog.Logger
}

// NewServer returns the MCP server with the five tools over engine (list_supported_countries
// and country detection read the datasets the engine answers from).
func NewServer(engine *match.Engine, opts Options) *mcp.Server {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = DefaultCallTimeout
	}
	if opts.BatchTimeout <= 0 {
		opts.BatchTimeout = DefaultBatchTimeout
	}
	if opts.BatchWorkers <= 0 {
		opts.BatchWorkers = 4
	}
	if opts.Version == "" {
		opts.Version = "1"
	}
	s := &service{engine: engine, opts: opts, log: opts.Logger}
	srv := mcp.NewServer(&mcp.Implementation{
		Name:    "adreswijzer",
		Title:   "Adreswijzer: Dutch and Belgian address verification",
		Version: opts.Version,
	}, &mcp.ServerOptions{
		Instructions: instructions,
		// Tools only: no logging capability (deprecated in 2026-07-28), and the tool list
		// never changes while a worker runs.
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}},
	})
	s.addTools(srv)
	srv.AddReceivingMiddleware(structuredErrors)
	return srv
}

// NewHandler returns the streamable HTTP handler to mount at /mcp.
//
// Stateless, because the gateway spreads requests over workers and the tools need no
// session, and because only a stateless handler serves the 2026-07-28 revision (which has
// no initialize) beside the 2025-era clients that initialize first. JSON responses, because
// no tool streams. The SDK's DNS-rebinding guard is off: behind the gateway every request
// arrives from a loopback or private address with the public Host, which the guard would
// refuse; the gateway checks Host and Origin instead. The SDK gets no logger, because its
// log lines can quote what a client sent.
func NewHandler(engine *match.Engine, opts Options) http.Handler {
	srv := NewServer(engine, opts)
	return parseErrors(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{
		Stateless:                  true,
		JSONResponse:               true,
		DisableLocalhostProtection: true,
		MaxRequestBodyBytes:        MaxBodyBytes,
	}))
}

// parseError is the JSON-RPC answer to a body that is not JSON: the parse error (-32700),
// with a null id, as JSON-RPC 2.0 has it when the request's id could not be read.
const parseError = `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the body is not valid JSON."}}` + "\n"

// parseErrors answers a POST whose body is not JSON with the JSON-RPC parse error and status
// 400, as the streamable HTTP transport allows, where the SDK answers a plain-text 400 that a
// JSON-RPC client cannot read. Every other request goes to the SDK with its body restored.
// The body is read once more here, bounded as the SDK bounds it; json.Valid is a scan without
// allocations.
func parseErrors(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
		r.Body.Close()
		if err != nil {
			var tooLarge *http.MaxBytesError
			if errors.As(err, &tooLarge) {
				http.Error(w, fmt.Sprintf("request body exceeds %d bytes", MaxBodyBytes), http.StatusRequestEntityTooLarge)
				return
			}
			http.Error(w, "failed to read body", http.StatusBadRequest)
			return
		}
		if len(bytes.TrimSpace(body)) > 0 && !json.Valid(body) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", strconv.Itoa(len(parseError)))
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, parseError)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		next.ServeHTTP(w, r)
	})
}

// toolError is a tool call the server does not serve: the arguments are unusable (the agent
// can fix the call), or the register is unavailable. Its text names fields and limits, never
// a value the agent sent. It becomes a tool result with isError set and, as structured
// content, the refusal every tool's output schema allows (see structuredErrors).
type toolError struct {
	msg  string
	code adreswijzer.ErrorCode
	// acceptAsTyped: nothing is wrong with the address; the service could not check it.
	acceptAsTyped bool
}

func (e *toolError) Error() string { return e.msg }

func badInput(msg string) error {
	return &toolError{msg: msg, code: adreswijzer.ErrValidationFailed}
}

// unavailable is the tool error for every engine error, which is always the store's
// (unavailable, no dataset, out of time): the spec's 503, which an agent must treat by
// accepting the address and verifying it later (fail open).
func unavailable() error {
	return &toolError{msg: unavailableText + " Do not retry this call in a loop.",
		code: adreswijzer.ErrServiceUnavailable, acceptAsTyped: true}
}

// structuredErrors gives every tool error its structured content: the code, the message and
// whether the address may be accepted as typed, in the shape the gateway's refusals have too
// (rpcinspect.ToolError). The SDK makes a tool error of a handler's error, and of arguments
// that fail the input schema, with text only; a client that reads structured content (or
// checks it against the output schema, as the TypeScript SDK does) gets the same answer from
// the server as from the gateway. Arguments the schema refuses are the agent's to fix; the
// SDK's words for them are rewritten so that they name the argument, not its value.
func structuredErrors(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		r, ok := res.(*mcp.CallToolResult)
		if err != nil || !ok || !r.IsError || r.StructuredContent != nil {
			return res, err
		}
		body := rpcinspect.ToolErrorBody{Code: adreswijzer.ErrValidationFailed}
		te := (*toolError)(nil)
		if errors.As(r.GetError(), &te) {
			body = rpcinspect.ToolErrorBody{Code: te.code, AcceptAsTyped: te.acceptAsTyped}
		}
		if len(r.Content) > 0 {
			if tc, ok := r.Content[0].(*mcp.TextContent); ok {
				if te == nil {
					// The SDK's own refusal of the arguments: see schemaMessage.
					tc.Text = schemaMessage(tc.Text)
				}
				body.Message = tc.Text
			}
		}
		r.StructuredContent = rpcinspect.ToolError{Error: body}
		return r, nil
	}
}

// unavailableText tells the agent to fail open, in English as every text meant for the
// agent rather than the person.
var unavailableText = func() string {
	msg, next := messages.Error(adreswijzer.LangEN, adreswijzer.ErrServiceUnavailable)
	return msg + " " + next
}()

// logCall writes one line per tool call: what was called and how it ended, never what it
// was about.
func (s *service) logCall(ctx context.Context, tool string, start time.Time, items int, outcome string, err error) {
	level := slog.LevelDebug
	attrs := []slog.Attr{
		slog.String("tool", tool),
		slog.String("outcome", outcome),
		slog.Float64("durationMs", float64(time.Since(start).Microseconds())/1000),
	}
	if items > 0 {
		attrs = append(attrs, slog.Int("items", items))
	}
	var te *toolError
	switch {
	case err == nil:
	case errors.As(err, &te) && outcome == "unavailable":
		level = slog.LevelWarn
	case errors.As(err, &te):
		// The agent's own mistake; the message names fields only.
		attrs = append(attrs, slog.String("err", te.msg))
	}
	s.log.LogAttrs(ctx, level, "agent tool call", attrs...)
}

const instructions = `Adreswijzer checks postal addresses in the Netherlands (NL) and Belgium (BE) against the official open address registers: the Dutch BAG (Kadaster) and the Belgian BeST Address (FPS BOSA). Other countries are not checked.

Which tool:
- verify_address: one address a person gave you, free-form ("Achtergracht 1, 1381 BK Weesp") or in parts. Start here.
- verify_addresses_batch: a list of up to 100 addresses, each with your own id; compact results in the same order.
- lookup_address: you have a postcode and house number (plus the street in Belgium) and need every address at that number, e.g. to pick the right apartment addition (NL toevoeging) or box (BE bus/boîte).
- suggest_address: you only have part of an address (a street being typed, a postcode); pick one suggestion, then check it with verify_address.
- list_supported_countries: countries, required inputs and the register versions in use. Free.

Rules:
- Answers only change when the register data changes: never repeat an identical call. Identical calls more than 5 times a minute are refused; limits are 60 calls a minute (bursts of 20; a batch counts each address) and 10,000 a day.
- Fail open: if a tool says the register is temporarily unavailable, accept the address as the person gave it and verify it later. Never stop a person because of this service. "blocking" in a result is advice, not a rule. A refused call (limits, quota, register unavailable) is a tool error whose structured content has a code, the seconds to wait where waiting helps, and acceptAsTyped: true when the address may be accepted as given.
- Counting: give suggest_address, lookup_address and the verify_address that ends them the same sessionId for one address (a new one for each address): they count as one verification. Addresses outside NL and BE are not checked and not counted: accept them as given.
- Every result names its register (meta.source) and dataset version (meta.datasetVersion). Show meta.attribution with Belgian data.
- Results carry a nextStep sentence meant for the person; lang (nl, fr, de, en) picks its language.`
