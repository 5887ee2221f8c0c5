package bag

import (
	"context"
	"errors"
	"io"
	"maps"
	"os"
	"slices"
	"testing"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/store/storetest"
)

func openTest(t testing.TB, name string) *delivery {
	t.Helper()
	d, err := openDelivery(context.Background(), storetest.File(t, "nl", name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.close() })
	return d
}

func load(t testing.TB, jobs []job, day date) *tables {
	t.Helper()
	tb, _, err := readJobs(context.Background(), jobs, day, nil)
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

var textOf = func() map[status]string {
	m := map[status]string{}
	for k, v := range statusByText {
		m[v] = k
	}
	return m
}()

// outcome is what the emitter makes of each current Nummeraanduiding: its object class and
// the reason it gives no address ("" when it gives one).
type outcome struct {
	class  objClass
	reason string
}

func outcomes(tb *tables, day date) (map[uint64]outcome, map[string]int64) {
	skipped := map[string]int64{}
	e := &emitter{t: day, tb: tb, municipality: func(uint16) string { return "" }, skip: func(r string) { skipped[r]++ },
		postcodes: map[uint32]string{}, additions: map[uint32]string{0: ""}}
	e.selectAll()
	e.streetIDs = make([]string, len(tb.opr))
	cls := e.classes()
	out := map[uint64]outcome{}
	for i := range tb.num {
		_, reason := e.address(&tb.num[i], cls[i])
		out[tb.num[i].id] = outcome{cls[i], reason}
		if reason != "" {
			skipped[reason]++
		}
	}
	return out, skipped
}

func statusCounts(tb *tables) map[string]int {
	m := map[string]int{}
	for _, r := range tb.num {
		m["NUM "+textOf[r.status]]++
	}
	for _, r := range tb.ao {
		m["AO "+textOf[r.status]]++
	}
	return m
}

// The national mutation file touches no Weesp object, so the mechanism is tested on its own
// records: the stand is rebuilt from the "was" side of every mutation (the state each
// object had before), then the "wordt" side is applied on top, exactly as Import does. The
// expected counts were computed independently with a Python ElementTree reader over the
// same file (current voorkomen on 2021-11-14, later record wins per identificatie and
// voorkomenidentificatie).
func TestMutationsApplyToTheirObjects(t *testing.T) {
	d := openTest(t, "BAGNLDM-13112021-14112021.zip")
	if d.from != 20211113 || d.to != 20211114 || !d.mutation {
		t.Fatalf("period %s to %s, mutation %v", d.from, d.to, d.mutation)
	}
	var was []job
	for _, j := range d.jobs {
		j.stand, j.was = true, true
		was = append(was, j)
	}
	before := load(t, was, d.to)
	after := load(t, append(slices.Clone(was), d.jobs...), d.to)
	beforeOut, _ := outcomes(before, d.to)
	afterOut, _ := outcomes(after, d.to)

	for _, tc := range []struct {
		tb   *tables
		want map[string]int
	}{
		{before, map[string]int{
			"AO Verblijfsobject in gebruik": 4895, "AO Verblijfsobject in gebruik (niet ingemeten)": 400,
			"AO Verblijfsobject gevormd": 127, "AO Verbouwing verblijfsobject": 15,
			"AO Niet gerealiseerd verblijfsobject": 12, "AO Verblijfsobject ingetrokken": 8,
			"NUM Naamgeving uitgegeven": 1,
		}},
		{after, map[string]int{
			"AO Verblijfsobject in gebruik": 4905, "AO Verblijfsobject in gebruik (niet ingemeten)": 398,
			"AO Verblijfsobject gevormd": 124, "AO Verbouwing verblijfsobject": 11,
			"AO Niet gerealiseerd verblijfsobject": 12, "AO Verblijfsobject ingetrokken": 9,
			"NUM Naamgeving uitgegeven": 4, "NUM Naamgeving ingetrokken": 1,
		}},
	} {
		if got := statusCounts(tc.tb); !maps.Equal(got, tc.want) {
			t.Errorf("current statuses\n got %v\nwant %v", got, tc.want)
		}
	}

	ao := func(tb *tables, id uint64) (aoRec, bool) {
		i, ok := find(tb.ao, id)
		if !ok {
			return aoRec{}, false
		}
		return tb.ao[i], true
	}
	for _, tc := range []struct {
		id                uint64
		why               string
		beforeVK, afterVK uint16 // 0: no current voorkomen
		beforeSt, afterSt status
	}{
		{91010000030933, "in gebruik, ended 2021-11-12, withdrawn as vk 2", 1, 2, stVBOInGebruik, stVBOIngetrokken},
		{1900010010088991, "vk 1 ended the day it began, vk 2 back to gevormd", 1, 2, stVBOInGebruikNietIngemeten, stVBOGevormd},
		{72010000320762, "new object", 0, 1, 0, stVBOGevormd},
	} {
		b, okB := ao(before, tc.id)
		a, okA := ao(after, tc.id)
		if okB != (tc.beforeVK != 0) || b.vk != tc.beforeVK || b.status != tc.beforeSt ||
			!okA || a.vk != tc.afterVK || a.status != tc.afterSt {
			t.Errorf("%016d (%s): before %v vk %d %q, after %v vk %d %q", tc.id, tc.why,
				okB, b.vk, textOf[b.status], okA, a.vk, textOf[a.status])
		}
	}

	// Nummeraanduiding 0091200000050744 is withdrawn together with its VBO; its street lies
	// outside the file, so before the mutation it fails only for that reason.
	const num = 91200000050744
	if got, want := beforeOut[num], (outcome{objInUse, reasonStreetMissing}); got != want {
		t.Errorf("before: %+v, want %+v", got, want)
	}
	if got, want := afterOut[num], (outcome{objGone, reasonWithdrawn}); got != want {
		t.Errorf("after: %+v, want %+v", got, want)
	}
	// New addresses whose objects the same file brings: in use (niet ingemeten) turned
	// gevormd, and gevormd from the start.
	for id, c := range map[uint64]objClass{1900200010089007: objPlanned, 1900200010089008: objPlanned, 72200000320755: objPlanned, 72200000320756: objPlanned} {
		if got := afterOut[id]; got != (outcome{c, reasonStreetMissing}) {
			t.Errorf("%016d: %+v, want class %d and street missing", id, got, c)
		}
	}
}

// Proof behind TestImportWeespWithMutations: no record of the mutation file, on either
// side, is or refers to an object of the Weesp stand.
func TestMutationsTouchNoWeespObject(t *testing.T) {
	w := openTest(t, "BAGGEM0457L-15102021.zip")
	var all []job // stand=false: keep every voorkomen, history included
	for _, j := range w.jobs {
		j.stand = false
		all = append(all, j)
	}
	tb := load(t, all, w.standDay)
	ids := map[uint64]bool{}
	for _, r := range tb.num {
		ids[r.id] = true
	}
	for _, r := range tb.ao {
		ids[r.id] = true
	}
	for _, r := range tb.opr {
		ids[r.id] = true
	}
	wpl := map[uint16]bool{}
	for _, r := range tb.wpl {
		wpl[uint16(r.id)] = true
	}
	// Distinct identificaties: NUM 12,694, VBO 12,509, LIG 167, STA 13, OPR 321.
	if len(ids) != 12694+12509+167+13+321 || len(wpl) != 2 {
		t.Fatalf("%d Weesp ids and %d woonplaatsen; want every NUM, VBO, LIG, STA and OPR id", len(ids), len(wpl))
	}

	m := openTest(t, "BAGNLDM-13112021-14112021.zip")
	read := 0
	for _, side := range []string{"was", "wordt"} {
		for _, j := range m.jobs {
			rc, err := j.file.Open()
			if err != nil {
				t.Fatal(err)
			}
			r := newReader(rc)
			r.skip = side
			var rec record
			for {
				err := r.next(&rec)
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				read++
				refs := append([]uint64{rec.id, rec.street, rec.main}, rec.neven...)
				for _, id := range refs {
					if ids[id] {
						t.Errorf("%s record %016d refers to Weesp object %016d", rec.kind, rec.id, id)
					}
				}
				if rec.kind == kindNUM && wpl[rec.wpl] {
					t.Errorf("%s record %016d lies in a Weesp woonplaats", rec.kind, rec.id)
				}
			}
			rc.Close()
		}
	}
	// was: 1 NUM + 5,457 VBO; wordt: 6 NUM + 10,918 VBO.
	if read != 5458+10924 {
		t.Errorf("read %d mutation records, want 16382", read)
	}
}

// Evaluated on an earlier day, the same stand shows the state of that day, including four
// addresses on Muiden streets that the Weesp extract does not hold. Figures from the
// independent Python reader run with the same day.
func TestStandOnEarlierDay(t *testing.T) {
	w := openTest(t, "BAGGEM0457L-15102021.zip")
	const day = date(20120601)
	_, skipped := outcomes(load(t, w.jobs, day), day)
	for reason, want := range map[string]int64{reasonStreetMissing: 4, reasonNoPostcode: 122, reasonWithdrawn: 97} {
		if skipped[reason] != want {
			t.Errorf("%s: %d, want %d (all: %v)", reason, skipped[reason], want, skipped)
		}
	}
}

// A Nummeraanduiding's own ligtIn beats its street's woonplaats. Weesp's four ligtIn
// voorkomens are all historic and point at streets of old Muiden, so the rule is checked on
// those real records joined with real streets of both Weesp woonplaatsen.
func TestLigtInOverridesStreetWoonplaats(t *testing.T) {
	w := openTest(t, "BAGGEM0457L-15102021.zip")
	var all []job
	for _, j := range w.jobs {
		j.stand = false
		all = append(all, j)
	}
	tb := load(t, all, w.standDay)
	numVK := func(id uint64, vk uint16) *numRec {
		for i := range tb.num {
			if tb.num[i].id == id && tb.num[i].vk == vk {
				return &tb.num[i]
			}
		}
		t.Fatalf("NUM %016d vk %d not in the stand", id, vk)
		return nil
	}
	oprVK := func(id uint64, vk uint16) *oprRec {
		for i := range tb.opr {
			if tb.opr[i].id == id && tb.opr[i].vk == vk {
				return &tb.opr[i]
			}
		}
		t.Fatalf("OPR %016d vk %d not in the stand", id, vk)
		return nil
	}
	holsthof1012 := oprVK(457300000000158, 1) // Henriëtte Roland Holsthof, before 2016 in woonplaats 1012
	weesperweg := oprVK(457300000000265, 1)   // Weesperweg, woonplaats 3631
	for _, tc := range []struct {
		num    *numRec
		street *oprRec
		want   uint16
	}{
		{numVK(424200000018001, 2), holsthof1012, 3631}, // ligtIn 3631
		{numVK(424200000046230, 1), weesperweg, 1012},   // ligtIn 1012
		{numVK(424200000018001, 4), holsthof1012, 1012}, // no ligtIn: the street's
		{numVK(424200000018001, 4), weesperweg, 3631},
	} {
		if got := woonplaatsOf(tc.num, tc.street); got != tc.want {
			t.Errorf("NUM %016d vk %d on %q: woonplaats %d, want %d", tc.num.id, tc.num.vk, tc.street.name, got, tc.want)
		}
	}
}

// Nested zips above spillLimit go through temporary files, which must be gone afterwards,
// also when the import is cancelled.
func TestSpillToTemporaryFiles(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	old := spillLimit
	spillLimit = 0
	t.Cleanup(func() { spillLimit = old })
	f := storetest.File(t, "nl", "BAGGEM0457L-15102021.zip")

	seen := 0
	res, err := Import(context.Background(), []string{f}, func(adreswijzer.Address) error {
		if seen == 0 {
			entries, _ := os.ReadDir(dir)
			// The six compressed object zips; the GEM wrapper and GEM-WPL-RELATIE are
			// stored uncompressed in the outer zip and read in place.
			if len(entries) != 6 {
				t.Errorf("%d temporary files while importing, want 6", len(entries))
			}
		}
		seen++
		return nil
	}, Options{})
	if err != nil || res.Kept != 11927 {
		t.Fatalf("kept %d, error %v", res.Kept, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("temporary files left: %v", entries)
	}

	ctx, cancel := context.WithCancel(context.Background())
	_, err = Import(ctx, []string{f}, func(adreswijzer.Address) error { cancel(); return nil }, Options{})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("temporary files left after cancel: %v", entries)
	}
}

func TestPacking(t *testing.T) {
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{"1382KB", true}, {"1000AA", true}, {"9999ZZ", true}, {"6981ED", true},
		{"0382KB", false}, {"1382kb", false}, {"1382 KB", false}, {"1382K", false}, {"13821B", false}, {"", false},
	} {
		v, ok := packPostcode([]byte(tc.in))
		if ok != tc.ok || ok && unpackPostcode(v) != tc.in {
			t.Errorf("postcode %q: packed %d ok %v, back %q", tc.in, v, ok, unpackPostcode(v))
		}
	}
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{"1", true}, {"ben", true}, {"bov", true}, {"HS05", true}, {"A", true},
		{"", false}, {"12345", false}, {"1-2", false}, {"a/b", false}, {"é", false},
	} {
		v, ok := packAddition([]byte(tc.in))
		if ok != tc.ok || ok && unpackAddition(v) != tc.in {
			t.Errorf("toevoeging %q: packed %d ok %v, back %q", tc.in, v, ok, unpackAddition(v))
		}
	}
	for _, tc := range []struct {
		in   string
		want date
	}{
		{"2021-10-15", 20211015}, {"1962-05-22", 19620522}, {"2016-01-01T00:00:00", 20160101},
		{"2021-13-01", 0}, {"2021-1-01", 0}, {"20211015", 0}, {"", 0},
	} {
		if got, _ := parseDate([]byte(tc.in)); got != tc.want {
			t.Errorf("date %q: %d, want %d", tc.in, got, tc.want)
		}
	}
	for id, want := range map[uint64]string{457200000199360: "0457200000199360", 1900200010089007: "1900200010089007", 91200000050744: "0091200000050744"} {
		if got := formatID(id); got != want {
			t.Errorf("formatID(%d) = %s, want %s", id, got, want)
		}
	}
}
