package httpapi_test

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/internal/logsink"
	"github.com/adreswijzer/adreswijzer/store/memory"
	"github.com/adreswijzer/adreswijzer/worker/httpapi"
	"github.com/adreswijzer/adreswijzer/worker/match"
	"github.com/adreswijzer/adreswijzer/worker/messages"
	"github.com/adreswijzer/adreswijzer/worker/openapi/openapitest"
)

// Every 4xx the worker gives, with the code openapi.json pairs with the status, a 422
// message that names the parameter, and no answer that repeats what was sent.

// secret is a value no answer may repeat; the tests put it in the parameter at fault.
const secret = "Geheimstraat"

var long = strings.Repeat("ë", adreswijzer.MaxFieldLength+1) // 201 characters, 402 bytes

func TestClientErrors(t *testing.T) {
	d := loadSamples(t)
	base, c := worker(t, newHandler(d.store, nil, httpapi.Options{}))
	q201 := url.QueryEscape(long)
	for _, tc := range []struct {
		e     exchange
		code  adreswijzer.ErrorCode
		param string // named in a 422 message
		allow string // Allow header of a 405
	}{
		// 404 and 405.
		{e: exchange{target: "/v1/nope"}, code: adreswijzer.ErrNotFound},
		{e: exchange{target: "/v1/validate/"}, code: adreswijzer.ErrNotFound},
		{e: exchange{target: "/v1/nl/lookup/extra?postcode=1381CS&number=16"}, code: adreswijzer.ErrNotFound},
		{e: exchange{target: "/v1/a/b/lookup?postcode=1381CS&number=16"}, code: adreswijzer.ErrNotFound},
		{e: exchange{target: "/metrics"}, code: adreswijzer.ErrNotFound},
		{e: exchange{target: "/v1/validate", method: http.MethodPut, body: `{}`}, code: adreswijzer.ErrNotFound, allow: "POST"},
		{e: exchange{target: "/v1/validate", method: http.MethodGet}, code: adreswijzer.ErrNotFound, allow: "POST"},
		{e: exchange{target: "/v1/fr/lookup", body: `{"postcode":"1","number":"1"}`}, code: adreswijzer.ErrNotFound, allow: "GET, HEAD"},
		{e: exchange{target: "/health", method: http.MethodDelete}, code: adreswijzer.ErrNotFound, allow: "GET, HEAD"},
		{e: exchange{target: "/v1/suggest", method: http.MethodPatch, body: `{}`}, code: adreswijzer.ErrNotFound, allow: "GET, HEAD, POST"},
		{e: exchange{target: "/v1/nl/lookup", method: http.MethodOptions}, code: adreswijzer.ErrNotFound, allow: "GET, HEAD, POST"},

		// 422 on lookup: missing, empty, malformed and too long parameters.
		{e: exchange{target: "/v1/nl/lookup?number=16"}, code: adreswijzer.ErrValidationFailed, param: "postcode"},
		{e: exchange{target: "/v1/nl/lookup?postcode=&number=16"}, code: adreswijzer.ErrValidationFailed, param: "postcode"},
		{e: exchange{target: "/v1/nl/lookup?postcode=" + q201 + "&number=16"}, code: adreswijzer.ErrValidationFailed, param: "postcode"},
		{e: exchange{target: "/v1/nl/lookup?postcode=1381CS"}, code: adreswijzer.ErrValidationFailed, param: "number"},
		{e: exchange{target: "/v1/nl/lookup?postcode=1381CS&number=16a"}, code: adreswijzer.ErrValidationFailed, param: "number"},
		{e: exchange{target: "/v1/nl/lookup?postcode=1381CS&number=1234567"}, code: adreswijzer.ErrValidationFailed, param: "number"},
		{e: exchange{target: "/v1/nl/lookup?postcode=1381CS&number=-1"}, code: adreswijzer.ErrValidationFailed, param: "number"},
		{e: exchange{target: "/v1/nl/lookup?postcode=1381CS&number=%EF%BC%91%EF%BC%96"}, code: adreswijzer.ErrValidationFailed, param: "number"},
		{e: exchange{target: "/v1/nl/lookup?postcode=1381CS&number=16&street=" + q201}, code: adreswijzer.ErrValidationFailed, param: "street"},
		{e: exchange{target: "/v1/nl/lookup?postcode=1381CS&number=16&lang=xx"}, code: adreswijzer.ErrValidationFailed, param: "lang"},
		{e: exchange{target: "/v1/nl/lookup?postcode=1381CS&number=16&lang=NL"}, code: adreswijzer.ErrValidationFailed, param: "lang"},
		{e: exchange{target: "/v1/nl/lookup?postcode=1381CS&number=16&lang="}, code: adreswijzer.ErrValidationFailed, param: "lang"},
		{e: exchange{target: "/v1/nl/lookup?postcode=1381CS&number=16&carrier=ups"}, code: adreswijzer.ErrValidationFailed, param: "carrier"},
		{e: exchange{target: "/v1/nl/lookup?postcode=1381CS&number=16&sessionId="}, code: adreswijzer.ErrValidationFailed, param: "sessionId"},
		{e: exchange{target: "/v1/nl/lookup?postcode=1381CS&number=16&sessionId=a%20b"}, code: adreswijzer.ErrValidationFailed, param: "sessionId"},
		{e: exchange{target: "/v1/nl/lookup?postcode=1381CS&number=16&sessionId=" + strings.Repeat("s", 65)}, code: adreswijzer.ErrValidationFailed, param: "sessionId"},
		{e: exchange{target: "/v1/be/lookup?postcode=1502&number=9"}, code: adreswijzer.ErrValidationFailed, param: "street"},
		{e: exchange{target: "/v1/be/lookup?postcode=1502&street=&number=9"}, code: adreswijzer.ErrValidationFailed, param: "street"},
		{e: exchange{target: "/v1/be/lookup?postcode=1502&street=" + secret}, code: adreswijzer.ErrValidationFailed, param: "number"},
		// The generic form checks postcode and number before the country.
		{e: exchange{target: "/v1/fr/lookup?number=1"}, code: adreswijzer.ErrValidationFailed, param: "postcode"},
		{e: exchange{target: "/v1//lookup?postcode=1381CS&number=16"}, code: adreswijzer.ErrValidationFailed, param: "country"},
		{e: exchange{target: "/v1/FR/lookup?postcode=75001&number=1"}, code: adreswijzer.ErrValidationFailed, param: "country"},
		{e: exchange{target: "/v1/fra/lookup?postcode=75001&number=1"}, code: adreswijzer.ErrValidationFailed, param: "country"},
		{e: exchange{target: "/v1/f1/lookup?postcode=75001&number=1"}, code: adreswijzer.ErrValidationFailed, param: "country"},
		{e: exchange{target: "/v1/fra/lookup?postcode=75001"}, code: adreswijzer.ErrValidationFailed, param: "number"},
		// POST lookup: members of the wrong type, missing or too long.
		{e: exchange{target: "/v1/nl/lookup", body: `{"postcode":"1381CS","number":16}`}, code: adreswijzer.ErrValidationFailed, param: "number"},
		{e: exchange{target: "/v1/nl/lookup", body: `{"postcode":null,"number":"16"}`}, code: adreswijzer.ErrValidationFailed, param: "postcode"},
		{e: exchange{target: "/v1/nl/lookup", body: `{"Postcode":"1381CS","number":"16"}`}, code: adreswijzer.ErrValidationFailed, param: "postcode"},
		{e: exchange{target: "/v1/nl/lookup", body: `{"postcode":"1381CS","number":"16","street":null}`}, code: adreswijzer.ErrValidationFailed, param: "street"},
		{e: exchange{target: "/v1/be/lookup", body: `{"postcode":"1502","number":"9","street":"` + long + `"}`}, code: adreswijzer.ErrValidationFailed, param: "street"},
		{e: exchange{target: "/v1/be/lookup", body: `{"postcode":"1502","number":"9","street":"x","lang":null}`}, code: adreswijzer.ErrValidationFailed, param: "lang"},

		// 422 on suggest and autocomplete.
		{e: exchange{target: "/v1/suggest?q=Achter"}, code: adreswijzer.ErrValidationFailed, param: "country"},
		{e: exchange{target: "/v1/suggest?country=&q=Achter"}, code: adreswijzer.ErrValidationFailed, param: "country"},
		{e: exchange{target: "/v1/suggest?country=n&q=Achter"}, code: adreswijzer.ErrValidationFailed, param: "country"},
		{e: exchange{target: "/v1/suggest?country=nld&q=Achter"}, code: adreswijzer.ErrValidationFailed, param: "country"},
		{e: exchange{target: "/v1/suggest?country=nl"}, code: adreswijzer.ErrValidationFailed, param: "q"},
		{e: exchange{target: "/v1/suggest?country=nl&q="}, code: adreswijzer.ErrValidationFailed, param: "q"},
		{e: exchange{target: "/v1/suggest?country=nl&q=" + strings.Repeat("a", 101)}, code: adreswijzer.ErrValidationFailed, param: "q"},
		{e: exchange{target: "/v1/suggest?country=nl&q=Ach&postcode=" + q201}, code: adreswijzer.ErrValidationFailed, param: "postcode"},
		{e: exchange{target: "/v1/suggest?country=nl&q=Ach&lang=dutch"}, code: adreswijzer.ErrValidationFailed, param: "lang"},
		{e: exchange{target: "/v1/suggest?country=nl&q=Ach&sessionId=%C3%A9"}, code: adreswijzer.ErrValidationFailed, param: "sessionId"},
		{e: exchange{target: "/v1/suggest", body: `{"country":"nl","q":["Achter"]}`}, code: adreswijzer.ErrValidationFailed, param: "q"},
		{e: exchange{target: "/v1/autocomplete?country=nl"}, code: adreswijzer.ErrValidationFailed, param: "q"},
		{e: exchange{target: "/v1/autocomplete?q=" + secret}, code: adreswijzer.ErrValidationFailed, param: "country"},
		{e: exchange{target: "/v1/autocomplete", body: `{"country":"nl","q":"Ach","postcode":1381}`}, code: adreswijzer.ErrValidationFailed, param: "postcode"},

		// Validate: 413, 400, 422.
		{e: exchange{target: "/v1/validate", body: `{"countryCode":"NL","address1":"` + strings.Repeat(secret, 6000) + `","zip":"1381BK"}`}, code: adreswijzer.ErrPayloadTooLarge},
		{e: exchange{target: "/v1/validate", body: secret}, code: adreswijzer.ErrBadRequest},
		{e: exchange{target: "/v1/validate", body: `{"countryCode":"NL","address1":"` + secret + `",`}, code: adreswijzer.ErrBadRequest},
		{e: exchange{target: "/v1/validate", body: `{"countryCode":"NL","address1":"x","zip":"y"} {}`}, code: adreswijzer.ErrBadRequest},
		{e: exchange{target: "/v1/validate", body: `["` + secret + `"]`}, code: adreswijzer.ErrBadRequest},
		{e: exchange{target: "/v1/validate", body: `null`}, code: adreswijzer.ErrBadRequest},
		{e: exchange{target: "/v1/validate", body: `"` + secret + `"`}, code: adreswijzer.ErrBadRequest},
		{e: exchange{target: "/v1/validate", body: `{"countryCode":"NL","address1":"x","zip":"y"}`, contentType: "text/plain"}, code: adreswijzer.ErrBadRequest},
		{e: exchange{target: "/v1/validate", body: `{"countryCode":"NL","address1":"x","zip":"y"}`, contentType: "-"}, code: adreswijzer.ErrBadRequest},
		{e: exchange{target: "/v1/validate", body: `{"address1":"` + secret + ` 1","zip":"1381BK"}`}, code: adreswijzer.ErrValidationFailed, param: "countryCode"},
		{e: exchange{target: "/v1/validate", body: `{"countryCode":"","address1":"` + secret + ` 1","zip":"1381BK"}`}, code: adreswijzer.ErrValidationFailed, param: "countryCode"},
		{e: exchange{target: "/v1/validate", body: `{"countryCode":"NLD","address1":"` + secret + ` 1","zip":"1381BK"}`}, code: adreswijzer.ErrValidationFailed, param: "countryCode"},
		{e: exchange{target: "/v1/validate", body: `{"countryCode":"NL","zip":"1381BK"}`}, code: adreswijzer.ErrValidationFailed, param: "address1"},
		{e: exchange{target: "/v1/validate", body: `{"countryCode":"NL","address1":null,"zip":"1381BK"}`}, code: adreswijzer.ErrValidationFailed, param: "address1"},
		{e: exchange{target: "/v1/validate", body: `{"countryCode":"NL","address1":12,"zip":"1381BK"}`}, code: adreswijzer.ErrValidationFailed, param: "address1"},
		{e: exchange{target: "/v1/validate", body: `{"countryCode":"NL","address1":"` + long + `","zip":"1381BK"}`}, code: adreswijzer.ErrValidationFailed, param: "address1"},
		{e: exchange{target: "/v1/validate", body: `{"countryCode":"NL","address1":"` + secret + ` 1","address2":{"x":1},"zip":"1381BK"}`}, code: adreswijzer.ErrValidationFailed, param: "address2"},
		{e: exchange{target: "/v1/validate", body: `{"countryCode":"NL","address1":"` + secret + ` 1","address2":"` + long + `","zip":"1381BK"}`}, code: adreswijzer.ErrValidationFailed, param: "address2"},
		{e: exchange{target: "/v1/validate", body: `{"countryCode":"NL","address1":"` + secret + ` 1"}`}, code: adreswijzer.ErrValidationFailed, param: "zip"},
		{e: exchange{target: "/v1/validate", body: `{"countryCode":"NL","address1":"` + secret + ` 1","zip":"` + long + `"}`}, code: adreswijzer.ErrValidationFailed, param: "zip"},
		{e: exchange{target: "/v1/validate", body: `{"countryCode":"NL","address1":"` + secret + ` 1","zip":"1381BK","city":"` + long + `"}`}, code: adreswijzer.ErrValidationFailed, param: "city"},
		{e: exchange{target: "/v1/validate", body: `{"countryCode":"NL","address1":"` + secret + ` 1","zip":"1381BK","city":true}`}, code: adreswijzer.ErrValidationFailed, param: "city"},
		{e: exchange{target: "/v1/validate", body: `{"countryCode":"NL","address1":"` + secret + ` 1","zip":"1381BK","customerConfirmed":"yes"}`}, code: adreswijzer.ErrValidationFailed, param: "customerConfirmed"},
		{e: exchange{target: "/v1/validate", body: `{"countryCode":"NL","address1":"` + secret + ` 1","zip":"1381BK","allowPoBox":null}`}, code: adreswijzer.ErrValidationFailed, param: "allowPoBox"},
		{e: exchange{target: "/v1/validate", body: `{"countryCode":"NL","address1":"` + secret + ` 1","zip":"1381BK","lang":"` + secret + `"}`}, code: adreswijzer.ErrValidationFailed, param: "lang"},
		{e: exchange{target: "/v1/validate", body: `{"countryCode":"NL","address1":"` + secret + ` 1","zip":"1381BK","carrier":"` + secret + `"}`}, code: adreswijzer.ErrValidationFailed, param: "carrier"},
		{e: exchange{target: "/v1/validate", body: `{"countryCode":"NL","address1":"` + secret + ` 1","zip":"1381BK","sessionId":"` + secret + `!"}`}, code: adreswijzer.ErrValidationFailed, param: "sessionId"},
		// Member names are exact: a differently cased name is an unknown member.
		{e: exchange{target: "/v1/validate", body: `{"COUNTRYCODE":"NL","address1":"` + secret + ` 1","zip":"1381BK"}`}, code: adreswijzer.ErrValidationFailed, param: "countryCode"},
	} {
		name := tc.e.method + " " + tc.e.target
		if len(name) > 80 {
			name = name[:80]
		}
		t.Run(name, func(t *testing.T) {
			resp, body := do(t, c, base, tc.e)
			want := map[adreswijzer.ErrorCode]int{
				adreswijzer.ErrNotFound: 404, adreswijzer.ErrValidationFailed: 422,
				adreswijzer.ErrPayloadTooLarge: 413, adreswijzer.ErrBadRequest: 400,
			}[tc.code]
			if tc.allow != "" {
				want = http.StatusMethodNotAllowed
			}
			if resp.StatusCode != want {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, want, body)
			}
			e := errorOf(t, body)
			if e.Code != tc.code || e.Message == "" || e.NextStep == "" {
				t.Errorf("error %+v, want code %s with message and nextStep", e, tc.code)
			}
			if tc.param != "" && !strings.Contains(e.Message, " "+tc.param+" ") {
				t.Errorf("422 message %q does not name the parameter %s", e.Message, tc.param)
			}
			if got := resp.Header.Get("Allow"); got != tc.allow {
				t.Errorf("Allow %q, want %q", got, tc.allow)
			}
			// A 405 says which methods the path takes, as its Allow header does.
			if tc.allow != "" && !strings.Contains(e.Message, "it takes "+tc.allow+".") {
				t.Errorf("405 message %q does not name the methods %s", e.Message, tc.allow)
			}
			if strings.Contains(string(body), secret) || strings.Contains(string(body), "ë") {
				t.Errorf("the answer repeats what was sent: %s", body)
			}
			if resp.Header.Get("Cache-Control") != "no-store" || resp.Header.Get("X-Dataset-Version") != "" {
				t.Errorf("headers %v", resp.Header)
			}
		})
	}
}

// A body over 64 KB is refused without reading it all, whether its length is declared or
// it comes in chunks; exactly 64 KB is read.
func TestBodyLimit(t *testing.T) {
	d := loadSamples(t)
	base, _ := worker(t, newHandler(d.store, nil, httpapi.Options{}))
	v := openapitest.New(t)
	pad := func(n int) string {
		head := `{"countryCode":"NL","address1":"Achtergracht 1","zip":"1381BK","x":"`
		return head + strings.Repeat("a", n-len(head)-2) + `"}`
	}
	for _, tc := range []struct {
		name    string
		body    string
		chunked bool
		status  int
	}{
		{"exactly 64 KB", pad(adreswijzer.MaxBodyBytes), false, 200},
		{"64 KB + 1", pad(adreswijzer.MaxBodyBytes + 1), false, 413},
		{"exactly 64 KB chunked", pad(adreswijzer.MaxBodyBytes), true, 200},
		{"64 KB + 1 chunked", pad(adreswijzer.MaxBodyBytes + 1), true, 413},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Sent without the checking client, which would give the body a length; the
			// exchange is checked afterwards.
			var body io.Reader = strings.NewReader(tc.body)
			if tc.chunked {
				body = io.MultiReader(body) // hides the length: sent chunked
			}
			req, _ := http.NewRequest(http.MethodPost, base+"/v1/validate", body)
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if tc.chunked != (req.ContentLength == 0) {
				t.Fatalf("request framing not as intended: chunked=%v, length %d", tc.chunked, req.ContentLength)
			}
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %.200s", resp.StatusCode, tc.status, b)
			}
			check, _ := http.NewRequest(http.MethodPost, base+"/v1/validate", strings.NewReader(tc.body))
			check.Header.Set("Content-Type", "application/json")
			v.Check(t, check, resp.StatusCode, resp.Header, b)
		})
	}
}

// 422 and 503 texts come in the requested language; without one (or with one that is
// itself at fault) in English, as the document's error messages are.
func TestErrorLanguages(t *testing.T) {
	d := loadSamples(t)
	base, c := worker(t, newHandler(d.store, nil, httpapi.Options{}))
	empty := memory.New(memory.Options{Logger: quiet})
	emptyBase, ec := worker(t, newHandler(empty, nil, httpapi.Options{}))
	for _, lang := range []adreswijzer.Language{adreswijzer.LangNL, adreswijzer.LangFR, adreswijzer.LangDE, adreswijzer.LangEN} {
		resp, body := do(t, c, base, exchange{target: "/v1/nl/lookup?postcode=1381CS&lang=" + string(lang)})
		e := errorOf(t, body)
		_, next := messages.Error(lang, adreswijzer.ErrValidationFailed)
		if resp.StatusCode != 422 || e.Message != messages.Invalid(lang, "number", messages.Missing, 0) || e.NextStep != next {
			t.Errorf("%s: 422 %+v", lang, e)
		}
		resp, body = do(t, ec, emptyBase, exchange{target: "/v1/validate", body: `{"countryCode":"NL","address1":"Achtergracht 1","zip":"1381BK","lang":"` + string(lang) + `"}`})
		e = errorOf(t, body)
		msg, next := messages.Error(lang, adreswijzer.ErrServiceUnavailable)
		if resp.StatusCode != 503 || e.Code != adreswijzer.ErrServiceUnavailable || e.Message != msg || e.NextStep != next {
			t.Errorf("%s: 503 %d %+v", lang, resp.StatusCode, e)
		}
	}
	_, body := do(t, c, base, exchange{target: "/v1/nl/lookup?postcode=1381CS&number=16&lang=xx"})
	if e := errorOf(t, body); e.Message != messages.Invalid(adreswijzer.LangEN, "lang", messages.Malformed, 0) {
		t.Errorf("bad lang: %+v", e)
	}
}

// A worker started before its first import answers data calls 503 (the caller fails open)
// and says in /health, with 200, that it is degraded.
func TestNoDataset(t *testing.T) {
	for _, inMemory := range []bool{false, true} {
		t.Run(fmt.Sprintf("in memory %v", inMemory), func(t *testing.T) { testNoDataset(t, inMemory) })
	}
}

func testNoDataset(t *testing.T, inMemory bool) {
	empty := memory.New(memory.Options{Logger: quiet})
	base, c := worker(t, newHandler(empty, nil, httpapi.Options{InMemory: inMemory}))
	for _, e := range []exchange{
		{target: "/v1/nl/lookup?postcode=1381CS&number=16"},
		{target: "/v1/be/lookup", body: `{"postcode":"1502","street":"Stevens-de Waelplein","number":"9"}`},
		{target: "/v1/suggest?country=nl&q=Achter"},
		{target: "/v1/autocomplete?country=be&q=Stevens"},
		{target: "/v1/validate", body: `{"countryCode":"NL","address1":"Achtergracht 1","zip":"1381BK"}`},
	} {
		resp, body := do(t, c, base, e)
		if resp.StatusCode != 503 || errorOf(t, body).Code != adreswijzer.ErrServiceUnavailable {
			t.Errorf("%s: %d %s", e.target, resp.StatusCode, body)
		}
	}
	// Unsupported countries need no dataset.
	if resp, body := do(t, c, base, exchange{target: "/v1/fr/lookup?postcode=1&number=1"}); resp.StatusCode != 200 {
		t.Errorf("unsupported country without datasets: %d %s", resp.StatusCode, body)
	}
	resp, body := do(t, c, base, exchange{target: "/health"})
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"status":"degraded","database":"up","datasets":[]`) {
		t.Errorf("health without datasets: %d %s", resp.StatusCode, body)
	}
}

// A panic becomes 500 INTERNAL_ERROR without details, whether it happens in the engine
// (here: an engine without a store) or in a handler mounted on the worker.
// Both ways of running a computation are covered: on a goroutine of its own (Postgres) and
// on the request's (the memory store).
func TestPanics(t *testing.T) {
	for _, inMemory := range []bool{false, true} {
		t.Run(fmt.Sprintf("in memory %v", inMemory), func(t *testing.T) { testPanics(t, inMemory) })
	}
}

func testPanics(t *testing.T, inMemory bool) {
	var logBuf logsink.Buffer
	log := jsonLogger(&logBuf)
	h := httpapi.New(match.New(nil, match.Options{}), memory.New(memory.Options{Logger: quiet}), httpapi.Options{
		Logger: log, RequestTimeout: testTimeout, InMemory: inMemory,
		MCP: http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic(errors.New(secret)) }),
	})
	base, c := worker(t, h)
	resp, body := do(t, c, base, exchange{target: "/v1/nl/lookup?postcode=1381CS&number=16"})
	if resp.StatusCode != 500 || errorOf(t, body).Code != adreswijzer.ErrInternal {
		t.Errorf("engine panic: %d %s", resp.StatusCode, body)
	}
	r2, b2 := do(t, c, base, exchange{target: "/mcp", body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`})
	if r2.StatusCode != 500 || errorOf(t, b2).Code != adreswijzer.ErrInternal || strings.Contains(string(b2), secret) {
		t.Errorf("handler panic: %d %s", r2.StatusCode, b2)
	}
	logs := logBuf.String()
	if strings.Contains(logs, secret) {
		t.Errorf("the panic value reached the log:\n%s", logs)
	}
	if !strings.Contains(logs, `"msg":"panic"`) || !strings.Contains(logs, "nil pointer dereference") {
		t.Errorf("runtime panics are logged with their cause:\n%s", logs)
	}
}

// The /mcp seam: the agent interface gets every method on /mcp, and only /mcp.
func TestMCPSeam(t *testing.T) {
	d := loadSamples(t)
	var got []string
	h := newHandler(d.store, nil, httpapi.Options{MCP: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.Method+" "+r.URL.Path)
		w.Header().Set("Allow", "POST")
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusMethodNotAllowed)
		io.WriteString(w, "Method Not Allowed\n")
	})})
	base, c := worker(t, h)
	for _, m := range []string{http.MethodGet, http.MethodDelete} {
		resp, _ := do(t, c, base, exchange{method: m, target: "/mcp"})
		if resp.StatusCode != 405 {
			t.Errorf("%s /mcp: %d", m, resp.StatusCode)
		}
	}
	if resp, _ := do(t, c, base, exchange{target: "/mcp/x"}); resp.StatusCode != 404 {
		t.Errorf("/mcp/x: %d", resp.StatusCode)
	}
	if strings.Join(got, ",") != "GET /mcp,DELETE /mcp" {
		t.Errorf("agent handler saw %v", got)
	}
}

// Without an agent interface /mcp does not exist. The document has no 404 for /mcp, because
// a deployed worker always serves it; the exchange is therefore not checked against it.
func TestNoMCP(t *testing.T) {
	d := loadSamples(t)
	srv := httptest.NewServer(newHandler(d.store, nil, httpapi.Options{}))
	defer srv.Close()
	resp, err := http.Post(srv.URL+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 404 || errorOf(t, b).Code != adreswijzer.ErrNotFound {
		t.Errorf("/mcp without an agent: %d %s", resp.StatusCode, b)
	}
}

// Requests keep a connection usable: many in a row on one keep-alive connection, including
// refused bodies.
func TestKeepAlive(t *testing.T) {
	d := loadSamples(t)
	base, c := worker(t, newHandler(d.store, nil, httpapi.Options{}))
	for i := range 50 {
		e := exchange{target: "/v1/validate", body: `{"countryCode":"NL","address1":"Achtergracht ` + strconv.Itoa(i%5+1) + `","zip":"1381BK"}`}
		if i%7 == 0 {
			e.body = `{not json`
		}
		resp, _ := do(t, c, base, e)
		if resp.StatusCode != 200 && resp.StatusCode != 400 {
			t.Fatalf("request %d: %d", i, resp.StatusCode)
		}
	}
}
