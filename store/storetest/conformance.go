package storetest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adreswijzer/adreswijzer"
)

// Opener returns a fresh, empty store and the loader that fills it. It registers its own
// cleanup with t.
type Opener func(t *testing.T) (adreswijzer.Store, adreswijzer.Loader)

// Versions used by the checks: real dates of the samples' register states.
const (
	weespVersion adreswijzer.DatasetVersion = "bag:2021-10-15"
	weespMutated adreswijzer.DatasetVersion = "bag:2021-10-15+bagmut:2021-11-14"
	bestVersion  adreswijzer.DatasetVersion = "best:2022-01-11"
)

// Run checks that a store behaves as the Store, Dataset and Loader interfaces promise, over
// the real rows of WeespAddresses and BeSTAddresses. Beyond the interfaces it fixes the order
// of answers, because the matching engine's answers must not depend on the store: AddressesAt
// orders by house-number suffix, addition, box and register id (byte order), AddressesOnStreet
// by postcode first.
func Run(t *testing.T, open Opener) {
	t.Run("AddressFields", testAddressFields)
	t.Run("NoDataset", func(t *testing.T) { testNoDataset(t, open) })
	t.Run("Weesp", func(t *testing.T) { testWeesp(t, open) })
	t.Run("BeST", func(t *testing.T) { testBeST(t, open) })
	t.Run("ActivationReplaces", func(t *testing.T) { testActivationReplaces(t, open) })
	t.Run("AbortKeepsActive", func(t *testing.T) { testAbortKeepsActive(t, open) })
	t.Run("RefusedWrites", func(t *testing.T) { testRefusedWrites(t, open) })
	t.Run("ReadersDuringActivation", func(t *testing.T) { testReadersDuringActivation(t, open) })
}

// Load writes rows into a new dataset of the country and commits it.
func Load(t testing.TB, l adreswijzer.Loader, c adreswijzer.Country, v adreswijzer.DatasetVersion, rows []adreswijzer.Address) adreswijzer.DatasetInfo {
	t.Helper()
	ctx := context.Background()
	w, err := l.Begin(ctx, c)
	if err != nil {
		t.Fatalf("begin %s: %v", c, err)
	}
	for _, a := range rows {
		if err := w.Add(a); err != nil {
			t.Fatalf("add %s: %v", a.ID, err)
		}
	}
	info, err := w.Commit(ctx, v)
	if err != nil {
		t.Fatalf("commit %s %s: %v", c, v, err)
	}
	return info
}

// Active returns the active dataset, failing the test when there is none.
func Active(t testing.TB, s adreswijzer.Store, c adreswijzer.Country) adreswijzer.Dataset {
	t.Helper()
	d, err := s.Active(context.Background(), c)
	if err != nil {
		t.Fatalf("active %s: %v", c, err)
	}
	return d
}

// StreetIndex finds a street of the catalog by register id.
func StreetIndex(t testing.TB, cat *adreswijzer.Catalog, registerID string) uint32 {
	t.Helper()
	for i, s := range cat.Streets {
		if s.RegisterID == registerID {
			return uint32(i)
		}
	}
	t.Fatalf("street %s not in the catalog (%d streets)", registerID, len(cat.Streets))
	return 0
}

func ids(as []adreswijzer.Address) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = a.ID
	}
	return out
}

func byID(rows []adreswijzer.Address) map[string]adreswijzer.Address {
	m := make(map[string]adreswijzer.Address, len(rows))
	for _, a := range rows {
		m[a.ID] = a
	}
	return m
}

// testAddressFields fails when Address gains a field: a store that does not learn to keep it
// would hand it back empty, and the round-trip checks below only cover the fields they set.
func testAddressFields(t *testing.T) {
	want := []string{"Country", "ID", "StreetID", "Street", "StreetShort", "HouseNumber", "HouseNumberSuffix",
		"Addition", "Box", "Postcode", "Locality", "Municipality", "SubMunicipality", "Status"}
	typ := reflect.TypeFor[adreswijzer.Address]()
	var got []string
	for i := range typ.NumField() {
		got = append(got, typ.Field(i).Name)
	}
	if !slices.Equal(got, want) {
		t.Errorf("Address fields are %v; the stores keep %v: teach both stores (and these rows) the change", got, want)
	}
}

func testNoDataset(t *testing.T, open Opener) {
	s, _ := open(t)
	ctx := context.Background()
	for _, c := range adreswijzer.Countries {
		if _, err := s.Active(ctx, c); !errors.Is(err, adreswijzer.ErrNoDataset) {
			t.Errorf("Active(%s) on an empty store: err = %v, want ErrNoDataset", c, err)
		}
	}
	if _, err := s.Active(ctx, "DE"); err == nil || errors.Is(err, adreswijzer.ErrNoDataset) {
		t.Errorf("Active(DE): err = %v, want an unsupported-country error", err)
	}
	if err := s.Ping(ctx); err != nil {
		t.Errorf("Ping: %v", err)
	}
}

type atCase struct {
	postcode string
	number   int
	want     []string // register ids in the promised order
}

type streetCase struct {
	streetID string
	number   int
	want     []string
}

type placeCase struct {
	postcode string
	want     []string // "street register id @ first locality name", in catalog order
}

// checkDataset runs the lookups of a loaded dataset against the rows it was loaded from.
func checkDataset(t *testing.T, d adreswijzer.Dataset, rows []adreswijzer.Address, at []atCase, st []streetCase, places []placeCase, absent []string) {
	t.Helper()
	ctx := context.Background()
	want := byID(rows)
	cat := d.Catalog()

	for _, tc := range at {
		got, err := d.AddressesAt(ctx, tc.postcode, tc.number)
		if err != nil {
			t.Errorf("AddressesAt(%s, %d): %v", tc.postcode, tc.number, err)
			continue
		}
		if !slices.Equal(ids(got), tc.want) {
			t.Errorf("AddressesAt(%s, %d) = %v, want %v", tc.postcode, tc.number, ids(got), tc.want)
		}
		for _, a := range got {
			if !reflect.DeepEqual(a, want[a.ID]) {
				t.Errorf("AddressesAt(%s, %d) returned\n%+v\nloaded\n%+v", tc.postcode, tc.number, a, want[a.ID])
			}
		}
		// The answer is the caller's: changing it changes nothing the store answers next.
		for i := range got {
			got[i] = adreswijzer.Address{ID: "changed by the caller"}
		}
		if again, err := d.AddressesAt(ctx, tc.postcode, tc.number); err != nil || !slices.Equal(ids(again), tc.want) {
			t.Errorf("AddressesAt(%s, %d) after the caller changed the last answer = %v, %v; want %v", tc.postcode, tc.number, ids(again), err, tc.want)
		}
	}

	// Every row is found at its postcode and number, and nothing else is there.
	type key struct {
		postcode string
		number   int
	}
	groups := make(map[key][]string)
	for _, a := range rows {
		if a.Postcode != "" {
			k := key{a.Postcode, a.HouseNumber}
			groups[k] = append(groups[k], a.ID)
		}
	}
	for k, wantIDs := range groups {
		pc, n := k.postcode, k.number
		got, err := d.AddressesAt(ctx, pc, n)
		if err != nil {
			t.Errorf("AddressesAt(%s, %d): %v", pc, n, err)
			continue
		}
		slices.Sort(wantIDs)
		gotIDs := ids(got)
		slices.Sort(gotIDs)
		if !slices.Equal(gotIDs, wantIDs) {
			t.Errorf("AddressesAt(%s, %d) = %v, want %v", pc, n, gotIDs, wantIDs)
		}
	}

	for _, tc := range st {
		s := StreetIndex(t, cat, tc.streetID)
		got, err := d.AddressesOnStreet(ctx, s, tc.number)
		if err != nil {
			t.Errorf("AddressesOnStreet(%s, %d): %v", tc.streetID, tc.number, err)
			continue
		}
		if !slices.Equal(ids(got), tc.want) {
			t.Errorf("AddressesOnStreet(%s, %d) = %v, want %v", tc.streetID, tc.number, ids(got), tc.want)
		}
		for _, a := range got {
			if !reflect.DeepEqual(a, want[a.ID]) {
				t.Errorf("AddressesOnStreet(%s, %d) returned\n%+v\nloaded\n%+v", tc.streetID, tc.number, a, want[a.ID])
			}
		}
	}
	if got, err := d.AddressesOnStreet(ctx, uint32(len(cat.Streets)), 1); err != nil || len(got) != 0 {
		t.Errorf("AddressesOnStreet(beyond the catalog) = %v, %v; want nothing, no error", ids(got), err)
	}

	// The catalog: every street carries the names of its rows.
	for _, a := range rows {
		s := cat.Streets[StreetIndex(t, cat, a.StreetID)]
		if s.Names != a.Street || s.Short != a.StreetShort || s.Municipality != a.Municipality {
			t.Errorf("catalog street %s = %+v, want names %+v short %q municipality %+v", a.StreetID, s, a.Street, a.StreetShort, a.Municipality)
		}
	}
	for _, tc := range places {
		var got []string
		for _, p := range cat.PlacesIn(tc.postcode) {
			if p.Postcode != tc.postcode {
				t.Errorf("PlacesIn(%s) returned a place in %s", tc.postcode, p.Postcode)
			}
			loc := cat.Localities[p.Locality]
			got = append(got, cat.Streets[p.Street].RegisterID+" @ "+loc.Names.PickPrimary(false))
		}
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("PlacesIn(%s) = %q, want %q", tc.postcode, got, tc.want)
		}
		if !cat.HasPostcode(tc.postcode) {
			t.Errorf("HasPostcode(%s) = false", tc.postcode)
		}
	}
	for _, pc := range absent {
		if cat.HasPostcode(pc) {
			t.Errorf("HasPostcode(%s) = true for a postcode of no loaded row", pc)
		}
		if got, err := d.AddressesAt(ctx, pc, 1); err != nil || len(got) != 0 {
			t.Errorf("AddressesAt(%s, 1) = %v, %v; want nothing", pc, ids(got), err)
		}
	}
}

func checkInfo(t *testing.T, got adreswijzer.DatasetInfo, c adreswijzer.Country, v adreswijzer.DatasetVersion, n int, before, after time.Time) {
	t.Helper()
	if got.Country != c || got.Version != v || got.Addresses != n {
		t.Errorf("Info = %+v, want country %s version %s addresses %d", got, c, v, n)
	}
	// The activation time may come from a database clock with microsecond resolution.
	if got.ActivatedAt.Before(before.Add(-time.Second)) || got.ActivatedAt.After(after.Add(time.Second)) {
		t.Errorf("Info.ActivatedAt = %v, want between %v and %v", got.ActivatedAt, before, after)
	}
}

func testWeesp(t *testing.T, open Opener) {
	s, l := open(t)
	rows := WeespAddresses()
	before := time.Now()
	info := Load(t, l, adreswijzer.NL, weespVersion, rows)
	after := time.Now()
	checkInfo(t, info, adreswijzer.NL, weespVersion, 40, before, after)
	d := Active(t, s, adreswijzer.NL)
	checkInfo(t, d.Info(), adreswijzer.NL, weespVersion, 40, before, after)
	if _, err := s.Active(context.Background(), adreswijzer.BE); !errors.Is(err, adreswijzer.ErrNoDataset) {
		t.Errorf("Active(BE) after loading NL: err = %v, want ErrNoDataset", err)
	}

	cat := d.Catalog()
	if len(cat.Streets) != 12 || len(cat.Localities) != 1 || len(cat.Places) != 19 {
		t.Errorf("catalog has %d streets, %d localities, %d places; want 12, 1, 19", len(cat.Streets), len(cat.Localities), len(cat.Places))
	}
	checkDataset(t, d, rows,
		[]atCase{
			// Letters A..H with toevoegingen; "10" sorts before "2" as the register's strings do.
			{"1382KB", 51, []string{"0457200000199360", "0457200000199361", "0457200000199362", "0457200000199370", "0457200000199376", "0457200000199385", "0457200000199387", "0457200000199397"}},
			{"1381HJ", 22, []string{"0457200000415310", "0457200000415338", "0457200000415317"}},
			// 30a without a postcode (0457200000522676) is not at 1381HJ.
			{"1381HJ", 30, []string{"0457200000208659", "0457200000208660"}},
			{"1383HT", 5, []string{"0457200000200043", "0457200000200044", "0457200000521401"}},
			{"1381CX", 1, []string{"0457200000200497", "0457200000200498"}},
			{"1382KN", 120, []string{"0457200000199034"}},
			{"1382SH", 1, []string{"0457200000201450"}},
			{"1382SH", 2, nil}, // even numbers of the street are in 1382SK
			{"1382KB", 52, nil},
			{"1382KB", 0, nil},
			{"1382KB", -51, nil},
		},
		[]streetCase{
			{"0457300000000043", 5, []string{"0457200000521400", "0457200000200043", "0457200000200044", "0457200000521401"}},
			{"0457300000000068", 30, []string{"0457200000522676", "0457200000208659", "0457200000208660"}},
			{"0457300000000158", 49, []string{"0457200000201498"}},
			{"0457300000000158", 50, []string{"0457200000201499"}},
			{"0457300000000158", 3, nil},
			{"0457300000000023", 51, []string{"0457200000199360", "0457200000199361", "0457200000199362", "0457200000199370", "0457200000199376", "0457200000199385", "0457200000199387", "0457200000199397"}},
		},
		[]placeCase{
			{"1382SH", []string{"0457300000000158 @ Weesp"}},
			{"1382SL", []string{"0457300000000158 @ Weesp"}},
			{"1383HT", []string{"0457300000000043 @ Weesp"}},
			{"1381BK", []string{"0457300000000001 @ Weesp"}},
			{"", []string{"0457300000000043 @ Weesp", "0457300000000068 @ Weesp"}},
		},
		[]string{"1382SM", "1381AA", "9999ZZ", "1130", "1382 KB", "1382kb"},
	)
	short := cat.Streets[StreetIndex(t, cat, "0457300000000158")]
	if short.Names.NL != "Henriëtte Roland Holsthof" || short.Short != "H Roland Holsthof" {
		t.Errorf("street 0457300000000158 = %+v", short)
	}
}

func testBeST(t *testing.T, open Opener) {
	s, l := open(t)
	rows := BeSTAddresses()
	before := time.Now()
	Load(t, l, adreswijzer.BE, bestVersion, rows)
	after := time.Now()
	d := Active(t, s, adreswijzer.BE)
	checkInfo(t, d.Info(), adreswijzer.BE, bestVersion, 30, before, after)
	if _, err := s.Active(context.Background(), adreswijzer.NL); !errors.Is(err, adreswijzer.ErrNoDataset) {
		t.Errorf("Active(NL) after loading BE: err = %v, want ErrNoDataset", err)
	}
	cat := d.Catalog()
	if len(cat.Streets) != 14 || len(cat.Localities) != 4 || len(cat.Places) != 14 {
		t.Errorf("catalog has %d streets, %d localities, %d places; want 14, 4, 14", len(cat.Streets), len(cat.Localities), len(cat.Places))
	}
	checkDataset(t, d, rows,
		[]atCase{
			// One Brussels postcode, five streets: the number alone is ambiguous.
			{"1130", 45, []string{"BA/110783", "BA/213231", "BA/213251", "BA/219753", "BA/239213", "BA/698194", "BA/698290", "BA/698294"}},
			{"1130", 89, []string{"BA/110990"}},
			{"1502", 580, []string{"VA/269876", "VA/4560165", "VA/4733994"}},
			{"1502", 595, []string{"VA/2621537", "VA/4787884", "VA/4215376"}},
			{"1502", 574, []string{"VA/3662622"}},
			{"4960", 8, []string{"WA/1409815", "WA/1799734", "WA/1799733", "WA/1799729"}},
			{"4960", 2, []string{"WA/1385755"}},
			{"1130", 46, nil},
		},
		[]streetCase{
			{"BS/4395", 134, []string{"BA/698658"}},
			{"BS/4395", 45, []string{"BA/239213"}},
			{"BS/1211", 45, []string{"BA/213231", "BA/698194", "BA/698290", "BA/698294"}},
			{"WS/7736801", 13, []string{"WA/1798620"}},
		},
		[]placeCase{
			{"1130", []string{"BS/1211 @ Brussel (Haren)", "BS/2855 @ Brussel (Haren)", "BS/4003 @ Brussel (Haren)", "BS/4160 @ Brussel (Haren)", "BS/4395 @ Brussel (Haren)", "BS/49 @ Brussel (Haren)"}},
			{"4960", []string{"WS/7736801 @ Bevercé", "WS/7736836 @ Malmedy", "WS/7736922 @ Malmedy", "WS/7736948 @ Malmedy"}},
			{"1502", []string{"VS/26014 @ Lembeek", "VS/26028 @ Lembeek", "VS/26042 @ Lembeek", "VS/26178 @ Lembeek"}},
		},
		[]string{"1000", "1131", "4961", "1382KB", ""},
	)
	haren := cat.Streets[StreetIndex(t, cat, "BS/4395")]
	if haren.Names != (adreswijzer.Names{NL: "Ganzenweidestraat", FR: "Rue du Pré aux Oies"}) {
		t.Errorf("street BS/4395 names = %+v", haren.Names)
	}
	for _, p := range cat.PlacesIn("1130") {
		loc := cat.Localities[p.Locality]
		if loc.Names != (adreswijzer.Names{NL: "Brussel (Haren)", FR: "Bruxelles (Haren)"}) || loc.Municipality != (adreswijzer.Names{NL: "Brussel", FR: "Bruxelles"}) {
			t.Errorf("locality of 1130 = %+v", loc)
		}
	}
}

// weespWithout returns the Weesp rows outside one postcode, as a second register version.
func weespWithout(postcode string) []adreswijzer.Address {
	var out []adreswijzer.Address
	for _, a := range WeespAddresses() {
		if a.Postcode != postcode {
			out = append(out, a)
		}
	}
	return out
}

func testActivationReplaces(t *testing.T, open Opener) {
	s, l := open(t)
	ctx := context.Background()
	Load(t, l, adreswijzer.NL, weespVersion, WeespAddresses())
	Load(t, l, adreswijzer.BE, bestVersion, BeSTAddresses())
	old := Active(t, s, adreswijzer.NL)

	second := weespWithout("1382KB")
	Load(t, l, adreswijzer.NL, weespMutated, second)
	now := Active(t, s, adreswijzer.NL)
	if got := now.Info(); got.Version != weespMutated || got.Addresses != len(second) {
		t.Fatalf("after the second commit Active = %+v, want %s with %d addresses", got, weespMutated, len(second))
	}
	if got, err := now.AddressesAt(ctx, "1382KB", 51); err != nil || len(got) != 0 {
		t.Errorf("new dataset AddressesAt(1382KB, 51) = %v, %v; want nothing", ids(got), err)
	}
	if now.Catalog().HasPostcode("1382KB") || len(now.Catalog().Streets) != 11 {
		t.Errorf("new catalog still has 1382KB or has %d streets, want 11", len(now.Catalog().Streets))
	}
	// A reader that took the old dataset before the activation finishes on it.
	if got, err := old.AddressesAt(ctx, "1382KB", 51); err != nil || len(got) != 8 {
		t.Errorf("old dataset AddressesAt(1382KB, 51) = %v, %v; want its 8 addresses", ids(got), err)
	}
	if old.Info().Version != weespVersion || !old.Catalog().HasPostcode("1382KB") {
		t.Errorf("old dataset changed: %+v", old.Info())
	}
	// The other country is untouched.
	if got := Active(t, s, adreswijzer.BE).Info(); got.Version != bestVersion || got.Addresses != 30 {
		t.Errorf("BE after an NL activation = %+v", got)
	}
}

func testAbortKeepsActive(t *testing.T, open Opener) {
	s, l := open(t)
	ctx := context.Background()
	Load(t, l, adreswijzer.NL, weespVersion, WeespAddresses())

	w, err := l.Begin(ctx, adreswijzer.NL)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range weespWithout("1382KB") {
		if err := w.Add(a); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Abort(ctx); err != nil {
		t.Fatalf("Abort: %v", err)
	}
	if err := w.Abort(ctx); err != nil {
		t.Errorf("second Abort: %v", err)
	}
	if _, err := w.Commit(ctx, weespMutated); err == nil {
		t.Errorf("Commit after Abort succeeded")
	}
	d := Active(t, s, adreswijzer.NL)
	if d.Info().Version != weespVersion || d.Info().Addresses != 40 {
		t.Fatalf("after Abort Active = %+v, want the first dataset", d.Info())
	}
	if got, err := d.AddressesAt(ctx, "1382KB", 51); err != nil || len(got) != 8 {
		t.Errorf("after Abort AddressesAt(1382KB, 51) = %v, %v", ids(got), err)
	}

	// A new import after an aborted one works.
	Load(t, l, adreswijzer.NL, weespMutated, weespWithout("1382KB"))
	if got := Active(t, s, adreswijzer.NL).Info(); got.Version != weespMutated {
		t.Errorf("after abort and a new import Active = %+v", got)
	}

	// A writer abandoned halfway (an importer that failed and returned) changes nothing.
	Load(t, l, adreswijzer.BE, bestVersion, BeSTAddresses())
	w, err = l.Begin(ctx, adreswijzer.BE)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Abort(context.Background()) })
	for _, a := range BeSTAddresses()[:10] {
		if err := w.Add(a); err != nil {
			t.Fatal(err)
		}
	}
	if got := Active(t, s, adreswijzer.BE).Info(); got.Version != bestVersion || got.Addresses != 30 {
		t.Errorf("with an abandoned writer Active(BE) = %+v", got)
	}
	if got, err := Active(t, s, adreswijzer.BE).AddressesAt(ctx, "4960", 8); err != nil || len(got) != 4 {
		t.Errorf("with an abandoned writer AddressesAt(4960, 8) = %v, %v", ids(got), err)
	}
}

func testRefusedWrites(t *testing.T, open Opener) {
	s, l := open(t)
	ctx := context.Background()
	Load(t, l, adreswijzer.NL, weespVersion, WeespAddresses())

	if _, err := l.Begin(ctx, "DE"); err == nil {
		t.Errorf("Begin(DE) succeeded")
	}

	cases := []struct {
		name    string
		rows    []adreswijzer.Address
		version adreswijzer.DatasetVersion
	}{
		{"empty dataset", nil, weespMutated},
		{"version without date", WeespAddresses(), "bag"},
		{"version with a bad date", WeespAddresses(), "bag:2021-13-45"},
		{"empty version", WeespAddresses(), ""},
	}
	for _, tc := range cases {
		w, err := l.Begin(ctx, adreswijzer.NL)
		if err != nil {
			t.Fatalf("%s: Begin: %v", tc.name, err)
		}
		for _, a := range tc.rows {
			if err := w.Add(a); err != nil {
				t.Fatalf("%s: Add: %v", tc.name, err)
			}
		}
		if _, err := w.Commit(ctx, tc.version); err == nil {
			t.Errorf("%s: Commit succeeded", tc.name)
		}
		if err := w.Abort(ctx); err != nil {
			t.Errorf("%s: Abort after a refused Commit: %v", tc.name, err)
		}
		if got := Active(t, s, adreswijzer.NL).Info(); got.Version != weespVersion || got.Addresses != 40 {
			t.Errorf("%s: Active = %+v, want the first dataset", tc.name, got)
		}
	}

	w, err := l.Begin(ctx, adreswijzer.NL)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Add(BeSTAddresses()[0]); err == nil {
		t.Errorf("adding a Belgian address to a Dutch dataset succeeded")
	}
	for _, a := range weespWithout("1382KB") {
		if err := w.Add(a); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Commit(ctx, weespMutated); err != nil {
		t.Fatalf("Commit: %v", err)
	}
	if _, err := w.Commit(ctx, weespMutated); err == nil {
		t.Errorf("second Commit succeeded")
	}
	if err := w.Add(WeespAddresses()[0]); err == nil {
		t.Errorf("Add after Commit succeeded")
	}
	if err := w.Abort(ctx); err != nil {
		t.Errorf("Abort after Commit: %v", err)
	}
	if got := Active(t, s, adreswijzer.NL).Info(); got.Version != weespMutated || got.Addresses != 32 {
		t.Errorf("Abort after Commit changed the active dataset: %+v", got)
	}
}

// testReadersDuringActivation reads without pause while a new version is activated: every
// answer must come wholly from one version.
func testReadersDuringActivation(t *testing.T, open Opener) {
	s, l := open(t)
	ctx := context.Background()
	Load(t, l, adreswijzer.NL, weespVersion, WeespAddresses())

	stop := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				d, err := s.Active(ctx, adreswijzer.NL)
				if err != nil {
					errs <- err
					return
				}
				v := d.Info().Version
				got, err := d.AddressesAt(ctx, "1382KB", 51)
				if err != nil {
					errs <- fmt.Errorf("%s: %w", v, err)
					return
				}
				want := 8
				if v == weespMutated {
					want = 0
				}
				if len(got) != want || d.Catalog().HasPostcode("1382KB") != (want > 0) {
					errs <- fmt.Errorf("%s: %d addresses at 1382KB 51, want %d", v, len(got), want)
					return
				}
			}
		}()
	}
	time.Sleep(50 * time.Millisecond)
	Load(t, l, adreswijzer.NL, weespMutated, weespWithout("1382KB"))
	time.Sleep(50 * time.Millisecond)
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got := Active(t, s, adreswijzer.NL).Info().Version; got != weespMutated {
		t.Errorf("Active after the activation = %s", got)
	}
}

// Importer runs a register importer over a sample, passing each address to add, and returns
// the dataset version and the number of addresses the importer says it kept. The stores' tests
// adapt store/bag and store/best to it; this package does not import them, because their own
// tests import this package.
type Importer func(ctx context.Context, add func(adreswijzer.Address) error) (adreswijzer.DatasetVersion, int64, error)

// importInto runs imp into a new dataset of the country and commits it.
func importInto(t *testing.T, l adreswijzer.Loader, c adreswijzer.Country, imp Importer) (adreswijzer.DatasetInfo, int64) {
	t.Helper()
	ctx := context.Background()
	w, err := l.Begin(ctx, c)
	if err != nil {
		t.Fatalf("begin %s: %v", c, err)
	}
	var added int64
	v, kept, err := imp(ctx, func(a adreswijzer.Address) error {
		added++
		return w.Add(a)
	})
	if err != nil {
		w.Abort(ctx)
		t.Fatalf("import %s: %v", c, err)
	}
	if kept != added {
		t.Errorf("import %s: importer reports %d kept, add was called %d times", c, kept, added)
	}
	info, err := w.Commit(ctx, v)
	if err != nil {
		t.Fatalf("commit %s %s: %v", c, v, err)
	}
	return info, kept
}

// sameRegisterFields reports how an imported address differs from a hand-copied row in the
// fields both take straight from the register.
func sameRegisterFields(got, want adreswijzer.Address) bool {
	return got.ID == want.ID && got.StreetID == want.StreetID && got.Street == want.Street &&
		got.StreetShort == want.StreetShort && got.HouseNumber == want.HouseNumber &&
		got.HouseNumberSuffix == want.HouseNumberSuffix && got.Addition == want.Addition &&
		got.Box == want.Box && got.Postcode == want.Postcode && got.Status == want.Status &&
		got.Locality.PickPrimary(false) == want.Locality.PickPrimary(false)
}

// checkHandRows looks up every hand-copied row with a postcode in an imported dataset.
func checkHandRows(t *testing.T, d adreswijzer.Dataset, rows []adreswijzer.Address) {
	t.Helper()
	ctx := context.Background()
	for _, want := range rows {
		if want.Postcode == "" {
			continue
		}
		got, err := d.AddressesAt(ctx, want.Postcode, want.HouseNumber)
		if err != nil {
			t.Errorf("AddressesAt(%s, %d): %v", want.Postcode, want.HouseNumber, err)
			continue
		}
		found := false
		for _, a := range got {
			if a.ID == want.ID {
				found = true
				if !sameRegisterFields(a, want) {
					t.Errorf("imported %s =\n%+v\ncopied from the register:\n%+v", want.ID, a, want)
				}
			}
		}
		if !found {
			t.Errorf("imported dataset has no %s at %s %d (found %v)", want.ID, want.Postcode, want.HouseNumber, ids(got))
		}
	}
}

// RunImported imports the full Weesp BAG extract (nl) and the BeST sample (be) through the real
// importers into fresh stores and checks that the stores hold what the importers kept.
func RunImported(t *testing.T, open Opener, nl, be Importer) {
	t.Run("BAGWeesp", func(t *testing.T) {
		s, l := open(t)
		info, kept := importInto(t, l, adreswijzer.NL, nl)
		d := Active(t, s, adreswijzer.NL)
		if info.Addresses != int(kept) || d.Info().Addresses != int(kept) || kept < 11000 {
			t.Errorf("imported %d addresses, Commit says %d, Active says %d", kept, info.Addresses, d.Info().Addresses)
		}
		if d.Info().Version != info.Version || !strings.HasPrefix(string(info.Version), "bag:2021-10-15") {
			t.Errorf("version %s, active %s", info.Version, d.Info().Version)
		}
		ctx := context.Background()
		got, err := d.AddressesAt(ctx, "1382KB", 51)
		if err != nil {
			t.Fatal(err)
		}
		// 38 Nummeraanduidingen at Bloemendalerweg 51, letters A to H, all in use.
		if len(got) != 38 || got[0].ID != "0457200000199360" || got[0].HouseNumberSuffix != "A" || got[0].Addition != "1" {
			t.Errorf("AddressesAt(1382KB, 51) = %d addresses starting %v", len(got), ids(got[:min(len(got), 3)]))
		}
		for _, a := range got {
			if a.Street.NL != "Bloemendalerweg" || a.Locality.NL != "Weesp" || a.Postcode != "1382KB" {
				t.Errorf("at 1382KB 51: %+v", a)
			}
		}
		cat := d.Catalog()
		st := StreetIndex(t, cat, "0457300000000023")
		if on, err := d.AddressesOnStreet(ctx, st, 51); err != nil || len(on) != 38 {
			t.Errorf("AddressesOnStreet(Bloemendalerweg, 51) = %d addresses, %v", len(on), err)
		}
		var streets []string
		for _, p := range cat.PlacesIn("1382SH") {
			streets = append(streets, cat.Streets[p.Street].Names.NL+" / "+cat.Streets[p.Street].Short)
		}
		if !slices.Equal(streets, []string{"Henriëtte Roland Holsthof / H Roland Holsthof"}) {
			t.Errorf("streets in 1382SH = %q", streets)
		}
		checkHandRows(t, d, WeespAddresses())
	})
	t.Run("BeSTSample", func(t *testing.T) {
		s, l := open(t)
		info, kept := importInto(t, l, adreswijzer.BE, be)
		d := Active(t, s, adreswijzer.BE)
		// 11,879 address rows, 41 of them retired.
		if info.Addresses != int(kept) || d.Info().Addresses != int(kept) || kept != 11838 {
			t.Errorf("imported %d addresses, Commit says %d, Active says %d; the sample has 11838 not retired", kept, info.Addresses, d.Info().Addresses)
		}
		ctx := context.Background()
		got, err := d.AddressesAt(ctx, "1130", 45)
		if err != nil {
			t.Fatal(err)
		}
		streets := map[string]bool{}
		for _, a := range got {
			streets[a.StreetID] = true
		}
		if len(got) != 19 || len(streets) != 11 {
			t.Errorf("AddressesAt(1130, 45) = %d addresses on %d streets, want 19 on 11", len(got), len(streets))
		}
		cat := d.Catalog()
		places := cat.PlacesIn("1130")
		if len(places) != 54 {
			t.Errorf("PlacesIn(1130) = %d places, want Haren's 54 streets", len(places))
		}
		for _, p := range places {
			s, loc := cat.Streets[p.Street], cat.Localities[p.Locality]
			if s.Names.NL == "" || s.Names.FR == "" {
				t.Errorf("Haren street %s has names %+v, want Dutch and French", s.RegisterID, s.Names)
			}
			if loc.Names.NL != "Brussel (Haren)" || loc.Names.FR != "Bruxelles (Haren)" {
				t.Errorf("Haren locality = %+v", loc.Names)
			}
		}
		checkHandRows(t, d, BeSTAddresses())
	})
}
