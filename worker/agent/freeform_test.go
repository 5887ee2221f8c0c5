package agent

import "testing"

func TestSplitFreeForm(t *testing.T) {
	cases := []struct {
		in                                     string
		address1, address2, zip, city, country string
	}{
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
		{"Laan 1940-1945 12, 1381 BK Weesp", "Laan 1940-1945 12", "", "1381 BK", "Weesp", ""},
		{"Achtergracht 1, 1381 BE Weesp", "Achtergracht 1", "", "1381 BE", "Weesp", ""},
		{"Achtergracht 1, Weesp", "Achtergracht 1", "", "", "Weesp", ""},
		{"Achtergracht 1", "Achtergracht 1", "", "", "", ""},
		{"Unter den Linden 1, 10117 Berlin, Deutschland", "Unter den Linden 1", "", "", "10117 Berlin", "DE"},
		{"Stevens-de Waelplein 9; 1502 Lembeek; BE", "Stevens-de Waelplein 9", "", "1502", "Lembeek", "BE"},
		{" , \n ", "", "", "", "", ""},
	}
	for _, c := range cases {
		f := splitFreeForm(c.in)
		if f.address1 != c.address1 || f.address2 != c.address2 || f.zip != c.zip || f.city != c.city || f.country != c.country {
			t.Errorf("splitFreeForm(%q) = %+v\nwant address1 %q address2 %q zip %q city %q country %q",
				c.in, f, c.address1, c.address2, c.zip, c.city, c.country)
		}
	}
}

func FuzzSplitFreeForm(f *testing.F) {
	f.Add("Rue du Pré aux Oies 134 bte 1, 1130 Bruxelles, Belgique")
	f.Add("Bakkerij De Vries\nHugo de Grootlaan 16\nbov\n1381 CS Weesp\nNederland")
	f.Fuzz(func(t *testing.T, s string) {
		f := splitFreeForm(s)
		if len(f.address1)+len(f.address2)+len(f.zip)+len(f.city) > len(s)+8 {
			t.Fatalf("parts longer than the input: %+v", f)
		}
	})
}
