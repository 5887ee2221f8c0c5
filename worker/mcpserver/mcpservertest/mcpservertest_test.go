package mcpservertest

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The checker finds what it is there to find: structured content the schema refuses, a
// result without structured content, a refusal not flagged as an error and its reverse, and
// a refusal whose text is not its message.
func TestValidate(t *testing.T) {
	schema := map[string]any{"type": "object", "anyOf": []any{
		map[string]any{"type": "object", "required": []any{"status"}, "additionalProperties": false,
			"properties": map[string]any{"status": map[string]any{"enum": []any{"valid", "invalid"}}}},
		map[string]any{"type": "object", "required": []any{"error"}, "additionalProperties": false,
			"properties": map[string]any{"error": map[string]any{"type": "object", "required": []any{"code", "message"}}}},
	}}
	tools, err := resolve([]*mcp.Tool{{Name: "verify", OutputSchema: schema}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, result, want string }{
		{"result", `{"content":[{"type":"text","text":"{}"}],"structuredContent":{"status":"valid"}}`, ""},
		{"refusal", `{"content":[{"type":"text","text":"Wait."}],"structuredContent":{"error":{"code":"RATE_LIMITED","message":"Wait."}},"isError":true}`, ""},
		{"status not in the enum", `{"content":[{"type":"text","text":"{}"}],"structuredContent":{"status":"maybe"}}`, "structured content"},
		{"member the schema lacks", `{"content":[{"type":"text","text":"{}"}],"structuredContent":{"status":"valid","x":1}}`, "structured content"},
		{"no structured content", `{"content":[{"type":"text","text":"Wait."}],"isError":true}`, "no structured content"},
		{"refusal without isError", `{"content":[{"type":"text","text":"Wait."}],"structuredContent":{"error":{"code":"RATE_LIMITED","message":"Wait."}}}`, "isError false"},
		{"error with a result", `{"content":[{"type":"text","text":"x"}],"structuredContent":{"status":"valid"},"isError":true}`, "isError true"},
		{"text not the message", `{"content":[{"type":"text","text":"Oops"}],"structuredContent":{"error":{"code":"RATE_LIMITED","message":"Wait."}},"isError":true}`, "not the refusal's message"},
		{"no text", `{"content":[],"structuredContent":{"status":"valid"}}`, "no text content"},
	} {
		err := tools.Validate("verify", []byte(c.result))
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: error %v, want one saying %q", c.name, err, c.want)
		}
	}
	if err := tools.Validate("lookup", []byte(`{}`)); err == nil {
		t.Error("a tool the server does not list passed")
	}
	if _, err := resolve([]*mcp.Tool{{Name: "x"}}); err == nil {
		t.Error("a tool without output schema passed")
	}
}
