package carrier

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/store/storetest"
)

func TestLinesNL(t *testing.T) {
	tests := []struct {
		a    adreswijzer.Address
		want [2]string
	}{
		{holsthof1, [2]string{"Henriëtte Roland Holsthof 1", "1382 SH  WEESP"}},
		{holsthof25, [2]string{"Henriëtte Roland Holsthof 25", "1382 SH  WEESP"}},
		{fanny1, [2]string{"Fanny Blankers-Koenstraat 1", "1382 NB  WEESP"}},
		{achtergr1, [2]string{"Achtergracht 1", "1381 BK  WEESP"}},
		{achtergr2a, [2]string{"Achtergracht 2 a", "1381 BN  WEESP"}},
		{bloemend51A1, [2]string{"Bloemendalerweg 51 A1", "1382 KB  WEESP"}},
		{bloemend51A0, [2]string{"Bloemendalerweg 51 A10", "1382 KB  WEESP"}},
		{hugo30a225, [2]string{"Hugo de Grootlaan 30 a225", "1381 DE  WEESP"}},
		{visser1ben, [2]string{"Dr.J.Th.de Visserlaan 1 ben", "1381 CX  WEESP"}},
		{visser1bov, [2]string{"Dr.J.Th.de Visserlaan 1 bov", "1381 CX  WEESP"}},
		{houten36NK, [2]string{"C.J.van Houtenlaan 36 NK", "1381 CP  WEESP"}},
		{nolens19, [2]string{"Mgr.Dr.W.H.Nolenslaan 19", "1381 CW  WEESP"}},
		{papelaan1, [2]string{"Oude Papelaan 1", "1384 CA  WEESP"}},
		{weesperweg5, [2]string{"Weesperweg 5", "1384 EA  WEESP"}},
		{aquamarin120, [2]string{"Aquamarin 120 s", "1382 KN  WEESP"}},
		{dammerweg942, [2]string{"Dammerweg 942 s", "1383 HV  WEESP"}},
		{ossenm30c, [2]string{"Ossenmarkt 30 c", "1381 LX  WEESP"}},
		{kanaalpad1, [2]string{"Kanaalpad 1", "WEESP"}},
		{doorman9l, [2]string{"Schout bij Nacht Doormansingel 9 l", "DOESBURG"}},
		{aspermont6, [2]string{"Burgemeester Flugi van Aspermontlaan 6", "6981 AN  DOESBURG"}},
	}
	for _, tt := range tests {
		for _, lang := range langs {
			got := Lines(&tt.a, lang)
			if len(got) != 2 || got[0] != tt.want[0] || got[1] != tt.want[1] {
				t.Errorf("Lines(%s, %s) = %q, want %q", tt.a.ID, lang, got, tt.want)
			}
		}
	}
}

func TestLinesBE(t *testing.T) {
	tests := []struct {
		a    adreswijzer.Address
		lang adreswijzer.Language
		want [2]string
	}{
		{seigneurie138, nl, [2]string{"Heerlijkheidsstraat 138", "1130 Brussel (Haren)"}},
		{seigneurie138, fr, [2]string{"Rue de la Seigneurie 138", "1130 Bruxelles (Haren)"}},
		// Brussels has no German names; French is the region's first language.
		{seigneurie138, de, [2]string{"Rue de la Seigneurie 138", "1130 Bruxelles (Haren)"}},
		{seigneurie138, en, [2]string{"Rue de la Seigneurie 138", "1130 Bruxelles (Haren)"}},
		{harenheyde89A, nl, [2]string{"Harenheidestraat 89A", "1130 Brussel (Haren)"}},
		// The box after its marker without the register's own marker and padding ("b001",
		// "0001", "Bte5"), as bpost prints it ("Rue Courtejoie 17 bte 1").
		{preAuxOies134, nl, [2]string{"Ganzenweidestraat 134 bus 1", "1130 Brussel (Haren)"}},
		{preAuxOies134, fr, [2]string{"Rue du Pré aux Oies 134 bte 1", "1130 Bruxelles (Haren)"}},
		{preAuxOies134, en, [2]string{"Rue du Pré aux Oies 134 bte 1", "1130 Bruxelles (Haren)"}},
		{middelweg111, nl, [2]string{"Middelweg 111 bus 2.1", "1130 Brussel (Haren)"}},
		{middelweg111, fr, [2]string{"Middelweg 111 bte 2.1", "1130 Bruxelles (Haren)"}},
		{haecht35, fr, [2]string{"Ancienne chaussée de Haecht 35 bte 1", "1130 Bruxelles (Haren)"}},
		{chicons17, nl, [2]string{"Witloofboerderijpad 17 bus 15", "1130 Brussel (Haren)"}},
		// Flanders: no French street name, so a French reader gets the Dutch line whole,
		// marker included, never "Bergensesteenweg 595 bte 12".
		{bergense706, nl, [2]string{"Bergensesteenweg 706", "1502 Lembeek"}},
		{bergense595, fr, [2]string{"Bergensesteenweg 595 bus 12", "1502 Lembeek"}},
		{bergense595, en, [2]string{"Bergensesteenweg 595 bus 12", "1502 Lembeek"}},
		{prinsenbos2A, de, [2]string{"Prinsenbos 2A bus 21", "1502 Lembeek"}},
		{kasteel230, nl, [2]string{"Kasteelbrakelsesteenweg 230", "1502 Lembeek"}},
		// Malmedy: French only, whatever the reader's language.
		{falize2Bis, nl, [2]string{"Route de Falize 2Bis", "4960 Malmedy"}},
		{vinave5, nl, [2]string{"Petit Vinâve 5 bte 1", "4960 Malmedy"}},
		{vinave5, de, [2]string{"Petit Vinâve 5 bte 1", "4960 Malmedy"}},
		{wibald1, fr, [2]string{"Rue Wibald 1 bte 5", "4960 Malmedy"}},
		{chodes8, en, [2]string{"Chemin de la Croix de Chôdes 8 bte 2.B", "4960 Malmedy"}},
		{xhurdebise1B, fr, [2]string{"Xhurdebise 1B", "4960 Bevercé"}},
		{barrage104B, fr, [2]string{"Route du Barrage 104B", "4960 Bevercé"}},
		{frontiere11, fr, [2]string{"Route de l'Ancienne Frontière 11 bte 1", "4960 Burnenville"}},
		{allies18, fr, [2]string{"Avenue des Alliés 18 bte 3.2", "4960 Malmedy"}},
	}
	for _, tt := range tests {
		got := Lines(&tt.a, tt.lang)
		if len(got) != 2 || got[0] != tt.want[0] || got[1] != tt.want[1] {
			t.Errorf("Lines(%s, %s) = %q, want %q", tt.a.ID, tt.lang, got, tt.want)
		}
	}
}

func TestDisplayLanguage(t *testing.T) {
	tests := []struct {
		a    adreswijzer.Address
		want map[adreswijzer.Language]adreswijzer.Language // requested -> shown
	}{
		{holsthof1, map[adreswijzer.Language]adreswijzer.Language{nl: nl, fr: nl, de: nl, en: nl, "": nl}},
		{preAuxOies134, map[adreswijzer.Language]adreswijzer.Language{nl: nl, fr: fr, de: fr, en: fr, "": fr}},
		{bergense595, map[adreswijzer.Language]adreswijzer.Language{nl: nl, fr: nl, de: nl, en: nl, "": nl}},
		{vinave5, map[adreswijzer.Language]adreswijzer.Language{nl: fr, fr: fr, de: fr, en: fr, "": fr}},
	}
	for _, tt := range tests {
		for req, want := range tt.want {
			if got := DisplayLanguage(&tt.a, req); got != want {
				t.Errorf("DisplayLanguage(%s, %q) = %s, want %s", tt.a.ID, req, got, want)
			}
		}
	}
}

// TestRegionMatchesBeST holds the postcode ranges to BeST's own region of every postcode
// (DIC_PtoM, 2019 full download) and the German-speaking range to the municipalities BeST
// names only in German.
func TestRegionMatchesBeST(t *testing.T) {
	dir := filepath.Join(storetest.DataDir(t), "be")
	var pToM map[string][]string
	readJSON(t, filepath.Join(dir, "DIC_PtoM.txt"), &pToM)
	var munis map[string]map[string]map[string]map[string]string // region, NIS, version, lang
	readJSON(t, filepath.Join(dir, "DIC_Municipalities.txt"), &munis)

	german := map[string]bool{}
	for nis, versions := range munis["W"] {
		for _, names := range versions {
			if names["de"] != "" && names["fr"] == "" {
				german[nis] = true
			}
		}
	}
	if len(german) != 9 {
		t.Fatalf("found %d German-speaking municipalities, want the 9 of the German-speaking Community", len(german))
	}
	key := regexp.MustCompile(`^([BFW])-.*\((\d+)\)$`)
	want := map[string]region{"B": brussels, "F": flanders, "W": wallonia}
	checked := 0
	for p, ms := range pToM {
		m := key.FindStringSubmatch(p)
		if m == nil {
			t.Fatalf("unexpected postcode key %q", p)
		}
		postcode := m[2]
		w := want[m[1]]
		allGerman := len(ms) > 0
		for _, muni := range ms {
			nis := key.FindStringSubmatch(muni)
			if nis == nil || !german[nis[2]] {
				allGerman = false
			}
		}
		if allGerman {
			w = germanCommunity
		}
		if got := regionOf(postcode); got != w {
			t.Errorf("regionOf(%s) = %d, want %d (BeST %s)", postcode, got, w, p)
		}
		checked++
	}
	if checked < 1100 {
		t.Errorf("checked only %d postcodes", checked)
	}
	for _, p := range []string{"", "612", "0612", "10000", "12AB", "1382SH"} {
		if got := regionOf(p); got != regionUnknown {
			t.Errorf("regionOf(%q) = %d, want unknown", p, got)
		}
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// TestLinesAgreeWithFields runs over the project's shared register rows: the printed lines
// and the carrier fields name the same street and place in the same language, and a Belgian
// box follows its marker in the language of its street.
func TestLinesAgreeWithFields(t *testing.T) {
	rows := append(storetest.WeespAddresses(), storetest.BeSTAddresses()...)
	if len(rows) == 0 {
		t.Fatal("no shared register rows")
	}
	for _, a := range rows {
		for _, lang := range langs {
			lines := Lines(&a, lang)
			f := Fields(&a, "", lang)
			name := a.ID + " " + string(lang)
			if !strings.HasPrefix(lines[0], f.Street+" ") {
				t.Errorf("%s: street line %q does not start with the street field %q", name, lines[0], f.Street)
			}
			if a.Country == adreswijzer.NL {
				if !strings.HasSuffix(lines[1], strings.ToUpper(f.City)) || lines[0] != f.Street+" "+a.NumberText() {
					t.Errorf("%s: lines %q disagree with fields %+v", name, lines, f)
				}
				continue
			}
			if lines[1] != a.Postcode+" "+f.City {
				t.Errorf("%s: postal line %q, fields city %q", name, lines[1], f.City)
			}
			if a.Box != "" {
				want := boxMarker(DisplayLanguage(&a, lang)) + " " + adreswijzer.BoxNumber(a.Box)
				if !strings.HasSuffix(lines[0], " "+want) || f.HouseNumberAddition == nil || !strings.HasSuffix(*f.HouseNumberAddition, want) {
					t.Errorf("%s: box not written as %q: %q / %v", name, want, lines[0], f.HouseNumberAddition)
				}
			}
			if a.Street.FR != "" && a.Street.NL != "" && a.Street.FR != a.Street.NL {
				wantStreet := a.Street.FR
				if lang == adreswijzer.LangNL {
					wantStreet = a.Street.NL
				}
				if f.Street != wantStreet {
					t.Errorf("%s: bilingual street gives %q, want %q", name, f.Street, wantStreet)
				}
			}
		}
	}
}

// postalLineNL and join are written for speed; they must say what the plain definitions say.
func FuzzLineHelpers(f *testing.F) {
	f.Add("1382KB", "Weesp", "Kerkstraat", "12", "")
	f.Add("", "'s-Gravenhage", "", "", "")
	f.Add("1011 ab", "Groß\xffÿ", "a", "", "b")
	f.Fuzz(func(t *testing.T, postcode, city, a, b, c string) {
		want := strings.ToUpper(city)
		if postcode != "" {
			want = adreswijzer.FormatPostcode(adreswijzer.NL, postcode) + "  " + want
		}
		if got := new(Writer).postalLineNL(postcode, city); got != want {
			t.Errorf("postalLineNL(%q, %q) = %q, want %q", postcode, city, got, want)
		}
		var parts []string
		for _, s := range []string{a, b, c} {
			if s != "" {
				parts = append(parts, s)
			}
		}
		if got, want := join(a, b, c), strings.Join(parts, " "); got != want {
			t.Errorf("join(%q, %q, %q) = %q, want %q", a, b, c, got, want)
		}
	})
}
