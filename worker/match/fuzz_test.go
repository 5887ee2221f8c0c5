package match

import (
	"context"
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/adreswijzer/adreswijzer"
)

// FuzzValidate feeds arbitrary text into every field. Whatever comes in, Validate must not
// panic, must not fail (the store is healthy), and must give a well-formed answer: a verdict,
// a confidence, arrays where the spec wants arrays, valid UTF-8, a match exactly when one
// address matched, and blocking only on an answer without a register address.
//
//	go test ./worker/match -run '^$' -fuzz FuzzValidate
func FuzzValidate(f *testing.F) {
	for _, c := range validateCases {
		a2 := ""
		if c.req.Address2 != nil {
			a2 = *c.req.Address2
		}
		city := ""
		if c.req.City != nil {
			city = *c.req.City
		}
		f.Add(c.req.CountryCode, c.req.Address1, a2, c.req.Zip, city, c.req.Lang, c.req.Carrier, c.req.CustomerConfirmed)
	}
	f.Add("NL", "\xff\xfe 12", "bus \x00", "1234 \u00ad AB", "’s-Gravenhage", "xx", "fedex", true)
	f.Add("BE", "999999999 rue", "////", "B-", "((((", "fr", "bpost", false)
	e, _ := sampleEngine(f)
	f.Fuzz(func(t *testing.T, country, address1, address2, zip, city, lang, carrierName string, confirmed bool) {
		req := adreswijzer.ValidateRequest{
			CountryCode: country, Address1: address1, Address2: &address2, Zip: zip, City: &city,
			Lang: lang, Carrier: carrierName, CustomerConfirmed: confirmed,
		}
		resp, err := e.Validate(context.Background(), req)
		if err != nil {
			t.Fatalf("error for input: %v", err)
		}
		switch resp.Status {
		case adreswijzer.VerdictValid, adreswijzer.VerdictCorrected, adreswijzer.VerdictAmbiguous, adreswijzer.VerdictInvalid:
		default:
			t.Fatalf("status %q", resp.Status)
		}
		switch resp.Confidence {
		case adreswijzer.ConfidenceHigh, adreswijzer.ConfidenceMedium, adreswijzer.ConfidenceLow:
		default:
			t.Fatalf("confidence %q", resp.Confidence)
		}
		if _, ok := adreswijzer.ParseLanguage(string(resp.Meta.Language)); !ok {
			t.Fatalf("language %q", resp.Meta.Language)
		}
		one := resp.Status == adreswijzer.VerdictValid || resp.Status == adreswijzer.VerdictCorrected
		if one != (resp.Match != nil) || one != (resp.Normalized != nil) {
			t.Fatalf("status %s with match %v", resp.Status, resp.Match)
		}
		if one && resp.Blocking {
			t.Fatal("a register address answered blocking")
		}
		if resp.Issues == nil || resp.Suggestions == nil || len(resp.Suggestions) > adreswijzer.MaxSuggestions || resp.NextStep == "" {
			t.Fatalf("malformed answer: %+v", resp)
		}
		b, err := json.Marshal(resp)
		if err != nil || !utf8.Valid(b) {
			t.Fatalf("answer does not encode as UTF-8 JSON: %v", err)
		}
	})
}
