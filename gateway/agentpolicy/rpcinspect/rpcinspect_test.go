package rpcinspect

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/adreswijzer/adreswijzer"
)

func call(id int, tool, args string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, tool, args)
}

func batchArgs(n int) string {
	items := make([]string, n)
	for i := range items {
		items[i] = fmt.Sprintf(`{"id":"%d","address":"Achtergracht %d, 1381 BN Weesp"}`, i, i+1)
	}
	return `{"addresses":[` + strings.Join(items, ",") + `]}`
}

func TestCosts(t *testing.T) {
	cases := []struct {
		name  string
		body  string
		tools []string
		costs []int
		batch bool
	}{
		{name: "verify", body: call(1, "verify_address", `{"address":"Achtergracht 1, 1381 BN Weesp"}`),
			tools: []string{"verify_address"}, costs: []int{1}},
		{name: "lookup", body: call(2, "lookup_address", `{"country":"NL","postcode":"1382KB","houseNumber":51}`),
			tools: []string{"lookup_address"}, costs: []int{1}},
		{name: "suggest", body: call(3, "suggest_address", `{"country":"BE","query":"rue du pre"}`),
			tools: []string{"suggest_address"}, costs: []int{1}},
		{name: "list countries is free", body: call(4, "list_supported_countries", `{}`),
			tools: []string{"list_supported_countries"}, costs: []int{0}},
		{name: "batch counts its items", body: call(5, "verify_addresses_batch", batchArgs(37)),
			tools: []string{"verify_addresses_batch"}, costs: []int{37}},
		{name: "batch of the maximum", body: call(5, "verify_addresses_batch", batchArgs(100)),
			tools: []string{"verify_addresses_batch"}, costs: []int{100}},
		{name: "batch over the maximum is refused by the tool and costs one", body: call(6, "verify_addresses_batch", batchArgs(101)),
			tools: []string{"verify_addresses_batch"}, costs: []int{1}},
		{name: "empty batch", body: call(7, "verify_addresses_batch", `{"addresses":[]}`),
			tools: []string{"verify_addresses_batch"}, costs: []int{1}},
		{name: "batch without addresses", body: call(7, "verify_addresses_batch", `{"items":[1,2,3]}`),
			tools: []string{"verify_addresses_batch"}, costs: []int{1}},
		{name: "unknown tool costs one", body: call(8, "delete_everything", `{}`),
			tools: []string{"delete_everything"}, costs: []int{1}},
		{name: "broken params cost one", body: `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":[1,2]}`,
			tools: []string{""}, costs: []int{1}},
		{name: "a method member in capitals is another member, as the SDK reads it",
			body:  `{"jsonrpc":"2.0","id":2,"method":"tools/call","METHOD":"tools/list","params":{"name":"verify_address","arguments":{}}}`,
			tools: []string{"verify_address"}, costs: []int{1}},
		{name: "a tool name in capitals is another member",
			body:  `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"verify_address","NAME":"list_supported_countries"}}`,
			tools: []string{"verify_address"}, costs: []int{1}},
		{name: "bytes after the message, which the SDK's decoder leaves unread, do not hide the call",
			body: call(2, "verify_address", `{"address":"x"}`) + " x", tools: []string{"verify_address"}, costs: []int{1}},
		{name: "only a method in capitals is no call", body: `{"jsonrpc":"2.0","id":2,"METHOD":"tools/call","params":{"name":"verify_address"}}`},
		{name: "initialize is no call", body: `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`},
		{name: "tools/list is no call", body: `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`},
		{name: "notification is no call", body: `{"jsonrpc":"2.0","method":"notifications/initialized"}`},
		{name: "batch of calls", batch: true,
			body:  "[" + call(1, "verify_address", `{"address":"x"}`) + "," + `{"jsonrpc":"2.0","method":"notifications/initialized"}` + "," + call(2, "verify_addresses_batch", batchArgs(3)) + "]",
			tools: []string{"verify_address", "verify_addresses_batch"}, costs: []int{1, 3}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, err := Inspect([]byte(tc.body), nil)
			if err != nil {
				t.Fatal(err)
			}
			if req.Batch != tc.batch {
				t.Errorf("batch = %v", req.Batch)
			}
			var tools []string
			var costs []int
			total := 0
			for _, c := range req.Calls {
				tools = append(tools, c.Tool)
				costs = append(costs, c.Cost)
				total += c.Cost
				if len(c.Fingerprint) != 32 {
					t.Errorf("fingerprint %q is not 16 bytes of hex", c.Fingerprint)
				}
			}
			if fmt.Sprint(tools) != fmt.Sprint(tc.tools) || fmt.Sprint(costs) != fmt.Sprint(tc.costs) {
				t.Errorf("calls %v costs %v, want %v %v", tools, costs, tc.tools, tc.costs)
			}
			if req.Cost() != total {
				t.Errorf("Cost() = %d, want %d", req.Cost(), total)
			}
		})
	}
}

// A batch is charged its items only when the tool's input schema lets it through to be
// verified: "addresses" an array of 1 to 100 objects, each with the id the schema requires,
// as a string of 1 to 100 characters, not all spaces. The schema fails the whole call for one bad item, so anything else is one
// call, as any call the server answers with an error is.
func TestBatchCost(t *testing.T) {
	items := func(n int, item string) string {
		return `{"addresses":[` + strings.TrimSuffix(strings.Repeat(item+",", n), ",") + `]}`
	}
	good := `{"id":"o-1","address":"Achtergracht 1, 1381 BN Weesp"}`
	for _, tc := range []struct {
		name string
		args string
		cost int
	}{
		{"well-formed", items(100, good), 100},
		{"one item", items(1, good), 1},
		{"id only", items(3, `{"id":"x"}`), 3},
		{"spaces around the id", items(2, `{ "id" : "x" , "zip":"1381 BN" }`), 2},
		{"an id twice, the last a string", items(2, `{"id":7,"id":"x"}`), 2},
		{"items without id", items(100, `{"address":"Achtergracht 1, 1381 BN Weesp"}`), 1},
		{"one item without id", `{"addresses":[` + strings.Repeat(good+",", 99) + `{"zip":"1381 BN"}]}`, 1},
		{"id in capitals, another member to the schema", items(10, `{"ID":"x"}`), 1},
		{"id of 100 characters", items(2, `{"id":"`+strings.Repeat("é", 100)+`"}`), 2},
		{"id with a space inside", items(2, `{"id":" order 1 "}`), 2},
		{"id of other spaces, which Go's \\S takes for characters", items(2, `{"id":"\u3000"}`), 2},
		{"id with escapes", items(2, `{"id":"a\\\"b\u00e9"}`), 2},
		{"id of an escaped space", items(10, `{"id":"\u0020"}`), 1},
		{"empty id", items(10, `{"id":""}`), 1},
		{"id of spaces", items(10, `{"id":" \t\n"}`), 1},
		{"id over 100 characters", items(10, `{"id":"`+strings.Repeat("7", 101)+`"}`), 1},
		{"numeric id", items(10, `{"id":7}`), 1},
		{"null id", items(10, `{"id":null}`), 1},
		{"object id", items(10, `{"id":{"x":"y"}}`), 1},
		{"items that are strings", items(10, `"Achtergracht 1, 1381 BN Weesp"`), 1},
		{"items that are null", items(10, `null`), 1},
		{"items that are arrays", items(10, `["x"]`), 1},
		{"one item null", `{"addresses":[` + strings.Repeat(good+",", 9) + `null]}`, 1},
		{"over the maximum", items(101, good), 1},
		{"empty", `{"addresses":[]}`, 1},
		{"null addresses", `{"addresses":null}`, 1},
		{"addresses an object", `{"addresses":{"id":"x"}}`, 1},
		{"no addresses", `{"lang":"en"}`, 1},
		{"arguments an array", `[` + good + `]`, 1},
		{"no arguments", `null`, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, err := Inspect([]byte(call(1, ToolVerifyBatch, tc.args)), nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(req.Calls) != 1 || req.Calls[0].Cost != tc.cost {
				t.Errorf("calls %+v, want one costing %d", req.Calls, tc.cost)
			}
		})
	}
}

// The sessionId of the address tools, as the tool's schema takes it, and customerConfirmed of
// a verify: what the counting of sessions reads. A sessionId the schema refuses counts as
// none (the call is refused and given back); the batch and the free tool take none.
func TestSession(t *testing.T) {
	for _, tc := range []struct {
		name, tool, args string
		session          string
		confirmed        bool
	}{
		{"verify", ToolVerify, `{"address":"x","sessionId":"addr-1"}`, "addr-1", false},
		{"lookup", ToolLookup, `{"country":"NL","sessionId":"a.b:c_d-1"}`, "a.b:c_d-1", false},
		{"suggest", ToolSuggest, `{"query":"x","sessionId":"` + strings.Repeat("s", 64) + `"}`, strings.Repeat("s", 64), false},
		{"confirmed verify", ToolVerify, `{"address":"x","sessionId":"s","customerConfirmed":true}`, "s", true},
		{"confirmed without session", ToolVerify, `{"address":"x","customerConfirmed":true}`, "", true},
		{"confirmed is a verify's only", ToolLookup, `{"sessionId":"s","customerConfirmed":true}`, "s", false},
		{"confirmed false", ToolVerify, `{"sessionId":"s","customerConfirmed":false}`, "s", false},
		{"no session", ToolVerify, `{"address":"x"}`, "", false},
		{"session with a space", ToolVerify, `{"sessionId":"a b"}`, "", false},
		{"session too long", ToolVerify, `{"sessionId":"` + strings.Repeat("s", 65) + `"}`, "", false},
		{"empty session", ToolVerify, `{"sessionId":""}`, "", false},
		{"session a number", ToolVerify, `{"sessionId":12}`, "", false},
		{"session in capitals is another member", ToolVerify, `{"SESSIONID":"s"}`, "", false},
		{"the batch takes none", ToolVerifyBatch, `{"sessionId":"s","addresses":[{"id":"1"}]}`, "", false},
		{"arguments not an object", ToolVerify, `["sessionId"]`, "", false},
	} {
		req, err := Inspect([]byte(call(1, tc.tool, tc.args)), nil)
		if err != nil || len(req.Calls) != 1 {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if c := req.Calls[0]; c.Session != tc.session || c.Confirmed != tc.confirmed {
			t.Errorf("%s: session %q confirmed %v, want %q %v", tc.name, c.Session, c.Confirmed, tc.session, tc.confirmed)
		}
	}
}

func TestMalformed(t *testing.T) {
	for _, body := range []string{"", "   ", "null", "42", `"x"`, "[]", "{", `[{"method":`, `{"method":1}`} {
		if _, err := Inspect([]byte(body), nil); !errors.Is(err, ErrMalformed) {
			t.Errorf("Inspect(%q) = %v, want ErrMalformed", body, err)
		}
	}
}

func fp(t *testing.T, body string, key []byte) string {
	t.Helper()
	req, err := Inspect([]byte(body), key)
	if err != nil {
		t.Fatal(err)
	}
	if len(req.Calls) != 1 {
		t.Fatalf("%d calls", len(req.Calls))
	}
	return req.Calls[0].Fingerprint
}

func TestFingerprintStable(t *testing.T) {
	base := fp(t, call(1, "verify_address", `{"address":"Achtergracht 1, 1381 BN Weesp","lang":"en","customerConfirmed":false}`), nil)
	same := []string{
		// Another id, keys reordered, spacing, the params' keys reordered, _meta added.
		call(2, "verify_address", `{"lang":"en","customerConfirmed":false,"address":"Achtergracht 1, 1381 BN Weesp"}`),
		call(3, "verify_address", "{ \"customerConfirmed\" : false ,\n \"address\" : \"Achtergracht 1, 1381 BN Weesp\", \"lang\":\"en\" }"),
		`{"params":{"arguments":{"lang":"en","address":"Achtergracht 1, 1381 BN Weesp","customerConfirmed":false},"name":"verify_address","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}},"method":"tools/call","id":"abc","jsonrpc":"2.0"}`,
	}
	for _, body := range same {
		if got := fp(t, body, nil); got != base {
			t.Errorf("fingerprint changed for %s", body)
		}
	}
	different := []string{
		call(1, "verify_address", `{"address":"Achtergracht 2, 1381 BN Weesp","lang":"en","customerConfirmed":false}`),
		call(1, "verify_address", `{"address":"Achtergracht 1, 1381 BN Weesp","lang":"nl","customerConfirmed":false}`),
		call(1, "verify_address", `{"address":"Achtergracht 1, 1381 BN Weesp","lang":"en","customerConfirmed":true}`),
		call(1, "verify_address", `{"address":"Achtergracht 1, 1381 BN Weesp","lang":"en"}`),
		call(1, "suggest_address", `{"address":"Achtergracht 1, 1381 BN Weesp","lang":"en","customerConfirmed":false}`),
	}
	for _, body := range different {
		if got := fp(t, body, nil); got == base {
			t.Errorf("same fingerprint for a different call %s", body)
		}
	}
	// Nested objects are canonical too, and numbers compare by value.
	a := fp(t, call(1, "verify_addresses_batch", `{"addresses":[{"id":"1","zip":"1382 KB","address1":"Bloemendalerweg 51"}],"n":1}`), nil)
	b := fp(t, call(1, "verify_addresses_batch", `{"n":1.0,"addresses":[{"address1":"Bloemendalerweg 51","id":"1","zip":"1382 KB"}]}`), nil)
	if a != b {
		t.Error("nested key order or number spelling changed the fingerprint")
	}
	// The order of batch items is part of the request.
	c := fp(t, call(1, "verify_addresses_batch", `{"addresses":[{"id":"2"},{"id":"1"}]}`), nil)
	d := fp(t, call(1, "verify_addresses_batch", `{"addresses":[{"id":"1"},{"id":"2"}]}`), nil)
	if c == d {
		t.Error("reordered batch items gave the same fingerprint")
	}
	// Absent arguments and an empty object are one call.
	if fp(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_supported_countries"}}`, nil) !=
		fp(t, call(1, "list_supported_countries", `{}`), nil) {
		t.Error("absent and empty arguments differ")
	}
}

func TestFingerprintKeyed(t *testing.T) {
	body := call(1, "verify_address", `{"address":"Achtergracht 1, 1381 BN Weesp"}`)
	plain := fp(t, body, nil)
	k1 := fp(t, body, []byte("gateway secret one"))
	k1again := fp(t, body, []byte("gateway secret one"))
	k2 := fp(t, body, []byte("gateway secret two"))
	if k1 != k1again {
		t.Error("keyed fingerprint not stable")
	}
	if k1 == plain || k1 == k2 {
		t.Error("the key does not change the fingerprint")
	}
	if strings.Contains(k1, "Achtergracht") || strings.Contains(plain, "1381") {
		t.Error("fingerprint leaks the address")
	}
}

func TestCanonical(t *testing.T) {
	cases := map[string]string{
		`{"b":1,"a":[true,null,"x"]}`: `{"a":[true,null,"x"],"b":1}`,
		` 1e2 `:                       `100`,
		`{"é":1,"e":2,"z":3}`:         `{"e":2,"z":3,"é":1}`,
		`"<&>"`:                       `"\u003c\u0026\u003e"`,
	}
	for in, want := range cases {
		got, err := Canonical([]byte(in))
		if err != nil || string(got) != want {
			t.Errorf("Canonical(%s) = %s, %v; want %s", in, got, err, want)
		}
	}
	for _, bad := range []string{`{"a":1} {"b":2}`, `{`, ``} {
		if _, err := Canonical([]byte(bad)); err == nil {
			t.Errorf("Canonical(%q) accepted", bad)
		}
	}
}

func TestRefusal(t *testing.T) {
	const msg = "Stop retrying this request."
	te := ToolError{Error: ToolErrorBody{Code: adreswijzer.ErrRateLimited, Message: msg, RetryAfterSeconds: 3, AcceptAsTyped: true}}
	single, _ := Inspect([]byte(call(7, "verify_address", `{"address":"x"}`)), nil)
	var res struct {
		JSONRPC string `json:"jsonrpc"`
		ID      int    `json:"id"`
		Result  struct {
			Content           []struct{ Type, Text string }
			StructuredContent map[string]map[string]any `json:"structuredContent"`
			IsError           bool                      `json:"isError"`
			ResultType        string                    `json:"resultType"`
		} `json:"result"`
	}
	if err := json.Unmarshal(Refusal(single, "2025-06-18", te), &res); err != nil {
		t.Fatal(err)
	}
	if res.JSONRPC != "2.0" || res.ID != 7 || !res.Result.IsError || len(res.Result.Content) != 1 ||
		res.Result.Content[0].Type != "text" || res.Result.Content[0].Text != msg || res.Result.ResultType != "" {
		t.Errorf("refusal %+v", res)
	}
	// The same refusal as structured content, for programs: the code, the seconds to wait,
	// and that the address may be accepted as typed; no upgrade URL where there is none.
	if e := res.Result.StructuredContent["error"]; e["code"] != "RATE_LIMITED" || e["message"] != msg ||
		e["retryAfterSeconds"] != 3.0 || e["acceptAsTyped"] != true || len(e) != 4 {
		t.Errorf("structured content %v", res.Result.StructuredContent)
	}
	if err := json.Unmarshal(Refusal(single, "2026-07-28", te), &res); err != nil || res.Result.ResultType != "complete" {
		t.Errorf("stateless refusal lacks resultType: %+v %v", res, err)
	}
	// The version named in _meta counts when the header gave none.
	meta, _ := Inspect([]byte(`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"verify_address","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`), nil)
	if !strings.Contains(string(Refusal(meta, "", te)), `"resultType":"complete"`) {
		t.Error("version in _meta ignored")
	}
	batch, _ := Inspect([]byte("["+call(1, "verify_address", `{}`)+","+call(2, "lookup_address", `{}`)+"]"), nil)
	var list []json.RawMessage
	if err := json.Unmarshal(Refusal(batch, "2025-03-26", te), &list); err != nil || len(list) != 2 {
		t.Errorf("batch refusal: %d answers, %v", len(list), err)
	}
	none, _ := Inspect([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`), nil)
	if Refusal(none, "", te) != nil {
		t.Error("refusal for a request without tool calls")
	}
}

func FuzzInspect(f *testing.F) {
	f.Add([]byte(call(1, "verify_addresses_batch", batchArgs(2))))
	f.Add([]byte(`[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"a":1e400}}}]`))
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := Inspect(body, []byte("k"))
		if err != nil {
			return
		}
		for _, c := range req.Calls {
			if c.Cost < 0 || c.Cost > MaxBatchItems || len(c.Fingerprint) != 32 {
				t.Fatalf("call %+v", c)
			}
		}
		again, _ := Inspect(body, []byte("k"))
		for i := range req.Calls {
			if again.Calls[i].Fingerprint != req.Calls[i].Fingerprint {
				t.Fatal("fingerprint not deterministic")
			}
		}
	})
}
