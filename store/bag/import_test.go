package bag_test

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/store/bag"
	"github.com/adreswijzer/adreswijzer/store/storetest"
)

const (
	weespFile    = "BAGGEM0457L-15102021.zip"
	doesburgFile = "BAGNLDL-15092020-small.zip"
	mutFile      = "BAGNLDM-13112021-14112021.zip"
)

func importAll(t *testing.T, files ...string) (bag.Result, []adreswijzer.Address) {
	t.Helper()
	var paths []string
	for _, f := range files {
		paths = append(paths, storetest.File(t, "nl", f))
	}
	var out []adreswijzer.Address
	res, err := bag.Import(context.Background(), paths, func(a adreswijzer.Address) error {
		out = append(out, a)
		return nil
	}, bag.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res, out
}

func byID(as []adreswijzer.Address) map[string]adreswijzer.Address {
	m := make(map[string]adreswijzer.Address, len(as))
	for _, a := range as {
		m[a.ID] = a
	}
	return m
}

// The Weesp figures were established outside this package, twice:
//
//   - a shell pipeline over the stand's NUM XML: unzip the nested zips, split records at
//     <sl:stand>, drop those with <Historie:eindGeldigheid> (no Weesp voorkomen ends after the
//     stand date), which leaves 12,694 records with 12,694 distinct identificaties; 660 of them
//     say "Naamgeving ingetrokken", 107 of the rest have no <Objecten:postcode>: 11,927
//     addresses. 3,419 records have an eindGeldigheid. Of the VBOs without eindGeldigheid,
//     those "Verblijfsobject gevormd" have 811 hoofdadressen among the 11,927; no LIG/STA
//     status means planned.
//   - a Python ElementTree reader applying the rules of the package doc (current voorkomen,
//     joins, status table) to every file, which gives the same counts and the field values
//     in the table below.
func TestImportWeesp(t *testing.T) {
	res, addrs := importAll(t, weespFile)

	if res.Version != "bag:2021-10-15" {
		t.Errorf("version %q", res.Version)
	}
	// NUM 16,113 + OPR 593 + WPL 3 + VBO 26,085 + LIG 167 + STA 21 voorkomens.
	if res.Read != 42982 {
		t.Errorf("read %d voorkomens, want 42982", res.Read)
	}
	if res.Kept != 11927 || len(addrs) != 11927 {
		t.Errorf("kept %d, got %d addresses, want 11927", res.Kept, len(addrs))
	}
	wantSkipped := map[string]int64{"superseded voorkomen": 3419, "withdrawn": 660, "no postcode": 107}
	if !maps.Equal(res.Skipped, wantSkipped) {
		t.Errorf("skipped %v, want %v", res.Skipped, wantSkipped)
	}
	var sum int64
	for _, n := range res.Skipped {
		sum += n
	}
	if res.Kept+sum != 16113 {
		t.Errorf("kept plus skipped = %d, want the 16113 NUM voorkomens", res.Kept+sum)
	}
	if len(res.Warnings) != 0 {
		t.Errorf("warnings %q", res.Warnings)
	}

	status := map[adreswijzer.Status]int{}
	postcodes, streets := map[string]bool{}, map[string]bool{}
	var letter, addition, short int
	for i, a := range addrs {
		status[a.Status]++
		postcodes[a.Postcode] = true
		streets[a.StreetID] = true
		if a.HouseNumberSuffix != "" {
			letter++
		}
		if a.Addition != "" {
			addition++
		}
		if a.StreetShort != "" {
			short++
		}
		if a.Country != adreswijzer.NL || len(a.ID) != 16 || len(a.StreetID) != 16 || a.Locality.NL != "Weesp" || a.Municipality.NL != "Weesp" {
			t.Fatalf("address %d: %+v", i, a)
		}
		if i > 0 && addrs[i-1].ID >= a.ID {
			t.Fatalf("addresses not in identificatie order at %d", i)
		}
	}
	if status[adreswijzer.StatusInUse] != 11116 || status[adreswijzer.StatusPlanned] != 811 || len(status) != 2 {
		t.Errorf("statuses %v, want 11116 in use and 811 planned", status)
	}
	if len(postcodes) != 626 || len(streets) != 270 || letter != 1506 || addition != 344 || short != 136 {
		t.Errorf("%d postcodes, %d streets, %d letters, %d toevoegingen, %d short names; want 626, 270, 1506, 344, 136",
			len(postcodes), len(streets), letter, addition, short)
	}

	m := byID(addrs)
	inUse, planned := adreswijzer.StatusInUse, adreswijzer.StatusPlanned
	for _, tc := range []struct {
		why  string
		want adreswijzer.Address
	}{
		{"letter and toevoeging", nl("0457200000199360", "0457300000000023", "Bloemendalerweg", "", 51, "A", "1", "1382KB", inUse)},
		{"old Muiden id, VBO in gebruik", nl("0424200000017337", "0457300000000264", "Oude Papelaan", "", 3, "", "", "1384CA", inUse)},
		{"short name, non-ASCII name", nl("0457200000201450", "0457300000000158", "Henriëtte Roland Holsthof", "H Roland Holsthof", 1, "", "", "1382SH", inUse)},
		{"toevoeging ben", nl("0457200000200497", "0457300000000196", "Dr.J.Th.de Visserlaan", "", 1, "", "ben", "1381CX", inUse)},
		{"toevoeging bov", nl("0457200000200498", "0457300000000196", "Dr.J.Th.de Visserlaan", "", 1, "", "bov", "1381CX", inUse)},
		{"four-character toevoeging", nl("0457200000350981", "0457300000000084", "C.J.van Houtenlaan", "", 36, "", "HS05", "1381CP", inUse)},
		{"apostrophe in name", nl("0457200000198417", "0457300000000199", "Achter 't Vosje", "", 12, "", "", "1381XH", inUse)},
		{"Ligplaats, lower-case letter", nl("0457200000203931", "0457300000000103", "Lage Klompweg", "", 866, "s", "", "1383PN", inUse)},
		{"Verblijfsobject gevormd", nl("0457200000415310", "0457300000000068", "'s-Gravelandseweg", "", 22, "b", "", "1381HJ", planned)},
		{"gevormd, no letter", nl("0457200000521258", "0457300000000135", "Lange Muiderweg", "", 601, "", "", "1382LD", planned)},
		{"Verblijfsobject buiten gebruik", nl("0457200000206095", "0457300000000149", "Plataanlaan", "", 28, "", "", "1382RD", inUse)},
		{"in gebruik (niet ingemeten)", nl("0457200000199522", "0457300000000027", "Boternesserstraat", "", 22, "", "", "1382EB", inUse)},
		{"Verbouwing verblijfsobject", nl("0457200000199109", "0457300000000016", "Bastionweg", "", 3, "", "", "1383JA", inUse)},
		{"nevenadres of a VBO in gebruik", nl("0457200000521749", "0457300000000099", "Keurstraat", "", 5, "", "", "1382KT", inUse)},
		{"hoofdadres carrying that nevenadres", nl("0457200000205810", "0457300000000146", "Pampuslaan", "", 42, "", "", "1382JR", inUse)},
	} {
		got, ok := m[tc.want.ID]
		if !ok {
			t.Errorf("%s: %s missing", tc.why, tc.want.ID)
			continue
		}
		if got != tc.want {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.why, got, tc.want)
		}
	}
	// Their own status or their object's withdraws these; none may come out.
	for _, tc := range []struct{ id, why string }{
		{"0457200000520677", "Niet gerealiseerd verblijfsobject"},
		{"0457200000206007", "Plaats ingetrokken (Standplaats)"},
		{"0424200000018004", "Verblijfsobject ingetrokken"},
		{"0457200000522257", "Verblijfsobject ten onrechte opgevoerd"},
		{"0457200000522576", "Naamgeving ingetrokken, though still the nevenadres of a VBO gevormd"},
	} {
		if a, ok := m[tc.id]; ok {
			t.Errorf("%s (%s) came out: %+v", tc.id, tc.why, a)
		}
	}
}

func nl(id, streetID, street, short string, nr int, letter, add, pc string, st adreswijzer.Status) adreswijzer.Address {
	return adreswijzer.Address{
		Country: adreswijzer.NL, ID: id, StreetID: streetID, Street: adreswijzer.Names{NL: street},
		StreetShort: short, HouseNumber: nr, HouseNumberSuffix: letter, Addition: add, Postcode: pc,
		Locality: adreswijzer.Names{NL: "Weesp"}, Municipality: adreswijzer.Names{NL: "Weesp"}, Status: st,
	}
}

// NLExtract's cut-down national layout: 9999XXX inner zips straight in the outer zip,
// macOS junk beside them, and hand-made nevenadres cases in which two identificaties
// (…330998, …330999) have a later voorkomen without postcode.
func TestImportDoesburg(t *testing.T) {
	res, addrs := importAll(t, doesburgFile)
	if res.Version != "bag:2020-09-15" {
		t.Errorf("version %q", res.Version)
	}
	// NUM 14 + OPR 201 + WPL 1 + VBO 5 + LIG 2 + STA 2.
	if res.Read != 225 {
		t.Errorf("read %d, want 225", res.Read)
	}
	wantSkipped := map[string]int64{"superseded voorkomen": 6, "no postcode": 3}
	if !maps.Equal(res.Skipped, wantSkipped) {
		t.Errorf("skipped %v, want %v", res.Skipped, wantSkipped)
	}
	doesburg := func(id, streetID, street string, nr int, letter, pc string) adreswijzer.Address {
		return adreswijzer.Address{Country: adreswijzer.NL, ID: id, StreetID: streetID, Street: adreswijzer.Names{NL: street},
			HouseNumber: nr, HouseNumberSuffix: letter, Postcode: pc, Locality: adreswijzer.Names{NL: "Doesburg"},
			Municipality: adreswijzer.Names{NL: "Doesburg"}, Status: adreswijzer.StatusInUse}
	}
	want := []adreswijzer.Address{
		doesburg("0221200000330151", "0221300000311239", "Koppenberch", 2, "", "6982CZ"),    // Ligplaats
		doesburg("0221200000330153", "0221300000311239", "Koppenberch", 20, "", "6982CZ"),   // Ligplaats
		doesburg("0221200000330171", "0221300000311236", "Het Hoornwerck", 1, "", "6981ED"), // Standplaats
		doesburg("0221200000330173", "0221300000311236", "Het Hoornwerck", 4, "", "6981ED"), // Standplaats
		doesburg("0221200000330227", "0221300000311333", "Kosterstraat", 4, "", "6981CH"),   // VBO in verbouwing
	}
	if !slices.Equal(addrs, want) {
		t.Errorf("got\n%+v\nwant\n%+v", addrs, want)
	}
}

// The daily mutation delivery is national and touches no Weesp object (the package's
// internal test proves that record by record), so on the Weesp stand it changes the version,
// warns about the month between the two, and adds only records that give no address.
func TestImportWeespWithMutations(t *testing.T) {
	stand, standAddrs := importAll(t, weespFile)
	// Given mutation first: deliveries apply in date order whatever the argument order.
	res, addrs := importAll(t, mutFile, weespFile)

	if res.Version != "bag:2021-10-15+bagmut:2021-11-14" {
		t.Errorf("version %q", res.Version)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "gap") ||
		!strings.Contains(res.Warnings[0], "2021-10-15") || !strings.Contains(res.Warnings[0], "2021-11-13") {
		t.Errorf("warnings %q, want one about the gap 2021-10-15 to 2021-11-13", res.Warnings)
	}
	// The mutation file's "wordt" side: 6 Nummeraanduiding and 10,918 Verblijfsobject
	// voorkomens (Pand is not read).
	if res.Read != stand.Read+10924 {
		t.Errorf("read %d, want %d", res.Read, stand.Read+10924)
	}
	// Of the 6 NUM voorkomens: 0091200000050744 is ended (vk 1) and withdrawn (vk 2); four
	// new ones lie on streets outside Weesp.
	want := maps.Clone(stand.Skipped)
	want["superseded voorkomen"]++
	want["withdrawn"]++
	want["street missing"] += 4
	if !maps.Equal(res.Skipped, want) {
		t.Errorf("skipped %v, want %v", res.Skipped, want)
	}
	if !slices.Equal(addrs, standAddrs) {
		t.Errorf("mutations outside Weesp changed Weesp addresses")
	}
}

func TestImportRefusesBadInput(t *testing.T) {
	weesp := storetest.File(t, "nl", weespFile)
	mut := storetest.File(t, "nl", mutFile)
	notZip := storetest.File(t, "nl", "bagadres.csv")
	for _, tc := range []struct {
		name  string
		files []string
		want  string
	}{
		{"nothing", nil, "no files"},
		{"mutations only", []string{mut}, "no stand"},
		{"two stands", []string{weesp, weesp}, "two stands"},
		{"not a zip", []string{notZip}, "bagadres.csv"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := 0
			_, err := bag.Import(context.Background(), tc.files, func(adreswijzer.Address) error { n++; return nil }, bag.Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one mentioning %q", err, tc.want)
			}
			if n != 0 {
				t.Errorf("%d addresses added before the error", n)
			}
		})
	}
}

func TestImportCancel(t *testing.T) {
	weesp := storetest.File(t, "nl", weespFile)
	t.Run("before start", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := bag.Import(ctx, []string{weesp}, func(adreswijzer.Address) error { return nil }, bag.Options{})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("error %v, want context.Canceled", err)
		}
	})
	t.Run("while reading", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		n := 0
		_, err := bag.Import(ctx, []string{weesp}, func(adreswijzer.Address) error { n++; return nil }, bag.Options{
			Progress: func(p bag.Progress) {
				if p.Phase == bag.PhaseStand {
					cancel()
				}
			},
		})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("error %v, want context.Canceled", err)
		}
		if n != 0 {
			t.Errorf("%d addresses added after cancelling while reading", n)
		}
	})
	t.Run("while adding", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		n := 0
		_, err := bag.Import(ctx, []string{weesp}, func(adreswijzer.Address) error {
			n++
			if n == 1000 {
				cancel()
			}
			return nil
		}, bag.Options{})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("error %v, want context.Canceled", err)
		}
		if n < 1000 || n > 1000+256 {
			t.Errorf("%d addresses added; cancelling at 1000 should stop within 256", n)
		}
	})
	t.Run("add fails", func(t *testing.T) {
		errFull := errors.New("store full")
		n := 0
		_, err := bag.Import(context.Background(), []string{weesp}, func(adreswijzer.Address) error {
			n++
			if n == 10 {
				return errFull
			}
			return nil
		}, bag.Options{})
		if !errors.Is(err, errFull) || n != 10 {
			t.Errorf("error %v after %d adds, want the add error after 10", err, n)
		}
	})
}

func TestImportProgress(t *testing.T) {
	var got []bag.Progress
	_, err := bag.Import(context.Background(), []string{storetest.File(t, "nl", weespFile), storetest.File(t, "nl", mutFile)},
		func(adreswijzer.Address) error { return nil },
		bag.Options{Progress: func(p bag.Progress) { got = append(got, p) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 {
		t.Fatal("no progress reported")
	}
	last := got[len(got)-1]
	if last != (bag.Progress{Phase: bag.PhaseAddresses, Done: 12699, Total: 12699}) {
		t.Errorf("last progress %+v, want all 12699 current Nummeraanduidingen done", last)
	}
	phases := []string{bag.PhaseStand, bag.PhaseMutations, bag.PhaseAddresses}
	prev := 0
	for _, p := range got {
		i := slices.Index(phases, p.Phase)
		if i < prev || p.Done < 0 || p.Done > p.Total {
			t.Errorf("progress out of order or range: %+v in %+v", p, got)
		}
		prev = i
	}
}
