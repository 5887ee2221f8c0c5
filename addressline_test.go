package adreswijzer_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/adreswijzer/adreswijzer"
)

func TestParseAddressLine(t *testing.T) {
	NL, BE := adreswijzer.NL, adreswijzer.BE
	type line = adreswijzer.AddressLine
	tests := []struct {
		c    adreswijzer.Country
		in   string
		want line
	}{
		{NL, "Kerkstraat 12a", line{Street: "Kerkstraat", Number: hn{Number: 12, Suffix: "A"}, HasNumber: true}},
		{NL, "Kerkstraat 12 A", line{Street: "Kerkstraat", Number: hn{Number: 12, Suffix: "A"}, HasNumber: true}},
		{NL, "Kerkstraat12a", line{Street: "Kerkstraat", Number: hn{Number: 12, Suffix: "A"}, HasNumber: true}},
		{NL, "  Kerkstraat   12a  ", line{Street: "Kerkstraat", Number: hn{Number: 12, Suffix: "A"}, HasNumber: true}},
		{NL, "12 Kerkstraat", line{Street: "Kerkstraat", Number: hn{Number: 12}, HasNumber: true}},
		{NL, "12a Kerkstraat", line{Street: "Kerkstraat", Number: hn{Number: 12, Suffix: "A"}, HasNumber: true}},
		{NL, "12 Dam", line{Street: "Dam", Number: hn{Number: 12}, HasNumber: true}},
		{NL, "Dam 1", line{Street: "Dam", Number: hn{Number: 1}, HasNumber: true}},
		{NL, "Kerkstraat 12-14", line{Street: "Kerkstraat", Number: hn{Number: 12, Unit: "14"}, HasNumber: true}},
		{NL, "Kerkstraat 12 2 hoog", line{Street: "Kerkstraat", Number: hn{Number: 12, Unit: "2", Floor: true}, HasNumber: true}},
		// A floor after the number, an ordinal or a floor word, keeps the number before it
		// the house number, even after a lone street noun ("Plein 1813 4" swaps).
		{NL, "Kerkstraat 12 2e", line{Street: "Kerkstraat", Number: hn{Number: 12, Unit: "2", Floor: true}, HasNumber: true}},
		{NL, "Kerkstraat 12, 3de", line{Street: "Kerkstraat", Number: hn{Number: 12, Unit: "3", Floor: true}, HasNumber: true}},
		{NL, "Kerkstraat 12-2e", line{Street: "Kerkstraat", Number: hn{Number: 12, Unit: "2", Floor: true}, HasNumber: true}},
		{NL, "Achtergracht 87-III", line{Street: "Achtergracht", Number: hn{Number: 87, Unit: "III", Floor: true}, HasNumber: true}},
		{NL, "Kerkstraat 12 huis", line{Street: "Kerkstraat", Number: hn{Number: 12, Unit: "HUIS", Floor: true}, HasNumber: true}},
		{NL, "Kerkstraat 12, Amsterdam", line{Street: "Kerkstraat", Number: hn{Number: 12}, HasNumber: true}},
		{NL, "Kerkstraat 12 Amsterdam", line{Street: "Kerkstraat", Number: hn{Number: 12}, HasNumber: true}},
		{NL, "Stationsweg 11e Weesp", line{Street: "Stationsweg", Number: hn{Number: 11, Suffix: "E"}, HasNumber: true}},
		{NL, "Kerkstraat nr. 12", line{Street: "Kerkstraat", Number: hn{Number: 12}, HasNumber: true}},
		{NL, "Kerkstraat", line{Street: "Kerkstraat"}},
		{NL, "", line{}},
		{NL, "2e Hugo de Grootstraat 12", line{Street: "2e Hugo de Grootstraat", Number: hn{Number: 12}, HasNumber: true}},
		{NL, "2e Hugo de Grootstraat", line{Street: "2e Hugo de Grootstraat"}},
		{NL, "1e Constantijn Huygensstraat 20-III", line{Street: "1e Constantijn Huygensstraat", Number: hn{Number: 20, Unit: "III", Floor: true}, HasNumber: true}},
		{NL, "Laan 1940-1945 12", line{Street: "Laan 1940-1945", Number: hn{Number: 12}, HasNumber: true}},
		{NL, "Plein 1813 4", line{Street: "Plein 1813", Number: hn{Number: 4}, HasNumber: true}},
		{NL, "Plein 1", line{Street: "Plein", Number: hn{Number: 1}, HasNumber: true}},
		{NL, "Plein 1945 2 A", line{Street: "Plein 1945", Number: hn{Number: 2, Suffix: "A"}, HasNumber: true}},
		{NL, "De Ruijterkade 105 1", line{Street: "De Ruijterkade", Number: hn{Number: 105, Unit: "1"}, HasNumber: true}},
		{NL, "Achter 't Vosje 12", line{Street: "Achter 't Vosje", Number: hn{Number: 12}, HasNumber: true}},
		{NL, "'s-Gravelandseweg 12-II", line{Street: "'s-Gravelandseweg", Number: hn{Number: 12, Unit: "II", Floor: true}, HasNumber: true}},
		{NL, "22b 's-Gravelandseweg", line{Street: "'s-Gravelandseweg", Number: hn{Number: 22, Suffix: "B"}, HasNumber: true}},
		{NL, "12, 't Zand", line{Street: "'t Zand", Number: hn{Number: 12}, HasNumber: true}},
		{NL, "Zwolseweg 1A/101", line{Street: "Zwolseweg", Number: hn{Number: 1, Suffix: "A", Unit: "101"}, HasNumber: true}},
		{NL, "Burg v N v Sevenaerstr 1 BEN", line{Street: "Burg v N v Sevenaerstr", Number: hn{Number: 1, Unit: "BEN"}, HasNumber: true}},
		{NL, "Belgiëlaan 1 A3", line{Street: "Belgiëlaan", Number: hn{Number: 1, Suffix: "A", Unit: "3"}, HasNumber: true}},
		{NL, "Defensieweg 16 DK", line{Street: "Defensieweg", Number: hn{Number: 16, Unit: "DK"}, HasNumber: true}},
		{NL, "Burg. Jos. Duijsensstr. 7", line{Street: "Burg. Jos. Duijsensstr.", Number: hn{Number: 7}, HasNumber: true}},
		{NL, "Kinkerstraat 37-III achter", line{Street: "Kinkerstraat", Number: hn{Number: 37, Unit: "III", Floor: true}, HasNumber: true}},
		{NL, "Kerkstraat 12 boven", line{Street: "Kerkstraat", Number: hn{Number: 12, Unit: "BOV"}, HasNumber: true}},
		{NL, "Ｋｅｒｋｓｔｒａａｔ　１２", line{Street: "Kerkstraat", Number: hn{Number: 12}, HasNumber: true}},
		{NL, "Postbus 123", line{Street: "Postbus", Number: hn{Number: 123}, HasNumber: true, PoBox: true}},
		{NL, "postbus 19100", line{Street: "postbus", Number: hn{Number: 19100}, HasNumber: true, PoBox: true}},
		{NL, "Postbus", line{Street: "Postbus", PoBox: true}},
		{NL, "Antwoordnummer 1234", line{Street: "Antwoordnummer", Number: hn{Number: 1234}, HasNumber: true, PoBox: true}},
		{NL, "P.O. Box 626", line{Street: "P.O. Box", Number: hn{Number: 626}, HasNumber: true, PoBox: true}},
		{NL, "PO Box 12", line{Street: "PO Box", Number: hn{Number: 12}, HasNumber: true, PoBox: true}},
		{NL, "PB 12", line{Street: "PB", Number: hn{Number: 12}, HasNumber: true, PoBox: true}},
		{NL, "Postfach 12", line{Street: "Postfach", Number: hn{Number: 12}, HasNumber: true, PoBox: true}},
		{NL, "Postbusweg 12", line{Street: "Postbusweg", Number: hn{Number: 12}, HasNumber: true}},
		{NL, "Pb-laan 3", line{Street: "Pb-laan", Number: hn{Number: 3}, HasNumber: true}},
		{BE, "Rue de la Loi 16 bte 3", line{Street: "Rue de la Loi", Number: hn{Number: 16, Unit: "3", UnitMarker: bus}, HasNumber: true}},
		{BE, "Rue de la Loi, 16/3", line{Street: "Rue de la Loi", Number: hn{Number: 16, Unit: "3"}, HasNumber: true}},
		{BE, "12, rue de la Loi", line{Street: "rue de la Loi", Number: hn{Number: 12}, HasNumber: true}},
		{BE, "12 bte 3, rue de la Loi", line{Street: "rue de la Loi", Number: hn{Number: 12, Unit: "3", UnitMarker: bus}, HasNumber: true}},
		{BE, "12bis rue du Moulin", line{Street: "rue du Moulin", Number: hn{Number: 12, Suffix: "BIS"}, HasNumber: true}},
		{BE, "12 bis rue du Moulin", line{Street: "rue du Moulin", Number: hn{Number: 12, Suffix: "BIS"}, HasNumber: true}},
		{BE, "Rue du 8 Mai 12", line{Street: "Rue du 8 Mai", Number: hn{Number: 12}, HasNumber: true}},
		{BE, "Rue du 8 Mai", line{Street: "Rue du 8 Mai"}},
		// An ordinal in the street is no house number (BeST: "Place Albert Ier" 24, Malmedy).
		{BE, "Place Albert 1er 24", line{Street: "Place Albert 1er", Number: hn{Number: 24}, HasNumber: true}},
		{BE, "Place Albert 1er, 24", line{Street: "Place Albert 1er", Number: hn{Number: 24}, HasNumber: true}},
		{BE, "Place Albert 1er 24 bte 2", line{Street: "Place Albert 1er", Number: hn{Number: 24, Unit: "2", UnitMarker: "bus"}, HasNumber: true}},
		{BE, "Avenue Léopold 1er", line{Street: "Avenue Léopold 1er"}},
		{BE, "Place Albert Ier 24", line{Street: "Place Albert Ier", Number: hn{Number: 24}, HasNumber: true}},
		{BE, "Rue de la 2ème Armée 7", line{Street: "Rue de la 2ème Armée", Number: hn{Number: 7}, HasNumber: true}},
		{NL, "Kerkstraat 1ste 3", line{Street: "Kerkstraat 1ste", Number: hn{Number: 3}, HasNumber: true}},
		{BE, "Kerkstraat 9E", line{Street: "Kerkstraat", Number: hn{Number: 9, Suffix: "E"}, HasNumber: true}},
		{BE, "Avenue du 11 Novembre 12 bte 3", line{Street: "Avenue du 11 Novembre", Number: hn{Number: 12, Unit: "3", UnitMarker: bus}, HasNumber: true}},
		{BE, "Rue des 3 Tilleuls", line{Street: "Rue des 3 Tilleuls"}},
		{BE, "Kerkstraat 12-14", line{Street: "Kerkstraat", Number: hn{Number: 12, RangeEnd: 14}, HasNumber: true}},
		{BE, "Kerkstraat 12 2 hoog", line{Street: "Kerkstraat", Number: hn{Number: 12}, HasNumber: true}},
		{BE, "Laan 1940-1945 12", line{Street: "Laan 1940-1945", Number: hn{Number: 12}, HasNumber: true}},
		{BE, "Steengroefstraat 21-27", line{Street: "Steengroefstraat", Number: hn{Number: 21, RangeEnd: 27}, HasNumber: true}},
		{BE, "Louizalaan 43-45", line{Street: "Louizalaan", Number: hn{Number: 43, RangeEnd: 45}, HasNumber: true}},
		{BE, "Dieweg 61/2", line{Street: "Dieweg", Number: hn{Number: 61, Unit: "2"}, HasNumber: true}},
		{BE, "Joseph Wauters-plein 16/1 bus 8", line{Street: "Joseph Wauters-plein", Number: hn{Number: 16, Suffix: "1", Unit: "8", UnitMarker: bus}, HasNumber: true}},
		{BE, "Bouillonlaan 16B bus 207", line{Street: "Bouillonlaan", Number: hn{Number: 16, Suffix: "B", Unit: "207", UnitMarker: bus}, HasNumber: true}},
		{BE, "Prins Boudewijnlaan 33 Bus 2000", line{Street: "Prins Boudewijnlaan", Number: hn{Number: 33, Unit: "2000", UnitMarker: bus}, HasNumber: true}},
		{BE, "Rue de la Senne 32 bte 20", line{Street: "Rue de la Senne", Number: hn{Number: 32, Unit: "20", UnitMarker: bus}, HasNumber: true}},
		{BE, "Zennestraat 32 bus 20", line{Street: "Zennestraat", Number: hn{Number: 32, Unit: "20", UnitMarker: bus}, HasNumber: true}},
		{BE, "Grand-Place 2 bte 3", line{Street: "Grand-Place", Number: hn{Number: 2, Unit: "3", UnitMarker: bus}, HasNumber: true}},
		{BE, "Rue Courtejoie 17 bte 1", line{Street: "Rue Courtejoie", Number: hn{Number: 17, Unit: "1", UnitMarker: bus}, HasNumber: true}},
		{BE, "Oude Koornmarkt 39", line{Street: "Oude Koornmarkt", Number: hn{Number: 39}, HasNumber: true}},
		{BE, "Rue de la Loi 16, 1000 Bruxelles", line{Street: "Rue de la Loi", Number: hn{Number: 16}, HasNumber: true}},
		// Real BeST street names with numbers (streets_part.csv).
		{BE, "Esplanade Solidarnosc 1980 5", line{Street: "Esplanade Solidarnosc 1980", Number: hn{Number: 5}, HasNumber: true}},
		{BE, "Autosnelweg A12", line{Street: "Autosnelweg A12"}},
		{BE, "Autoroute A12 3", line{Street: "Autoroute A12", Number: hn{Number: 3}, HasNumber: true}},
		{BE, "25 augustusgalerijen 3", line{Street: "25 augustusgalerijen", Number: hn{Number: 3}, HasNumber: true}},
		{BE, "Galeries du 25 août 3", line{Street: "Galeries du 25 août", Number: hn{Number: 3}, HasNumber: true}},
		{BE, "Rue du 17 décembre 1944 7", line{Street: "Rue du 17 décembre 1944", Number: hn{Number: 7}, HasNumber: true}},
		{BE, "Rue du 2ème Cyclistes 5", line{Street: "Rue du 2ème Cyclistes", Number: hn{Number: 5}, HasNumber: true}},
		{BE, "Square van de 21ste juli 4 bus 2", line{Street: "Square van de 21ste juli", Number: hn{Number: 4, Unit: "2", UnitMarker: bus}, HasNumber: true}},
		{BE, "Boîte postale 12", line{Street: "Boîte postale", Number: hn{Number: 12}, HasNumber: true, PoBox: true}},
		{BE, "BP 12", line{Street: "BP", Number: hn{Number: 12}, HasNumber: true, PoBox: true}},
		{BE, "Postbus 5", line{Street: "Postbus", Number: hn{Number: 5}, HasNumber: true, PoBox: true}},
		{BE, "Kerkstraat 12345678", line{Street: "Kerkstraat 12345678"}},
		{BE, "Kerkstraat \xff12", line{Street: "Kerkstraat \uFFFD", Number: hn{Number: 12}, HasNumber: true}},
	}
	for _, tt := range tests {
		got := adreswijzer.ParseAddressLine(tt.c, tt.in)
		got.Alt = nil // below
		if got != tt.want {
			t.Errorf("ParseAddressLine(%s, %q) =\n\t%+v\nwant\t%+v", tt.c, tt.in, got, tt.want)
		}
	}

	// Two spaced numbers in a row: the reading not taken is kept for the matcher, which
	// knows whether a street with the first number in its name exists (Lelystad's
	// "Punter 46").
	alts := []struct {
		c    adreswijzer.Country
		in   string
		want line
		alt  *line
	}{
		{NL, "Punter 46 15", line{Street: "Punter", Number: hn{Number: 46, Unit: "15"}, HasNumber: true},
			&line{Street: "Punter 46", Number: hn{Number: 15}, HasNumber: true}},
		{NL, "Plein 1813 4", line{Street: "Plein 1813", Number: hn{Number: 4}, HasNumber: true},
			&line{Street: "Plein", Number: hn{Number: 1813, Unit: "4"}, HasNumber: true}},
		{NL, "De Ruijterkade 105 1", line{Street: "De Ruijterkade", Number: hn{Number: 105, Unit: "1"}, HasNumber: true},
			&line{Street: "De Ruijterkade 105", Number: hn{Number: 1}, HasNumber: true}},
		{BE, "Esplanade Solidarnosc 1980 5", line{Street: "Esplanade Solidarnosc 1980", Number: hn{Number: 5}, HasNumber: true},
			&line{Street: "Esplanade Solidarnosc", Number: hn{Number: 1980, Unit: "5"}, HasNumber: true}},
		// A line that starts like an ordinal street is that street without a number, or
		// the number with letter E before the street.
		{NL, "15e Achtergracht", line{Street: "15e Achtergracht"},
			&line{Street: "Achtergracht", Number: hn{Number: 15, Suffix: "E"}, HasNumber: true}},
		// A floor after a lone street noun: the first number is still the house number.
		{NL, "Singel 2 2e", line{Street: "Singel", Number: hn{Number: 2, Unit: "2", Floor: true}, HasNumber: true},
			&line{Street: "Singel 2", Number: hn{Number: 2, Suffix: "E"}, HasNumber: true}},
		{NL, "Singel 2 3 hoog", line{Street: "Singel", Number: hn{Number: 2, Unit: "3", Floor: true}, HasNumber: true},
			&line{Street: "Singel 2", Number: hn{Number: 3}, HasNumber: true}},
		{NL, "Kerkstraat 12a", line{Street: "Kerkstraat", Number: hn{Number: 12, Suffix: "A"}, HasNumber: true}, nil},
		{NL, "Kerkstraat 12-2", line{Street: "Kerkstraat", Number: hn{Number: 12, Unit: "2"}, HasNumber: true}, nil},
		{BE, "Rue de la Loi 16 bte 3", line{Street: "Rue de la Loi", Number: hn{Number: 16, Unit: "3", UnitMarker: bus}, HasNumber: true}, nil},
	}
	for _, tt := range alts {
		got := adreswijzer.ParseAddressLine(tt.c, tt.in)
		alt := got.Alt
		got.Alt = nil
		if got != tt.want || (alt == nil) != (tt.alt == nil) || alt != nil && *alt != *tt.alt {
			t.Errorf("ParseAddressLine(%s, %q) =\n\t%+v alt %+v\nwant\t%+v alt %+v", tt.c, tt.in, got, alt, tt.want, tt.alt)
		}
	}
}

// TestAddressLinesFromRegisters writes every address of the register samples as a street line
// the way a customer would and parses it back: the street must come out as the register name
// and the number as ParseHouseNumber reads the register's number.
func TestAddressLinesFromRegisters(t *testing.T) {
	n := 0
	for _, b := range bagNumbers(t) {
		if b.Street == "" {
			continue
		}
		a := adreswijzer.Address{Country: adreswijzer.NL, HouseNumber: b.Number, HouseNumberSuffix: b.Letter, Addition: b.Addition}
		for _, s := range []string{b.Street + " " + a.NumberText(), b.Street + ", " + a.NumberText()} {
			n++
			got := adreswijzer.ParseAddressLine(adreswijzer.NL, s)
			if got.Street != b.Street || !got.HasNumber || got.Number.Number != b.Number ||
				got.Number.Extension() != adreswijzer.ExtensionOf(b.Letter, b.Addition) || got.PoBox {
				t.Errorf("ParseAddressLine(NL, %q) = %+v", s, got)
			}
		}
	}
	for _, b := range bestAddresses(t) {
		want, ok := adreswijzer.ParseHouseNumber(adreswijzer.BE, b.Number)
		if !ok {
			continue
		}
		for _, street := range b.Streets {
			lines := []string{street + " " + b.Number}
			if b.Box != "" {
				lines = []string{street + " " + b.Number + " bus " + b.Box, street + " " + b.Number + " bte " + b.Box}
			}
			// A box of letters and digits only is the unit as it stands; others ("2ét", "2„Et")
			// must read as ParseUnit reads them.
			box := b.Box
			if box != adreswijzer.ExtensionOf(box) && !strings.EqualFold(box, adreswijzer.ExtensionOf(box)) {
				h, _ := adreswijzer.ParseHouseNumber(adreswijzer.BE, "1 bus "+box)
				box = h.Unit
			}
			for _, s := range lines {
				n++
				got := adreswijzer.ParseAddressLine(adreswijzer.BE, s)
				wantExt := adreswijzer.ExtensionOf(want.Suffix, want.Unit, box)
				if got.Street != street || !got.HasNumber || got.Number.Number != want.Number || got.Number.Extension() != wantExt {
					t.Errorf("ParseAddressLine(BE, %q) = %+v; want number %d extension %q", s, got, want.Number, wantExt)
				}
			}
		}
	}
	if n < 30000 {
		t.Errorf("checked %d lines, want the whole Weesp extract and BeST sample", n)
	}
}

// FuzzParseAddressLine checks what must hold for any line: no panic, valid UTF-8, a trimmed
// street taken from the input, a number in range, and agreement with ParseHouseNumber when a
// house number is written after a plain street.
func FuzzParseAddressLine(f *testing.F) {
	for _, s := range []string{"Kerkstraat 12a", "12, rue de la Loi", "Rue du 8 Mai", "Laan 1940-1945 12", "Plein 1813 4",
		"2e Hugo de Grootstraat 12", "Postbus 123", "Rue de la Loi, 16/3", "Kerkstraat 12 2 hoog", "Autosnelweg A12",
		"\xffstraat 1\xff", "P.O. Box 1", "12 bte 3, rue de la Loi"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, c := range adreswijzer.Countries {
			a := adreswijzer.ParseAddressLine(c, s)
			if !utf8.ValidString(a.Street) || a.Street != strings.TrimSpace(a.Street) || strings.Contains(a.Street, "  ") {
				t.Errorf("%s %q: street %q", c, s, a.Street)
			}
			if len(a.Street) > 3*len(s) {
				t.Errorf("%s %q: street %q longer than the input", c, s, a.Street)
			}
			checkHouseNumber(t, c, s, a.Number, a.HasNumber)
			// A house number after a plain street parses as the number alone does.
			h, ok := adreswijzer.ParseHouseNumber(c, s)
			if !ok || strings.ContainsAny(s, ",;") {
				continue
			}
			switch h.Suffix {
			case "DE", "STE", "ER", "ERE", "RE", "EME", "IEME":
				// "Kerkstraat 1DE apt 0": after a street, an ordinal ending with a number
				// further on is read as part of the name ("Rue du 2ème Cyclistes 5").
				continue
			}
			w := writeHouseNumber(h)
			got := adreswijzer.ParseAddressLine(c, "Kerkstraat "+w)
			got.Number.Floor = h.Floor // the writer names no floor
			if got.Street != "Kerkstraat" || got.Number != h {
				t.Errorf("%s: %q parses as %+v, but \"Kerkstraat %s\" as %+v", c, s, h, w, got)
			}
		}
	})
}
