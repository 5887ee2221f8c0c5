//go:build !wasip1

package formtest

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/adreswijzer/adreswijzer"
)

// Run drives every journey against cores made by newCore, each on a fresh form.
func Run(t *testing.T, newCore NewCore) {
	s := Load(t)
	for _, j := range journeys {
		t.Run(j.name, func(t *testing.T) { j.run(t, s, newCore) })
	}
}

type journey struct {
	name string
	run  func(t *testing.T, s *Samples, newCore NewCore)
}

var journeys = []journey{
	{"NL/additions optional, chosen with the keyboard", nlOptionalKeyboard},
	{"NL/additions optional, submitted without a choice: the bare number", nlOptionalBare},
	{"NL/addition required, submit asks for it", nlRequired},
	{"NL/letter and toevoeging typed in the number field are kept", nlTypedAddition},
	{"NL/single address", nlSingle},
	{"NL/planned address", nlPlanned},
	{"NL/number that does not exist, typed by hand and confirmed", nlMissingConfirmed},
	{"NL/messages in the form's language", nlLanguages},
	{"NL/a house number of seven digits is too long", nlNumberTooLong},
	{"NL/what was typed while the form loaded is carried over", nlPrefill},
	{"NL/manual entry", nlManual},
	{"NL/a corrected address is shown, and the customer chooses", nlCorrected},
	{"NL/manual entry without the addition: the register's choices", nlManualAmbiguous},
	{"NL/manual entry of a PO box is blocked", nlManualBlocked},
	{"NL/a postcode the register lacks: confirmed as typed", nlUnknownPostcodeConfirmed},
	{"NL/one session per address, validated once at the submit", nlSessions},
	{"NL/debounce: one lookup after typing", nlDebounce},
	{"NL/answers out of order are dropped", nlOutOfOrder},
	{"BE/Haren street with a typo, picked from suggestions", beHarenTypo},
	{"BE/Haren French street in a French form", beHarenFrench},
	{"BE/Lembeek box chosen from the list", beLembeekBox},
	{"BE/Lembeek box typed with the street", beLembeekTyped},
	{"BE/Malmedy", beMalmedy},
	{"BE/every box on offer, and the one picked is that address", beManyBoxes},
	{"BE/an empty or unknown country keeps the form's country", beUnknownCountry},
	{"fail open/lookup time-out", failLookupTimeout},
	{"fail open/validate 503 after a register choice", failValidate503},
	{"fail open/429 and network errors", failRateLimitedAndNetwork},
	{"fail open/refused credential", failRefused},
	{"fail open/slow validate at submit", failSlowSubmit},
	{"submit before the lookup answered waits for it, within the submit's 1.5 s", submitBeforeLookup},
	{"NL/every candidate of an ambiguous answer is offered whole, and an addition it lacks is named", nlAmbiguousCandidates},
	{"NL/an addition the number lacks: the ones it has offered whole beside the confirmation", nlInvalidCandidates},
	{"NL/a street typed into the postcode field is searched", nlStreetInPostcode},
	{"NL/manual entry suggests streets, and the way back looks the address up", nlManualSuggestAndBack},
	{"fail open/recovers after Retry-After, after a backoff, and validates again", failRecovers},
	{"touch screens get no arrow-key hints; the BeST credit in the form's language", touchAndCredit}}

// Sample picks. Each is the first number in sorted order with the property, so every run
// uses the same addresses; the assertions read the expected values from the rows.

// NLWithAdditions is a Dutch number with a bare address and letters (no toevoegingen), all on
// one street: additions offered, none required.
func (s *Samples) NLWithAdditions(t testing.TB) Number {
	pn := s.PostcodeNumbers(adreswijzer.NL)
	return s.Find(t, adreswijzer.NL, "number with a bare address and letters", func(n Number) bool {
		if !n.HasBare() || len(n.Rows) < 3 || pn[key(n)] != len(n.Rows) {
			return false
		}
		for _, a := range n.Rows {
			if a.Addition != "" || a.Planned() {
				return false
			}
		}
		return true
	})
}

// NLAdditionRequired is a Dutch number whose every address has a letter or toevoeging.
func (s *Samples) NLAdditionRequired(t testing.TB) Number {
	pn := s.PostcodeNumbers(adreswijzer.NL)
	return s.Find(t, adreswijzer.NL, "number without a bare address", func(n Number) bool {
		return !n.HasBare() && len(n.Rows) >= 3 && pn[key(n)] == len(n.Rows) && !anyPlanned(n)
	})
}

// NLSingle is a Dutch postcode and number with exactly one address, planned (a new build) or
// in use.
func (s *Samples) NLSingle(t testing.TB, planned bool) Number {
	pn := s.PostcodeNumbers(adreswijzer.NL)
	return s.Find(t, adreswijzer.NL, "single address", func(n Number) bool {
		return len(n.Rows) == 1 && pn[key(n)] == 1 && n.HasBare() && n.Rows[0].Planned() == planned
	})
}

func key(n Number) string { return n.Postcode + " " + strconv.Itoa(n.Number) }

func anyPlanned(n Number) bool {
	for _, a := range n.Rows {
		if a.Planned() {
			return true
		}
	}
	return false
}

// RegisterAddress1 is address1 as the API normalises a row: street, number and letter.
func RegisterAddress1(a adreswijzer.Address, lang adreswijzer.Language) string {
	return a.Street.Pick(lang) + " " + strconv.Itoa(a.HouseNumber) + a.HouseNumberSuffix
}

func newNL(t *testing.T, s *Samples, newCore NewCore, lang string) *Page {
	return NewPage(t, newCore, s.API, map[string]any{"country": "NL", "lang": lang})
}

func newBE(t *testing.T, s *Samples, newCore NewCore, lang string) *Page {
	return NewPage(t, newCore, s.API, map[string]any{"country": "BE", "lang": lang})
}

func eq[T comparable](t *testing.T, what string, got, want T) {
	t.Helper()
	if got != want {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

func nlOptionalKeyboard(t *testing.T, s *Samples, newCore NewCore) {
	n := s.NLWithAdditions(t)
	p := newNL(t, s, newCore, "nl")
	eq(t, "street visible before the lookup", p.Field("street").Visible, false)
	p.Type("postcode", strings.ToLower(n.Postcode))
	p.Type("number", strconv.Itoa(n.Number))
	p.Settle()
	eq(t, "lookups", len(p.Calls("/v1/nl/lookup")), 1)
	eq(t, "options", len(p.Options()), len(n.Rows))
	eq(t, "list field", p.View.List.Field, "addition")
	eq(t, "list open", p.View.List.Open, true)
	eq(t, "addition required", p.Field("addition").Required, false)
	eq(t, "addition visible", p.Field("addition").Visible, true)
	eq(t, "street", p.Field("street").Value, n.Rows[0].Street.NL)
	eq(t, "street read-only", p.Field("street").ReadOnly, true)
	eq(t, "city", p.Field("city").Value, n.Rows[0].Locality.NL)
	if !strings.Contains(p.View.Message, strconv.Itoa(len(n.Rows))) {
		t.Errorf("message %q does not say how many addresses there are", p.View.Message)
	}
	if len(p.Calls("/v1/validate")) != 0 || len(p.Commits) != 0 {
		t.Fatalf("validated or committed before the customer chose")
	}
	// The first option is the bare number, marked as such.
	if !strings.Contains(p.Options()[0], "geen toevoeging") {
		t.Errorf("first option %q is not the bare number", p.Options()[0])
	}

	// From the number field, arrow down into the list; wrap around upwards; pick the second.
	if !p.Key("ArrowDown") {
		t.Fatal("ArrowDown in the number field was not taken")
	}
	eq(t, "focus", p.Focus, "addition")
	eq(t, "active", p.View.List.Active, 0)
	p.Key("ArrowUp")
	eq(t, "active after ArrowUp wraps", p.View.List.Active, len(n.Rows)-1)
	p.Key("ArrowDown")
	p.Key("ArrowDown")
	eq(t, "active", p.View.List.Active, 1)
	if !p.Key("Enter") {
		t.Fatal("Enter on an active option was not taken")
	}
	p.Settle()
	// The register sorts the bare number first, then letters: option 1 is the first letter.
	rows := SortedRows(n)
	want := rows[1]
	eq(t, "list closed", p.View.List.Open, false)
	eq(t, "selected", p.View.List.Selected, 1)
	eq(t, "addition field", p.Field("addition").Value, want.HouseNumberSuffix)
	eq(t, "postcode shown printed", p.Field("postcode").Value, adreswijzer.FormatPostcode(adreswijzer.NL, n.Postcode))
	// Escape with a closed list is the page's, not ours.
	if p.Key("Escape") {
		t.Error("Escape with a closed list was taken")
	}
	// The choice is checked once, at the submit: a validate ends the billed session.
	eq(t, "validate calls before the submit", len(p.Calls("/v1/validate")), 0)
	eq(t, "commits before the submit", len(p.Commits), 0)

	p.Submit()
	p.Settle()
	eq(t, "proceeds", p.Proceeds, 1)
	eq(t, "validate calls", len(p.Calls("/v1/validate")), 1)
	c := p.LastCommit()
	eq(t, "status", c.Status, "valid")
	eq(t, "unverified", c.Unverified, false)
	eq(t, "address1", c.Address.Address1, RegisterAddress1(want, adreswijzer.LangNL))
	eq(t, "address2", c.Address.Address2 == nil, true)
	eq(t, "zip", c.Address.Zip, adreswijzer.FormatPostcode(adreswijzer.NL, n.Postcode))
	eq(t, "city", c.Address.City, want.Locality.NL)
	eq(t, "countryCode", c.Address.CountryCode, "NL")
	eq(t, "split street", c.Address.Street, want.Street.NL)
	eq(t, "split number", c.Address.HouseNumber, strconv.Itoa(want.HouseNumber))
	eq(t, "split addition", c.Address.HouseNumberAddition, want.HouseNumberSuffix)
	p.CheckSessions()
	sameSession(t, p.Requests)
}

// SortedRows orders rows as lookups list them: bare number, letters, units.
func SortedRows(n Number) []adreswijzer.Address {
	rows := slices.Clone(n.Rows)
	slices.SortStableFunc(rows, func(a, b adreswijzer.Address) int {
		if c := len(a.HouseNumberSuffix) - len(b.HouseNumberSuffix); c != 0 && (a.HouseNumberSuffix == "" || b.HouseNumberSuffix == "") {
			return c
		}
		if c := strings.Compare(strings.ToLower(a.HouseNumberSuffix), strings.ToLower(b.HouseNumberSuffix)); c != 0 {
			return c
		}
		ua, ub := a.Unit(), b.Unit()
		if ua == "" || ub == "" {
			return len(ua) - len(ub)
		}
		ia, ea := strconv.Atoi(ua)
		ib, eb := strconv.Atoi(ub)
		if ea == nil && eb == nil {
			return ia - ib
		}
		return strings.Compare(ua, ub)
	})
	return rows
}

func sameSession(t *testing.T, reqs []Request) {
	t.Helper()
	for _, r := range reqs {
		if SessionOf(r) != SessionOf(reqs[0]) {
			t.Errorf("%s carries session %q, the address began with %q", r.Path, SessionOf(r), SessionOf(reqs[0]))
		}
	}
}

func nlOptionalBare(t *testing.T, s *Samples, newCore NewCore) {
	n := s.NLWithAdditions(t)
	bare := SortedRows(n)[0]
	p := newNL(t, s, newCore, "nl")
	p.Type("postcode", n.Postcode)
	p.Type("number", strconv.Itoa(n.Number))
	p.Settle()
	p.SubmitAndWait()
	eq(t, "validate calls", len(p.Calls("/v1/validate")), 1)
	c := p.LastCommit()
	eq(t, "address1", c.Address.Address1, RegisterAddress1(bare, adreswijzer.LangNL))
	eq(t, "status", c.Status, "valid")
	eq(t, "proceeds", p.Proceeds, 1)
}

func nlRequired(t *testing.T, s *Samples, newCore NewCore) {
	n := s.NLAdditionRequired(t)
	p := newNL(t, s, newCore, "nl")
	p.Type("postcode", n.Postcode)
	p.Type("number", strconv.Itoa(n.Number))
	p.Settle()
	eq(t, "options", len(p.Options()), len(n.Rows))
	eq(t, "addition required", p.Field("addition").Required, true)
	if strings.Contains(strings.Join(p.Options(), "|"), "geen toevoeging") {
		t.Errorf("options %q offer a bare number the register does not have", p.Options())
	}

	p.Submit()
	eq(t, "proceeds", p.Proceeds, 0)
	eq(t, "focus", p.Focus, "addition")
	eq(t, "message field", p.View.MessageField, "addition")
	eq(t, "message kind", p.View.MessageKind, "error")
	eq(t, "validate calls", len(p.Calls("/v1/validate")), 0)

	// Typing the addition moves the active option to it; leaving the field chooses it.
	want := SortedRows(n)[2]
	p.Type("addition", strings.ToUpper(want.HouseNumberSuffix+want.Addition))
	eq(t, "active", p.View.List.Active, 2)
	eq(t, "committed while typing", len(p.Commits), 0)
	p.Blur()
	p.Settle()
	eq(t, "selected", p.View.List.Selected, 2)
	p.SubmitAndWait()
	c := p.LastCommit()
	eq(t, "address1", c.Address.Address1, RegisterAddress1(want, adreswijzer.LangNL))
	eq(t, "status", c.Status, "valid")
	eq(t, "proceeds", p.Proceeds, 1)
	eq(t, "validate calls", len(p.Calls("/v1/validate")), 1)
	sameSession(t, p.Requests)
}

func nlTypedAddition(t *testing.T, s *Samples, newCore NewCore) {
	// A letter typed with the number: "4b" picks the letter among the additions.
	n := s.NLWithAdditions(t)
	want := SortedRows(n)[len(n.Rows)-1]
	p := newNL(t, s, newCore, "nl")
	p.Type("postcode", n.Postcode)
	p.Type("number", strconv.Itoa(n.Number)+strings.ToUpper(want.HouseNumberSuffix))
	p.Settle()
	eq(t, "lookups", len(p.Calls("/v1/nl/lookup")), 1)
	eq(t, "lookup number", p.Calls("/v1/nl/lookup")[0].Query.Get("number"), strconv.Itoa(n.Number))
	p.SubmitAndWait()
	eq(t, "address1", p.LastCommit().Address.Address1, RegisterAddress1(want, adreswijzer.LangNL))

	// A letter and a toevoeging ("51A-1", as NEN 5825 writes it) are both kept.
	var tv adreswijzer.Address
	for _, a := range s.Rows[adreswijzer.NL] {
		if a.HouseNumberSuffix != "" && a.Addition != "" && !a.Planned() {
			tv = a
			break
		}
	}
	if tv.ID == "" {
		t.Fatal("the NL sample has no address with a letter and a toevoeging")
	}
	p = newNL(t, s, newCore, "nl")
	p.Type("postcode", tv.Postcode)
	p.Type("number", strconv.Itoa(tv.HouseNumber)+tv.HouseNumberSuffix+"-"+tv.Addition)
	p.Settle()
	p.SubmitAndWait()
	c := p.LastCommit()
	eq(t, "address1", c.Address.Address1, RegisterAddress1(tv, adreswijzer.LangNL))
	if c.Address.Address2 == nil || *c.Address.Address2 != tv.Addition {
		t.Errorf("address2 = %v, want the toevoeging %q", c.Address.Address2, tv.Addition)
	}
	eq(t, "split addition", c.Address.HouseNumberAddition, tv.HouseNumberSuffix+tv.Addition)
	eq(t, "status", c.Status, "valid")
}

func nlSingle(t *testing.T, s *Samples, newCore NewCore) {
	n := s.NLSingle(t, false)
	a := n.Rows[0]
	p := newNL(t, s, newCore, "nl")
	p.Type("postcode", n.Postcode[:4]+" "+strings.ToLower(n.Postcode[4:]))
	p.Type("number", strconv.Itoa(n.Number))
	p.Settle()
	eq(t, "list", p.View.List == nil, true)
	eq(t, "addition visible", p.Field("addition").Visible, false)
	if !strings.Contains(p.View.Message, a.Street.NL) {
		t.Errorf("announcement %q does not name the street", p.View.Message)
	}
	eq(t, "requests before the submit", len(p.Requests), 1) // the lookup
	p.SubmitAndWait()
	c := p.LastCommit()
	eq(t, "status", c.Status, "valid")
	eq(t, "address1", c.Address.Address1, RegisterAddress1(a, adreswijzer.LangNL))
	eq(t, "view committed", p.View.Committed, true)
	eq(t, "proceeds", p.Proceeds, 1)
	eq(t, "requests", len(p.Requests), 2) // one lookup, one validate
	eq(t, "nothing busy", p.View.Busy, false)

	// Editing the number withdraws the address from the shop's form.
	p.Type("number", "0")
	eq(t, "uncommits", p.Uncommit, 1)
	eq(t, "view committed", p.View.Committed, false)
}

func nlPlanned(t *testing.T, s *Samples, newCore NewCore) {
	n := s.NLSingle(t, true)
	p := newNL(t, s, newCore, "en")
	p.Type("postcode", n.Postcode)
	p.Type("number", strconv.Itoa(n.Number))
	p.SubmitAndWait()
	c := p.LastCommit()
	eq(t, "address1", c.Address.Address1, RegisterAddress1(n.Rows[0], adreswijzer.LangNL))
	// The register's note about the new build comes from the API, in English.
	v := p.Calls("/v1/validate")
	if len(v) != 1 {
		t.Fatalf("validate calls = %d", len(v))
	}
	if !strings.Contains(strings.ToLower(p.View.Message), "new") {
		t.Errorf("message %q does not carry the API's note on the new build", p.View.Message)
	}
}

func nlMissingConfirmed(t *testing.T, s *Samples, newCore NewCore) {
	n := s.NLSingle(t, false)
	pn := s.PostcodeNumbers(adreswijzer.NL)
	missing := 9000
	for pn[n.Postcode+" "+strconv.Itoa(missing)] > 0 {
		missing++
	}
	p := newNL(t, s, newCore, "nl")
	p.Type("postcode", n.Postcode)
	p.Type("number", strconv.Itoa(missing))
	p.Settle()
	eq(t, "commits", len(p.Commits), 0)
	eq(t, "number invalid", p.Field("number").Invalid, true)
	eq(t, "message field", p.View.MessageField, "number")
	if !strings.Contains(p.View.Message, "huisnummer") {
		t.Errorf("message %q is not the API's HOUSE_NUMBER_NOT_FOUND in Dutch", p.View.Message)
	}
	for _, f := range []string{"street", "city"} {
		eq(t, f+" visible", p.Field(f).Visible, true)
		eq(t, f+" editable", p.Field(f).ReadOnly, false)
	}
	p.Type("street", n.Rows[0].Street.NL)
	p.Type("city", n.Rows[0].Locality.NL)
	p.Blur()
	p.Submit()
	p.Settle()
	eq(t, "proceeds", p.Proceeds, 0)
	eq(t, "confirm offered", p.View.Confirm.Visible, true)
	eq(t, "focus", p.Focus, "confirm")
	first := p.Calls("/v1/validate")
	if len(first) != 1 || first[0].Body["customerConfirmed"] != nil {
		t.Fatalf("first validate = %+v, want one without customerConfirmed", first)
	}

	p.Confirm(true)
	p.Submit()
	p.Settle()
	v := p.Calls("/v1/validate")
	if len(v) != 2 || v[1].Body["customerConfirmed"] != true {
		t.Fatalf("second validate = %+v, want customerConfirmed", v)
	}
	// The confirmation is the same address: its validate shares the session.
	sameSession(t, p.Requests)
	c := p.LastCommit()
	eq(t, "confirmed", c.Confirmed, true)
	eq(t, "unverified", c.Unverified, true) // the register does not hold it: the shop checks it
	eq(t, "address1", c.Address.Address1, n.Rows[0].Street.NL+" "+strconv.Itoa(missing))
	eq(t, "proceeds", p.Proceeds, 1)
}

func nlLanguages(t *testing.T, s *Samples, newCore NewCore) {
	n := s.NLSingle(t, false)
	seen := map[string]string{}
	for _, lang := range []string{"nl", "fr", "de", "en"} {
		p := newNL(t, s, newCore, lang)
		p.Type("postcode", n.Postcode)
		p.Type("number", "99999")
		p.Settle()
		l := p.Calls("/v1/nl/lookup")
		if len(l) != 1 || l[0].Query.Get("lang") != lang {
			t.Fatalf("%s: lookups %+v, want one with lang=%s", lang, l, lang)
		}
		if p.View.Message == "" {
			t.Errorf("%s: no message", lang)
		}
		for other, msg := range seen {
			if msg == p.View.Message {
				t.Errorf("%s and %s show the same message %q", lang, other, msg)
			}
		}
		seen[lang] = p.View.Message
		eq(t, lang+" view language", p.View.Lang, lang)
	}
}

func nlNumberTooLong(t *testing.T, s *Samples, newCore NewCore) {
	n := s.NLSingle(t, false)
	seen := map[string]string{}
	for _, lang := range []string{"nl", "fr", "de", "en"} {
		p := newNL(t, s, newCore, lang)
		p.Type("postcode", n.Postcode)
		p.Type("number", "1234567")
		p.Settle()
		eq(t, lang+" lookups", len(p.Calls("/v1/nl/lookup")), 0)
		eq(t, lang+" message field", p.View.MessageField, "number")
		eq(t, lang+" message kind", p.View.MessageKind, "error")
		eq(t, lang+" number invalid", p.Field("number").Invalid, true)
		if !strings.Contains(p.View.Message, "6") {
			t.Errorf("%s: message %q does not say a house number has at most 6 digits", lang, p.View.Message)
		}
		for other, msg := range seen {
			if msg == p.View.Message {
				t.Errorf("%s and %s say the same: %q", lang, other, msg)
			}
		}
		seen[lang] = p.View.Message
		said := p.View.Message
		p.Blur()
		p.Submit()
		eq(t, lang+" proceeds", p.Proceeds, 0)
		eq(t, lang+" validate calls", len(p.Calls("/v1/validate")), 0)
		eq(t, lang+" focus", p.Focus, "number")
		eq(t, lang+" message at submit", p.View.Message, said)
		// Six digits are a number again: the message goes, the lookup is made.
		p.Fill("number", "123456")
		p.Settle()
		eq(t, lang+" message kind after correcting", p.View.MessageKind == "error" && p.View.Message == said, false)
		eq(t, lang+" lookups after correcting", len(p.Calls("/v1/nl/lookup")), 1)
	}
}

func nlManual(t *testing.T, s *Samples, newCore NewCore) {
	n := s.NLSingle(t, false)
	a := n.Rows[0]
	p := newNL(t, s, newCore, "nl")
	p.Manual()
	eq(t, "focus", p.Focus, "street")
	eq(t, "way back offered", p.View.Manual.Visible && p.View.Manual.Back, true)
	p.Type("street", Typo(a.Street.NL))
	p.Type("number", strconv.Itoa(a.HouseNumber))
	p.Type("postcode", n.Postcode)
	p.Type("city", a.Locality.NL)
	p.Settle()
	// Typed by hand, the street still gets suggestions; nothing is looked up or validated.
	eq(t, "lookups while typing", len(p.Calls("/v1/nl/lookup")), 0)
	eq(t, "validate calls while typing", len(p.Calls("/v1/validate")), 0)
	if len(p.Calls("/v1/suggest")) == 0 {
		t.Error("the street typed by hand got no suggestions")
	}
	p.Submit()
	p.Settle()
	eq(t, "validate calls", len(p.Calls("/v1/validate")), 1)
	// The street was typed with a typo: the register's version is offered, and taken.
	eq(t, "correction offered", p.View.Correction.Visible, true)
	eq(t, "proceeds before the choice", p.Proceeds, 0)
	p.Correction(true)
	c := p.LastCommit()
	eq(t, "address1", c.Address.Address1, RegisterAddress1(a, adreswijzer.LangNL))
	eq(t, "status", c.Status, "corrected")
	eq(t, "street shown as the register has it", p.Field("street").Value, a.Street.NL)
	eq(t, "proceeds", p.Proceeds, 1)
}

func nlCorrected(t *testing.T, s *Samples, newCore NewCore) {
	// "Nieuwe straat 5" at 1381 CS: the register has Nieuwstraat 5 at 1381 BB.
	var want adreswijzer.Address
	for _, a := range s.Rows[adreswijzer.NL] {
		if a.Street.NL == "Nieuwstraat" && a.HouseNumber == 5 && a.HouseNumberSuffix == "" && a.Addition == "" {
			want = a
		}
	}
	if want.ID == "" {
		t.Fatal("the NL sample has no Nieuwstraat 5")
	}
	typed := func(t *testing.T, street, postcode, number, city string) *Page {
		p := newNL(t, s, newCore, "nl")
		p.Manual()
		p.Type("street", street)
		p.Type("postcode", postcode)
		p.Type("number", number)
		p.Type("city", city)
		p.Blur()
		p.Submit()
		p.Settle()
		return p
	}
	for _, use := range []bool{true, false} {
		p := typed(t, "Nieuwe straat", "1381CS", "5", "Weesp")
		eq(t, "validate calls", len(p.Calls("/v1/validate")), 1)
		eq(t, "commits before the choice", len(p.Commits), 0)
		eq(t, "proceeds before the choice", p.Proceeds, 0)
		eq(t, "correction offered", p.View.Correction.Visible, true)
		eq(t, "focus", p.Focus, "correction")
		if !strings.Contains(p.View.Correction.Text, "Nieuwstraat 5") || !strings.Contains(p.View.Correction.Text, "1381 BB") {
			t.Errorf("offer %q does not show the register's version", p.View.Correction.Text)
		}
		// What the customer typed stays in the fields until they choose.
		eq(t, "street as typed", p.Field("street").Value, "Nieuwe straat")
		eq(t, "postcode as typed", p.Field("postcode").Value, "1381 CS")
		// The submit's budget does not run out on the customer while they read.
		p.Advance(3000)
		eq(t, "proceeds while the offer stands", p.Proceeds, 0)
		eq(t, "state", p.View.State, "online")

		p.Correction(use)
		eq(t, "offer gone", p.View.Correction.Visible, false)
		eq(t, "proceeds after the choice", p.Proceeds, 1)
		eq(t, "validate calls", len(p.Calls("/v1/validate")), 1)
		c := p.LastCommit()
		if use {
			eq(t, "address1", c.Address.Address1, "Nieuwstraat 5")
			eq(t, "zip", c.Address.Zip, "1381 BB")
			eq(t, "status", c.Status, "corrected")
			eq(t, "unverified", c.Unverified, false)
			eq(t, "street field", p.Field("street").Value, "Nieuwstraat")
			eq(t, "postcode field", p.Field("postcode").Value, "1381 BB")
		} else {
			eq(t, "address1", c.Address.Address1, "Nieuwe straat 5")
			eq(t, "zip", c.Address.Zip, "1381 CS")
			eq(t, "city", c.Address.City, "Weesp")
			eq(t, "status", c.Status, "")
			eq(t, "unverified", c.Unverified, true)
			eq(t, "confirmed", c.Confirmed, true)
			eq(t, "street field", p.Field("street").Value, "Nieuwe straat")
		}
	}

	// Editing withdraws the offer; the next submit asks again, in the same session.
	p := typed(t, "Nieuwe straat", "1381CS", "5", "Weesp")
	p.Fill("street", "Nieuwstraat")
	eq(t, "offer after an edit", p.View.Correction.Visible, false)
	p.SubmitAndWait()
	eq(t, "validate calls", len(p.Calls("/v1/validate")), 2)
	sameSession(t, p.Requests)

	// Only letter case and spacing differ: taken without asking.
	p = typed(t, "hugo de grootlaan", "1381cs", "5", "weesp")
	eq(t, "offer for case and spacing", p.View.Correction.Visible, false)
	eq(t, "proceeds", p.Proceeds, 1)
	c := p.LastCommit()
	eq(t, "address1", c.Address.Address1, "Hugo de Grootlaan 5")
	eq(t, "zip", c.Address.Zip, "1381 CS")
	eq(t, "city", c.Address.City, "Weesp")
	eq(t, "street field", p.Field("street").Value, "Hugo de Grootlaan")
}

// NLNumberPair is a Dutch postcode with two single addresses whose numbers are typed one
// after the other: first (a digit) and second (that digit and one more), as "1" then "10".
func (s *Samples) NLNumberPair(t testing.TB) (postcode string, first, second Number) {
	pn := s.PostcodeNumbers(adreswijzer.NL)
	byKey := map[string]Number{}
	for _, n := range s.Numbers(adreswijzer.NL) {
		byKey[key(n)] = n
	}
	for _, n := range s.Numbers(adreswijzer.NL) {
		if n.Number > 9 || pn[key(n)] != 1 || !n.HasBare() || anyPlanned(n) {
			continue
		}
		for d := 0; d <= 9; d++ {
			m, ok := byKey[n.Postcode+" "+strconv.Itoa(n.Number*10+d)]
			if ok && pn[key(m)] == 1 && m.HasBare() && !anyPlanned(m) {
				return n.Postcode, n, m
			}
		}
	}
	t.Fatal("the NL sample has no postcode with single addresses at 1 and 1x")
	return "", Number{}, Number{}
}

func nlSessions(t *testing.T, s *Samples, newCore NewCore) {
	// One address typed with a pause: "1" finds an address, "10" another. Neither is
	// validated while typing; both lookups and the one validate at the submit share a session.
	pc, first, second := s.NLNumberPair(t)
	p := newNL(t, s, newCore, "nl")
	p.Type("postcode", pc)
	p.Type("number", strconv.Itoa(first.Number))
	p.Advance(300)
	if !strings.Contains(p.View.Message, RegisterAddress1(first.Rows[0], adreswijzer.LangNL)) {
		t.Errorf("message %q does not announce %s", p.View.Message, RegisterAddress1(first.Rows[0], adreswijzer.LangNL))
	}
	p.Type("number", strconv.Itoa(second.Number)[1:])
	p.Settle()
	eq(t, "lookups", len(p.Calls("/v1/nl/lookup")), 2)
	eq(t, "validate calls while typing", len(p.Calls("/v1/validate")), 0)
	// Switching the language after the address was found asks again, in the same session,
	// and keeps the address.
	p.Config(map[string]any{"country": "NL", "lang": "en"})
	p.Settle()
	eq(t, "validate calls after the language switch", len(p.Calls("/v1/validate")), 0)
	if !strings.Contains(p.View.Message, RegisterAddress1(second.Rows[0], adreswijzer.LangNL)) {
		t.Errorf("after the language switch the message %q does not announce %s", p.View.Message, RegisterAddress1(second.Rows[0], adreswijzer.LangNL))
	}
	p.SubmitAndWait()
	eq(t, "proceeds", p.Proceeds, 1)
	call := oneValidate(t, p)
	eq(t, "address1", p.LastCommit().Address.Address1, RegisterAddress1(second.Rows[0], adreswijzer.LangNL))
	p.CheckSessions()
	sameSession(t, p.Requests)
	// A second submit hands over the same address: nothing is asked again.
	p.Submit()
	eq(t, "proceeds", p.Proceeds, 2)
	eq(t, "requests after a second submit", len(p.Requests), 1+3)

	// After the address was handed over, what is typed next is another address.
	handed := len(p.Requests)
	p.Type("number", "1")
	p.Settle()
	if len(p.Requests) == handed || SessionOf(p.Requests[handed]) == SessionOf(call) {
		t.Errorf("the address typed after the submit reused the ended session %q", SessionOf(call))
	}

	// A choice changed among the additions is one address: one session, one validate.
	n := s.NLWithAdditions(t)
	rows := SortedRows(n)
	p = newNL(t, s, newCore, "nl")
	p.Type("postcode", n.Postcode)
	p.Type("number", strconv.Itoa(n.Number))
	p.Settle()
	p.Choose(1)
	p.FocusField("addition")
	p.Choose(2)
	p.Settle()
	eq(t, "validate calls before the submit", len(p.Calls("/v1/validate")), 0)
	eq(t, "lookups", len(p.Calls("/v1/nl/lookup")), 1)
	p.SubmitAndWait()
	eq(t, "validate calls", len(p.Calls("/v1/validate")), 1)
	eq(t, "address1", p.LastCommit().Address.Address1, RegisterAddress1(rows[2], adreswijzer.LangNL))
	sameSession(t, p.Requests)

	// Another postcode is another address.
	other := newNL(t, s, newCore, "nl")
	other.Type("postcode", n.Postcode)
	other.Type("number", strconv.Itoa(n.Number))
	other.Settle()
	if SessionOf(other.Requests[0]) == SessionOf(p.Requests[0]) {
		t.Errorf("two forms drew the same session id %q", SessionOf(p.Requests[0]))
	}
	other.Fill("postcode", pc)
	other.Fill("number", strconv.Itoa(first.Number))
	other.Settle()
	l := other.Calls("/v1/nl/lookup")
	if len(l) != 2 || SessionOf(l[1]) == SessionOf(l[0]) {
		t.Errorf("lookups %d: another postcode kept the session %q", len(l), SessionOf(l[0]))
	}
}

func nlDebounce(t *testing.T, s *Samples, newCore NewCore) {
	n := s.NLWithAdditions(t)
	p := newNL(t, s, newCore, "nl")
	p.Type("number", "1"+strconv.Itoa(n.Number))
	p.Type("postcode", n.Postcode)
	p.Advance(300) // a pause: the lookup for the first number goes out
	// Correct the number: backspace, retype.
	p.FocusField("number")
	p.Fill("number", "1")
	p.Fill("number", "")
	p.Type("number", strconv.Itoa(n.Number))
	p.Settle()
	l := p.Calls("/v1/nl/lookup")
	if len(l) != 2 {
		t.Fatalf("lookups = %d, want 2 (one per pause in typing)", len(l))
	}
	eq(t, "last lookup number", l[1].Query.Get("number"), strconv.Itoa(n.Number))
	eq(t, "options", len(p.Options()), len(n.Rows))
}

func nlOutOfOrder(t *testing.T, s *Samples, newCore NewCore) {
	n := s.NLWithAdditions(t)
	single := s.NLSingle(t, false)
	p := newNL(t, s, newCore, "nl")
	p.DeliverAborted = true
	// The first lookup is slow, the second fast: the first answer arrives last.
	p.Latency = func(r Request) int {
		if r.Path == "/v1/nl/lookup" && r.Query.Get("postcode") == n.Postcode {
			return 900
		}
		return 20
	}
	p.Type("postcode", n.Postcode)
	p.Type("number", strconv.Itoa(n.Number))
	p.Advance(200) // the first lookup is on its way
	p.Fill("postcode", single.Postcode)
	p.Fill("number", strconv.Itoa(single.Number))
	p.Settle()
	eq(t, "lookups", len(p.Calls("/v1/nl/lookup")), 2)
	p.SubmitAndWait()
	eq(t, "address1", p.LastCommit().Address.Address1, RegisterAddress1(single.Rows[0], adreswijzer.LangNL))
	eq(t, "list", p.View.List == nil, true)
	eq(t, "street", p.Field("street").Value, single.Rows[0].Street.NL)
	eq(t, "state", p.View.State, "online")
}

// Typo swaps two letters in the middle of a name.
func Typo(s string) string {
	r := []rune(s)
	i := len(r) / 2
	r[i], r[i+1] = r[i+1], r[i]
	return string(r)
}

// BEBilingual is a single address in Haren (Brussels) on a street with different Dutch and
// French names.
func (s *Samples) BEBilingual(t testing.TB) Number {
	return s.Find(t, adreswijzer.BE, "Haren address with Dutch and French street names", func(n Number) bool {
		a := n.Rows[0]
		return n.Postcode == "1130" && len(n.Rows) == 1 && a.Street.NL != "" && a.Street.FR != "" &&
			a.Street.NL != a.Street.FR && len([]rune(a.Street.NL)) >= 10 && !a.Planned() && a.HouseNumberSuffix == ""
	})
}

func beHarenTypo(t *testing.T, s *Samples, newCore NewCore) {
	n := s.BEBilingual(t)
	a := n.Rows[0]
	p := newBE(t, s, newCore, "nl")
	for _, f := range []string{"postcode", "street", "number", "addition", "city"} {
		eq(t, f+" visible", p.Field(f).Visible, true)
	}
	eq(t, "field order", p.View.Fields[1].Name, "street")
	p.Type("postcode", n.Postcode)
	p.Type("street", Typo(a.Street.NL))
	p.Advance(300)
	sg := p.Calls("/v1/suggest")
	if len(sg) != 1 {
		t.Fatalf("suggest calls = %d, want 1 after typing pauses", len(sg))
	}
	eq(t, "suggest postcode", sg[0].Query.Get("postcode"), n.Postcode)
	eq(t, "suggest country", sg[0].Query.Get("country"), "be")
	opts := p.Options()
	if len(opts) == 0 || !strings.HasPrefix(opts[0], a.Street.NL+",") {
		t.Fatalf("suggestions %q for %q do not start with %q", opts, Typo(a.Street.NL), a.Street.NL)
	}
	eq(t, "list field", p.View.List.Field, "street")
	p.Key("ArrowDown")
	p.Key("Enter")
	eq(t, "street", p.Field("street").Value, a.Street.NL)
	eq(t, "city", p.Field("city").Value, a.Locality.NL)
	eq(t, "focus", p.Focus, "number")
	p.Type("number", strconv.Itoa(a.HouseNumber))
	p.Settle()
	l := p.Calls("/v1/be/lookup")
	if len(l) != 1 || l[0].Query.Get("street") != a.Street.NL {
		t.Fatalf("lookups %+v, want one with the chosen street", l)
	}
	p.SubmitAndWait()
	c := p.LastCommit()
	eq(t, "address1", c.Address.Address1, RegisterAddress1(a, adreswijzer.LangNL))
	eq(t, "zip", c.Address.Zip, "1130")
	eq(t, "city", c.Address.City, a.Locality.NL)
	eq(t, "countryCode", c.Address.CountryCode, "BE")
	eq(t, "status", c.Status, "valid")
	if !strings.Contains(p.View.Attribution, "BeST") {
		t.Errorf("attribution %q does not credit BeST Address", p.View.Attribution)
	}
	sameSession(t, p.Requests)
	p.CheckSessions()
}

func beHarenFrench(t *testing.T, s *Samples, newCore NewCore) {
	n := s.BEBilingual(t)
	a := n.Rows[0]
	p := newBE(t, s, newCore, "fr")
	eq(t, "label", p.Field("street").Label, "Rue")
	p.Type("postcode", n.Postcode)
	fr := []rune(a.Street.FR)
	p.Type("street", string(fr[:len(fr)-2]))
	p.Advance(300)
	opts := p.Options()
	if len(opts) == 0 || !strings.HasPrefix(opts[0], a.Street.FR+",") {
		t.Fatalf("suggestions %q do not start with %q", opts, a.Street.FR)
	}
	p.Choose(0)
	eq(t, "city", p.Field("city").Value, a.Locality.FR)
	p.Type("number", strconv.Itoa(a.HouseNumber))
	p.Settle()
	p.SubmitAndWait()
	c := p.LastCommit()
	eq(t, "address1", c.Address.Address1, RegisterAddress1(a, adreswijzer.LangFR))
	eq(t, "city", c.Address.City, a.Locality.FR)
}

// BEBoxes is a Lembeek number with a bare address and numbered boxes.
func (s *Samples) BEBoxes(t testing.TB) Number {
	return s.Find(t, adreswijzer.BE, "Lembeek number with a bare address and numeric boxes", func(n Number) bool {
		if n.Postcode != "1502" || !n.HasBare() || len(n.Rows) < 3 || anyPlanned(n) {
			return false
		}
		for _, a := range n.Rows {
			if a.HouseNumberSuffix != "" {
				return false
			}
			if _, err := strconv.Atoi(a.Box); a.Box != "" && err != nil {
				return false
			}
		}
		return true
	})
}

// BEManyBoxes is a Belgian number with a bare address and more boxes than the ten
// suggestions a validate answer carries, so only the lookup lists them all.
func (s *Samples) BEManyBoxes(t testing.TB) Number {
	return s.Find(t, adreswijzer.BE, "number with a bare address and more than ten boxes", func(n Number) bool {
		if !n.HasBare() || len(n.Rows) <= 10 || anyPlanned(n) {
			return false
		}
		for _, a := range n.Rows {
			if a.HouseNumberSuffix != "" {
				return false
			}
		}
		return true
	})
}

// BEBoxesOnly is a Belgian number with more than ten addresses, every one with a box.
func (s *Samples) BEBoxesOnly(t testing.TB) Number {
	return s.Find(t, adreswijzer.BE, "number with more than ten boxes and no address without one", func(n Number) bool {
		return !n.HasBare() && len(n.Rows) > 10 && !anyPlanned(n)
	})
}

func beLembeekBox(t *testing.T, s *Samples, newCore NewCore) {
	n := s.BEBoxes(t)
	rows := SortedRows(n)
	p := newBE(t, s, newCore, "nl")
	p.Type("postcode", n.Postcode)
	p.Type("street", n.Street)
	p.Advance(300)
	p.Type("number", strconv.Itoa(n.Number))
	p.Settle()
	eq(t, "options", len(p.Options()), len(n.Rows))
	eq(t, "list field", p.View.List.Field, "addition")
	eq(t, "box label", p.Field("addition").Label, "Bus (niet verplicht)")
	if !strings.Contains(p.Options()[0], "geen bus") {
		t.Errorf("first option %q is not the number without a box", p.Options()[0])
	}
	p.FocusField("addition")
	p.Key("ArrowDown")
	p.Key("ArrowDown")
	p.Key("ArrowDown")
	eq(t, "active", p.View.List.Active, 2)
	p.Key("Escape")
	eq(t, "list open after Escape", p.View.List.Open, false)
	eq(t, "commits", len(p.Commits), 0)
	p.Key("ArrowDown")
	p.Key("ArrowDown")
	p.Key("Enter")
	p.Settle()
	want := rows[1]
	p.SubmitAndWait()
	c := p.LastCommit()
	eq(t, "address1", c.Address.Address1, RegisterAddress1(want, adreswijzer.LangNL))
	if c.Address.Address2 == nil || *c.Address.Address2 != "bus "+adreswijzer.BoxNumber(want.Box) {
		t.Errorf("address2 = %v, want %q", c.Address.Address2, "bus "+adreswijzer.BoxNumber(want.Box))
	}
	eq(t, "box field", p.Field("addition").Value, want.Box)
	eq(t, "status", c.Status, "valid")
}

func beLembeekTyped(t *testing.T, s *Samples, newCore NewCore) {
	n := s.BEBoxes(t)
	want := SortedRows(n)[len(n.Rows)-1]
	p := newBE(t, s, newCore, "nl")
	p.Type("postcode", n.Postcode)
	// Pasted whole into the street field, box and all.
	p.Fill("street", n.Street+" "+strconv.Itoa(n.Number)+" bus "+want.Box)
	p.FocusField("city")
	p.Settle()
	eq(t, "street", p.Field("street").Value, n.Street)
	eq(t, "number", p.Field("number").Value, strconv.Itoa(n.Number))
	p.SubmitAndWait()
	c := p.LastCommit()
	if c.Address.Address2 == nil || *c.Address.Address2 != "bus "+want.Box {
		t.Errorf("address2 = %v, want the typed box %q", c.Address.Address2, "bus "+want.Box)
	}
	eq(t, "lookups", len(p.Calls("/v1/be/lookup")), 1)
}

func beMalmedy(t *testing.T, s *Samples, newCore NewCore) {
	n := s.Find(t, adreswijzer.BE, "Malmedy address with a French street name only", func(n Number) bool {
		a := n.Rows[0]
		return n.Postcode == "4960" && len(n.Rows) == 1 && a.Street.NL == "" && !a.Planned() && a.HouseNumberSuffix == "" &&
			strings.ContainsAny(a.Street.FR, "éèâêô")
	})
	a := n.Rows[0]
	p := newBE(t, s, newCore, "fr")
	p.Type("postcode", n.Postcode)
	p.Type("street", strings.ToLower(a.Street.FR))
	p.Advance(300)
	p.Type("number", strconv.Itoa(a.HouseNumber))
	p.Settle()
	p.SubmitAndWait()
	c := p.LastCommit()
	eq(t, "address1", c.Address.Address1, RegisterAddress1(a, adreswijzer.LangFR))
	eq(t, "city", c.Address.City, a.Locality.FR)
	eq(t, "street shown as the register has it", p.Field("street").Value, a.Street.FR)
}

func beUnknownCountry(t *testing.T, s *Samples, newCore NewCore) {
	n := s.BEBoxes(t)
	p := newBE(t, s, newCore, "nl")
	p.Type("postcode", n.Postcode)
	p.Fill("street", n.Street)
	p.Fill("addition", "3")
	p.Fill("city", "Lembeek")
	for _, country := range []string{"", "XX"} {
		p.Config(map[string]any{"country": country, "lang": "nl"})
		eq(t, "country after "+strconv.Quote(country), p.View.Country, "BE")
		eq(t, "field order", p.View.Fields[1].Name, "street")
		eq(t, "street kept", p.Field("street").Value, n.Street)
		eq(t, "box kept", p.Field("addition").Value, "3")
		eq(t, "city kept", p.Field("city").Value, "Lembeek")
	}
	// A real switch still switches.
	p.Config(map[string]any{"country": "NL", "lang": "nl"})
	eq(t, "country", p.View.Country, "NL")
}

func failLookupTimeout(t *testing.T, s *Samples, newCore NewCore) {
	n := s.NLSingle(t, false)
	a := n.Rows[0]
	p := newNL(t, s, newCore, "nl")
	p.Latency = func(Request) int { return 5000 }
	p.Type("postcode", n.Postcode)
	p.Type("number", strconv.Itoa(n.Number))
	p.Advance(200)
	eq(t, "busy while waiting", p.View.Busy, true)
	p.Advance(1500)
	eq(t, "state", p.View.State, "offline")
	eq(t, "busy", p.View.Busy, false)
	eq(t, "message kind", p.View.MessageKind, "warning")
	for _, f := range []string{"street", "city"} {
		eq(t, f+" editable", p.Field(f).Visible && !p.Field(f).ReadOnly, true)
	}
	// Nothing typed is lost; street and city are asked for, and required.
	eq(t, "postcode", p.Field("postcode").Value, adreswijzer.FormatPostcode(adreswijzer.NL, n.Postcode))
	eq(t, "street required", p.Field("street").Required, true)
	eq(t, "city required", p.Field("city").Required, true)
	p.Submit()
	eq(t, "proceeds without a street", p.Proceeds, 0)
	eq(t, "focus", p.Focus, "street")
	p.Type("street", a.Street.NL)
	p.Type("city", a.Locality.NL)
	if due, ok := p.RetryDue(); !ok || due <= p.Now {
		t.Fatalf("no retry pending at %d ms (due %d, %v)", p.Now, due, ok)
	}
	p.Submit()
	// Until the retry is due, the API is asked nothing more.
	eq(t, "requests", len(p.Requests), 1)
	c := p.LastCommit()
	eq(t, "unverified", c.Unverified, true)
	eq(t, "address1", c.Address.Address1, a.Street.NL+" "+strconv.Itoa(n.Number))
	eq(t, "zip", c.Address.Zip, adreswijzer.FormatPostcode(adreswijzer.NL, n.Postcode))
	eq(t, "proceeds", p.Proceeds, 1)
	eq(t, "view unverified", p.View.Unverified, true)
}

func failValidate503(t *testing.T, s *Samples, newCore NewCore) {
	n := s.NLSingle(t, false)
	p := newNL(t, s, newCore, "nl")
	p.Fault = func(r Request) (int, string) {
		if r.Path == "/v1/validate" {
			return 503, ""
		}
		return 0, ""
	}
	p.Type("postcode", n.Postcode)
	p.Type("number", strconv.Itoa(n.Number))
	p.Settle()
	p.SubmitAndWait()
	eq(t, "commits: the address is handed over once", len(p.Commits), 1)
	c := p.LastCommit()
	eq(t, "unverified", c.Unverified, true)
	eq(t, "address1 from the register's lookup", c.Address.Address1, RegisterAddress1(n.Rows[0], adreswijzer.LangNL))
	eq(t, "state", p.View.State, "offline")
	eq(t, "proceeds", p.Proceeds, 1)
	eq(t, "validate calls", len(p.Calls("/v1/validate")), 1)

	// Edited afterwards, the typed address is what the shop gets.
	p.Fill("number", strconv.Itoa(n.Number)+"A")
	eq(t, "uncommits", p.Uncommit, 1)
	p.Submit()
	c = p.LastCommit()
	eq(t, "address1 as edited", c.Address.Address1, n.Rows[0].Street.NL+" "+strconv.Itoa(n.Number)+"A")
	eq(t, "unverified", c.Unverified, true)
	eq(t, "proceeds", p.Proceeds, 2)
}

func failRateLimitedAndNetwork(t *testing.T, s *Samples, newCore NewCore) {
	n := s.BEBoxes(t)
	for _, fault := range []struct {
		status int
		err    string
	}{{429, ""}, {500, ""}, {0, "network"}} {
		p := newBE(t, s, newCore, "de")
		p.Fault = func(r Request) (int, string) {
			if r.Path == "/v1/suggest" {
				return fault.status, fault.err
			}
			return 0, ""
		}
		p.Type("postcode", n.Postcode)
		p.Type("street", n.Street)
		p.Advance(300)
		eq(t, "state", p.View.State, "offline")
		if !strings.Contains(p.View.Message, "Adress") {
			t.Errorf("%d %s: message %q is not German", fault.status, fault.err, p.View.Message)
		}
		offline := p.View.Message
		p.Type("number", strconv.Itoa(n.Number))
		p.Type("addition", "7")
		p.Type("city", "Lembeek")
		p.Settle()
		eq(t, "requests", len(p.Requests), 1)
		eq(t, "the notice stays while typing", p.View.Message, offline)
		p.Submit()
		c := p.LastCommit()
		eq(t, "unverified", c.Unverified, true)
		eq(t, "address1", c.Address.Address1, n.Street+" "+strconv.Itoa(n.Number))
		if c.Address.Address2 == nil || *c.Address.Address2 != "bus 7" {
			t.Errorf("address2 = %v, want the typed box with its marker, %q", c.Address.Address2, "bus 7")
		}
		eq(t, "split addition", c.Address.HouseNumberAddition, "bus 7")
		eq(t, "proceeds", p.Proceeds, 1)
	}
}

func failRefused(t *testing.T, s *Samples, newCore NewCore) {
	n := s.NLSingle(t, false)
	a := n.Rows[0]
	p := newNL(t, s, newCore, "en")
	p.Fault = func(Request) (int, string) { return 403, "" }
	p.Type("postcode", n.Postcode)
	p.Type("number", strconv.Itoa(n.Number))
	p.Settle()
	eq(t, "state", p.View.State, "disabled")
	if !strings.Contains(p.View.Message, "not available") {
		t.Errorf("message %q does not say the check is unavailable", p.View.Message)
	}
	eq(t, "manual button", p.View.Manual.Visible, false)
	p.Type("street", a.Street.NL)
	p.Type("city", a.Locality.NL)
	p.Submit()
	eq(t, "requests", len(p.Requests), 1)
	eq(t, "unverified", p.LastCommit().Unverified, true)
	eq(t, "proceeds", p.Proceeds, 1)
}

func failSlowSubmit(t *testing.T, s *Samples, newCore NewCore) {
	n := s.NLSingle(t, false)
	a := n.Rows[0]
	p := newNL(t, s, newCore, "nl")
	p.Manual()
	p.Latency = func(r Request) int {
		if r.Path == "/v1/validate" {
			return 3000
		}
		return 20
	}
	p.Type("postcode", n.Postcode)
	p.Type("number", strconv.Itoa(n.Number))
	p.Type("street", a.Street.NL)
	p.Type("city", a.Locality.NL)
	p.Submit()
	p.Advance(1000)
	eq(t, "proceeds while the check runs", p.Proceeds, 0)
	p.Advance(600)
	eq(t, "proceeds after the time-out", p.Proceeds, 1)
	c := p.LastCommit()
	eq(t, "unverified", c.Unverified, true)
	eq(t, "address1", c.Address.Address1, a.Street.NL+" "+strconv.Itoa(n.Number))
}

func nlManualAmbiguous(t *testing.T, s *Samples, newCore NewCore) {
	n := s.NLAdditionRequired(t)
	rows := SortedRows(n)
	p := newNL(t, s, newCore, "nl")
	p.Manual()
	p.Type("street", n.Street)
	p.Type("number", strconv.Itoa(n.Number))
	p.Type("postcode", n.Postcode)
	p.Type("city", rows[0].Locality.NL)
	p.Submit()
	p.Settle()
	eq(t, "proceeds", p.Proceeds, 0)
	eq(t, "commits", len(p.Commits), 0)
	// The choices are the lookup's, every address at the number, not the validate's ten.
	eq(t, "lookups", len(p.Calls("/v1/nl/lookup")), 1)
	if p.View.List == nil || p.View.List.Field != "addition" || len(p.Options()) != len(n.Rows) {
		t.Fatalf("list = %+v, want the register's %d addresses to choose from", p.View.List, len(n.Rows))
	}
	eq(t, "focus", p.Focus, "addition")
	eq(t, "message field", p.View.MessageField, "addition")
	// A second submit without a choice asks again and calls nothing.
	p.Submit()
	eq(t, "validate calls", len(p.Calls("/v1/validate")), 1)
	eq(t, "proceeds", p.Proceeds, 0)
	p.Choose(1)
	eq(t, "street field", p.Field("street").Value, n.Street)
	eq(t, "street editable", p.Field("street").ReadOnly, false)
	p.SubmitAndWait()
	c := p.LastCommit()
	eq(t, "address1", c.Address.Address1, RegisterAddress1(rows[1], adreswijzer.LangNL))
	eq(t, "unverified", c.Unverified, false)
	eq(t, "status", c.Status, "valid")
	eq(t, "proceeds", p.Proceeds, 1)
	eq(t, "validate calls", len(p.Calls("/v1/validate")), 2)
	sameSession(t, p.Requests)
}

func nlManualBlocked(t *testing.T, s *Samples, newCore NewCore) {
	// A PO box where a street address is needed blocks, confirmed or not: no confirmation is
	// offered for it.
	p := newNL(t, s, newCore, "en")
	p.Manual()
	p.Type("street", "Postbus")
	p.Type("number", "123")
	p.Type("postcode", "1380AA")
	p.Type("city", "Weesp")
	p.Submit()
	p.Settle()
	eq(t, "proceeds", p.Proceeds, 0)
	eq(t, "commits", len(p.Commits), 0)
	eq(t, "message kind", p.View.MessageKind, "error")
	if p.View.Message == "" || p.View.MessageField == "" {
		t.Errorf("message %q on field %q: want the API's reason on a field", p.View.Message, p.View.MessageField)
	}
	eq(t, "focus", p.Focus, p.View.MessageField)
	eq(t, "confirm offered for what cannot be delivered", p.View.Confirm.Visible, false)
}

// A Dutch postcode the register lacks (the samples hold Weesp only) is blocking advice: the
// customer may confirm the address as typed, and it is handed over flagged for the shop.
func nlUnknownPostcodeConfirmed(t *testing.T, s *Samples, newCore NewCore) {
	pcs := map[string]bool{}
	for _, a := range s.Rows[adreswijzer.NL] {
		pcs[a.Postcode] = true
	}
	if pcs["1012LG"] {
		t.Fatal("the NL sample holds 1012 LG: pick a postcode it lacks")
	}
	p := newNL(t, s, newCore, "nl")
	p.Type("postcode", "1012LG")
	p.Type("number", "1")
	p.Settle()
	eq(t, "street shown", p.Field("street").Visible && !p.Field("street").ReadOnly, true)
	p.Type("street", "Damrak")
	p.Type("city", "Amsterdam")
	p.Blur()
	p.Submit()
	p.Settle()
	v := p.Calls("/v1/validate")
	if len(v) != 1 || v[0].Body["customerConfirmed"] != nil {
		t.Fatalf("validate calls %+v, want one without customerConfirmed", v)
	}
	eq(t, "proceeds", p.Proceeds, 0)
	eq(t, "message field", p.View.MessageField, "postcode")
	eq(t, "message kind", p.View.MessageKind, "error")
	eq(t, "confirm offered", p.View.Confirm.Visible, true)
	eq(t, "focus", p.Focus, "confirm")

	// Submitting again without the confirmation asks nothing new.
	p.Submit()
	eq(t, "validate calls", len(p.Calls("/v1/validate")), 1)
	eq(t, "proceeds", p.Proceeds, 0)

	p.Confirm(true)
	p.SubmitAndWait()
	v = p.Calls("/v1/validate")
	if len(v) != 2 || v[1].Body["customerConfirmed"] != true {
		t.Fatalf("validate calls %+v, want a second with customerConfirmed", v)
	}
	sameSession(t, p.Requests)
	eq(t, "proceeds", p.Proceeds, 1)
	c := p.LastCommit()
	eq(t, "address1", c.Address.Address1, "Damrak 1")
	eq(t, "zip", c.Address.Zip, "1012 LG")
	eq(t, "city", c.Address.City, "Amsterdam")
	eq(t, "unverified", c.Unverified, true)
	eq(t, "confirmed", c.Confirmed, true)
}

func submitBeforeLookup(t *testing.T, s *Samples, newCore NewCore) {
	n := s.NLSingle(t, false)
	a := n.Rows[0]
	number := strconv.Itoa(n.Number)

	// Enter right after the number: the lookup goes out at once, and the validate carries the
	// street it found.
	p := newNL(t, s, newCore, "nl")
	p.Type("postcode", n.Postcode)
	p.Fill("number", number)
	p.Submit()
	p.Settle()
	eq(t, "lookups", len(p.Calls("/v1/nl/lookup")), 1)
	call := oneValidate(t, p)
	eq(t, "validated address1", call.Body["address1"], any(RegisterAddress1(a, adreswijzer.LangNL)))
	c := p.LastCommit()
	eq(t, "status", c.Status, "valid")
	eq(t, "address1", c.Address.Address1, RegisterAddress1(a, adreswijzer.LangNL))
	eq(t, "proceeds", p.Proceeds, 1)
	sameSession(t, p.Requests)

	// The service hangs: 1.5 s after the submit a bare number is not an address. The street
	// and city are shown, required, and asked for; the order waits for them, and then goes
	// as typed, flagged unverified.
	p = newNL(t, s, newCore, "nl")
	p.Latency = func(Request) int { return 5000 }
	p.Type("postcode", n.Postcode)
	p.Fill("number", number)
	eq(t, "street shown", p.Field("street").Visible, false)
	p.Submit()
	p.Advance(1499)
	eq(t, "proceeds before the budget is spent", p.Proceeds, 0)
	p.Advance(1)
	eq(t, "proceeds without a street", p.Proceeds, 0)
	eq(t, "commits without a street", len(p.Commits), 0)
	eq(t, "focus", p.Focus, "street")
	eq(t, "message kind", p.View.MessageKind, "error")
	for _, f := range []string{"street", "city"} {
		eq(t, f+" shown", p.Field(f).Visible && !p.Field(f).ReadOnly, true)
		eq(t, f+" required", p.Field(f).Required, true)
	}
	p.Type("street", a.Street.NL)
	p.Submit()
	eq(t, "proceeds without a town", p.Proceeds, 0)
	eq(t, "focus", p.Focus, "city")
	p.Type("city", a.Locality.NL)
	p.Submit()
	p.Advance(1500)
	eq(t, "proceeds with the whole address", p.Proceeds, 1)
	c = p.LastCommit()
	eq(t, "unverified", c.Unverified, true)
	eq(t, "address1", c.Address.Address1, a.Street.NL+" "+number)
	eq(t, "houseNumber", c.Address.HouseNumber, number)
	eq(t, "city", c.Address.City, a.Locality.NL)
	eq(t, "zip", c.Address.Zip, adreswijzer.FormatPostcode(adreswijzer.NL, n.Postcode))

	// The lookup answers, the validate hangs: the whole submit still takes 1.5 s at most, and
	// the register's address from the lookup is handed over.
	p = newNL(t, s, newCore, "nl")
	p.Latency = func(r Request) int {
		if r.Path == "/v1/validate" {
			return 5000
		}
		return 200
	}
	p.Type("postcode", n.Postcode)
	p.Fill("number", number)
	p.Submit()
	p.Advance(1500)
	eq(t, "proceeds after 1.5 s", p.Proceeds, 1)
	c = p.LastCommit()
	eq(t, "unverified", c.Unverified, true)
	eq(t, "address1", c.Address.Address1, RegisterAddress1(a, adreswijzer.LangNL))
}

// BEMostAddresses is the Belgian number with the most addresses (Route de Falize 2,
// Malmedy: 35), boxes and letters, far more than a validate answer's ten suggestions.
func (s *Samples) BEMostAddresses(t testing.TB) Number {
	var best Number
	for _, n := range s.Numbers(adreswijzer.BE) {
		if len(n.Rows) > len(best.Rows) {
			best = n
		}
	}
	if len(best.Rows) <= 10 {
		t.Fatal("the BE sample has no number with more than ten addresses")
	}
	return best
}

func beManyBoxes(t *testing.T, s *Samples, newCore NewCore) {
	n := s.BEManyBoxes(t)
	rows := SortedRows(n)
	start := func(t *testing.T) *Page {
		p := newBE(t, s, newCore, "nl")
		p.Type("postcode", n.Postcode)
		p.Fill("street", n.Street)
		p.Type("number", strconv.Itoa(n.Number))
		p.Settle()
		return p
	}

	// The list holds every box the lookup returned, the last one too.
	p := start(t)
	eq(t, "options", len(p.Options()), len(n.Rows))
	eq(t, "box optional", p.Field("addition").Required, false)
	for _, a := range n.Rows {
		if a.Box != "" && !slices.ContainsFunc(p.Options(), func(o string) bool { return strings.HasSuffix(o, " bus "+adreswijzer.BoxNumber(a.Box)) }) {
			t.Errorf("box %s is not on offer: %q", a.Box, p.Options())
		}
	}
	// A box picked is validated as picked, with the box: the last on offer, which a
	// validate answer's ten suggestions do not hold.
	lastOption := p.Options()[len(rows)-1]
	i := slices.IndexFunc(rows, func(a adreswijzer.Address) bool {
		return a.Box != "" && strings.HasSuffix(lastOption, " bus "+adreswijzer.BoxNumber(a.Box))
	})
	if i < 0 {
		t.Fatalf("last option %q names no box of the register", lastOption)
	}
	last := rows[i]
	p.Choose(len(rows) - 1)
	p.SubmitAndWait()
	v := p.Calls("/v1/validate")
	if len(v) != 1 || v[0].Body["address2"] != "bus "+adreswijzer.BoxNumber(last.Box) {
		t.Fatalf("validate calls %+v, want one with address2 %q", v, "bus "+adreswijzer.BoxNumber(last.Box))
	}
	c := p.LastCommit()
	if c.Address.Address2 == nil || *c.Address.Address2 != "bus "+adreswijzer.BoxNumber(last.Box) {
		t.Errorf("address2 = %v, want %q", c.Address.Address2, "bus "+adreswijzer.BoxNumber(last.Box))
	}
	eq(t, "status", c.Status, "valid")
	eq(t, "proceeds", p.Proceeds, 1)

	// The number without a box, picked or left so, is the register's address without a box:
	// handed over as it is whatever the worker's verdict, never a second list.
	for _, pick := range []bool{true, false} {
		p := start(t)
		if pick {
			p.Choose(0)
		}
		p.SubmitAndWait()
		eq(t, "validate calls", len(p.Calls("/v1/validate")), 1)
		eq(t, "proceeds", p.Proceeds, 1)
		c := p.LastCommit()
		eq(t, "address1", c.Address.Address1, RegisterAddress1(rows[0], adreswijzer.LangNL))
		eq(t, "address2", c.Address.Address2 == nil, true)
		eq(t, "status", c.Status, "valid")
		eq(t, "unverified", c.Unverified, false)
	}

	// Typed by hand without the box: the verdict is ambiguous and its suggestions stop at
	// ten; the bare number is an address of its own, so it is taken without another call.
	p = newBE(t, s, newCore, "nl")
	p.Manual()
	p.Type("postcode", n.Postcode)
	p.Fill("street", n.Street)
	p.Type("number", strconv.Itoa(n.Number))
	p.Fill("city", rows[0].Locality.NL)
	p.SubmitAndWait()
	eq(t, "validate calls", len(p.Calls("/v1/validate")), 1)
	eq(t, "lookups", len(p.Calls("/v1/be/lookup")), 1)
	eq(t, "proceeds", p.Proceeds, 1)
	c = p.LastCommit()
	eq(t, "address1", c.Address.Address1, RegisterAddress1(rows[0], adreswijzer.LangNL))
	eq(t, "address2", c.Address.Address2 == nil, true)
	sameSession(t, p.Requests)

	// A building of boxes only, typed by hand without the box: every candidate of the
	// ambiguous answer is at the typed number, so the lookup's list is offered, every box of
	// it, not the answer's ten.
	boxes := s.BEBoxesOnly(t)
	p = newBE(t, s, newCore, "nl")
	p.Manual()
	p.Type("postcode", boxes.Postcode)
	p.Fill("street", boxes.Street)
	p.Type("number", strconv.Itoa(boxes.Number))
	p.Fill("city", boxes.Rows[0].Locality.NL)
	p.SubmitAndWait()
	v = p.Calls("/v1/validate")
	if len(v) != 1 || v[0].Validated(t).Status != adreswijzer.VerdictAmbiguous {
		t.Fatalf("validate calls %+v, want one answered ambiguous", v)
	}
	eq(t, "lookups", len(p.Calls("/v1/be/lookup")), 1)
	eq(t, "options", len(p.Options()), len(boxes.Rows))
	eq(t, "list field", p.View.List.Field, "addition")
	eq(t, "focus", p.Focus, "addition")
	eq(t, "proceeds", p.Proceeds, 0)
	p.Choose(len(boxes.Rows) - 1)
	p.SubmitAndWait()
	eq(t, "proceeds", p.Proceeds, 1)
	v = p.Calls("/v1/validate")
	c = p.LastCommit()
	eq(t, "status", c.Status, PickedStatus(v[len(v)-1].Validated(t)))
	eq(t, "unverified", c.Unverified, false)
	whole(t, c.Address)
	sameSession(t, p.Requests)

	// Route de Falize 2: all 35, letters and boxes.
	most := s.BEMostAddresses(t)
	p = newBE(t, s, newCore, "fr")
	p.Type("postcode", most.Postcode)
	p.Fill("street", most.Street)
	p.Type("number", strconv.Itoa(most.Number))
	p.Settle()
	eq(t, "options at "+most.Street, len(p.Options()), len(most.Rows))
	mrows := SortedRows(most)
	p.Choose(len(mrows) - 1)
	p.SubmitAndWait()
	eq(t, "proceeds", p.Proceeds, 1)
	eq(t, "status", p.LastCommit().Status, "valid")
}

func nlPrefill(t *testing.T, s *Samples, newCore NewCore) {
	n := s.NLSingle(t, false)
	a := n.Rows[0]
	number := strconv.Itoa(n.Number)

	// Street line and postcode typed, the focus left in the postcode.
	p := newNL(t, s, newCore, "nl")
	p.Prefill(map[string]string{"address1": a.Street.NL + " " + number, "zip": strings.ToLower(n.Postcode)}, "zip")
	eq(t, "postcode", p.Field("postcode").Value, strings.ToLower(n.Postcode))
	eq(t, "street", p.Field("street").Value, a.Street.NL)
	eq(t, "number", p.Field("number").Value, number)
	eq(t, "focus", p.Focus, "postcode")
	p.Settle()
	eq(t, "lookups", len(p.Calls("/v1/nl/lookup")), 1)
	p.SubmitAndWait()
	eq(t, "address1", p.LastCommit().Address.Address1, RegisterAddress1(a, adreswijzer.LangNL))
	eq(t, "proceeds", p.Proceeds, 1)

	// Still typing the street line: the number goes on in the number field.
	p = newNL(t, s, newCore, "nl")
	p.Prefill(map[string]string{"zip": n.Postcode, "city": a.Locality.NL, "address1": a.Street.NL + " " + number}, "address1")
	eq(t, "focus", p.Focus, "number")
	eq(t, "postcode printed, as after a blur", p.Field("postcode").Value, adreswijzer.FormatPostcode(adreswijzer.NL, n.Postcode))
	eq(t, "city", p.Field("city").Value, a.Locality.NL)

	// A line without a number yet stays in the street; an addition in address2 is kept.
	p = newNL(t, s, newCore, "nl")
	p.Prefill(map[string]string{"address1": a.Street.NL, "address2": "2"}, "address1")
	eq(t, "focus", p.Focus, "street")
	eq(t, "street", p.Field("street").Value, a.Street.NL)
	eq(t, "addition", p.Field("addition").Value, "2")
	eq(t, "street visible", p.Field("street").Visible, true)
	eq(t, "lookups", len(p.Requests), 0)
}

// typedByHand types a whole address in manual entry and submits it.
func typedByHand(t *testing.T, s *Samples, newCore NewCore, postcode, number, addition, street, city string) *Page {
	p := newNL(t, s, newCore, "nl")
	p.Manual()
	p.Type("postcode", postcode)
	p.Type("number", number)
	p.Type("addition", addition)
	p.Type("street", street)
	p.Type("city", city)
	p.Blur()
	p.Submit()
	p.Settle()
	return p
}

// Validated reads the validate answer a request got.
// oneValidate is the journey's only validate call; another count fails the test.
func oneValidate(t *testing.T, p *Page) Request {
	t.Helper()
	v := p.Calls("/v1/validate")
	if len(v) != 1 {
		t.Fatalf("validate calls = %d, want 1", len(v))
	}
	return v[0]
}

// answerCandidatesOffered checks that the form offers the validate answer's own candidates,
// in the open list of the addition field, without a lookup, a correction or a handover.
func answerCandidatesOffered(t *testing.T, p *Page, a adreswijzer.ValidateResponse) {
	t.Helper()
	eq(t, "lookups", len(p.Calls("/v1/nl/lookup")), 0)
	eq(t, "proceeds", p.Proceeds, 0)
	eq(t, "commits", len(p.Commits), 0)
	eq(t, "correction offered", p.View.Correction.Visible, false)
	if p.View.List == nil || p.View.List.Field != "addition" || !p.View.List.Open || len(p.Options()) != len(a.Suggestions) {
		t.Fatalf("list = %+v, want the answer's %d candidates, open", p.View.List, len(a.Suggestions))
	}
	eq(t, "list label", p.View.List.Label, "Adres")
}

func (r Request) Validated(tb testing.TB) adreswijzer.ValidateResponse {
	tb.Helper()
	var a adreswijzer.ValidateResponse
	if err := json.Unmarshal([]byte(r.Answer), &a); err != nil {
		tb.Fatalf("validate answer %s: %v", r.Answer, err)
	}
	return a
}

// CandidateParts are the parts of a candidate an option must show for the customer to see
// the whole address: street and number, addition, postcode and town.
func CandidateParts(c adreswijzer.NormalizedAddress) []string {
	parts := []string{c.Address1, c.Zip, c.City}
	if c.Address2 != nil && *c.Address2 != "" {
		parts = append(parts, *c.Address2)
	}
	return parts
}

// WithAddition returns the index of the candidate whose address2 is the addition typed,
// -1 when none is.
func WithAddition(cands []adreswijzer.NormalizedAddress, addition string) int {
	return slices.IndexFunc(cands, func(c adreswijzer.NormalizedAddress) bool {
		return c.Address2 != nil && strings.EqualFold(*c.Address2, addition)
	})
}

func nlAmbiguousCandidates(t *testing.T, s *Samples, newCore NewCore) {
	// Typed by hand: 1381 CS / 16 / bov / Achtergracht / Weesp. The register reads it two
	// ways: Achtergracht 16 at another postcode, and Hugo de Grootlaan 16 bov at 1381 CS.
	const addition = "bov"
	typed := func(t *testing.T) (*Page, adreswijzer.ValidateResponse) {
		t.Helper()
		p := typedByHand(t, s, newCore, "1381 CS", "16", addition, "Achtergracht", "Weesp")
		call := oneValidate(t, p)
		a := call.Validated(t)
		elsewhere := slices.ContainsFunc(a.Suggestions, func(c adreswijzer.NormalizedAddress) bool { return c.Zip != "1381 CS" })
		if a.Status != adreswijzer.VerdictAmbiguous || WithAddition(a.Suggestions, addition) < 0 || !elsewhere {
			t.Fatalf("the register answered %s: the journey needs an ambiguity with the typed addition among its candidates, and one at another postcode", call.Answer)
		}
		return p, a
	}
	p, a := typed(t)
	// A candidate at another postcode: the answer's own candidates are offered, not the
	// lookup's list of the typed number, which would drop it.
	answerCandidatesOffered(t, p, a)
	eq(t, "focus", p.Focus, "addition")
	eq(t, "message kind", p.View.MessageKind, "warning")
	if p.View.Message == "" {
		t.Error("the ambiguity is not announced")
	}
	// Every candidate whole; one without the typed addition says so.
	for i, c := range a.Suggestions {
		o := p.Options()[i]
		for _, part := range CandidateParts(c) {
			if !strings.Contains(o, part) {
				t.Errorf("option %q lacks %q of the candidate %+v", o, part, c)
			}
		}
		if c.Address2 == nil && !strings.Contains(o, addition) {
			t.Errorf("option %q drops the typed addition %s without saying so", o, addition)
		}
	}
	// Keeping what was typed is offered beside them.
	eq(t, "confirm offered", p.View.Confirm.Visible, true)

	// A second submit without a choice asks again and calls nothing.
	p.Submit()
	eq(t, "validate calls", len(p.Calls("/v1/validate")), 1)
	eq(t, "proceeds", p.Proceeds, 0)
	eq(t, "message field", p.View.MessageField, "addition")
	eq(t, "focus", p.Focus, "addition")

	// The candidate with the typed addition, chosen with the keyboard, is announced and
	// written into the fields; the submit validates it as picked and hands it over whole.
	want := WithAddition(a.Suggestions, addition)
	c := a.Suggestions[want]
	for range want + 1 {
		p.Key("ArrowDown")
	}
	eq(t, "active", p.View.List.Active, want)
	if !p.Key("Enter") {
		t.Fatal("Enter on an active option was not taken")
	}
	for _, part := range CandidateParts(c) {
		if !strings.Contains(p.View.Message, part) {
			t.Errorf("message %q does not announce %q of the choice", p.View.Message, part)
		}
	}
	eq(t, "message kind", p.View.MessageKind, "info")
	eq(t, "postcode field", p.Field("postcode").Value, c.Zip)
	eq(t, "city field", p.Field("city").Value, c.City)
	eq(t, "addition field", p.Field("addition").Value, *c.Address2)
	if got := p.Field("street").Value + " " + p.Field("number").Value; got != c.Address1 {
		t.Errorf("street and number fields = %q, want %q", got, c.Address1)
	}
	eq(t, "confirm offered after the choice", p.View.Confirm.Visible, false)
	eq(t, "commits before the submit", len(p.Commits), 0)
	p.SubmitAndWait()
	v := p.Calls("/v1/validate")
	if len(v) != 2 {
		t.Fatalf("validate calls = %d, want the typed address and the one picked", len(v))
	}
	eq(t, "proceeds", p.Proceeds, 1)
	got := p.LastCommit()
	eq(t, "status", got.Status, PickedStatus(v[1].Validated(t)))
	eq(t, "unverified", got.Unverified, false)
	eq(t, "confirmed", got.Confirmed, false)
	eq(t, "address1", got.Address.Address1, c.Address1)
	eq(t, "address2", got.Address.Address2 != nil && *got.Address.Address2 == *c.Address2, true)
	eq(t, "zip", got.Address.Zip, c.Zip)
	eq(t, "city", got.Address.City, c.City)
	eq(t, "split addition", got.Address.HouseNumberAddition, *c.Address2)
	whole(t, got.Address)

	// Keeping what was typed: confirmed, validated again with customerConfirmed in the same
	// session, and handed over as typed, addition and all, for the shop to check.
	p, _ = typed(t)
	p.Confirm(true)
	p.SubmitAndWait()
	v = p.Calls("/v1/validate")
	if len(v) != 2 || v[1].Body["customerConfirmed"] != true {
		t.Fatalf("validate calls %+v, want a second with customerConfirmed", v)
	}
	sameSession(t, p.Requests)
	eq(t, "proceeds", p.Proceeds, 1)
	got = p.LastCommit()
	eq(t, "address1", got.Address.Address1, "Achtergracht 16")
	if got.Address.Address2 == nil || *got.Address.Address2 != addition {
		t.Errorf("kept address2 = %v, want %s", got.Address.Address2, addition)
	}
	eq(t, "zip", got.Address.Zip, "1381 CS")
	eq(t, "city", got.Address.City, "Weesp")
	eq(t, "status", got.Status, string(v[1].Validated(t).Status))
	eq(t, "unverified", got.Unverified, true)
	eq(t, "confirmed", got.Confirmed, true)
	whole(t, got.Address)

	// Editing withdraws the candidates and the confirmation.
	p, _ = typed(t)
	p.Fill("street", "Hugo de Grootlaan")
	eq(t, "list after an edit", len(p.Options()), 0)
	eq(t, "confirm after an edit", p.View.Confirm.Visible, false)
}

// UnknownAddition is an addition none of the number's addresses has, in any notation.
func UnknownAddition(n Number) string {
	for _, x := range []string{"zz", "zy", "yz", "qq"} {
		if !slices.ContainsFunc(n.Rows, func(a adreswijzer.Address) bool {
			return adreswijzer.LooseExtensionOf(a.HouseNumberSuffix, a.Unit()) == adreswijzer.LooseExtensionOf(x)
		}) {
			return x
		}
	}
	panic("every test addition exists at " + key(n))
}

// Bare reports whether a candidate has neither a letter nor an addition.
func Bare(c adreswijzer.NormalizedAddress) bool {
	return deref(c.Address2) == "" && adreswijzer.ParseAddressLine(c.CountryCode, c.Address1).Number.Suffix == ""
}

// InvalidWithCandidates reports whether a validate answer is invalid for an addition or
// letter the number lacks, carrying the number's addresses as candidates (at least two,
// every one at the postcode and number).
func InvalidWithCandidates(a adreswijzer.ValidateResponse, n Number) bool {
	unit := slices.ContainsFunc(a.Issues, func(is adreswijzer.Issue) bool {
		return is.Code == adreswijzer.IssueUnitNotFound || is.Code == adreswijzer.IssueSuffixNotFound
	})
	there := !slices.ContainsFunc(a.Suggestions, func(c adreswijzer.NormalizedAddress) bool {
		line := adreswijzer.ParseAddressLine(adreswijzer.NL, c.Address1)
		return c.Zip != adreswijzer.FormatPostcode(adreswijzer.NL, n.Postcode) || line.Number.Number != n.Number
	})
	return a.Status == adreswijzer.VerdictInvalid && unit && there && len(a.Suggestions) >= 2
}

func nlInvalidCandidates(t *testing.T, s *Samples, newCore NewCore) {
	// Typed by hand: a number whose every address has a letter or toevoeging, with an
	// addition none has. The register answers invalid, with the number's addresses as
	// candidates.
	n := s.NLAdditionRequired(t)
	rows := SortedRows(n)
	addition := UnknownAddition(n)
	typed := func(t *testing.T) (*Page, adreswijzer.ValidateResponse) {
		t.Helper()
		p := typedByHand(t, s, newCore, n.Postcode, strconv.Itoa(n.Number), addition, n.Street, rows[0].Locality.NL)
		call := oneValidate(t, p)
		a := call.Validated(t)
		if !InvalidWithCandidates(a, n) {
			t.Fatalf("the register answered %s: the journey needs an invalid answer for the addition, with the number's addresses as candidates", call.Answer)
		}
		return p, a
	}
	p, a := typed(t)
	answerCandidatesOffered(t, p, a)
	eq(t, "active", p.View.List.Active, -1)
	eq(t, "focus", p.Focus, "addition")
	// The API's reason, on the field it names, with how to choose from the list.
	is := a.Issues[0]
	if !strings.Contains(p.View.Message, is.Message) || !strings.Contains(p.View.Message, "pijltjestoetsen") {
		t.Errorf("message %q: want the API's %q and the keyboard hint", p.View.Message, is.Message)
	}
	eq(t, "message kind", p.View.MessageKind, "warning")
	eq(t, "message field", p.View.MessageField, "addition")
	for i, c := range a.Suggestions {
		o := p.Options()[i]
		for _, part := range CandidateParts(c) {
			if !strings.Contains(o, part) {
				t.Errorf("option %q lacks %q of the candidate %+v", o, part, c)
			}
		}
		// One with a letter or toevoeging shows it in place of the typed one; a bare
		// number says that it has none.
		if Bare(c) && !strings.Contains(o, addition) {
			t.Errorf("option %q drops the typed addition %s without saying so", o, addition)
		}
	}
	// Keeping what was typed stays on offer: the register may lag behind a new toevoeging.
	eq(t, "confirm offered", p.View.Confirm.Visible, true)

	// A second submit without a choice or the confirmation asks again and calls nothing.
	p.Submit()
	eq(t, "validate calls", len(p.Calls("/v1/validate")), 1)
	eq(t, "proceeds", p.Proceeds, 0)
	eq(t, "message field", p.View.MessageField, "addition")
	eq(t, "focus", p.Focus, "addition")
	eq(t, "confirm still offered", p.View.Confirm.Visible, true)

	// The keyboard: down past the end wraps, up goes back, Escape closes, down opens again.
	last := len(a.Suggestions) - 1
	for range len(a.Suggestions) + 1 {
		p.Key("ArrowDown")
	}
	eq(t, "active after wrapping", p.View.List.Active, 0)
	p.Key("ArrowUp")
	eq(t, "active after up", p.View.List.Active, last)
	if !p.Key("Escape") || p.View.List.Open {
		t.Fatalf("Escape did not close the list: %+v", p.View.List)
	}
	p.Key("ArrowDown")
	eq(t, "open again", p.View.List.Open, true)

	// The last candidate, chosen with Enter: announced whole, written into the fields, and
	// handed over verified at the submit.
	for p.View.List.Active != last {
		p.Key("ArrowDown")
	}
	c := a.Suggestions[last]
	if !p.Key("Enter") {
		t.Fatal("Enter on an active option was not taken")
	}
	for _, part := range CandidateParts(c) {
		if !strings.Contains(p.View.Message, part) {
			t.Errorf("message %q does not announce %q of the choice", p.View.Message, part)
		}
	}
	eq(t, "message kind", p.View.MessageKind, "info")
	eq(t, "postcode field", p.Field("postcode").Value, c.Zip)
	eq(t, "city field", p.Field("city").Value, c.City)
	if got := p.Field("street").Value + " " + p.Field("number").Value; got != c.Address1 {
		t.Errorf("street and number fields = %q, want %q", got, c.Address1)
	}
	if c.Address2 != nil {
		eq(t, "addition field", p.Field("addition").Value, *c.Address2)
	}
	eq(t, "list after the choice", len(p.Options()), 0)
	eq(t, "confirm offered after the choice", p.View.Confirm.Visible, false)
	eq(t, "commits before the submit", len(p.Commits), 0)
	p.SubmitAndWait()
	v := p.Calls("/v1/validate")
	if len(v) != 2 {
		t.Fatalf("validate calls = %d, want the typed address and the one picked", len(v))
	}
	sameSession(t, p.Requests)
	eq(t, "proceeds", p.Proceeds, 1)
	got := p.LastCommit()
	eq(t, "status", got.Status, PickedStatus(v[1].Validated(t)))
	eq(t, "unverified", got.Unverified, false)
	eq(t, "confirmed", got.Confirmed, false)
	eq(t, "address1", got.Address.Address1, c.Address1)
	eq(t, "address2", deref(got.Address.Address2), deref(c.Address2))
	eq(t, "zip", got.Address.Zip, c.Zip)
	eq(t, "city", got.Address.City, c.City)
	whole(t, got.Address)

	// Keeping what was typed: confirmed, validated again with customerConfirmed, and handed
	// over as typed, the unknown addition and all, unverified, for the shop to check.
	p, _ = typed(t)
	p.Confirm(true)
	p.SubmitAndWait()
	v = p.Calls("/v1/validate")
	if len(v) != 2 || v[1].Body["customerConfirmed"] != true {
		t.Fatalf("validate calls %+v, want a second with customerConfirmed", v)
	}
	sameSession(t, p.Requests)
	eq(t, "proceeds", p.Proceeds, 1)
	got = p.LastCommit()
	eq(t, "address1", got.Address.Address1, n.Street+" "+strconv.Itoa(n.Number))
	eq(t, "address2", deref(got.Address.Address2), addition)
	eq(t, "status", got.Status, string(v[1].Validated(t).Status))
	eq(t, "unverified", got.Unverified, true)
	eq(t, "confirmed", got.Confirmed, true)
	whole(t, got.Address)

	// Editing (the addition cleared) withdraws the candidates and the confirmation.
	p, _ = typed(t)
	p.Clear("addition")
	eq(t, "list after an edit", len(p.Options()), 0)
	eq(t, "confirm after an edit", p.View.Confirm.Visible, false)
}

// deref is an optional field's text, "" when it is absent.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// PickedStatus is the status a register address the customer picked is handed over with:
// the verdict when it is valid or corrected, and valid otherwise, for that address is what
// the register holds.
func PickedStatus(a adreswijzer.ValidateResponse) string {
	if a.Status == adreswijzer.VerdictValid || a.Status == adreswijzer.VerdictCorrected {
		return string(a.Status)
	}
	return string(adreswijzer.VerdictValid)
}

// whole fails the test when an address handed to the shop lacks its street, number,
// postcode or town: no journey may post one.
func whole(t *testing.T, a Address) {
	t.Helper()
	for what, v := range map[string]string{"street": a.Street, "number": a.HouseNumber, "zip": a.Zip, "city": a.City, "address1": a.Address1} {
		if strings.TrimSpace(v) == "" {
			t.Errorf("the address handed over has no %s: %+v", what, a)
		}
	}
}

func nlStreetInPostcode(t *testing.T, s *Samples, newCore NewCore) {
	const street = "Hugo de Grootlaan"
	var want adreswijzer.Address
	for _, a := range s.Rows[adreswijzer.NL] {
		if a.Street.NL == street && a.HouseNumber == 5 && a.HouseNumberSuffix == "" && a.Addition == "" {
			want = a
		}
	}
	if want.ID == "" {
		t.Fatal("the NL sample has no Hugo de Grootlaan 5")
	}
	p := newNL(t, s, newCore, "nl")
	p.Type("postcode", "Hugo de Gr")
	p.Settle()
	sg := p.Calls("/v1/suggest")
	if len(sg) == 0 || sg[len(sg)-1].Query.Get("q") != "Hugo de Gr" || sg[len(sg)-1].Query.Get("postcode") != "" {
		t.Fatalf("suggest calls %+v, want one for q=Hugo de Gr without a postcode", sg)
	}
	eq(t, "lookups", len(p.Calls("/v1/nl/lookup")), 0)
	if p.View.List == nil || p.View.List.Field != "postcode" || !p.View.List.Open {
		t.Fatalf("list = %+v, want street suggestions open under the postcode", p.View.List)
	}
	eq(t, "postcode is a combobox", p.Field("postcode").Combo, true)
	eq(t, "postcode not marked invalid", p.Field("postcode").Invalid, false)
	if !strings.HasPrefix(p.Options()[0], street) {
		t.Fatalf("first suggestion %q, want %s", p.Options()[0], street)
	}
	p.Key("ArrowDown")
	if !p.Key("Enter") {
		t.Fatal("Enter on a suggestion was not taken")
	}
	eq(t, "street", p.Field("street").Value, street)
	eq(t, "city", p.Field("city").Value, want.Locality.NL)
	eq(t, "street shown", p.Field("street").Visible, true)
	// The street runs through several postcodes: the postcode is asked for next.
	eq(t, "focus", p.Focus, "postcode")
	eq(t, "postcode cleared of the search", p.Field("postcode").Value, "")
	p.Type("postcode", want.Postcode)
	p.Type("number", "5")
	p.Settle()
	eq(t, "lookups", len(p.Calls("/v1/nl/lookup")), 1)
	p.SubmitAndWait()
	c := p.LastCommit()
	eq(t, "address1", c.Address.Address1, RegisterAddress1(want, adreswijzer.LangNL))
	eq(t, "status", c.Status, "valid")
	sameSession(t, p.Requests)

	// A number typed after the street goes to the number field.
	p = newNL(t, s, newCore, "nl")
	p.Type("postcode", "Hugo de Groot 5")
	p.Settle()
	if sg := p.Calls("/v1/suggest"); len(sg) == 0 || sg[len(sg)-1].Query.Get("q") != "Hugo de Groot" {
		t.Fatalf("suggest calls %+v, want q=Hugo de Groot", sg)
	}
	p.Choose(0)
	eq(t, "number", p.Field("number").Value, "5")
	eq(t, "street", p.Field("street").Value, street)
}

func nlManualSuggestAndBack(t *testing.T, s *Samples, newCore NewCore) {
	n := s.NLSingle(t, false)
	a := n.Rows[0]
	p := newNL(t, s, newCore, "nl")
	p.Manual()
	st := []rune(a.Street.NL)
	p.Type("street", string(st[:len(st)-2]))
	p.Settle()
	if p.View.List == nil || p.View.List.Field != "street" || len(p.Options()) == 0 {
		t.Fatalf("list = %+v, want street suggestions in manual entry", p.View.List)
	}
	i := slices.IndexFunc(p.Options(), func(o string) bool { return strings.HasPrefix(o, a.Street.NL+",") })
	if i < 0 {
		t.Fatalf("suggestions %q lack %s", p.Options(), a.Street.NL)
	}
	p.Choose(i)
	eq(t, "street", p.Field("street").Value, a.Street.NL)
	eq(t, "city", p.Field("city").Value, a.Locality.NL)
	eq(t, "lookups in manual entry", len(p.Calls("/v1/nl/lookup")), 0)

	// Back from manual entry: the register looks the address up from postcode and number.
	eq(t, "way back offered", p.View.Manual.Back, true)
	p.Manual()
	eq(t, "back", p.View.Manual.Back, false)
	eq(t, "focus", p.Focus, "postcode")
	p.Type("postcode", n.Postcode)
	p.Type("number", strconv.Itoa(n.Number))
	p.Settle()
	eq(t, "lookups", len(p.Calls("/v1/nl/lookup")), 1)
	eq(t, "street from the register", p.Field("street").ReadOnly, true)
	p.SubmitAndWait()
	eq(t, "address1", p.LastCommit().Address.Address1, RegisterAddress1(a, adreswijzer.LangNL))
	eq(t, "unverified", p.LastCommit().Unverified, false)
}

func failRecovers(t *testing.T, s *Samples, newCore NewCore) {
	n := s.NLSingle(t, false)
	a := n.Rows[0]

	// 429 with Retry-After: 30: no call for 30 s, then the lookup again, and the next submit
	// is validated.
	p := newNL(t, s, newCore, "en")
	down := true
	p.Fault = func(Request) (int, string) {
		if down {
			return 429, ""
		}
		return 0, ""
	}
	p.RetryAfter = 30
	p.Type("postcode", n.Postcode)
	p.Type("number", strconv.Itoa(n.Number))
	p.Settle()
	eq(t, "state", p.View.State, "offline")
	start := len(p.Requests)
	failedAt := p.Requests[start-1].At
	due, ok := p.RetryDue()
	if !ok || due < failedAt+30000 {
		t.Fatalf("retry due at %d (%v), want 30 s after the 429 at %d", due, ok, failedAt)
	}
	p.Advance(due - p.Now - 1)
	eq(t, "calls before Retry-After", len(p.Requests), start)
	down = false
	p.Advance(1)
	p.Settle()
	eq(t, "state after Retry-After", p.View.State, "online")
	eq(t, "lookup again", len(p.Calls("/v1/nl/lookup")), 2)
	eq(t, "street from the register", p.Field("street").Value, a.Street.NL)
	p.SubmitAndWait()
	c := p.LastCommit()
	eq(t, "validate calls", len(p.Calls("/v1/validate")), 1)
	eq(t, "status", c.Status, "valid")
	eq(t, "unverified", c.Unverified, false)

	// 503 without Retry-After, and a hanging API: asked again after 2 s, 4 s, 8 s.
	for _, hang := range []bool{false, true} {
		p := newNL(t, s, newCore, "nl")
		if hang {
			p.Latency = func(Request) int { return 5000 }
		} else {
			p.Fault = func(Request) (int, string) { return 503, "" }
		}
		p.Type("postcode", n.Postcode)
		p.Type("number", strconv.Itoa(n.Number))
		p.Advance(40000)
		l := p.Calls("/v1/nl/lookup")
		if len(l) < 4 {
			t.Fatalf("hang %v: %d lookups in 40 s, want the retries", hang, len(l))
		}
		var gaps []int
		for i := 1; i < 4; i++ {
			gaps = append(gaps, l[i].At-l[i-1].At)
		}
		// Each gap: the failure (at once, or the 1.5 s time-out), the backoff, the debounce.
		failing := 20
		if hang {
			failing = 1500
		}
		for i, backoff := range []int{2000, 4000, 8000} {
			if want := failing + backoff + 150; gaps[i] != want {
				t.Errorf("hang %v: gap %d between lookups %d ms, want %d (%d ms backoff)", hang, i, gaps[i], want, backoff)
			}
		}
		eq(t, "state", p.View.State, "offline")
	}
}

func touchAndCredit(t *testing.T, s *Samples, newCore NewCore) {
	n := s.NLWithAdditions(t)
	for _, touch := range []bool{false, true} {
		p := NewPage(t, newCore, s.API, map[string]any{"country": "NL", "lang": "nl", "touch": touch})
		p.Type("postcode", n.Postcode)
		p.Type("number", strconv.Itoa(n.Number))
		p.Settle()
		keys := strings.Contains(p.View.Message, "pijltjestoetsen")
		eq(t, "arrow keys named on a touch screen "+strconv.FormatBool(touch), keys, !touch)
		if !strings.Contains(p.View.Message, strconv.Itoa(len(n.Rows))) {
			t.Errorf("message %q does not say how many addresses there are", p.View.Message)
		}
	}
	b := s.BEBoxes(t)
	for lang, want := range map[string]string{"nl": "licentie", "fr": "licence", "de": "lizenziert", "en": "licensed"} {
		p := newBE(t, s, newCore, lang)
		p.Type("postcode", b.Postcode)
		p.Fill("street", b.Street)
		p.Type("number", strconv.Itoa(b.Number))
		p.Settle()
		if !strings.Contains(p.View.Attribution, "BeST") || !strings.Contains(p.View.Attribution, want) {
			t.Errorf("%s: credit %q is not in the form's language", lang, p.View.Attribution)
		}
	}
}
