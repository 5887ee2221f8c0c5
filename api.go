package adreswijzer

// The wire types of REST v1, exactly as the interface specification names them. They live in
// the domain package because the worker writes them, the gateway caches and counts them, the
// agent tools reshape them and the form core reads them; one definition keeps the four from
// drifting apart. openapi.json describes the same shapes and the integration tests check every
// answer against it.

// IssueCode classifies a finding about a submitted address.
type IssueCode string

const (
	IssueFormatInvalid       IssueCode = "FORMAT_INVALID"
	IssueMissingHouseNumber  IssueCode = "MISSING_HOUSE_NUMBER"
	IssuePostcodeNotFound    IssueCode = "POSTCODE_NOT_FOUND"
	IssueHouseNumberNotFound IssueCode = "HOUSE_NUMBER_NOT_FOUND"
	IssueSuffixNotFound      IssueCode = "SUFFIX_NOT_FOUND"
	IssueUnitRequired        IssueCode = "UNIT_REQUIRED"
	IssueUnitNotFound        IssueCode = "UNIT_NOT_FOUND"
	IssueStreetMismatch      IssueCode = "STREET_MISMATCH"
	IssueCityMismatch        IssueCode = "CITY_MISMATCH"
	IssueAddressPlanned      IssueCode = "ADDRESS_PLANNED"
	IssueCarrierLineTooLong  IssueCode = "CARRIER_LINE_TOO_LONG"
	IssuePoBoxNotAllowed     IssueCode = "PO_BOX_NOT_ALLOWED"
	IssueUnsupportedCountry  IssueCode = "UNSUPPORTED_COUNTRY"
	IssueCountryAmbiguous    IssueCode = "COUNTRY_AMBIGUOUS"
	IssueUnverifiedConfirmed IssueCode = "UNVERIFIED_CONFIRMED_BY_CUSTOMER"
)

// IssueCodes lists every code, for documentation and exhaustive tests.
var IssueCodes = []IssueCode{
	IssueFormatInvalid, IssueMissingHouseNumber, IssuePostcodeNotFound, IssueHouseNumberNotFound,
	IssueSuffixNotFound, IssueUnitRequired, IssueUnitNotFound, IssueStreetMismatch, IssueCityMismatch,
	IssueAddressPlanned, IssueCarrierLineTooLong, IssuePoBoxNotAllowed, IssueUnsupportedCountry,
	IssueCountryAmbiguous, IssueUnverifiedConfirmed,
}

// Severity is the fixed severity of each issue code (the spec leaves it open; openapi.json
// documents this table). Error: the address cannot be delivered as typed. Warning: deliverable
// once the customer confirms or picks something. Info: nothing for the customer to do.
func (c IssueCode) Severity() Severity {
	switch c {
	case IssueFormatInvalid, IssueMissingHouseNumber, IssuePostcodeNotFound,
		IssueHouseNumberNotFound, IssuePoBoxNotAllowed:
		return SeverityError
	case IssueAddressPlanned, IssueUnsupportedCountry:
		return SeverityInfo
	}
	return SeverityWarning
}

// BlocksConfirmed reports whether the issue keeps an address blocking after the customer
// confirmed it (the spec's blocking rule 2: format errors, a missing house number, a
// disallowed PO box). The engine applies the rule; the address form asks it so as not to
// offer a confirmation no confirmation can pass.
func (c IssueCode) BlocksConfirmed() bool {
	switch c {
	case IssueFormatInvalid, IssueMissingHouseNumber, IssuePoBoxNotAllowed:
		return true
	}
	return false
}

// Severity of an issue.
type Severity string

const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
	SeverityInfo    Severity = "info"
)

// Field names the input field an issue is about.
type Field string

const (
	FieldAddress1    Field = "address1"
	FieldAddress2    Field = "address2"
	FieldZip         Field = "zip"
	FieldCity        Field = "city"
	FieldCountryCode Field = "countryCode"
	FieldAddress     Field = "address" // the agent's free-form address
)

// Verdict of a validation.
type Verdict string

const (
	VerdictValid     Verdict = "valid"
	VerdictCorrected Verdict = "corrected"
	VerdictAmbiguous Verdict = "ambiguous"
	VerdictInvalid   Verdict = "invalid"
)

// Confidence of a validation.
type Confidence string

const (
	ConfidenceHigh   Confidence = "high"
	ConfidenceMedium Confidence = "medium"
	ConfidenceLow    Confidence = "low"
)

// Issue is one finding, with a message in the requested language.
type Issue struct {
	Code     IssueCode `json:"code"`
	Severity Severity  `json:"severity"`
	Field    Field     `json:"field,omitempty"`
	UnitType *UnitType `json:"unitType,omitempty"`
	Message  string    `json:"message"`
}

// Meta names the register and dataset an answer came from. All four fields are always
// present (null when not applicable), as the spec requires.
type Meta struct {
	DatasetVersion *string  `json:"datasetVersion"`
	Source         *string  `json:"source"`
	Attribution    *string  `json:"attribution"`
	Language       Language `json:"language"`
}

// CarrierAddress is the address split into a carrier's fields, with warnings when a field
// exceeds what that carrier accepts.
type CarrierAddress struct {
	Street              string  `json:"street"`
	HouseNumber         string  `json:"houseNumber"`
	HouseNumberAddition *string `json:"houseNumberAddition"`
	Postcode            string  `json:"postcode"`
	City                string  `json:"city"`
	CountryCode         Country `json:"countryCode"`
	Warnings            []Issue `json:"warnings"`
}

// LookupAddress is one address at a looked-up number.
type LookupAddress struct {
	Street            string         `json:"street"`
	HouseNumber       *int           `json:"houseNumber"`
	HouseNumberSuffix *string        `json:"houseNumberSuffix"`
	Unit              *string        `json:"unit"`
	UnitType          *UnitType      `json:"unitType"`
	Addition          *string        `json:"addition"`
	Postcode          string         `json:"postcode"`
	Locality          string         `json:"locality"`
	Planned           bool           `json:"planned"`
	Formatted         []string       `json:"formatted"`
	Carrier           CarrierAddress `json:"carrier"`
}

// LookupResponse answers GET /v1/{country}/lookup.
type LookupResponse struct {
	Addresses []LookupAddress `json:"addresses"`
	Additions []*string       `json:"additions"`
	Issues    []Issue         `json:"issues"`
	NextStep  string          `json:"nextStep"`
	Meta      Meta            `json:"meta"`
}

// StreetSuggestion is one street offered while a person types.
type StreetSuggestion struct {
	Street   string  `json:"street"`
	Locality string  `json:"locality"`
	Postcode *string `json:"postcode"`
}

// SuggestResponse answers GET /v1/suggest.
type SuggestResponse struct {
	Suggestions []StreetSuggestion `json:"suggestions"`
	Issues      []Issue            `json:"issues"`
	Meta        Meta               `json:"meta"`
}

// AutocompleteSuggestion is one whole-address suggestion. The spec leaves its fields open; we
// give what a form needs to fill itself in one step and a label to show.
type AutocompleteSuggestion struct {
	// Label is the text to show in the list, e.g. "Achterstraat 1, 1381 AT Weesp".
	Label string `json:"label"`
	// Kind is "address" (complete, can be validated as is), "street" (needs a number) or
	// "locality" (needs a street).
	Kind     string             `json:"kind"`
	Address  *NormalizedAddress `json:"address"`
	Street   *string            `json:"street"`
	Postcode *string            `json:"postcode"`
	Locality string             `json:"locality"`
}

// AutocompleteResponse answers GET /v1/autocomplete.
type AutocompleteResponse struct {
	Suggestions []AutocompleteSuggestion `json:"suggestions"`
	Degraded    bool                     `json:"degraded"`
	Issues      []Issue                  `json:"issues"`
	Meta        Meta                     `json:"meta"`
}

// ValidateRequest is the body of POST /v1/validate: an address as an e-commerce checkout
// holds it.
type ValidateRequest struct {
	CountryCode       string  `json:"countryCode"`
	Address1          string  `json:"address1"`
	Address2          *string `json:"address2,omitempty"`
	Zip               string  `json:"zip"`
	City              *string `json:"city,omitempty"`
	CustomerConfirmed bool    `json:"customerConfirmed,omitempty"`
	AllowPoBox        bool    `json:"allowPoBox,omitempty"`
	Lang              string  `json:"lang,omitempty"`
	Carrier           string  `json:"carrier,omitempty"`
	SessionID         string  `json:"sessionId,omitempty"`
}

// LookupRequest is the body of POST /v1/nl/lookup and /v1/be/lookup: the GET parameters as
// JSON members, number as a string of digits as in the query, so both forms validate alike.
type LookupRequest struct {
	Postcode  string `json:"postcode"`
	Number    string `json:"number"`
	Street    string `json:"street,omitempty"`
	Lang      string `json:"lang,omitempty"`
	Carrier   string `json:"carrier,omitempty"`
	SessionID string `json:"sessionId,omitempty"`
}

// SuggestRequest is the body of POST /v1/suggest and POST /v1/autocomplete.
type SuggestRequest struct {
	Country   string `json:"country"`
	Q         string `json:"q"`
	Postcode  string `json:"postcode,omitempty"`
	Lang      string `json:"lang,omitempty"`
	SessionID string `json:"sessionId,omitempty"`
}

// NormalizedAddress is the register version of an address in checkout fields.
type NormalizedAddress struct {
	Address1    string  `json:"address1"`
	Address2    *string `json:"address2"`
	Zip         string  `json:"zip"`
	City        string  `json:"city"`
	CountryCode Country `json:"countryCode"`
}

// AddressMatch is the register address a validation matched.
type AddressMatch struct {
	Street            string    `json:"street"`
	HouseNumber       *int      `json:"houseNumber"`
	HouseNumberSuffix *string   `json:"houseNumberSuffix"`
	Unit              *string   `json:"unit"`
	UnitType          *UnitType `json:"unitType"`
	Locality          string    `json:"locality"`
	Postcode          string    `json:"postcode"`
}

// ValidateResponse answers POST /v1/validate.
type ValidateResponse struct {
	Status      Verdict             `json:"status"`
	Normalized  *NormalizedAddress  `json:"normalized"`
	Formatted   []string            `json:"formatted"`
	Match       *AddressMatch       `json:"match"`
	Suggestions []NormalizedAddress `json:"suggestions"`
	Confidence  Confidence          `json:"confidence"`
	Blocking    bool                `json:"blocking"`
	Issues      []Issue             `json:"issues"`
	Carrier     *CarrierAddress     `json:"carrier"`
	NextStep    string              `json:"nextStep"`
	Meta        Meta                `json:"meta"`
	Receipt     string              `json:"receipt,omitempty"`
}

// DatasetStatus is one country's dataset in the health answer.
type DatasetStatus struct {
	Country     string  `json:"country"`
	Version     string  `json:"version"`
	ActivatedAt string  `json:"activatedAt"`
	AgeHours    float64 `json:"ageHours"`
}

// HealthResponse answers GET /health.
type HealthResponse struct {
	Status    string          `json:"status"`   // ok | degraded
	Database  string          `json:"database"` // up | down
	Datasets  []DatasetStatus `json:"datasets"`
	CheckedAt string          `json:"checkedAt"`
}

// ErrorCode is the code of an HTTP error answer.
type ErrorCode string

const (
	ErrBadRequest         ErrorCode = "BAD_REQUEST"
	ErrUnauthorized       ErrorCode = "UNAUTHORIZED"
	ErrForbidden          ErrorCode = "FORBIDDEN"
	ErrNotFound           ErrorCode = "NOT_FOUND"
	ErrPayloadTooLarge    ErrorCode = "PAYLOAD_TOO_LARGE"
	ErrValidationFailed   ErrorCode = "VALIDATION_FAILED"
	ErrRateLimited        ErrorCode = "RATE_LIMITED"
	ErrQuotaExceeded      ErrorCode = "QUOTA_EXCEEDED"
	ErrDailyCapReached    ErrorCode = "DAILY_CAP_REACHED"
	ErrInternal           ErrorCode = "INTERNAL_ERROR"
	ErrServiceUnavailable ErrorCode = "SERVICE_UNAVAILABLE"
)

// ErrorBody is the content of an ErrorResponse.
type ErrorBody struct {
	Code       ErrorCode `json:"code"`
	Message    string    `json:"message"`
	NextStep   string    `json:"nextStep,omitempty"`
	UpgradeURL string    `json:"upgradeUrl,omitempty"`
}

// ErrorResponse is the body of every HTTP error answer: {"error": {...}}.
type ErrorResponse struct {
	Error ErrorBody `json:"error"`
}

// Limits from the specification, shared by the worker (422 checks), the gateway (413 before
// proxying) and the form core.
const (
	MaxFieldLength     = 200
	MaxFreeFormLength  = 500
	MaxBodyBytes       = 64 << 10
	MaxQueryLength     = 100
	MaxNumberDigits    = 6
	MaxSessionIDLength = 64
	MaxSuggestions     = 10
	MaxBatchSize       = 100
)

// ValidSessionID reports whether s matches ^[\w.:-]+$ with length 1 to 64. Written out by
// hand rather than with regexp because the form core compiles this package to WebAssembly
// and regexp adds a quarter of a megabyte.
func ValidSessionID(s string) bool {
	if len(s) < 1 || len(s) > MaxSessionIDLength {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '.', c == ':', c == '-':
		default:
			return false
		}
	}
	return true
}
