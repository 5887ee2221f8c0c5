package caddymodule_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/gateway/agentpolicy/rpcinspect"
	"github.com/adreswijzer/adreswijzer/gateway/gatewaytest"
	"github.com/adreswijzer/adreswijzer/gateway/keys"
)

// rawToolCall is a tools/call request of the stateless revision, sent without a session, for
// what the SDK's client does not show: the HTTP status and headers of a refusal.
func rawToolCall(id int, tool string, args any) ([]byte, map[string]string) {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": map[string]any{
		"name": tool, "arguments": args, "_meta": map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28",
			"io.modelcontextprotocol/clientCapabilities": map[string]any{}}}})
	return b, map[string]string{"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2026-07-28",
		"Mcp-Method": "tools/call", "Mcp-Name": tool}
}

// refusal is a JSON-RPC answer of the gateway to refused tool calls.
type refusal struct {
	ID     int `json:"id"`
	Result struct {
		IsError    bool   `json:"isError"`
		ResultType string `json:"resultType"`
		Content    []struct {
			Type, Text string
		} `json:"content"`
		StructuredContent rpcinspect.ToolError `json:"structuredContent"`
	} `json:"result"`
}

// refused reads a raw answer as a refusal of tool call id: status 200, a tool result with
// isError, the code, and the seconds to wait as in the Retry-After header (none when
// retryAfter is false). Every refusal says the address may be accepted as typed.
func refused(t *testing.T, what string, a answer, id int, code adreswijzer.ErrorCode, retryAfter bool) rpcinspect.ToolErrorBody {
	t.Helper()
	var r refusal
	if err := json.Unmarshal(a.body, &r); err != nil || a.status != 200 || r.ID != id || !r.Result.IsError {
		t.Errorf("%s: %d %.400s, want a tool result with isError for call %d", what, a.status, a.body, id)
		return rpcinspect.ToolErrorBody{}
	}
	e := r.Result.StructuredContent.Error
	header, _ := strconv.Atoi(a.header.Get("Retry-After"))
	switch {
	case e.Code != code || !e.AcceptAsTyped || e.Message == "" || len(r.Result.Content) == 0 || r.Result.Content[0].Text != e.Message:
		t.Errorf("%s: structured refusal %+v, want %s, acceptable as typed, with the text", what, e, code)
	case retryAfter && (e.RetryAfterSeconds < 1 || e.RetryAfterSeconds != header):
		t.Errorf("%s: retryAfterSeconds %d, Retry-After %q: want the same seconds", what, e.RetryAfterSeconds, a.header.Get("Retry-After"))
	case !retryAfter && (e.RetryAfterSeconds != 0 || a.header.Get("Retry-After") != ""):
		t.Errorf("%s: says when to retry (%d, %q); waiting does not help", what, e.RetryAfterSeconds, a.header.Get("Retry-After"))
	}
	return e
}

// The spec's agent limits as an agent meets them: bursts of 20 tool calls (then a tool
// error the model reads, with Retry-After), the same call at most 5 times a minute (then
// "stop retrying"), a daily cap; the free tool is never refused for the rate; refused calls
// are not counted as verifications.
func TestAgentLimits(t *testing.T) {
	t.Run("burst and repeat", func(t *testing.T) {
		g := startGateway(t, gatewayConfig{upstream: upstream(t), extra: agentExtension(), keys: []keys.Options{
			{Name: "burst", Kind: keys.Live, Account: "acct-burst"},
			{Name: "repeat", Kind: keys.Live, Account: "acct-repeat"},
			{Name: "test", Kind: keys.Test, Account: "acct-agent-test"},
		}})
		cs := g.connectAgent(t, g.secrets["burst"], "2025-06-18")
		start := time.Now()
		allowed := 0
		var text string
		for i := range 40 {
			res := callTool(t, cs, rpcinspect.ToolLookup, map[string]any{"country": "NL", "postcode": "1381 CS", "houseNumber": i + 1}, nil)
			if res.IsError {
				text = toolText(res)
				break
			}
			allowed++
		}
		// 20 at once, and one more for every second the calls took (60 a minute).
		if most := 20 + int(time.Since(start)/time.Second) + 1; allowed < 20 || allowed > most {
			t.Errorf("%d calls allowed in %v, want the burst of 20", allowed, time.Since(start))
		}
		if !strings.Contains(text, "too many tool calls") || !strings.Contains(text, "bursts of 20") || !strings.Contains(text, "Wait") {
			t.Errorf("refusal the model reads: %q", text)
		}
		// The same refusal over plain HTTP: a tool result with status 200, and Retry-After.
		body, h := rawToolCall(7, rpcinspect.ToolVerify, map[string]any{"address": weespValid})
		a := g.do(req{path: "/mcp", key: "burst", body: body, headers: h})
		var r refusal
		if err := json.Unmarshal(a.body, &r); err != nil || a.status != 200 || r.ID != 7 || !r.Result.IsError || r.Result.ResultType != "complete" {
			t.Errorf("raw refusal: %d %s", a.status, a.body)
		}
		if s, err := strconv.Atoi(a.header.Get("Retry-After")); err != nil || s < 1 || s > 2 {
			t.Errorf("Retry-After %q, want a second or two", a.header.Get("Retry-After"))
		}
		refused(t, "over the burst", a, 7, adreswijzer.ErrRateLimited, true)
		// The free tool passes the rate.
		if res := callTool(t, cs, rpcinspect.ToolListCountries, map[string]any{}, nil); res.IsError {
			t.Errorf("list_supported_countries refused: %s", toolText(res))
		}
		g.waitUsageFor(t, "acct-burst", int64(allowed))

		// The repeat rule: five identical calls pass, the sixth tells the model to stop.
		cs = g.connectAgent(t, g.secrets["repeat"], "2026-07-28")
		args := map[string]any{"address": harenNL}
		for i := range 5 {
			if res := callTool(t, cs, rpcinspect.ToolVerify, args, nil); res.IsError {
				t.Fatalf("identical call %d refused: %s", i+1, toolText(res))
			}
		}
		res := callTool(t, cs, rpcinspect.ToolVerify, map[string]any{"address": harenNL}, nil)
		if !res.IsError || !strings.Contains(toolText(res), "Stop retrying") || !strings.Contains(toolText(res), "more than 5 times within a minute") {
			t.Errorf("sixth identical call: %q", toolText(res))
		}
		// Key order and spacing do not make a different call.
		body, h = rawToolCall(8, rpcinspect.ToolVerify, json.RawMessage(`{ "address" : "`+harenNL+`" }`))
		a = g.do(req{path: "/mcp", key: "repeat", body: body, headers: h})
		if err := json.Unmarshal(a.body, &r); err != nil || !r.Result.IsError || !strings.Contains(r.Result.Content[0].Text, "Stop retrying") {
			t.Errorf("respelled repeat: %s", a.body)
		}
		refused(t, "repeat", a, 8, adreswijzer.ErrRateLimited, false)
		// Another call still passes.
		mustVerify(t, cs, map[string]any{"address": harenFR})
		g.waitUsageFor(t, "acct-repeat", 6)

		// Test keys: the agent limits apply; nothing is counted.
		cs = g.connectAgent(t, g.secrets["test"], "2025-06-18")
		mustVerify(t, cs, map[string]any{"address": malmedy})
		g.stableUsage("acct-agent-test", 0)
	})

	// list_supported_countries is "not counted": its arguments are always {}, so the repeat
	// rule, which counts per account, would refuse the sixth agent session of a minute that
	// starts with it. Only the HTTP request rate every request meets bounds it.
	t.Run("free tool", func(t *testing.T) {
		g := startGateway(t, gatewayConfig{upstream: upstream(t), extra: "limit live 10/m burst 10\n\t\t\t" + agentExtension(),
			keys: []keys.Options{
				{Name: "a", Kind: keys.Live, Account: "acct-free"},
				{Name: "b", Kind: keys.Live, Account: "acct-free"},
			}})
		free := func(id int, key string) answer {
			body, h := rawToolCall(id, rpcinspect.ToolListCountries, map[string]any{})
			return g.do(req{path: "/mcp", key: key, body: body, headers: h})
		}
		start := time.Now()
		// Eight identical calls of one account in a minute, from two keys: all served.
		for i := range 8 {
			a := free(i, []string{"a", "b"}[i%2])
			var r refusal
			if err := json.Unmarshal(a.body, &r); err != nil || a.status != 200 || r.Result.IsError {
				t.Fatalf("call %d of the free tool: %d %.300s", i+1, a.status, a.body)
			}
		}
		// Key a has sent four of its ten requests a minute: six more pass, then its requests
		// are refused for the plan's request rate, free tool or not: as a tool result the
		// model reads, with Retry-After. A request without tool calls gets the 429.
		passed := 0
		for i := range 10 {
			a := free(100+i, "a")
			var r refusal
			if err := json.Unmarshal(a.body, &r); err == nil && r.Result.IsError {
				refused(t, "free tool over the request rate", a, 100+i, adreswijzer.ErrRateLimited, true)
				expect(t, "tools/list over the request rate", g.do(req{path: "/mcp", key: "a", body: toolsList, headers: mcpHeaders}),
					429, adreswijzer.ErrRateLimited)
				break
			}
			if a.status != 200 {
				t.Fatalf("free call %d: %d %.300s", i+1, a.status, a.body)
			}
			passed++
		}
		if most := 6 + int(time.Since(start)/(6*time.Second)); passed < 6 || passed > most {
			t.Errorf("%d more requests passed the request rate, want the 6 left of the burst", passed)
		}
		g.stableUsage("acct-free", 0)
	})

	t.Run("daily", func(t *testing.T) {
		g := startGateway(t, gatewayConfig{upstream: upstream(t), extra: agentExtension(generous, "daily 25"),
			keys: []keys.Options{{Name: "daily", Kind: keys.Live, Account: "acct-daily-agent"}}})
		cs := g.connectAgent(t, g.secrets["daily"], "2026-07-28")
		var batch struct{ Results []struct{ ID string } }
		if res := callTool(t, cs, rpcinspect.ToolVerifyBatch, batchOf(20, weespValid, malmedy), &batch); res.IsError || len(batch.Results) != 20 {
			t.Fatalf("batch of 20: %s", toolText(res))
		}
		// Five left: a batch of six is refused whole, says that five remain, and takes nothing
		// of them.
		res := callTool(t, cs, rpcinspect.ToolVerifyBatch, batchOf(6, harenNL), nil)
		if !res.IsError || !strings.Contains(toolText(res), "past its 25 tool calls for today (UTC); 5 calls remain today") {
			t.Errorf("batch over the daily cap: %q", toolText(res))
		}
		for i := range 5 {
			mustVerify(t, cs, map[string]any{"address": lembeekBox, "lang": []string{"nl", "fr", "de", "en", "nl"}[i], "carrier": []string{"bpost", "bpost", "bpost", "bpost", "dhl"}[i]})
		}
		body, h := rawToolCall(9, rpcinspect.ToolVerify, map[string]any{"address": weespValid, "lang": "en"})
		a := g.do(req{path: "/mcp", key: "daily", body: body, headers: h})
		var r refusal
		if err := json.Unmarshal(a.body, &r); err != nil || a.status != 200 || !r.Result.IsError ||
			!strings.Contains(r.Result.Content[0].Text, "used its 25 tool calls for today") ||
			!strings.Contains(r.Result.Content[0].Text, "Do not retry before 00:00 UTC") {
			t.Errorf("26th call: %d %s", a.status, a.body)
		}
		refused(t, "26th call", a, 9, adreswijzer.ErrDailyCapReached, true)
		now := time.Now().UTC()
		untilMidnight := time.Date(now.Year(), now.Month(), now.Day()+1, 0, 0, 0, 0, time.UTC).Sub(now)
		if s, err := strconv.Atoi(a.header.Get("Retry-After")); err != nil || time.Duration(s)*time.Second < untilMidnight-time.Minute ||
			time.Duration(s)*time.Second > untilMidnight+time.Minute {
			t.Errorf("Retry-After %q, want the %v until midnight UTC", a.header.Get("Retry-After"), untilMidnight)
		}
		g.stableUsage("acct-daily-agent", 25)
	})

	// A test key's daily cap counts its tool calls, not the agent's HTTP requests: the
	// session's initialize and tools/list and the free tool take none of it, a batch takes
	// one per item, a refused batch takes nothing, and REST calls share the same day.
	t.Run("test key", func(t *testing.T) {
		g := startGateway(t, gatewayConfig{upstream: upstream(t), extra: "test_daily_cap 4\n\t\t\tlimit test 100/s burst 100\n\t\t\t" + agentExtension(generous),
			keys: []keys.Options{{Name: "test", Kind: keys.Test, Account: "acct-test-cap"}}})
		for _, version := range []string{"2025-06-18", "2026-07-28"} {
			cs := g.connectAgent(t, g.secrets["test"], version)
			for range 4 { // eight sessions' first call in all: the free tool is never a repeat
				if res := callTool(t, cs, rpcinspect.ToolListCountries, map[string]any{}, nil); res.IsError {
					t.Fatalf("free tool refused: %s", toolText(res))
				}
			}
		}
		cs := g.connectAgent(t, g.secrets["test"], "2026-07-28")
		if res := callTool(t, cs, rpcinspect.ToolVerifyBatch, batchOf(2, weespValid, malmedy), nil); res.IsError {
			t.Fatalf("batch of 2: %s", toolText(res))
		}
		res := callTool(t, cs, rpcinspect.ToolVerifyBatch, batchOf(3, harenNL), nil)
		if !res.IsError || !strings.Contains(toolText(res), "these 3 tool calls (a batch counts each address) would take this test key past its 4 "+
			"tool calls for today (UTC); 2 calls remain today") {
			t.Errorf("batch over the cap: %q", toolText(res))
		}
		mustVerify(t, cs, map[string]any{"address": harenNL})
		expect(t, "REST call within the day", g.do(req{path: "/v1/nl/lookup?postcode=1381CS&number=1", key: "test"}), 200, "")
		body, h := rawToolCall(3, rpcinspect.ToolLookup, map[string]any{"country": "NL", "postcode": "1381 CS", "houseNumber": 2})
		a := g.do(req{path: "/mcp", key: "test", body: body, headers: h})
		var r refusal
		if err := json.Unmarshal(a.body, &r); err != nil || a.status != 200 || r.ID != 3 || !r.Result.IsError ||
			!strings.Contains(r.Result.Content[0].Text, "use a live key") || a.header.Get("Retry-After") == "" {
			t.Errorf("fifth call: %d %s", a.status, a.body)
		}
		refused(t, "fifth call of a test key", a, 3, adreswijzer.ErrDailyCapReached, true)
		// Members spelled another way do not get a call past the cap: the SDK matches member
		// names exactly and lets the last of two win, and so does the gateway's reading.
		for i, tc := range []struct{ name, from, to string }{
			{"method in capitals", `"method":"tools/call"`, `"method":"tools/call","METHOD":"tools/list"`},
			{"method twice", `"method":"tools/call"`, `"method":"tools/list","method":"tools/call"`},
			{"tool name in capitals", `"name":"lookup_address"`, `"name":"lookup_address","NAME":"list_supported_countries"`},
			{"tool name twice", `"name":"lookup_address"`, `"name":"list_supported_countries","name":"lookup_address"`},
			{"method with a capital", `"method":"tools/call"`, `"Method":"initialize","method":"tools/call"`},
		} {
			b := strings.Replace(string(body), tc.from, tc.to, 1)
			// Another number each time, so that the repeat rule does not answer first.
			b = strings.Replace(b, `"houseNumber":2`, fmt.Sprintf(`"houseNumber":%d`, 10+i), 1)
			a := g.do(req{path: "/mcp", key: "test", body: []byte(b), headers: h})
			if err := json.Unmarshal(a.body, &r); err != nil || r.ID != 3 || !r.Result.IsError || !strings.Contains(r.Result.Content[0].Text, "use a live key") {
				t.Errorf("%s: a call past the cap was not refused: %d %s", tc.name, a.status, a.body)
			}
		}
		expect(t, "REST call past the cap", g.do(req{path: "/v1/nl/lookup?postcode=1381CS&number=1", key: "test"}), 429, adreswijzer.ErrDailyCapReached)
		// With none left, a batch is told so, not that fewer addresses may pass.
		if res := callTool(t, cs, rpcinspect.ToolVerifyBatch, batchOf(2, lembeekBox), nil); !res.IsError ||
			!strings.Contains(toolText(res), "this test key has used its 4 tool calls for today") || strings.Contains(toolText(res), "remain") {
			t.Errorf("batch with no calls left: %q", toolText(res))
		}
		if res := callTool(t, cs, rpcinspect.ToolListCountries, map[string]any{}, nil); res.IsError {
			t.Errorf("free tool refused past the cap: %s", toolText(res))
		}
		g.stableUsage("acct-test-cap", 0)
	})
}

// The agent limits in the shared Redis, under the run's prefix, and on the gateway's own
// memory while Redis is away.
func TestAgentLimitsRedis(t *testing.T) {
	t.Run("shared", func(t *testing.T) {
		rdb, prefix := gatewaytest.Redis(t)
		t.Setenv("ADRESWIJZER_TEST_REDIS_URL", "redis://"+gatewaytest.RedisAddr())
		g := startGateway(t, gatewayConfig{upstream: upstream(t),
			extra: fmt.Sprintf("redis {env.ADRESWIJZER_TEST_REDIS_URL}\nredis_prefix %s\nredis_timeout 1s\n%s", prefix, agentExtension("rate 1/h burst 3")),
			keys:  []keys.Options{{Name: "live", Kind: keys.Live, Account: "acct-agent-redis"}}})
		cs := g.connectAgent(t, g.secrets["live"], "2025-06-18")
		for _, a := range []string{weespValid, harenNL, malmedy} {
			mustVerify(t, cs, map[string]any{"address": a})
		}
		if res := callTool(t, cs, rpcinspect.ToolVerify, map[string]any{"address": lembeekBox}, nil); !res.IsError {
			t.Error("fourth call allowed with a burst of 3")
		}
		ctx := context.Background()
		tat, err := rdb.Get(ctx, prefix+"agent:rate:acct-agent-redis").Int64()
		if err != nil || tat <= 0 {
			t.Errorf("no rate state in Redis: %v", err)
		}
		if ttl := rdb.PTTL(ctx, prefix+"agent:rate:acct-agent-redis").Val(); ttl < 2*time.Hour || ttl > 3*time.Hour+time.Second {
			t.Errorf("rate state expires in %v, want when its three hours are paid off", ttl)
		}
		n, err := rdb.Get(ctx, prefix+"agent:daily:acct-agent-redis:"+time.Now().UTC().Format(time.DateOnly)).Int()
		if err != nil || n != 3 {
			t.Errorf("daily count in Redis %d (%v), want 3", n, err)
		}
		if keys := rdb.Keys(ctx, prefix+"agent:repeat:acct-agent-redis:*").Val(); len(keys) != 4 {
			t.Errorf("%d repeat counters, want 4", len(keys))
		} else {
			for _, k := range keys {
				for _, s := range []string{"Weesp", "Haren", "Hugo", "1381"} {
					if strings.Contains(k, s) {
						t.Errorf("a Redis key holds what the agent sent: %s", k)
					}
				}
			}
		}
	})

	t.Run("killed", func(t *testing.T) {
		srv := gatewaytest.StartRedisServer(t)
		g := startGateway(t, gatewayConfig{upstream: upstream(t),
			extra: fmt.Sprintf("redis %s\nredis_prefix gw:\nredis_timeout 200ms\n%s", srv.URL(), agentExtension("rate 1/h burst 2")),
			keys:  []keys.Options{{Name: "live", Kind: keys.Live, Account: "acct-agent-kill"}}})
		cs := g.connectAgent(t, g.secrets["live"], "2025-06-18")
		mustVerify(t, cs, map[string]any{"address": weespValid})
		if len(srv.Keys("gw:agent:rate:*")) != 1 {
			t.Fatal("the agent limits do not use Redis")
		}
		srv.Kill()
		// Local state, with a budget of its own, decides now, without waiting for Redis.
		start := time.Now()
		allowed, refused := 0, 0
		for _, a := range []string{harenNL, malmedy, lembeekBox, harenFR} {
			res := callTool(t, cs, rpcinspect.ToolVerify, map[string]any{"address": a}, nil)
			if res.IsError && strings.Contains(toolText(res), "too many tool calls") {
				refused++
			} else if !res.IsError {
				allowed++
			}
		}
		if allowed != 2 || refused != 2 {
			t.Errorf("without Redis: %d allowed, %d refused; want the local burst of 2, then refusals", allowed, refused)
		}
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("four calls without Redis took %v", d)
		}
	})
}
