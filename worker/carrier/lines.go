package carrier

import (
	"strconv"

	"github.com/adreswijzer/adreswijzer"
)

// region is the Belgian region an address lies in, which decides the language its names are
// written in when the caller's language has none.
type region uint8

const (
	regionUnknown region = iota
	brussels
	flanders
	wallonia
	// germanCommunity is the nine German-speaking municipalities of Wallonia (Eupen to
	// Burg-Reuland), whose streets the register names in German first.
	germanCommunity
)

// regionOf reads the region from the postcode, because the postcode ranges follow the
// regions exactly (BeST's own region tag agrees for every one of its 1,140 postcodes, which
// the tests check) and the postcode is the one field every address has, whatever form the
// importer gives its identifiers.
func regionOf(postcode string) region {
	n, err := strconv.Atoi(postcode)
	if err != nil || len(postcode) != 4 {
		return regionUnknown
	}
	switch {
	case n >= 1000 && n <= 1299:
		return brussels
	case n >= 4700 && n <= 4799:
		return germanCommunity
	case n >= 1300 && n <= 1499, n >= 4000 && n <= 7999:
		return wallonia
	case n >= 1500 && n <= 3999, n >= 8000 && n <= 9999:
		return flanders
	}
	return regionUnknown
}

// languages is the order in which a region's names are preferred when the caller's
// language has none. Brussels puts French first: most of its residents and nearly all
// international mail use it, so an English or German reader gets "Rue de la Loi", never a
// mixture.
func (r region) languages() [3]adreswijzer.Language {
	switch r {
	case brussels, wallonia:
		return [3]adreswijzer.Language{adreswijzer.LangFR, adreswijzer.LangNL, adreswijzer.LangDE}
	case germanCommunity:
		return [3]adreswijzer.Language{adreswijzer.LangDE, adreswijzer.LangFR, adreswijzer.LangNL}
	}
	return [3]adreswijzer.Language{adreswijzer.LangNL, adreswijzer.LangFR, adreswijzer.LangDE}
}

func name(n adreswijzer.Names, lang adreswijzer.Language) string {
	switch lang {
	case adreswijzer.LangFR:
		return n.FR
	case adreswijzer.LangDE:
		return n.DE
	case adreswijzer.LangNL:
		return n.NL
	}
	return ""
}

// DisplayLanguage is the language an address's names are written in: the requested one when
// the register names the street in it, else the region's own (Flanders Dutch, Wallonia
// French, the German-speaking municipalities German, Brussels French). bpost asks for one
// language per address, never "Rue de la Paix / Vredesstraat", so the street, the locality and
// the box marker all follow this one choice. English is never a register language, so it
// always gets the region's. Dutch addresses are always Dutch.
func DisplayLanguage(a *adreswijzer.Address, lang adreswijzer.Language) adreswijzer.Language {
	if a.Country == adreswijzer.NL {
		return adreswijzer.LangNL
	}
	if name(a.Street, lang) != "" {
		return lang
	}
	order := regionOf(a.Postcode).languages()
	for _, l := range order {
		if name(a.Street, l) != "" {
			return l
		}
	}
	return order[0]
}

// pick returns the name in lang, else in the order of the address's region, so that a
// locality without a name in the street's language still follows the region.
func pick(n adreswijzer.Names, lang adreswijzer.Language, postcode string) string {
	if s := name(n, lang); s != "" {
		return s
	}
	for _, l := range regionOf(postcode).languages() {
		if s := name(n, l); s != "" {
			return s
		}
	}
	return ""
}

// boxMarker is the word before a box number. The law (KB 24 April 2014, art. 34) allows
// "boîte", "bte", "bus" or "box"; bpost's own examples write "bus" on Dutch lines and "bte"
// on French ones. No German marker is attested (bpost's "Bf." could not be confirmed), so a
// German line takes "bus", the legal marker that reads as a German word.
func boxMarker(lang adreswijzer.Language) string {
	if lang == adreswijzer.LangFR {
		return "bte"
	}
	return "bus"
}

// Lines returns the postal lines ready to print, the street line first.
//
// NL follows NEN 5825 as Kadaster applies it and PostNL asks for it: the street and
// Address.NumberText, then the postcode with one space inside, two spaces, and the place in
// capitals:
//
//	Bloemendalerweg 51 A1
//	1382 KB  WEESP
//
// The street is the full register
// name, not the NEN 5825 short name: the short name exists for systems with 24-position
// fields, drops words customers recognise ("H Roland Holsthof"), and a letter or label has
// room; Fields suggests it where a carrier's field is too short.
//
// BE follows bpost: street, number as BeST writes it and the box after its marker ("Rue du
// Pré aux Oies 134 bte 1", "Ganzenweidestraat 134 bus 1"), then the postcode and the
// locality as the register writes it ("1130 Bruxelles (Haren)"). Names are in
// DisplayLanguage(a, lang).
func Lines(a *adreswijzer.Address, lang adreswijzer.Language) []string {
	var w Writer
	return w.Lines(a, lang)
}

// Lines is the package's Lines for one address of the Writer's answer.
func (w *Writer) Lines(a *adreswijzer.Address, lang adreswijzer.Language) []string {
	p := w.split(a, lang)
	var box string
	if p.box != "" {
		box = p.marker
	}
	// Room for both lines at once (the number, a box and a postcode take less than 32
	// bytes), so that an address written alone takes one buffer, not one and then a larger.
	w.text.Grow(len(p.street) + len(p.city) + 32)
	return w.pair(w.join(" ", p.street, a.NumberText(), box, p.box), w.postalLine(a.Country, a.Postcode, p.city))
}

// join puts single spaces between the parts that are not empty.
func join(parts ...string) string {
	var w Writer
	return w.join(" ", parts...)
}
