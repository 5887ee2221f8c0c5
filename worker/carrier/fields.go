package carrier

import (
	"unicode/utf8"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/worker/messages"
)

// parts are an address's pieces in one display language, as the carrier fields and the
// postal lines take them.
type parts struct {
	lang       adreswijzer.Language // DisplayLanguage
	street     string
	number     string // digits only
	suffix     string // NL huisletter, BE letter or bis
	toevoeging string // NL only
	box        string // BE only
	marker     string // the box marker in lang
	postcode   string
	city       string
	addition   string // the houseNumberAddition field, set by Fields
}

// split is shared by Lines and Fields so that the printed line and the carrier fields can
// never name the street or place in two languages. It keeps only the unit the country has: a
// toevoeging exists only in the BAG, a box only in BeST. The box is written as it goes after
// the marker (adreswijzer.BoxNumber): BeST writes markers and padding into the value ("Bte5",
// "b001", "0002"), and "bte Bte5" says the marker twice where bpost prints "bte 5".
func (w *Writer) split(a *adreswijzer.Address, lang adreswijzer.Language) parts {
	dl := DisplayLanguage(a, lang)
	p := parts{
		lang:       dl,
		street:     pick(a.Street, dl, a.Postcode),
		suffix:     a.HouseNumberSuffix,
		toevoeging: a.Addition,
		box:        adreswijzer.BoxNumber(a.Box),
		marker:     boxMarker(dl),
		postcode:   a.Postcode,
		city:       pick(a.Locality, dl, a.Postcode),
	}
	if a.HouseNumber > 0 {
		p.number = w.itoa(a.HouseNumber)
	}
	if a.Country == adreswijzer.NL {
		p.box = ""
	} else {
		p.toevoeging = ""
	}
	return p
}

// addition is the houseNumberAddition field. NL: huisletter and toevoeging written together
// ("A1", "a225", "ben"), as PostNL's HouseNrExt and the BAG's own address lines have them.
// BE: the letter or bis, then the box after its marker ("A bus 21", "bte 1"). Every
// carrier gets the same form because CarrierAddress has one field for both: without the
// marker "2A 21" could not be told from "2 A21", and bpost calls "32 20" wrong. A bpost
// integration fills its separate box field with the text after the marker.
func (w *Writer) addition(p parts) string {
	if p.box == "" {
		return w.join("", p.suffix, p.toevoeging)
	}
	return w.join(" ", p.suffix, p.marker, p.box)
}

// What each limit counts. A street line is counted as a carrier that takes street, number
// and addition together prints it, one space apart; so is a number with its addition.
func streetField(p parts) string             { return p.street }
func streetLineField(p parts) string         { return join(p.street, p.number, p.addition) }
func numberField(p parts) string             { return p.number }
func numberWithSuffixField(p parts) string   { return p.number + p.suffix + p.toevoeging }
func numberWithAdditionField(p parts) string { return join(p.number, p.addition) }
func additionField(p parts) string           { return p.addition }
func boxField(p parts) string                { return p.box }
func postcodeField(p parts) string           { return p.postcode }
func cityField(p parts) string               { return p.city }

// Fields splits the address into a carrier's fields, in the language DisplayLanguage picks,
// and warns (CARRIER_LINE_TOO_LONG, message in lang) for every field longer than the carrier
// takes. The postcode is the register's form, which is the form carriers want (PostNL:
// "1382KB" without a space; bpost: four digits); the city is the register's spelling, not
// the capitals of the printed line, because carriers print their own labels. An unknown or
// empty carrier gets the fields and no warnings. Warnings is never nil, so it encodes as [].
func Fields(a *adreswijzer.Address, c adreswijzer.Carrier, lang adreswijzer.Language) adreswijzer.CarrierAddress {
	var w Writer
	return w.Fields(a, c, lang)
}

// Fields is the package's Fields for one address of the Writer's answer.
func (w *Writer) Fields(a *adreswijzer.Address, c adreswijzer.Carrier, lang adreswijzer.Language) adreswijzer.CarrierAddress {
	p := w.split(a, lang)
	p.addition = w.addition(p)
	out := adreswijzer.CarrierAddress{
		Street:      p.street,
		HouseNumber: p.number,
		Postcode:    p.postcode,
		City:        p.city,
		CountryCode: a.Country,
		Warnings:    []adreswijzer.Issue{},
	}
	if p.addition != "" {
		out.HouseNumberAddition = w.value(p.addition)
	}
	for _, l := range Limits(c, a.Country) {
		if utf8.RuneCountInString(l.measure(p)) <= l.Max {
			continue
		}
		d := messages.Details{
			Country:      a.Country,
			Carrier:      c,
			CarrierField: l.Field,
			MaxLength:    l.Max,
			Shorter:      shorterStreet(a, p, l),
		}
		field := adreswijzer.FieldAddress1
		switch l.Field {
		case messages.CarrierAddition, messages.CarrierBox:
			field = adreswijzer.FieldAddress2
			d.UnitType = a.UnitType()
		case messages.CarrierNumberWithAddition:
			d.UnitType = a.UnitType()
		case messages.CarrierPostcode:
			field = adreswijzer.FieldZip
		case messages.CarrierCity:
			field = adreswijzer.FieldCity
		}
		out.Warnings = append(out.Warnings, messages.NewIssue(lang, adreswijzer.IssueCarrierLineTooLong, field, d))
	}
	return out
}

// shorterStreet is the shorter street name to suggest for an overlong street or street
// line, or "" when there is none or it would still not fit: a suggestion that fails the same
// limit helps nobody. NL uses the register's own NEN 5825 short name (BAG verkorteNaam),
// never one of ours; BE uses the abbreviations bpost approves (see shorten).
func shorterStreet(a *adreswijzer.Address, p parts, l Limit) string {
	if l.Field != messages.CarrierStreet && l.Field != messages.CarrierStreetLine {
		return ""
	}
	short := shorten(p.street, p.lang)
	if a.Country == adreswijzer.NL {
		short = a.StreetShort
	}
	if short == "" || short == p.street {
		return ""
	}
	q := p
	q.street = short
	if utf8.RuneCountInString(l.measure(q)) > l.Max {
		return ""
	}
	return short
}
