package storetest

import "github.com/adreswijzer/adreswijzer"

// Real register rows, copied field by field from the samples (see SOURCES.md of the samples)
// so that the conformance checks run without an importer. Each row names its register ids.

// WeespAddresses returns 40 addresses of the Kadaster BAG extract of Weesp (gemeente 0457),
// stand 2021-10-15 (BAGGEM0457L-15102021.zip). Each row is the current voorkomen of a
// Nummeraanduiding (identificatie, huisnummer, huisletter, huisnummertoevoeging, postcode) with
// the OpenbareRuimte it ligtAan (identificatie, naam, verkorteNaam), woonplaats 3631 "Weesp",
// gemeente 0457 "Weesp" (gemeentelijke-indeling.csv). The status follows the object that has
// the address as hoofdadres, named in the comment: "gevormd" is a new build (planned).
//
// The selection covers letters with toevoegingen at one number (1382KB 51), both letter cases,
// toevoegingen of letters ("ben", "bov"), a street in four postcodes with a NEN 5825 short name
// (0457300000000158), ligplaatsen and standplaatsen, new builds, and two addresses the extract
// gives no postcode.
func WeespAddresses() []adreswijzer.Address {
	out := make([]adreswijzer.Address, len(weesp))
	for i, r := range weesp {
		out[i] = adreswijzer.Address{
			Country:           adreswijzer.NL,
			ID:                r.id,
			StreetID:          r.streetID,
			Street:            adreswijzer.Names{NL: r.street},
			StreetShort:       r.short,
			HouseNumber:       r.number,
			HouseNumberSuffix: r.letter,
			Addition:          r.addition,
			Postcode:          r.postcode,
			Locality:          adreswijzer.Names{NL: "Weesp"},
			Municipality:      adreswijzer.Names{NL: "Weesp"},
			Status:            r.status,
		}
	}
	return out
}

type nlRow struct {
	id, streetID, street, short string
	number                      int
	letter, addition, postcode  string
	status                      adreswijzer.Status
}

var weesp = []nlRow{
	// VBO 0457010000059129, status "Verblijfsobject in gebruik"
	{id: "0457200000199360", streetID: "0457300000000023", street: "Bloemendalerweg", short: "", number: 51, letter: "A", addition: "1", postcode: "1382KB", status: adreswijzer.StatusInUse},
	// VBO 0457010000059138, status "Verblijfsobject in gebruik"
	{id: "0457200000199361", streetID: "0457300000000023", street: "Bloemendalerweg", short: "", number: 51, letter: "A", addition: "10", postcode: "1382KB", status: adreswijzer.StatusInUse},
	// VBO 0457010000059130, status "Verblijfsobject in gebruik"
	{id: "0457200000199362", streetID: "0457300000000023", street: "Bloemendalerweg", short: "", number: 51, letter: "A", addition: "2", postcode: "1382KB", status: adreswijzer.StatusInUse},
	// VBO 0457010000059139, status "Verblijfsobject in gebruik"
	{id: "0457200000199370", streetID: "0457300000000023", street: "Bloemendalerweg", short: "", number: 51, letter: "B", addition: "1", postcode: "1382KB", status: adreswijzer.StatusInUse},
	// VBO 0457010000059153, status "Verblijfsobject in gebruik"
	{id: "0457200000199376", streetID: "0457300000000023", street: "Bloemendalerweg", short: "", number: 51, letter: "B", addition: "15", postcode: "1382KB", status: adreswijzer.StatusInUse},
	// VBO 0457010000059154, status "Verblijfsobject in gebruik"
	{id: "0457200000199385", streetID: "0457300000000023", street: "Bloemendalerweg", short: "", number: 51, letter: "C", addition: "1", postcode: "1382KB", status: adreswijzer.StatusInUse},
	// VBO 0457010000059156, status "Verblijfsobject in gebruik"
	{id: "0457200000199387", streetID: "0457300000000023", street: "Bloemendalerweg", short: "", number: 51, letter: "D", addition: "2", postcode: "1382KB", status: adreswijzer.StatusInUse},
	// VBO 0457010000059166, status "Verblijfsobject in gebruik"
	{id: "0457200000199397", streetID: "0457300000000023", street: "Bloemendalerweg", short: "", number: 51, letter: "H", addition: "1", postcode: "1382KB", status: adreswijzer.StatusInUse},
	// VBO 0457010000005798, status "Verblijfsobject in gebruik"
	{id: "0457200000201450", streetID: "0457300000000158", street: "Henriëtte Roland Holsthof", short: "H Roland Holsthof", number: 1, letter: "", addition: "", postcode: "1382SH", status: adreswijzer.StatusInUse},
	// VBO 0457010000005799, status "Verblijfsobject in gebruik"
	{id: "0457200000201451", streetID: "0457300000000158", street: "Henriëtte Roland Holsthof", short: "H Roland Holsthof", number: 2, letter: "", addition: "", postcode: "1382SK", status: adreswijzer.StatusInUse},
	// VBO 0457010000005846, status "Verblijfsobject in gebruik"
	{id: "0457200000201498", streetID: "0457300000000158", street: "Henriëtte Roland Holsthof", short: "H Roland Holsthof", number: 49, letter: "", addition: "", postcode: "1382SJ", status: adreswijzer.StatusInUse},
	// VBO 0457010000005847, status "Verblijfsobject in gebruik"
	{id: "0457200000201499", streetID: "0457300000000158", street: "Henriëtte Roland Holsthof", short: "H Roland Holsthof", number: 50, letter: "", addition: "", postcode: "1382SL", status: adreswijzer.StatusInUse},
	// VBO 0457010000061113, status "Verblijfsobject in gebruik"
	{id: "0457200000521565", streetID: "0457300000000244", street: "Fanny Blankers-Koenstraat", short: "Fanny Blankers-Koenstr", number: 1, letter: "", addition: "", postcode: "1382NB", status: adreswijzer.StatusInUse},
	// VBO 0457010000061169, status "Verblijfsobject in gebruik"
	{id: "0457200000521615", streetID: "0457300000000244", street: "Fanny Blankers-Koenstraat", short: "Fanny Blankers-Koenstr", number: 2, letter: "", addition: "", postcode: "1382NB", status: adreswijzer.StatusInUse},
	// LIG 0457020000008443, status "Plaats aangewezen"
	{id: "0457200000199033", streetID: "0457300000000013", street: "Aquamarin", short: "", number: 116, letter: "", addition: "", postcode: "1382KN", status: adreswijzer.StatusInUse},
	// LIG 0457020000021152, status "Plaats aangewezen"
	{id: "0457200000199034", streetID: "0457300000000013", street: "Aquamarin", short: "", number: 120, letter: "s", addition: "", postcode: "1382KN", status: adreswijzer.StatusInUse},
	// LIG 0457020000008264, status "Plaats aangewezen"
	{id: "0457200000199035", streetID: "0457300000000013", street: "Aquamarin", short: "", number: 122, letter: "s", addition: "", postcode: "1382KN", status: adreswijzer.StatusInUse},
	// STA 0457030000059920, status "Plaats aangewezen"
	{id: "0457200000520775", streetID: "0457300000000147", street: "Papelaan", short: "", number: 128, letter: "", addition: "", postcode: "1382RP", status: adreswijzer.StatusInUse},
	// STA 0457030000059921, status "Plaats aangewezen"
	{id: "0457200000520776", streetID: "0457300000000147", street: "Papelaan", short: "", number: 132, letter: "", addition: "", postcode: "1382RP", status: adreswijzer.StatusInUse},
	// VBO 0457010000059747, status "Verblijfsobject gevormd"
	{id: "0457200000415310", streetID: "0457300000000068", street: "'s-Gravelandseweg", short: "", number: 22, letter: "b", addition: "", postcode: "1381HJ", status: adreswijzer.StatusPlanned},
	// VBO 0457010000059751, status "Verblijfsobject gevormd"
	{id: "0457200000415338", streetID: "0457300000000068", street: "'s-Gravelandseweg", short: "", number: 22, letter: "c", addition: "", postcode: "1381HJ", status: adreswijzer.StatusPlanned},
	// VBO 0457010000059748, status "Verblijfsobject gevormd"
	{id: "0457200000415317", streetID: "0457300000000068", street: "'s-Gravelandseweg", short: "", number: 22, letter: "d", addition: "", postcode: "1381HJ", status: adreswijzer.StatusPlanned},
	// VBO 0457010000001839, status "Verblijfsobject in gebruik"
	{id: "0457200000208659", streetID: "0457300000000068", street: "'s-Gravelandseweg", short: "", number: 30, letter: "", addition: "", postcode: "1381HJ", status: adreswijzer.StatusInUse},
	// VBO 0457010000001840, status "Verblijfsobject in gebruik"
	{id: "0457200000208660", streetID: "0457300000000068", street: "'s-Gravelandseweg", short: "", number: 30, letter: "a", addition: "", postcode: "1381HJ", status: adreswijzer.StatusInUse},
	// VBO 0457010000062487, status "Verblijfsobject gevormd"
	{id: "0457200000522676", streetID: "0457300000000068", street: "'s-Gravelandseweg", short: "", number: 30, letter: "a", addition: "", postcode: "", status: adreswijzer.StatusPlanned},
	// VBO 0457010000060737, status "Verblijfsobject gevormd"
	{id: "0457200000521258", streetID: "0457300000000135", street: "Lange Muiderweg", short: "", number: 601, letter: "", addition: "", postcode: "1382LD", status: adreswijzer.StatusPlanned},
	// VBO 0457010000057778, status "Verblijfsobject in gebruik"
	{id: "0457200000198431", streetID: "0457300000000001", street: "Achtergracht", short: "", number: 5, letter: "a", addition: "", postcode: "1381BK", status: adreswijzer.StatusInUse},
	// VBO 0457010000058994, status "Verblijfsobject in gebruik"
	{id: "0457200000198432", streetID: "0457300000000001", street: "Achtergracht", short: "", number: 5, letter: "b", addition: "", postcode: "1381BK", status: adreswijzer.StatusInUse},
	// VBO 0457010000059457, status "Verblijfsobject in gebruik"
	{id: "0457200000198427", streetID: "0457300000000001", street: "Achtergracht", short: "", number: 2, letter: "a", addition: "", postcode: "1381BN", status: adreswijzer.StatusInUse},
	// VBO 0457010000007428, status "Verblijfsobject in gebruik"
	{id: "0457200000200497", streetID: "0457300000000196", street: "Dr.J.Th.de Visserlaan", short: "", number: 1, letter: "", addition: "ben", postcode: "1381CX", status: adreswijzer.StatusInUse},
	// VBO 0457010000007429, status "Verblijfsobject in gebruik"
	{id: "0457200000200498", streetID: "0457300000000196", street: "Dr.J.Th.de Visserlaan", short: "", number: 1, letter: "", addition: "bov", postcode: "1381CX", status: adreswijzer.StatusInUse},
	// VBO 0457010000007430, status "Verblijfsobject in gebruik"
	{id: "0457200000200499", streetID: "0457300000000196", street: "Dr.J.Th.de Visserlaan", short: "", number: 2, letter: "", addition: "ben", postcode: "1381CX", status: adreswijzer.StatusInUse},
	// VBO 0457010000058750, status "Verbouwing verblijfsobject"
	{id: "0457200000198645", streetID: "0457300000000005", street: "Achteromstraat", short: "", number: 9, letter: "a", addition: "", postcode: "1381AV", status: adreswijzer.StatusInUse},
	// VBO 0457010000001057, status "Verblijfsobject in gebruik"
	{id: "0457200000200043", streetID: "0457300000000043", street: "Dammerweg", short: "", number: 5, letter: "", addition: "", postcode: "1383HT", status: adreswijzer.StatusInUse},
	// VBO 0457010000001058, status "Verblijfsobject in gebruik"
	{id: "0457200000200044", streetID: "0457300000000043", street: "Dammerweg", short: "", number: 5, letter: "a", addition: "", postcode: "1383HT", status: adreswijzer.StatusInUse},
	// VBO 0457010000060925, status "Verblijfsobject in gebruik"
	{id: "0457200000521400", streetID: "0457300000000043", street: "Dammerweg", short: "", number: 5, letter: "c", addition: "", postcode: "", status: adreswijzer.StatusInUse},
	// VBO 0457010000060926, status "Verblijfsobject in gebruik"
	{id: "0457200000521401", streetID: "0457300000000043", street: "Dammerweg", short: "", number: 5, letter: "d", addition: "", postcode: "1383HT", status: adreswijzer.StatusInUse},
	// LIG 0457020000001069, status "Plaats aangewezen"
	{id: "0457200000200057", streetID: "0457300000000043", street: "Dammerweg", short: "", number: 942, letter: "s", addition: "", postcode: "1383HV", status: adreswijzer.StatusInUse},
	// VBO 0457010000061914, status "Verblijfsobject in gebruik"
	{id: "0457200000522102", streetID: "0457300000000275", street: "Fort Diemerdamstraat", short: "", number: 71, letter: "a", addition: "", postcode: "1384AH", status: adreswijzer.StatusInUse},
	// VBO 0457010000061915, status "Verblijfsobject in gebruik"
	{id: "0457200000522103", streetID: "0457300000000275", street: "Fort Diemerdamstraat", short: "", number: 71, letter: "b", addition: "", postcode: "1384AH", status: adreswijzer.StatusInUse},
}

// BeSTAddresses returns 30 addresses of the BeST Address sample (Fedict/best-tools test data,
// addresses_part.csv with streets_part.csv, municipalities.csv, municipalityparts.csv and
// postals.csv): Brussel (Haren) 1130 with Dutch and French street names, Lembeek 1502 (Halle)
// with numeric boxes and proposed and reserved addresses, and Malmedy 4960 with parts of
// municipality and boxes such as "2.B". Each row's comment is the register row it was copied
// from (identifier through status); ids lose their version as the domain keeps them. The
// locality is the postal name, or for Wallonia, whose postcode 4960 has no name, the part of
// municipality; "proposed" and "reserved" are planned.
func BeSTAddresses() []adreswijzer.Address {
	out := make([]adreswijzer.Address, len(best))
	for i, r := range best {
		out[i] = adreswijzer.Address{
			Country:           adreswijzer.BE,
			ID:                r.id,
			StreetID:          r.streetID,
			Street:            r.street,
			HouseNumber:       r.number,
			HouseNumberSuffix: r.suffix,
			Box:               r.box,
			Postcode:          r.postcode,
			Locality:          r.locality,
			Municipality:      r.municipality,
			SubMunicipality:   r.sub,
			Status:            r.status,
		}
	}
	return out
}

type beRow struct {
	id, streetID                string
	street                      adreswijzer.Names
	number                      int
	suffix, box, postcode       string
	locality, municipality, sub adreswijzer.Names
	status                      adreswijzer.Status
}

var best = []beRow{
	// BA/213231/2;BM/21004/7;;BS/1211/2;BP/1130/2;45;;;current
	{id: "BA/213231", streetID: "BS/1211", street: adreswijzer.Names{NL: "Middelweg", FR: "Middelweg"}, number: 45, suffix: "", box: "", postcode: "1130", locality: adreswijzer.Names{NL: "Brussel (Haren)", FR: "Bruxelles (Haren)"}, municipality: adreswijzer.Names{NL: "Brussel", FR: "Bruxelles"}, sub: adreswijzer.Names{}, status: adreswijzer.StatusInUse},
	// BA/698194/2;BM/21004/7;;BS/1211/2;BP/1130/2;45;b009;;current
	{id: "BA/698194", streetID: "BS/1211", street: adreswijzer.Names{NL: "Middelweg", FR: "Middelweg"}, number: 45, suffix: "", box: "b009", postcode: "1130", locality: adreswijzer.Names{NL: "Brussel (Haren)", FR: "Bruxelles (Haren)"}, municipality: adreswijzer.Names{NL: "Brussel", FR: "Bruxelles"}, sub: adreswijzer.Names{}, status: adreswijzer.StatusInUse},
	// BA/698290/2;BM/21004/7;;BS/1211/2;BP/1130/2;45;b010;;current
	{id: "BA/698290", streetID: "BS/1211", street: adreswijzer.Names{NL: "Middelweg", FR: "Middelweg"}, number: 45, suffix: "", box: "b010", postcode: "1130", locality: adreswijzer.Names{NL: "Brussel (Haren)", FR: "Bruxelles (Haren)"}, municipality: adreswijzer.Names{NL: "Brussel", FR: "Bruxelles"}, sub: adreswijzer.Names{}, status: adreswijzer.StatusInUse},
	// BA/698294/2;BM/21004/7;;BS/1211/2;BP/1130/2;45;b014;;current
	{id: "BA/698294", streetID: "BS/1211", street: adreswijzer.Names{NL: "Middelweg", FR: "Middelweg"}, number: 45, suffix: "", box: "b014", postcode: "1130", locality: adreswijzer.Names{NL: "Brussel (Haren)", FR: "Bruxelles (Haren)"}, municipality: adreswijzer.Names{NL: "Brussel", FR: "Bruxelles"}, sub: adreswijzer.Names{}, status: adreswijzer.StatusInUse},
	// BA/239213/2;BM/21004/7;;BS/4395/2;BP/1130/2;45;;;current
	{id: "BA/239213", streetID: "BS/4395", street: adreswijzer.Names{NL: "Ganzenweidestraat", FR: "Rue du Pré aux Oies"}, number: 45, suffix: "", box: "", postcode: "1130", locality: adreswijzer.Names{NL: "Brussel (Haren)", FR: "Bruxelles (Haren)"}, municipality: adreswijzer.Names{NL: "Brussel", FR: "Bruxelles"}, sub: adreswijzer.Names{}, status: adreswijzer.StatusInUse},
	// BA/110783/2;BM/21004/7;;BS/4003/2;BP/1130/2;45;;;current
	{id: "BA/110783", streetID: "BS/4003", street: adreswijzer.Names{NL: "Harenheidestraat", FR: "Rue Harenheyde"}, number: 45, suffix: "", box: "", postcode: "1130", locality: adreswijzer.Names{NL: "Brussel (Haren)", FR: "Bruxelles (Haren)"}, municipality: adreswijzer.Names{NL: "Brussel", FR: "Bruxelles"}, sub: adreswijzer.Names{}, status: adreswijzer.StatusInUse},
	// BA/219753/2;BM/21004/7;;BS/49/2;BP/1130/2;45;;;current
	{id: "BA/219753", streetID: "BS/49", street: adreswijzer.Names{NL: "Verdunstraat", FR: "Rue de Verdun"}, number: 45, suffix: "", box: "", postcode: "1130", locality: adreswijzer.Names{NL: "Brussel (Haren)", FR: "Bruxelles (Haren)"}, municipality: adreswijzer.Names{NL: "Brussel", FR: "Bruxelles"}, sub: adreswijzer.Names{}, status: adreswijzer.StatusInUse},
	// BA/213251/2;BM/21004/7;;BS/4160/2;BP/1130/2;45;;;current
	{id: "BA/213251", streetID: "BS/4160", street: adreswijzer.Names{NL: "Vliegveldstraat", FR: "Rue de l'Aérodrome"}, number: 45, suffix: "", box: "", postcode: "1130", locality: adreswijzer.Names{NL: "Brussel (Haren)", FR: "Bruxelles (Haren)"}, municipality: adreswijzer.Names{NL: "Brussel", FR: "Bruxelles"}, sub: adreswijzer.Names{}, status: adreswijzer.StatusInUse},
	// BA/110975/2;BM/21004/7;;BS/2855/2;BP/1130/2;138;;;current
	{id: "BA/110975", streetID: "BS/2855", street: adreswijzer.Names{NL: "Heerlijkheidsstraat", FR: "Rue de la Seigneurie"}, number: 138, suffix: "", box: "", postcode: "1130", locality: adreswijzer.Names{NL: "Brussel (Haren)", FR: "Bruxelles (Haren)"}, municipality: adreswijzer.Names{NL: "Brussel", FR: "Bruxelles"}, sub: adreswijzer.Names{}, status: adreswijzer.StatusInUse},
	// BA/698658/2;BM/21004/7;;BS/4395/2;BP/1130/2;134;b001;;current
	{id: "BA/698658", streetID: "BS/4395", street: adreswijzer.Names{NL: "Ganzenweidestraat", FR: "Rue du Pré aux Oies"}, number: 134, suffix: "", box: "b001", postcode: "1130", locality: adreswijzer.Names{NL: "Brussel (Haren)", FR: "Bruxelles (Haren)"}, municipality: adreswijzer.Names{NL: "Brussel", FR: "Bruxelles"}, sub: adreswijzer.Names{}, status: adreswijzer.StatusInUse},
	// BA/110990/2;BM/21004/7;;BS/4003/2;BP/1130/2;89A;;;current
	{id: "BA/110990", streetID: "BS/4003", street: adreswijzer.Names{NL: "Harenheidestraat", FR: "Rue Harenheyde"}, number: 89, suffix: "A", box: "", postcode: "1130", locality: adreswijzer.Names{NL: "Brussel (Haren)", FR: "Bruxelles (Haren)"}, municipality: adreswijzer.Names{NL: "Brussel", FR: "Bruxelles"}, sub: adreswijzer.Names{}, status: adreswijzer.StatusInUse},
	// BA/110981/2;BM/21004/7;;BS/4003/2;BP/1130/2;67;;;current
	{id: "BA/110981", streetID: "BS/4003", street: adreswijzer.Names{NL: "Harenheidestraat", FR: "Rue Harenheyde"}, number: 67, suffix: "", box: "", postcode: "1130", locality: adreswijzer.Names{NL: "Brussel (Haren)", FR: "Bruxelles (Haren)"}, municipality: adreswijzer.Names{NL: "Brussel", FR: "Bruxelles"}, sub: adreswijzer.Names{}, status: adreswijzer.StatusInUse},
	// BA/112717/2;BM/21004/7;;BS/4003/2;BP/1130/2;44;;;current
	{id: "BA/112717", streetID: "BS/4003", street: adreswijzer.Names{NL: "Harenheidestraat", FR: "Rue Harenheyde"}, number: 44, suffix: "", box: "", postcode: "1130", locality: adreswijzer.Names{NL: "Brussel (Haren)", FR: "Bruxelles (Haren)"}, municipality: adreswijzer.Names{NL: "Brussel", FR: "Bruxelles"}, sub: adreswijzer.Names{}, status: adreswijzer.StatusInUse},
	// BA/91219/2;BM/21004/7;;BS/49/2;BP/1130/2;578;;;current
	{id: "BA/91219", streetID: "BS/49", street: adreswijzer.Names{NL: "Verdunstraat", FR: "Rue de Verdun"}, number: 578, suffix: "", box: "", postcode: "1130", locality: adreswijzer.Names{NL: "Brussel (Haren)", FR: "Bruxelles (Haren)"}, municipality: adreswijzer.Names{NL: "Brussel", FR: "Bruxelles"}, sub: adreswijzer.Names{}, status: adreswijzer.StatusInUse},
	// VA/269876/2013-10-05T15:58:31.813;VM/23027/2002-08-13T17:32:32;;VS/26028/2013-10-05T15:59:10.067;VP/1502/2002-08-13T16:37:33;580;;;current
	{id: "VA/269876", streetID: "VS/26028", street: adreswijzer.Names{NL: "Bergensesteenweg"}, number: 580, suffix: "", box: "", postcode: "1502", locality: adreswijzer.Names{NL: "Lembeek"}, municipality: adreswijzer.Names{NL: "Halle", FR: "Hal", DE: "Halle"}, sub: adreswijzer.Names{}, status: adreswijzer.StatusInUse},
	// VA/4560165/2017-10-18T14:26:44.823;VM/23027/2002-08-13T17:32:32;;VS/26028/2013-10-05T15:59:10.067;VP/1502/2002-08-13T16:37:33;580;1;;current
	{id: "VA/4560165", streetID: "VS/26028", street: adreswijzer.Names{NL: "Bergensesteenweg"}, number: 580, suffix: "", box: "1", postcode: "1502", locality: adreswijzer.Names{NL: "Lembeek"}, municipality: adreswijzer.Names{NL: "Halle", FR: "Hal", DE: "Halle"}, sub: adreswijzer.Names{}, status: adreswijzer.StatusInUse},
	// VA/4733994/2017-10-18T14:26:44.823;VM/23027/2002-08-13T17:32:32;;VS/26028/2013-10-05T15:59:10.067;VP/1502/2002-08-13T16:37:33;580;11;;current
	{id: "VA/4733994", streetID: "VS/26028", street: adreswijzer.Names{NL: "Bergensesteenweg"}, number: 580, suffix: "", box: "11", postcode: "1502", locality: adreswijzer.Names{NL: "Lembeek"}, municipality: adreswijzer.Names{NL: "Halle", FR: "Hal", DE: "Halle"}, sub: adreswijzer.Names{}, status: adreswijzer.StatusInUse},
	// VA/2621537/2013-10-05T15:58:31.813;VM/23027/2002-08-13T17:32:32;;VS/26028/2013-10-05T15:59:10.067;VP/1502/2002-08-13T16:37:33;595;;;current
	{id: "VA/2621537", streetID: "VS/26028", street: adreswijzer.Names{NL: "Bergensesteenweg"}, number: 595, suffix: "", box: "", postcode: "1502", locality: adreswijzer.Names{NL: "Lembeek"}, municipality: adreswijzer.Names{NL: "Halle", FR: "Hal", DE: "Halle"}, sub: adreswijzer.Names{}, status: adreswijzer.StatusInUse},
	// VA/4787884/2017-10-18T14:26:44.823;VM/23027/2002-08-13T17:32:32;;VS/26028/2013-10-05T15:59:10.067;VP/1502/2002-08-13T16:37:33;595;1;;current
	{id: "VA/4787884", streetID: "VS/26028", street: adreswijzer.Names{NL: "Bergensesteenweg"}, number: 595, suffix: "", box: "1", postcode: "1502", locality: adreswijzer.Names{NL: "Lembeek"}, municipality: adreswijzer.Names{NL: "Halle", FR: "Hal", DE: "Halle"}, sub: adreswijzer.Names{}, status: adreswijzer.StatusInUse},
	// VA/4215376/2017-10-18T14:26:44.823;VM/23027/2002-08-13T17:32:32;;VS/26028/2013-10-05T15:59:10.067;VP/1502/2002-08-13T16:37:33;595;12;;current
	{id: "VA/4215376", streetID: "VS/26028", street: adreswijzer.Names{NL: "Bergensesteenweg"}, number: 595, suffix: "", box: "12", postcode: "1502", locality: adreswijzer.Names{NL: "Lembeek"}, municipality: adreswijzer.Names{NL: "Halle", FR: "Hal", DE: "Halle"}, sub: adreswijzer.Names{}, status: adreswijzer.StatusInUse},
	// VA/2872157/2013-10-05T15:58:31.813;VM/23027/2002-08-13T17:32:32;;VS/26014/2013-10-05T15:59:10.067;VP/1502/2002-08-13T16:37:33;295;;;proposed
	{id: "VA/2872157", streetID: "VS/26014", street: adreswijzer.Names{NL: "Arthur Puesstraat"}, number: 295, suffix: "", box: "", postcode: "1502", locality: adreswijzer.Names{NL: "Lembeek"}, municipality: adreswijzer.Names{NL: "Halle", FR: "Hal", DE: "Halle"}, sub: adreswijzer.Names{}, status: adreswijzer.StatusPlanned},
	// VA/3662622/2013-10-05T15:58:31.813;VM/23027/2002-08-13T17:32:32;;VS/26178/2013-10-05T15:59:10.067;VP/1502/2002-08-13T16:37:33;574A;;;proposed
	{id: "VA/3662622", streetID: "VS/26178", street: adreswijzer.Names{NL: "Kasteelbrakelsesteenweg"}, number: 574, suffix: "A", box: "", postcode: "1502", locality: adreswijzer.Names{NL: "Lembeek"}, municipality: adreswijzer.Names{NL: "Halle", FR: "Hal", DE: "Halle"}, sub: adreswijzer.Names{}, status: adreswijzer.StatusPlanned},
	// VA/3662629/2013-10-05T15:58:31.813;VM/23027/2002-08-13T17:32:32;;VS/26042/2013-10-05T15:59:10.067;VP/1502/2002-08-13T16:37:33;168;;;reserved
	{id: "VA/3662629", streetID: "VS/26042", street: adreswijzer.Names{NL: "Boslaan"}, number: 168, suffix: "", box: "", postcode: "1502", locality: adreswijzer.Names{NL: "Lembeek"}, municipality: adreswijzer.Names{NL: "Halle", FR: "Hal", DE: "Halle"}, sub: adreswijzer.Names{}, status: adreswijzer.StatusPlanned},
	// WA/1409815/2;WM/63049/4;WMP/925/1;WS/7736836/1;WP/4960/1;8;;;current
	{id: "WA/1409815", streetID: "WS/7736836", street: adreswijzer.Names{FR: "Chemin de la Croix de Chôdes"}, number: 8, suffix: "", box: "", postcode: "4960", locality: adreswijzer.Names{FR: "Malmedy"}, municipality: adreswijzer.Names{FR: "Malmedy", DE: "Malmedy"}, sub: adreswijzer.Names{FR: "Malmedy"}, status: adreswijzer.StatusInUse},
	// WA/1799734/2;WM/63049/4;WMP/925/1;WS/7736836/1;WP/4960/1;8;0001;;current
	{id: "WA/1799734", streetID: "WS/7736836", street: adreswijzer.Names{FR: "Chemin de la Croix de Chôdes"}, number: 8, suffix: "", box: "0001", postcode: "4960", locality: adreswijzer.Names{FR: "Malmedy"}, municipality: adreswijzer.Names{FR: "Malmedy", DE: "Malmedy"}, sub: adreswijzer.Names{FR: "Malmedy"}, status: adreswijzer.StatusInUse},
	// WA/1799733/2;WM/63049/4;WMP/925/1;WS/7736836/1;WP/4960/1;8;0002;;current
	{id: "WA/1799733", streetID: "WS/7736836", street: adreswijzer.Names{FR: "Chemin de la Croix de Chôdes"}, number: 8, suffix: "", box: "0002", postcode: "4960", locality: adreswijzer.Names{FR: "Malmedy"}, municipality: adreswijzer.Names{FR: "Malmedy", DE: "Malmedy"}, sub: adreswijzer.Names{FR: "Malmedy"}, status: adreswijzer.StatusInUse},
	// WA/1799729/2;WM/63049/4;WMP/925/1;WS/7736836/1;WP/4960/1;8;2.B;;current
	{id: "WA/1799729", streetID: "WS/7736836", street: adreswijzer.Names{FR: "Chemin de la Croix de Chôdes"}, number: 8, suffix: "", box: "2.B", postcode: "4960", locality: adreswijzer.Names{FR: "Malmedy"}, municipality: adreswijzer.Names{FR: "Malmedy", DE: "Malmedy"}, sub: adreswijzer.Names{FR: "Malmedy"}, status: adreswijzer.StatusInUse},
	// WA/1798617/1;WM/63049/4;WMP/925/1;WS/7736922/1;WP/4960/1;5;0001;;current
	{id: "WA/1798617", streetID: "WS/7736922", street: adreswijzer.Names{FR: "Petit Vinâve"}, number: 5, suffix: "", box: "0001", postcode: "4960", locality: adreswijzer.Names{FR: "Malmedy"}, municipality: adreswijzer.Names{FR: "Malmedy", DE: "Malmedy"}, sub: adreswijzer.Names{FR: "Malmedy"}, status: adreswijzer.StatusInUse},
	// WA/1798620/1;WM/63049/4;WMP/152/1;WS/7736801/1;WP/4960/1;13;0002;;current
	{id: "WA/1798620", streetID: "WS/7736801", street: adreswijzer.Names{FR: "A la Fontaine"}, number: 13, suffix: "", box: "0002", postcode: "4960", locality: adreswijzer.Names{FR: "Bevercé"}, municipality: adreswijzer.Names{FR: "Malmedy", DE: "Malmedy"}, sub: adreswijzer.Names{FR: "Bevercé"}, status: adreswijzer.StatusInUse},
	// WA/1385755/1;WM/63049/4;WMP/925/1;WS/7736948/1;WP/4960/1;2Bis;;;current
	{id: "WA/1385755", streetID: "WS/7736948", street: adreswijzer.Names{FR: "Route de Falize"}, number: 2, suffix: "Bis", box: "", postcode: "4960", locality: adreswijzer.Names{FR: "Malmedy"}, municipality: adreswijzer.Names{FR: "Malmedy", DE: "Malmedy"}, sub: adreswijzer.Names{FR: "Malmedy"}, status: adreswijzer.StatusInUse},
}
