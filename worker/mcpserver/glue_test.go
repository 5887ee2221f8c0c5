package mcpserver

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/adreswijzer/adreswijzer/gateway/agentpolicy/limits"
	"github.com/adreswijzer/adreswijzer/gateway/agentpolicy/rpcinspect"
	"github.com/adreswijzer/adreswijzer/worker/match"
)

// limited is, in short, what the gateway's agent extension (gateway/agentpolicy) does in front of
// /mcp: read the body, count its tool calls for the account, and either pass it on or answer
// with a refusal the agent's model sees. The account is fixed here; the gateway takes it from
// the API key or the OAuth token. It keeps the server's side of that contract tested here:
// the SDK's client must read the refusals as tool errors.
func limited(next http.Handler, l *limits.Limiter, account string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, MaxBodyBytes+1))
		if err != nil || len(body) > MaxBodyBytes {
			http.Error(w, "request too large", http.StatusRequestEntityTooLarge)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		req, err := rpcinspect.Inspect(body, []byte("gateway key"))
		if err != nil {
			next.ServeHTTP(w, r) // the server answers malformed bodies itself
			return
		}
		calls := make([]limits.Call, len(req.Calls))
		for i, c := range req.Calls {
			calls[i] = limits.Call{Fingerprint: c.Tool + ":" + c.Fingerprint, Cost: c.Cost}
		}
		d, err := l.Check(r.Context(), account, calls)
		if err != nil {
			next.ServeHTTP(w, r) // the limits store failed: fail open
			return
		}
		if !d.Allowed {
			w.Header().Set("Content-Type", "application/json")
			w.Write(rpcinspect.Refusal(req, r.Header.Get("Mcp-Protocol-Version"), rpcinspect.ToolError{Error: rpcinspect.ToolErrorBody{Code: "RATE_LIMITED", Message: d.Message, AcceptAsTyped: true}}))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// TestGatewayGlue puts the limits in front of the real server and drives it with the SDK's
// client: the refusals must reach the agent as tool errors it can read.
func TestGatewayGlue(t *testing.T) {
	store := sampleData(t)
	h := NewHandler(match.New(store, match.Options{}), Options{Logger: quiet()})
	for _, version := range []string{"2025-06-18", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			l := limits.New(limits.NewMemory(nil), limits.Default)
			srv := httptest.NewServer(limited(h, l, "acct-1"))
			defer srv.Close()
			cs := connect(t, srv.URL, version)
			args := map[string]any{"address": "Achtergracht 1, 1381 BK Weesp"}
			for i := range 5 {
				var out VerifyOutput
				if res := call(t, cs, ToolVerify, args, &out); res.IsError || out.Status != "valid" {
					t.Fatalf("call %d: %+v", i+1, res)
				}
			}
			text := errorText(t, call(t, cs, ToolVerify, args, nil))
			if !strings.Contains(text, "Stop retrying") {
				t.Errorf("6th identical call: %q", text)
			}
			// Different calls pass; a batch counts its items against the burst of 20
			// (5 spent): one of 15 fits, then the burst is used up.
			batch := func(n int, tag string) map[string]any {
				items := make([]any, n)
				for i := range items {
					items[i] = map[string]any{"id": tag + string(rune('a'+i)), "address": "Achtergracht 1, 1381 BK Weesp"}
				}
				return map[string]any{"addresses": items}
			}
			var out BatchOutput
			if res := call(t, cs, ToolBatch, batch(15, "x"), &out); res.IsError || len(out.Results) != 15 {
				t.Fatalf("batch of 15: %+v", res)
			}
			text = errorText(t, call(t, cs, ToolBatch, batch(2, "y"), nil))
			if !strings.Contains(text, "too many tool calls") || !strings.Contains(text, "Wait") {
				t.Errorf("over the burst: %q", text)
			}
			// Free calls still pass.
			var countries CountriesOutput
			if res := call(t, cs, ToolCountries, map[string]any{}, &countries); res.IsError {
				t.Errorf("free call refused: %s", errorText(t, res))
			}
		})
	}
}
