package mcpserver

import (
	"context"
	"strings"
	"testing"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/worker/match"
)

// samplePlaces knows the places of the register samples, as the splitter does on a worker
// that serves them.
func samplePlaces(t testing.TB) adreswijzer.PlaceKnown {
	t.Helper()
	s := &service{engine: match.New(sampleData(t), match.Options{})}
	return s.knownPlace(context.Background())
}

type splitCase struct {
	in                                     string
	address1, address2, zip, city, country string
}

func checkSplit(t *testing.T, known adreswijzer.PlaceKnown, cases []splitCase) {
	t.Helper()
	for _, c := range cases {
		f := adreswijzer.SplitFreeForm(c.in, known)
		if f.Address1 != c.address1 || f.Address2 != c.address2 || f.Zip != c.zip || f.City != c.city || f.Country != c.country {
			t.Errorf("SplitFreeForm(%q) = %+v\nwant address1 %q address2 %q zip %q city %q country %q",
				c.in, f, c.address1, c.address2, c.zip, c.city, c.country)
		}
	}
}

func TestSplitFreeForm(t *testing.T) {
	checkSplit(t, samplePlaces(t), []splitCase{
		{"Achtergracht 1, 1381 BK Weesp", "Achtergracht 1", "", "1381 BK", "Weesp", ""},
		{"Achtergracht 1 1381 BK Weesp", "Achtergracht 1", "", "1381 BK", "Weesp", ""},
		{"Achtergracht 1, 1381BK, Weesp, Noord-Holland", "Achtergracht 1", "", "1381BK", "Weesp", ""},
		{"Hugo de Grootlaan 16\n1381 CS Weesp\nNederland", "Hugo de Grootlaan 16", "", "1381 CS", "Weesp", "NL"},
		{"Bakkerij De Vries\r\nHugo de Grootlaan 16\r\nbov\r\n1381 CS Weesp", "Hugo de Grootlaan 16", "bov", "1381 CS", "Weesp", ""},
		{"Hugo de Grootlaan\n16\n1381 CS Weesp", "Hugo de Grootlaan 16", "", "1381 CS", "Weesp", ""},
		{"Achtergracht 1\nWeesp 1381 BK", "Achtergracht 1", "", "1381 BK", "Weesp", ""},
		{"Rue du Pré aux Oies 134 bte 1, 1130 Bruxelles, Belgique", "Rue du Pré aux Oies 134 bte 1", "", "1130", "Bruxelles", "BE"},
		{"Ganzenweidestraat 134 bus 1, 1130 Haren België", "Ganzenweidestraat 134 bus 1", "", "1130", "Haren", "BE"},
		{"Route du Barrage 83, B-4960 Malmedy", "Route du Barrage 83", "", "B-4960", "Malmedy", ""},
		{"Kerkstraat 1000, Brussel", "Kerkstraat 1000", "", "", "Brussel", ""},
		{"Kerkstraat 12 1000 Brussel", "Kerkstraat 12", "", "1000", "Brussel", ""},
		{"1130 Haren, Haachtsesteenweg 1677 bus 8", "Haachtsesteenweg 1677 bus 8", "", "1130", "Haren", ""},
		{"Laan 1940-1945 12, 1381 BK Weesp", "Laan 1940-1945 12", "", "1381 BK", "Weesp", ""},
		{"Achtergracht 1, 1381 BE Weesp", "Achtergracht 1", "", "1381 BE", "Weesp", ""},
		{"Achtergracht 1, Weesp", "Achtergracht 1", "", "", "Weesp", ""},
		{"Achtergracht 1", "Achtergracht 1", "", "", "", ""},
		{"Unter den Linden 1, 10117 Berlin, Deutschland", "Unter den Linden 1", "", "", "10117 Berlin", "DE"},
		{"Stevens-de Waelplein 9; 1502 Lembeek; BE", "Stevens-de Waelplein 9", "", "1502", "Lembeek", "BE"},
		{" , \n ", "", "", "", "", ""},
		// Words after the number are cut off as the town only when a register knows them
		// and they are no part of the number.
		{"Achtergracht 1 Parijs", "Achtergracht 1 Parijs", "", "", "", ""},
		{"Achtergracht 1 Weesp", "Achtergracht 1", "", "", "Weesp", ""},
	})
	checkSplit(t, adreswijzer.PlaceKnown(func(n string) bool { return strings.EqualFold(n, "ee") }), []splitCase{
		{"Kerkstraat 12 Ee", "Kerkstraat 12 Ee", "", "", "", ""},
		{"Kerkstraat 12, Ee", "Kerkstraat 12", "", "", "Ee", ""},
	})
}

// splitThenVerify checks the split of each address and then the verdict verify_address
// gives it, so that a cut that looks right must also be read right by the engine.
// splitVerdict is a line as typed, how it splits and what verifying it answers.
type splitVerdict struct {
	split splitCase
	want  verdict
}

func splitThenVerify(t *testing.T, cases []splitVerdict) {
	t.Helper()
	known := samplePlaces(t)
	var splits []splitCase
	for _, c := range cases {
		splits = append(splits, c.split)
	}
	checkSplit(t, known, splits)
	cs := connect(t, serve(t, sampleData(t), Options{}), "2026-07-28")
	for _, c := range cases {
		if got, _ := verifyVerdict(t, cs, map[string]any{"address": c.split.in}); !sameVerdict(got, c.want) {
			t.Errorf("verify %q:\ngot  %v\nwant %v", c.split.in, got, c.want)
		}
	}
}

// TestSplitPostcodeFirst: the postcode and town may come first, as platforms that print
// the locality first write them; the street line is then read after them.
func TestSplitPostcodeFirst(t *testing.T) {
	splitThenVerify(t, []splitVerdict{
		{splitCase{"1502 Lembeek, Stevens-de Waelplein 9 bus 2", "Stevens-de Waelplein 9 bus 2", "", "1502", "Lembeek", ""},
			verdict{status: "valid", country: "BE", zip: "1502", unit: "bus 2"}},
		{splitCase{"1502 Lembeek\nStevens-de Waelplein 9\nbus 2\nBelgië", "Stevens-de Waelplein 9", "bus 2", "1502", "Lembeek", "BE"},
			verdict{status: "valid", country: "BE", zip: "1502", unit: "bus 2"}},
		{splitCase{"1502 Lembeek Stevens-de Waelplein 9 bus 2", "Stevens-de Waelplein 9 bus 2", "", "1502", "Lembeek", ""},
			verdict{status: "valid", country: "BE", zip: "1502", unit: "bus 2"}},
		{splitCase{"1381 CS Weesp, Hugo de Grootlaan 16 bov", "Hugo de Grootlaan 16 bov", "", "1381 CS", "Weesp", ""},
			verdict{status: "valid", country: "NL", zip: "1381 CS", unit: "bov"}},
		{splitCase{"Weesp 1381 BK, Achtergracht 1", "Achtergracht 1", "", "1381 BK", "Weesp", ""},
			verdict{status: "valid", country: "NL", zip: "1381 BK"}},
		{splitCase{"4960 Malmedy, Route du Barrage 83, Belgique", "Route du Barrage 83", "", "4960", "Malmedy", "BE"},
			verdict{status: "valid", country: "BE", zip: "4960"}},
		{splitCase{"Weesp, Achtergracht 1", "Achtergracht 1", "", "", "Weesp", ""},
			verdict{status: "corrected", country: "NL", issues: []adreswijzer.IssueCode{adreswijzer.IssueFormatInvalid}, zip: "1381 BK"}},
		// A four-digit house number is not taken for the postcode when one comes first.
		{splitCase{"1130 Haren, Ganzenweidestraat 1000", "Ganzenweidestraat 1000", "", "1130", "Haren", ""},
			verdict{status: "invalid", country: "BE", issues: []adreswijzer.IssueCode{adreswijzer.IssueHouseNumberNotFound}}},
	})
}

// TestSplitTownWithoutComma: a town after the house number without a comma is the city
// when a register knows it, and never when the words belong to the number.
func TestSplitTownWithoutComma(t *testing.T) {
	splitThenVerify(t, []splitVerdict{
		{splitCase{"Achtergracht 1 Weesp", "Achtergracht 1", "", "", "Weesp", ""},
			verdict{status: "corrected", country: "NL", issues: []adreswijzer.IssueCode{adreswijzer.IssueFormatInvalid}, zip: "1381 BK"}},
		{splitCase{"Hugo de Grootlaan 16 bov Weesp", "Hugo de Grootlaan 16 bov", "", "", "Weesp", ""},
			verdict{status: "corrected", country: "NL", issues: []adreswijzer.IssueCode{adreswijzer.IssueFormatInvalid}, zip: "1381 CS", unit: "bov"}},
		{splitCase{"Rue du Pré aux Oies 134 bte 1 Haren", "Rue du Pré aux Oies 134 bte 1", "", "", "Haren", ""},
			verdict{status: "corrected", country: "BE", issues: []adreswijzer.IssueCode{adreswijzer.IssueFormatInvalid}, zip: "1130", unit: "bte 1"}},
		{splitCase{"Route du Barrage 83 Malmedy", "Route du Barrage 83", "", "", "Malmedy", ""},
			verdict{status: "corrected", country: "BE", issues: []adreswijzer.IssueCode{adreswijzer.IssueFormatInvalid}, zip: "4960"}},
		{splitCase{"Achtergracht 1 Weesp, 1381 BK", "Achtergracht 1", "", "1381 BK", "Weesp", ""},
			verdict{status: "valid", country: "NL", zip: "1381 BK"}},
	})
}

// TestSplitLeftovers: a country written after the town without a comma, sentence
// punctuation and dashes used as commas stay out of the city and the street.
func TestSplitLeftovers(t *testing.T) {
	splitThenVerify(t, []splitVerdict{
		{splitCase{"Nieuwstraat 12a, 1381 BC Weesp NL", "Nieuwstraat 12a", "", "1381 BC", "Weesp", "NL"},
			verdict{status: "valid", country: "NL", zip: "1381 BC"}},
		{splitCase{"Nieuwstraat 12a, 1381 BC Weesp Nederland", "Nieuwstraat 12a", "", "1381 BC", "Weesp", "NL"},
			verdict{status: "valid", country: "NL", zip: "1381 BC"}},
		{splitCase{"Nieuwstraat 12a, 1381 BC Weesp the Netherlands", "Nieuwstraat 12a", "", "1381 BC", "Weesp", "NL"},
			verdict{status: "valid", country: "NL", zip: "1381 BC"}},
		{splitCase{"Nieuwstraat 12a, 1381 BC Weesp Holland.", "Nieuwstraat 12a", "", "1381 BC", "Weesp", "NL"},
			verdict{status: "valid", country: "NL", zip: "1381 BC"}},
		{splitCase{"Nieuwstraat 12a, 1381 BC Weesp NL, Nederland", "Nieuwstraat 12a", "", "1381 BC", "Weesp", "NL"},
			verdict{status: "valid", country: "NL", zip: "1381 BC"}},
		{splitCase{"1381 BC Weesp NL, Nieuwstraat 12a", "Nieuwstraat 12a", "", "1381 BC", "Weesp", "NL"},
			verdict{status: "valid", country: "NL", zip: "1381 BC"}},
		{splitCase{"Nieuwstraat 12a. 1381 BC Weesp.", "Nieuwstraat 12a", "", "1381 BC", "Weesp", ""},
			verdict{status: "valid", country: "NL", zip: "1381 BC"}},
		{splitCase{"Rue du Pré aux Oies 134 bte 1 - 1130 Bruxelles - Belgique", "Rue du Pré aux Oies 134 bte 1", "", "1130", "Bruxelles", "BE"},
			verdict{status: "valid", country: "BE", zip: "1130", unit: "bte 1"}},
		{splitCase{"Ganzenweidestraat 134 bus 1 – 1130 Haren – België", "Ganzenweidestraat 134 bus 1", "", "1130", "Haren", "BE"},
			verdict{status: "valid", country: "BE", zip: "1130", unit: "bus 1"}},
		{splitCase{"Route du Barrage 83, 4960 Malmedy BE", "Route du Barrage 83", "", "4960", "Malmedy", "BE"},
			verdict{status: "valid", country: "BE", zip: "4960"}},
		{splitCase{"Route du Barrage 83, 4960 Malmedy Belgien", "Route du Barrage 83", "", "4960", "Malmedy", "BE"},
			verdict{status: "valid", country: "BE", zip: "4960"}},
		{splitCase{"Stevens-de Waelplein 9 bus 2, 1502 Lembeek Belgium!", "Stevens-de Waelplein 9 bus 2", "", "1502", "Lembeek", "BE"},
			verdict{status: "valid", country: "BE", zip: "1502", unit: "bus 2"}},
		// The letters of a Dutch postcode are no country, and a dash between numbers
		// joins them.
		{splitCase{"Achtergracht 1, 1381 BE Weesp", "Achtergracht 1", "", "1381 BE", "Weesp", ""},
			verdict{status: "corrected", country: "NL", issues: []adreswijzer.IssueCode{adreswijzer.IssueHouseNumberNotFound}, zip: "1381 BK"}},
		{splitCase{"Bloemendalerweg 51A - 10, 1382 KB Weesp", "Bloemendalerweg 51A - 10", "", "1382 KB", "Weesp", ""},
			verdict{status: "valid", country: "NL", zip: "1382 KB", unit: "10"}},
	})
}

// TestVerifyPartsMisplaced: verify_address in parts reads misplaced fields with the same
// reader as the free-form address, through the engine validate shares: the whole address in
// address1, the postcode and town swapped, each found, corrected (typed differently), never
// blocking; and the free-form address itself, read by the agent's split, valid.
func TestVerifyPartsMisplaced(t *testing.T) {
	cs := connect(t, serve(t, sampleData(t), Options{}), "2026-07-28")
	want := verdict{status: "corrected", country: "NL", zip: "1381 CS", unit: "bov"}
	for _, args := range []map[string]any{
		{"address1": "Hugo de Grootlaan 16 bov, 1381 CS Weesp", "countryCode": "NL"},
		{"address1": "Hugo de Grootlaan 16 bov", "zip": "Weesp", "city": "1381 CS", "countryCode": "NL"},
		{"address1": "Hugo de Grootlaan 16 bov", "zip": "1833 EA", "city": "WEESP NH", "countryCode": "NL"},
	} {
		got, _ := verifyVerdict(t, cs, args)
		w := want
		if args["zip"] == "1833 EA" {
			w.issues = []adreswijzer.IssueCode{adreswijzer.IssueCityMismatch, adreswijzer.IssuePostcodeNotFound}
		}
		if !sameVerdict(got, w) {
			t.Errorf("verify %v:\ngot  %v\nwant %v", args, got, w)
		}
	}
	free := verdict{status: "valid", country: "NL", zip: "1381 CS", unit: "bov"}
	if got, _ := verifyVerdict(t, cs, map[string]any{"address": "Hugo de Grootlaan 16 bov, 1381 CS Weesp"}); !sameVerdict(got, free) {
		t.Errorf("verify free-form:\ngot  %v\nwant %v", got, free)
	}
}
