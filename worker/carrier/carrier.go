// Package carrier turns a register address into what goes on a parcel: the printed postal
// lines (Lines) and the fields of a carrier's shipping interface (Fields), with a warning when
// a field is longer than the carrier takes.
//
// Carriers publish their limits in many places that disagree, and for some not at all. Each
// value below names its published source; where sources disagree we take the value that
// guarantees the address fits, unless the smaller value is a reseller's and not the
// carrier's own. A limit that is too strict
// costs a needless warning; one that is too loose costs a rejected or cut-off label, so the
// choice leans strict. Limits count characters (Unicode code points), as XML schemas do.
//
//	Carrier    Field                     Max  Source, and why this value
//	PostNL     street                     35  Checkout API address (PostNL SDK @1b97a41). The Shipping
//	                                          API takes 95 (@556e4e0), but a shop sends the same address
//	                                          to both, so the smaller one holds; MyParcel's PostNL API
//	                                          rejects more than 40. MyParcel.com's 32 for PostNL C2C is
//	                                          a reseller's product and not used.
//	PostNL     houseNumber                 5  Shipping API: "max 5, numeric" for Benelux addresses.
//	PostNL     houseNumberAddition         7  Checkout API HouseNrExt 7, as MyParcel.com's PostNL C2C
//	                                          (MyParcel's WooCommerce checkout even cut it to 4). The
//	                                          Shipping API takes 35; Adrescheck's 6 is an address check,
//	                                          not a shipment field. A Belgian box with its marker
//	                                          ("bte A/12") exceeds 7, and the warning says so.
//	PostNL     postcode                  6/4  Shipping API: NL 6 (no space), BE 4.
//	PostNL     city                       35  Shipping and Checkout APIs agree.
//	bpost      street                     40  Shipping Manager XSD common-v3 (what the server enforces).
//	                                          MyParcel.com reads 40 as street, number and suffix
//	                                          together; the XSD limits them separately, and so do we.
//	bpost      houseNumber                 8  XSD StreetNumberType, which holds the number with its
//	                                          letter or bis ("104BIS"), so that is what is counted.
//	bpost      box                         8  XSD StreetBoxType; the Flemish registry allows 10, so a
//	                                          real box can exceed it.
//	bpost      postcode                    8  XSD PostalCodeType. The tijsverkoyen library and bpost's
//	                                          SHM document say 40, but the live API rejects more than 8.
//	bpost      city                       40  XSD LocalityType.
//	DHL        streetLine                 35  Street, number and addition together: shipcloud and
//	                                          MyParcel.com agree for DHL Express, and DHL Paket allows
//	                                          street 35. DHL Parcel NL's own API schema states no
//	                                          lengths, so the strictest published DHL product holds.
//	DHL        postcode                   12  DHL Express (shipcloud, MyParcel.com).
//	DHL        city                       35  DHL Express (shipcloud, MyParcel.com).
//	Sendcloud  streetLine                 35  Sendcloud hands the address to whichever carrier the shop
//	                                          chose, and its per-carrier limits could not be read; 35,
//	                                          the smallest street line of those carriers (DHL Express,
//	                                          DHL Paket, DPD), fits them all. Sendcloud moves overflow
//	                                          to address line 2 itself.
//	Sendcloud  houseNumberWithAddition     8  "Sendcloud forces a max. limit of the house_number of 8
//	                                          characters for some carriers" (picqer/sendcloud-php-client
//	                                          #15), which is why bpost boxes go to address_2.
//	Sendcloud  postcode                   12  The only readable rows of Sendcloud's limits page (its
//	Sendcloud  city                       30  Amazon section); no other Sendcloud figure is published.
//
// Fields never blocks: a carrier that moves overflow to a second line (Sendcloud) or prints
// a shortened name still delivers, so an overlong field is a warning that suggests a shorter
// street name when one exists, and the field keeps the register's full name so that the shop
// decides.
package carrier

import (
	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/worker/messages"
)

// Limit is the longest value one carrier field (or group of fields) takes.
type Limit struct {
	Field  messages.CarrierField `json:"field"`
	Max    int                   `json:"max"`
	Source string                `json:"source"`
	// measure returns what the carrier counts against Max.
	measure func(p parts) string
}

// Limits returns the limits Fields checks for a carrier and destination country, in the
// order of the fields on a label. An unknown carrier has none. The slice is shared by every
// caller (Fields reads it for each address of each answer) and must not be changed.
func Limits(c adreswijzer.Carrier, country adreswijzer.Country) []Limit {
	switch c {
	case adreswijzer.PostNL:
		if country == adreswijzer.BE {
			return postnlBE
		}
		return postnlNL
	case adreswijzer.Bpost:
		return bpostLimits
	case adreswijzer.DHL:
		return dhlLimits
	case adreswijzer.Sendcloud:
		return sendcloudLimits
	}
	return nil
}

var (
	postnlNL    = postnlLimits(6)
	postnlBE    = postnlLimits(4)
	bpostLimits = []Limit{
		{messages.CarrierStreet, 40, "bpost Shipping Manager XSD common-v3, streetName ≤ 40", streetField},
		{messages.CarrierHouseNumber, 8, "bpost Shipping Manager XSD common-v3, number ≤ 8 (with letter or bis)", numberWithSuffixField},
		{messages.CarrierBox, 8, "bpost Shipping Manager XSD common-v3, box ≤ 8", boxField},
		{messages.CarrierPostcode, 8, "bpost Shipping Manager XSD common-v3, postalCode ≤ 8 (libraries say 40; the server enforces 8)", postcodeField},
		{messages.CarrierCity, 40, "bpost Shipping Manager XSD common-v3, locality ≤ 40", cityField},
	}
	dhlLimits = []Limit{
		{messages.CarrierStreetLine, 35, "DHL Express via shipcloud and MyParcel.com, street with number ≤ 35 (DHL Parcel NL publishes none)", streetLineField},
		{messages.CarrierPostcode, 12, "DHL Express via shipcloud and MyParcel.com, postcode ≤ 12", postcodeField},
		{messages.CarrierCity, 35, "DHL Express via shipcloud and MyParcel.com, city ≤ 35", cityField},
	}
	sendcloudLimits = []Limit{
		{messages.CarrierStreetLine, 35, "smallest street line of the carriers Sendcloud ships with (DHL Express, DHL Paket, DPD), street with number ≤ 35", streetLineField},
		{messages.CarrierNumberWithAddition, 8, "Sendcloud house_number ≤ 8 for some carriers (picqer/sendcloud-php-client#15)", numberWithAdditionField},
		{messages.CarrierPostcode, 12, "Sendcloud address field limits (Amazon section), postal_code ≤ 12", postcodeField},
		{messages.CarrierCity, 30, "Sendcloud address field limits (Amazon section), city ≤ 30", cityField},
	}
)

// postnlLimits are PostNL's limits with its postcode length for the destination (NL 6, BE 4).
func postnlLimits(zip int) []Limit {
	return []Limit{
		{messages.CarrierStreet, 35, "PostNL Checkout API address, Street ≤ 35 (Shipping API allows 95)", streetField},
		{messages.CarrierHouseNumber, 5, "PostNL Shipping API, HouseNr ≤ 5 digits for Benelux", numberField},
		{messages.CarrierAddition, 7, "PostNL Checkout API, HouseNrExt ≤ 7 (Shipping API allows 35)", additionField},
		{messages.CarrierPostcode, zip, "PostNL Shipping API, Zipcode NL 6, BE 4", postcodeField},
		{messages.CarrierCity, 35, "PostNL Shipping and Checkout APIs, City ≤ 35", cityField},
	}
}
