package mcpserver

import (
	"fmt"
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
			`lang does not pass the input schema (const).`},
		// Values that look like a message change nothing: locations are read from the front,
		// bounds and lists from the back.
		{`validating "arguments": validating root: validating /properties/lang: enum: x validating /properties/` + secret + `: any of: [` + secret + `] does not equal any of: [nl fr de en]`,
			"lang must be one of nl, fr, de, en."},
		{`validating "arguments": validating root: validating /properties/houseNumber: type: ` + secret + `, want "x" has type "string", want "integer"`,
			"houseNumber must be of type integer."},
		{`validating "arguments": validating root: unexpected additional properties ["` + secret + `" "zip_code"]`,
			"Unknown arguments: (a member whose name is not an argument's), zip_code."},
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

// Whatever value the message holds, the rewritten message never repeats it, but for a
// member name of an argument's form, which it names (an unknown argument such as "postcode").
func FuzzSchemaMessage(f *testing.F) {
	f.Add("Hugo de Grootlaan 16, 1381 CS Weesp")
	f.Add(`x" validating /properties/evil: maxLength: "y`)
	f.Add("any of: [a b] validating /properties/q: ")
	templates := []string{
		`validating "arguments": validating root: validating /properties/address: maxLength: %q contains 501 Unicode code points, more than 500`,
		`validating "arguments": validating root: validating /properties/addresses: validating /properties/addresses/items: validating /properties/addresses/items/properties/id: pattern: %q does not match regular expression "\\S"`,
		`validating "arguments": validating root: validating /properties/lang: enum: %s does not equal any of: [nl fr de en]`,
		`validating "arguments": validating root: validating /properties/houseNumber: type: %s has type "string", want "integer"`,
		`validating "arguments": validating root: unexpected additional properties [%q]`,
		`validating "arguments": validating root: validating /properties/lang: const: %q does not equal "nl"`,
	}
	f.Fuzz(func(t *testing.T, value string) {
		for _, tmpl := range templates {
			got := schemaMessage(fmt.Sprintf(tmpl, value))
			named := strings.Contains(tmpl, "additional properties") && memberName.MatchString(value)
			// A value that is a word of our own message ("longer") is no repetition.
			ours := strings.Contains(schemaMessage(fmt.Sprintf(tmpl, "\x00")), value) || strings.Contains(tmpl, value)
			if len(value) >= 6 && strings.Contains(got, value) && !ours && !named {
				t.Fatalf("%q repeats the value %q", got, value)
			}
		}
	})
}
