package rpcinspect

import (
	"encoding/json"

	"github.com/adreswijzer/adreswijzer"
)

// statelessRevision is the first protocol revision whose results carry resultType.
const statelessRevision = "2026-07-28"

// ToolError is the structured content of a tool result with isError set, whoever answers it:
// the gateway refusing a tool call (an agent limit, the plan's quota or rate, no worker
// answering) or the MCP server failing one (bad arguments, register unavailable). Its shape
// is part of every tool's output schema, so that a client that checks structured content
// against the schema (the official TypeScript SDK does, on errors too) accepts it, and a
// program can act on the code without parsing the text the model reads.
type ToolError struct {
	Error ToolErrorBody `json:"error" jsonschema:"Why the call was not served, and what to do instead."`
}

// ToolErrorBody is the refusal itself. Message is also the result's text content.
type ToolErrorBody struct {
	Code adreswijzer.ErrorCode `json:"code" jsonschema:"VALIDATION_FAILED: the arguments must be fixed; RATE_LIMITED: too many calls, or this exact call repeated (then without retryAfterSeconds: do not send it again); DAILY_CAP_REACHED: no calls left today; QUOTA_EXCEEDED: no verifications left this month (see upgradeUrl); SERVICE_UNAVAILABLE or INTERNAL_ERROR: the register could not answer."`
	// Message says, for the model, what happened and what to do instead of retrying. It
	// names no value the caller sent.
	Message string `json:"message" jsonschema:"What happened and what to do instead, for the model."`
	// RetryAfterSeconds is set where waiting helps: the same as the Retry-After header.
	RetryAfterSeconds int `json:"retryAfterSeconds,omitempty" jsonschema:"Seconds after which the call may pass, where waiting helps (as the Retry-After header)."`
	// UpgradeURL is set with QUOTA_EXCEEDED.
	UpgradeURL string `json:"upgradeUrl,omitempty" jsonschema:"Where to raise the monthly quota (QUOTA_EXCEEDED)."`
	// AcceptAsTyped says that the address the call was about may be accepted as the person
	// typed it and verified later: the spec's fail-open rule, true for every refusal that is
	// not about the arguments.
	AcceptAsTyped bool `json:"acceptAsTyped" jsonschema:"True when the address may be accepted as the person gave it (and verified later): nothing is wrong with it, the service could not check it now."`
}

// Refusal is the body to answer a request with instead of passing it on, when its tool calls
// are refused (an agent limit, the quota, no worker): every tool call gets a tool result with
// isError set, te as its structured content and te's message as its text. A tool result, not
// a JSON-RPC error and not an HTTP status, because it is the one answer MCP clients hand to
// the model unchanged (an HTTP error becomes a transport error the model never sees), and
// the message is written for the model ("stop retrying this request"). Send it with status
// 200 and Content-Type application/json.
//
// protocolVersion is the revision of the request (the MCP-Protocol-Version header); when
// empty, the one a call names in its _meta is used. Results of the stateless revision carry
// resultType "complete". Messages of a batch that are not tool calls get no answer, so refuse
// a batch only when it holds nothing else (batches are gone since 2025-06-18).
func Refusal(req Request, protocolVersion string, te ToolError) []byte {
	var out []json.RawMessage
	for _, c := range req.Calls {
		if len(c.ID) == 0 {
			continue // a notification cannot be answered
		}
		v := protocolVersion
		if v == "" {
			v = c.ProtocolVersion
		}
		out = append(out, refusalFor(c.ID, v, te))
	}
	switch {
	case len(out) == 0:
		return nil
	case !req.Batch && len(out) == 1:
		return out[0]
	}
	b, _ := json.Marshal(out) // raw messages made by refusalFor always marshal
	return b
}

type refusalResult struct {
	Content           []textContent `json:"content"`
	StructuredContent ToolError     `json:"structuredContent"`
	IsError           bool          `json:"isError"`
	ResultType        string        `json:"resultType,omitempty"`
}

type textContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

func refusalFor(id json.RawMessage, version string, te ToolError) json.RawMessage {
	res := refusalResult{Content: []textContent{{Type: "text", Text: te.Error.Message}}, StructuredContent: te, IsError: true}
	if version >= statelessRevision {
		res.ResultType = "complete"
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  refusalResult   `json:"result"`
	}{"2.0", id, res})
	return b
}
