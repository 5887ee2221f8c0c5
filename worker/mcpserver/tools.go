package mcpserver

import (
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/gateway/agentpolicy/rpcinspect"
)

// AddressFields is one address as an agent may give it: free-form, or in the parts of a
// checkout form.
type AddressFields struct {
	Address  string `json:"address,omitempty" jsonschema:"The whole address as one text, at most 500 characters, on one line with commas or on several lines, e.g. \"Achtergracht 1, 1381 BK Weesp\" or \"Rue du Pré aux Oies 134 bte 1\\n1130 Bruxelles\\nBelgique\". Give either this or the parts address1, zip, city."`
	Address1 string `json:"address1,omitempty" jsonschema:"Street and house number with any letter or addition, e.g. \"Bloemendalerweg 51A-10\" or \"Stevens-de Waelplein 9\". At most 200 characters."`
	Address2 string `json:"address2,omitempty" jsonschema:"Apartment or box when it is a separate field: the Dutch toevoeging (\"2 hoog\", \"ben\") or the Belgian box (\"bus 2\", \"bte 1\"). At most 200 characters."`
	Zip      string `json:"zip,omitempty" jsonschema:"Postcode: Dutch \"1234 AB\", Belgian \"1234\". At most 200 characters."`
	City     string `json:"city,omitempty" jsonschema:"Town or city, e.g. \"Weesp\", \"Bruxelles\", \"Lembeek\". At most 200 characters."`
	// CountryCode is free text on purpose: an unsupported country is an answer
	// (UNSUPPORTED_COUNTRY), not a bad argument.
	CountryCode       string `json:"countryCode,omitempty" jsonschema:"NL or BE (a country name such as \"Nederland\" or \"Belgique\" also works). Leave it out when you do not know: the country is then detected from the postcode, country words in the address and the registers."`
	CustomerConfirmed bool   `json:"customerConfirmed,omitempty" jsonschema:"Set only after the person explicitly confirmed this exact address although it was not found; it is then accepted for review and no longer blocks."`
	AllowPoBox        bool   `json:"allowPoBox,omitempty" jsonschema:"Accept a PO box (Postbus, Antwoordnummer, boîte postale) where a delivery address is not needed."`
}

// VerifyInput is the input of verify_address.
type VerifyInput struct {
	AddressFields
	Lang      string `json:"lang,omitempty" jsonschema:"Language of messages and nextStep: nl, fr, de or en. Pass the language you speak with the person; without it the address's own region language is used."`
	Carrier   string `json:"carrier,omitempty" jsonschema:"Parcel carrier whose field limits to check: postnl, bpost, dhl or sendcloud (default: PostNL for NL, bpost for BE). A named carrier's CARRIER_LINE_TOO_LONG warnings are also issues."`
	SessionID string `json:"sessionId,omitempty" jsonschema:"Optional: your id for the one address being worked on, 1 to 64 letters, digits or _ . : -. suggest_address and lookup_address calls and the verify_address that ends them count as one verification together when they share it; use a new one for each address."`
}

// VerifyOutput is the result of verify_address: the REST validate answer with the country
// that was checked.
type VerifyOutput struct {
	Status adreswijzer.Verdict `json:"status" jsonschema:"valid: exactly as in the register; corrected: found after a correction (use normalized); ambiguous: several addresses or countries fit, see suggestions and ask the person; invalid: not found, see issues."`
	// CountryCode is the country checked; null when it could not be told.
	CountryCode     *string                         `json:"countryCode" jsonschema:"The country checked (NL or BE); null when it could not be told apart (issue COUNTRY_AMBIGUOUS) or is not supported."`
	CountryDetected bool                            `json:"countryDetected" jsonschema:"True when no country was given and it was detected."`
	Formatted       []string                        `json:"formatted" jsonschema:"Postal lines ready to print on a label, null when no single address matched."`
	Normalized      *adreswijzer.NormalizedAddress  `json:"normalized" jsonschema:"The register's version of the address in checkout fields, null when no single address matched."`
	Match           *adreswijzer.AddressMatch       `json:"match" jsonschema:"The matched register address taken apart (street, number, letter, unit)."`
	Suggestions     []adreswijzer.NormalizedAddress `json:"suggestions" jsonschema:"Up to 10 candidates when the status is ambiguous or the number has other additions; ask the person which one."`
	Confidence      adreswijzer.Confidence          `json:"confidence"`
	Blocking        bool                            `json:"blocking" jsonschema:"Advice: true only when the address certainly cannot be delivered as written. The caller decides."`
	Issues          []adreswijzer.Issue             `json:"issues" jsonschema:"Findings with a code, a severity and a message for the person."`
	Carrier         *adreswijzer.CarrierAddress     `json:"carrier" jsonschema:"The address in the fields of the requested carrier, or of the national postal operator (PostNL for NL, bpost for BE) when none was asked for; null unless exactly one address matched."`
	NextStep        string                          `json:"nextStep" jsonschema:"One sentence saying what to do next, for the person."`
	Meta            adreswijzer.Meta                `json:"meta" jsonschema:"The register (source), its dataset version and, for Belgium, the attribution to show."`
}

// LookupInput is the input of lookup_address.
type LookupInput struct {
	Country     string `json:"country" jsonschema:"NL or BE (ISO 3166-1 alpha-2, any letter case). Another country's code is answered with the issue UNSUPPORTED_COUNTRY: accept such an address as given."`
	Postcode    string `json:"postcode" jsonschema:"Postcode: Dutch \"1382 KB\", Belgian \"1502\"."`
	HouseNumber int    `json:"houseNumber" jsonschema:"The house number without letter or addition, e.g. 51 for \"51A-10\": every letter, addition and box at the number is returned."`
	Street      string `json:"street,omitempty" jsonschema:"Street name; required for BE, where a postcode spans many streets (Dutch or French name, typos tolerated). Optional for NL."`
	Lang        string `json:"lang,omitempty" jsonschema:"Language of messages and names: nl, fr, de or en."`
	Carrier     string `json:"carrier,omitempty" jsonschema:"Carrier whose fields each address carries: postnl, bpost, dhl or sendcloud (default: PostNL for NL, bpost for BE)."`
	Compact     bool   `json:"compact,omitempty" jsonschema:"Answer with one line per address (compact) instead of each address's fields, postal lines and carrier fields: for a number with many units, such as a block of flats, when you only need to show the choice."`
	SessionID   string `json:"sessionId,omitempty" jsonschema:"Optional: your id for the one address being worked on, 1 to 64 letters, digits or _ . : -. suggest_address and lookup_address calls and the verify_address that ends them count as one verification together when they share it; use a new one for each address."`
}

// LookupOutput is the result of lookup_address: the REST lookup answer, and in compact form
// one line per address in place of the addresses' fields, which for a block of a hundred
// flats would fill an agent's context with a hundred copies of the same street.
type LookupOutput struct {
	adreswijzer.LookupResponse
	Compact []CompactAddress `json:"compact,omitempty" jsonschema:"Present when compact was asked: one line per address, in the order a full answer lists them; addresses is then empty."`
}

// CompactAddress is one address of a compact lookup.
type CompactAddress struct {
	Addition *string `json:"addition" jsonschema:"What tells this address apart at the number (NL letter or toevoeging, BE box), as listed in additions; null for the number without addition."`
	Line     string  `json:"line" jsonschema:"The postal address on one line."`
	Planned  bool    `json:"planned" jsonschema:"True for a new build not yet completed."`
}

// SuggestInput is the input of suggest_address.
type SuggestInput struct {
	Country   string `json:"country" jsonschema:"NL or BE (ISO 3166-1 alpha-2, any letter case). Another country's code is answered with the issue UNSUPPORTED_COUNTRY: accept such an address as given."`
	Query     string `json:"query" jsonschema:"What is known so far, 1 to 100 characters: a street with or without a number (\"Bloemendalerweg 51\", \"rue du pré\"), a postcode and number (\"1382 KB 51\") or a place."`
	Postcode  string `json:"postcode,omitempty" jsonschema:"Limits suggestions to this postcode."`
	Lang      string `json:"lang,omitempty" jsonschema:"Language of names and messages: nl, fr, de or en."`
	SessionID string `json:"sessionId,omitempty" jsonschema:"Optional: your id for the one address being worked on, 1 to 64 letters, digits or _ . : -. suggest_address and lookup_address calls and the verify_address that ends them count as one verification together when they share it; use a new one for each address."`
}

// SuggestOutput is the result of suggest_address.
type SuggestOutput struct {
	Suggestions []adreswijzer.AutocompleteSuggestion `json:"suggestions" jsonschema:"Up to 10: kind \"address\" is complete (verify it with verify_address), \"street\" still needs a house number, \"locality\" a street."`
	Degraded    bool                                 `json:"degraded" jsonschema:"True when the search ran out of time and the list may be shorter than it could be."`
	Issues      []adreswijzer.Issue                  `json:"issues"`
	NextStep    string                               `json:"nextStep"`
	Meta        adreswijzer.Meta                     `json:"meta"`
}

// BatchItem is one address of verify_addresses_batch.
type BatchItem struct {
	ID string `json:"id" jsonschema:"Your id for this address (e.g. an order number), 1 to 100 characters, returned with its result."`
	AddressFields
}

// BatchInput is the input of verify_addresses_batch.
type BatchInput struct {
	Addresses []BatchItem `json:"addresses" jsonschema:"1 to 100 addresses. Each counts as one call against the limits."`
	Lang      string      `json:"lang,omitempty" jsonschema:"Language of messages: nl, fr, de or en."`
	Carrier   string      `json:"carrier,omitempty" jsonschema:"Carrier whose field limits to check: postnl, bpost, dhl or sendcloud."`
}

// BatchResult is the compact result of one address.
type BatchResult struct {
	ID          string                  `json:"id"`
	Status      string                  `json:"status" jsonschema:"valid, corrected, ambiguous or invalid as for verify_address; unsupported when the address is in a country other than NL and BE (issue UNSUPPORTED_COUNTRY): accept it as given, it is not checked, also not one by one; error when this item's input was unusable (see error); unavailable when the register of its country is temporarily unavailable: accept the address as given and verify it later."`
	CountryCode *string                 `json:"countryCode" jsonschema:"The country checked, null when unknown."`
	Normalized  *string                 `json:"normalized" jsonschema:"The register address on one line, null when no single address matched."`
	Issues      []adreswijzer.IssueCode `json:"issues" jsonschema:"Issue codes; call verify_address on one address for messages and suggestions."`
	Blocking    bool                    `json:"blocking"`
	Error       string                  `json:"error,omitempty" jsonschema:"Why this item could not be checked (status error or unavailable)."`
}

// BatchOutput is the result of verify_addresses_batch.
type BatchOutput struct {
	Results []BatchResult `json:"results" jsonschema:"One per address, in the input order."`
	// Checked is what the batch counts as verifications (see checked).
	Checked int `json:"checked" jsonschema:"How many of the addresses were checked against a register (those with status valid, corrected, ambiguous or invalid); only these count as verifications."`
	// NextStep is one for the whole batch: see batchNextStep.
	NextStep string           `json:"nextStep" jsonschema:"One sentence for the whole batch saying what to do with the results, in the requested language: use valid addresses as they are and corrected ones in the register's form (normalized), accept those of countries other than NL and BE as given, and check each other one alone."`
	Meta     adreswijzer.Meta `json:"meta" jsonschema:"The registers and dataset versions used."`
}

// CountriesInput is the (empty) input of list_supported_countries.
type CountriesInput struct{}

// CountryInfo describes one supported country.
type CountryInfo struct {
	CountryCode    string         `json:"countryCode"`
	Name           string         `json:"name"`
	Register       string         `json:"register" jsonschema:"The official register addresses are checked against."`
	Available      bool           `json:"available" jsonschema:"False while no dataset of the register is loaded; verify calls then say the register is unavailable."`
	DatasetVersion *string        `json:"datasetVersion" jsonschema:"The register snapshot in use, as <dataset>:<date> parts joined by +."`
	ActivatedAt    *string        `json:"activatedAt" jsonschema:"When that snapshot started serving (RFC 3339)."`
	Attribution    *string        `json:"attribution" jsonschema:"Credit line to show with this register's data, null when none is needed."`
	PostcodeFormat string         `json:"postcodeFormat"`
	NameLanguages  []string       `json:"nameLanguages" jsonschema:"Languages street and place names exist in."`
	RequiredInputs RequiredInputs `json:"requiredInputs"`
}

// RequiredInputs lists, per tool, what a call for the country needs.
type RequiredInputs struct {
	VerifyAddress  []string `json:"verify_address"`
	LookupAddress  []string `json:"lookup_address"`
	SuggestAddress []string `json:"suggest_address"`
}

// CountriesOutput is the result of list_supported_countries.
type CountriesOutput struct {
	Countries []CountryInfo `json:"countries"`
}

var (
	langEnum    = []any{"nl", "fr", "de", "en"}
	carrierEnum = []any{"postnl", "bpost", "dhl", "sendcloud"}
	verdictEnum = []any{"valid", "corrected", "ambiguous", "invalid"}
)

// typeSchemas give the domain's enumerations their values wherever they occur in a tool's
// output: an issue's code, severity, field and unit type, a verdict, a confidence, a
// language, a country. The Go types are strings; the model and the client's schema check
// are told which strings.
var typeSchemas = map[reflect.Type]*jsonschema.Schema{
	reflect.TypeFor[adreswijzer.IssueCode]():  {Type: "string", Enum: values(adreswijzer.IssueCodes...)},
	reflect.TypeFor[adreswijzer.Severity]():   {Type: "string", Enum: values(adreswijzer.SeverityError, adreswijzer.SeverityWarning, adreswijzer.SeverityInfo)},
	reflect.TypeFor[adreswijzer.Field]():      {Type: "string", Enum: values(adreswijzer.FieldAddress1, adreswijzer.FieldAddress2, adreswijzer.FieldZip, adreswijzer.FieldCity, adreswijzer.FieldCountryCode, adreswijzer.FieldAddress)},
	reflect.TypeFor[adreswijzer.Verdict]():    {Type: "string", Enum: verdictEnum},
	reflect.TypeFor[adreswijzer.Confidence](): {Type: "string", Enum: values(adreswijzer.ConfidenceHigh, adreswijzer.ConfidenceMedium, adreswijzer.ConfidenceLow)},
	reflect.TypeFor[adreswijzer.Language]():   {Type: "string", Enum: langEnum},
	reflect.TypeFor[adreswijzer.Country]():    {Type: "string", Enum: values(adreswijzer.Countries...)},
	reflect.TypeFor[adreswijzer.UnitType]():   {Types: []string{"null", "string"}, Enum: []any{string(adreswijzer.UnitToevoeging), string(adreswijzer.UnitBus), nil}},
	reflect.TypeFor[adreswijzer.ErrorCode]():  {Type: "string", Enum: refusalCodes},
	reflect.TypeFor[*adreswijzer.UnitType]():  {Types: []string{"null", "string"}, Enum: []any{string(adreswijzer.UnitToevoeging), string(adreswijzer.UnitBus), nil}},
}

// values lists enumeration values for a schema.
func values[S ~string](vs ...S) []any {
	out := make([]any, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

// schemaFor infers T's schema (with the enumerations of typeSchemas) and lets tweak add what
// Go types cannot say (enums of plain strings, bounds).
func schemaFor[T any](tweak func(props map[string]*jsonschema.Schema)) *jsonschema.Schema {
	s, err := jsonschema.For[T](&jsonschema.ForOptions{TypeSchemas: typeSchemas})
	if err != nil {
		panic(err) // the types above are fixed; a failure is a programming error
	}
	if tweak != nil {
		tweak(s.Properties)
	}
	return s
}

// The bounds the handlers enforce, in the input schemas, so that an agent is shown them
// before it calls (and the SDK refuses a call beyond them before a handler runs). What a
// schema cannot say (either the free-form address or its parts; ids unique in a batch) is in
// the descriptions, and the handlers check it.
func bound(s *jsonschema.Schema, min, max int) {
	if min > 0 {
		s.MinLength = ptr(min)
	}
	s.MaxLength = ptr(max)
}

// session bounds a sessionId as the spec does (the REST parameter's pattern).
func session(p map[string]*jsonschema.Schema) {
	bound(p["sessionId"], 1, adreswijzer.MaxSessionIDLength)
	p["sessionId"].Pattern = sessionPattern
}

// sessionPattern is the spec's SessionId pattern.
const sessionPattern = `^[\w.:-]+$`

// addressBounds bounds the members of AddressFields.
func addressBounds(p map[string]*jsonschema.Schema) {
	bound(p["address"], 0, adreswijzer.MaxFreeFormLength)
	for _, f := range []string{"address1", "address2", "zip", "city"} {
		bound(p[f], 0, adreswijzer.MaxFieldLength)
	}
	bound(p["countryCode"], 0, maxCountryLength)
}

// eitherForm is the rule an address's schema cannot say without a top-level oneOf, which
// several model APIs refuse in a tool's input schema.
const eitherForm = "Give the address either free-form (address) or in structured fields (address1 with zip, and address2 and city where there are), not both."

func enum(s *jsonschema.Schema, values []any) { s.Enum = values }

// refusalCodes are the codes of a tool error: the server's (VALIDATION_FAILED for arguments,
// SERVICE_UNAVAILABLE for the register) and the gateway's (the limits, the quota, no worker).
var refusalCodes = []any{
	string(adreswijzer.ErrValidationFailed), string(adreswijzer.ErrRateLimited), string(adreswijzer.ErrDailyCapReached),
	string(adreswijzer.ErrQuotaExceeded), string(adreswijzer.ErrServiceUnavailable), string(adreswijzer.ErrInternal),
}

// outputSchema is a tool's output schema: its result (T, with tweak), or the refusal that
// every tool error carries as structured content (rpcinspect.ToolError), which the gateway's
// refusals carry too. Clients that check structured content against the output schema (the
// TypeScript SDK does so for errors too) accept both; the two are told apart by the
// refusal's one member, error, which no result has.
func outputSchema[T any](tweak func(props map[string]*jsonschema.Schema)) *jsonschema.Schema {
	refusal := schemaFor[rpcinspect.ToolError](func(p map[string]*jsonschema.Schema) {
		enum(p["error"].Properties["code"], refusalCodes)
		p["error"].Properties["retryAfterSeconds"].Minimum = ptr(1.0)
	})
	refusal.Description = "The call was not served (the result has isError set): why, and what to do instead."
	return &jsonschema.Schema{Type: "object", AnyOf: []*jsonschema.Schema{schemaFor[T](tweak), refusal}}
}

// countryPattern takes any two-letter code rather than an enum of NL and BE: the spec
// answers other countries with the issue UNSUPPORTED_COUNTRY, which tells the agent to
// accept the address, where a schema error would only tell it the call was wrong.
const countryPattern = "^[A-Za-z]{2}$"

// readOnly are the annotations of every tool: it reads the registers and changes nothing,
// so a host need not ask the person before calling it. destructiveHint is meaningful only
// for tools that are not read-only, but hosts that look at it alone must read false too.
func readOnly(title string) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: true, DestructiveHint: ptr(false), IdempotentHint: true, OpenWorldHint: ptr(false)}
}

func (s *service) addTools(srv *mcp.Server) {
	mcp.AddTool(srv, &mcp.Tool{
		Name:        ToolVerify,
		Title:       "Verify an address (NL, BE)",
		Annotations: readOnly("Verify an address (NL, BE)"),
		Description: `Check one Dutch or Belgian address against the official register (BAG for NL, BeST Address for BE) and get the register's version of it.
Give either "address", the whole address as text (e.g. "Achtergracht 1, 1381 BK Weesp", or several lines; at most 500 characters), or the parts address1 (street and number), address2 (apartment/box), zip and city. countryCode is optional: without it the country is detected from the postcode, a country word or a place the registers know; when a bare Belgian-looking postcode could also be Dutch and nothing else tells, the result has status "ambiguous" with issue COUNTRY_AMBIGUOUS: ask the person which country and call again with countryCode. Text with nothing Dutch or Belgian in it comes back invalid with countryCode null and what is missing (FORMAT_INVALID on zip, MISSING_HOUSE_NUMBER).
Result: status (valid / corrected / ambiguous / invalid), normalized fields and formatted postal lines when one address matched, suggestions when several fit, issues with codes and messages, nextStep, confidence, blocking (advice only), and meta naming the register and dataset version.
Do not call again with the same arguments: the answer will not change. If the tool says the register is unavailable, accept the address as given and verify it later.`,
		InputSchema: described(eitherForm, schemaFor[VerifyInput](func(p map[string]*jsonschema.Schema) {
			addressBounds(p)
			session(p)
			enum(p["lang"], langEnum)
			enum(p["carrier"], carrierEnum)
		})),
		OutputSchema: outputSchema[VerifyOutput](nil),
	}, s.verifyTool)

	mcp.AddTool(srv, &mcp.Tool{
		Name:        ToolLookup,
		Title:       "Look up the addresses at a house number",
		Annotations: readOnly("Look up the addresses at a house number"),
		Description: `List every address at a house number: NL by postcode and house number, BE by postcode, street and house number. Use it to find which additions exist (NL toevoeging such as "A", "2", "bis"; BE box "bus 2" / "bte 1") so the person can pick one, or to fill in the street and city from a Dutch postcode and number.
Example: {"country":"NL","postcode":"1382 KB","houseNumber":51} or {"country":"BE","postcode":"1502","street":"Stevens-de Waelplein","houseNumber":9}.
Result: addresses (each with formatted postal lines and carrier fields), the additions to choose from, issues when nothing was found (POSTCODE_NOT_FOUND, HOUSE_NUMBER_NOT_FOUND, STREET_MISMATCH), nextStep and meta. For a number with many units (a block of flats) pass "compact": true to get one line per address instead of every address's fields. Do not repeat identical calls.`,
		InputSchema: schemaFor[LookupInput](func(p map[string]*jsonschema.Schema) {
			p["country"].Pattern = countryPattern
			bound(p["postcode"], 1, adreswijzer.MaxFieldLength)
			bound(p["street"], 0, adreswijzer.MaxFieldLength)
			p["houseNumber"].Minimum = ptr(1.0)
			p["houseNumber"].Maximum = ptr(float64(maxHouseNumber))
			session(p)
			enum(p["lang"], langEnum)
			enum(p["carrier"], carrierEnum)
		}),
		OutputSchema: outputSchema[LookupOutput](nil),
	}, s.lookupTool)

	mcp.AddTool(srv, &mcp.Tool{
		Name:        ToolSuggest,
		Title:       "Suggest addresses from partial input",
		Annotations: readOnly("Suggest addresses from partial input"),
		Description: `Suggest up to 10 complete addresses, streets or places in NL or BE from partial text, as address autocompletion does: a street with or without a number ("Bloemendalerweg 51", "rue du pré aux"), a postcode with a number ("1382 KB 51"), or a place name. Street names match in any register language (Dutch, French, German) and tolerate typos.
Pick the suggestion the person means, then check it with verify_address (a "street" suggestion still needs the house number). Do not repeat identical calls.`,
		InputSchema: schemaFor[SuggestInput](func(p map[string]*jsonschema.Schema) {
			p["country"].Pattern = countryPattern
			bound(p["query"], 1, adreswijzer.MaxQueryLength)
			session(p)
			bound(p["postcode"], 0, adreswijzer.MaxFieldLength)
			enum(p["lang"], langEnum)
		}),
		OutputSchema: outputSchema[SuggestOutput](nil),
	}, s.suggestTool)

	mcp.AddTool(srv, &mcp.Tool{
		Name:        ToolBatch,
		Title:       "Verify a list of addresses",
		Annotations: readOnly("Verify a list of addresses"),
		Description: `Verify up to 100 Dutch or Belgian addresses in one call, each with your own id (1 to 100 characters, unique within the batch) and given like verify_address's input (free-form "address" or the parts, optional countryCode). Results come back in the input order in compact form: id, status, countryCode, normalized (the register address on one line), issue codes and blocking, with one nextStep for the whole batch (not one per result). Each address counts as one call against the limits (60 a minute, 10,000 a day). More than 100 addresses are refused: split the list.
What to do with each result: valid: use it; corrected: use normalized; ambiguous or invalid: call verify_address on that address for messages, suggestions and its own nextStep; unsupported (a country other than NL and BE): accept the address as given, do not check it again; error: fix that item's input; unavailable: accept the address as given and verify it later. Only the addresses checked against a register (checked in the result) count as verifications. Do not resend the same batch.`,
		InputSchema: schemaFor[BatchInput](func(p map[string]*jsonschema.Schema) {
			p["addresses"].Types, p["addresses"].Type = nil, "array" // not null: 1 to 100 items
			p["addresses"].MinItems = ptr(1)
			p["addresses"].MaxItems = ptr(adreswijzer.MaxBatchSize)
			item := p["addresses"].Items
			item.Description = eitherForm + " The id must not repeat another item's id."
			addressBounds(item.Properties)
			bound(item.Properties["id"], 1, maxIDLength)
			item.Properties["id"].Pattern = `\S`
			enum(p["lang"], langEnum)
			enum(p["carrier"], carrierEnum)
		}),
		OutputSchema: outputSchema[BatchOutput](func(p map[string]*jsonschema.Schema) {
			enum(p["results"].Items.Properties["status"], append(append([]any{}, verdictEnum...), statusUnsupported, statusError, statusUnavailable))
			p["checked"].Minimum, p["checked"].Maximum = ptr(0.0), ptr(float64(adreswijzer.MaxBatchSize))
		}),
	}, s.batchTool)

	mcp.AddTool(srv, &mcp.Tool{
		Name:         ToolCountries,
		Title:        "List supported countries",
		Annotations:  readOnly("List supported countries"),
		Description:  `List the countries addresses can be checked in (NL, BE), the inputs each tool needs per country, the register each country is checked against and the dataset version in use. Free: not counted against the limits. Countries not listed are not checked: accept such addresses as given.`,
		OutputSchema: outputSchema[CountriesOutput](nil),
	}, s.countriesTool)
}

func ptr[T any](v T) *T { return &v }

// described sets a schema's description.
func described(d string, s *jsonschema.Schema) *jsonschema.Schema {
	s.Description = d
	return s
}
