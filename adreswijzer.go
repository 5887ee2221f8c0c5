// Package adreswijzer holds the domain of the address service: the address as the official
// registers (the Dutch BAG and the Belgian BeST Address) describe it, the dataset versions it
// comes from, the interfaces the stores implement, and the parsing of what people type.
//
// Everything else depends on this package and it depends on nothing of ours, so that the
// importers, the stores, the matching engine, the HTTP layer, the gateway and the WASM form core
// can each be read and tested on their own. It must stay small and free of heavy imports: the
// form core compiles it to WebAssembly.
package adreswijzer

import "strings"

// Country is an ISO 3166-1 alpha-2 code in upper case. Only NL and BE have registers.
type Country string

const (
	NL Country = "NL"
	BE Country = "BE"
)

// Countries lists the supported countries in a stable order (for health and agent answers).
var Countries = []Country{NL, BE}

// ParseCountry accepts any letter case ("nl", "Nl") because callers send the path form in
// lower case and the body form in upper case. ok is false for anything we have no register for.
func ParseCountry(s string) (c Country, ok bool) {
	// The forms paths and bodies use are read without the upper-case copy: the gateway and
	// the worker parse a country on every request.
	switch s {
	case "nl", "NL":
		return NL, true
	case "be", "BE":
		return BE, true
	}
	switch strings.ToUpper(strings.TrimSpace(s)) {
	case "NL":
		return NL, true
	case "BE":
		return BE, true
	}
	return "", false
}

// Lower is the form used in URL paths (/v1/nl/lookup). The gateway and the worker ask for
// it on every request: the two countries with a register get theirs without an allocation.
func (c Country) Lower() string {
	switch c {
	case NL:
		return "nl"
	case BE:
		return "be"
	}
	return strings.ToLower(string(c))
}

// Language of messages and of the names we answer with.
type Language string

const (
	LangNL Language = "nl"
	LangFR Language = "fr"
	LangDE Language = "de"
	LangEN Language = "en"
)

// ParseLanguage returns the language and whether it is one of nl, fr, de, en.
func ParseLanguage(s string) (Language, bool) {
	switch l := Language(strings.ToLower(strings.TrimSpace(s))); l {
	case LangNL, LangFR, LangDE, LangEN:
		return l, true
	}
	return "", false
}

// DefaultLanguage is the language of messages when the caller names none: Dutch for both
// registers' majority of users, except that a Walloon address reads better in French, which the
// worker decides per answer.
const DefaultLanguage = LangNL

// Carrier names a parcel carrier whose field limits we check.
type Carrier string

const (
	PostNL    Carrier = "postnl"
	Bpost     Carrier = "bpost"
	DHL       Carrier = "dhl"
	Sendcloud Carrier = "sendcloud"
)

// ParseCarrier returns the carrier and whether it is known.
func ParseCarrier(s string) (Carrier, bool) {
	switch c := Carrier(strings.ToLower(strings.TrimSpace(s))); c {
	case PostNL, Bpost, DHL, Sendcloud:
		return c, true
	}
	return "", false
}
