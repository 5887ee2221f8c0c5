package openapitest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	aw "github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/worker/openapi"
	"github.com/adreswijzer/adreswijzer/worker/openapi/openapitest"
)

type exchange struct {
	name    string
	method  string
	target  string // path and query
	reqBody any    // nil; string or []byte sent as is; anything else marshalled
	status  int
	header  http.Header // response headers; JSON Content-Type added when absent
	body    any         // string or []byte as is; anything else marshalled
	want    string      // "" when the exchange matches the document, else part of the mismatch
}

func hdr(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i+1 < len(kv); i += 2 {
		h.Add(kv[i], kv[i+1])
	}
	return h
}

func raw(v any) []byte {
	switch b := v.(type) {
	case nil:
		return nil
	case string:
		return []byte(b)
	case []byte:
		return b
	}
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func (x exchange) request() *http.Request {
	var body io.Reader
	if x.reqBody != nil {
		body = bytes.NewReader(raw(x.reqBody))
	}
	req := httptest.NewRequest(x.method, x.target, body)
	if x.reqBody != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Authorization", "Bearer aw_test_9f2c61d0b7e44c5a")
	return req
}

func (x exchange) responseHeader() http.Header {
	h := x.header.Clone()
	if h == nil {
		h = http.Header{}
	}
	if h.Get("Content-Type") == "" && x.body != nil {
		h.Set("Content-Type", "application/json")
	}
	return h
}

func dv(version string, kv ...string) http.Header {
	return hdr(append([]string{"Content-Type", "application/json", "X-Dataset-Version", version}, kv...)...)
}

var (
	unauthorized = errorBody(aw.ErrUnauthorized, "Missing or invalid credential.", "Send a valid key in the Authorization header.", "")
	forbidden    = errorBody(aw.ErrForbidden, "Publishable keys may not call autocomplete.", "Use suggest and lookup in the browser.", "")
	invalid      = errorBody(aw.ErrValidationFailed, "Parameter number must be 1 to 6 digits.", "", "")
	rateLimited  = errorBody(aw.ErrRateLimited, "Too many requests for this key.", "Wait for the Retry-After seconds, then retry.", "")
	quota        = errorBody(aw.ErrQuotaExceeded, "The 2,500 verifications of this month are used up.", "", "https://adreswijzer.example/account/plan")
	notFound     = errorBody(aw.ErrNotFound, "No such path.", "", "")
)

func validExchanges() []exchange {
	validateNL := aw.ValidateRequest{CountryCode: "NL", Address1: "Achtergracht 1", Zip: "1381 BK", City: ptr("Weesp"), Lang: "en", SessionID: "chk-7f3a9c"}
	// A pointer to UnitNone marshals as null, which the spec allows, not as "".
	noUnitType := validateAmbiguous(2)
	noUnitType.Issues[0].UnitType = ptr(aw.UnitNone)
	return []exchange{
		{name: "UnitNone pointer marshals as a null unitType", method: "POST", target: "/v1/validate", reqBody: validateNL, status: 200, header: dv(nlVersion), body: noUnitType},
		{name: "health ok", method: "GET", target: "/health", status: 200, body: health("ok", "up")},
		{name: "health degraded without a dataset", method: "GET", target: "/health", status: 200,
			body: aw.HealthResponse{Status: "degraded", Database: "up", Datasets: []aw.DatasetStatus{}, CheckedAt: "2026-11-22T09:30:00Z"}},
		{name: "health database down", method: "GET", target: "/health", status: 503, body: health("degraded", "down")},

		{name: "NL lookup with two toevoegingen", method: "GET", target: "/v1/nl/lookup?postcode=1381%20CS&number=16&carrier=postnl&lang=nl&sessionId=chk-7f3a9c",
			status: 200, header: dv(nlVersion, "X-Cache", "HIT"), body: lookupNL()},
		{name: "NL lookup without optional parameters", method: "GET", target: "/v1/nl/lookup?postcode=1381cs&number=16", status: 200, header: dv(nlVersion, "X-Cache", "MISS"), body: lookupNL()},
		{name: "NL lookup straight from the worker", method: "GET", target: "/v1/nl/lookup?postcode=1381CS&number=16", status: 200, header: dv(nlVersion), body: lookupNL()},
		{name: "NL lookup of a missing number", method: "GET", target: "/v1/nl/lookup?postcode=1381BK&number=99", status: 200, header: dv(nlVersion),
			body: aw.LookupResponse{Addresses: []aw.LookupAddress{}, Additions: []*string{}, Issues: []aw.Issue{issue(aw.IssueHouseNumberNotFound, aw.FieldAddress1, "Huisnummer 99 bestaat niet bij postcode 1381 BK.")},
				NextStep: "Vraag de klant het huisnummer te controleren.", Meta: nlMeta(aw.LangNL)}},
		{name: "BE lookup with boxes and attribution", method: "GET", target: "/v1/be/lookup?postcode=1502&street=Stevens-de%20Waelplein&number=9",
			status: 200, header: dv(beVersion), body: lookupBE()},
		{name: "generic lookup of an unsupported country", method: "GET", target: "/v1/fr/lookup?postcode=75001&number=1", status: 200, body: lookupUnsupported()},
		{name: "POST NL lookup tolerating an unknown member", method: "POST", target: "/v1/nl/lookup",
			reqBody: `{"postcode":"1381 CS","number":"16","carrier":"postnl","sessionId":"chk-7f3a9c","source":"checkout"}`, status: 200, header: dv(nlVersion), body: lookupNL()},
		{name: "POST BE lookup", method: "POST", target: "/v1/be/lookup",
			reqBody: map[string]string{"postcode": "1502", "street": "Stevens-de Waelplein", "number": "9", "lang": "nl"}, status: 200, header: dv(beVersion), body: lookupBE()},

		{name: "suggest country-wide", method: "GET", target: "/v1/suggest?country=NL&q=Achter", status: 200, header: dv(nlVersion), body: suggestNL(6)},
		{name: "suggest with an empty postcode", method: "GET", target: "/v1/suggest?country=nl&q=Achter&postcode=", status: 200, header: dv(nlVersion), body: suggestNL(6)},
		{name: "suggest ten", method: "GET", target: "/v1/suggest?country=NL&q=Achter&lang=nl&sessionId=chk-7f3a9c", status: 200, header: dv(nlVersion), body: suggestNL(10)},
		{name: "POST suggest in a postcode", method: "POST", target: "/v1/suggest",
			reqBody: map[string]string{"country": "BE", "q": "Stev", "postcode": "1502", "sessionId": "chk-7f3a9c"}, status: 200, header: dv(beVersion),
			body: aw.SuggestResponse{Suggestions: []aw.StreetSuggestion{{Street: "Stevens-de Waelplein", Locality: "Lembeek", Postcode: ptr("1502")}}, Issues: []aw.Issue{}, Meta: beMeta(aw.LangNL)}},
		{name: "suggest with an invalid postcode", method: "GET", target: "/v1/suggest?country=NL&q=A&postcode=13", status: 200, header: dv(nlVersion),
			body: aw.SuggestResponse{Suggestions: []aw.StreetSuggestion{}, Issues: []aw.Issue{issue(aw.IssueFormatInvalid, aw.FieldZip, "De postcode heeft niet de vorm 1234 AB.")}, Meta: nlMeta(aw.LangNL)}},

		{name: "autocomplete addresses", method: "GET", target: "/v1/autocomplete?country=NL&q=Achteromstraat%201", status: 200, header: dv(nlVersion), body: autocompleteNL()},
		{name: "POST autocomplete degraded", method: "POST", target: "/v1/autocomplete", reqBody: map[string]string{"country": "BE", "q": "Lembeek"},
			status: 200, header: dv(beVersion), body: autocompleteDegraded()},

		{name: "validate valid", method: "POST", target: "/v1/validate", reqBody: validateNL, status: 200, header: dv(nlVersion), body: validateValid()},
		{name: "validate corrected with platform fields", method: "POST", target: "/v1/validate",
			reqBody: `{"countryCode":"NL","address1":"achtergracht 1","zip":"1381bk","city":"Wesp","lang":"nl","carrier":"postnl","firstName":"Anna","phone":"+31 6 12345678","address2":null}`,
			status:  200, header: dv(nlVersion), body: validateCorrected()},
		{name: "validate ambiguous", method: "POST", target: "/v1/validate",
			reqBody: aw.ValidateRequest{CountryCode: "NL", Address1: "Hugo de Grootlaan 16", Zip: "1381 CS", City: ptr("Weesp"), Lang: "en"},
			status:  200, header: dv(nlVersion), body: validateAmbiguous(2)},
		{name: "validate ambiguous with ten suggestions", method: "POST", target: "/v1/validate",
			reqBody: aw.ValidateRequest{CountryCode: "NL", Address1: "Hugo de Grootlaan 16", Zip: "1381 CS"}, status: 200, header: dv(nlVersion), body: validateAmbiguous(10)},
		{name: "validate Belgian with receipt", method: "POST", target: "/v1/validate",
			reqBody: aw.ValidateRequest{CountryCode: "BE", Address1: "Arthur Puesstraat 59", Address2: ptr("bus 11"), Zip: "1502", City: ptr("Lembeek"), Carrier: "bpost", CustomerConfirmed: true, AllowPoBox: true},
			status:  200, header: dv(beVersion), body: validateBE()},
		{name: "validate an unsupported country", method: "POST", target: "/v1/validate",
			reqBody: aw.ValidateRequest{CountryCode: "DE", Address1: "Friedrichstraße 43", Zip: "10117", City: ptr("Berlin"), Lang: "de"}, status: 200, body: validateUnsupported()},
		{name: "validate an empty address is judged, not rejected", method: "POST", target: "/v1/validate",
			reqBody: aw.ValidateRequest{CountryCode: "NL"}, status: 200, header: dv(nlVersion),
			body: aw.ValidateResponse{Status: aw.VerdictInvalid, Suggestions: []aw.NormalizedAddress{}, Confidence: aw.ConfidenceLow, Blocking: true,
				Issues:   []aw.Issue{issue(aw.IssueMissingHouseNumber, aw.FieldAddress1, "Enter the house number."), issue(aw.IssueFormatInvalid, aw.FieldZip, "Enter the postcode.")},
				NextStep: "Ask for the street, house number and postcode.", Meta: nlMeta(aw.LangEN)}},

		{name: "401", method: "GET", target: "/v1/nl/lookup?postcode=1381CS&number=16", status: 401, header: hdr("WWW-Authenticate", `Bearer realm="adreswijzer"`), body: unauthorized},
		{name: "401 before any parameter check", method: "GET", target: "/v1/nl/lookup?postcode=1381CS", status: 401, header: hdr("WWW-Authenticate", `Bearer realm="adreswijzer"`), body: unauthorized},
		{name: "401 for a refused key", method: "GET", target: "/v1/nl/lookup?postcode=1381CS&number=16", status: 401,
			header: hdr("WWW-Authenticate", `Bearer realm="adreswijzer", error="invalid_token"`), body: unauthorized},
		{name: "403", method: "GET", target: "/v1/autocomplete?country=NL&q=Achter", status: 403, body: forbidden},
		{name: "403 without the scope", method: "GET", target: "/v1/nl/lookup?postcode=1381CS&number=16", status: 403,
			header: hdr("WWW-Authenticate", `Bearer realm="adreswijzer", error="insufficient_scope", scope="address:verify"`), body: forbidden},
		{name: "422 missing number", method: "GET", target: "/v1/nl/lookup?postcode=1381CS", status: 422, body: invalid},
		{name: "422 BE lookup without street", method: "GET", target: "/v1/be/lookup?postcode=1502&number=9", status: 422,
			body: errorBody(aw.ErrValidationFailed, "Parameter street is required for Belgium.", "", "")},
		{name: "422 upper-case country in the path", method: "GET", target: "/v1/NL/lookup?postcode=1381CS&number=16", status: 422,
			body: errorBody(aw.ErrValidationFailed, "The country in the path must be two lower-case letters.", "", "")},
		{name: "422 field too long", method: "POST", target: "/v1/validate",
			reqBody: aw.ValidateRequest{CountryCode: "NL", Address1: long201, Zip: "1381 BK"}, status: 422,
			body: errorBody(aw.ErrValidationFailed, "Field address1 is longer than 200 characters.", "", "")},
		{name: "400 body not JSON", method: "POST", target: "/v1/validate", reqBody: "countryCode=NL", status: 400,
			body: errorBody(aw.ErrBadRequest, "The request body is not a JSON object.", "", "")},
		{name: "413", method: "POST", target: "/v1/validate", reqBody: `{"countryCode":"NL","address1":"` + strings.Repeat("x", aw.MaxBodyBytes) + `","zip":"1381 BK"}`,
			status: 413, body: errorBody(aw.ErrPayloadTooLarge, "The request body is larger than 64 KB.", "", "")},
		{name: "429 rate limited", method: "GET", target: "/v1/suggest?country=NL&q=Ach", status: 429, header: hdr("Retry-After", "1"), body: rateLimited},
		{name: "429 quota exceeded", method: "POST", target: "/v1/validate", reqBody: aw.ValidateRequest{CountryCode: "NL", Address1: "Achtergracht 1", Zip: "1381 BK"},
			status: 429, body: quota},
		{name: "429 daily cap", method: "GET", target: "/v1/be/lookup?postcode=1502&street=Prinsenbos&number=30", status: 429, header: hdr("Retry-After", "52200"),
			body: errorBody(aw.ErrDailyCapReached, "This test key has made its 100 calls of today (UTC).", "Wait until 00:00 UTC or use a live key.", "")},
		{name: "500", method: "GET", target: "/v1/suggest?country=NL&q=Ach", status: 500, body: errorBody(aw.ErrInternal, "Something went wrong on our side.", "Accept the address as typed.", "")},
		{name: "503", method: "POST", target: "/v1/validate", reqBody: validateNL, status: 503, header: hdr("Retry-After", "30"),
			body: errorBody(aw.ErrServiceUnavailable, "The address register is temporarily unavailable.", "Accept the address as typed and validate it again later.", "")},

		{name: "openapi.json", method: "GET", target: "/openapi.json", status: 200, body: openapi.JSON()},
		{name: "docs", method: "GET", target: "/docs", status: 200, header: hdr("Content-Type", "text/html; charset=utf-8"), body: openapi.DocsHTML()},

		{name: "MCP tool call", method: "POST", target: "/mcp",
			reqBody: `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"lookup_address","arguments":{"country":"NL","postcode":"1381 CS","houseNumber":"16"}}}`,
			status:  200, body: `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"ben, bov"}],"isError":false}}`},
		{name: "MCP event stream", method: "POST", target: "/mcp", reqBody: `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, status: 200,
			header: hdr("Content-Type", "text/event-stream"), body: "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[]}}\n\n"},
		{name: "MCP notification", method: "POST", target: "/mcp", reqBody: `{"jsonrpc":"2.0","method":"notifications/initialized"}`, status: 202},
		{name: "MCP without credential", method: "POST", target: "/mcp", reqBody: `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, status: 401,
			header: hdr("WWW-Authenticate", `Bearer resource_metadata="https://api.adreswijzer.example/.well-known/oauth-protected-resource/mcp", scope="address:verify"`), body: unauthorized},
		{name: "MCP without credential, no authorization server", method: "POST", target: "/mcp", reqBody: `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, status: 401,
			header: hdr("WWW-Authenticate", `Bearer realm="adreswijzer", scope="address:verify"`), body: unauthorized},
		{name: "MCP parse error", method: "POST", target: "/mcp", reqBody: `{"jsonrpc":`, status: 400,
			body: `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the body is not valid JSON."}}`},
		{name: "MCP transport fault", method: "POST", target: "/mcp", reqBody: `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, status: 400,
			header: hdr("Content-Type", "text/plain; charset=utf-8"), body: "Accept must contain both 'application/json' and 'text/event-stream'\n"},
		{name: "MCP GET", method: "GET", target: "/mcp", status: 405, header: hdr("Allow", "POST", "Content-Type", "text/plain; charset=utf-8"), body: "Method Not Allowed\n"},
		{name: "protected resource metadata", method: "GET", target: "/.well-known/oauth-protected-resource/mcp", status: 200,
			body: map[string]any{"resource": "https://api.adreswijzer.example/mcp", "authorization_servers": []string{"https://auth.adreswijzer.example"},
				"scopes_supported": []string{"address:verify"}, "bearer_methods_supported": []string{"header"}, "resource_name": "Adreswijzer"}},

		{name: "HEAD as GET without body", method: "HEAD", target: "/health", status: 200, header: hdr("Content-Type", "application/json")},
		{name: "JSON with a charset", method: "GET", target: "/v1/nl/lookup?postcode=1381CS&number=16", status: 200,
			header: hdr("Content-Type", "application/json; charset=utf-8", "X-Dataset-Version", nlVersion), body: lookupNL()},
		{name: "no metadata without an authorization server", method: "GET", target: "/.well-known/oauth-protected-resource/mcp", status: 404, body: notFound},
		{name: "unknown path", method: "GET", target: "/v2/nl/lookup?postcode=1381CS&number=16", status: 404, body: notFound},
		{name: "method a path does not take", method: "PUT", target: "/v1/validate", reqBody: `{}`, status: 405, header: hdr("Allow", "POST"), body: notFound},
	}
}

func invalidExchanges() []exchange {
	lookup := "/v1/nl/lookup?postcode=1381CS&number=16"
	validate := aw.ValidateRequest{CountryCode: "NL", Address1: "Achtergracht 1", Zip: "1381 BK"}
	wrongSeverity := validateValid()
	wrongSeverity.Issues = []aw.Issue{{Code: aw.IssueHouseNumberNotFound, Severity: aw.SeverityWarning, Field: aw.FieldAddress1, Message: "Onbekend huisnummer."}}
	nilSlices := validateValid()
	nilSlices.Suggestions, nilSlices.Issues = nil, nil
	nilAdditions := lookupNL()
	nilAdditions.Additions = nil
	duplicateAdditions := lookupNL()
	duplicateAdditions.Additions = []*string{ptr("ben"), ptr("ben")}
	badVerdict := validateValid()
	badVerdict.Status = "maybe"
	badLanguage := lookupNL()
	badLanguage.Meta.Language = "es"
	zipWithoutSpace := validateValid()
	zipWithoutSpace.Normalized.Zip = "1381BK"
	matchWithSpace := validateValid()
	matchWithSpace.Match.Postcode = "1381 BK"
	badVersion := lookupNL()
	badVersion.Meta.DatasetVersion = ptr("bag-2026-11-08")
	addressKindWithoutAddress := autocompleteNL()
	addressKindWithoutAddress.Suggestions[0].Address = nil
	localityWithStreet := autocompleteDegraded()
	localityWithStreet.Suggestions[0].Street = ptr("Stationsstraat")
	unknownKind := autocompleteNL()
	unknownKind.Suggestions[0].Kind = "building"
	return []exchange{
		{name: "extra member in an address", method: "GET", target: lookup, status: 200, header: dv(nlVersion),
			body: edit(lookupNL(), func(m map[string]any) { obj(m, "addresses", 0)["score"] = 0.93 }), want: "score"},
		{name: "extra member in an error", method: "GET", target: lookup, status: 401, header: hdr("WWW-Authenticate", `Bearer realm="adreswijzer"`),
			body: edit(unauthorized, func(m map[string]any) { obj(m, "error")["traceId"] = "4bf92f35" }), want: "traceId"},
		{name: "verdict not in the enum", method: "POST", target: "/v1/validate", reqBody: validate, status: 200, header: dv(nlVersion), body: badVerdict, want: "maybe"},
		{name: "language not in the enum", method: "GET", target: lookup, status: 200, header: dv(nlVersion), body: badLanguage, want: "es"},
		{name: "missing meta.attribution", method: "GET", target: lookup, status: 200, header: dv(nlVersion),
			body: edit(lookupNL(), func(m map[string]any) { delete(obj(m, "meta"), "attribution") }), want: "attribution"},
		{name: "missing nextStep", method: "GET", target: lookup, status: 200, header: dv(nlVersion),
			body: edit(lookupNL(), func(m map[string]any) { delete(m, "nextStep") }), want: "nextStep"},
		{name: "11 street suggestions", method: "GET", target: "/v1/suggest?country=NL&q=Achter", status: 200, header: dv(nlVersion), body: suggestNL(11), want: "suggestions"},
		{name: "11 validate suggestions", method: "POST", target: "/v1/validate", reqBody: validate, status: 200, header: dv(nlVersion), body: validateAmbiguous(11), want: "suggestions"},
		{name: "nil slices marshal as null", method: "POST", target: "/v1/validate", reqBody: validate, status: 200, header: dv(nlVersion), body: nilSlices, want: "suggestions"},
		{name: "nil additions marshal as null", method: "GET", target: lookup, status: 200, header: dv(nlVersion), body: nilAdditions, want: "additions"},
		{name: "duplicate additions", method: "GET", target: lookup, status: 200, header: dv(nlVersion), body: duplicateAdditions, want: "additions"},
		{name: "severity contradicts the code", method: "POST", target: "/v1/validate", reqBody: validate, status: 200, header: dv(nlVersion), body: wrongSeverity, want: "severity"},
		{name: "normalized zip without space", method: "POST", target: "/v1/validate", reqBody: validate, status: 200, header: dv(nlVersion), body: zipWithoutSpace, want: "zip"},
		{name: "match postcode with space", method: "POST", target: "/v1/validate", reqBody: validate, status: 200, header: dv(nlVersion), body: matchWithSpace, want: "postcode"},
		{name: "malformed dataset version", method: "GET", target: lookup, status: 200, header: dv(nlVersion), body: badVersion, want: "datasetVersion"},
		{name: "address suggestion without address", method: "GET", target: "/v1/autocomplete?country=NL&q=Achteromstraat%201", status: 200, header: dv(nlVersion), body: addressKindWithoutAddress, want: "address"},
		{name: "locality suggestion with a street", method: "GET", target: "/v1/autocomplete?country=BE&q=Lembeek", status: 200, header: dv(beVersion), body: localityWithStreet, want: "street"},
		{name: "unknown suggestion kind", method: "GET", target: "/v1/autocomplete?country=NL&q=Achteromstraat%201", status: 200, header: dv(nlVersion), body: unknownKind, want: "building"},
		{name: "health 503 saying ok", method: "GET", target: "/health", status: 503, body: health("ok", "down"), want: "status"},
		{name: "health 200 with the database down", method: "GET", target: "/health", status: 200, body: health("degraded", "down"), want: "database"},

		{name: "401 with the code of 403", method: "GET", target: lookup, status: 401, header: hdr("WWW-Authenticate", `Bearer realm="adreswijzer"`), body: forbidden, want: "FORBIDDEN"},
		{name: "REST 401 without a challenge", method: "GET", target: lookup, status: 401, body: unauthorized, want: "WWW-Authenticate"},
		{name: "403 with another challenge than insufficient_scope", method: "GET", target: lookup, status: 403,
			header: hdr("WWW-Authenticate", `Bearer realm="adreswijzer"`), body: forbidden, want: "WWW-Authenticate"},
		{name: "422 with the code of 400", method: "GET", target: "/v1/nl/lookup?postcode=1381CS", status: 422, body: errorBody(aw.ErrBadRequest, "Bad.", "", ""), want: "BAD_REQUEST"},
		{name: "429 rate limited without Retry-After", method: "GET", target: lookup, status: 429, body: rateLimited, want: "Retry-After"},
		{name: "429 daily cap with a date in Retry-After", method: "GET", target: lookup, status: 429, header: hdr("Retry-After", "Mon, 23 Nov 2026 00:00:00 GMT"),
			body: errorBody(aw.ErrDailyCapReached, "Daily cap reached.", "", ""), want: "Retry-After"},
		{name: "429 quota exceeded without upgradeUrl", method: "GET", target: lookup, status: 429,
			body: errorBody(aw.ErrQuotaExceeded, "Monthly verifications used up.", "", ""), want: "upgradeUrl"},
		{name: "X-Dataset-Version differs from meta", method: "GET", target: lookup, status: 200, header: dv("bag:2026-11-08"), body: lookupNL(), want: "differs"},
		{name: "X-Dataset-Version missing", method: "GET", target: lookup, status: 200, body: lookupNL(), want: "X-Dataset-Version missing"},
		{name: "X-Dataset-Version without a register", method: "GET", target: "/v1/fr/lookup?postcode=75001&number=1", status: 200, header: dv(nlVersion), body: lookupUnsupported(), want: "null"},
		{name: "X-Cache outside its enum", method: "GET", target: lookup, status: 200, header: dv(nlVersion, "X-Cache", "STALE"), body: lookupNL(), want: "X-Cache"},
		{name: "MCP 401 without a challenge", method: "POST", target: "/mcp", reqBody: `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, status: 401, body: unauthorized, want: "WWW-Authenticate"},
		{name: "JSON answer labelled text/plain", method: "GET", target: lookup, status: 200, header: hdr("Content-Type", "text/plain", "X-Dataset-Version", nlVersion), body: lookupNL(), want: "text/plain"},

		{name: "200 to a lookup without number", method: "GET", target: "/v1/nl/lookup?postcode=1381CS", status: 200, header: dv(nlVersion), body: lookupNL(), want: "number"},
		{name: "200 to a number with a letter", method: "GET", target: "/v1/nl/lookup?postcode=1381CS&number=16a", status: 200, header: dv(nlVersion), body: lookupNL(), want: "number"},
		{name: "200 to seven digits", method: "GET", target: "/v1/nl/lookup?postcode=1381CS&number=1234567", status: 200, header: dv(nlVersion), body: lookupNL(), want: "number"},
		{name: "200 to an upper-case path country", method: "GET", target: "/v1/NL/lookup?postcode=1381CS&number=16", status: 200, header: dv(nlVersion), body: lookupNL(), want: "country"},
		{name: "200 to a BE lookup without street", method: "GET", target: "/v1/be/lookup?postcode=1502&number=9", status: 200, header: dv(beVersion), body: lookupBE(), want: "street"},
		{name: "200 to a 201-character postcode", method: "GET", target: "/v1/nl/lookup?postcode=" + long201 + "&number=16", status: 200, header: dv(nlVersion), body: lookupNL(), want: "postcode"},
		{name: "200 to a sessionId with a space", method: "GET", target: "/v1/nl/lookup?postcode=1381CS&number=16&sessionId=" + url.QueryEscape("a b"), status: 200, header: dv(nlVersion), body: lookupNL(), want: "sessionId"},
		{name: "200 to an unknown carrier", method: "GET", target: "/v1/nl/lookup?postcode=1381CS&number=16&carrier=ups", status: 200, header: dv(nlVersion), body: lookupNL(), want: "carrier"},
		{name: "200 to q of 101 characters", method: "GET", target: "/v1/suggest?country=NL&q=" + strings.Repeat("a", 101), status: 200, header: dv(nlVersion), body: suggestNL(1), want: "q"},
		{name: "200 to an empty q", method: "GET", target: "/v1/suggest?country=NL&q=", status: 200, header: dv(nlVersion), body: suggestNL(1), want: "q"},
		{name: "200 to a three-letter country", method: "GET", target: "/v1/suggest?country=NLD&q=Achter", status: 200, header: dv(nlVersion), body: suggestNL(1), want: "country"},
		{name: "200 to a validate without zip", method: "POST", target: "/v1/validate", reqBody: `{"countryCode":"NL","address1":"Achtergracht 1"}`, status: 200, header: dv(nlVersion), body: validateValid(), want: "zip"},
		{name: "200 to a 201-character address1", method: "POST", target: "/v1/validate", reqBody: aw.ValidateRequest{CountryCode: "NL", Address1: long201, Zip: "1381 BK"}, status: 200, header: dv(nlVersion), body: validateValid(), want: "address1"},
		{name: "200 to an unknown lang", method: "POST", target: "/v1/validate", reqBody: aw.ValidateRequest{CountryCode: "NL", Address1: "Achtergracht 1", Zip: "1381 BK", Lang: "es"}, status: 200, header: dv(nlVersion), body: validateValid(), want: "lang"},
		{name: "200 to a number sent as JSON number", method: "POST", target: "/v1/nl/lookup", reqBody: `{"postcode":"1381CS","number":16}`, status: 200, header: dv(nlVersion), body: lookupNL(), want: "number"},
		{name: "200 to a body that is not JSON", method: "POST", target: "/v1/validate", reqBody: "countryCode=NL", status: 200, header: dv(nlVersion), body: validateValid(), want: "not one the document allows"},

		{name: "HEAD with a status GET does not give", method: "HEAD", target: "/health", status: 418, want: "not declared"},
		{name: "undeclared status", method: "GET", target: lookup, status: 418, body: unauthorized, want: "status is not supported"},
		{name: "413 on a GET", method: "GET", target: lookup, status: 413, body: errorBody(aw.ErrPayloadTooLarge, "Too large.", "", ""), want: "status is not supported"},
		{name: "unknown path answered 200", method: "GET", target: "/v1/nl/search?q=Weesp", status: 200, body: lookupNL(), want: "no operation"},
		{name: "unknown path answered with a non-error", method: "GET", target: "/v1/nl/search?q=Weesp", status: 404, body: lookupNL(), want: "NOT_FOUND"},
		{name: "unknown path answered with another code", method: "GET", target: "/v1/nl/search?q=Weesp", status: 404, body: unauthorized, want: "UNAUTHORIZED"},
	}
}

func TestValidExchanges(t *testing.T) {
	v := openapitest.New(t)
	for _, x := range validExchanges() {
		t.Run(x.name, func(t *testing.T) {
			t.Parallel() // the validator is shared by parallel tests; prove it may be
			if err := v.Validate(x.request(), x.status, x.responseHeader(), raw(x.body)); err != nil {
				t.Errorf("%s %s → %d should match the document:\n%v", x.method, x.target, x.status, err)
			}
		})
	}
}

func TestInvalidExchanges(t *testing.T) {
	v := openapitest.New(t)
	for _, x := range invalidExchanges() {
		t.Run(x.name, func(t *testing.T) {
			err := v.Validate(x.request(), x.status, x.responseHeader(), raw(x.body))
			if err == nil {
				t.Fatalf("%s %s → %d passed; want a mismatch about %q", x.method, x.target, x.status, x.want)
			}
			if !strings.Contains(err.Error(), x.want) {
				t.Errorf("mismatch does not mention %q:\n%v", x.want, err)
			}
		})
	}
}

// recorder is a testing.TB that keeps failures instead of reporting them, to test that the
// helpers fail a test when they should.
type recorder struct {
	testing.TB
	mu     sync.Mutex
	failed []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failed = append(r.failed, fmt.Sprintf(format, args...))
}

func (r *recorder) Fatalf(format string, args ...any) { r.Errorf(format, args...) }

func (r *recorder) failures() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.failed...)
}

func TestCheckFailsTheTest(t *testing.T) {
	v := openapitest.New(t)
	for _, x := range append(validExchanges()[:3], invalidExchanges()[:3]...) {
		rec := &recorder{TB: t}
		v.Check(rec, x.request(), x.status, x.responseHeader(), raw(x.body))
		if got := len(rec.failures()) > 0; got != (x.want != "") {
			t.Errorf("%s: Check failed=%v, want %v (%v)", x.name, got, x.want != "", rec.failures())
		}
	}
}

// A request that has been sent has a drained body; Check must still see it, and leave it
// readable for the test.
func TestCheckReadsAndRestoresRequestBodies(t *testing.T) {
	v := openapitest.New(t)
	body := `{"countryCode":"NL","address1":"Achtergracht 1","zip":"1381 BK"}`
	withGetBody, _ := http.NewRequest("POST", "http://127.0.0.1:1/v1/validate", strings.NewReader(body))
	withGetBody.Header.Set("Content-Type", "application/json")
	io.Copy(io.Discard, withGetBody.Body) // as a transport would
	serverSide := httptest.NewRequest("POST", "/v1/validate", strings.NewReader(body))
	serverSide.Header.Set("Content-Type", "application/json")
	for name, req := range map[string]*http.Request{"client request after sending": withGetBody, "server request": serverSide} {
		v.Check(t, req, 200, dv(nlVersion), raw(validateValid()))
		if name == "server request" {
			if b, _ := io.ReadAll(req.Body); string(b) != body {
				t.Errorf("%s: body after Check is %q", name, b)
			}
		}
	}
}

// The client must check real exchanges on a random local port, hand the server the request
// body and the caller the response body unchanged, and fail the test on a bad answer.
func TestClientChecksEveryExchange(t *testing.T) {
	v := openapitest.New(t)
	var mu sync.Mutex
	var received []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		received = append(received, string(b))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/v1/validate":
			w.Header().Set("X-Dataset-Version", nlVersion)
			w.Write(raw(validateValid()))
		case "/v1/nl/lookup":
			w.Header().Set("X-Dataset-Version", nlVersion)
			w.Write(edit(lookupNL(), func(m map[string]any) { m["debug"] = true })) // not in the document
		default:
			w.WriteHeader(http.StatusNotFound)
			w.Write(raw(notFound))
		}
	}))
	defer srv.Close()

	rec := &recorder{TB: t}
	client := v.Client(rec, nil)
	reqBody := `{"countryCode":"NL","address1":"Achtergracht 1","zip":"1381 BK","city":"Weesp"}`
	resp, err := client.Post(srv.URL+"/v1/validate", "application/json", strings.NewReader(reqBody))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if want := string(raw(validateValid())); string(got) != want {
		t.Errorf("caller got body %q, server sent %q", got, want)
	}
	if len(received) != 1 || received[0] != reqBody {
		t.Errorf("server received %q, want %q", received, reqBody)
	}
	if f := rec.failures(); len(f) != 0 {
		t.Errorf("a valid exchange failed the test: %v", f)
	}

	if resp, err = client.Get(srv.URL + "/nowhere"); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if f := rec.failures(); len(f) != 0 {
		t.Errorf("a NOT_FOUND answer to an unknown path failed the test: %v", f)
	}

	if resp, err = client.Get(srv.URL + "/v1/nl/lookup?postcode=1381CS&number=16"); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	f := rec.failures()
	if len(f) != 1 || !strings.Contains(f[0], "debug") {
		t.Errorf("an answer with a member the document does not have should fail the test once, got %v", f)
	}
}

func TestRoundTripperPassesNetworkErrorsThrough(t *testing.T) {
	v := openapitest.New(t)
	srv := httptest.NewServer(http.NotFoundHandler())
	addr := srv.URL
	srv.Close() // nothing listens there any more
	rec := &recorder{TB: t}
	resp, err := v.Client(rec, nil).Get(addr + "/health")
	if err == nil {
		resp.Body.Close()
		t.Fatal("want a connection error")
	}
	if f := rec.failures(); len(f) != 0 {
		t.Errorf("a network error is not a contract failure: %v", f)
	}
}
