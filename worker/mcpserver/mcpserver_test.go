package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/gateway/agentpolicy/rpcinspect"
	"github.com/adreswijzer/adreswijzer/store/memory"
	"github.com/adreswijzer/adreswijzer/worker/match"
	"github.com/adreswijzer/adreswijzer/worker/messages"
)

var toolNames = []string{ToolCountries, ToolLookup, ToolSuggest, ToolVerify, ToolBatch}

// TestProtocolRevisions connects with a 2025-era client (initialize) and with the
// stateless revision (no initialize), lists the tools with their schemas and verifies a
// real Weesp address with each.
func TestProtocolRevisions(t *testing.T) {
	url := serve(t, sampleData(t), Options{})
	for _, version := range []string{"2025-06-18", "2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			cs := connect(t, url, version)
			if got := cs.InitializeResult().ProtocolVersion; got != version {
				t.Fatalf("negotiated %s, want %s", got, version)
			}
			if cs.InitializeResult().Instructions != instructions {
				t.Error("instructions missing")
			}
			lt, err := cs.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tool := range lt.Tools {
				names = append(names, tool.Name)
				if tool.InputSchema == nil || len(tool.Description) < 100 {
					t.Errorf("%s: input schema %v, description %q", tool.Name, tool.InputSchema, tool.Description)
				}
				if tool.OutputSchema == nil {
					t.Errorf("%s has no output schema", tool.Name)
				}
				if a := tool.Annotations; a == nil || !a.ReadOnlyHint || !a.IdempotentHint || a.Title == "" ||
					a.DestructiveHint == nil || *a.DestructiveHint || a.OpenWorldHint == nil || *a.OpenWorldHint {
					t.Errorf("%s annotations %+v", tool.Name, a)
				}
				if tool.Title == "" || tool.Title != tool.Annotations.Title {
					t.Errorf("%s: title %q", tool.Name, tool.Title)
				}
			}
			slices.Sort(names)
			if !slices.Equal(names, toolNames) {
				t.Errorf("tools %v, want %v", names, toolNames)
			}
			var out VerifyOutput
			call(t, cs, ToolVerify, map[string]any{"address": "Achtergracht 1, 1381 BK Weesp"}, &out)
			if out.Status != adreswijzer.VerdictValid || *out.CountryCode != "NL" || !out.CountryDetected {
				t.Errorf("verify: %+v", out)
			}
		})
	}
}

// TestSchemas checks what the schemas tell a model beyond the Go types.
func TestSchemas(t *testing.T) {
	cs := connect(t, serve(t, sampleData(t), Options{}), "2025-06-18")
	lt, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	schemas := map[string]string{}
	for _, tool := range lt.Tools {
		in, _ := json.Marshal(tool.InputSchema)
		out, _ := json.Marshal(tool.OutputSchema)
		schemas[tool.Name+" in"], schemas[tool.Name+" out"] = string(in), string(out)
	}
	for _, c := range []struct{ schema, want string }{
		{"verify_address in", `"lang":{"description":"Language of messages`},
		{"verify_address in", `"enum":["nl","fr","de","en"]`},
		{"verify_address in", `"enum":["postnl","bpost","dhl","sendcloud"]`},
		{"verify_address in", `at most 500 characters`},
		// The example an agent is shown is a real address, answered valid (the "nl free-form"
		// case of TestVerifyAddress).
		{"verify_address in", `Achtergracht 1, 1381 BK Weesp`},
		{"verify_address out", `"enum":["valid","corrected","ambiguous","invalid"]`},
		{"verify_address out", `"datasetVersion"`},
		{"lookup_address in", `"required":["country","postcode","houseNumber"]`},
		{"lookup_address in", `"minimum":1`},
		{"suggest_address in", `"required":["country","query"]`},
		{"lookup_address in", `"pattern":"^[A-Za-z]{2}$"`},
		{"suggest_address in", `"pattern":"^[A-Za-z]{2}$"`},
		{"verify_addresses_batch in", `"required":["id"]`},
		{"verify_addresses_batch out", `"enum":["valid","corrected","ambiguous","invalid","unsupported","error","unavailable"]`},
		{"verify_addresses_batch out", `"required":["results","checked","nextStep","meta"]`},
		{"list_supported_countries out", `"requiredInputs"`},
		// The bounds the handlers enforce (TestVerifyErrors calls beyond each).
		{"verify_address in", `"address":{"description":"The whole address as one text, at most 500 characters`},
		{"verify_address in", `"maxLength":500`},
		{"verify_address in", `"address1":{"description":"Street and house number with any letter or addition, e.g. \"Bloemendalerweg 51A-10\" or \"Stevens-de Waelplein 9\". At most 200 characters.","maxLength":200`},
		{"verify_address in", `"countryCode":{"description":"NL or BE (a country name such as \"Nederland\" or \"Belgique\" also works). Leave it out when you do not know: the country is then detected from the postcode, country words in the address and the registers.","maxLength":60`},
		{"verify_address in", `"description":"Give the address either free-form (address) or in structured fields`},
		{"verify_addresses_batch in", `"maxItems":100,"minItems":1,"type":"array"`},
		{"verify_addresses_batch in", `"maxLength":100,"minLength":1,"pattern":"\\S"`},
		{"verify_addresses_batch in", `The id must not repeat another item's id.`},
		{"verify_addresses_batch in", `"zip":{"description":"Postcode: Dutch \"1234 AB\", Belgian \"1234\". At most 200 characters.","maxLength":200`},
		{"lookup_address in", `"maximum":999999,"minimum":1`},
		{"lookup_address in", `"postcode":{"description":"Postcode: Dutch \"1382 KB\", Belgian \"1502\".","maxLength":200,"minLength":1`},
		{"lookup_address in", `"compact":{`},
		{"suggest_address in", `"maxLength":100,"minLength":1`},
		{"verify_address in", `"maxLength":64,"minLength":1,"pattern":"^[\\w.:-]+$"`},
		{"lookup_address in", `"maxLength":64,"minLength":1,"pattern":"^[\\w.:-]+$"`},
		{"suggest_address in", `"maxLength":64,"minLength":1,"pattern":"^[\\w.:-]+$"`},
		// The domain's enumerations in every output.
		{"verify_address out", `"code":{"enum":["FORMAT_INVALID","MISSING_HOUSE_NUMBER","POSTCODE_NOT_FOUND","HOUSE_NUMBER_NOT_FOUND","SUFFIX_NOT_FOUND","UNIT_REQUIRED","UNIT_NOT_FOUND","STREET_MISMATCH","CITY_MISMATCH","ADDRESS_PLANNED","CARRIER_LINE_TOO_LONG","PO_BOX_NOT_ALLOWED","UNSUPPORTED_COUNTRY","COUNTRY_AMBIGUOUS","UNVERIFIED_CONFIRMED_BY_CUSTOMER"]`},
		{"verify_address out", `"severity":{"enum":["error","warning","info"]`},
		{"verify_address out", `"enum":["high","medium","low"]`},
		{"lookup_address out", `"severity":{"enum":["error","warning","info"]`},
		{"lookup_address out", `"compact":{`},
		{"suggest_address out", `"severity":{"enum":["error","warning","info"]`},
		{"verify_addresses_batch out", `"issues":{"description":"Issue codes; call verify_address on one address for messages and suggestions.","items":{"enum":["FORMAT_INVALID"`},
		// Every output allows the refusal a tool error carries.
		{"verify_address out", `"enum":["VALIDATION_FAILED","RATE_LIMITED","DAILY_CAP_REACHED","QUOTA_EXCEEDED","SERVICE_UNAVAILABLE","INTERNAL_ERROR"]`},
		{"lookup_address out", `"acceptAsTyped"`},
		{"suggest_address out", `"acceptAsTyped"`},
		{"verify_addresses_batch out", `"acceptAsTyped"`},
		{"list_supported_countries out", `"acceptAsTyped"`},
	} {
		if !strings.Contains(schemas[c.schema], c.want) {
			t.Errorf("%s schema lacks %s:\n%s", c.schema, c.want, schemas[c.schema])
		}
	}
}

func TestVerifyAddress(t *testing.T) {
	cs := connect(t, serve(t, sampleData(t), Options{}), "2026-07-28")
	type want struct {
		status   adreswijzer.Verdict
		country  string // "" for null
		detected bool
		issues   []adreswijzer.IssueCode
		lang     adreswijzer.Language
		zip      string // normalized zip, "" when none
		unit     string // normalized address2
		suggest  int
	}
	cases := []struct {
		name string
		args map[string]any
		want want
	}{
		{"nl free-form", map[string]any{"address": "Achtergracht 1, 1381 BK Weesp"},
			want{status: "valid", country: "NL", detected: true, lang: "nl", zip: "1381 BK"}},
		{"nl free-form with the postcode of the next street", map[string]any{"address": "Achtergracht 1, 1381 BN Weesp"},
			want{status: "corrected", country: "NL", detected: true, issues: []adreswijzer.IssueCode{"HOUSE_NUMBER_NOT_FOUND"}, lang: "nl", zip: "1381 BK"}},
		{"nl lines with country word, english", map[string]any{"address": "Hugo de Grootlaan 16\n1381 CS Weesp\nNederland", "lang": "en"},
			want{status: "ambiguous", country: "NL", detected: true, issues: []adreswijzer.IssueCode{"UNIT_REQUIRED"}, lang: "en", suggest: 2}},
		{"nl lines with a company and the toevoeging", map[string]any{"address": "Bakkerij De Vries\nHugo de Grootlaan 16\nbov\n1381 CS  Weesp"},
			want{status: "valid", country: "NL", detected: true, lang: "nl", zip: "1381 CS", unit: "bov"}},
		{"nl parts", map[string]any{"address1": "bloemendalerweg 51a-10", "zip": "1382 kb", "city": "WEESP", "countryCode": "NL"},
			want{status: "valid", country: "NL", lang: "nl", zip: "1382 KB", unit: "10"}},
		{"nl parts without country", map[string]any{"address1": "Henriëtte Roland Holsthof 1", "zip": "1382SH"},
			want{status: "corrected", country: "NL", detected: true, lang: "nl", zip: "1382 SH"}},
		{"nl street only, no postcode", map[string]any{"address": "Achtergracht 1, Weesp"},
			want{status: "corrected", country: "NL", detected: true, issues: []adreswijzer.IssueCode{"FORMAT_INVALID"}, lang: "nl", zip: "1381 BK"}},
		{"be haren in french", map[string]any{"address": "Rue du Pré aux Oies 134 bte 1, 1130 Bruxelles"},
			want{status: "valid", country: "BE", detected: true, lang: "fr", zip: "1130", unit: "bte 1"}},
		{"be haren in dutch", map[string]any{"address": "Ganzenweidestraat 134 bus 1\n1130 Haren\nBelgië"},
			want{status: "valid", country: "BE", detected: true, lang: "nl", zip: "1130", unit: "bus 1"}},
		{"be lembeek box in address2", map[string]any{"address1": "Stevens-de Waelplein 9", "address2": "bus 2", "zip": "1502", "city": "Lembeek"},
			want{status: "valid", country: "BE", detected: true, lang: "nl", zip: "1502", unit: "bus 2"}},
		{"be lembeek without the box", map[string]any{"address": "Stevens-de Waelplein 9, 1502 Lembeek", "countryCode": "Belgique"},
			want{status: "ambiguous", country: "BE", issues: []adreswijzer.IssueCode{"UNIT_REQUIRED"}, lang: "nl", suggest: 4}},
		{"be malmedy, postcode with a prefix", map[string]any{"address": "Route du Barrage 83, B-4960 Malmedy"},
			want{status: "corrected", country: "BE", detected: true, lang: "fr", zip: "4960"}},
		{"be malmedy in german", map[string]any{"address": "Route du Barrage 83, 4960 Malmedy", "lang": "de", "countryCode": "be"},
			want{status: "valid", country: "BE", lang: "de", zip: "4960"}},
		{"bare four digits in neither register", map[string]any{"address": "Kerkstraat 1, 2000"},
			want{status: "ambiguous", issues: []adreswijzer.IssueCode{"COUNTRY_AMBIGUOUS"}, lang: "nl"}},
		{"the country given settles it", map[string]any{"address": "Kerkstraat 1, 2000", "countryCode": "BE"},
			want{status: "invalid", country: "BE", issues: []adreswijzer.IssueCode{"POSTCODE_NOT_FOUND"}, lang: "nl"}},
		{"unsupported country by word", map[string]any{"address": "Unter den Linden 1, 10117 Berlin, Deutschland", "lang": "en"},
			want{status: "invalid", issues: []adreswijzer.IssueCode{"UNSUPPORTED_COUNTRY"}, lang: "en"}},
		{"carrier fields", map[string]any{"address": "Achtergracht 1, 1381 BK Weesp", "carrier": "dhl"},
			want{status: "valid", country: "NL", detected: true, lang: "nl", zip: "1381 BK"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out VerifyOutput
			res := call(t, cs, ToolVerify, tc.args, &out)
			if res.IsError {
				t.Fatalf("tool error: %s", errorText(t, res))
			}
			w := tc.want
			country := ""
			if out.CountryCode != nil {
				country = *out.CountryCode
			}
			var codes []adreswijzer.IssueCode
			for _, is := range out.Issues {
				codes = append(codes, is.Code)
				if is.Severity != is.Code.Severity() || is.Message == "" {
					t.Errorf("issue %+v", is)
				}
			}
			if out.Status != w.status || country != w.country || out.CountryDetected != w.detected || !slices.Equal(codes, w.issues) ||
				out.Meta.Language != w.lang || len(out.Suggestions) != w.suggest {
				t.Errorf("got status %s country %q detected %v issues %v lang %s suggestions %d\nwant %+v",
					out.Status, country, out.CountryDetected, codes, out.Meta.Language, len(out.Suggestions), w)
			}
			zip, unit := "", ""
			if n := out.Normalized; n != nil {
				zip = n.Zip
				if n.Address2 != nil {
					unit = *n.Address2
				}
				if len(out.Formatted) < 2 {
					t.Errorf("normalized without formatted lines: %v", out.Formatted)
				}
			}
			if zip != w.zip || unit != w.unit {
				t.Errorf("normalized zip %q unit %q, want %q %q", zip, unit, w.zip, w.unit)
			}
			if out.NextStep == "" {
				t.Error("no nextStep")
			}
			checkMeta(t, out.Meta, country)
			if tc.args["carrier"] != nil && (out.Carrier == nil || out.Carrier.Street != "Achtergracht") {
				t.Errorf("carrier fields %+v", out.Carrier)
			}
		})
	}
}

// checkMeta checks that an answer names its register and version.
func checkMeta(t *testing.T, m adreswijzer.Meta, country string) {
	t.Helper()
	ver := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	switch country {
	case "NL":
		if ver(m.Source) != match.SourceBAG || !strings.HasPrefix(ver(m.DatasetVersion), "bag:2021-10-15") || m.Attribution != nil {
			t.Errorf("NL meta %s %s %s", ver(m.Source), ver(m.DatasetVersion), ver(m.Attribution))
		}
	case "BE":
		if ver(m.Source) != match.SourceBeST || !strings.HasPrefix(ver(m.DatasetVersion), "best:") || ver(m.Attribution) != match.AttributionBeST {
			t.Errorf("BE meta %s %s %s", ver(m.Source), ver(m.DatasetVersion), ver(m.Attribution))
		}
	}
}

func TestCountryAmbiguous(t *testing.T) {
	cs := connect(t, serve(t, sampleData(t), Options{}), "2025-06-18")
	var out VerifyOutput
	call(t, cs, ToolVerify, map[string]any{"address1": "Kerkstraat 1", "zip": "2000", "lang": "en"}, &out)
	if out.Status != adreswijzer.VerdictAmbiguous || out.CountryCode != nil || out.Confidence != adreswijzer.ConfidenceLow || out.Blocking {
		t.Fatalf("%+v", out)
	}
	if len(out.Issues) != 1 {
		t.Fatalf("issues %+v", out.Issues)
	}
	is := out.Issues[0]
	if is.Code != adreswijzer.IssueCountryAmbiguous || is.Severity != adreswijzer.IssueCountryAmbiguous.Severity() ||
		is.Field != adreswijzer.FieldCountryCode || is.Message != messages.Issue(adreswijzer.LangEN, adreswijzer.IssueCountryAmbiguous, messages.Details{}) {
		t.Errorf("issue %+v", is)
	}
	if out.NextStep != messages.NextStep(adreswijzer.LangEN, messages.CountryAmbiguous) {
		t.Errorf("nextStep %q", out.NextStep)
	}
	// Both registers were consulted, and the answer says so.
	if out.Meta.Source == nil || !strings.Contains(*out.Meta.Source, match.SourceBAG) || !strings.Contains(*out.Meta.Source, match.SourceBeST) ||
		out.Meta.DatasetVersion == nil || !strings.Contains(*out.Meta.DatasetVersion, "bag:") || !strings.Contains(*out.Meta.DatasetVersion, "+best:") {
		t.Errorf("meta %+v", out.Meta)
	}
	// The postcode names the country once it has its letters or a prefix.
	for args, country := range map[string]string{"2000 AB": "NL", "B-2000": "BE", "BE 2000": "BE"} {
		call(t, cs, ToolVerify, map[string]any{"address1": "Kerkstraat 1", "zip": args}, &out)
		if out.CountryCode == nil || *out.CountryCode != country {
			t.Errorf("zip %s: country %v", args, out.CountryCode)
		}
	}
}

func TestVerifyErrors(t *testing.T) {
	cs := connect(t, serve(t, sampleData(t), Options{}), "2025-06-18")
	addr := "Achtergracht 1, 1381 BK Weesp"
	at500 := addr + strings.Repeat(" ", 500-len(addr))
	// 500 characters in runes, not bytes: accents must not push an address over.
	accented := "Henriëtte Roland Holsthof 1, 1382 SH Weesp"
	accented500 := accented + strings.Repeat("é", 500-len([]rune(accented)))
	var out VerifyOutput
	if res := call(t, cs, ToolVerify, map[string]any{"address": at500}, &out); res.IsError || out.Status != "valid" {
		t.Fatalf("500 characters refused: %v", res)
	}
	if res := call(t, cs, ToolVerify, map[string]any{"address": accented500}, &out); res.IsError {
		t.Fatalf("500 accented characters refused: %s", errorText(t, res))
	}
	cases := []struct {
		name string
		tool string
		args map[string]any
		want string
	}{
		{"501 characters", ToolVerify, map[string]any{"address": at500 + "x"}, "address is longer than 500 characters"},
		{"both forms", ToolVerify, map[string]any{"address": addr, "zip": "1381 BK"}, "not both"},
		{"nothing", ToolVerify, map[string]any{"lang": "en"}, "The address is missing"},
		{"long field", ToolVerify, map[string]any{"address1": strings.Repeat("a", 201), "zip": "1381 BK"}, "address1 is longer than 200 characters"},
		{"unknown lang", ToolVerify, map[string]any{"address": addr, "lang": "es"}, "lang"},
		{"unknown argument", ToolVerify, map[string]any{"address": addr, "postcode": "1381 BK"}, "postcode"},
		{"lookup be without street", ToolLookup, map[string]any{"country": "BE", "postcode": "1502", "houseNumber": 9}, "street is required for BE"},
		{"lookup number as text", ToolLookup, map[string]any{"country": "NL", "postcode": "1382 KB", "houseNumber": "51a"}, "houseNumber"},
		{"lookup number zero", ToolLookup, map[string]any{"country": "NL", "postcode": "1382 KB", "houseNumber": 0}, "houseNumber"},
		{"suggest empty query", ToolSuggest, map[string]any{"country": "NL", "query": "  "}, "query is empty"},
		{"suggest long query", ToolSuggest, map[string]any{"country": "NL", "query": strings.Repeat("a", 101)}, "longer than 100 characters"},
		{"batch empty", ToolBatch, map[string]any{"addresses": []any{}}, "addresses is empty"},
		{"batch empty id", ToolBatch, map[string]any{"addresses": []any{map[string]any{"id": "", "address": addr}}}, "addresses[].id is empty"},
		{"batch id of spaces", ToolBatch, map[string]any{"addresses": []any{map[string]any{"id": "   ", "address": addr}}}, "addresses[].id is not in the form"},
		{"batch long id", ToolBatch, map[string]any{"addresses": []any{map[string]any{"id": strings.Repeat("7", 101), "address": addr}}}, "addresses[].id is longer than 100 characters"},
		{"batch repeated id", ToolBatch, map[string]any{"addresses": []any{map[string]any{"id": "order-1", "address": addr},
			map[string]any{"id": "order-2", "address": addr}, map[string]any{"id": "order-1", "address": addr}}}, "items 1 and 3 have the same id"},
		{"batch item too long", ToolBatch, map[string]any{"addresses": []any{map[string]any{"id": "1", "address": at500 + "x"}}}, "addresses[].address is longer than 500 characters"},
		{"long country", ToolVerify, map[string]any{"address": addr, "countryCode": strings.Repeat("Nederland", 7)}, "countryCode is longer than 60 characters"},
		{"lookup long postcode", ToolLookup, map[string]any{"country": "NL", "postcode": strings.Repeat("1", 201), "houseNumber": 1}, "postcode is longer than 200 characters"},
		{"lookup empty postcode", ToolLookup, map[string]any{"country": "NL", "postcode": "", "houseNumber": 1}, "postcode is empty"},
		{"lookup long street", ToolLookup, map[string]any{"country": "BE", "postcode": "1502", "street": strings.Repeat("s", 201), "houseNumber": 1}, "street is longer than 200 characters"},
		{"lookup number too large", ToolLookup, map[string]any{"country": "NL", "postcode": "1382 KB", "houseNumber": 1000000}, "houseNumber must be at most 999999"},
		{"lookup country of three letters", ToolLookup, map[string]any{"country": "NLD", "postcode": "1382 KB", "houseNumber": 1}, "two-letter country code"},
		{"suggest empty query string", ToolSuggest, map[string]any{"country": "NL", "query": ""}, "query is empty"},
		{"suggest long postcode", ToolSuggest, map[string]any{"country": "NL", "query": "Hugo", "postcode": strings.Repeat("1", 201)}, "postcode is longer than 200 characters"},
		{"missing argument", ToolLookup, map[string]any{"country": "NL", "houseNumber": 1}, "lack: postcode"},
		{"session with a space", ToolVerify, map[string]any{"address": addr, "sessionId": "order 12"}, "sessionId is not in the form the input schema gives: 1 to 64"},
		{"session too long", ToolSuggest, map[string]any{"country": "NL", "query": "Hugo", "sessionId": strings.Repeat("s", 65)}, "sessionId is longer than 64 characters"},
		{"session empty", ToolLookup, map[string]any{"country": "NL", "postcode": "1381 CS", "houseNumber": 16, "sessionId": ""}, "sessionId is empty"},
		{"session in a batch", ToolBatch, map[string]any{"addresses": []any{map[string]any{"id": "1", "address": addr, "sessionId": "s1"}}}, "unknown members: sessionId"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := call(t, cs, tc.tool, tc.args, nil)
			text := errorText(t, res)
			if !strings.Contains(text, tc.want) {
				t.Errorf("error %q, want it to say %q", text, tc.want)
			}
			// The arguments are to be fixed, whether the handler or the input schema refused
			// them: the address itself was not judged.
			if r := refusalOf(t, res); r.Code != adreswijzer.ErrValidationFailed || r.AcceptAsTyped || r.Message != text {
				t.Errorf("structured refusal %+v", r)
			}
			for _, v := range tc.args {
				if s, ok := v.(string); ok && len(s) > 3 && strings.Contains(text, s) {
					t.Errorf("error repeats the input: %q", text)
				}
			}
		})
	}
}

// Every bound of the input schemas takes the value at the bound (TestVerifyErrors sends one
// beyond each): the schemas say exactly what is enforced.
func TestBoundsAccepted(t *testing.T) {
	cs := connect(t, serve(t, sampleData(t), Options{}), "2025-06-18")
	addr := "Achtergracht 1, 1381 BK Weesp"
	session := strings.Repeat("s", 64)
	for _, c := range []struct {
		name string
		tool string
		args map[string]any
	}{
		{"address1, address2, zip and city of 200", ToolVerify, map[string]any{"address1": "Achtergracht 1" + strings.Repeat(" ", 186),
			"address2": strings.Repeat("x", 200), "zip": "1381 BK" + strings.Repeat(" ", 193), "city": "Weesp" + strings.Repeat(" ", 195)}},
		{"countryCode of 60", ToolVerify, map[string]any{"address": addr, "countryCode": strings.Repeat("n", 60)}},
		{"sessionId of 64", ToolVerify, map[string]any{"address": addr, "sessionId": session}},
		{"sessionId of 1", ToolSuggest, map[string]any{"country": "NL", "query": "Achter", "sessionId": "a"}},
		{"sessionId of every character allowed", ToolLookup, map[string]any{"country": "NL", "postcode": "1381 BK", "houseNumber": 1, "sessionId": "aZ09_.:-"}},
		{"query of 100", ToolSuggest, map[string]any{"country": "NL", "query": "Achtergracht" + strings.Repeat(" ", 88)}},
		{"postcode of 200", ToolLookup, map[string]any{"country": "NL", "postcode": "1381 BK" + strings.Repeat(" ", 193), "houseNumber": 1}},
		{"house number 999999", ToolLookup, map[string]any{"country": "NL", "postcode": "1381 BK", "houseNumber": 999999}},
		{"street of 200", ToolLookup, map[string]any{"country": "BE", "postcode": "1502", "street": "Stevens-de Waelplein" + strings.Repeat(" ", 180), "houseNumber": 9}},
		{"id of 100", ToolBatch, map[string]any{"addresses": []any{map[string]any{"id": strings.Repeat("7", 100), "address": addr}}}},
		{"id of 1", ToolBatch, map[string]any{"addresses": []any{map[string]any{"id": "7", "address": addr}}}},
	} {
		if res := call(t, cs, c.tool, c.args, nil); res.IsError {
			t.Errorf("%s: refused: %s", c.name, errorText(t, res))
		}
	}
}

func TestLookupAddress(t *testing.T) {
	cs := connect(t, serve(t, sampleData(t), Options{}), "2026-07-28")
	cases := []struct {
		name      string
		args      map[string]any
		addresses int
		additions []string // "" for the bare number
		street    string
		issues    []adreswijzer.IssueCode
		lang      adreswijzer.Language
	}{
		{name: "nl letters and toevoegingen", args: map[string]any{"country": "NL", "postcode": "1382 KB", "houseNumber": 51},
			street: "Bloemendalerweg", lang: "nl"},
		{name: "nl toevoegingen", args: map[string]any{"country": "nl", "postcode": "1381CS", "houseNumber": 16, "lang": "en"},
			addresses: 2, additions: []string{"ben", "bov"}, street: "Hugo de Grootlaan", lang: "en"},
		{name: "be boxes in lembeek", args: map[string]any{"country": "BE", "postcode": "1502", "street": "Stevens-de Waelplein", "houseNumber": 9},
			addresses: 4, street: "Stevens-de Waelplein", lang: "nl"},
		{name: "be french street with a typo", args: map[string]any{"country": "BE", "postcode": "1130", "street": "rue du pre aux oie", "houseNumber": 134},
			street: "Rue du Pré aux Oies", issues: []adreswijzer.IssueCode{"STREET_MISMATCH"}, lang: "fr"},
		{name: "be malmedy", args: map[string]any{"country": "BE", "postcode": "4960", "street": "Route du Barrage", "houseNumber": 83, "carrier": "bpost"},
			addresses: 1, additions: []string{""}, street: "Route du Barrage", lang: "fr"},
		{name: "nl unknown number", args: map[string]any{"country": "NL", "postcode": "1381 CS", "houseNumber": 999},
			issues: []adreswijzer.IssueCode{"HOUSE_NUMBER_NOT_FOUND"}, lang: "nl"},
		{name: "be postcode out of range", args: map[string]any{"country": "BE", "postcode": "9999", "street": "Kerkstraat", "houseNumber": 1},
			issues: []adreswijzer.IssueCode{"FORMAT_INVALID"}, lang: "nl"},
		{name: "be unknown postcode", args: map[string]any{"country": "BE", "postcode": "1040", "street": "Rue de la Loi", "houseNumber": 16},
			issues: []adreswijzer.IssueCode{"POSTCODE_NOT_FOUND"}, lang: "fr"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out adreswijzer.LookupResponse
			if res := call(t, cs, ToolLookup, tc.args, &out); res.IsError {
				t.Fatalf("tool error: %s", errorText(t, res))
			}
			var codes []adreswijzer.IssueCode
			for _, is := range out.Issues {
				codes = append(codes, is.Code)
			}
			if !slices.Equal(codes, tc.issues) || out.Meta.Language != tc.lang || out.NextStep == "" {
				t.Errorf("issues %v lang %s nextStep %q", codes, out.Meta.Language, out.NextStep)
			}
			if tc.street == "" {
				if len(out.Addresses) != 0 {
					t.Errorf("%d addresses, want none", len(out.Addresses))
				}
				return
			}
			if len(out.Addresses) == 0 || tc.addresses > 0 && len(out.Addresses) != tc.addresses {
				t.Fatalf("%d addresses, want %d", len(out.Addresses), tc.addresses)
			}
			for _, a := range out.Addresses {
				if a.Street != tc.street || len(a.Formatted) < 2 || a.Carrier.Postcode == "" {
					t.Errorf("address %+v", a)
				}
			}
			if tc.additions != nil {
				var adds []string
				for _, a := range out.Additions {
					if a == nil {
						adds = append(adds, "")
					} else {
						adds = append(adds, *a)
					}
				}
				if !slices.Equal(adds, tc.additions) {
					t.Errorf("additions %q, want %q", adds, tc.additions)
				}
			}
			checkMeta(t, out.Meta, strings.ToUpper(tc.args["country"].(string)))
		})
	}
}

// A number with many units in compact form: one line per address, in the order of the full
// answer, with its addition, and no address fields; the rest of the answer is the same.
func TestLookupCompact(t *testing.T) {
	cs := connect(t, serve(t, sampleData(t), Options{}), "2026-07-28")
	for _, args := range []map[string]any{
		{"country": "BE", "postcode": "1502", "street": "Stevens-de Waelplein", "houseNumber": 9},
		{"country": "NL", "postcode": "1381 CS", "houseNumber": 16, "lang": "en"},
	} {
		var full, short LookupOutput
		call(t, cs, ToolLookup, args, &full)
		args["compact"] = true
		if res := call(t, cs, ToolLookup, args, &short); res.IsError {
			t.Fatalf("compact: %s", errorText(t, res))
		}
		if len(full.Addresses) < 2 || full.Compact != nil || len(short.Addresses) != 0 || len(short.Compact) != len(full.Addresses) ||
			!slices.EqualFunc(short.Additions, full.Additions, func(a, b *string) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }) ||
			short.NextStep != full.NextStep || len(short.Issues) != len(full.Issues) {
			t.Fatalf("%v: compact %+v, full %d addresses", args, short, len(full.Addresses))
		}
		for i, c := range short.Compact {
			a := full.Addresses[i]
			if c.Line != strings.Join(a.Formatted, ", ") || (c.Addition == nil) != (a.Addition == nil) ||
				c.Addition != nil && *c.Addition != *a.Addition || c.Planned != a.Planned || !strings.Contains(c.Line, a.Street) {
				t.Errorf("%v: compact %d %+v for %+v", args, i, c, a)
			}
		}
	}
}

func TestSuggestAddress(t *testing.T) {
	cs := connect(t, serve(t, sampleData(t), Options{}), "2025-06-18")
	cases := []struct {
		name  string
		args  map[string]any
		kind  string // kind of the first suggestion; "" for none
		label string // text the first label contains
	}{
		{"nl street and number", map[string]any{"country": "NL", "query": "Bloemendalerweg 51"}, match.KindAddress, "Bloemendalerweg 51"},
		{"nl postcode and number", map[string]any{"country": "NL", "query": "1381 CS 16"}, match.KindAddress, "Hugo de Grootlaan 16"},
		{"be street without number", map[string]any{"country": "BE", "query": "rue du pré aux"}, match.KindStreet, "Rue du Pré aux Oies"},
		{"be dutch street in a postcode", map[string]any{"country": "BE", "query": "ganzenweide", "postcode": "1130"}, match.KindStreet, "Ganzenweidestraat"},
		{"be lembeek with the box", map[string]any{"country": "BE", "query": "Stevens-de Waelplein 9 bus 2"}, match.KindAddress, "Stevens-de Waelplein 9 bus 2, 1502 Lembeek"},
		{"nothing", map[string]any{"country": "NL", "query": "Qqqqzzzz"}, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out SuggestOutput
			if res := call(t, cs, ToolSuggest, tc.args, &out); res.IsError {
				t.Fatalf("tool error: %s", errorText(t, res))
			}
			if len(out.Suggestions) > adreswijzer.MaxSuggestions {
				t.Errorf("%d suggestions", len(out.Suggestions))
			}
			if tc.kind == "" {
				if len(out.Suggestions) != 0 || out.NextStep != messages.NextStep(out.Meta.Language, messages.SuggestNone) {
					t.Errorf("suggestions %+v, nextStep %q", out.Suggestions, out.NextStep)
				}
				return
			}
			if len(out.Suggestions) == 0 {
				t.Fatal("no suggestions")
			}
			first := out.Suggestions[0]
			if first.Kind != tc.kind || !strings.Contains(first.Label, tc.label) {
				t.Errorf("first suggestion %+v", first)
			}
			if first.Kind == match.KindAddress {
				// The chosen suggestion verifies as it is.
				var v VerifyOutput
				a := first.Address
				args := map[string]any{"address1": a.Address1, "zip": a.Zip, "city": a.City, "countryCode": string(a.CountryCode)}
				if a.Address2 != nil {
					args["address2"] = *a.Address2
				}
				call(t, cs, ToolVerify, args, &v)
				if v.Status != adreswijzer.VerdictValid {
					t.Errorf("suggested address verifies as %s: %+v", v.Status, v.Issues)
				}
			}
		})
	}
}

func TestBatch(t *testing.T) {
	cs := connect(t, serve(t, sampleData(t), Options{}), "2026-07-28")
	items := []map[string]any{
		{"id": "order-1", "address": "Achtergracht 1, 1381 BK Weesp"},
		{"id": "order-2", "address1": "Rue du Pré aux Oies 134", "address2": "bte 1", "zip": "1130", "city": "Bruxelles"},
		{"id": "order-3", "address": "Kerkstraat 1, 2000"},
		{"id": "order-4"},
		{"id": "order-5", "address": "Hugo de Grootlaan 999, 1381 CS Weesp", "countryCode": "NL"},
		{"id": "order-6", "address": "Stevens-de Waelplein 9, 1502 Lembeek"},
		// An id of spaces the schema's pattern lets through (\S is ASCII in Go's regexp) is this
		// item's error; an empty id fails the schema and the whole call (TestVerifyErrors).
		{"id": "\u3000", "address": "Achtergracht 1, 1381 BK Weesp"},
	}
	var out BatchOutput
	if res := call(t, cs, ToolBatch, map[string]any{"addresses": items, "lang": "en"}, &out); res.IsError {
		t.Fatalf("tool error: %s", errorText(t, res))
	}
	want := []struct {
		id, status, country, normalized string
		issues                          []adreswijzer.IssueCode
		blocking                        bool
	}{
		{"order-1", "valid", "NL", "Achtergracht 1, 1381 BK Weesp", nil, false},
		{"order-2", "valid", "BE", "Rue du Pré aux Oies 134 bte 1, 1130 Bruxelles (Haren)", nil, false},
		{"order-3", "ambiguous", "", "", []adreswijzer.IssueCode{"COUNTRY_AMBIGUOUS"}, false},
		{"order-4", "error", "", "", nil, false},
		{"order-5", "invalid", "NL", "", []adreswijzer.IssueCode{"HOUSE_NUMBER_NOT_FOUND"}, false},
		{"order-6", "ambiguous", "BE", "", []adreswijzer.IssueCode{"UNIT_REQUIRED"}, false},
		{"\u3000", "error", "", "", nil, false},
	}
	if len(out.Results) != len(want) {
		t.Fatalf("%d results for %d addresses", len(out.Results), len(want))
	}
	for i, w := range want {
		r := out.Results[i]
		country, normalized := "", ""
		if r.CountryCode != nil {
			country = *r.CountryCode
		}
		if r.Normalized != nil {
			normalized = *r.Normalized
		}
		if r.ID != w.id || r.Status != w.status || country != w.country || normalized != w.normalized ||
			!slices.Equal(r.Issues, w.issues) && len(r.Issues)+len(w.issues) > 0 || r.Blocking != w.blocking {
			t.Errorf("result %d: %+v (country %q normalized %q), want %+v", i, r, country, normalized, w)
		}
		if (r.Status == "error") != (r.Error != "") {
			t.Errorf("result %d: status %s with error %q", i, r.Status, r.Error)
		}
	}
	if out.Meta.Source == nil || *out.Meta.Source != match.SourceBAG+"; "+match.SourceBeST || out.Meta.Attribution == nil {
		t.Errorf("meta %+v", out.Meta)
	}

	// A full batch keeps its order; one over the limit is refused whole.
	full := make([]map[string]any, 0, 101)
	for i := range 100 {
		full = append(full, map[string]any{"id": fmt.Sprint(i), "address1": fmt.Sprintf("Hugo de Grootlaan %d", i+1), "zip": "1381 CS", "countryCode": "NL"})
	}
	if res := call(t, cs, ToolBatch, map[string]any{"addresses": full}, &out); res.IsError {
		t.Fatalf("batch of 100: %s", errorText(t, res))
	}
	for i, r := range out.Results {
		if r.ID != fmt.Sprint(i) || r.Status == "error" {
			t.Fatalf("result %d: %+v", i, r)
		}
	}
	full = append(full, map[string]any{"id": "100", "address": "Achtergracht 1, 1381 BK Weesp"})
	text := errorText(t, call(t, cs, ToolBatch, map[string]any{"addresses": full}, nil))
	if !strings.Contains(text, "addresses takes at most 100 items; this call had 101") || !strings.Contains(text, "nothing was verified") {
		t.Errorf("refusal %q", text)
	}
}

func TestListSupportedCountries(t *testing.T) {
	store := sampleData(t)
	cs := connect(t, serve(t, store, Options{}), "2026-07-28")
	var out CountriesOutput
	call(t, cs, ToolCountries, map[string]any{}, &out)
	if len(out.Countries) != 2 {
		t.Fatalf("%+v", out)
	}
	for i, c := range adreswijzer.Countries {
		info := out.Countries[i]
		ds, err := store.Active(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		if info.CountryCode != string(c) || !info.Available || info.DatasetVersion == nil || *info.DatasetVersion != string(ds.Info().Version) ||
			info.ActivatedAt == nil || info.Register == "" || len(info.RequiredInputs.LookupAddress) < 3 {
			t.Errorf("%s: %+v", c, info)
		}
	}
	if !slices.Contains(out.Countries[1].RequiredInputs.LookupAddress, "street") || out.Countries[1].Attribution == nil {
		t.Errorf("BE needs a street for lookups and an attribution: %+v", out.Countries[1])
	}
	// Without datasets the countries are listed as unavailable.
	cs = connect(t, serve(t, memory.New(memory.Options{Logger: quiet()}), Options{}), "2025-06-18")
	call(t, cs, ToolCountries, nil, &out)
	if out.Countries[0].Available || out.Countries[0].DatasetVersion != nil {
		t.Errorf("empty store: %+v", out.Countries[0])
	}
}

// TestRegisterUnavailable: without a dataset the engine cannot answer; the tools say so as
// a tool error that tells the agent to fail open.
func TestRegisterUnavailable(t *testing.T) {
	cs := connect(t, serve(t, memory.New(memory.Options{Logger: quiet()}), Options{}), "2025-06-18")
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{ToolVerify, map[string]any{"address": "Achtergracht 1, 1381 BK Weesp"}},
		{ToolVerify, map[string]any{"address": "Achtergracht 1, 1381 BK Weesp", "countryCode": "NL"}},
		{ToolLookup, map[string]any{"country": "NL", "postcode": "1382 KB", "houseNumber": 51}},
		{ToolSuggest, map[string]any{"country": "BE", "query": "rue du pre"}},
		{ToolBatch, map[string]any{"addresses": []any{map[string]any{"id": "1", "address": "Achtergracht 1, 1381 BK Weesp"}}}},
	} {
		res := call(t, cs, c.tool, c.args, nil)
		text := errorText(t, res)
		if !strings.Contains(text, "temporarily unavailable") || !strings.Contains(text, "Accept the address") || !strings.Contains(text, "Do not retry") {
			t.Errorf("%s: %q", c.tool, text)
		}
		// The same for a program: the spec's code, and that the address may be accepted.
		if r := refusalOf(t, res); r.Code != adreswijzer.ErrServiceUnavailable || !r.AcceptAsTyped || r.RetryAfterSeconds != 0 {
			t.Errorf("%s: structured refusal %+v", c.tool, r)
		}
	}
}

// TestLogsCarryNoAddress runs every tool with a logger at debug level and checks that no
// line holds anything the agent sent.
func TestLogsCarryNoAddress(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	cs := connect(t, serve(t, sampleData(t), Options{Logger: log}), "2025-06-18")
	call(t, cs, ToolVerify, map[string]any{"address": "Achtergracht 1, 1381 BK Weesp"}, nil)
	call(t, cs, ToolVerify, map[string]any{"address": "Achtergracht 1, 1381 BK Weesp", "zip": "1381 BK"}, nil)
	call(t, cs, ToolLookup, map[string]any{"country": "BE", "postcode": "1502", "street": "Stevens-de Waelplein", "houseNumber": 9}, nil)
	call(t, cs, ToolSuggest, map[string]any{"country": "NL", "query": "Bloemendalerweg 51"}, nil)
	call(t, cs, ToolBatch, map[string]any{"addresses": []any{map[string]any{"id": "order-77", "address": "Route du Barrage 83, 4960 Malmedy"}}}, nil)
	logs := buf.String()
	if strings.Count(logs, `"msg":"agent tool call"`) != 5 {
		t.Errorf("want one line per call:\n%s", logs)
	}
	// Words only: digits of a postcode can turn up in a duration.
	for _, s := range []string{"Achtergracht", "1381 BK", "Weesp", "Stevens", "Bloemendalerweg", "Barrage", "Malmedy", "order-77"} {
		if strings.Contains(logs, s) {
			t.Errorf("log holds %q:\n%s", s, logs)
		}
	}
}

// TestBareStatelessRequest sends one tools/call of the stateless revision as a gateway
// passes it on: no initialize, no session, a public Host on a loopback connection.
func TestBareStatelessRequest(t *testing.T) {
	url := serve(t, sampleData(t), Options{})
	body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"list_supported_countries","arguments":{},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Host = "api.adreswijzer.example"
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", "list_supported_countries")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Mcp-Session-Id") != "" || !strings.Contains(string(b), `"countryCode":"NL"`) {
		t.Fatalf("status %d, session %q, body %s", resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), b)
	}
	toolSchemas(t, connect(t, url, "2026-07-28")).CheckAnswer(t, ToolCountries, b)
	// The gateway's view of the same body.
	in, err := rpcinspect.Inspect([]byte(body), nil)
	if err != nil || len(in.Calls) != 1 || in.Calls[0].Tool != ToolCountries || in.Calls[0].Cost != 0 || in.Calls[0].ProtocolVersion != "2026-07-28" {
		t.Errorf("inspect: %+v %v", in, err)
	}
}

// A body that is not JSON gets the JSON-RPC parse error (-32700, id null) with status 400,
// which a JSON-RPC client reads, not the SDK's plain-text 400.
func TestParseError(t *testing.T) {
	url := serve(t, sampleData(t), Options{})
	for _, body := range []string{`{"jsonrpc":"2.0","id":1,"method":"tools/list"`, `not json`, `{"jsonrpc":"2.0","id":1} }`} {
		req, _ := http.NewRequest("POST", url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var m struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Error   struct{ Code int }
		}
		if err := json.Unmarshal(b, &m); err != nil || resp.StatusCode != 400 || m.JSONRPC != "2.0" || string(m.ID) != "null" ||
			m.Error.Code != -32700 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
			t.Errorf("%q: %d %s", body, resp.StatusCode, b)
		}
	}
}

// TestUnsupportedCountryLookupSuggest (and verify): lookup_address and suggest_address take any
// two-letter country and answer one without a register as verify_address does, with
// UNSUPPORTED_COUNTRY and the step to accept the address, never with a schema error. The
// SDK checks each answer against the declared output schema.
func TestUnsupportedCountryLookupSuggest(t *testing.T) {
	cs := connect(t, serve(t, sampleData(t), Options{}), "2026-07-28")
	cases := []struct {
		tool string
		args map[string]any
	}{
		{ToolLookup, map[string]any{"country": "DE", "postcode": "10117", "houseNumber": 1, "lang": "en"}},
		{ToolLookup, map[string]any{"country": "fr", "postcode": "75001", "houseNumber": 1, "street": "Rue de Rivoli", "lang": "fr"}},
		{ToolSuggest, map[string]any{"country": "DE", "query": "Unter den Linden", "lang": "de"}},
		{ToolSuggest, map[string]any{"country": "lu", "query": "Rue de la Gare"}},
		{ToolVerify, map[string]any{"address": "Unter den Linden 1, 10117 Berlin", "countryCode": "DE", "lang": "en"}},
		{ToolVerify, map[string]any{"address": "Rue de Rivoli 1, 75001 Paris, France", "lang": "fr"}},
		{ToolVerify, map[string]any{"address1": "Unter den Linden 1", "zip": "10117", "city": "Berlin", "countryCode": "Deutschland"}},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprint(tc.tool, " ", tc.args["country"], tc.args["countryCode"]), func(t *testing.T) {
			var out struct {
				Addresses   []adreswijzer.LookupAddress
				Suggestions []adreswijzer.AutocompleteSuggestion
				Issues      []adreswijzer.Issue
				NextStep    string
				Meta        adreswijzer.Meta
			}
			if res := call(t, cs, tc.tool, tc.args, &out); res.IsError {
				t.Fatalf("tool error: %s", errorText(t, res))
			}
			if len(out.Issues) != 1 || out.Issues[0].Code != adreswijzer.IssueUnsupportedCountry || len(out.Addresses)+len(out.Suggestions) != 0 {
				t.Errorf("issues %+v, %d addresses, %d suggestions", out.Issues, len(out.Addresses), len(out.Suggestions))
			}
			if want := messages.NextStep(out.Meta.Language, messages.UnsupportedCountry); out.NextStep != want {
				t.Errorf("nextStep %q, want %q", out.NextStep, want)
			}
			if lang, ok := tc.args["lang"].(string); ok && string(out.Meta.Language) != lang {
				t.Errorf("language %s, want %s", out.Meta.Language, lang)
			}
		})
	}
	// Still a country code: a name or three letters are refused by the schema.
	for _, country := range []string{"Deutschland", "DEU", ""} {
		res := call(t, cs, ToolLookup, map[string]any{"country": country, "postcode": "10117", "houseNumber": 1}, nil)
		if text := errorText(t, res); !strings.Contains(text, "country") {
			t.Errorf("country %q: %q", country, text)
		}
	}
}

// TestBatchNextStep: a batch ends with one nextStep in the requested language, which says
// what to do with the results that are not valid (see batchNextStep for why not one per
// result).
func TestBatchNextStep(t *testing.T) {
	cs := connect(t, serve(t, sampleData(t), Options{}), "2025-06-18")
	valid := map[string]any{"id": "weesp", "address": "Achtergracht 1, 1381 BK Weesp"}
	cases := []struct {
		name  string
		items []any
		lang  adreswijzer.Language
		want  messages.Situation
	}{
		{"all valid", []any{valid, map[string]any{"id": "malmedy", "address": "Route du Barrage 83, 4960 Malmedy"}}, adreswijzer.LangEN, messages.BatchValid},
		{"one corrected", []any{valid, map[string]any{"id": "malmedy", "address": "Route du Barrage 83, B-4960 Malmedy"}}, adreswijzer.LangFR, messages.BatchReview},
		{"one ambiguous", []any{valid, map[string]any{"id": "lembeek", "address": "Stevens-de Waelplein 9, 1502 Lembeek"}}, adreswijzer.LangNL, messages.BatchReview},
		{"one unusable", []any{valid, map[string]any{"id": "empty"}}, adreswijzer.LangDE, messages.BatchReview},
		{"no language asked", []any{valid}, "", messages.BatchValid},
		// Addresses of other countries are accepted as given, not sent to be checked again.
		{"one abroad", []any{valid, map[string]any{"id": "berlin", "address": "Unter den Linden 1, 10117 Berlin", "countryCode": "DE"}},
			adreswijzer.LangEN, messages.BatchAccept},
		{"one abroad and one ambiguous", []any{valid, map[string]any{"id": "paris", "address": "Rue de Rivoli 1, 75001 Paris, France"},
			map[string]any{"id": "lembeek", "address": "Stevens-de Waelplein 9, 1502 Lembeek"}}, adreswijzer.LangFR, messages.BatchReviewAccept},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args := map[string]any{"addresses": tc.items}
			lang := adreswijzer.DefaultLanguage
			if tc.lang != "" {
				args["lang"], lang = string(tc.lang), tc.lang
			}
			var out BatchOutput
			if res := call(t, cs, ToolBatch, args, &out); res.IsError {
				t.Fatalf("tool error: %s", errorText(t, res))
			}
			if want := messages.NextStep(lang, tc.want); out.NextStep != want {
				t.Errorf("nextStep %q, want %q", out.NextStep, want)
			}
			// Every item abroad is "unsupported" with its issue, and is not checked.
			unchecked := 0
			for _, r := range out.Results {
				abroad := r.ID == "berlin" || r.ID == "paris"
				if abroad != (r.Status == "unsupported") || abroad && (!slices.Equal(r.Issues, []adreswijzer.IssueCode{adreswijzer.IssueUnsupportedCountry}) || r.CountryCode != nil || r.Blocking) {
					t.Errorf("result %+v", r)
				}
				if abroad || r.Status == "error" {
					unchecked++
				}
			}
			if out.Checked != len(out.Results)-unchecked {
				t.Errorf("checked %d of %d results, %d of them not checkable", out.Checked, len(out.Results), unchecked)
			}
		})
	}
	lt, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	listed := false
	for _, tool := range lt.Tools {
		if tool.Name == ToolBatch {
			listed = true
			if !strings.Contains(tool.Description, "one nextStep for the whole batch") {
				t.Errorf("the description does not say where the nextStep is: %s", tool.Description)
			}
		}
	}
	if !listed {
		t.Errorf("%s is not listed", ToolBatch)
	}
}
