package adreswijzer_test

import (
	"strings"
	"testing"

	"github.com/adreswijzer/adreswijzer"
)

// knownTowns knows a few real place names of the samples, as the registers would.
func knownTowns(name string) bool {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "weesp", "haren", "malmedy", "lembeek", "bruxelles", "brussel":
		return true
	}
	return false
}

func TestReadFields(t *testing.T) {
	NL, BE := adreswijzer.NL, adreswijzer.BE
	type f = adreswijzer.Fields
	tests := []struct {
		c     adreswijzer.Country
		in    f
		want  f
		moved bool
	}{
		// In their places: nothing moves.
		{NL, f{"Hugo de Grootlaan 16", "bov", "1381 CS", "Weesp"}, f{"Hugo de Grootlaan 16", "bov", "1381 CS", "Weesp"}, false},
		{BE, f{"Rue du Pré aux Oies 134", "bte 1", "1130", "Haren"}, f{"Rue du Pré aux Oies 134", "bte 1", "1130", "Haren"}, false},
		{NL, f{"Hugo de Grootlaan 16 bov", "", "13810", "Weesp"}, f{"Hugo de Grootlaan 16 bov", "", "13810", "Weesp"}, false},
		// The whole address in address1 or address2.
		{NL, f{"Hugo de Grootlaan 16 bov, 1381 CS Weesp", "", "", ""}, f{"Hugo de Grootlaan 16 bov", "", "1381 CS", "Weesp"}, true},
		{NL, f{"Hugo de Grootlaan 16 bov 1381 CS Weesp", "", "", ""}, f{"Hugo de Grootlaan 16 bov", "", "1381 CS", "Weesp"}, true},
		{NL, f{"Hugo de Grootlaan 16, 1381CS", "bov", "", "Weesp"}, f{"Hugo de Grootlaan 16", "bov", "1381CS", "Weesp"}, true},
		{NL, f{"Bakkerij De Vries", "Hugo de Grootlaan 16 bov, 1381 CS Weesp", "", ""}, f{"Bakkerij De Vries", "Hugo de Grootlaan 16 bov", "1381 CS", "Weesp"}, true},
		{NL, f{"Hugo de Grootlaan 16", "bov, 1381 CS Weesp", "", ""}, f{"Hugo de Grootlaan 16", "bov", "1381 CS", "Weesp"}, true},
		{NL, f{"1381 CS Weesp", "Hugo de Grootlaan 16 bov", "", ""}, f{"Hugo de Grootlaan 16 bov", "", "1381 CS", "Weesp"}, true},
		{BE, f{"Route du Barrage 83, 4960 Malmedy", "", "", ""}, f{"Route du Barrage 83", "", "4960", "Malmedy"}, true},
		{BE, f{"Route du Barrage 83, B-4960 Malmedy", "", "Malmedy", ""}, f{"Route du Barrage 83", "", "B-4960", "Malmedy"}, true},
		// The postcode and town fields swapped, or both in one.
		{NL, f{"Hugo de Grootlaan 16 bov", "", "Weesp", "1381 CS"}, f{"Hugo de Grootlaan 16 bov", "", "1381 CS", "Weesp"}, true},
		{NL, f{"Hugo de Grootlaan 16 bov", "", "1381 CS Weesp", ""}, f{"Hugo de Grootlaan 16 bov", "", "1381 CS", "Weesp"}, true},
		{NL, f{"Hugo de Grootlaan 16 bov", "", "", "1381 CS Weesp"}, f{"Hugo de Grootlaan 16 bov", "", "1381 CS", "Weesp"}, true},
		{BE, f{"Route du Barrage 83", "", "Malmedy", "4960"}, f{"Route du Barrage 83", "", "4960", "Malmedy"}, true},
		{BE, f{"Route du Barrage 83", "", "4960 Malmedy", "Malmedy"}, f{"Route du Barrage 83", "", "4960", "Malmedy"}, true},
		{NL, f{"Hugo de Grootlaan 16 bov", "", "Weesp NH", "1381CS"}, f{"Hugo de Grootlaan 16 bov", "", "1381CS", "Weesp NH"}, true},
		// A city that repeats the postcode.
		{NL, f{"Hugo de Grootlaan 16 bov", "", "1381 CS", "1381 CS Weesp"}, f{"Hugo de Grootlaan 16 bov", "", "1381 CS", "Weesp"}, true},
		// No postcode anywhere: the town at the end of the street line, or in the postcode
		// field, fills the empty city.
		{NL, f{"Achtergracht 1 Weesp", "", "", ""}, f{"Achtergracht 1", "", "", "Weesp"}, true},
		{NL, f{"Achtergracht 1", "", "Weesp", ""}, f{"Achtergracht 1", "", "", "Weesp"}, true},
		{NL, f{"Stationsweg 11e Weesp", "", "", ""}, f{"Stationsweg 11e", "", "", "Weesp"}, true},
		{NL, f{"Achtergracht 1 Parijs", "", "", ""}, f{"Achtergracht 1 Parijs", "", "", ""}, false},
		{NL, f{"Jansen BV, Achtergracht 1", "", "", ""}, f{"Jansen BV, Achtergracht 1", "", "", ""}, false},
		// A postcode of the other country is no postcode here (the town still is one).
		{BE, f{"Hugo de Grootlaan 16 bov, 1381 CS Weesp", "", "", ""}, f{"Hugo de Grootlaan 16 bov, 1381 CS", "", "", "Weesp"}, true},
		// Four digits that end a street line are its house number.
		{BE, f{"Haachtsesteenweg 1420", "", "", "Haren"}, f{"Haachtsesteenweg 1420", "", "", "Haren"}, false},
		{BE, f{"Chaussée de Haecht 1369 Haren", "", "", ""}, f{"Chaussée de Haecht 1369", "", "", "Haren"}, true},
		{BE, f{"1130 Haren", "Chaussée de Haecht 1369", "", ""}, f{"Chaussée de Haecht 1369", "", "1130", "Haren"}, true},
		{BE, f{"1130 Haren, Haachtsesteenweg 1677 bus 8", "", "", ""}, f{"Haachtsesteenweg 1677 bus 8", "", "1130", "Haren"}, true},
	}
	for _, tt := range tests {
		got, moved := adreswijzer.ReadFields(tt.c, tt.in, knownTowns)
		if got != tt.want || moved != tt.moved {
			t.Errorf("ReadFields(%s, %+v) =\n\t%+v, %v\nwant\t%+v, %v", tt.c, tt.in, got, moved, tt.want, tt.moved)
		}
	}
}

// FuzzReadFields holds the reader of misplaced fields to moving, never inventing: every
// word it returns was typed, a postcode it moves is one of the country, and fields whose
// postcode is already in place stay as they are (but for a city repeating it).
//
//	go test -run '^$' -fuzz FuzzReadFields
func FuzzReadFields(f *testing.F) {
	f.Add("NL", "Hugo de Grootlaan 16 bov, 1381 CS Weesp", "", "", "")
	f.Add("NL", "Hugo de Grootlaan 16 bov", "", "Weesp", "1381 CS")
	f.Add("NL", "Bakkerij De Vries", "Hugo de Grootlaan 16 bov\n1381 CS Weesp", "", "")
	f.Add("NL", "Achtergracht 1 Weesp", "", "", "")
	f.Add("BE", "Chaussée de Haecht 1369 Haren", "", "", "")
	f.Add("BE", "Route du Barrage 83", "", "Malmedy", "4960")
	f.Add("BE", "1130 Haren", "Rue du Pré aux Oies 134 bte 1", "\x00", "1130 Bruxelles")
	f.Fuzz(func(t *testing.T, country, address1, address2, zip, city string) {
		c, ok := adreswijzer.ParseCountry(country)
		if !ok {
			return
		}
		in := adreswijzer.Fields{Address1: address1, Address2: address2, Zip: zip, City: city}
		out, moved := adreswijzer.ReadFields(c, in, knownTowns)
		if !moved && out != in {
			t.Fatalf("not moved, but %+v became %+v", in, out)
		}
		if _, err := adreswijzer.NormalizePostcode(c, zip); err == nil && strings.IndexAny(city, "0123456789") < 0 && moved {
			t.Fatalf("postcode in place, but moved: %+v became %+v", in, out)
		}
		if moved && out.Zip != "" && out.Zip != zip {
			if _, err := adreswijzer.NormalizePostcode(c, out.Zip); err != nil {
				t.Fatalf("moved %q into the postcode field: %+v", out.Zip, out)
			}
		}
		typed := strings.Join([]string{address1, address2, zip, city}, " ")
		for _, field := range []string{out.Address1, out.Address2, out.Zip, out.City} {
			for _, w := range strings.Fields(field) {
				if !strings.Contains(typed, w) {
					t.Fatalf("word %q was not typed: %+v became %+v", w, in, out)
				}
			}
		}
	})
}
