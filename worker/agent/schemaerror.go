package agent

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
// to do, never its value. It reads the messages of the pinned jsonschema-go; a form it does
// not know keeps its wording with every quoted value taken out.

// schemaPrefix starts every message of the SDK's input validation.
const schemaPrefix = `validating "arguments": `

var (
	// schemaPath finds the schema locations of a message, outermost first.
	schemaPath = regexp.MustCompile(`validating (/[^:]*): `)
	// quoted is a Go-quoted string in a message (%q of the value).
	quoted = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
	// number is the last number of a message, the bound.
	number = regexp.MustCompile(`(-?[0-9]+(?:\.[0-9]+)?)\s*$`)
	// anyOf is the list of allowed values of an enum message.
	anyOf = regexp.MustCompile(`any of: \[(.*)\]\s*$`)
	// arrayLength is the length of the array of a minItems or maxItems message.
	arrayLength = regexp.MustCompile(`array length ([0-9]+)`)
	// wantType is the wanted type of a type message.
	wantType = regexp.MustCompile(`want (?:one of )?(.*)$`)
)

// schemaMessage rewrites the SDK's message of arguments that fail the input schema; any
// other message is returned as it is.
func schemaMessage(msg string) string {
	rest, ok := strings.CutPrefix(msg, schemaPrefix)
	if !ok {
		return msg
	}
	field := ""
	if locs := schemaPath.FindAllStringSubmatchIndex(rest, -1); len(locs) > 0 {
		last := locs[len(locs)-1]
		field = fieldName(rest[last[2]:last[3]])
		rest = rest[last[1]:]
	} else {
		rest = strings.TrimPrefix(rest, "validating root: ")
	}
	keyword, detail, _ := strings.Cut(rest, ": ")
	if d, ok := strings.CutPrefix(rest, "unexpected additional properties "); ok {
		keyword, detail = "additionalProperties", d
	}
	bound := number.FindString(detail)
	subject := field
	if subject == "" {
		subject = "The arguments"
	}
	switch keyword {
	case "maxLength":
		return fmt.Sprintf("%s is longer than %s characters.", subject, bound)
	case "minLength":
		if bound == "1" {
			return subject + " is empty."
		}
		return fmt.Sprintf("%s is shorter than %s characters.", subject, bound)
	case "maxItems":
		had := "more"
		if m := arrayLength.FindStringSubmatch(detail); m != nil {
			had = m[1]
		}
		return fmt.Sprintf("%s takes at most %s items; this call had %s. Split the list into calls of at most %s; nothing was verified.", subject, bound, had, bound)
	case "minItems":
		return fmt.Sprintf("%s is empty: give at least %s.", subject, bound)
	case "minimum":
		return fmt.Sprintf("%s must be at least %s.", subject, integer(bound))
	case "maximum":
		return fmt.Sprintf("%s must be at most %s.", subject, integer(bound))
	case "pattern":
		return subject + " is not in the form the input schema gives: " + patternHint(field)
	case "enum":
		if m := anyOf.FindStringSubmatch(detail); m != nil {
			return fmt.Sprintf("%s must be one of %s.", subject, strings.Join(strings.Fields(m[1]), ", "))
		}
	case "type":
		if m := wantType.FindStringSubmatch(detail); m != nil {
			return fmt.Sprintf("%s must be of type %s.", subject, strings.ReplaceAll(m[1], `"`, ""))
		}
	case "required":
		return fmt.Sprintf("%s lack%s: %s.", subject, map[bool]string{true: "", false: "s"}[field == ""], names(detail))
	case "additionalProperties":
		if field == "" {
			return "Unknown arguments: " + names(detail) + "."
		}
		return fmt.Sprintf("%s has unknown members: %s.", subject, names(detail))
	}
	return subject + ": " + quoted.ReplaceAllString(rest, "(the value)")
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

// names lists the quoted names of a required or additionalProperties message.
func names(detail string) string {
	var out []string
	for _, q := range quoted.FindAllString(detail, -1) {
		if s, err := strconv.Unquote(q); err == nil {
			out = append(out, s)
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
