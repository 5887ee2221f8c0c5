package form

import (
	"strings"

	"github.com/adreswijzer/adreswijzer"
)

// The API's issues as the form shows them.

// issueField maps the API's field of an issue to the input the customer should look at.
func (m *Machine) issueField(is issue) Field {
	switch is.field {
	case "zip":
		return FieldPostcode
	case "address2":
		return FieldAddition
	case "city":
		return FieldCity
	case "address1":
		if is.code == string(adreswijzer.IssueStreetMismatch) {
			return FieldStreet
		}
		return FieldNumber
	}
	return noField
}

// firstIssue is the issue to show: the first error, else the first issue.
func firstIssue(list []issue) issue {
	for _, is := range list {
		if is.severity == "error" {
			return is
		}
	}
	if len(list) > 0 {
		return list[0]
	}
	return issue{}
}

// severityKind is the kind of message for an issue's severity; one the form does not know
// is shown as a warning.
func severityKind(s string) string {
	switch s {
	case "error", "warning", "info":
		return s
	}
	return "warning"
}

// joinText joins sentences with a space, skipping empty ones.
func joinText(a, b string) string {
	a, b = strings.TrimSpace(a), strings.TrimSpace(b)
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + " " + b
}
