package mcpserver

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Arguments that fail a tool's input schema are refused by the SDK before a handler runs,
// with the schema validator's error as the text: `validating "arguments": validating root:
// validating /properties/address: maxLength: "<the whole address>" contains 501 Unicode code
// points, more than 500`. That text quotes what the agent sent, which no answer of ours may
// (it ends up in logs next to the customer's address), and reads like a stack trace.
// schemaMessage writes it as the handlers write theirs: which argument, what is wrong, what
// to do, never its value. It reads the messages of the pinned jsonschema-go, whose values
// come after the keyword: the locations are read from the front, the bounds from the back,
// so a value that looks like a message changes nothing. A form it does not know is named by
// its keyword alone.

// schemaPrefix starts every message of the SDK's input validation.
const schemaPrefix = `validating "arguments": `

var (
	// schemaStep is one location of a message, at its front: "validating root: " or
	// "validating /properties/addresses: ".
	schemaStep = regexp.MustCompile(`^validating (root|/[^:]*): `)
	// keyword is the rule that failed, at the front of what follows the locations.
	keyword = regexp.MustCompile(`^([A-Za-z]+):? `)
	// trailingNumber is the number a message ends with: the schema's bound.
	trailingNumber = regexp.MustCompile(`(-?[0-9]+(?:\.[0-9]+)?)\s*$`)
	// arrayLength is the length of the array of a minItems or maxItems message, which holds no
	// value of the caller's.
	arrayLength = regexp.MustCompile(`^array length ([0-9]+)`)
	// quoted is a Go-quoted string: a property name of a required or additionalProperties
	// message.
	quoted = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
	// memberName is a member name that is repeated in a message: the names of the tools' own
	// arguments and ones like them, not text that may be an address.
	memberName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]{0,39}$`)
)

// schemaMessage rewrites the SDK's message of arguments that fail the input schema; any
// other message is returned as it is.
func schemaMessage(msg string) string {
	rest, ok := strings.CutPrefix(msg, schemaPrefix)
	if !ok {
		return msg
	}
	field := ""
	for {
		m := schemaStep.FindStringSubmatchIndex(rest)
		if m == nil {
			break
		}
		if p := rest[m[2]:m[3]]; p != "root" {
			field = fieldName(p)
		}
		rest = rest[m[1]:]
	}
	subject := field
	if subject == "" {
		subject = "The arguments"
	}
	if d, ok := strings.CutPrefix(rest, "unexpected additional properties "); ok {
		if field == "" {
			return "Unknown arguments: " + names(d) + "."
		}
		return fmt.Sprintf("%s has unknown members: %s.", subject, names(d))
	}
	k := keyword.FindStringSubmatch(rest)
	if k == nil {
		return subject + " does not pass the input schema."
	}
	detail := rest[len(k[0]):]
	n := trailingNumber.FindString(detail)
	switch k[1] {
	case "maxLength":
		return fmt.Sprintf("%s is longer than %s characters.", subject, n)
	case "minLength":
		if n == "1" {
			return subject + " is empty."
		}
		return fmt.Sprintf("%s is shorter than %s characters.", subject, n)
	case "maxItems":
		had := "more"
		if m := arrayLength.FindStringSubmatch(detail); m != nil {
			had = m[1]
		}
		return fmt.Sprintf("%s takes at most %s items; this call had %s. Split the list into calls of at most %s; nothing was verified.", subject, n, had, n)
	case "minItems":
		return fmt.Sprintf("%s is empty: give at least %s.", subject, n)
	case "minimum":
		return fmt.Sprintf("%s must be at least %s.", subject, integer(n))
	case "maximum":
		return fmt.Sprintf("%s must be at most %s.", subject, integer(n))
	case "pattern":
		return subject + " is not in the form the input schema gives: " + patternHint(field)
	case "enum":
		// "<value> does not equal any of: [nl fr de en]": the list is the message's last.
		if i := strings.LastIndex(detail, "any of: ["); i >= 0 && strings.HasSuffix(detail, "]") {
			return fmt.Sprintf("%s must be one of %s.", subject, strings.Join(strings.Fields(detail[i+len("any of: ["):len(detail)-1]), ", "))
		}
	case "type":
		// `<value> has type "string", want "integer"`: the wanted type is the message's last.
		if i := strings.LastIndex(detail, ", want "); i >= 0 {
			return fmt.Sprintf("%s must be of type %s.", subject, strings.Trim(strings.TrimPrefix(detail[i+len(", want "):], "one of "), `"`))
		}
	case "required":
		return fmt.Sprintf("%s lack%s: %s.", subject, map[bool]string{true: "", false: "s"}[field == ""], names(detail))
	}
	return fmt.Sprintf("%s does not pass the input schema (%s).", subject, k[1])
}

// fieldName reads a schema location (/properties/addresses/items/properties/id) as the
// argument it is about (addresses[].id).
func fieldName(path string) string {
	var b strings.Builder
	parts := strings.Split(strings.Trim(path, "/"), "/")
	for i := 0; i < len(parts); i++ {
		switch parts[i] {
		case "properties":
			if i+1 < len(parts) {
				if b.Len() > 0 {
					b.WriteByte('.')
				}
				b.WriteString(parts[i+1])
				i++
			}
		case "items":
			b.WriteString("[]")
		}
	}
	return b.String()
}

// names lists the quoted names of a required or additionalProperties message; a name that
// does not look like one (it may be text the agent meant as a value) is not repeated.
func names(detail string) string {
	var out []string
	for _, q := range quoted.FindAllString(detail, -1) {
		s, err := strconv.Unquote(q)
		switch {
		case err != nil:
		case memberName.MatchString(s):
			out = append(out, s)
		default:
			out = append(out, "(a member whose name is not an argument's)")
		}
	}
	return strings.Join(out, ", ")
}

// integer writes a bound as the validator prints it (1.000000) as the whole number it is.
func integer(s string) string {
	if f, err := strconv.ParseFloat(s, 64); err == nil && f == float64(int64(f)) {
		return strconv.FormatInt(int64(f), 10)
	}
	return s
}

// patternHint says what the patterns of the input schemas ask for.
func patternHint(field string) string {
	switch {
	case strings.HasSuffix(field, "country"):
		return "a two-letter country code such as NL or BE."
	case strings.HasSuffix(field, "sessionId"):
		return "1 to 64 letters, digits or the characters _ . : -."
	case strings.HasSuffix(field, "id"):
		return "an id with at least one character that is not a space."
	}
	return "see its description."
}
