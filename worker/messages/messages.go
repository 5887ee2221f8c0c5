// Package messages holds every sentence the service shows to people, in the four languages a
// caller may ask for (nl, fr, de, en): issue messages, the nextStep of answers, and the
// message and nextStep of error bodies.
//
// All texts live here, and nowhere else, so that a reviewer who speaks the language can read
// them together (testdata/messages.golden lists every one) and so that the worker and the
// gateway, which both write error bodies, can never word the same situation differently.
// Shops show these sentences to their customers as they are, so they are short and plain and
// name the register's values (the register street, the register city), never what the
// customer typed: a message may end up in a log line, and a submitted address must not.
//
// The package imports only the domain package and the standard library's string helpers,
// because the gateway and the WebAssembly form core import it too.
package messages

import (
	"strconv"
	"strings"

	"github.com/adreswijzer/adreswijzer"
)

// CarrierField names what a CARRIER_LINE_TOO_LONG warning is about. Carriers limit single
// fields (PostNL's street), fields taken together (DHL's street with number) or fields
// of their own (bpost's box), so the warning has to say which of these overflowed.
type CarrierField string

const (
	CarrierStreet CarrierField = "street"
	// CarrierStreetLine is the street, house number and addition printed on one line.
	CarrierStreetLine  CarrierField = "streetLine"
	CarrierHouseNumber CarrierField = "houseNumber"
	CarrierAddition    CarrierField = "houseNumberAddition"
	// CarrierNumberWithAddition is the house number and its addition in one carrier field.
	CarrierNumberWithAddition CarrierField = "houseNumberWithAddition"
	CarrierBox                CarrierField = "box"
	CarrierPostcode           CarrierField = "postcode"
	CarrierCity               CarrierField = "city"
)

// CarrierFields lists every CarrierField, for exhaustive tests.
var CarrierFields = []CarrierField{
	CarrierStreet, CarrierStreetLine, CarrierHouseNumber, CarrierAddition,
	CarrierNumberWithAddition, CarrierBox, CarrierPostcode, CarrierCity,
}

// Details fill the parts of a message that depend on the answer. Every field is optional: a
// message whose detail is missing falls back to a wording without it, so a caller that knows
// less still gets a whole sentence.
type Details struct {
	// Country picks the country's wording: the postcode format for FORMAT_INVALID, "at this
	// postcode" (NL) or "in this street" (BE) for HOUSE_NUMBER_NOT_FOUND, and toevoeging or
	// box when UnitType is empty.
	Country adreswijzer.Country
	// Field is the input field the issue is about; NewIssue fills it in.
	Field adreswijzer.Field
	// UnitType says whether the address is told apart by a toevoeging or a box.
	UnitType adreswijzer.UnitType
	// Street is the register street (STREET_MISMATCH).
	Street string
	// AtPostcode says that Street is the street at the typed postcode and number, offered
	// beside another reading of what was typed (the typed street at another postcode):
	// the message then says where the register has it, as "it is {street}" would be
	// untrue of the other reading.
	AtPostcode bool
	// City is the register locality (CITY_MISMATCH).
	City string
	// Options are what exists at the number, written as a customer would choose them: the
	// whole house numbers ("4", "4 x", "4 y") or the box numbers (SUFFIX_NOT_FOUND,
	// UNIT_REQUIRED, UNIT_NOT_FOUND). At most adreswijzer.MaxSuggestions are named.
	Options []string
	// Carrier, CarrierField, MaxLength and Shorter describe a CARRIER_LINE_TOO_LONG warning:
	// which carrier, which of its fields, how many characters it takes, and a shorter form
	// of the street that fits (empty when there is none).
	Carrier      adreswijzer.Carrier
	CarrierField CarrierField
	MaxLength    int
	Shorter      string
}

// Issue returns the message for an issue code in the language. An unknown language gets
// adreswijzer.DefaultLanguage, because a message in the wrong language still helps more
// than none.
func Issue(lang adreswijzer.Language, code adreswijzer.IssueCode, d Details) string {
	t := catalogueFor(lang)
	switch code {
	case adreswijzer.IssueFormatInvalid:
		return formatInvalid(t, d)
	case adreswijzer.IssueMissingHouseNumber:
		return t.missingHouseNumber
	case adreswijzer.IssuePostcodeNotFound:
		return t.postcodeNotFound
	case adreswijzer.IssueHouseNumberNotFound:
		s := t.numberNotFoundAtPostcode
		if d.Country == adreswijzer.BE {
			s = t.numberNotFoundInStreet
		}
		return s + " " + t.newBuildMayBeMissing
	case adreswijzer.IssueSuffixNotFound:
		return withOptions(t, t.suffixNotFound, d.Options)
	case adreswijzer.IssueUnitRequired:
		u := unit(d)
		if choice := options(t, d.Options); choice != "" {
			return t.unitRequired[u] + " " + choice
		}
		return t.unitRequired[u] + " " + t.unitAsk[u]
	case adreswijzer.IssueUnitNotFound:
		return withOptions(t, t.unitNotFound[unit(d)], d.Options)
	case adreswijzer.IssueStreetMismatch:
		switch {
		case d.Street != "" && d.AtPostcode:
			return fill(t.streetMismatchAt, "{street}", d.Street)
		case d.Street != "":
			return fill(t.streetMismatchIs, "{street}", d.Street)
		}
		return t.streetMismatch
	case adreswijzer.IssueCityMismatch:
		if d.City != "" {
			return fill(t.cityMismatchIs, "{city}", d.City)
		}
		return t.cityMismatch
	case adreswijzer.IssueAddressPlanned:
		return t.planned
	case adreswijzer.IssueCarrierLineTooLong:
		return carrierTooLong(t, d)
	case adreswijzer.IssuePoBoxNotAllowed:
		return t.poBox
	case adreswijzer.IssueUnsupportedCountry:
		return t.unsupportedCountry
	case adreswijzer.IssueCountryAmbiguous:
		return t.countryAmbiguous
	case adreswijzer.IssueUnverifiedConfirmed:
		return t.confirmedByCustomer
	}
	// A code added to the domain but not yet worded here: say something true rather than
	// nothing; the exhaustive test over adreswijzer.IssueCodes catches the gap.
	return formatInvalid(t, Details{})
}

// NewIssue builds an issue whose severity always comes from the code, so that no caller can
// give the same code two severities.
func NewIssue(lang adreswijzer.Language, code adreswijzer.IssueCode, field adreswijzer.Field, d Details) adreswijzer.Issue {
	d.Field = field
	is := adreswijzer.Issue{
		Code:     code,
		Severity: code.Severity(),
		Field:    field,
		Message:  Issue(lang, code, d),
	}
	if d.UnitType != adreswijzer.UnitNone {
		u := d.UnitType
		is.UnitType = &u
	}
	return is
}

// CarrierName is the carrier as it writes its own name (bpost in lower case).
func CarrierName(c adreswijzer.Carrier) string {
	switch c {
	case adreswijzer.PostNL:
		return "PostNL"
	case adreswijzer.Bpost:
		return "bpost"
	case adreswijzer.DHL:
		return "DHL"
	case adreswijzer.Sendcloud:
		return "Sendcloud"
	}
	return ""
}

// Situation is what an answer tells its caller to do next. Each has one sentence per
// language; Blocking makes the situations that name the field to check.
type Situation string

const (
	Valid        Situation = "valid"
	ValidPlanned Situation = "validPlanned"
	Corrected    Situation = "corrected"
	Ambiguous    Situation = "ambiguous"
	// MissingHouseNumber and PoBoxNotAllowed are blocking situations with a clearer step
	// than "check the field".
	MissingHouseNumber  Situation = "missingHouseNumber"
	PoBoxNotAllowed     Situation = "poBoxNotAllowed"
	InvalidConfirmable  Situation = "invalidConfirmable"
	ConfirmedByCustomer Situation = "confirmedByCustomer"
	UnsupportedCountry  Situation = "unsupportedCountry"
	CountryAmbiguous    Situation = "countryAmbiguous"
	LookupOne           Situation = "lookupOne"
	LookupSeveral       Situation = "lookupSeveral"
	LookupNone          Situation = "lookupNone"
	SuggestNone         Situation = "suggestNone"
	// ServiceUnavailable tells the caller to fail open, as the spec requires.
	ServiceUnavailable Situation = "serviceUnavailable"
	// BatchValid and BatchReview end a batch of addresses as a whole: its compact results
	// carry no sentence each. BatchAccept and BatchReviewAccept are the same with addresses
	// of unsupported countries among them, which are accepted as given, not checked again.
	BatchValid        Situation = "batchValid"
	BatchReview       Situation = "batchReview"
	BatchAccept       Situation = "batchAccept"
	BatchReviewAccept Situation = "batchReviewAccept"
)

const blockingPrefix = "blocking:"

// Blocking is the situation of an invalid answer that blocks, naming the field the customer
// should check. An empty field asks to check the whole address.
func Blocking(f adreswijzer.Field) Situation { return Situation(blockingPrefix + string(f)) }

// fields are the input fields a blocking answer can name, in the order of a checkout form.
var fields = []adreswijzer.Field{
	adreswijzer.FieldAddress1, adreswijzer.FieldAddress2, adreswijzer.FieldZip,
	adreswijzer.FieldCity, adreswijzer.FieldCountryCode, adreswijzer.FieldAddress,
}

// Situations lists every situation, including Blocking for each field, for exhaustive tests
// and documentation.
func Situations() []Situation {
	out := []Situation{
		Valid, ValidPlanned, Corrected, Ambiguous, MissingHouseNumber, PoBoxNotAllowed,
		InvalidConfirmable, ConfirmedByCustomer, UnsupportedCountry, CountryAmbiguous,
		LookupOne, LookupSeveral, LookupNone, SuggestNone, ServiceUnavailable,
		BatchValid, BatchReview, BatchAccept, BatchReviewAccept,
	}
	for _, f := range fields {
		out = append(out, Blocking(f))
	}
	return append(out, Blocking(""))
}

// NextStep is the one plain sentence an answer ends with. An unknown situation asks to
// check the address, the one step that is never wrong.
func NextStep(lang adreswijzer.Language, s Situation) string {
	t := catalogueFor(lang)
	if f, ok := strings.CutPrefix(string(s), blockingPrefix); ok {
		if step, ok := t.check[adreswijzer.Field(f)]; ok {
			return step
		}
		return t.check[""]
	}
	if step, ok := t.next[s]; ok {
		return step
	}
	return t.check[""]
}

// MethodNotAllowed returns the message and nextStep of a 405: the path takes only the
// methods of allow, the Allow header's list. Its code stays NOT_FOUND, the spec's code for a
// call to something that is not there. In English, as a 405 is answered before any
// parameter, lang included, is read.
func MethodNotAllowed(allow string) (message, nextStep string) {
	return "This endpoint does not take this method; it takes " + allow + ".",
		"Send the request with one of the methods in the Allow header."
}

// Error returns the message and nextStep of an HTTP error body. They never repeat anything
// the caller sent, so an error body can be logged and cached safely. An unknown code gets
// the INTERNAL_ERROR texts.
func Error(lang adreswijzer.Language, code adreswijzer.ErrorCode) (message, nextStep string) {
	t := catalogueFor(lang)
	e, ok := t.errors[code]
	if !ok {
		e = t.errors[adreswijzer.ErrInternal]
	}
	return fill(e[0], "{kb}", strconv.Itoa(adreswijzer.MaxBodyBytes>>10)), e[1]
}

// ErrorCodes lists every HTTP error code of the spec, for exhaustive tests.
var ErrorCodes = []adreswijzer.ErrorCode{
	adreswijzer.ErrBadRequest, adreswijzer.ErrUnauthorized, adreswijzer.ErrForbidden,
	adreswijzer.ErrNotFound, adreswijzer.ErrPayloadTooLarge, adreswijzer.ErrValidationFailed,
	adreswijzer.ErrRateLimited, adreswijzer.ErrQuotaExceeded, adreswijzer.ErrDailyCapReached,
	adreswijzer.ErrInternal, adreswijzer.ErrServiceUnavailable,
}

// Problem is what is wrong with a request parameter in a 422 answer.
type Problem uint8

const (
	Missing Problem = iota + 1
	Malformed
	TooLong
)

// Problems lists every Problem, for exhaustive tests.
var Problems = []Problem{Missing, Malformed, TooLong}

// Invalid is the message of a 422 answer: it names the parameter (its wire name, e.g. "zip")
// and what is wrong with it, never its value, so that the caller can fix the request and the
// message can be logged. max is the length limit for TooLong.
func Invalid(lang adreswijzer.Language, param string, p Problem, max int) string {
	t := catalogueFor(lang)
	s, ok := t.param[p]
	if !ok {
		s = t.param[Malformed]
	}
	return fill(s, "{param}", param, "{max}", strconv.Itoa(max))
}

func formatInvalid(t *catalogue, d Details) string {
	switch d.Field {
	case adreswijzer.FieldZip:
		if shape := t.postcodeShape[d.Country]; shape != "" {
			return t.formatInvalid[d.Field] + " " + shape
		}
	case adreswijzer.FieldAddress2:
		return t.formatInvalidUnit[unit(d)]
	}
	if s, ok := t.formatInvalid[d.Field]; ok {
		return s
	}
	return t.formatInvalid[""]
}

// unit decides between the toevoeging and the box wording: from the address when the caller
// knows it, else from the country, because a Belgian number is told apart by its box.
func unit(d Details) adreswijzer.UnitType {
	switch {
	case d.UnitType != adreswijzer.UnitNone:
		return d.UnitType
	case d.Country == adreswijzer.BE:
		return adreswijzer.UnitBus
	}
	return adreswijzer.UnitToevoeging
}

func withOptions(t *catalogue, s string, opts []string) string {
	if choice := options(t, opts); choice != "" {
		return s + " " + choice
	}
	return s
}

// options names what the customer can choose from, as one sentence: "Choose from 4, 4 x or
// 4 y." It names at most adreswijzer.MaxSuggestions and counts the rest, because a Brussels
// block can have a hundred boxes and a message must stay short.
func options(t *catalogue, opts []string) string {
	var list []string
	for _, o := range opts {
		if o = strings.TrimSpace(o); o != "" {
			list = append(list, o)
		}
	}
	switch {
	case len(list) == 0:
		return ""
	case len(list) == 1:
		return fill(t.onlyOne, "{options}", list[0])
	case len(list) > adreswijzer.MaxSuggestions:
		shown := strings.Join(list[:adreswijzer.MaxSuggestions], ", ")
		more := fill(t.andMore, "{n}", strconv.Itoa(len(list)-adreswijzer.MaxSuggestions))
		return fill(t.choose, "{options}", shown+" "+more)
	}
	last := len(list) - 1
	return fill(t.choose, "{options}", strings.Join(list[:last], ", ")+" "+t.or+" "+list[last])
}

func carrierTooLong(t *catalogue, d Details) string {
	s, ok := t.tooLong[d.CarrierField]
	if !ok {
		s = t.tooLong[CarrierStreetLine]
	}
	name := CarrierName(d.Carrier)
	if name == "" {
		name = t.theCarrier
	}
	s = fill(s, "{carrier}", name)
	if d.MaxLength > 0 {
		s += fill(t.atMost, "{max}", strconv.Itoa(d.MaxLength))
	}
	s += "."
	if d.Shorter != "" {
		s += " " + fill(t.useShorter, "{short}", d.Shorter)
	}
	return s
}

// fill replaces placeholders; pairs are placeholder, value. Nearly every message has one
// placeholder, which strings.ReplaceAll fills as a Replacer of the pair would, without
// building the Replacer's search tables for every message (a lookup writes a carrier message
// for each address whose line is too long for the carrier).
func fill(s string, pairs ...string) string {
	if len(pairs) == 2 {
		return strings.ReplaceAll(s, pairs[0], pairs[1])
	}
	return strings.NewReplacer(pairs...).Replace(s)
}
