package carrier

import (
	"encoding/json"
	"testing"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/internal/golden"
	"github.com/adreswijzer/adreswijzer/worker/messages"
)

func TestFieldsSplit(t *testing.T) {
	tests := []struct {
		a                                  adreswijzer.Address
		lang                               adreswijzer.Language
		street, number, addition, pc, city string // addition "" means null
	}{
		{holsthof1, en, "Henriëtte Roland Holsthof", "1", "", "1382SH", "Weesp"},
		{achtergr2a, nl, "Achtergracht", "2", "a", "1381BN", "Weesp"},
		{bloemend51A1, nl, "Bloemendalerweg", "51", "A1", "1382KB", "Weesp"},
		{hugo30a225, fr, "Hugo de Grootlaan", "30", "a225", "1381DE", "Weesp"},
		{visser1ben, nl, "Dr.J.Th.de Visserlaan", "1", "ben", "1381CX", "Weesp"},
		{houten36NK, de, "C.J.van Houtenlaan", "36", "NK", "1381CP", "Weesp"},
		{kanaalpad1, nl, "Kanaalpad", "1", "", "", "Weesp"},
		{seigneurie138, fr, "Rue de la Seigneurie", "138", "", "1130", "Bruxelles (Haren)"},
		{harenheyde89A, nl, "Harenheidestraat", "89", "A", "1130", "Brussel (Haren)"},
		// The box as it follows its marker: without the marker and padding the register
		// wrote into it ("b001", "0001", "Bte5", "Be.4").
		{preAuxOies134, nl, "Ganzenweidestraat", "134", "bus 1", "1130", "Brussel (Haren)"},
		{preAuxOies134, fr, "Rue du Pré aux Oies", "134", "bte 1", "1130", "Bruxelles (Haren)"},
		{prinsenbos2A, fr, "Prinsenbos", "2", "A bus 21", "1502", "Lembeek"},
		{falize2Bis, nl, "Route de Falize", "2", "Bis", "4960", "Malmedy"},
		{barrage104B, en, "Route du Barrage", "104", "B", "4960", "Bevercé"},
		{vinave5, de, "Petit Vinâve", "5", "bte 1", "4960", "Malmedy"},
		{wibald1, fr, "Rue Wibald", "1", "bte 5", "4960", "Malmedy"},
		{princes1, nl, "Rue des Princes-Abbés", "1", "bte 4", "4960", "Malmedy"},
		{werson28, fr, "Rue Joseph Werson", "28", "bte A/12", "4960", "Malmedy"},
	}
	for _, tt := range tests {
		for _, c := range carriers {
			got := Fields(&tt.a, c, tt.lang)
			add := ""
			if got.HouseNumberAddition != nil {
				add = *got.HouseNumberAddition
				if add == "" {
					t.Errorf("%s %s: empty addition should be null", tt.a.ID, c)
				}
			}
			if got.Street != tt.street || got.HouseNumber != tt.number || add != tt.addition ||
				got.Postcode != tt.pc || got.City != tt.city || got.CountryCode != tt.a.Country {
				t.Errorf("Fields(%s, %s, %s) = %q %q %q %q %q %s, want %q %q %q %q %q",
					tt.a.ID, c, tt.lang, got.Street, got.HouseNumber, add, got.Postcode, got.City, got.CountryCode,
					tt.street, tt.number, tt.addition, tt.pc, tt.city)
			}
			if got.Warnings == nil {
				t.Errorf("Fields(%s, %s): warnings is nil, must encode as []", tt.a.ID, c)
			}
		}
	}
}

type warning struct {
	field   adreswijzer.Field
	unit    adreswijzer.UnitType
	message string
}

func TestFieldsWarnings(t *testing.T) {
	tests := []struct {
		name string
		a    adreswijzer.Address
		c    adreswijzer.Carrier
		lang adreswijzer.Language
		want []warning
	}{
		{"NL short name suggested for PostNL's street field", aspermont6, adreswijzer.PostNL, nl, []warning{{
			adreswijzer.FieldAddress1, "",
			"De straatnaam is te lang voor PostNL (maximaal 35 tekens). Gebruik de korte vorm Burg Flugi v Aspermontln.",
		}}},
		{"bpost takes 40", aspermont6, adreswijzer.Bpost, nl, nil},
		{"NL short name for DHL's street line", aspermont6, adreswijzer.DHL, en, []warning{{
			adreswijzer.FieldAddress1, "",
			"The street and house number together are too long for DHL (at most 35 characters). Use the short form Burg Flugi v Aspermontln.",
		}}},
		{"NL short name for Sendcloud's street line", aspermont6, adreswijzer.Sendcloud, de, []warning{{
			adreswijzer.FieldAddress1, "",
			"Straße und Hausnummer sind zusammen für Sendcloud zu lang (höchstens 35 Zeichen). Verwenden Sie die Kurzform Burg Flugi v Aspermontln.",
		}}},
		{"a 25-character name fits everywhere", holsthof25, adreswijzer.DHL, nl, nil},
		{"Sendcloud house number with toevoeging", hugo30a225, adreswijzer.Sendcloud, nl, nil},
		{"box with marker fits PostNL's HouseNrExt", preAuxOies134, adreswijzer.PostNL, fr, nil},
		{"box with marker exceeds PostNL's HouseNrExt", werson28, adreswijzer.PostNL, fr, []warning{{
			adreswijzer.FieldAddress2, adreswijzer.UnitBus,
			"Le complément du numéro est trop long pour PostNL (7 caractères au maximum).",
		}}},
		{"bpost takes the bare box", werson28, adreswijzer.Bpost, fr, nil},
		{"Sendcloud house_number holds number and box", werson28, adreswijzer.Sendcloud, nl, []warning{{
			adreswijzer.FieldAddress1, adreswijzer.UnitBus,
			"Huisnummer en toevoeging samen zijn te lang voor Sendcloud (maximaal 8 tekens).",
		}}},
		{"French line too long for DHL, no approved abbreviation", chicons17, adreswijzer.DHL, fr, []warning{{
			adreswijzer.FieldAddress1, "",
			"Le nom de la rue avec le numéro est trop long pour DHL (35 caractères au maximum).",
		}}},
		{"the Dutch line of the same address fits", chicons17, adreswijzer.DHL, nl, nil},
		{"type word inside a name is not abbreviated", haecht35, adreswijzer.DHL, en, []warning{{
			adreswijzer.FieldAddress1, "",
			"The street and house number together are too long for DHL (at most 35 characters).",
		}}},
		{"Dutch name of the same address fits", haecht35, adreswijzer.DHL, nl, nil},
		{"Malmedy line too long for Sendcloud, house number and box fit", frontiere11, adreswijzer.Sendcloud, en, []warning{
			{adreswijzer.FieldAddress1, "", "The street and house number together are too long for Sendcloud (at most 35 characters)."},
		}},
		{"letter and box fit bpost's separate fields", prinsenbos2A, adreswijzer.Bpost, nl, nil},
		{"letter and box exceed PostNL's HouseNrExt", prinsenbos2A, adreswijzer.PostNL, nl, []warning{{
			adreswijzer.FieldAddress2, adreswijzer.UnitBus,
			"De huisnummertoevoeging is te lang voor PostNL (maximaal 7 tekens).",
		}}},
		{"no carrier, no warnings", aspermont6, "", nl, nil},
	}
	for _, tt := range tests {
		got := Fields(&tt.a, tt.c, tt.lang).Warnings
		if len(got) != len(tt.want) {
			t.Errorf("%s: %d warnings %v, want %d", tt.name, len(got), got, len(tt.want))
			continue
		}
		for i, w := range tt.want {
			g := got[i]
			var unit adreswijzer.UnitType
			if g.UnitType != nil {
				unit = *g.UnitType
			}
			if g.Code != adreswijzer.IssueCarrierLineTooLong || g.Severity != adreswijzer.SeverityWarning ||
				g.Field != w.field || unit != w.unit || g.Message != w.message {
				t.Errorf("%s: warning %d = %s %s %s %q %q, want CARRIER_LINE_TOO_LONG warning %s %q %q",
					tt.name, i, g.Code, g.Severity, g.Field, unit, g.Message, w.field, w.unit, w.message)
			}
		}
	}
}

// TestFieldsNeverBlock: whatever the carrier and language, Fields only ever warns.
func TestFieldsNeverBlock(t *testing.T) {
	for _, a := range goldenAddresses {
		for _, c := range carriers {
			for _, lang := range langs {
				for _, w := range Fields(&a, c, lang).Warnings {
					if w.Severity != adreswijzer.SeverityWarning {
						t.Errorf("Fields(%s, %s, %s): %s has severity %s", a.ID, c, lang, w.Code, w.Severity)
					}
				}
			}
		}
	}
}

func TestLimits(t *testing.T) {
	for _, c := range carriers {
		for _, country := range adreswijzer.Countries {
			ls := Limits(c, country)
			if len(ls) == 0 {
				t.Errorf("Limits(%s, %s) is empty", c, country)
			}
			for _, l := range ls {
				if l.Max <= 0 || l.Source == "" || l.measure == nil {
					t.Errorf("Limits(%s, %s): %+v", c, country, l)
				}
			}
		}
	}
	postnlZip := func(country adreswijzer.Country) int {
		for _, l := range Limits(adreswijzer.PostNL, country) {
			if l.Field == messages.CarrierPostcode {
				return l.Max
			}
		}
		return 0
	}
	if nlMax, beMax := postnlZip(adreswijzer.NL), postnlZip(adreswijzer.BE); nlMax != 6 || beMax != 4 {
		t.Errorf("PostNL postcode limits NL %d BE %d, want 6 and 4", nlMax, beMax)
	}
	if ls := Limits("ups", adreswijzer.NL); ls != nil {
		t.Errorf("unknown carrier has limits %v", ls)
	}
}

// goldenAddresses cover both countries, every region, letters, toevoegingen, boxes, "bis"
// and the long names.
var goldenAddresses = []adreswijzer.Address{
	holsthof1, bloemend51A1, hugo30a225, kanaalpad1, aspermont6,
	preAuxOies134, chicons17, prinsenbos2A, bergense595, falize2Bis, vinave5, frontiere11,
}

// TestFieldsGolden records the JSON of Fields for every golden address, carrier and
// language, so a reviewer sees every carrier answer in one file.
func TestFieldsGolden(t *testing.T) {
	type entry struct {
		Address  string                     `json:"address"`
		Carrier  adreswijzer.Carrier        `json:"carrier"`
		Language adreswijzer.Language       `json:"lang"`
		Fields   adreswijzer.CarrierAddress `json:"fields"`
	}
	var out []entry
	for _, a := range goldenAddresses {
		label := Lines(&a, nl)[0]
		for _, c := range carriers {
			for _, lang := range langs {
				out = append(out, entry{label, c, lang, Fields(&a, c, lang)})
			}
		}
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden.Compare(t, "fields.golden", append(b, '\n'))
}

// FuzzFields feeds Lines and Fields whatever an importer might hand over and holds them to
// what every caller relies on: two lines, a warnings list that is never nil, and warnings
// only, each with a whole message.
func FuzzFields(f *testing.F) {
	f.Add(true, "Henriëtte Roland Holsthof", "H Roland Holsthof", 1, "", "", "", "1382SH", "Weesp")
	f.Add(false, "Le Sentier de la Ferme à Chicons", "", 17, "", "", "b015", "1130", "Bruxelles (Haren)")
	f.Add(false, "Route de Falize", "", 2, "Bis", "", "", "4960", "Malmedy")
	f.Add(false, "", "", 0, "", "", "", "", "")
	f.Fuzz(func(t *testing.T, isNL bool, street, short string, number int, suffix, addition, box, postcode, city string) {
		a := adreswijzer.Address{
			Country: adreswijzer.BE, Street: adreswijzer.Names{FR: street, NL: short},
			HouseNumber: number, HouseNumberSuffix: suffix, Addition: addition, Box: box,
			Postcode: postcode, Locality: adreswijzer.Names{FR: city},
		}
		if isNL {
			a.Country, a.Street, a.StreetShort = adreswijzer.NL, adreswijzer.Names{NL: street}, short
			a.Locality = adreswijzer.Names{NL: city}
		}
		for _, lang := range langs {
			if lines := Lines(&a, lang); len(lines) != 2 {
				t.Fatalf("Lines = %q, want two lines", lines)
			}
			for _, c := range carriers {
				got := Fields(&a, c, lang)
				if got.Warnings == nil {
					t.Fatal("warnings is nil")
				}
				for _, w := range got.Warnings {
					if w.Severity != adreswijzer.SeverityWarning || w.Message == "" {
						t.Fatalf("%s %s: %+v", c, lang, w)
					}
				}
			}
		}
	})
}
