// Package mcpservertest holds every tool result of a test to the tool schemas the worker's MCP
// server publishes (tools/list), as openapitest holds every HTTP exchange to openapi.json:
// the schemas an agent is shown and the answers it gets cannot drift apart unnoticed.
//
//	tools := mcpservertest.New(t, session) // lists the tools once
//	res, err := session.CallTool(ctx, params)
//	tools.Check(t, params.Name, res)
//
// or, for a JSON-RPC answer read over plain HTTP, tools.CheckAnswer(t, tool, body).
//
// The rules, beyond the output schema itself:
//
//   - Every result has structured content, an error's too: the refusal (a member error with
//     a code, a message and acceptAsTyped) that every output schema allows. Clients that check
//     structured content against the output schema (the TypeScript SDK, also for errors)
//     would refuse anything else.
//   - isError is set exactly when the structured content is a refusal, and then the first
//     text content is the refusal's message, which the model reads.
package mcpservertest

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tools are the output schemas of a server's tools, resolved.
type Tools struct {
	out map[string]*jsonschema.Resolved
}

// New lists the tools through the session and resolves their output schemas, failing the
// test when one is missing or not a valid schema.
func New(t testing.TB, cs *mcp.ClientSession) *Tools {
	t.Helper()
	lt, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	tools, err := resolve(lt.Tools)
	if err != nil {
		t.Fatal(err)
	}
	return tools
}

func resolve(list []*mcp.Tool) (*Tools, error) {
	tools := &Tools{out: map[string]*jsonschema.Resolved{}}
	for _, tool := range list {
		if tool.OutputSchema == nil {
			return nil, fmt.Errorf("tool %s publishes no output schema", tool.Name)
		}
		b, err := json.Marshal(tool.OutputSchema)
		if err != nil {
			return nil, fmt.Errorf("tool %s: output schema: %w", tool.Name, err)
		}
		var s jsonschema.Schema
		if err := json.Unmarshal(b, &s); err != nil {
			return nil, fmt.Errorf("tool %s: output schema: %w", tool.Name, err)
		}
		r, err := s.Resolve(nil)
		if err != nil {
			return nil, fmt.Errorf("tool %s: output schema: %w", tool.Name, err)
		}
		tools.out[tool.Name] = r
	}
	return tools, nil
}

// Check fails the test (without stopping it) when a result of tool does not match the
// tool's output schema and the rules above.
func (ts *Tools) Check(t testing.TB, tool string, res *mcp.CallToolResult) {
	t.Helper()
	b, err := json.Marshal(res)
	if err != nil {
		t.Errorf("%s: result does not marshal: %v", tool, err)
		return
	}
	if err := ts.Validate(tool, b); err != nil {
		t.Errorf("%s: result not as its schema says: %v\n%.600s", tool, err, b)
	}
}

// CheckAnswer checks a JSON-RPC answer (one message, or a batch of them) whose results answer
// calls of tool. Messages with a JSON-RPC error instead of a result are not tool results and
// are not checked.
func (ts *Tools) CheckAnswer(t testing.TB, tool string, body []byte) {
	t.Helper()
	var msgs []struct {
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(body, &msgs); err != nil {
		var one struct {
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal(body, &one); err != nil {
			t.Errorf("%s: answer is not JSON-RPC: %v\n%.300s", tool, err, body)
			return
		}
		msgs = append(msgs, one)
	}
	for _, m := range msgs {
		if len(m.Result) == 0 {
			continue
		}
		if err := ts.Validate(tool, m.Result); err != nil {
			t.Errorf("%s: result not as its schema says: %v\n%.600s", tool, err, m.Result)
		}
	}
}

// Validate returns what is wrong with a tool result (as JSON), or nil.
func (ts *Tools) Validate(tool string, result []byte) error {
	schema, ok := ts.out[tool]
	if !ok {
		return fmt.Errorf("no tool %s in tools/list", tool)
	}
	var r struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		StructuredContent any  `json:"structuredContent"`
		IsError           bool `json:"isError"`
	}
	if err := json.Unmarshal(result, &r); err != nil {
		return fmt.Errorf("result: %w", err)
	}
	if r.StructuredContent == nil {
		return fmt.Errorf("no structured content (isError %v)", r.IsError)
	}
	if err := schema.Validate(r.StructuredContent); err != nil {
		return fmt.Errorf("structured content: %w", err)
	}
	refusal, _ := r.StructuredContent.(map[string]any)["error"].(map[string]any)
	switch {
	case r.IsError != (refusal != nil):
		return fmt.Errorf("isError %v, but the structured content is %s", r.IsError, map[bool]string{true: "a refusal", false: "a result"}[refusal != nil])
	case len(r.Content) == 0 || r.Content[0].Type != "text":
		return fmt.Errorf("no text content for the model")
	case refusal != nil && r.Content[0].Text != refusal["message"]:
		return fmt.Errorf("the text %q is not the refusal's message %q", r.Content[0].Text, refusal["message"])
	}
	return nil
}
