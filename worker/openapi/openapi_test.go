package openapi

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	aw "github.com/adreswijzer/adreswijzer"
)

func parsed(t *testing.T) *document {
	t.Helper()
	var d document
	if err := json.Unmarshal(JSON(), &d); err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	return &d
}

func component(t *testing.T, d *document, name string) *schema {
	t.Helper()
	s, ok := d.Components.Schemas.get(name)
	if !ok {
		t.Fatalf("no schema %s", name)
	}
	return s
}

func enumStrings(t *testing.T, s *schema) []string {
	t.Helper()
	var out []string
	for _, raw := range s.Enum {
		out = append(out, enumText(raw))
	}
	return out
}

func TestJSONIsTheEmbeddedFile(t *testing.T) {
	onDisk, err := os.ReadFile("openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	if string(onDisk) != string(JSON()) {
		t.Fatal("JSON() differs from openapi.json")
	}
	d := parsed(t)
	if d.OpenAPI != "3.1.0" || d.Info.Title != "Adreswijzer" || d.Info.Version != "1" {
		t.Errorf("openapi %q, title %q, version %q; want 3.1.0, Adreswijzer, 1", d.OpenAPI, d.Info.Title, d.Info.Version)
	}
}

// The wire enums are defined twice, in api.go and here; these tests keep them identical.
func TestEnumsMatchTheDomain(t *testing.T) {
	d := parsed(t)
	issueCodes := make([]string, len(aw.IssueCodes))
	for i, c := range aw.IssueCodes {
		issueCodes[i] = string(c)
	}
	for _, tc := range []struct {
		schema string
		want   []string
	}{
		{"CountryCode", []string{string(aw.NL), string(aw.BE)}},
		{"Language", []string{string(aw.LangNL), string(aw.LangFR), string(aw.LangDE), string(aw.LangEN)}},
		{"Carrier", []string{string(aw.PostNL), string(aw.Bpost), string(aw.DHL), string(aw.Sendcloud)}},
		{"UnitType", []string{string(aw.UnitToevoeging), string(aw.UnitBus), "null"}},
		{"Verdict", []string{string(aw.VerdictValid), string(aw.VerdictCorrected), string(aw.VerdictAmbiguous), string(aw.VerdictInvalid)}},
		{"Confidence", []string{string(aw.ConfidenceHigh), string(aw.ConfidenceMedium), string(aw.ConfidenceLow)}},
		{"IssueSeverity", []string{string(aw.SeverityError), string(aw.SeverityWarning), string(aw.SeverityInfo)}},
		{"AddressField", []string{string(aw.FieldAddress1), string(aw.FieldAddress2), string(aw.FieldZip), string(aw.FieldCity), string(aw.FieldCountryCode), string(aw.FieldAddress)}},
		{"IssueCode", issueCodes},
		{"ErrorCode", []string{string(aw.ErrBadRequest), string(aw.ErrUnauthorized), string(aw.ErrForbidden), string(aw.ErrNotFound),
			string(aw.ErrPayloadTooLarge), string(aw.ErrValidationFailed), string(aw.ErrRateLimited), string(aw.ErrQuotaExceeded),
			string(aw.ErrDailyCapReached), string(aw.ErrInternal), string(aw.ErrServiceUnavailable)}},
	} {
		if got := enumStrings(t, component(t, d, tc.schema)); !slices.Equal(got, tc.want) {
			t.Errorf("%s enum %v, api.go has %v", tc.schema, got, tc.want)
		}
	}
}

func TestSeveritiesMatchTheDomain(t *testing.T) {
	s := component(t, parsed(t), "IssueCode")
	if len(s.Severity) != len(aw.IssueCodes) {
		t.Errorf("x-severity has %d codes, api.go %d", len(s.Severity), len(aw.IssueCodes))
	}
	for _, c := range aw.IssueCodes {
		if got, want := s.Severity[string(c)], string(c.Severity()); got != want {
			t.Errorf("x-severity of %s is %q, IssueCode.Severity() says %q", c, got, want)
		}
		if strings.TrimSpace(s.EnumDescriptions[string(c)]) == "" {
			t.Errorf("issue code %s has no meaning in x-enum-descriptions", c)
		}
	}
}

// Each status other than 429 has exactly one code, and the per-status schemas restrict the
// code to what x-status says, so the table in the page and the validation agree.
func TestErrorCodesPerStatus(t *testing.T) {
	d := parsed(t)
	codes := component(t, d, "ErrorCode")
	byStatus := map[int][]string{}
	for _, c := range enumStrings(t, codes) {
		st, ok := codes.Status[c]
		if !ok {
			t.Errorf("error code %s has no x-status", c)
		}
		byStatus[st] = append(byStatus[st], c)
		if strings.TrimSpace(codes.EnumDescriptions[c]) == "" {
			t.Errorf("error code %s has no meaning", c)
		}
	}
	for st, want := range byStatus {
		if st != 429 && len(want) != 1 {
			t.Errorf("status %d has codes %v, want exactly one", st, want)
		}
		s := component(t, d, "Error"+itoa(st))
		if len(s.AllOf) != 2 || s.AllOf[0].Ref != "#/components/schemas/ErrorResponse" {
			t.Fatalf("Error%d is not ErrorResponse restricted", st)
		}
		errSchema, _ := s.AllOf[1].Properties.get("error")
		code, _ := errSchema.Properties.get("code")
		if got := enumStrings(t, code); !slices.Equal(got, want) {
			t.Errorf("Error%d allows codes %v, x-status says %v", st, got, want)
		}
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// The limits in api.go are what the worker and the gateway enforce; the document must
// promise the same numbers.
func TestLimitsMatchTheDomain(t *testing.T) {
	d := parsed(t)
	sid := component(t, d, "SessionId")
	if *sid.MinLength != 1 || *sid.MaxLength != aw.MaxSessionIDLength {
		t.Errorf("SessionId length %d..%d, want 1..%d", *sid.MinLength, *sid.MaxLength, aw.MaxSessionIDLength)
	}
	re := regexp.MustCompile(sid.Pattern)
	for _, s := range []string{"chk-7f3a9c", "a", "A.b:c-d_e", "", "a b", "ä", "x/y", "42", "sess;1", strings.Repeat("a", 64), strings.Repeat("a", 65), "tab\t"} {
		inSchema := re.MatchString(s) && len([]rune(s)) <= *sid.MaxLength && len([]rune(s)) >= *sid.MinLength
		if inSchema != aw.ValidSessionID(s) {
			t.Errorf("sessionId %q: schema says %v, ValidSessionID %v", s, inSchema, aw.ValidSessionID(s))
		}
	}
	q, _ := d.Components.Parameters.get("Q")
	if *q.Schema.MinLength != 1 || *q.Schema.MaxLength != aw.MaxQueryLength {
		t.Errorf("q length %d..%d, want 1..%d", *q.Schema.MinLength, *q.Schema.MaxLength, aw.MaxQueryLength)
	}
	num, _ := d.Components.Parameters.get("LookupNumber")
	if want := `^\d{1,` + itoa(aw.MaxNumberDigits) + `}$`; num.Schema.Pattern != want {
		t.Errorf("number pattern %s, want %s", num.Schema.Pattern, want)
	}
	vr := component(t, d, "ValidateRequest")
	for _, f := range []string{"address1", "address2", "zip", "city"} {
		p, _ := vr.Properties.get(f)
		if p.MaxLength == nil || *p.MaxLength != aw.MaxFieldLength {
			t.Errorf("ValidateRequest.%s maxLength %v, want %d", f, p.MaxLength, aw.MaxFieldLength)
		}
	}
	for _, name := range []string{"LookupPostcode", "LookupStreetNL", "LookupStreetBE", "LookupStreetAny", "TypeaheadPostcode"} {
		p, _ := d.Components.Parameters.get(name)
		if p.Schema.MaxLength == nil || *p.Schema.MaxLength != aw.MaxFieldLength {
			t.Errorf("parameter %s maxLength %v, want %d", name, p.Schema.MaxLength, aw.MaxFieldLength)
		}
	}
	for _, name := range []string{"SuggestResponse", "AutocompleteResponse", "ValidateResponse"} {
		p, _ := component(t, d, name).Properties.get("suggestions")
		if p.MaxItems == nil || *p.MaxItems != aw.MaxSuggestions {
			t.Errorf("%s.suggestions maxItems %v, want %d", name, p.MaxItems, aw.MaxSuggestions)
		}
	}
}

// The specification asks the reference to state these obligations; losing one in an edit
// would go unnoticed by every other test.
func TestInfoStatesTheObligations(t *testing.T) {
	d := parsed(t)
	for _, want := range []string{
		"1.5 s", "5 s", "accept the address as typed", "Amsterdam", "controller", "processor",
		"Nothing submitted is stored", "CC BY 4.0", "meta.attribution",
		"live key 50 calls a second with bursts of 100", "test key 5 a second with bursts of 10",
		"publishable key 10 a second per key and client IP address, with bursts of 20",
		"10 suggest or autocomplete calls count as one", "101st call",
	} {
		if !strings.Contains(d.Info.Description, want) {
			t.Errorf("info.description does not say %q", want)
		}
	}
	bearer, ok := d.Components.SecuritySchemes.get("bearer")
	if !ok || bearer.Type != "http" || bearer.Scheme != "bearer" {
		t.Fatalf("security scheme bearer: %+v", bearer)
	}
	for _, want := range []string{"_live_", "_test_", "_pk_live_", "Platform session token", "never accepted in a URL"} {
		if !strings.Contains(bearer.Description, want) {
			t.Errorf("bearer description does not mention %q", want)
		}
	}
}
