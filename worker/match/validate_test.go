package match

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/adreswijzer/adreswijzer"
)

// Real rows used below (Weesp BAG extract 2021-10-15; BOSA BeST sample):
//   - Hugo de Grootlaan 16 ben / 16 bov, 1381 CS Weesp: toevoegingen only, no bare 16.
//   - Bloemendalerweg 51 A1 … 51 H1, 1382 KB Weesp: letters with toevoegingen.
//   - Henriëtte Roland Holsthof 1, 1382 SH Weesp: diacritics, NEN short name.
//   - Fort Diemerdamstraat 1, 1384 AH Weesp: a new build ("gevormd").
//   - Ganzenweidestraat / Rue du Pré aux Oies 134, 1130 Brussel (Haren): bare and box b001.
//   - Stevens-de Waelplein 9, 1502 Lembeek: bare and boxes 01, 02, 11.
//   - Arthur Puesstraat 295, 1502 Lembeek: proposed (planned).
//   - Route du Barrage 83, 4960 Bevercé (Malmedy): Walloon, French only.

type validateCase struct {
	name       string
	req        adreswijzer.ValidateRequest
	status     adreswijzer.Verdict
	issues     []adreswijzer.IssueCode // in any order
	blocking   bool
	confidence adreswijzer.Confidence
	lang       adreswijzer.Language
	match      string // "postcode number suffix unit" of the match, "" for none
	suggest    int    // number of suggestions
	golden     string // golden file name, "" for none
}

func nl(a1, zip, city string) adreswijzer.ValidateRequest {
	r := adreswijzer.ValidateRequest{CountryCode: "NL", Address1: a1, Zip: zip}
	if city != "" {
		r.City = &city
	}
	return r
}

func be(a1, zip, city string) adreswijzer.ValidateRequest {
	r := nl(a1, zip, city)
	r.CountryCode = "BE"
	return r
}

func with(r adreswijzer.ValidateRequest, f func(*adreswijzer.ValidateRequest)) adreswijzer.ValidateRequest {
	f(&r)
	return r
}

var validateCases = []validateCase{
	// Valid.
	{name: "nl number and toevoeging in address2", req: with(nl("Hugo de Grootlaan", "1381 CS", "Weesp"), func(r *adreswijzer.ValidateRequest) { r.Address2 = str("16 bov") }),
		status: "valid", confidence: "high", lang: "nl", match: "1381CS 16  bov"},
	// "1 Horn" reads first as number 1, toevoeging HORN, of the street in address1; that
	// finds nothing, and address2 is the street line (Horn 1, 1381 GX Weesp) below a company.
	{name: "nl company in address1, number-first line of a short street in address2", req: with(nl("Jansen Bouw BV", "1381 GX", "Weesp"), func(r *adreswijzer.ValidateRequest) { r.Address2 = str("1 Horn") }),
		status: "valid", confidence: "high", lang: "nl", match: "1381GX 1  "},
	{name: "nl valid with toevoeging in address2", req: with(nl("Hugo de Grootlaan 16", "1381 CS", "Weesp"), func(r *adreswijzer.ValidateRequest) { r.Address2 = str("ben") }),
		status: "valid", confidence: "high", lang: "nl", match: "1381CS 16  ben", golden: "validate_nl_valid"},
	{name: "nl valid letter and toevoeging in address1", req: nl("bloemendalerweg 51a-10", "1382 kb", "WEESP"),
		status: "valid", confidence: "high", lang: "nl", match: "1382KB 51 A 10"},
	{name: "nl valid with diacritics", req: nl("Henriëtte Roland Holsthof 1", "1382 SH", "Weesp"),
		status: "valid", confidence: "high", lang: "nl", match: "1382SH 1  "},
	{name: "nl valid without city", req: nl("Henriëtte Roland Holsthof 1", "1382 SH", ""),
		status: "valid", confidence: "high", lang: "nl", match: "1382SH 1  "},
	{name: "nl planned address is valid with a note", req: nl("Fort Diemerdamstraat 1", "1384 AH", "Weesp"),
		status: "valid", issues: []adreswijzer.IssueCode{"ADDRESS_PLANNED"}, confidence: "high", lang: "nl", match: "1384AH 1  ", golden: "validate_nl_planned"},
	{name: "be valid french in brussels", req: be("Rue du Pré aux Oies 134 bte 1", "1130", "Bruxelles"),
		status: "valid", confidence: "high", lang: "fr", match: "1130 134  b001", golden: "validate_be_valid_fr"},
	{name: "be valid dutch in brussels", req: be("Ganzenweidestraat 134", "1130", "Haren"),
		status: "ambiguous", issues: []adreswijzer.IssueCode{"UNIT_REQUIRED"}, confidence: "low", lang: "nl", suggest: 2},
	{name: "be valid box notation b1", req: be("Ganzenweidestraat 134 b1", "1130", "Brussel"),
		status: "valid", confidence: "high", lang: "nl", match: "1130 134  b001"},
	{name: "be name the same in both languages answers in the region's", req: be("Kasteelhof 151", "1130", "Haren"),
		status: "valid", confidence: "high", lang: "fr", match: "1130 151  "},
	{name: "be valid wallonia answers in french", req: be("Route du Barrage 83", "4960", "Bevercé"),
		status: "valid", confidence: "high", lang: "fr", match: "4960 83  "},
	{name: "be valid municipality as city", req: with(be("Stevens-de Waelplein 9", "1502", "Halle"), func(r *adreswijzer.ValidateRequest) { r.Address2 = str("bus 2") }),
		status: "valid", confidence: "high", lang: "nl", match: "1502 9  02"},
	{name: "be planned", req: be("Arthur Puesstraat 295", "1502", "Lembeek"),
		status: "valid", issues: []adreswijzer.IssueCode{"ADDRESS_PLANNED"}, confidence: "high", lang: "nl", match: "1502 295  "},
	{name: "be street name ending in a year, the number in address2", req: with(be("Rue du 17 décembre 1944", "4960", "Malmedy"), func(r *adreswijzer.ValidateRequest) { r.Address2 = str("3") }),
		status: "valid", confidence: "high", lang: "fr", match: "4960 3  "},
	{name: "be street name ending in a year, the number in address2, confirmed", req: with(be("Rue du 17 décembre 1944", "4960", "Malmedy"), func(r *adreswijzer.ValidateRequest) {
		r.Address2, r.CustomerConfirmed = str("3"), true
	}),
		status: "valid", confidence: "high", lang: "fr", match: "4960 3  "},
	// Languages asked for.
	{name: "lang en", req: with(nl("Hugo de Grotlaan 16 bov", "1381CS", "Weesp"), func(r *adreswijzer.ValidateRequest) { r.Lang = "en" }),
		status: "corrected", issues: []adreswijzer.IssueCode{"STREET_MISMATCH"}, confidence: "medium", lang: "en", match: "1381CS 16  bov", golden: "validate_en_corrected"},
	{name: "lang de", req: with(be("Stevens-de Waelplein 9", "1502", "Lembeek"), func(r *adreswijzer.ValidateRequest) { r.Lang = "de" }),
		status: "ambiguous", issues: []adreswijzer.IssueCode{"UNIT_REQUIRED"}, confidence: "low", lang: "de", suggest: 4, golden: "validate_de_ambiguous_boxes"},
	{name: "lang fr for a dutch address", req: with(nl("Hugo de Grootlaan 16", "1381 CS", "Weesp"), func(r *adreswijzer.ValidateRequest) { r.Lang = "fr"; r.Address2 = str("BOV") }),
		status: "valid", confidence: "high", lang: "fr", match: "1381CS 16  bov"},
	// "16 1" is number 16 with toevoeging 1, which it does not have: never number 1 of a
	// street "Hugo de Grootlaan 16" that is only similar to the real one.
	{name: "nl number space addition not at the number stays at the number", req: nl("Hugo de Grootlaan 16 1", "1381 CS", "Weesp"),
		status: "invalid", issues: []adreswijzer.IssueCode{"UNIT_NOT_FOUND"}, confidence: "low", lang: "nl", suggest: 2},
	// A street the register does not have, near a similar one at another postcode of the
	// town: the correction changes two fields, a partial match.
	{name: "nl similar street at another postcode is a low-confidence correction", req: nl("Nieuwbouwstraat 1", "1384 GG", "Weesp"),
		status: "corrected", issues: []adreswijzer.IssueCode{"STREET_MISMATCH", "HOUSE_NUMBER_NOT_FOUND"}, confidence: "low", lang: "nl", match: "1381BB 1  "},
	// Corrected.
	{name: "nl postcode without space", req: nl("Henriëtte Roland Holsthof 1", "1382SH", "Weesp"),
		status: "corrected", confidence: "medium", lang: "nl", match: "1382SH 1  ", golden: "validate_nl_postcode_no_space"},
	{name: "nl street without diacritics and abbreviated", req: nl("Henriette Roland Holsthf 1", "1382 SH", "Weesp"),
		status: "corrected", issues: []adreswijzer.IssueCode{"STREET_MISMATCH"}, confidence: "medium", lang: "nl", match: "1382SH 1  "},
	{name: "nl wrong city", req: nl("Hugo de Grootlaan 16 ben", "1381 CS", "'s-Gravenhage"),
		status: "corrected", issues: []adreswijzer.IssueCode{"CITY_MISMATCH"}, confidence: "medium", lang: "nl", match: "1381CS 16  ben", golden: "validate_nl_city_mismatch"},
	{name: "nl unknown postcode corrected from street and city", req: nl("Hugo de Grootlaan 16 ben", "1381 ZZ", "Weesp"),
		status: "corrected", issues: []adreswijzer.IssueCode{"POSTCODE_NOT_FOUND"}, confidence: "medium", lang: "nl", match: "1381CS 16  ben", golden: "validate_nl_postcode_corrected"},
	{name: "nl postcode of another part of the town", req: nl("Hugo de Grootlaan 16 ben", "1382 KB", ""),
		status: "corrected", issues: []adreswijzer.IssueCode{"HOUSE_NUMBER_NOT_FOUND"}, confidence: "medium", lang: "nl", match: "1381CS 16  ben"},
	{name: "nl malformed postcode corrected from street and city", req: nl("Hugo de Grootlaan 16 ben", "13810", "Weesp"),
		status: "corrected", issues: []adreswijzer.IssueCode{"FORMAT_INVALID"}, confidence: "medium", lang: "nl", match: "1381CS 16  ben"},
	{name: "nl number only in address1, street missing", req: with(nl("16", "1381 CS", "Weesp"), func(r *adreswijzer.ValidateRequest) { r.Address2 = str("ben") }),
		status: "corrected", issues: []adreswijzer.IssueCode{"STREET_MISMATCH"}, confidence: "medium", lang: "nl", match: "1381CS 16  ben"},
	// The number and box in address2 under a street typed without them, with the town
	// after them: the number is address2's, and the street in address1 is no street
	// "whose name ends in a number" (that blocked, MISSING_HOUSE_NUMBER).
	{name: "be number and box in address2, the town after them", req: with(be("Rue de la Paroisse", "1130", "Haren"), func(r *adreswijzer.ValidateRequest) { r.Address2 = str("52 bus 8 Haren") }),
		status: "valid", confidence: "high", lang: "fr", match: "1130 52  b008"},
	// "15e" before the street reads first as an ordinal that starts its name; no such
	// street, and Achtergracht has 15e.
	{name: "nl number with letter e first", req: nl("15e Achtergracht", "1381 BK", "Weesp"),
		status: "valid", confidence: "high", lang: "nl", match: "1381BK 15 e "},
	{name: "nl number first", req: nl("16-bov Hugo de Grootlaan", "1381 CS", "Weesp"),
		status: "valid", confidence: "high", lang: "nl", match: "1381CS 16  bov"},
	{name: "nl only letter where the letter has toevoegingen", req: nl("Bloemendalerweg 51C", "1382 KB", "Weesp"),
		status: "corrected", issues: []adreswijzer.IssueCode{"SUFFIX_NOT_FOUND"}, confidence: "medium", lang: "nl", match: "1382KB 51 C 1"},
	{name: "be street without diacritics, city in English", req: be("Rue du Pre aux Oies 134/1", "1130", "Brussels"),
		status: "corrected", issues: []adreswijzer.IssueCode{"STREET_MISMATCH"}, confidence: "medium", lang: "fr", match: "1130 134  b001", golden: "validate_be_corrected"},
	{name: "be city in German", req: be("Rue du Pré aux Oies 134 bte 1", "1130", "Brüssel"),
		status: "valid", confidence: "high", lang: "fr", match: "1130 134  b001"},
	{name: "be city in French where the register has only Dutch", req: with(be("Stevens-de Waelplein 9", "1502", "Lembecq"), func(r *adreswijzer.ValidateRequest) { r.Address2 = str("bus 2") }),
		status: "valid", confidence: "high", lang: "nl", match: "1502 9  02"},
	{name: "be unknown box where the register has none", req: be("Route du Barrage 83 bte 4", "4960", "Bevercé"),
		status: "corrected", issues: []adreswijzer.IssueCode{"UNIT_NOT_FOUND"}, confidence: "medium", lang: "fr", match: "4960 83  "},
	// A street named after a person, typed without titles and initials, and the number on
	// the street's other side (Mr.J.C.Bührmannlaan: odd numbers at 1381 GH, 2 at 1381 GL;
	// Dr.A.Kuyperlaan 35 at 1381 DK; Mr.P.J.Troelstralaan 5 at 1381 CR, while Hugo de
	// Grootlaan 5 is at 1381 CS).
	{name: "nl street without its initials, number on the other side", req: nl("Bührmannlaan 2", "1381 GH", "Weesp"),
		status: "corrected", issues: []adreswijzer.IssueCode{"STREET_MISMATCH", "HOUSE_NUMBER_NOT_FOUND"}, confidence: "medium", lang: "nl", match: "1381GL 2  "},
	{name: "nl street without initials and diacritics", req: nl("Buhrmannlaan 2", "1381 GH", "Weesp"),
		status: "corrected", issues: []adreswijzer.IssueCode{"STREET_MISMATCH", "HOUSE_NUMBER_NOT_FOUND"}, confidence: "medium", lang: "nl", match: "1381GL 2  "},
	{name: "nl street with title, without initials", req: nl("Mr. Buhrmannlaan 2", "1381 GH", "Weesp"),
		status: "corrected", issues: []adreswijzer.IssueCode{"STREET_MISMATCH", "HOUSE_NUMBER_NOT_FOUND"}, confidence: "medium", lang: "nl", match: "1381GL 2  "},
	{name: "nl street without title and initial", req: nl("Kuyperlaan 35", "1381 CT", "Weesp"),
		status: "corrected", issues: []adreswijzer.IssueCode{"STREET_MISMATCH", "HOUSE_NUMBER_NOT_FOUND"}, confidence: "medium", lang: "nl", match: "1381DK 35  "},
	// Hugo de Grootlaan 5 is at 1381 CS: the number was not "not found" there.
	{name: "nl similar street nearby beats another street at the postcode", req: nl("Troelstralaan 5", "1381 CS", "Weesp"),
		status: "corrected", issues: []adreswijzer.IssueCode{"STREET_MISMATCH"}, confidence: "medium", lang: "nl", match: "1381CR 5  "},
	{name: "nl street without initials, number nowhere, does not block", req: nl("Bührmannlaan 999", "1381 GH", "Weesp"),
		status: "invalid", issues: []adreswijzer.IssueCode{"HOUSE_NUMBER_NOT_FOUND"}, confidence: "low", lang: "nl"},
	// One postal address registered twice counts once: Blomstraat 17 is an office in use
	// and a planned dwelling, Rue Harenheyde 89A two current Brussels ids.
	{name: "nl address registered twice, in use and planned", req: nl("Blomstraat 17", "1382 AJ", "Weesp"),
		status: "valid", confidence: "high", lang: "nl", match: "1382AJ 17  "},
	{name: "be address registered twice", req: be("Rue Harenheyde 89 A", "1130", ""),
		status: "valid", confidence: "high", lang: "fr", match: "1130 89 A "},
	// A box typed as the register writes it is that box, though it reads as a floor.
	{name: "be box written like a floor", req: with(be("Rue Abbé Péters 45", "4960", "Malmedy"), func(r *adreswijzer.ValidateRequest) { r.Address2 = str("1ET") }),
		status: "valid", confidence: "high", lang: "fr", match: "4960 45  1ET"},
	{name: "be box written like a floor, with accent", req: with(be("Rue du Commerce 22", "4960", "Malmedy"), func(r *adreswijzer.ValidateRequest) { r.Address2 = str("2ét") }),
		status: "valid", confidence: "high", lang: "fr", match: "4960 22  2ét"},
	// An ordinal in the street is part of its name, and "1er" is the register's "Ier"
	// (Place Albert Ier 24, Malmedy: the building and its box 1.Et).
	{name: "be ordinal in the street is not the house number", req: with(be("Place Albert 1er 24", "4960", "Malmedy"), func(r *adreswijzer.ValidateRequest) { r.Lang = "fr" }),
		status: "ambiguous", issues: []adreswijzer.IssueCode{"UNIT_REQUIRED", "STREET_MISMATCH"}, confidence: "low", lang: "fr", suggest: 2},
	{name: "be ordinal in the street with the box", req: be("Place Albert 1er 24 bte 1.Et", "4960", "Malmedy"),
		status: "corrected", issues: []adreswijzer.IssueCode{"STREET_MISMATCH"}, confidence: "medium", lang: "fr", match: "4960 24  1.Et"},
	{name: "be roman ordinal as the register writes it", req: be("Place Albert Ier 24 bte 1.Et", "4960", "Malmedy"),
		status: "valid", confidence: "high", lang: "fr", match: "4960 24  1.Et"},
	{name: "be ordinal street without a house number", req: be("Place Albert 1er", "4960", "Malmedy"),
		status: "invalid", issues: []adreswijzer.IssueCode{"MISSING_HOUSE_NUMBER"}, blocking: true, confidence: "low", lang: "fr"},
	// The postcode and town where platforms and customers put them: the whole address in
	// address1 or address2, the postcode and town fields swapped. Read as the agent reads
	// free text, and corrected (the fields were typed differently), never blocking.
	{name: "nl one line in address1", req: nl("Hugo de Grootlaan 16 bov, 1381 CS Weesp", "", ""),
		status: "corrected", confidence: "medium", lang: "nl", match: "1381CS 16  bov"},
	{name: "nl one line in address2 below a company", req: with(nl("Bakkerij De Vries", "", ""), func(r *adreswijzer.ValidateRequest) { r.Address2 = str("Hugo de Grootlaan 16 bov, 1381 CS Weesp") }),
		status: "corrected", confidence: "medium", lang: "nl", match: "1381CS 16  bov"},
	{name: "nl postcode and town in address2", req: with(nl("Hugo de Grootlaan 16", "", ""), func(r *adreswijzer.ValidateRequest) { r.Address2 = str("bov, 1381 CS Weesp") }),
		status: "corrected", confidence: "medium", lang: "nl", match: "1381CS 16  bov"},
	{name: "nl postcode and town fields swapped", req: nl("Hugo de Grootlaan 16 bov", "Weesp", "1381 CS"),
		status: "corrected", confidence: "medium", lang: "nl", match: "1381CS 16  bov"},
	{name: "be one line in address1", req: be("Route du Barrage 83, 4960 Malmedy", "", ""),
		status: "corrected", confidence: "medium", lang: "fr", match: "4960 83  "},
	{name: "be postcode and town fields swapped", req: be("Route du Barrage 83", "Malmedy", "4960"),
		status: "corrected", confidence: "medium", lang: "fr", match: "4960 83  "},
	// Four digits that end a Belgian street line are its house number, not a postcode.
	{name: "be house number like a postcode, no postcode typed", req: be("Chaussée de Haecht 1369", "", "Haren"),
		status: "corrected", issues: []adreswijzer.IssueCode{"FORMAT_INVALID"}, confidence: "medium", lang: "fr", match: "1130 1369  "},
	// A town with its province or country.
	{name: "nl town with province, postcode digits swapped", req: nl("Hugo de Grootlaan 16 bov", "1833 EA", "WEESP NH"),
		status: "corrected", issues: []adreswijzer.IssueCode{"CITY_MISMATCH", "POSTCODE_NOT_FOUND"}, confidence: "medium", lang: "nl", match: "1381CS 16  bov"},
	{name: "nl town with province in brackets", req: nl("Hugo de Grootlaan 16 bov", "1381 CS", "Weesp (NH)"),
		status: "corrected", issues: []adreswijzer.IssueCode{"CITY_MISMATCH"}, confidence: "medium", lang: "nl", match: "1381CS 16  bov"},
	{name: "be town with country", req: be("Rue Abbé Bastin 2", "4960", "Malmedy BE"),
		status: "corrected", issues: []adreswijzer.IssueCode{"CITY_MISMATCH"}, confidence: "medium", lang: "fr", match: "4960 2  "},
	// An unknown postcode and no town: the street and number elsewhere are offered.
	{name: "nl unknown postcode, no town, street and number elsewhere", req: nl("Hugo de Grootlaan 16 bov", "1833 EA", ""),
		status: "invalid", issues: []adreswijzer.IssueCode{"POSTCODE_NOT_FOUND"}, confidence: "low", lang: "nl", suggest: 2},
	// Floors are remarks where the register has no such unit, never a letter: Achtergracht
	// 87 has only 87a and 87b, Singel 2 only 2a and 2b, Singel 4 is bare (and 4a).
	{name: "nl roman floor at a number with letters only", req: nl("Achtergracht 87-III", "1381 BM", "Weesp"),
		status: "ambiguous", issues: []adreswijzer.IssueCode{"UNIT_REQUIRED"}, confidence: "low", lang: "nl", suggest: 2},
	{name: "nl ordinal floor at a number with letters only", req: nl("Singel 2 2e", "1381 AT", "Weesp"),
		status: "ambiguous", issues: []adreswijzer.IssueCode{"UNIT_REQUIRED"}, confidence: "low", lang: "nl", suggest: 2},
	{name: "nl floor in address2 at a number with letters only", req: with(nl("Singel 2", "1381 AT", "Weesp"), func(r *adreswijzer.ValidateRequest) { r.Address2 = str("2e verdieping") }),
		status: "ambiguous", issues: []adreswijzer.IssueCode{"UNIT_REQUIRED"}, confidence: "low", lang: "nl", suggest: 2},
	{name: "nl floor at a bare number", req: nl("Singel 4 3 hoog", "1381 AT", "Weesp"),
		status: "corrected", issues: []adreswijzer.IssueCode{"UNIT_NOT_FOUND"}, confidence: "medium", lang: "nl", match: "1381AT 4  "},
	{name: "nl toevoeging at a number with letters only is no letter", req: nl("Achtergracht 87-2", "1381 BM", "Weesp"),
		status: "invalid", issues: []adreswijzer.IssueCode{"UNIT_NOT_FOUND"}, confidence: "low", lang: "nl", suggest: 2},
	// Letter and toevoeging in address2 (Lange Muiderweg 6 b 9b; 6b alone exists too).
	{name: "nl letter and toevoeging in address2", req: with(nl("Lange Muiderweg 6", "1382 LA", "Weesp"), func(r *adreswijzer.ValidateRequest) { r.Address2 = str("b 9b") }),
		status: "valid", confidence: "high", lang: "nl", match: "1382LA 6 b 9b"},
	// Abbreviations resolve also where the number is missing.
	{name: "nl abbreviated street, number not there", req: nl("Herengr. 769", "1382 AE", "Weesp"),
		status: "invalid", issues: []adreswijzer.IssueCode{"HOUSE_NUMBER_NOT_FOUND"}, confidence: "low", lang: "nl"},
	{name: "nl abbreviated street", req: nl("Herengr. 2a", "1382 AE", "Weesp"),
		status: "corrected", issues: []adreswijzer.IssueCode{"STREET_MISMATCH"}, confidence: "medium", lang: "nl", match: "1382AE 2 a "},
	{name: "be Ch. for Chemin", req: be("Ch. du Lêfa 24", "4960", "Malmedy"),
		status: "corrected", issues: []adreswijzer.IssueCode{"STREET_MISMATCH"}, confidence: "medium", lang: "fr", match: "4960 24  "},
	{name: "be Ch. for Chaussée", req: be("Ch. de Haecht 1369", "1130", "Haren"),
		status: "corrected", issues: []adreswijzer.IssueCode{"STREET_MISMATCH"}, confidence: "medium", lang: "fr", match: "1130 1369  "},
	{name: "be Ch. for Chaussée, number not there", req: be("Ch. de Haecht 1", "1130", "Haren"),
		status: "invalid", issues: []adreswijzer.IssueCode{"HOUSE_NUMBER_NOT_FOUND"}, confidence: "low", lang: "fr", suggest: 10},
	// Two readings that conflict: the street typed with the number at another postcode,
	// without the toevoeging typed; the postcode, number and toevoeging typed on another
	// street (Hugo de Grootlaan 16 bov, 1381 CS). The issue names that street; nothing was
	// "not found".
	{name: "nl street and postcode name two addresses", req: with(nl("Achtergracht 16", "1381 CS", "Weesp"), func(r *adreswijzer.ValidateRequest) { r.Address2 = str("bov") }),
		status: "ambiguous", issues: []adreswijzer.IssueCode{"STREET_MISMATCH"}, confidence: "low", lang: "nl", suggest: 2, golden: "validate_nl_two_readings"},
	// Text in decomposed form is the text the register holds; invisible characters are
	// removed before matching, and what held them was not typed as the register writes it.
	{name: "be street in decomposed unicode", req: be("Rue Abbe\u0301 Bastin 2", "4960", "Malmedy"),
		status: "valid", confidence: "high", lang: "fr", match: "4960 2  "},
	{name: "be zero-width space in the street", req: be("Rue Abbé\u200b Bastin 2", "4960", "Malmedy"),
		status: "corrected", issues: []adreswijzer.IssueCode{"STREET_MISMATCH"}, confidence: "medium", lang: "fr", match: "4960 2  "},
	{name: "nl control and bidi characters", req: with(nl("Hugo de Grootlaan 16\x00", "1381 CS", "Weesp\u200e"), func(r *adreswijzer.ValidateRequest) { r.Address2 = str("b\u200dov") }),
		status: "corrected", issues: []adreswijzer.IssueCode{"STREET_MISMATCH", "CITY_MISMATCH"}, confidence: "medium", lang: "nl", match: "1381CS 16  bov"},
	{name: "nl tab in the street line", req: nl("Hugo de Grootlaan\t16 bov", "1381 CS", "Weesp"),
		status: "corrected", issues: []adreswijzer.IssueCode{"STREET_MISMATCH"}, confidence: "medium", lang: "nl", match: "1381CS 16  bov"},
	{name: "nl byte-order mark in the postcode", req: nl("Hugo de Grootlaan 16 bov", "\ufeff1381 CS", "Weesp"),
		status: "corrected", confidence: "medium", lang: "nl", match: "1381CS 16  bov"},
	// Ambiguous.
	{name: "nl toevoeging required", req: nl("Hugo de Grootlaan 16", "1381 CS", "Weesp"),
		status: "ambiguous", issues: []adreswijzer.IssueCode{"UNIT_REQUIRED"}, confidence: "low", lang: "nl", suggest: 2, golden: "validate_nl_unit_required"},
	// Invalid, not blocking.
	{name: "nl toevoeging not found", req: with(nl("Hugo de Grootlaan 16", "1381 CS", "Weesp"), func(r *adreswijzer.ValidateRequest) { r.Address2 = str("3") }),
		status: "invalid", issues: []adreswijzer.IssueCode{"UNIT_NOT_FOUND"}, confidence: "low", lang: "nl", suggest: 2, golden: "validate_nl_unit_not_found"},
	{name: "nl letter not found", req: nl("Henriëtte Roland Holsthof 1Q", "1382 SH", "Weesp"),
		status: "invalid", issues: []adreswijzer.IssueCode{"SUFFIX_NOT_FOUND"}, confidence: "low", lang: "nl", suggest: 1},
	{name: "nl house number not found", req: nl("Hugo de Grootlaan 999", "1381 CS", "Weesp"),
		status: "invalid", issues: []adreswijzer.IssueCode{"HOUSE_NUMBER_NOT_FOUND"}, confidence: "low", lang: "nl", golden: "validate_nl_number_not_found"},
	{name: "nl unknown postcode on a street of the city does not block", req: nl("Hugo de Grootlaan 999", "1381 ZZ", "Weesp"),
		status: "invalid", issues: []adreswijzer.IssueCode{"POSTCODE_NOT_FOUND"}, confidence: "low", lang: "nl"},
	{name: "be box not found", req: be("Stevens-de Waelplein 9 bus 7", "1502", "Lembeek"),
		status: "invalid", issues: []adreswijzer.IssueCode{"UNIT_NOT_FOUND"}, confidence: "low", lang: "nl", suggest: 4},
	{name: "be street not in postcode", req: be("Kerkstraat 9", "1502", "Lembeek"),
		status: "invalid", issues: []adreswijzer.IssueCode{"STREET_MISMATCH"}, confidence: "low", lang: "nl", suggest: 10},
	{name: "be unknown postcode does not block", req: be("Rue de la Loi 16", "1040", "Etterbeek"),
		status: "invalid", issues: []adreswijzer.IssueCode{"POSTCODE_NOT_FOUND"}, confidence: "low", lang: "fr"},
	{name: "customer confirmed an unknown address", req: with(nl("Kerkstraat 1", "3511 LX", "Utrecht"), func(r *adreswijzer.ValidateRequest) { r.CustomerConfirmed = true }),
		status: "invalid", issues: []adreswijzer.IssueCode{"POSTCODE_NOT_FOUND", "UNVERIFIED_CONFIRMED_BY_CUSTOMER"}, confidence: "low", lang: "nl", golden: "validate_confirmed"},
	// An allowed PO box cannot be verified: the issue names what the register lacks, the
	// PO-box postcode or, at a postcode it has, the box number.
	{name: "allowed po box is accepted unverified", req: with(nl("Postbus 100", "1380 AC", "Weesp"), func(r *adreswijzer.ValidateRequest) { r.AllowPoBox = true }),
		status: "invalid", issues: []adreswijzer.IssueCode{"POSTCODE_NOT_FOUND"}, confidence: "low", lang: "nl"},
	{name: "allowed po box at a register postcode", req: with(be("Postbus 100", "1130", "Haren"), func(r *adreswijzer.ValidateRequest) { r.AllowPoBox = true }),
		status: "invalid", issues: []adreswijzer.IssueCode{"HOUSE_NUMBER_NOT_FOUND"}, confidence: "low", lang: "fr"},
	{name: "allowed po box without a postcode blocks", req: with(nl("Postbus 100", "", "Weesp"), func(r *adreswijzer.ValidateRequest) { r.AllowPoBox = true }),
		status: "invalid", issues: []adreswijzer.IssueCode{"FORMAT_INVALID"}, blocking: true, confidence: "low", lang: "nl"},
	{name: "allowed po box confirmed", req: with(nl("Postbus 100", "1380 AC", "Weesp"), func(r *adreswijzer.ValidateRequest) { r.AllowPoBox = true; r.CustomerConfirmed = true }),
		status: "invalid", issues: []adreswijzer.IssueCode{"POSTCODE_NOT_FOUND", "UNVERIFIED_CONFIRMED_BY_CUSTOMER"}, confidence: "low", lang: "nl"},
	{name: "unsupported country", req: adreswijzer.ValidateRequest{CountryCode: "DE", Address1: "Unter den Linden 1", Zip: "10117", City: str("Berlin")},
		status: "invalid", issues: []adreswijzer.IssueCode{"UNSUPPORTED_COUNTRY"}, confidence: "low", lang: "nl", golden: "validate_unsupported"},
	// Invalid and blocking.
	{name: "missing house number", req: nl("Hugo de Grootlaan", "1381 CS", "Weesp"),
		status: "invalid", issues: []adreswijzer.IssueCode{"MISSING_HOUSE_NUMBER"}, blocking: true, confidence: "low", lang: "nl", golden: "validate_missing_number"},
	{name: "missing house number blocks even when confirmed", req: with(nl("Hugo de Grootlaan", "1381 CS", "Weesp"), func(r *adreswijzer.ValidateRequest) { r.CustomerConfirmed = true }),
		status: "invalid", issues: []adreswijzer.IssueCode{"MISSING_HOUSE_NUMBER"}, blocking: true, confidence: "low", lang: "nl"},
	{name: "po box not allowed", req: nl("Postbus 100", "1380 AC", "Weesp"),
		status: "invalid", issues: []adreswijzer.IssueCode{"PO_BOX_NOT_ALLOWED"}, blocking: true, confidence: "low", lang: "nl", golden: "validate_po_box"},
	{name: "po box blocks even when confirmed", req: with(be("Postbus 100", "1130", "Haren"), func(r *adreswijzer.ValidateRequest) { r.CustomerConfirmed = true }),
		status: "invalid", issues: []adreswijzer.IssueCode{"PO_BOX_NOT_ALLOWED"}, blocking: true, confidence: "low", lang: "fr"},
	{name: "dutch postcode with neither number nor street", req: nl("Kerkstraat 1", "3511 LX", "Utrecht"),
		status: "invalid", issues: []adreswijzer.IssueCode{"POSTCODE_NOT_FOUND"}, blocking: true, confidence: "low", lang: "nl"},
	{name: "dutch known postcode, street and number elsewhere", req: nl("Kerkstraat 999", "1381 CS", ""),
		status: "invalid", issues: []adreswijzer.IssueCode{"STREET_MISMATCH"}, blocking: true, confidence: "low", lang: "nl"},
	// A street name recurs from town to town (Kerkstraat 510 times nationally): without a
	// postcode or city the register's addresses with that street and number are offered.
	{name: "street name alone is offered, not chosen", req: nl("Kerkstraat 1", "", ""),
		status: "invalid", issues: []adreswijzer.IssueCode{"FORMAT_INVALID"}, blocking: true, confidence: "low", lang: "nl", suggest: 4},
	{name: "street and the digits of the postcode identify the address", req: nl("Kerkstraat 1", "1381", ""),
		status: "corrected", issues: []adreswijzer.IssueCode{"FORMAT_INVALID"}, confidence: "medium", lang: "nl", match: "1381XN 1  "},
	{name: "missing postcode and no way to find it", req: nl("Nergensstraat 1", "", ""),
		status: "invalid", issues: []adreswijzer.IssueCode{"FORMAT_INVALID"}, blocking: true, confidence: "low", lang: "nl"},
	{name: "belgian postcode in a dutch form", req: nl("Stevens-de Waelplein 9", "1502", "Lembeek"),
		status: "invalid", issues: []adreswijzer.IssueCode{"FORMAT_INVALID", "COUNTRY_AMBIGUOUS"}, blocking: true, confidence: "low", lang: "nl", golden: "validate_country_ambiguous"},
	{name: "carrier line too long", req: with(be("Ganzenweidestraat 134", "1130", "Haren"), func(r *adreswijzer.ValidateRequest) { r.Address2 = str("bus 1"); r.Carrier = "sendcloud" }),
		status: "valid", issues: []adreswijzer.IssueCode{"CARRIER_LINE_TOO_LONG"}, confidence: "high", lang: "nl", match: "1130 134  b001", golden: "validate_carrier_too_long"},
	{name: "carrier within limits", req: with(nl("Hugo de Grootlaan 16 ben", "1381 CS", "Weesp"), func(r *adreswijzer.ValidateRequest) { r.Carrier = "postnl" }),
		status: "valid", confidence: "high", lang: "nl", match: "1381CS 16  ben"},
}

func matchKey(m *adreswijzer.AddressMatch) string {
	if m == nil {
		return ""
	}
	s := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	n := 0
	if m.HouseNumber != nil {
		n = *m.HouseNumber
	}
	return m.Postcode + " " + itoa(n) + " " + s(m.HouseNumberSuffix) + " " + s(m.Unit)
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

func TestValidate(t *testing.T) {
	e, _ := sampleEngine(t)
	for _, tc := range validateCases {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := e.Validate(context.Background(), tc.req)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Status != tc.status {
				t.Errorf("status = %s, want %s (issues %v)", resp.Status, tc.status, issueCodes(resp.Issues))
			}
			got := issueCodes(resp.Issues)
			slices.Sort(got)
			want := slices.Clone(tc.issues)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("issues = %v, want %v", got, want)
			}
			if resp.Blocking != tc.blocking {
				t.Errorf("blocking = %v, want %v", resp.Blocking, tc.blocking)
			}
			if resp.Confidence != tc.confidence {
				t.Errorf("confidence = %s, want %s", resp.Confidence, tc.confidence)
			}
			if resp.Meta.Language != tc.lang {
				t.Errorf("language = %s, want %s", resp.Meta.Language, tc.lang)
			}
			if got := matchKey(resp.Match); got != tc.match {
				t.Errorf("match = %q, want %q", got, tc.match)
			}
			if len(resp.Suggestions) != tc.suggest {
				t.Errorf("%d suggestions, want %d", len(resp.Suggestions), tc.suggest)
			}
			checkValidateShape(t, tc.req, resp)
			conforms(t, "POST", "/v1/validate", tc.req, resp, resp.Meta)
			if tc.golden != "" {
				goldenJSON(t, tc.golden, resp)
			}
		})
	}
}

// checkValidateShape checks what every validate answer must hold, whatever the verdict.
func checkValidateShape(t *testing.T, req adreswijzer.ValidateRequest, resp adreswijzer.ValidateResponse) {
	t.Helper()
	if resp.NextStep == "" || strings.Count(resp.NextStep, ".") > 2 {
		t.Errorf("nextStep %q is not one plain sentence", resp.NextStep)
	}
	if resp.Issues == nil || resp.Suggestions == nil {
		t.Error("issues and suggestions must be arrays, never null")
	}
	if len(resp.Suggestions) > adreswijzer.MaxSuggestions {
		t.Errorf("%d suggestions, at most %d allowed", len(resp.Suggestions), adreswijzer.MaxSuggestions)
	}
	for _, is := range resp.Issues {
		if is.Severity != is.Code.Severity() || is.Message == "" {
			t.Errorf("issue %+v: severity or message wrong", is)
		}
	}
	if resp.Status == adreswijzer.VerdictInvalid && !slices.ContainsFunc(resp.Issues, func(is adreswijzer.Issue) bool { return is.Field != "" }) {
		t.Errorf("an invalid answer must name the field to check in an issue: %v", issueCodes(resp.Issues))
	}
	one := resp.Status == adreswijzer.VerdictValid || resp.Status == adreswijzer.VerdictCorrected
	if one != (resp.Match != nil) || one != (resp.Normalized != nil) || one != (resp.Formatted != nil) {
		t.Errorf("status %s with match %v, normalized %v, formatted %v", resp.Status, resp.Match != nil, resp.Normalized != nil, resp.Formatted != nil)
	}
	if (resp.Carrier != nil) != one {
		t.Errorf("carrier present = %v for status %s", resp.Carrier != nil, resp.Status)
	}
	if resp.Carrier != nil {
		// The national operator's fields when no carrier is named; its warnings are
		// issues only when one is.
		copied := 0
		for _, is := range resp.Issues {
			if is.Code == adreswijzer.IssueCarrierLineTooLong {
				copied++
			}
		}
		if named := req.Carrier != ""; named && copied != len(resp.Carrier.Warnings) || !named && copied != 0 {
			t.Errorf("%d CARRIER_LINE_TOO_LONG issues for %d carrier warnings, carrier named: %v", copied, len(resp.Carrier.Warnings), named)
		}
	}
	if one && resp.Blocking {
		t.Error("a register address is never blocking")
	}
	if c, ok := adreswijzer.ParseCountry(req.CountryCode); ok {
		if resp.Meta.Source == nil || resp.Meta.DatasetVersion == nil {
			t.Error("meta must name the register and dataset version")
		}
		if (resp.Meta.Attribution != nil) != (c == adreswijzer.BE) {
			t.Errorf("attribution %v for %s", resp.Meta.Attribution, c)
		}
	}
}

// TestValidateNormalizedIsValid feeds every normalized answer back: the register version in
// checkout fields must itself be valid.
func TestValidateNormalizedIsValid(t *testing.T) {
	e, _ := sampleEngine(t)
	for _, tc := range validateCases {
		resp, err := e.Validate(context.Background(), tc.req)
		if err != nil {
			t.Fatal(err)
		}
		n := resp.Normalized
		if n == nil {
			continue
		}
		again, err := e.Validate(context.Background(), adreswijzer.ValidateRequest{
			CountryCode: string(n.CountryCode), Address1: n.Address1, Address2: n.Address2, Zip: n.Zip, City: &n.City, Lang: tc.req.Lang,
		})
		if err != nil {
			t.Fatal(err)
		}
		if again.Status != adreswijzer.VerdictValid || matchKey(again.Match) != matchKey(resp.Match) {
			t.Errorf("%s: normalized %+v validates as %s %q (issues %v), want valid %q",
				tc.name, *n, again.Status, matchKey(again.Match), issueCodes(again.Issues), matchKey(resp.Match))
		}
	}
}

// TestValidateEveryIssueCode checks that the cases above cover every issue code.
func TestValidateEveryIssueCode(t *testing.T) {
	seen := map[adreswijzer.IssueCode]bool{}
	verdicts := map[adreswijzer.Verdict]bool{}
	for _, tc := range validateCases {
		for _, c := range tc.issues {
			seen[c] = true
		}
		verdicts[tc.status] = true
	}
	for _, c := range adreswijzer.IssueCodes {
		if !seen[c] {
			t.Errorf("no validate case produces %s", c)
		}
	}
	for _, v := range []adreswijzer.Verdict{"valid", "corrected", "ambiguous", "invalid"} {
		if !verdicts[v] {
			t.Errorf("no validate case gives %s", v)
		}
	}
}

// TestValidateStreetEndingInNumber uses real national street names that end in a number
// (in the national-size catalog; see nationalAddresses): typed without a house number they
// must not be read as number 1813 of a street "Plein", and typed with one they are found,
// whichever way the line reads first (Lelystad's "Punter 46 15" reads as Punter 46 with
// toevoeging 15 before the register says otherwise).
func TestValidateStreetEndingInNumber(t *testing.T) {
	e := nationalEngine(t)
	for _, name := range []string{"Plein 1813", "Laan 1940-1945", "Punter 46", "Gondel 32"} {
		var a *adreswijzer.Address
		for _, x := range nationalAddresses(t) {
			if x.Street.NL == name {
				a = &x
				break
			}
		}
		if a == nil {
			t.Fatalf("%q is not a national street name", name)
		}
		pc := adreswijzer.FormatPostcode(adreswijzer.NL, a.Postcode)
		resp, err := e.Validate(context.Background(), nl(name, pc, a.Locality.NL))
		if err != nil {
			t.Fatal(err)
		}
		if got := issueCodes(resp.Issues); resp.Status != "invalid" || !resp.Blocking || !slices.Equal(got, []adreswijzer.IssueCode{"MISSING_HOUSE_NUMBER"}) {
			t.Errorf("%q: %s blocking %v issues %v, want invalid, blocking, MISSING_HOUSE_NUMBER", name, resp.Status, resp.Blocking, got)
		}
		resp, err = e.Validate(context.Background(), nl(name+" "+itoa(a.HouseNumber), pc, a.Locality.NL))
		if err != nil {
			t.Fatal(err)
		}
		if resp.Status != "valid" {
			t.Errorf("%q with its number: %s %v", name, resp.Status, issueCodes(resp.Issues))
		}
	}
}
