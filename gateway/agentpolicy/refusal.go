package agentpolicy

import (
	"fmt"
	"net/http"
	"time"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/gateway"
	"github.com/adreswijzer/adreswijzer/gateway/agentpolicy/limits"
	"github.com/adreswijzer/adreswijzer/gateway/agentpolicy/rpcinspect"
	"github.com/adreswijzer/adreswijzer/gateway/apierr"
)

// Recast answers a refusal of tool calls with tool results (status 200, isError set, the
// refusal as structured content) that the agent's model reads: the plan's rate (429), a 5xx
// when no worker answered, and whatever else refuses a request of nothing but tool calls
// for a reason that is not the request's fault. HTTP headers such as Retry-After stay. A
// request that also holds other messages (a JSON-RPC batch with initialize, say), or no tool
// call that can be answered, keeps the HTTP refusal: a tool result cannot answer those.
// Refusals about the request itself (401, 403, 413) never get here with a body, or are the
// HTTP transport's business.
func (x *Extension) Recast(r *http.Request, d *gateway.Decision, e *apierr.Error) *apierr.Error {
	if d.Route != gateway.RouteAgent || e.Reply != nil || len(d.Body) == 0 ||
		e.Status != http.StatusTooManyRequests && e.Status < http.StatusInternalServerError {
		return e
	}
	req, err := rpcinspect.Inspect(d.Body, nil)
	if err != nil {
		return e
	}
	return reply(r, req, e, toolError(e))
}

// reply answers req's tool calls with te when every message of req is a tool call to
// answer, and returns e unchanged otherwise. The answer keeps e's headers (Retry-After) and
// code, for logs and tests.
func reply(r *http.Request, req rpcinspect.Request, e *apierr.Error, te rpcinspect.ToolError) *apierr.Error {
	if answered(req) == 0 || answered(req) < req.Messages {
		return e
	}
	out := *e
	out.Status, out.Reply = http.StatusOK, rpcinspect.Refusal(req, r.Header.Get("MCP-Protocol-Version"), te)
	return &out
}

// toolError is a refusal of the gateway as a tool error, in words for the model: what
// happened, what to do instead of retrying, and that the address may be accepted as given.
func toolError(e *apierr.Error) rpcinspect.ToolError {
	b := rpcinspect.ToolErrorBody{Code: e.Code, UpgradeURL: e.UpgradeURL, AcceptAsTyped: true}
	if e.RetryAfter > 0 {
		b.RetryAfterSeconds = apierr.RetryAfterSeconds(e.RetryAfter)
	}
	switch {
	case e.Code == adreswijzer.ErrRateLimited && b.RetryAfterSeconds > 0:
		b.Message = fmt.Sprintf("Refused: too many requests with this credential. Wait %s before the next call; "+
			"do not resend calls in a loop. Meanwhile the address may be accepted as the person gave it and verified later.",
			seconds(b.RetryAfterSeconds))
	case e.Code == adreswijzer.ErrQuotaExceeded:
		b.Message = "Refused: this account has used its verifications for this month. Do not retry this month: " +
			"accept addresses as the person gave them and verify them later, or ask the account owner to upgrade the plan"
		if e.UpgradeURL != "" {
			b.Message += " at " + e.UpgradeURL
		}
		b.Message += "."
	case e.Status >= http.StatusInternalServerError:
		b.Message = "The address register is temporarily unavailable. Accept the address as the person gave it and " +
			"verify it later. Do not retry this call in a loop."
	default:
		b.Message = e.Message
		if e.NextStep != "" {
			b.Message += " " + e.NextStep
		}
	}
	return rpcinspect.ToolError{Error: b}
}

// limitsError is a refusal of the agent limits, whose message is already written for the
// model.
func limitsError(dec limits.Decision) rpcinspect.ToolError {
	b := rpcinspect.ToolErrorBody{Code: refusalCode[dec.Reason], Message: dec.Message, AcceptAsTyped: true}
	if dec.RetryAfter > 0 {
		b.RetryAfterSeconds = apierr.RetryAfterSeconds(dec.RetryAfter)
	}
	return rpcinspect.ToolError{Error: b}
}

// limitsRefusal is the HTTP refusal of the agent limits, for a request a tool result cannot
// answer: the spec's 429.
func limitsRefusal(dec limits.Decision) *apierr.Error {
	if dec.Reason == limits.ReasonDaily {
		e := apierr.DailyCapReached(dec.RetryAfter)
		e.Message = dec.Message
		return e
	}
	return apierr.RateLimited(max(dec.RetryAfter, time.Second))
}

// seconds writes "1 second" or "n seconds".
func seconds(n int) string {
	if n == 1 {
		return "1 second"
	}
	return fmt.Sprintf("%d seconds", n)
}
