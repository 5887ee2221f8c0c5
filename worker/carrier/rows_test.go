package carrier

import "github.com/adreswijzer/adreswijzer"

// Real register rows, written out as the importers produce them.
//
// NL: Kadaster LV BAG 2.0 extract of Weesp (BAGGEM0457L-15102021, current voorkomens), the
// Doesburg extract (BAGNLDL-15092020-small) and, for one long street that has no address in
// that cut-down extract, the Rijksmonumentenregister (monument 513140), which lists the BAG
// addresses "Burgemeester Flugi van Aspermontlaan 6 / 8, 6981 AN te Doesburg".
// BE: BOSA's BeST test data (addresses_part, streets_part, postals, municipalities,
// municipalityparts): Brussels/Haren 1130, Halle/Lembeek 1502, Malmedy 4960.

func weesp(id, streetID, street, short string, number int, letter, toevoeging, postcode string) adreswijzer.Address {
	return adreswijzer.Address{
		Country: adreswijzer.NL, ID: id, StreetID: streetID,
		Street: adreswijzer.Names{NL: street}, StreetShort: short,
		HouseNumber: number, HouseNumberSuffix: letter, Addition: toevoeging, Postcode: postcode,
		Locality:     adreswijzer.Names{NL: "Weesp"},
		Municipality: adreswijzer.Names{NL: "Weesp"},
		Status:       adreswijzer.StatusInUse,
	}
}

var (
	holsthof1    = weesp("0457200000201450", "0457300000000158", "Henriëtte Roland Holsthof", "H Roland Holsthof", 1, "", "", "1382SH")
	holsthof25   = weesp("0457200000201474", "0457300000000158", "Henriëtte Roland Holsthof", "H Roland Holsthof", 25, "", "", "1382SH")
	fanny1       = weesp("0457200000521565", "0457300000000244", "Fanny Blankers-Koenstraat", "Fanny Blankers-Koenstr", 1, "", "", "1382NB")
	achtergr1    = weesp("0457200000198425", "0457300000000001", "Achtergracht", "", 1, "", "", "1381BK")
	achtergr2a   = weesp("0457200000198427", "0457300000000001", "Achtergracht", "", 2, "a", "", "1381BN")
	bloemend51A1 = weesp("0457200000199360", "0457300000000023", "Bloemendalerweg", "", 51, "A", "1", "1382KB")
	bloemend51A0 = weesp("0457200000199361", "0457300000000023", "Bloemendalerweg", "", 51, "A", "10", "1382KB")
	hugo30a225   = weesp("0457200000521052", "0457300000000070", "Hugo de Grootlaan", "", 30, "a", "225", "1381DE")
	visser1ben   = weesp("0457200000200497", "0457300000000196", "Dr.J.Th.de Visserlaan", "", 1, "", "ben", "1381CX")
	visser1bov   = weesp("0457200000200498", "0457300000000196", "Dr.J.Th.de Visserlaan", "", 1, "", "bov", "1381CX")
	houten36NK   = weesp("0457200000351037", "0457300000000084", "C.J.van Houtenlaan", "", 36, "", "NK", "1381CP")
	nolens19     = weesp("0457200000204645", "0457300000000140", "Mgr.Dr.W.H.Nolenslaan", "", 19, "", "", "1381CW")
	papelaan1    = weesp("0424200000017336", "0457300000000264", "Oude Papelaan", "", 1, "", "", "1384CA")
	weesperweg5  = weesp("0424200000018001", "0457300000000265", "Weesperweg", "", 5, "", "", "1384EA")
	aquamarin120 = weesp("0457200000199034", "0457300000000013", "Aquamarin", "", 120, "s", "", "1382KN") // ligplaats
	dammerweg942 = weesp("0457200000200057", "0457300000000043", "Dammerweg", "", 942, "s", "", "1383HV") // ligplaats
	ossenm30c    = weesp("0457200000205684", "0457300000000144", "Ossenmarkt", "", 30, "c", "", "1381LX")
	kanaalpad1   = weesp("0424200000046230", "0457300000000228", "Kanaalpad", "", 1, "", "", "") // no postcode in the BAG

	// Doesburg: a current NUM without postcode and a lower-case huisletter.
	doorman9l = adreswijzer.Address{
		Country: adreswijzer.NL, ID: "0221200000330229", StreetID: "0221300000311195",
		Street: adreswijzer.Names{NL: "Schout bij Nacht Doormansingel"}, StreetShort: "Sbn Doormansingel",
		HouseNumber: 9, HouseNumberSuffix: "l",
		Locality: adreswijzer.Names{NL: "Doesburg"}, Municipality: adreswijzer.Names{NL: "Doesburg"},
		Status: adreswijzer.StatusInUse,
	}
	// The street and its NEN 5825 short name are BAG OPR 0221300000311266; the number and
	// postcode are from the monument register (see above), whose BAG NUM id we do not have.
	aspermont6 = adreswijzer.Address{
		Country: adreswijzer.NL, StreetID: "0221300000311266",
		Street: adreswijzer.Names{NL: "Burgemeester Flugi van Aspermontlaan"}, StreetShort: "Burg Flugi v Aspermontln",
		HouseNumber: 6, Postcode: "6981AN",
		Locality: adreswijzer.Names{NL: "Doesburg"}, Municipality: adreswijzer.Names{NL: "Doesburg"},
		Status: adreswijzer.StatusInUse,
	}
)

func haren(id, streetID, nl, fr string, number int, suffix, box string) adreswijzer.Address {
	return adreswijzer.Address{
		Country: adreswijzer.BE, ID: id, StreetID: streetID,
		Street:      adreswijzer.Names{NL: nl, FR: fr},
		HouseNumber: number, HouseNumberSuffix: suffix, Box: box, Postcode: "1130",
		Locality:     adreswijzer.Names{NL: "Brussel (Haren)", FR: "Bruxelles (Haren)"},
		Municipality: adreswijzer.Names{NL: "Brussel", FR: "Bruxelles"},
		Status:       adreswijzer.StatusInUse,
	}
}

func lembeek(id, streetID, nl string, number int, suffix, box string) adreswijzer.Address {
	return adreswijzer.Address{
		Country: adreswijzer.BE, ID: id, StreetID: streetID,
		Street:      adreswijzer.Names{NL: nl},
		HouseNumber: number, HouseNumberSuffix: suffix, Box: box, Postcode: "1502",
		Locality:     adreswijzer.Names{NL: "Lembeek"},
		Municipality: adreswijzer.Names{NL: "Halle", FR: "Hal", DE: "Halle"},
		Status:       adreswijzer.StatusInUse,
	}
}

// malmedy: 4960 has no postal name in BeST, so the locality is the part of municipality.
func malmedy(id, streetID, fr string, number int, suffix, box, part string) adreswijzer.Address {
	return adreswijzer.Address{
		Country: adreswijzer.BE, ID: id, StreetID: streetID,
		Street:      adreswijzer.Names{FR: fr},
		HouseNumber: number, HouseNumberSuffix: suffix, Box: box, Postcode: "4960",
		Locality:        adreswijzer.Names{FR: part},
		Municipality:    adreswijzer.Names{FR: "Malmedy", DE: "Malmedy"},
		SubMunicipality: adreswijzer.Names{FR: part},
		Status:          adreswijzer.StatusInUse,
	}
}

var (
	seigneurie138 = haren("BA/110975", "BS/2855", "Heerlijkheidsstraat", "Rue de la Seigneurie", 138, "", "")
	harenheyde89A = haren("BA/110990", "BS/4003", "Harenheidestraat", "Rue Harenheyde", 89, "A", "")
	preAuxOies134 = haren("BA/698658", "BS/4395", "Ganzenweidestraat", "Rue du Pré aux Oies", 134, "", "b001")
	middelweg111  = haren("BA/698908", "BS/1211", "Middelweg", "Middelweg", 111, "", "b2.1")
	haecht35      = haren("BA/700940", "BS/2060", "Oude Haachtsesteenweg", "Ancienne chaussée de Haecht", 35, "", "b001")
	chicons17     = haren("BA/701297", "BS/7283", "Witloofboerderijpad", "Le Sentier de la Ferme à Chicons", 17, "", "b015")

	bergense706  = lembeek("VA/206000", "VS/26028", "Bergensesteenweg", 706, "", "")
	bergense595  = lembeek("VA/4215376", "VS/26028", "Bergensesteenweg", 595, "", "12")
	prinsenbos2A = lembeek("VA/4300369", "VS/26302", "Prinsenbos", 2, "A", "21")
	kasteel230   = lembeek("VA/232461", "VS/26178", "Kasteelbrakelsesteenweg", 230, "", "")

	falize2Bis     = malmedy("WA/1385755", "WS/7736948", "Route de Falize", 2, "Bis", "", "Malmedy")
	vinave5        = malmedy("WA/1798617", "WS/7736922", "Petit Vinâve", 5, "", "0001", "Malmedy")
	chodes8        = malmedy("WA/1799729", "WS/7736836", "Chemin de la Croix de Chôdes", 8, "", "2.B", "Malmedy")
	xhurdebise1B   = malmedy("WA/1296835", "WS/7737113", "Xhurdebise", 1, "B", "", "Bevercé")
	barrage104B    = malmedy("WA/1397420", "WS/7736973", "Route du Barrage", 104, "B", "", "Bevercé")
	frontiere11    = malmedy("WA/1809545", "WS/7736959", "Route de l'Ancienne Frontière", 11, "", "0001", "Burnenville")
	allies18       = malmedy("WA/1805329", "WS/7736816", "Avenue des Alliés", 18, "", "3.2", "Malmedy")
	wibald1        = malmedy("WA/1819410", "WS/7737083", "Rue Wibald", 1, "", "Bte5", "Malmedy")
	princes1       = malmedy("WA/1822760", "WS/7737039", "Rue des Princes-Abbés", 1, "", "Be.4", "Malmedy")
	werson28       = malmedy("WA/1816675", "WS/7737066", "Rue Joseph Werson", 28, "", "A/12", "Malmedy")
	carriers       = []adreswijzer.Carrier{adreswijzer.PostNL, adreswijzer.Bpost, adreswijzer.DHL, adreswijzer.Sendcloud}
	langs          = []adreswijzer.Language{adreswijzer.LangNL, adreswijzer.LangFR, adreswijzer.LangDE, adreswijzer.LangEN}
	nl, fr, de, en = adreswijzer.LangNL, adreswijzer.LangFR, adreswijzer.LangDE, adreswijzer.LangEN
)
