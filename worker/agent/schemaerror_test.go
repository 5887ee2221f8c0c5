package agent

import (
	"strings"
	"testing"
)

// The SDK's words for arguments its schema check refuses, as jsonschema-go writes them, are
// rewritten to name the argument and the rule, never the value (TestVerifyErrors sends each
// kind through the server); a form not known keeps its words without the quoted values, and
// a message that is not the schema check's is kept.
func TestSchemaMessage(t *testing.T) {
	secret := "Hugo de Grootlaan 16, 1381 CS Weesp"
	for _, c := range []struct{ in, want string }{
		{`validating "arguments": validating root: validating /properties/address: maxLength: "` + secret + `" contains 501 Unicode code points, more than 500`,
			"address is longer than 500 characters."},
		{`validating "arguments": validating root: validating /properties/addresses: validating /properties/addresses/items: validating /properties/addresses/items/properties/id: minLength: "" contains 0 Unicode code points, fewer than 1`,
			"addresses[].id is empty."},
		{`validating "arguments": validating root: validating /properties/addresses: maxItems: array length 101 is greater than 100`,
			"addresses takes at most 100 items; this call had 101. Split the list into calls of at most 100; nothing was verified."},
		{`validating "arguments": validating root: validating /properties/houseNumber: minimum: 0 is less than 1.000000`,
			"houseNumber must be at least 1."},
		{`validating "arguments": validating root: validating /properties/lang: enum: es does not equal any of: [nl fr de en]`,
			"lang must be one of nl, fr, de, en."},
		{`validating "arguments": validating root: validating /properties/houseNumber: type: 51a has type "string", want "integer"`,
			"houseNumber must be of type integer."},
		{`validating "arguments": validating root: validating /properties/country: pattern: "NLD" does not match regular expression "^[A-Za-z]{2}$"`,
			"country is not in the form the input schema gives: a two-letter country code such as NL or BE."},
		{`validating "arguments": validating root: required: missing properties: ["postcode"]`,
			"The arguments lack: postcode."},
		{`validating "arguments": validating root: unexpected additional properties ["postcode" "x"]`,
			"Unknown arguments: postcode, x."},
		{`validating "arguments": validating root: validating /properties/lang: const: "` + secret + `" does not equal "nl"`,
			`lang: const: (the value) does not equal (the value)`},
		{"houseNumber must be a whole number from 1 to 999999.", "houseNumber must be a whole number from 1 to 999999."},
	} {
		got := schemaMessage(c.in)
		if got != c.want {
			t.Errorf("%s\n got %q\nwant %q", c.in, got, c.want)
		}
		if strings.Contains(got, secret) || strings.Contains(got, "NLD") {
			t.Errorf("%q repeats the value", got)
		}
	}
}
