package httpapi

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/adreswijzer/adreswijzer"
)

// The bodies are read member by member (see body.go) rather than into the wire types of
// api.go; this keeps the two lists of members from drifting apart.
func TestBodyMembersMatchWireTypes(t *testing.T) {
	for _, tc := range []struct {
		wire   any
		member func(string) *value
	}{
		{adreswijzer.ValidateRequest{}, (&validateInput{}).member},
		{adreswijzer.LookupRequest{}, (&lookupInput{}).member},
		{adreswijzer.SuggestRequest{}, (&typeaheadInput{}).member},
	} {
		typ := reflect.TypeOf(tc.wire)
		names := map[string]bool{}
		for i := range typ.NumField() {
			name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
			names[name] = true
			if tc.member(name) == nil {
				t.Errorf("%s member %q is not read from a body", typ.Name(), name)
			}
		}
		for _, extra := range []string{"Postcode", "countrycode", "", "x"} {
			if !names[extra] && tc.member(extra) != nil {
				t.Errorf("%s: member %q is read though the wire type has none", typ.Name(), extra)
			}
		}
	}
}

// A member's value keeps its JSON kind, so that null and numbers are told from text.
func TestRawValue(t *testing.T) {
	for raw, want := range map[string]value{
		`"Weesp"`:           {kind: text, s: "Weesp"},
		`"\u00e9\n"`:        {kind: text, s: "é\n"},
		`""`:                {kind: text, s: ""},
		`null`:              {kind: null},
		`false`:             {kind: boolean, s: "false"},
		`0`:                 {kind: other},
		`{"a":1}`:           {kind: other},
		"\"caf\xc3\xa9\"":   {kind: text, s: "café"},
		"\"bad \xff byte\"": {kind: text, s: "bad \ufffd byte"},
	} {
		if got := rawValue([]byte(raw)); got != want {
			t.Errorf("rawValue(%s) = %+v, want %+v", raw, got, want)
		}
	}
}

// A string member read without decoding must be what decoding gives.
func FuzzRawValue(f *testing.F) {
	for _, s := range []string{`"Weesp"`, `"\u00e9\n"`, `""`, "\"bad \xff byte\"", `"a\"b"`, `"\ud800"`, "\"\u2028\""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		var want string
		if !strings.HasPrefix(raw, `"`) || json.Unmarshal([]byte(raw), &want) != nil {
			return
		}
		if got := rawValue([]byte(raw)); got != (value{kind: text, s: want}) {
			t.Errorf("rawValue(%q) = %+v, want text %q", raw, got, want)
		}
	})
}
