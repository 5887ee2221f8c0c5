package messages

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/internal/golden"
)

var langs = []adreswijzer.Language{adreswijzer.LangNL, adreswijzer.LangFR, adreswijzer.LangDE, adreswijzer.LangEN}

// Real register values used as details. NL: Weesp (BAG extract 0457, 2021-10-15) and the
// three addresses at Het Hoornwerck 4, 6981ED Doesburg (BAG NUM 0221200000330173, …998,
// …999). BE: BeST Haren (1130) and Malmedy (4960).
var (
	weespStreet = "Henriëtte Roland Holsthof" // OPR 0457300000000158
	weespShort  = "H Roland Holsthof"
	hoornwerck  = []string{"4", "4 x", "4 y"}
	// Parochiestraat / Rue de la Paroisse 56, 1130 Haren: boxes b001 to b025 (BeST).
	parochie56 = func() []string {
		var out []string
		for i := 1; i <= 25; i++ {
			out = append(out, fmt.Sprintf("b%03d", i))
		}
		return out
	}()
	// Rue Saint-Quirin 2, 4960 Malmedy: boxes 0001 to 0003 (BeST).
	saintQuirin2 = []string{"0001", "0002", "0003"}
)

type issueCase struct {
	name string
	code adreswijzer.IssueCode
	d    Details
}

// issueCases are every code with each wording its details can select.
func issueCases() []issueCase {
	toev, bus := adreswijzer.UnitToevoeging, adreswijzer.UnitBus
	var cs []issueCase
	add := func(name string, code adreswijzer.IssueCode, d Details) {
		cs = append(cs, issueCase{name, code, d})
	}
	add("zip NL", adreswijzer.IssueFormatInvalid, Details{Field: adreswijzer.FieldZip, Country: adreswijzer.NL})
	add("zip BE", adreswijzer.IssueFormatInvalid, Details{Field: adreswijzer.FieldZip, Country: adreswijzer.BE})
	add("zip", adreswijzer.IssueFormatInvalid, Details{Field: adreswijzer.FieldZip})
	add("address1", adreswijzer.IssueFormatInvalid, Details{Field: adreswijzer.FieldAddress1})
	add("address2 NL", adreswijzer.IssueFormatInvalid, Details{Field: adreswijzer.FieldAddress2, Country: adreswijzer.NL})
	add("address2 BE", adreswijzer.IssueFormatInvalid, Details{Field: adreswijzer.FieldAddress2, Country: adreswijzer.BE})
	add("city", adreswijzer.IssueFormatInvalid, Details{Field: adreswijzer.FieldCity})
	add("countryCode", adreswijzer.IssueFormatInvalid, Details{Field: adreswijzer.FieldCountryCode})
	add("no field", adreswijzer.IssueFormatInvalid, Details{})
	add("", adreswijzer.IssueMissingHouseNumber, Details{})
	add("", adreswijzer.IssuePostcodeNotFound, Details{})
	add("NL", adreswijzer.IssueHouseNumberNotFound, Details{Country: adreswijzer.NL})
	add("BE", adreswijzer.IssueHouseNumberNotFound, Details{Country: adreswijzer.BE})
	add("options", adreswijzer.IssueSuffixNotFound, Details{Country: adreswijzer.NL, Options: hoornwerck})
	add("no options", adreswijzer.IssueSuffixNotFound, Details{})
	add("toevoeging options", adreswijzer.IssueUnitRequired, Details{UnitType: toev, Options: hoornwerck})
	add("toevoeging", adreswijzer.IssueUnitRequired, Details{Country: adreswijzer.NL})
	add("bus 3 options", adreswijzer.IssueUnitRequired, Details{UnitType: bus, Options: saintQuirin2})
	add("bus 25 options", adreswijzer.IssueUnitRequired, Details{UnitType: bus, Options: parochie56})
	add("bus", adreswijzer.IssueUnitRequired, Details{Country: adreswijzer.BE})
	add("toevoeging one option", adreswijzer.IssueUnitNotFound, Details{UnitType: toev, Options: hoornwerck[1:2]})
	add("toevoeging", adreswijzer.IssueUnitNotFound, Details{UnitType: toev})
	add("bus options", adreswijzer.IssueUnitNotFound, Details{UnitType: bus, Options: saintQuirin2})
	add("register street", adreswijzer.IssueStreetMismatch, Details{Street: weespStreet})
	add("register street at the postcode", adreswijzer.IssueStreetMismatch, Details{Street: "Hugo de Grootlaan", AtPostcode: true, Country: adreswijzer.NL})
	add("no street", adreswijzer.IssueStreetMismatch, Details{})
	add("register city", adreswijzer.IssueCityMismatch, Details{City: "Weesp"})
	add("no city", adreswijzer.IssueCityMismatch, Details{})
	add("", adreswijzer.IssueAddressPlanned, Details{})
	// Each carrier field with a carrier and limit it really has (see worker/carrier).
	tooLong := map[CarrierField]Details{
		CarrierStreet:             {Carrier: adreswijzer.PostNL, MaxLength: 35},
		CarrierStreetLine:         {Carrier: adreswijzer.DHL, MaxLength: 35},
		CarrierHouseNumber:        {Carrier: adreswijzer.PostNL, MaxLength: 5},
		CarrierAddition:           {Carrier: adreswijzer.PostNL, MaxLength: 7},
		CarrierNumberWithAddition: {Carrier: adreswijzer.Sendcloud, MaxLength: 8},
		CarrierBox:                {Carrier: adreswijzer.Bpost, MaxLength: 8},
		CarrierPostcode:           {Carrier: adreswijzer.Bpost, MaxLength: 8},
		CarrierCity:               {Carrier: adreswijzer.Sendcloud, MaxLength: 30},
	}
	for _, f := range CarrierFields {
		d, ok := tooLong[f]
		if !ok {
			panic("no CARRIER_LINE_TOO_LONG case for " + f)
		}
		d.CarrierField = f
		add(string(f), adreswijzer.IssueCarrierLineTooLong, d)
	}
	add("street with short form", adreswijzer.IssueCarrierLineTooLong, Details{
		Carrier: adreswijzer.PostNL, CarrierField: CarrierStreet, MaxLength: 35,
		Shorter: "Burg Flugi v Aspermontln", // BAG OPR 0221300000311266, Doesburg
	})
	add("no carrier, no limit", adreswijzer.IssueCarrierLineTooLong, Details{CarrierField: CarrierCity})
	add("", adreswijzer.IssuePoBoxNotAllowed, Details{})
	add("", adreswijzer.IssueUnsupportedCountry, Details{})
	add("", adreswijzer.IssueCountryAmbiguous, Details{})
	add("", adreswijzer.IssueUnverifiedConfirmed, Details{})
	return cs
}

func TestIssueEveryCodeAndLanguage(t *testing.T) {
	seen := map[adreswijzer.IssueCode]bool{}
	for _, c := range issueCases() {
		seen[c.code] = true
		texts := map[string]adreswijzer.Language{}
		for _, lang := range langs {
			got := Issue(lang, c.code, c.d)
			if got == "" {
				t.Errorf("%s %s %s: empty message", c.code, c.name, lang)
			}
			if strings.ContainsAny(got, "{}") {
				t.Errorf("%s %s %s: placeholder left in %q", c.code, c.name, lang, got)
			}
			if !startsUpper(got) || !strings.HasSuffix(got, ".") {
				t.Errorf("%s %s %s: %q does not start with a capital and end with a period", c.code, c.name, lang, got)
			}
			if other, dup := texts[got]; dup {
				t.Errorf("%s %s: %s and %s read the same: %q", c.code, c.name, other, lang, got)
			}
			texts[got] = lang
		}
	}
	for _, code := range adreswijzer.IssueCodes {
		if !seen[code] {
			t.Errorf("issue code %s has no test case", code)
		}
	}
}

func TestIssueFillsDetails(t *testing.T) {
	tests := []struct {
		lang adreswijzer.Language
		code adreswijzer.IssueCode
		d    Details
		want string
	}{
		{adreswijzer.LangNL, adreswijzer.IssueStreetMismatch, Details{Street: weespStreet},
			"De straat wijkt af. Volgens het adresregister is het Henriëtte Roland Holsthof."},
		// Hugo de Grootlaan 16 bov is at 1381 CS, Achtergracht 16 at 1381 BN (Weesp).
		{adreswijzer.LangEN, adreswijzer.IssueStreetMismatch, Details{Street: "Hugo de Grootlaan", AtPostcode: true, Country: adreswijzer.NL},
			"The street is different. According to the address register, the street at this postcode and house number is Hugo de Grootlaan."},
		{adreswijzer.LangFR, adreswijzer.IssueCityMismatch, Details{City: "Bruxelles (Haren)"},
			"La localité ne correspond pas au code postal. Le registre des adresses indique Bruxelles (Haren)."},
		{adreswijzer.LangNL, adreswijzer.IssueUnitRequired, Details{UnitType: adreswijzer.UnitToevoeging, Options: hoornwerck},
			"Bij dit huisnummer horen meerdere adressen. Kies uit 4, 4 x of 4 y."},
		{adreswijzer.LangDE, adreswijzer.IssueUnitRequired, Details{UnitType: adreswijzer.UnitBus, Options: saintQuirin2},
			"Dieses Gebäude hat mehrere Briefkästen. Zur Auswahl stehen 0001, 0002 und 0003."},
		{adreswijzer.LangFR, adreswijzer.IssueUnitRequired, Details{UnitType: adreswijzer.UnitBus, Options: parochie56},
			"Ce bâtiment compte plusieurs boîtes aux lettres. Choisissez parmi b001, b002, b003, b004, b005, b006, b007, b008, b009, b010 et 15 autres."},
		{adreswijzer.LangEN, adreswijzer.IssueUnitNotFound, Details{UnitType: adreswijzer.UnitToevoeging, Options: []string{"", "4 x"}},
			"This addition does not exist at this house number. Only 4 x exists."},
		{adreswijzer.LangEN, adreswijzer.IssueCarrierLineTooLong, Details{Carrier: adreswijzer.PostNL, CarrierField: CarrierStreet, MaxLength: 35, Shorter: "Burg Flugi v Aspermontln"},
			"The street name is too long for PostNL (at most 35 characters). Use the short form Burg Flugi v Aspermontln."},
		{adreswijzer.LangNL, adreswijzer.IssueCarrierLineTooLong, Details{Carrier: adreswijzer.Bpost, CarrierField: CarrierBox, MaxLength: 8},
			"Het busnummer is te lang voor bpost (maximaal 8 tekens)."},
		{adreswijzer.LangDE, adreswijzer.IssueCarrierLineTooLong, Details{CarrierField: CarrierCity},
			"Der Ortsname ist für den Versanddienst zu lang."},
		{adreswijzer.LangEN, adreswijzer.IssueFormatInvalid, Details{Field: adreswijzer.FieldZip, Country: adreswijzer.BE},
			"This postcode is not valid. A Belgian postcode has four digits, such as 1000."},
		{adreswijzer.LangFR, adreswijzer.IssueHouseNumberNotFound, Details{Country: adreswijzer.BE},
			"Ce numéro est introuvable dans cette rue. Une nouvelle construction peut ne pas encore y figurer."},
		// An unknown language falls back to Dutch rather than to nothing.
		{"xx", adreswijzer.IssueMissingHouseNumber, Details{}, "Het huisnummer ontbreekt."},
	}
	for _, tt := range tests {
		if got := Issue(tt.lang, tt.code, tt.d); got != tt.want {
			t.Errorf("Issue(%s, %s)\n got %q\nwant %q", tt.lang, tt.code, got, tt.want)
		}
	}
}

func TestNewIssue(t *testing.T) {
	tests := []struct {
		code     adreswijzer.IssueCode
		field    adreswijzer.Field
		d        Details
		severity adreswijzer.Severity
		unit     adreswijzer.UnitType
	}{
		{adreswijzer.IssuePostcodeNotFound, adreswijzer.FieldZip, Details{Country: adreswijzer.NL}, adreswijzer.SeverityError, ""},
		{adreswijzer.IssueUnitRequired, adreswijzer.FieldAddress2, Details{UnitType: adreswijzer.UnitBus, Options: saintQuirin2}, adreswijzer.SeverityWarning, adreswijzer.UnitBus},
		{adreswijzer.IssueAddressPlanned, "", Details{}, adreswijzer.SeverityInfo, ""},
		{adreswijzer.IssueCarrierLineTooLong, adreswijzer.FieldAddress1, Details{Carrier: adreswijzer.DHL, CarrierField: CarrierStreetLine, MaxLength: 35}, adreswijzer.SeverityWarning, ""},
	}
	for _, tt := range tests {
		is := NewIssue(adreswijzer.LangFR, tt.code, tt.field, tt.d)
		if is.Code != tt.code || is.Severity != tt.severity || is.Field != tt.field {
			t.Errorf("%s: got code %s severity %s field %q", tt.code, is.Code, is.Severity, is.Field)
		}
		wantMsg := Issue(adreswijzer.LangFR, tt.code, Details{Field: tt.field, UnitType: tt.d.UnitType, Country: tt.d.Country,
			Options: tt.d.Options, Carrier: tt.d.Carrier, CarrierField: tt.d.CarrierField, MaxLength: tt.d.MaxLength})
		if is.Message != wantMsg {
			t.Errorf("%s: message %q, want %q", tt.code, is.Message, wantMsg)
		}
		switch {
		case tt.unit == "" && is.UnitType != nil:
			t.Errorf("%s: unitType %q, want none", tt.code, *is.UnitType)
		case tt.unit != "" && (is.UnitType == nil || *is.UnitType != tt.unit):
			t.Errorf("%s: unitType %v, want %q", tt.code, is.UnitType, tt.unit)
		}
	}
	// The field reaches the message: a postcode format error names the postcode format.
	is := NewIssue(adreswijzer.LangNL, adreswijzer.IssueFormatInvalid, adreswijzer.FieldZip, Details{Country: adreswijzer.NL})
	if want := "Deze postcode is ongeldig. Een Nederlandse postcode heeft vier cijfers en twee letters, zoals 1234 AB."; is.Message != want {
		t.Errorf("FORMAT_INVALID zip: %q, want %q", is.Message, want)
	}
}

func TestNextStepIsOneSentence(t *testing.T) {
	for _, s := range Situations() {
		texts := map[string]adreswijzer.Language{}
		for _, lang := range langs {
			got := NextStep(lang, s)
			checkOneSentence(t, fmt.Sprintf("NextStep(%s, %s)", lang, s), got)
			if other, dup := texts[got]; dup && s != Blocking("") && s != Blocking(adreswijzer.FieldAddress) {
				t.Errorf("NextStep %s: %s and %s read the same: %q", s, other, lang, got)
			}
			texts[got] = lang
		}
	}
}

func TestNextStepSituations(t *testing.T) {
	tests := []struct {
		lang adreswijzer.Language
		s    Situation
		want string
	}{
		{adreswijzer.LangNL, Blocking(adreswijzer.FieldZip), "Controleer de postcode."},
		{adreswijzer.LangFR, Blocking(adreswijzer.FieldAddress2), "Vérifiez le complément ou le numéro de boîte."},
		{adreswijzer.LangDE, ServiceUnavailable, "Übernehmen Sie die Adresse wie eingegeben und prüfen Sie sie später erneut."},
		{adreswijzer.LangEN, Ambiguous, "Choose the right address from the suggestions."},
		// A field no form has asks to check the whole address.
		{adreswijzer.LangEN, Blocking("shoeSize"), "Check the address."},
		{adreswijzer.LangEN, "noSuchSituation", "Check the address."},
	}
	for _, tt := range tests {
		if got := NextStep(tt.lang, tt.s); got != tt.want {
			t.Errorf("NextStep(%s, %s) = %q, want %q", tt.lang, tt.s, got, tt.want)
		}
	}
}

func TestError(t *testing.T) {
	for _, code := range ErrorCodes {
		for _, lang := range langs {
			msg, next := Error(lang, code)
			name := fmt.Sprintf("Error(%s, %s)", lang, code)
			if msg == "" || strings.ContainsAny(msg, "{}") || !strings.HasSuffix(msg, ".") || !startsUpper(msg) {
				t.Errorf("%s: message %q", name, msg)
			}
			checkOneSentence(t, name+" nextStep", next)
		}
	}
	// Failing open is the one rule every caller must follow, so both 5xx answers say it.
	for _, code := range []adreswijzer.ErrorCode{adreswijzer.ErrInternal, adreswijzer.ErrServiceUnavailable} {
		if _, next := Error(adreswijzer.LangEN, code); next != NextStep(adreswijzer.LangEN, ServiceUnavailable) {
			t.Errorf("%s nextStep %q does not tell the caller to fail open", code, next)
		}
	}
	if msg, _ := Error(adreswijzer.LangFR, adreswijzer.ErrPayloadTooLarge); msg != "La requête dépasse 64 Ko." {
		t.Errorf("PAYLOAD_TOO_LARGE fr: %q", msg)
	}
	unknownMsg, _ := Error(adreswijzer.LangEN, "TEAPOT")
	internalMsg, _ := Error(adreswijzer.LangEN, adreswijzer.ErrInternal)
	if unknownMsg != internalMsg {
		t.Errorf("unknown code: %q, want the INTERNAL_ERROR message %q", unknownMsg, internalMsg)
	}
}

func TestInvalid(t *testing.T) {
	tests := []struct {
		lang  adreswijzer.Language
		param string
		p     Problem
		max   int
		want  string
	}{
		{adreswijzer.LangNL, "zip", TooLong, adreswijzer.MaxFieldLength, "De parameter zip is te lang (maximaal 200 tekens)."},
		{adreswijzer.LangFR, "postcode", Missing, 0, "Le paramètre postcode est absent."},
		{adreswijzer.LangDE, "number", Malformed, 0, "Der Parameter number hat nicht das richtige Format."},
		{adreswijzer.LangEN, "sessionId", TooLong, adreswijzer.MaxSessionIDLength, "The parameter sessionId is too long (at most 64 characters)."},
	}
	for _, tt := range tests {
		if got := Invalid(tt.lang, tt.param, tt.p, tt.max); got != tt.want {
			t.Errorf("Invalid(%s, %s, %d) = %q, want %q", tt.lang, tt.param, tt.p, got, tt.want)
		}
	}
	for _, p := range Problems {
		for _, lang := range langs {
			if got := Invalid(lang, "address1", p, 200); !strings.Contains(got, "address1") || strings.ContainsAny(got, "{}") {
				t.Errorf("Invalid(%s, %d) = %q", lang, p, got)
			}
		}
	}
}

func TestCarrierName(t *testing.T) {
	want := map[adreswijzer.Carrier]string{
		adreswijzer.PostNL: "PostNL", adreswijzer.Bpost: "bpost", adreswijzer.DHL: "DHL", adreswijzer.Sendcloud: "Sendcloud",
	}
	for c, name := range want {
		if got := CarrierName(c); got != name {
			t.Errorf("CarrierName(%s) = %q, want %q", c, got, name)
		}
	}
}

// TestGolden writes every text into one file so that a reviewer reads them all in one place.
func TestGolden(t *testing.T) {
	var b bytes.Buffer
	line := func(lang adreswijzer.Language, s string) { fmt.Fprintf(&b, "  %s: %s\n", lang, s) }
	b.WriteString("# Issue messages\n")
	for _, c := range issueCases() {
		fmt.Fprintf(&b, "\n%s", c.code)
		if c.name != "" {
			fmt.Fprintf(&b, " (%s)", c.name)
		}
		b.WriteString("\n")
		for _, lang := range langs {
			line(lang, Issue(lang, c.code, c.d))
		}
	}
	b.WriteString("\n# Next steps\n")
	for _, s := range Situations() {
		fmt.Fprintf(&b, "\n%s\n", s)
		for _, lang := range langs {
			line(lang, NextStep(lang, s))
		}
	}
	b.WriteString("\n# Error bodies (message / nextStep)\n")
	for _, code := range ErrorCodes {
		fmt.Fprintf(&b, "\n%s\n", code)
		for _, lang := range langs {
			msg, next := Error(lang, code)
			line(lang, msg+" / "+next)
		}
	}
	b.WriteString("\n# Parameter errors (422)\n")
	for _, p := range Problems {
		fmt.Fprintf(&b, "\nproblem %d\n", p)
		for _, lang := range langs {
			line(lang, Invalid(lang, "zip", p, adreswijzer.MaxFieldLength))
		}
	}
	golden.Compare(t, "messages.golden", b.Bytes())
}

// checkOneSentence holds a nextStep to the spec: one plain sentence, which here means a
// capital first letter, a single period at the very end and no other sentence break.
func checkOneSentence(t *testing.T, name, s string) {
	t.Helper()
	switch {
	case s == "":
		t.Errorf("%s: empty", name)
	case !startsUpper(s):
		t.Errorf("%s: %q does not start with a capital", name, s)
	case !strings.HasSuffix(s, "."):
		t.Errorf("%s: %q does not end with a period", name, s)
	case strings.ContainsAny(s[:len(s)-1], ".!?;{}"):
		t.Errorf("%s: %q is more than one sentence", name, s)
	}
}

func startsUpper(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsUpper(r)
}

// fill must do what a strings.Replacer of the same pairs does, for the templates' kind of
// placeholder ({name}), on any text and any values, the values holding placeholders too.
func FuzzFill(f *testing.F) {
	f.Add("Parameter {param} is at most {max} characters.", "postcode", "200")
	f.Add("{max}{param}{{param}}{", "{max}", "{param}")
	f.Add("no placeholder {para", "x", "")
	f.Fuzz(func(t *testing.T, template, param, max string) {
		pairs := []string{"{param}", param, "{max}", max}
		if got, want := fill(template, pairs...), strings.NewReplacer(pairs...).Replace(template); got != want {
			t.Errorf("fill(%q, %q) = %q, want %q", template, pairs, got, want)
		}
		if got, want := fill(template, "{max}", max), strings.NewReplacer("{max}", max).Replace(template); got != want {
			t.Errorf("fill(%q, {max}, %q) = %q, want %q", template, max, got, want)
		}
	})
}
