package rpcinspect

import (
	"encoding/json"
)

// statelessRevision is the first protocol revision whose results carry resultType.
const statelessRevision = "2026-07-28"

// Refusal is the body to answer a request with instead of passing it on, when its tool calls
// are refused (an agent limit): every tool call gets a tool result with isError set and the
// message as its text. A tool result, not a JSON-RPC error and not an HTTP status, because it
// is the one answer MCP clients hand to the model unchanged, and the message is written for
// the model ("stop retrying this request"). Send it with status 200 and Content-Type
// application/json.
//
// protocolVersion is the revision of the request (the MCP-Protocol-Version header); when
// empty, the one a call names in its _meta is used. Results of the stateless revision carry
// resultType "complete". Messages of a batch that are not tool calls get no answer, so refuse
// a batch only when it holds nothing else (batches are gone since 2025-06-18).
func Refusal(req Request, protocolVersion, text string) []byte {
	var out []json.RawMessage
	for _, c := range req.Calls {
		if len(c.ID) == 0 {
			continue // a notification cannot be answered
		}
		v := protocolVersion
		if v == "" {
			v = c.ProtocolVersion
		}
		out = append(out, refusalFor(c.ID, v, text))
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
	Content    []textContent `json:"content"`
	IsError    bool          `json:"isError"`
	ResultType string        `json:"resultType,omitempty"`
}

type textContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

func refusalFor(id json.RawMessage, version, text string) json.RawMessage {
	res := refusalResult{Content: []textContent{{Type: "text", Text: text}}, IsError: true}
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
