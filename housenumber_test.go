package adreswijzer_test

import (
	"archive/zip"
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/store/storetest"
)

type hn = adreswijzer.HouseNumber

const bus = "bus"

func TestParseHouseNumber(t *testing.T) {
	NL, BE := adreswijzer.NL, adreswijzer.BE
	tests := []struct {
		c    adreswijzer.Country
		in   string
		want hn
		ok   bool
	}{
		// Forms from the brief and the BAG rules (huisnummer 1..99999, huisletter, toevoeging).
		{NL, "12", hn{Number: 12}, true},
		{NL, "12a", hn{Number: 12, Suffix: "A"}, true},
		{NL, "12 A", hn{Number: 12, Suffix: "A"}, true},
		{NL, "12-2", hn{Number: 12, Unit: "2"}, true},
		{NL, "12-II", hn{Number: 12, Unit: "II", Floor: true}, true},
		{NL, "12 hs", hn{Number: 12, Unit: "HS", Floor: true}, true},
		{NL, "12 huis", hn{Number: 12, Unit: "HUIS", Floor: true}, true},
		{NL, "12 bis", hn{Number: 12, Suffix: "BIS"}, true},
		{NL, "12bis", hn{Number: 12, Suffix: "BIS"}, true},
		{NL, "12 ter", hn{Number: 12, Suffix: "TER"}, true},
		{NL, "12/3", hn{Number: 12, Unit: "3"}, true},
		{NL, "12 b3", hn{Number: 12, Suffix: "B", Unit: "3"}, true},
		{NL, "12A-1", hn{Number: 12, Suffix: "A", Unit: "1"}, true},
		{NL, "12 A 1", hn{Number: 12, Suffix: "A", Unit: "1"}, true},
		{NL, "0012", hn{Number: 12}, true},
		{NL, "30-", hn{Number: 30}, true},
		{NL, "12-14", hn{Number: 12, Unit: "14"}, true},
		{NL, "12 t/m 14", hn{Number: 12, RangeEnd: 14}, true},
		{NL, "12 tm 14", hn{Number: 12, RangeEnd: 14}, true},
		{NL, "12+14", hn{Number: 12, RangeEnd: 14}, true},
		{NL, "99999", hn{Number: 99999}, true},
		{NL, "999999", hn{Number: 999999}, true},
		{NL, "１２ａ", hn{Number: 12, Suffix: "A"}, true},
		{NL, "nr. 12", hn{Number: 12}, true},
		{NL, "Nr 7b", hn{Number: 7, Suffix: "B"}, true},
		{NL, "n° 12", hn{Number: 12}, true},
		{NL, "12 achterom", hn{Number: 12}, true},
		// Floors: in NL the floor is the toevoeging by custom.
		{NL, "12 2 hoog", hn{Number: 12, Unit: "2", Floor: true}, true},
		{NL, "12 2-hoog", hn{Number: 12, Unit: "2", Floor: true}, true},
		{NL, "12 1hg", hn{Number: 12, Unit: "1", Floor: true}, true},
		{NL, "12 2e verdieping", hn{Number: 12, Unit: "2", Floor: true}, true},
		{NL, "12-3 2 hoog", hn{Number: 12, Unit: "3"}, true},
		{NL, "12 hoog", hn{Number: 12}, true},
		{NL, "12 boven", hn{Number: 12, Unit: "BOV"}, true},
		{NL, "12 beneden", hn{Number: 12, Unit: "BEN"}, true},
		{NL, "12 links", hn{Number: 12}, true},
		// Real BAG toevoeging forms: Weesp (BAGGEM0457), Amsterdam (bagadres.csv), NEN 5825
		// presentation from the BAG API, peers' examples.
		{NL, "105-1", hn{Number: 105, Unit: "1"}, true},
		{NL, "105 H", hn{Number: 105, Suffix: "H"}, true},
		{NL, "149A", hn{Number: 149, Suffix: "A"}, true},
		{NL, "239 1", hn{Number: 239, Unit: "1"}, true},
		{NL, "546 K 1", hn{Number: 546, Suffix: "K", Unit: "1"}, true},
		{NL, "546 K 10", hn{Number: 546, Suffix: "K", Unit: "10"}, true},
		{NL, "279 H", hn{Number: 279, Suffix: "H"}, true},
		{NL, "19c", hn{Number: 19, Suffix: "C"}, true},
		{NL, "1 A3", hn{Number: 1, Suffix: "A", Unit: "3"}, true},
		{NL, "16 DK", hn{Number: 16, Unit: "DK"}, true},
		{NL, "1 BEN", hn{Number: 1, Unit: "BEN"}, true},
		{NL, "8 bov", hn{Number: 8, Unit: "BOV"}, true},
		{NL, "1-5A3", hn{Number: 1, Unit: "5A3"}, true},
		{NL, "1A/101", hn{Number: 1, Suffix: "A", Unit: "101"}, true},
		{NL, "4 T", hn{Number: 4, Suffix: "T"}, true},
		{NL, "12 TM25", hn{Number: 12, Unit: "TM25"}, true},
		{NL, "3 NO", hn{Number: 3, Unit: "NO"}, true},
		{NL, "7 HS02", hn{Number: 7, Unit: "HS02"}, true},
		{NL, "44-bis", hn{Number: 44, Suffix: "BIS"}, true},
		{NL, "1-TRAF", hn{Number: 1, Unit: "TRAF"}, true},
		{NL, "19p-8", hn{Number: 19, Suffix: "P", Unit: "8"}, true},
		{NL, "3-0072", hn{Number: 3, Unit: "0072"}, true},
		{NL, "3HS", hn{Number: 3, Unit: "HS", Floor: true}, true},
		{NL, "16-I", hn{Number: 16, Unit: "I", Floor: true}, true},
		{NL, "37-III", hn{Number: 37, Unit: "III", Floor: true}, true},
		{NL, "12 XVIII", hn{Number: 12, Unit: "XVIII", Floor: true}, true},
		{NL, "15a4", hn{Number: 15, Suffix: "A", Unit: "4"}, true},
		// Real BeST house numbers (OUT_hsBx.txt) and Belgian forms (bpost, Smals, OSM).
		{BE, "5023", hn{Number: 5023}, true},
		{BE, "240/1", hn{Number: 240, Unit: "1"}, true},
		{BE, "54/12", hn{Number: 54, Unit: "12"}, true},
		{BE, "1161B", hn{Number: 1161, Suffix: "B"}, true},
		{BE, "104BIS", hn{Number: 104, Suffix: "BIS"}, true},
		{BE, "146bis", hn{Number: 146, Suffix: "BIS"}, true},
		{BE, "123Bis", hn{Number: 123, Suffix: "BIS"}, true},
		{BE, "111TER", hn{Number: 111, Suffix: "TER"}, true},
		{BE, "1327G", hn{Number: 1327, Suffix: "G"}, true},
		{BE, "16EA", hn{Number: 16, Suffix: "EA"}, true},
		{BE, "4xx", hn{Number: 4, Suffix: "XX"}, true},
		{BE, "98B1", hn{Number: 98, Suffix: "B", Unit: "1"}, true},
		{BE, "96C1", hn{Number: 96, Suffix: "C", Unit: "1"}, true},
		{BE, "135B2", hn{Number: 135, Suffix: "B", Unit: "2"}, true},
		{BE, "68_0001", hn{Number: 68, Unit: "0001"}, true},
		{BE, "26_28", hn{Number: 26, RangeEnd: 28}, true},
		{BE, "105_109", hn{Number: 105, RangeEnd: 109}, true},
		{BE, "ZN", hn{}, false},
		{BE, "zn", hn{}, false},
		{BE, "12 bus 3", hn{Number: 12, Unit: "3", UnitMarker: bus}, true},
		{BE, "12 bte 3", hn{Number: 12, Unit: "3", UnitMarker: bus}, true},
		{BE, "12 boîte 3", hn{Number: 12, Unit: "3", UnitMarker: bus}, true},
		{BE, "12 boi\u0302te 3", hn{Number: 12, Unit: "3", UnitMarker: bus}, true},
		{BE, "12 boite 3", hn{Number: 12, Unit: "3", UnitMarker: bus}, true},
		{BE, "12 box 3", hn{Number: 12, Unit: "3", UnitMarker: bus}, true},
		{BE, "12 bx 3", hn{Number: 12, Unit: "3", UnitMarker: bus}, true},
		{BE, "12 b. 3", hn{Number: 12, Unit: "3", UnitMarker: bus}, true},
		{BE, "12 b3", hn{Number: 12, Unit: "3", UnitMarker: bus}, true},
		{BE, "12 b 3", hn{Number: 12, Unit: "3", UnitMarker: bus}, true},
		{BE, "12b3", hn{Number: 12, Suffix: "B", Unit: "3"}, true},
		{BE, "12 b", hn{Number: 12, Suffix: "B"}, true},
		{BE, "12 bus3", hn{Number: 12, Unit: "3", UnitMarker: bus}, true},
		{BE, "12/3", hn{Number: 12, Unit: "3"}, true},
		{BE, "61/2", hn{Number: 61, Unit: "2"}, true},
		{BE, "12-2", hn{Number: 12, Unit: "2"}, true},
		{BE, "30-20", hn{Number: 30, Unit: "20"}, true},
		{BE, "30 20", hn{Number: 30, Unit: "20"}, true},
		{BE, "30+20", hn{Number: 30, Unit: "20"}, true},
		{BE, "12-14", hn{Number: 12, RangeEnd: 14}, true},
		{BE, "43-45", hn{Number: 43, RangeEnd: 45}, true},
		{BE, "21-27", hn{Number: 21, RangeEnd: 27}, true},
		{BE, "10A", hn{Number: 10, Suffix: "A"}, true},
		{BE, "10 boite 1", hn{Number: 10, Unit: "1", UnitMarker: bus}, true},
		{BE, "16/1 bus 8", hn{Number: 16, Suffix: "1", Unit: "8", UnitMarker: bus}, true},
		{BE, "16B bus 207", hn{Number: 16, Suffix: "B", Unit: "207", UnitMarker: bus}, true},
		{BE, "12 A bus 3", hn{Number: 12, Suffix: "A", Unit: "3", UnitMarker: bus}, true},
		{BE, "33 bus 2000", hn{Number: 33, Unit: "2000", UnitMarker: bus}, true},
		{BE, "12 bus B305", hn{Number: 12, Unit: "B305", UnitMarker: bus}, true},
		{BE, "12 B305", hn{Number: 12, Unit: "305", UnitMarker: bus}, true},
		{BE, "12 bus GV", hn{Number: 12, Unit: "GV", UnitMarker: bus}, true},
		{BE, "12 gv", hn{Number: 12, Unit: "GV"}, true},
		{BE, "12 bus 0163", hn{Number: 12, Unit: "0163", UnitMarker: bus}, true},
		{BE, "12 bus 3 - 2de verdiep", hn{Number: 12, Unit: "3", UnitMarker: bus}, true},
		{BE, "12 bte", hn{Number: 12}, true},
		{BE, "12 ap 3", hn{Number: 12, Unit: "3"}, true},
		{BE, "12 apt 3", hn{Number: 12, Unit: "3"}, true},
		// Floors are no boxes in BE.
		{BE, "12 2 hoog", hn{Number: 12}, true},
		{BE, "12 2e verdieping", hn{Number: 12}, true},
		{BE, "12 3ème étage", hn{Number: 12}, true},
		{BE, "12 1er étage", hn{Number: 12}, true},
		{BE, "12 rez-de-chaussée", hn{Number: 12}, true},
		{BE, "12 boven", hn{Number: 12}, true},
		// Not a house number.
		{NL, "", hn{}, false},
		{NL, "   ", hn{}, false},
		{NL, "0", hn{}, false},
		{NL, "00", hn{}, false},
		{NL, "1234567", hn{}, false},
		{NL, "0000012", hn{}, false},
		{NL, "a12", hn{}, false},
		{NL, "Kerkstraat 12", hn{}, false},
		{NL, "\xff\xfe12", hn{Number: 12}, true},
		{NL, "12\xff", hn{Number: 12}, true},
	}
	for _, tt := range tests {
		got, ok := adreswijzer.ParseHouseNumber(tt.c, tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseHouseNumber(%s, %q) = %+v, %v; want %+v, %v", tt.c, tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// TestParseUnitFieldFloor: a unit read from a floor says so, so that the matcher can take
// it as a remark where the register has no such toevoeging.
func TestParseUnitFieldFloor(t *testing.T) {
	NL := adreswijzer.NL
	for _, c := range []struct {
		in    string
		unit  string
		floor bool
	}{
		{"2e verdieping", "2", true},
		{"3 hoog", "3", true},
		{"III", "III", true},
		{"huis", "HUIS", true},
		{"hs", "HS", true},
		{"2", "2", false},
		{"bov", "BOV", false},
		{"A", "A", false},
		{"I", "I", false}, // a letter as often as a floor
		{"b 9b", "B9B", false},
	} {
		h := adreswijzer.ParseUnitField(NL, c.in)
		if h.Unit != c.unit || h.Floor != c.floor {
			t.Errorf("ParseUnitField(NL, %q) = unit %q floor %v, want %q %v", c.in, h.Unit, h.Floor, c.unit, c.floor)
		}
	}
}

func TestParseUnit(t *testing.T) {
	NL, BE := adreswijzer.NL, adreswijzer.BE
	tests := []struct {
		c            adreswijzer.Country
		in           string
		unit, marker string
	}{
		{BE, "bus 3", "3", bus},
		{BE, "bte 3", "3", bus},
		{BE, "boîte 3", "3", bus},
		{BE, "Boite 12", "12", bus},
		{BE, "box 4", "4", bus},
		{NL, "bus 3", "3", bus},
		{NL, "3", "3", ""},
		{NL, "II", "II", ""},
		{NL, "hs", "HS", ""},
		{NL, "A", "A", ""},
		{NL, "apt 2", "2", ""},
		{NL, "Appartement 3", "3", ""},
		{NL, "app. 12", "12", ""},
		{NL, "1-hoog", "1", ""},
		{NL, "2 hoog links", "2", ""},
		{NL, "2e verdieping", "2", ""},
		{NL, "3e etage", "3", ""},
		{NL, "boven", "BOV", ""},
		{NL, "K 1", "K1", ""},
		{NL, "b 9b", "B9B", ""}, // huisletter b and toevoeging 9b (Lange Muiderweg 6 b 9b, Weesp)
		{NL, "B 12", "B12", ""},
		{NL, "B001", "B001", ""},
		{NL, "b3", "B3", ""},
		{NL, "links", "", ""},
		{NL, "achterhuis", "", ""},
		{NL, "", "", ""},
		{BE, "1-hoog", "", ""},
		{BE, "2e verdieping", "", ""},
		{BE, "3ème étage", "", ""},
		{BE, "étage 2", "", ""},
		{BE, "rez-de-chaussée", "", ""},
		{BE, "gelijkvloers", "", ""},
		{BE, "links", "", ""},
		{BE, "rechts", "", ""},
		{BE, "bus", "", ""},
		// Real BeST box numbers (OUT_hsBx.txt, Bx=Nat).
		{BE, "0163", "0163", ""},
		{BE, "0020", "0020", ""},
		{BE, "0", "0", ""},
		{BE, "0000", "0000", ""},
		{BE, "A", "A", ""},
		{BE, "H", "H", ""},
		{BE, "L", "L", ""},
		{BE, "R", "R", ""},
		{BE, "A306", "A306", ""},
		{BE, "BU86", "BU86", ""},
		{BE, "BUSE", "BUSE", ""},
		{BE, "glML", "GLML", ""},
		{BE, "DGV", "DGV", ""},
		{BE, "GV", "GV", ""},
		{BE, "GVL", "GVL", ""},
		{BE, "Glv", "GLV", ""},
		{BE, "RDC", "RDC", ""},
		{BE, "xxxx", "XXXX", ""},
		{BE, "BteA", "BTEA", ""},
		{BE, "B305", "305", bus},
		{BE, "B001", "001", bus},
		{BE, "B1", "1", bus},
		{BE, "b1", "1", bus},
		{BE, "Bus1", "1", bus},
		{BE, "bus 1", "1", bus},
		{BE, "BUS 3", "3", bus},
		{BE, "BTE1", "1", bus},
		{BE, "BTE2", "2", bus},
		{BE, "/1/2", "12", ""},
		{BE, "/69", "69", ""},
		{BE, "-133", "133", ""},
		{BE, "/F", "F", ""},
		{BE, "+001", "001", ""},
		{BE, "3.21", "321", ""},
		{BE, "54.01", "5401", ""},
		{BE, "35/1", "351", ""},
		{BE, "05-3", "053", ""},
		{BE, "E-11", "E11", ""},
		{BE, "GL-V", "GLV", ""},
		{BE, "B/91", "B91", ""},
		{BE, "DO/1", "DO1", ""},
		{BE, "H3A", "H3A", ""},
		{BE, "V2B3", "V2B3", ""},
		{BE, "K 001", "K001", ""},
		{BE, "73A000", "73A000", ""},
		{BE, "(1)", "1", ""},
		{BE, "0008 - 4de links", "0008", ""},
		{BE, "Bus 5 - 2de verdiep", "5", bus},
		{BE, "bus 0014 - dakverdiep rechts", "0014", bus},
		{BE, "0001 - glv appartement", "0001", ""},
		{BE, "3\xb0V", "3", ""},
		{BE, "\xa81", "1", ""},
	}
	for _, tt := range tests {
		unit, marker := adreswijzer.ParseUnit(tt.c, tt.in)
		if unit != tt.unit || marker != tt.marker {
			t.Errorf("ParseUnit(%s, %q) = %q, %q; want %q, %q", tt.c, tt.in, unit, marker, tt.unit, tt.marker)
		}
	}
}

// TestUnitAgreesWithHouseNumber: a unit typed in address2 and the same unit typed after the
// number in address1 must compare the same, or a customer gets a different answer for moving
// text between two fields.
func TestUnitAgreesWithHouseNumber(t *testing.T) {
	units := []string{"bus 3", "bte 3", "boîte 3", "bus 0163", "bus B305", "apt 2", "2 hoog", "2e verdieping", "II", "hs", "BEN", "TM25", "links"}
	for _, c := range adreswijzer.Countries {
		for _, u := range units {
			unit, marker := adreswijzer.ParseUnit(c, u)
			h, ok := adreswijzer.ParseHouseNumber(c, "12 "+u)
			if !ok || h.Unit != unit || h.UnitMarker != marker {
				t.Errorf("%s: ParseUnit(%q) = %q, %q but ParseHouseNumber(\"12 %s\") = %+v", c, u, unit, marker, u, h)
			}
		}
	}
}

func TestExtension(t *testing.T) {
	tests := []struct {
		parts        []string
		exact, loose string
	}{
		{[]string{"a", "1"}, "A1", "A1"},
		{[]string{"", "/1"}, "1", "1"},
		{[]string{"B", "0003"}, "B0003", "B3"},
		{[]string{"", "0000"}, "0000", "0"},
		{[]string{"", "B001"}, "B001", "1"},
		{[]string{"", "Bus1"}, "BUS1", "1"},
		{[]string{"", "BTE 2"}, "BTE2", "2"},
		{[]string{"", "BUSE"}, "BUSE", "BUSE"},
		{[]string{"", "BteA"}, "BTEA", "BTEA"},
		{[]string{"", "A306"}, "A306", "A306"},
		{[]string{"", "1/02"}, "102", "12"},
		{[]string{"1", "8"}, "18", "18"},
		{[]string{"", "3.21"}, "321", "321"},
		{[]string{"bis", ""}, "BIS", "BIS"},
		{[]string{"", "é1"}, "1", "1"},
		{nil, "", ""},
	}
	for _, tt := range tests {
		if got := adreswijzer.ExtensionOf(tt.parts...); got != tt.exact {
			t.Errorf("ExtensionOf(%q) = %q, want %q", tt.parts, got, tt.exact)
		}
		if got := adreswijzer.LooseExtensionOf(tt.parts...); got != tt.loose {
			t.Errorf("LooseExtensionOf(%q) = %q, want %q", tt.parts, got, tt.loose)
		}
	}
	// What customers type meets what BeST stores.
	typed := []struct{ in, register string }{
		{"240/1", "/1"}, {"240 bus 1", "/1"}, {"12 bus 3", "0003"}, {"12 b3", "B3"}, {"12 bte 1", "Bus1"},
		{"12 bus B305", "B305"}, {"12 B305", "B305"}, {"16/1 bus 8", "/18"},
	}
	for _, tt := range typed {
		h, _ := adreswijzer.ParseHouseNumber(adreswijzer.BE, tt.in)
		if h.LooseExtension() != adreswijzer.LooseExtensionOf(tt.register) {
			t.Errorf("%q: LooseExtension %q, register %q gives %q", tt.in, h.LooseExtension(), tt.register, adreswijzer.LooseExtensionOf(tt.register))
		}
	}
}

// TestBeSTHouseNumbers parses every distinct house number of the 2019 BeST download.
func TestBeSTHouseNumbers(t *testing.T) {
	forms := bestForms(t, "Hs=Nat")
	if len(forms) < 16000 {
		t.Fatalf("read %d house numbers from OUT_hsBx.txt, want the whole Hs=Nat section", len(forms))
	}
	for _, f := range forms {
		digits, rest := leadingDigits(f)
		h, ok := adreswijzer.ParseHouseNumber(adreswijzer.BE, f)
		if digits == "" {
			if ok {
				t.Errorf("%q: got %+v, want no house number", f, h)
			}
			continue
		}
		n, _ := strconv.Atoi(digits)
		if n == 0 || len(digits) > 6 {
			if ok {
				t.Errorf("%q: got %+v, want no house number", f, h)
			}
			continue
		}
		if !ok || h.Number != n {
			t.Errorf("%q: got %+v, %v; want number %d", f, h, ok, n)
			continue
		}
		switch {
		case strings.HasPrefix(rest, "_") && h.RangeEnd != 0:
			if want, _ := strconv.Atoi(rest[1:]); h.RangeEnd != want || want <= n {
				t.Errorf("%q: got range to %d", f, h.RangeEnd)
			}
		case h.Extension() != adreswijzer.ExtensionOf(rest):
			t.Errorf("%q: Extension %q, register suffix %q gives %q", f, h.Extension(), rest, adreswijzer.ExtensionOf(rest))
		}
	}
}

// TestBeSTBoxNumbers runs every distinct box number of the 2019 BeST download through
// ParseUnit and checks the forms people also type.
func TestBeSTBoxNumbers(t *testing.T) {
	forms := bestForms(t, "Bx=Nat")
	if len(forms) < 7000 {
		t.Fatalf("read %d box numbers from OUT_hsBx.txt, want the whole Bx=Nat section", len(forms))
	}
	checked := 0
	for _, f := range forms {
		unit, marker := adreswijzer.ParseUnit(adreswijzer.BE, f)
		if unit != adreswijzer.ExtensionOf(unit) || len(unit) > 16 || (marker != "" && (marker != bus || unit == "")) {
			t.Errorf("ParseUnit(BE, %q) = %q, %q: not a clean unit", f, unit, marker)
		}
		word, digits := boxWordAndDigits(f)
		switch {
		case word == "" && digits != "":
			checked++
			if unit != digits || marker != "" {
				t.Errorf("ParseUnit(BE, %q) = %q, %q; want %q", f, unit, marker, digits)
			}
		case word != "":
			checked++
			if unit != digits || marker != bus {
				t.Errorf("ParseUnit(BE, %q) = %q, %q; want %q, bus", f, unit, marker, digits)
			}
		}
		if adreswijzer.LooseExtensionOf(unit) != adreswijzer.LooseExtensionOf(f) && word != "" {
			t.Errorf("%q: loose forms differ: typed %q, register %q", f, adreswijzer.LooseExtensionOf(unit), adreswijzer.LooseExtensionOf(f))
		}
	}
	if checked < 1900 {
		t.Errorf("checked %d plain and box-word forms, want at least 1900", checked)
	}
}

// boxWordAndDigits splits a box written as digits ("0163") or as a box word and digits
// ("Bus1", "bus 3", "BTE2", "B001"). Both are "" for other forms.
func boxWordAndDigits(f string) (word, digits string) {
	u := strings.ToUpper(f)
	for _, w := range []string{"BUS ", "BUS", "BTE", "B"} {
		if strings.HasPrefix(u, w) && isDigits(u[len(w):]) {
			return w, u[len(w):]
		}
	}
	if isDigits(u) {
		return "", u
	}
	return "", ""
}

// TestBAGNumbers parses every house number of the Weesp BAG extract and of the Amsterdam
// sample as the BAG API presents it (NEN 5825) and as people type it.
func TestBAGNumbers(t *testing.T) {
	nums := bagNumbers(t)
	if len(nums) < 5000 {
		t.Fatalf("read %d BAG numbers, want the Weesp extract and the Amsterdam sample", len(nums))
	}
	for _, b := range nums {
		a := adreswijzer.Address{Country: adreswijzer.NL, HouseNumber: b.Number, HouseNumberSuffix: b.Letter, Addition: b.Addition}
		ext := adreswijzer.ExtensionOf(b.Letter, b.Addition)
		n := strconv.Itoa(b.Number)
		typed := []string{a.NumberText(), strings.ToLower(a.NumberText()), n + "-" + b.Letter + b.Addition, n + " " + b.Letter + " " + b.Addition}
		if b.Letter != "" || b.Addition != "" && !isDigits(b.Addition[:1]) {
			typed = append(typed, n+b.Letter+b.Addition)
		}
		for _, s := range typed {
			h, ok := adreswijzer.ParseHouseNumber(adreswijzer.NL, s)
			if !ok || h.Number != b.Number || h.Extension() != ext {
				t.Errorf("ParseHouseNumber(NL, %q) = %+v, %v; want number %d extension %q", s, h, ok, b.Number, ext)
			}
		}
	}
}

// Register samples.

type bagNumber struct {
	Number           int
	Letter, Addition string
	Postcode, Street string
}

// bagNumbers reads the distinct numbers of the Weesp LV BAG extract (nested zips of XML) and
// of the Amsterdam bagadres.csv sample, with their street names. Several tests use them and
// decoding the XML takes a while, so they are read once.
func bagNumbers(t *testing.T) []bagNumber {
	t.Helper()
	extract := storetest.File(t, "nl", "BAGGEM0457L-15102021.zip")
	sample := storetest.File(t, "nl", "bagadres.csv")
	bagOnce.Do(func() { bagCache, bagErr = readBAG(extract, sample) })
	if bagErr != nil {
		t.Fatal(bagErr)
	}
	return bagCache
}

var (
	bagOnce  sync.Once
	bagCache []bagNumber
	bagErr   error
)

func readBAG(extract, sample string) ([]bagNumber, error) {
	outer, err := zip.OpenReader(extract)
	if err != nil {
		return nil, err
	}
	defer outer.Close()
	gem, err := zipMember(&outer.Reader, "0457GEM15102021.zip")
	if err != nil {
		return nil, err
	}
	opr, err := zipMember(gem, "0457OPR15102021.zip")
	if err != nil {
		return nil, err
	}
	num, err := zipMember(gem, "0457NUM15102021.zip")
	if err != nil {
		return nil, err
	}
	streets := map[string]string{}
	err = eachXML(opr, "OpenbareRuimte", func(d *xml.Decoder, se *xml.StartElement) error {
		var o struct {
			ID   string `xml:"identificatie"`
			Name string `xml:"naam"`
		}
		err := d.DecodeElement(&o, se)
		streets[o.ID] = o.Name
		return err
	})
	if err != nil {
		return nil, err
	}
	seen := map[bagNumber]bool{}
	var out []bagNumber
	add := func(b bagNumber) {
		if !seen[b] {
			seen[b] = true
			out = append(out, b)
		}
	}
	err = eachXML(num, "Nummeraanduiding", func(d *xml.Decoder, se *xml.StartElement) error {
		var n struct {
			Number   int    `xml:"huisnummer"`
			Letter   string `xml:"huisletter"`
			Addition string `xml:"huisnummertoevoeging"`
			Postcode string `xml:"postcode"`
			Street   string `xml:"ligtAan>OpenbareRuimteRef"`
		}
		err := d.DecodeElement(&n, se)
		add(bagNumber{n.Number, n.Letter, n.Addition, n.Postcode, streets[n.Street]})
		return err
	})
	if err != nil {
		return nil, err
	}
	f, err := os.Open(sample)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comma = ';'
	rows, err := r.ReadAll()
	if err != nil {
		return nil, err
	}
	for _, row := range rows[1:] {
		n, err := strconv.Atoi(row[1])
		if err != nil {
			return nil, err
		}
		add(bagNumber{n, row[2], row[3], row[4], row[0]})
	}
	return out, nil
}

func zipMember(z *zip.Reader, name string) (*zip.Reader, error) {
	for _, f := range z.File {
		if f.Name != name {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return nil, err
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return nil, err
		}
		return zip.NewReader(bytes.NewReader(b), int64(len(b)))
	}
	return nil, fmt.Errorf("%s not in the BAG extract", name)
}

// eachXML calls fn for every element with the local name in every XML file of z.
func eachXML(z *zip.Reader, local string, fn func(*xml.Decoder, *xml.StartElement) error) error {
	for _, f := range z.File {
		if !strings.HasSuffix(f.Name, ".xml") {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return err
		}
		d := xml.NewDecoder(rc)
		for err == nil {
			var tok xml.Token
			if tok, err = d.Token(); err == nil {
				if se, ok := tok.(xml.StartElement); ok && se.Name.Local == local {
					err = fn(d, &se)
				}
			}
		}
		rc.Close()
		if err != io.EOF {
			return fmt.Errorf("%s: %w", f.Name, err)
		}
	}
	return nil
}

// bestForms reads one section of OUT_hsBx.txt: lines like ('104BIS', 1) under a header like
// "Hs=Nat====". The file has CR and CRLF line ends and a few Latin-1 bytes, kept as they are.
func bestForms(t *testing.T, section string) []string {
	t.Helper()
	b, err := os.ReadFile(storetest.File(t, "be", "OUT_hsBx.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	in := false
	sc := bufio.NewScanner(bytes.NewReader(bytes.ReplaceAll(b, []byte("\r"), []byte("\n"))))
	for sc.Scan() {
		line := sc.Text()
		if strings.Contains(line, "====") {
			in = strings.HasPrefix(line, section+"=")
			continue
		}
		if !in || !strings.HasPrefix(line, "('") {
			continue
		}
		end := strings.LastIndex(line, "', ")
		if end < 2 {
			t.Fatalf("OUT_hsBx.txt: cannot read %q", line)
		}
		out = append(out, line[2:end])
	}
	return out
}

type bestAddress struct {
	Streets          []string // the street's names in nl, fr, de, non-empty ones
	Number, Box      string
	Postcode         string
	StreetIdentifier string
}

// bestAddresses reads BOSA's PostGIS load files: addresses_part.csv joined to streets_part.csv.
func bestAddresses(t *testing.T) []bestAddress {
	t.Helper()
	read := func(name string) [][]string {
		f, err := os.Open(storetest.File(t, "be", name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		r := csv.NewReader(f)
		r.Comma = ';'
		r.FieldsPerRecord = -1
		r.LazyQuotes = true
		rows, err := r.ReadAll()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return rows
	}
	streets := map[string][]string{}
	for _, row := range read("streets_part.csv") {
		for _, name := range row[2:5] {
			if name != "" {
				streets[row[0]] = append(streets[row[0]], name)
			}
		}
	}
	var out []bestAddress
	for _, row := range read("addresses_part.csv") {
		pc := strings.Split(row[4], "/")
		out = append(out, bestAddress{Streets: streets[row[3]], Number: row[5], Box: row[6], Postcode: pc[1], StreetIdentifier: row[3]})
	}
	return out
}

func leadingDigits(s string) (digits, rest string) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return s[:i], s[i:]
}

func isDigits(s string) bool {
	d, rest := leadingDigits(s)
	return d != "" && rest == ""
}

// FuzzParseHouseNumber checks what must hold for any text: no panic, a number in range, clean
// parts, and that parsing the parts written out again gives the same parts.
func FuzzParseHouseNumber(f *testing.F) {
	for _, s := range []string{"12", "12a", "12 A 1", "12-II", "12 bus 3", "16/1 bus 8", "12 2 hoog", "12-14", "12 t/m 14",
		"104BIS", "240/1", "98B1", "0012", "30-", "12 b. 3", "12 boîte B305", "1234567", "\xff12", "12 bte", "３ＨＳ"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, c := range adreswijzer.Countries {
			h, ok := adreswijzer.ParseHouseNumber(c, s)
			checkHouseNumber(t, c, s, h, ok)
			if !ok {
				continue
			}
			w := writeHouseNumber(h)
			again, ok := adreswijzer.ParseHouseNumber(c, w)
			again.Floor = h.Floor // the writer names no floor
			if !ok || again != h {
				t.Errorf("%s %q: %+v written as %q parses as %+v", c, s, h, w, again)
			}
			unit, marker := adreswijzer.ParseUnit(c, s)
			if unit != adreswijzer.ExtensionOf(unit) || len(unit) > 16 || marker != "" && (marker != bus || unit == "") {
				t.Errorf("ParseUnit(%s, %q) = %q, %q", c, s, unit, marker)
			}
		}
	})
}

func checkHouseNumber(t *testing.T, c adreswijzer.Country, s string, h hn, ok bool) {
	t.Helper()
	if !ok {
		if h != (hn{}) {
			t.Errorf("%s %q: not ok but %+v", c, s, h)
		}
		return
	}
	if h.Number < 1 || h.Number > 999999 {
		t.Errorf("%s %q: number %d out of range", c, s, h.Number)
	}
	if h.RangeEnd != 0 && (h.RangeEnd <= h.Number || h.RangeEnd > 999999) {
		t.Errorf("%s %q: range %d-%d", c, s, h.Number, h.RangeEnd)
	}
	if h.Suffix != adreswijzer.ExtensionOf(h.Suffix) || h.Unit != adreswijzer.ExtensionOf(h.Unit) {
		t.Errorf("%s %q: parts not clean: %+v", c, s, h)
	}
	if h.Extension() != h.Suffix+h.Unit || !utf8.ValidString(h.Extension()) {
		t.Errorf("%s %q: Extension %q", c, s, h.Extension())
	}
	if h.UnitMarker != "" && (h.UnitMarker != bus || h.Unit == "") {
		t.Errorf("%s %q: marker %q with unit %q", c, s, h.UnitMarker, h.Unit)
	}
	if h.Floor && h.Unit == "" {
		t.Errorf("%s %q: a floor without a unit", c, s)
	}
}

// writeHouseNumber writes the parts in a form the grammar reads back unchanged.
func writeHouseNumber(h hn) string {
	s := strconv.Itoa(h.Number)
	if h.RangeEnd != 0 {
		// A suffix next to a range can only have come from before a box word ("1&2A bx0"),
		// and there it follows the range.
		s += " t/m " + strconv.Itoa(h.RangeEnd)
	}
	// One character at a time, joined by hyphens, so that no part reads as a word of the
	// grammar ("BX", "B" before digits, "T/M").
	spell := func(s string) string { return strings.Join(strings.Split(s, ""), "-") }
	switch {
	case h.Suffix != "" && h.UnitMarker != "":
		// What stood before a box word, however long: "16/1 bus 8", "1/A-A-A-A-A bus 0".
		s += "/" + spell(h.Suffix)
	case h.Suffix != "":
		s += h.Suffix
	}
	unit := spell(h.Unit)
	switch {
	case h.UnitMarker != "":
		s += " bus " + unit
	case h.Unit != "":
		s += " apt " + unit // after a range only an apartment word lets a number in
	}
	return s
}
