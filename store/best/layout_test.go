package best

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/adreswijzer/adreswijzer"
)

// The sample holds 11,879 address rows. Every one resolves its street, municipality and postal
// info, none has validTo or endLifeSpanVersion, and every house number starts with a non-zero
// digit, so only the 41 retired rows (all in Halle/Lembeek) are skipped: 11,838 are kept.
func TestImportSampleCounts(t *testing.T) {
	raw := loadRaw(t)
	res, got := importAll(t, []string{sampleDir(t)}, Options{})

	// The counts established from the raw rows, independently of the importer.
	rawRows := map[string]int{}
	rawKept := map[string]int{}
	for _, r := range raw.addresses {
		pc := raw.postals[noVersion(r[4])][1]
		rawRows[pc]++
		if r[8] != "retired" {
			rawKept[pc]++
		}
	}
	gotKept := map[string]int{}
	for _, a := range got {
		gotKept[a.Postcode]++
	}

	tests := []struct {
		postcode, place string
		rows, kept      int
	}{
		{"1130", "Brussel/Haren", 2492, 2492},
		{"1502", "Halle/Lembeek", 3446, 3405},
		{"4960", "Malmedy", 5941, 5941},
	}
	for _, tc := range tests {
		t.Run(tc.place, func(t *testing.T) {
			if rawRows[tc.postcode] != tc.rows {
				t.Errorf("raw rows %d, want %d", rawRows[tc.postcode], tc.rows)
			}
			if rawKept[tc.postcode] != tc.kept {
				t.Errorf("raw non-retired %d, want %d", rawKept[tc.postcode], tc.kept)
			}
			if gotKept[tc.postcode] != tc.kept {
				t.Errorf("imported %d, want %d", gotKept[tc.postcode], tc.kept)
			}
		})
	}
	if len(gotKept) != 3 {
		t.Errorf("postcodes %v, want only 1130, 1502, 4960", sortedKeys(gotKept))
	}
	if res.Read != 11879 || res.Kept != 11838 || int64(len(got)) != res.Kept {
		t.Errorf("Read %d Kept %d (add called %d times), want 11879 11838", res.Read, res.Kept, len(got))
	}
	if want := map[string]int64{SkipRetired: 41}; !reflect.DeepEqual(res.Skipped, want) {
		t.Errorf("Skipped %v, want %v", res.Skipped, want)
	}
	if res.Version != "best:2021-10-20" {
		t.Errorf("Version %q, want best:2021-10-20 (newest validFrom in the rows)", res.Version)
	}
	// The directory also holds BOSA's JSON dictionaries, the house number report and the
	// NUTS3 table: 11 files that are not BeST data.
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "11 files that are not BeST data") {
		t.Errorf("Warnings %q, want one about 11 ignored files", res.Warnings)
	}
}

// A file named on its own and again through its directory is read once.
func TestImportSameFileTwice(t *testing.T) {
	res, got := importAll(t, []string{sampleDir(t), sampleFile(t, "addresses_part.csv")}, Options{})
	if res.Kept != 11838 || len(byID(t, got)) != 11838 {
		t.Errorf("Kept %d, want 11838", res.Kept)
	}
}

func TestImportSampleStatuses(t *testing.T) {
	raw := loadRaw(t)
	_, got := importAll(t, sampleFiles(t), Options{})
	m := byID(t, got)

	retired := 0
	for _, r := range raw.addresses {
		if r[8] != "retired" {
			continue
		}
		retired++
		if _, ok := m[noVersion(r[0])]; ok {
			t.Errorf("retired address %s was imported", noVersion(r[0]))
		}
	}
	if retired != 41 {
		t.Errorf("raw retired rows %d, want 41", retired)
	}

	planned := map[string]string{}
	for _, a := range got {
		switch a.Status {
		case adreswijzer.StatusPlanned:
			planned[a.ID] = a.NumberText()
		case adreswijzer.StatusInUse:
		default:
			t.Errorf("address %s has status %v", a.ID, a.Status)
		}
	}
	// Two proposed and one reserved address, all in Lembeek.
	want := map[string]string{"VA/2872157": "295", "VA/3662622": "574A", "VA/3662629": "168"}
	if !reflect.DeepEqual(planned, want) {
		t.Errorf("planned %v, want %v", planned, want)
	}
}

// Every kept address is compared with its raw row: number text, box, postcode, street names,
// municipality and locality come out as the register writes them.
func TestImportSampleMatchesRawRows(t *testing.T) {
	raw := loadRaw(t)
	_, got := importAll(t, sampleFiles(t), Options{})
	m := byID(t, got)

	withBox := map[string]int{}
	rawWithBox := 0
	for _, r := range raw.addresses {
		if r[6] != "" {
			rawWithBox++
		}
		if r[8] == "retired" {
			continue
		}
		id := noVersion(r[0])
		a, ok := m[id]
		if !ok {
			t.Errorf("address %s not imported", id)
			continue
		}
		st := raw.streets[noVersion(r[3])]
		mu := raw.munis[noVersion(r[1])]
		pi := raw.postals[noVersion(r[4])]
		want := []string{r[5], r[6], pi[1], st[2], st[3], st[4], mu[2], mu[3], mu[4], noVersion(r[3])}
		have := []string{a.NumberText(), a.Box, a.Postcode, a.Street.NL, a.Street.FR, a.Street.DE,
			a.Municipality.NL, a.Municipality.FR, a.Municipality.DE, a.StreetID}
		if !reflect.DeepEqual(have, want) {
			t.Errorf("address %s: got %q, want %q", id, have, want)
		}
		if r[2] != "" {
			part := raw.parts[noVersion(r[2])]
			if a.SubMunicipality.FR != part[2] || a.Locality != a.SubMunicipality {
				t.Errorf("address %s: sub-municipality %+v locality %+v, want part %q", id, a.SubMunicipality, a.Locality, part[2])
			}
		} else if a.Locality.NL != pi[2] || a.Locality.FR != pi[3] || !a.SubMunicipality.IsZero() {
			t.Errorf("address %s: locality %+v, want postal name %q/%q", id, a.Locality, pi[2], pi[3])
		}
		if a.Box != "" {
			withBox[strings.SplitN(id, "/", 2)[0]]++
		}
	}
	if rawWithBox != 1637 {
		t.Errorf("raw rows with a box %d, want 1637", rawWithBox)
	}
	// One Lembeek address with a box (VA/5446311, box 01) is retired.
	if want := map[string]int{"BA": 618, "VA": 338, "WA": 680}; !reflect.DeepEqual(withBox, want) {
		t.Errorf("kept addresses with a box per region %v, want %v", withBox, want)
	}
}

// Real addresses, field by field.
func TestImportSampleAddresses(t *testing.T) {
	_, got := importAll(t, sampleFiles(t), Options{})
	m := byID(t, got)

	haren := adreswijzer.Names{NL: "Brussel (Haren)", FR: "Bruxelles (Haren)"}
	brussel := adreswijzer.Names{NL: "Brussel", FR: "Bruxelles"}
	lembeek := adreswijzer.Names{NL: "Lembeek"}
	halle := adreswijzer.Names{NL: "Halle", FR: "Hal", DE: "Halle"}
	malmedy := adreswijzer.Names{FR: "Malmedy", DE: "Malmedy"}
	partMalmedy := adreswijzer.Names{FR: "Malmedy"}
	beverce := adreswijzer.Names{FR: "Bevercé"}
	bellevaux := adreswijzer.Names{FR: "Bellevaux-Ligneuville"}
	be := adreswijzer.BE
	inUse, planned := adreswijzer.StatusInUse, adreswijzer.StatusPlanned

	tests := []adreswijzer.Address{
		{Country: be, ID: "BA/110975", StreetID: "BS/2855", Street: adreswijzer.Names{NL: "Heerlijkheidsstraat", FR: "Rue de la Seigneurie"},
			HouseNumber: 138, Postcode: "1130", Locality: haren, Municipality: brussel, Status: inUse},
		{Country: be, ID: "BA/698658", StreetID: "BS/4395", Street: adreswijzer.Names{NL: "Ganzenweidestraat", FR: "Rue du Pré aux Oies"},
			HouseNumber: 134, Box: "b001", Postcode: "1130", Locality: haren, Municipality: brussel, Status: inUse},
		{Country: be, ID: "BA/218683", StreetID: "BS/4081", Street: adreswijzer.Names{NL: "Noendelle", FR: "Noendelle"},
			HouseNumber: 42, HouseNumberSuffix: "B1", Postcode: "1130", Locality: haren, Municipality: brussel, Status: inUse},
		{Country: be, ID: "VA/4215376", StreetID: "VS/26028", Street: adreswijzer.Names{NL: "Bergensesteenweg"},
			HouseNumber: 595, Box: "12", Postcode: "1502", Locality: lembeek, Municipality: halle, Status: inUse},
		{Country: be, ID: "VA/2872157", StreetID: "VS/26014", Street: adreswijzer.Names{NL: "Arthur Puesstraat"},
			HouseNumber: 295, Postcode: "1502", Locality: lembeek, Municipality: halle, Status: planned},
		{Country: be, ID: "VA/3662622", StreetID: "VS/26178", Street: adreswijzer.Names{NL: "Kasteelbrakelsesteenweg"},
			HouseNumber: 574, HouseNumberSuffix: "A", Postcode: "1502", Locality: lembeek, Municipality: halle, Status: planned},
		{Country: be, ID: "VA/3662629", StreetID: "VS/26042", Street: adreswijzer.Names{NL: "Boslaan"},
			HouseNumber: 168, Postcode: "1502", Locality: lembeek, Municipality: halle, Status: planned},
		{Country: be, ID: "WA/1798617", StreetID: "WS/7736922", Street: adreswijzer.Names{FR: "Petit Vinâve"},
			HouseNumber: 5, Box: "0001", Postcode: "4960", Locality: partMalmedy, Municipality: malmedy, SubMunicipality: partMalmedy, Status: inUse},
		{Country: be, ID: "WA/1385755", StreetID: "WS/7736948", Street: adreswijzer.Names{FR: "Route de Falize"},
			HouseNumber: 2, HouseNumberSuffix: "Bis", Postcode: "4960", Locality: partMalmedy, Municipality: malmedy, SubMunicipality: partMalmedy, Status: inUse},
		{Country: be, ID: "WA/1798620", StreetID: "WS/7736801", Street: adreswijzer.Names{FR: "A la Fontaine"},
			HouseNumber: 13, Box: "0002", Postcode: "4960", Locality: beverce, Municipality: malmedy, SubMunicipality: beverce, Status: inUse},
		{Country: be, ID: "WA/1303217", StreetID: "WS/7737105", Street: adreswijzer.Names{FR: "Vers la Croix"},
			HouseNumber: 22, HouseNumberSuffix: "B", Postcode: "4960", Locality: bellevaux, Municipality: malmedy, SubMunicipality: bellevaux, Status: inUse},
		{Country: be, ID: "WA/1810263", StreetID: "WS/7736888", Street: adreswijzer.Names{FR: "Croix de Chôdes"},
			HouseNumber: 1, Box: "Be.7", Postcode: "4960", Locality: partMalmedy, Municipality: malmedy, SubMunicipality: partMalmedy, Status: inUse},
		{Country: be, ID: "WA/1335239", StreetID: "WS/7737025", Street: adreswijzer.Names{FR: "Rue des Avrûles"},
			HouseNumber: 4, HouseNumberSuffix: "b", Postcode: "4960", Locality: beverce, Municipality: malmedy, SubMunicipality: beverce, Status: inUse},
	}
	for _, want := range tests {
		t.Run(want.ID, func(t *testing.T) {
			a, ok := m[want.ID]
			if !ok {
				t.Fatal("not imported")
			}
			if a != want {
				t.Errorf("\n got %+v\nwant %+v", a, want)
			}
		})
	}
	if _, ok := m["VA/246938"]; ok {
		t.Error("retired VA/246938 (Lembeek 21) was imported")
	}
}

// Mutations of real rows: one field of a real address row is changed to exercise a rule the
// sample itself never triggers. The reference files are the real ones.
func TestImportLayoutRules(t *testing.T) {
	// BA/110975: Heerlijkheidsstraat 138, 1130 Haren.
	const base = "BA/110975/2;BM/21004/7;;BS/2855/2;BP/1130/2;138;;;current;2000-01-01T00:00Z;;;;00000000014102C75F83126E9841057A07978D4FDF;;;false"
	set := func(col int, v string) string {
		f := strings.Split(base, ";")
		f[col] = v
		return strings.Join(f, ";")
	}
	tests := []struct {
		name    string
		row     string
		opts    Options
		skipped string // reason, or "" when kept
		check   func(t *testing.T, a adreswijzer.Address)
	}{
		{name: "unchanged", row: base},
		{name: "validTo past", row: set(laValidTo, "2001-01-01T00:00Z"), skipped: SkipEnded},
		{name: "validTo future", row: set(laValidTo, "2999-01-01T00:00Z")},
		{name: "validTo after Options.Date", row: set(laValidTo, "2001-01-01T00:00Z"), opts: Options{Date: "2000-06-01"}},
		{name: "validTo on Options.Date", row: set(laValidTo, "2000-06-01T00:00Z"), opts: Options{Date: "2000-06-01"}, skipped: SkipEnded},
		{name: "endLifeSpanVersion past", row: set(laEndLife, "2017-10-18T14:26:44.823"), skipped: SkipEnded},
		{name: "validTo unreadable", row: set(laValidTo, "yesterday"), skipped: SkipInvalidDate},
		{name: "status unknown", row: set(laStatus, "rejected"), skipped: SkipUnknownStatus},
		{name: "status upper case", row: set(laStatus, "Proposed"), check: func(t *testing.T, a adreswijzer.Address) {
			if a.Status != adreswijzer.StatusPlanned {
				t.Errorf("status %v, want planned", a.Status)
			}
		}},
		{name: "street not in streets", row: set(laStreet, "BS/999999/2"), skipped: SkipStreetMissing},
		{name: "municipality not in municipalities", row: set(laMunicipality, "BM/99999/1"), skipped: SkipMunicipalityMissing},
		{name: "house number without digit", row: set(laHouseNumber, "bis"), skipped: SkipHouseNumberInvalid},
		{name: "house number zero", row: set(laHouseNumber, "0"), skipped: SkipHouseNumberInvalid},
		{name: "house number empty", row: set(laHouseNumber, ""), skipped: SkipHouseNumberInvalid},
		{name: "house number slash", row: set(laHouseNumber, "240/1"), check: func(t *testing.T, a adreswijzer.Address) {
			if a.HouseNumber != 240 || a.HouseNumberSuffix != "/1" || a.NumberText() != "240/1" {
				t.Errorf("number %d suffix %q", a.HouseNumber, a.HouseNumberSuffix)
			}
		}},
		{name: "postal info not in postals", row: set(laPostal, "BP/1999/2"), check: func(t *testing.T, a adreswijzer.Address) {
			// The postcode comes from the reference, the locality falls back to the municipality.
			if a.Postcode != "1999" || a.Locality != (adreswijzer.Names{NL: "Brussel", FR: "Bruxelles"}) {
				t.Errorf("postcode %q locality %+v", a.Postcode, a.Locality)
			}
		}},
		{name: "postal info without postcode", row: set(laPostal, ""), skipped: SkipPostcodeMissing},
		{name: "postal reference not a postcode", row: set(laPostal, "BP/11300/2"), skipped: SkipPostcodeInvalid},
		{name: "identifier without object", row: set(laID, "BA"), skipped: SkipMalformed},
		{name: "field missing", row: strings.TrimSuffix(base, ";false"), skipped: SkipMalformed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			addr := writeFile(t, filepath.Join(dir, "addresses_mutated.csv"), tc.row+"\n")
			files := append([]string{addr}, sampleFiles(t)[1:]...)
			var got []adreswijzer.Address
			res, err := Import(context.Background(), files, func(a adreswijzer.Address) error {
				got = append(got, a)
				return nil
			}, tc.opts)
			if tc.skipped != "" {
				// Nothing kept is an error; the message carries the skip reason.
				if err == nil || !strings.Contains(err.Error(), tc.skipped) {
					t.Fatalf("err %v, want no current addresses, skipped %q", err, tc.skipped)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Read != 1 || res.Kept != 1 || len(got) != 1 {
				t.Fatalf("Read %d Kept %d, want 1 1", res.Read, res.Kept)
			}
			if tc.check != nil {
				tc.check(t, got[0])
			}
		})
	}
}

// A malformed row among good ones is skipped and listed by line, never by content.
func TestImportLayoutMalformedRowListed(t *testing.T) {
	raw := loadRaw(t)
	var lines []string
	for _, r := range raw.addresses[:5] {
		lines = append(lines, strings.Join(r, ";"))
	}
	lines[2] = strings.Join(raw.addresses[2][:16], ";")
	dir := t.TempDir()
	addr := writeFile(t, filepath.Join(dir, "addresses_x.csv"), strings.Join(lines, "\n")+"\n")
	res, got := importAll(t, append([]string{addr}, sampleFiles(t)[1:]...), Options{})
	if res.Read != 5 || res.Kept != 4 || len(got) != 4 || res.Skipped[SkipMalformed] != 1 {
		t.Fatalf("Read %d Kept %d Skipped %v", res.Read, res.Kept, res.Skipped)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "line 3: 16 fields, want 17") {
		t.Fatalf("Warnings %q", res.Warnings)
	}
	if strings.Contains(res.Warnings[0], raw.addresses[2][5]+";") {
		t.Errorf("warning carries row content: %q", res.Warnings[0])
	}
}

func TestImportOptionsDate(t *testing.T) {
	res, _ := importAll(t, sampleFiles(t), Options{Date: "2024-01-02"})
	if res.Version != "best:2024-01-02" {
		t.Errorf("Version %q, want best:2024-01-02", res.Version)
	}
	if _, err := Import(context.Background(), sampleFiles(t), func(adreswijzer.Address) error { return nil }, Options{Date: "02-01-2024"}); err == nil {
		t.Error("a date not in YYYY-MM-DD form was accepted")
	}
}

func TestImportProgress(t *testing.T) {
	var reports []Progress
	_, _ = importAll(t, sampleFiles(t), Options{Progress: func(p Progress) { reports = append(reports, p) }})
	sizes := map[string]int64{}
	for i, f := range sampleFiles(t) {
		phase := PhaseReferences
		if i == 0 {
			phase = PhaseAddresses
		}
		sizes[phase] += fileSize(t, f)
	}
	var phases []string
	last := map[string]Progress{}
	for _, p := range reports {
		if len(phases) == 0 || phases[len(phases)-1] != p.Phase {
			phases = append(phases, p.Phase)
		}
		if prev, ok := last[p.Phase]; ok && p.Done < prev.Done {
			t.Errorf("%s went back from %d to %d", p.Phase, prev.Done, p.Done)
		}
		if p.Total != sizes[p.Phase] {
			t.Errorf("%s total %d, want %d", p.Phase, p.Total, sizes[p.Phase])
		}
		last[p.Phase] = p
	}
	if !reflect.DeepEqual(phases, []string{PhaseReferences, PhaseAddresses}) {
		t.Errorf("phases %v", phases)
	}
	for ph, p := range last {
		if p.Done != p.Total {
			t.Errorf("%s ended at %d of %d", ph, p.Done, p.Total)
		}
	}
	// The address file is 1.8 MB, so at least one report comes between start and end.
	if n := len(reports); n < 5 {
		t.Errorf("%d reports, want start and end of each phase and one in between", n)
	}
}

func TestImportErrors(t *testing.T) {
	dir := t.TempDir()
	official := writeFile(t, filepath.Join(dir, "openaddress-bebru.csv"), officialHeader+"\n")
	notBeST := writeFile(t, filepath.Join(dir, "notes.txt"), "not an address file\n")
	stopped := errors.New("store is full")
	tests := []struct {
		name  string
		files []string
		add   func(adreswijzer.Address) error
		want  string
	}{
		{"no files", nil, nil, "no input files"},
		{"missing file", []string{filepath.Join(dir, "absent.csv")}, nil, "absent.csv"},
		{"not a BeST file", []string{notBeST}, nil, "not a BeST file"},
		{"layout without streets", []string{sampleFile(t, "addresses_part.csv"), sampleFile(t, "municipalities.csv"),
			sampleFile(t, "municipalityparts.csv"), sampleFile(t, "postals.csv")}, nil, "no streets*.csv"},
		{"mixed formats", append(sampleFiles(t), official), nil, "mixes formats"},
		{"add fails", sampleFiles(t), func(adreswijzer.Address) error { return stopped }, "store is full"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			add := tc.add
			if add == nil {
				add = func(adreswijzer.Address) error { return nil }
			}
			res, err := Import(context.Background(), tc.files, add, Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "import BeST") {
				t.Fatalf("err %v, want one starting with import BeST and containing %q", err, tc.want)
			}
			if !reflect.DeepEqual(res, Result{}) {
				t.Errorf("Result %+v on error, want zero", res)
			}
		})
	}
	// The store's error stays inspectable, and the message says where the import stopped.
	_, err := Import(context.Background(), sampleFiles(t), func(adreswijzer.Address) error { return stopped }, Options{})
	if !errors.Is(err, stopped) || !strings.Contains(err.Error(), "addresses_part.csv line 1:") {
		t.Errorf("err %v, want it to wrap the add error with file and line", err)
	}
}

func TestImportCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	_, err := Import(ctx, sampleFiles(t), func(adreswijzer.Address) error {
		if n++; n == 100 {
			cancel()
		}
		return nil
	}, Options{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	if n >= 11838 {
		t.Errorf("add called %d times after cancel", n)
	}
}

func TestLayoutID(t *testing.T) {
	tests := []struct{ in, want string }{
		{"BA/110975/2", "BA/110975"},
		{"VA/206000/2013-10-05T15:58:31.813", "VA/206000"},
		{"WMP/925/1", "WMP/925"},
		{"BP/1130", "BP/1130"},
		{"BA", ""},
		{"BA//2", ""},
		{"/110975/2", ""},
		{"", ""},
	}
	for _, tc := range tests {
		got, ok := layoutID(tc.in)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("layoutID(%q) = %q, %v; want %q", tc.in, got, ok, tc.want)
		}
	}
}

func TestParseTimestamp(t *testing.T) {
	tests := []struct{ in, want string }{
		{"2000-01-01T00:00Z", "2000-01-01T00:00:00Z"},
		{"2019-06-05T11:43:08Z", "2019-06-05T11:43:08Z"},
		{"2017-10-18T14:26:44.823", "2017-10-18T14:26:44.823Z"},
		{"2024-04-04T18:44:37+02:00", "2024-04-04T18:44:37+02:00"},
		{"2002-08-13T17:32:32", "2002-08-13T17:32:32Z"},
		{"2021-10-20", "2021-10-20T00:00:00Z"},
		{"20211020", ""},
		{"", ""},
	}
	for _, tc := range tests {
		got, ok := parseTimestamp(tc.in)
		if !ok {
			if tc.want != "" {
				t.Errorf("parseTimestamp(%q) failed", tc.in)
			}
			continue
		}
		if s := got.Format("2006-01-02T15:04:05.999Z07:00"); s != tc.want || tc.want == "" {
			t.Errorf("parseTimestamp(%q) = %s, want %q", tc.in, s, tc.want)
		}
	}
}

func fileSize(t testing.TB, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// FuzzLayoutAddresses feeds arbitrary bytes to the load-layout address reader, with the real
// references. It must never panic, every error must say it is a BeST import error, and whatever
// it adds must be a usable address.
func FuzzLayoutAddresses(f *testing.F) {
	raw := loadRaw(f)
	for _, i := range []int{0, 2600, 9000} {
		f.Add(strings.Join(raw.addresses[i], ";") + "\n" + strings.Join(raw.addresses[i+1], ";"))
	}
	f.Add(`"BA/1/1";"BM/21004/7";;"BS/4395/2";"BP/1130/2";"1";;;current;;;;;;;;` + "\n")
	f.Add(`"BA/1/1;` + "\n")

	setup := newImporter(context.Background(), nil, nil, time.Time{})
	rf := newRefs()
	for _, name := range layoutFiles[1:] {
		path := sampleFile(f, name)
		src := &source{name: name, open: func() (io.ReadCloser, error) { return os.Open(path) }}
		src.kind, _ = classify(name, src.open)
		if err := setup.readLayoutRefs(src, rf); err != nil {
			f.Fatal(err)
		}
	}
	if len(rf.streets) != 2166 || len(rf.postals) != 1162 {
		f.Fatalf("%d streets and %d postal infos, want 2166 and 1162", len(rf.streets), len(rf.postals))
	}
	f.Fuzz(func(t *testing.T, content string) {
		imp := newImporter(context.Background(), func(a adreswijzer.Address) error {
			if a.Country != adreswijzer.BE || a.ID == "" || a.StreetID == "" || a.HouseNumber < 1 ||
				!validPostcode(a.Postcode) || a.Street.IsZero() || a.Municipality.IsZero() || a.Locality.IsZero() {
				t.Fatalf("unusable address added: %+v", a)
			}
			return nil
		}, nil, time.Time{})
		src := &source{name: "fuzz.csv", kind: kindLayoutAddresses, open: func() (io.ReadCloser, error) {
			return io.NopCloser(strings.NewReader(content)), nil
		}}
		err := imp.eachLayoutRecord(src, layoutAddressFields, true, func(rec []string, lr *layoutReader) error {
			return imp.layoutAddress(rec, lr, rf)
		})
		if err != nil && !strings.HasPrefix(err.Error(), "import BeST fuzz.csv") {
			t.Fatalf("error without context: %v", err)
		}
		var skipped int64
		for _, n := range imp.skipped {
			skipped += n
		}
		if imp.read != imp.kept+skipped {
			t.Fatalf("read %d != kept %d + skipped %d", imp.read, imp.kept, skipped)
		}
	})
}
