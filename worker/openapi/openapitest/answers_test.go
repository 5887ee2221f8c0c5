package openapitest_test

import (
	"encoding/json"
	"strings"

	aw "github.com/adreswijzer/adreswijzer"
)

// Answers built from the wire types of api.go with real register rows: Weesp (BAG extract of
// gemeente 0457, 2021-10-15) and Lembeek (BeST test data of FPS BOSA). Marshalling them and
// validating the result is what proves the Go types and openapi.json agree.

func ptr[T any](v T) *T { return &v }

const (
	nlVersion = "bag:2026-11-08+bagmut:2026-11-21"
	beVersion = "best:2026-11-20"
)

func nlMeta(lang aw.Language) aw.Meta {
	return aw.Meta{DatasetVersion: ptr(nlVersion), Source: ptr("BAG (Basisregistratie Adressen en Gebouwen), Kadaster"), Language: lang}
}

func beMeta(lang aw.Language) aw.Meta {
	return aw.Meta{DatasetVersion: ptr(beVersion), Source: ptr("BeST Address, FPS BOSA"),
		Attribution: ptr("Contains BeST Address data of FPS BOSA (CC BY 4.0)"), Language: lang}
}

func issue(c aw.IssueCode, f aw.Field, msg string) aw.Issue {
	return aw.Issue{Code: c, Severity: c.Severity(), Field: f, Message: msg}
}

// hugoDeGroot16 is Hugo de Grootlaan 16, 1381 CS Weesp, toevoeging unit ("ben" or "bov").
func hugoDeGroot16(unit string) aw.LookupAddress {
	return aw.LookupAddress{
		Street: "Hugo de Grootlaan", HouseNumber: ptr(16), Unit: ptr(unit), UnitType: ptr(aw.UnitToevoeging),
		Addition: ptr(unit), Postcode: "1381CS", Locality: "Weesp",
		Formatted: []string{"Hugo de Grootlaan 16 " + unit, "1381 CS  WEESP"},
		Carrier: aw.CarrierAddress{Street: "Hugo de Grootlaan", HouseNumber: "16", HouseNumberAddition: ptr(unit),
			Postcode: "1381CS", City: "Weesp", CountryCode: aw.NL, Warnings: []aw.Issue{}},
	}
}

func lookupNL() aw.LookupResponse {
	return aw.LookupResponse{
		Addresses: []aw.LookupAddress{hugoDeGroot16("ben"), hugoDeGroot16("bov")},
		Additions: []*string{ptr("ben"), ptr("bov")},
		Issues:    []aw.Issue{},
		NextStep:  "Kies de toevoeging: ben of bov.",
		Meta:      nlMeta(aw.LangNL),
	}
}

// stevensDeWaelplein9 is Stevens-de Waelplein 9, 1502 Lembeek, with box ("" for none).
func stevensDeWaelplein9(box string) aw.LookupAddress {
	a := aw.LookupAddress{
		Street: "Stevens-de Waelplein", HouseNumber: ptr(9), Postcode: "1502", Locality: "Lembeek",
		Formatted: []string{"Stevens-de Waelplein 9", "1502 Lembeek"},
		Carrier: aw.CarrierAddress{Street: "Stevens-de Waelplein", HouseNumber: "9", Postcode: "1502", City: "Lembeek",
			CountryCode: aw.BE, Warnings: []aw.Issue{}},
	}
	if box != "" {
		a.Unit, a.UnitType, a.Addition = ptr(box), ptr(aw.UnitBus), ptr(box)
		a.Formatted[0] += " bus " + box
		a.Carrier.HouseNumberAddition = ptr(box)
	}
	return a
}

func lookupBE() aw.LookupResponse {
	return aw.LookupResponse{
		Addresses: []aw.LookupAddress{stevensDeWaelplein9(""), stevensDeWaelplein9("01"), stevensDeWaelplein9("02"), stevensDeWaelplein9("11")},
		Additions: []*string{nil, ptr("01"), ptr("02"), ptr("11")},
		Issues:    []aw.Issue{},
		NextStep:  "Kies het busnummer, of geen bus.",
		Meta:      beMeta(aw.LangNL),
	}
}

func lookupUnsupported() aw.LookupResponse {
	return aw.LookupResponse{
		Addresses: []aw.LookupAddress{}, Additions: []*string{},
		Issues:   []aw.Issue{issue(aw.IssueUnsupportedCountry, aw.FieldCountryCode, "Only Dutch and Belgian addresses are checked.")},
		NextStep: "Accept the address as given.",
		Meta:     aw.Meta{Language: aw.LangEN},
	}
}

// weespStreets are streets of Weesp starting with "Achter" in the BAG extract.
var weespStreets = []aw.StreetSuggestion{
	{Street: "Achtergracht", Locality: "Weesp"},
	{Street: "Achterherengracht", Locality: "Weesp", Postcode: ptr("1382XT")},
	{Street: "Achterom", Locality: "Weesp"},
	{Street: "Achteromdwarsstraat", Locality: "Weesp", Postcode: ptr("1381AW")},
	{Street: "Achteromstraat", Locality: "Weesp", Postcode: ptr("1381AV")},
	{Street: "Achter 't Vosje", Locality: "Weesp", Postcode: ptr("1381XH")},
}

func suggestNL(n int) aw.SuggestResponse {
	s := make([]aw.StreetSuggestion, n)
	for i := range s {
		s[i] = weespStreets[i%len(weespStreets)]
	}
	return aw.SuggestResponse{Suggestions: s, Issues: []aw.Issue{}, Meta: nlMeta(aw.LangNL)}
}

// achteromstraat1 is Achteromstraat 1 with huisletter letter ("" for none), 1381 AV Weesp.
func achteromstraat1(letter string) aw.AutocompleteSuggestion {
	return aw.AutocompleteSuggestion{
		Label: "Achteromstraat 1" + letter + ", 1381 AV Weesp", Kind: "address",
		Address: &aw.NormalizedAddress{Address1: "Achteromstraat 1" + letter, Zip: "1381 AV", City: "Weesp", CountryCode: aw.NL},
		Street:  ptr("Achteromstraat"), Postcode: ptr("1381AV"), Locality: "Weesp",
	}
}

func autocompleteNL() aw.AutocompleteResponse {
	var s []aw.AutocompleteSuggestion
	for _, l := range []string{"", "a", "b", "c", "d", "e"} {
		s = append(s, achteromstraat1(l))
	}
	s = append(s, aw.AutocompleteSuggestion{Label: "Achteromstraat, Weesp", Kind: "street", Street: ptr("Achteromstraat"), Postcode: ptr("1381AV"), Locality: "Weesp"})
	return aw.AutocompleteResponse{Suggestions: s, Issues: []aw.Issue{}, Meta: nlMeta(aw.LangNL)}
}

func autocompleteDegraded() aw.AutocompleteResponse {
	return aw.AutocompleteResponse{
		Suggestions: []aw.AutocompleteSuggestion{{Label: "Lembeek", Kind: "locality", Postcode: ptr("1502"), Locality: "Lembeek"}},
		Degraded:    true, Issues: []aw.Issue{}, Meta: beMeta(aw.LangNL),
	}
}

var achtergracht1 = aw.NormalizedAddress{Address1: "Achtergracht 1", Zip: "1381 BK", City: "Weesp", CountryCode: aw.NL}

func validateValid() aw.ValidateResponse {
	return aw.ValidateResponse{
		Status: aw.VerdictValid, Normalized: ptr(achtergracht1), Formatted: []string{"Achtergracht 1", "1381 BK  WEESP"},
		Match:       &aw.AddressMatch{Street: "Achtergracht", HouseNumber: ptr(1), Locality: "Weesp", Postcode: "1381BK"},
		Suggestions: []aw.NormalizedAddress{}, Confidence: aw.ConfidenceHigh, Issues: []aw.Issue{},
		Carrier:  &aw.CarrierAddress{Street: "Achtergracht", HouseNumber: "1", Postcode: "1381BK", City: "Weesp", CountryCode: aw.NL, Warnings: []aw.Issue{}},
		NextStep: "The address is correct; use it as shown.", Meta: nlMeta(aw.LangEN),
	}
}

func validateCorrected() aw.ValidateResponse {
	v := validateValid()
	v.Status, v.Confidence = aw.VerdictCorrected, aw.ConfidenceMedium
	v.Issues = []aw.Issue{issue(aw.IssueCityMismatch, aw.FieldCity, "De plaats is volgens de BAG Weesp.")}
	v.NextStep, v.Meta = "Toon het adres zoals de BAG het kent en gebruik het.", nlMeta(aw.LangNL)
	return v
}

func validateAmbiguous(n int) aw.ValidateResponse {
	s := make([]aw.NormalizedAddress, n)
	for i := range s {
		unit := []string{"ben", "bov"}[i%2]
		s[i] = aw.NormalizedAddress{Address1: "Hugo de Grootlaan 16", Address2: ptr(unit), Zip: "1381 CS", City: "Weesp", CountryCode: aw.NL}
	}
	unitRequired := issue(aw.IssueUnitRequired, aw.FieldAddress2, "This number has several homes; choose the addition.")
	unitRequired.UnitType = ptr(aw.UnitToevoeging)
	return aw.ValidateResponse{
		Status: aw.VerdictAmbiguous, Suggestions: s, Confidence: aw.ConfidenceLow,
		Issues: []aw.Issue{unitRequired}, NextStep: "Ask which one: ben or bov.", Meta: nlMeta(aw.LangEN),
	}
}

func validateBE() aw.ValidateResponse {
	return aw.ValidateResponse{
		Status:     aw.VerdictValid,
		Normalized: &aw.NormalizedAddress{Address1: "Arthur Puesstraat 59", Address2: ptr("bus 11"), Zip: "1502", City: "Lembeek", CountryCode: aw.BE},
		Formatted:  []string{"Arthur Puesstraat 59 bus 11", "1502 Lembeek"},
		Match: &aw.AddressMatch{Street: "Arthur Puesstraat", HouseNumber: ptr(59), Unit: ptr("11"), UnitType: ptr(aw.UnitBus),
			Locality: "Lembeek", Postcode: "1502"},
		Suggestions: []aw.NormalizedAddress{}, Confidence: aw.ConfidenceHigh, Issues: []aw.Issue{},
		Carrier: &aw.CarrierAddress{Street: "Arthur Puesstraat", HouseNumber: "59", HouseNumberAddition: ptr("11"), Postcode: "1502",
			City: "Lembeek", CountryCode: aw.BE, Warnings: []aw.Issue{}},
		NextStep: "Het adres klopt; gebruik het zoals getoond.", Meta: beMeta(aw.LangNL), Receipt: "vr_01JD3Q6M2T8W4X9Y5Z7A1B2C3D",
	}
}

func validateUnsupported() aw.ValidateResponse {
	return aw.ValidateResponse{
		Status: aw.VerdictInvalid, Suggestions: []aw.NormalizedAddress{}, Confidence: aw.ConfidenceLow,
		Issues:   []aw.Issue{issue(aw.IssueUnsupportedCountry, aw.FieldCountryCode, "Nur niederländische und belgische Adressen werden geprüft.")},
		NextStep: "Übernehmen Sie die Adresse wie eingegeben.", Meta: aw.Meta{Language: aw.LangDE},
	}
}

func health(status, database string) aw.HealthResponse {
	return aw.HealthResponse{Status: status, Database: database, CheckedAt: "2026-11-22T09:30:00Z", Datasets: []aw.DatasetStatus{
		{Country: "NL", Version: nlVersion, ActivatedAt: "2026-11-21T05:42:17Z", AgeHours: 33.5},
		{Country: "BE", Version: beVersion, ActivatedAt: "2026-11-20T04:10:03Z", AgeHours: 57.5},
	}}
}

func errorBody(code aw.ErrorCode, msg, next, upgrade string) aw.ErrorResponse {
	return aw.ErrorResponse{Error: aw.ErrorBody{Code: code, Message: msg, NextStep: next, UpgradeURL: upgrade}}
}

// edit marshals v, lets f change the generic form, and marshals that: the way to build
// answers the Go types cannot express (extra or missing members).
func edit(v any, f func(m map[string]any)) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		panic(err)
	}
	f(m)
	out, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return out
}

func obj(v any, path ...any) map[string]any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			v = v.(map[string]any)[k]
		case int:
			v = v.([]any)[k]
		}
	}
	return v.(map[string]any)
}

var long201 = strings.Repeat("x", aw.MaxFieldLength+1)
