package form

import (
	"strconv"
	"strings"

	"github.com/adreswijzer/adreswijzer"
)

// The parts of the API's answers the form uses, read from the parsed JSON tree. Fields the
// form does not show are not read, so the API may grow without the form noticing.

type issue struct {
	code     string
	severity string
	field    string
	message  string
}

func readIssues(v value) []issue {
	var out []issue
	for _, it := range v.list() {
		out = append(out, issue{
			code:     it.get("code").str(),
			severity: it.get("severity").str(),
			field:    it.get("field").str(),
			message:  it.get("message").str(),
		})
	}
	return out
}

// lookupAddr is one LookupAddress.
type lookupAddr struct {
	street   string
	number   int
	suffix   string // houseNumberSuffix, "" for null
	unit     string // toevoeging or box, "" for null
	addition *string
	postcode string
	locality string
	planned  bool
}

type lookupAnswer struct {
	addresses   []lookupAddr
	issues      []issue
	nextStep    string
	attribution string
}

func readLookup(v value) (lookupAnswer, bool) {
	if v.kind != kindObject || v.get("addresses").kind != kindArray {
		return lookupAnswer{}, false
	}
	a := lookupAnswer{
		issues:      readIssues(v.get("issues")),
		nextStep:    v.get("nextStep").str(),
		attribution: v.get("meta").get("attribution").str(),
	}
	for _, it := range v.get("addresses").list() {
		a.addresses = append(a.addresses, lookupAddr{
			street:   it.get("street").str(),
			number:   it.get("houseNumber").int(),
			suffix:   it.get("houseNumberSuffix").str(),
			unit:     it.get("unit").str(),
			addition: it.get("addition").strPtr(),
			postcode: it.get("postcode").str(),
			locality: it.get("locality").str(),
			planned:  it.get("planned").boolean(),
		})
	}
	return a, true
}

// fields writes a register address as checkout fields, the way the API's normalized address
// does: street, number and letter in address1, the toevoeging or the box after its marker in
// address2. The box marker comes from the API's addition ("bus 3", "bte 3"), so it is in the
// language the API answered in.
func (a lookupAddr) fields(c adreswijzer.Country) normAddr {
	n := normAddr{
		address1:    strings.TrimSpace(a.street + " " + a.numberText()),
		zip:         adreswijzer.FormatPostcode(c, a.postcode),
		city:        a.locality,
		countryCode: string(c),
		street:      a.street,
		houseNumber: a.numberDigits(),
	}
	if a.addition != nil {
		n.numberAddition = *a.addition
	}
	if u := a.unitText(c); u != "" {
		n.address2 = &u
	}
	return n
}

func (a lookupAddr) numberDigits() string {
	if a.number <= 0 {
		return ""
	}
	return strconv.Itoa(a.number)
}

// numberText is the number with its letter or bis, as address1 carries it.
func (a lookupAddr) numberText() string { return a.numberDigits() + a.suffix }

// unitText is address2: the NL toevoeging, or the BE box with the API's marker.
func (a lookupAddr) unitText(c adreswijzer.Country) string {
	if a.unit == "" {
		return ""
	}
	if c == adreswijzer.BE && a.addition != nil {
		return strings.TrimSpace(strings.TrimPrefix(*a.addition, a.suffix))
	}
	return a.unit
}

// extension is the register's comparison form of what tells this address apart at its
// number, to match what the customer typed.
func (a lookupAddr) extension() (exact, loose string) {
	return adreswijzer.ExtensionOf(a.suffix, a.unit), adreswijzer.LooseExtensionOf(a.suffix, a.unit)
}

// streetSug is one StreetSuggestion.
type streetSug struct {
	street   string
	locality string
	postcode string
}

type suggestAnswer struct {
	suggestions []streetSug
	issues      []issue
	attribution string
}

func readSuggest(v value) (suggestAnswer, bool) {
	if v.kind != kindObject || v.get("suggestions").kind != kindArray {
		return suggestAnswer{}, false
	}
	a := suggestAnswer{issues: readIssues(v.get("issues")), attribution: v.get("meta").get("attribution").str()}
	for _, it := range v.get("suggestions").list() {
		a.suggestions = append(a.suggestions, streetSug{
			street:   it.get("street").str(),
			locality: it.get("locality").str(),
			postcode: it.get("postcode").str(),
		})
	}
	return a, true
}

// normAddr is a NormalizedAddress plus the split fields shops with separate house-number
// inputs want (the Dutch norm). It is what a commit hands to the shop.
type normAddr struct {
	address1    string
	address2    *string
	zip         string
	city        string
	countryCode string

	street         string
	houseNumber    string // digits
	numberAddition string // letter and toevoeging (NL) or letter and box with marker (BE)
}

// label is the one-line form used in lists and announcements.
func (n normAddr) label() string {
	s := n.address1
	if n.address2 != nil && *n.address2 != "" {
		s += " " + *n.address2
	}
	if n.zip != "" || n.city != "" {
		s += ", " + strings.TrimSpace(n.zip+" "+n.city)
	}
	return s
}

type validateAnswer struct {
	status      string
	normalized  *normAddr
	match       *matchAddr
	suggestions []normAddr
	blocking    bool
	issues      []issue
	nextStep    string
	attribution string
}

// matchAddr is the AddressMatch: the register's parts, to show a corrected address in the
// fields the customer typed it in.
type matchAddr struct {
	street   string
	number   int
	suffix   string
	unit     string
	locality string
	postcode string
}

func readNormalized(v value) normAddr {
	return normAddr{
		address1:    v.get("address1").str(),
		address2:    v.get("address2").strPtr(),
		zip:         v.get("zip").str(),
		city:        v.get("city").str(),
		countryCode: v.get("countryCode").str(),
	}
}

func readValidate(v value) (validateAnswer, bool) {
	if v.kind != kindObject || v.get("status").kind != kindString {
		return validateAnswer{}, false
	}
	a := validateAnswer{
		status:      v.get("status").str(),
		blocking:    v.get("blocking").boolean(),
		issues:      readIssues(v.get("issues")),
		nextStep:    v.get("nextStep").str(),
		attribution: v.get("meta").get("attribution").str(),
	}
	if n := v.get("normalized"); n.kind == kindObject {
		na := readNormalized(n)
		a.normalized = &na
	}
	if m := v.get("match"); m.kind == kindObject {
		a.match = &matchAddr{
			street:   m.get("street").str(),
			number:   m.get("houseNumber").int(),
			suffix:   m.get("houseNumberSuffix").str(),
			unit:     m.get("unit").str(),
			locality: m.get("locality").str(),
			postcode: m.get("postcode").str(),
		}
	}
	for _, s := range v.get("suggestions").list() {
		a.suggestions = append(a.suggestions, readNormalized(s))
	}
	return a, true
}

// apiError reads the code of an ErrorResponse, "" when the body is none.
func apiError(body string) string {
	v, err := parseJSON(body)
	if err != nil {
		return ""
	}
	return v.get("error").get("code").str()
}
