package addresscache

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/store/best"
	"github.com/adreswijzer/adreswijzer/store/memory"
	"github.com/adreswijzer/adreswijzer/store/storetest"
)

// The tests put the cache in front of the memory store loaded with BOSA's real BeST sample
// (Brussels/Haren, Halle/Lembeek, Malmedy) and count what reaches the store underneath.

var beFiles = []string{"addresses_part.csv", "streets_part.csv", "municipalities.csv", "municipalityparts.csv", "postals.csv"}

// load imports the BeST sample into a new memory dataset with the given version.
func load(t *testing.T, s *memory.Store, version adreswijzer.DatasetVersion) []adreswijzer.Address {
	t.Helper()
	var files []string
	for _, f := range beFiles {
		files = append(files, storetest.File(t, "be", f))
	}
	ctx := context.Background()
	w, err := s.Begin(ctx, adreswijzer.BE)
	if err != nil {
		t.Fatal(err)
	}
	var all []adreswijzer.Address
	if _, err := best.Import(ctx, files, func(a adreswijzer.Address) error {
		all = append(all, a)
		return w.Add(a)
	}, best.Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Commit(ctx, version); err != nil {
		t.Fatal(err)
	}
	return all
}

// counting passes every call to the memory store and counts the address queries.
type counting struct {
	adreswijzer.Store
	calls atomic.Int64
	fail  error
}

func (c *counting) Active(ctx context.Context, country adreswijzer.Country) (adreswijzer.Dataset, error) {
	ds, err := c.Store.Active(ctx, country)
	if err != nil {
		return nil, err
	}
	return countingDataset{ds, c}, nil
}

type countingDataset struct {
	adreswijzer.Dataset
	c *counting
}

func (d countingDataset) AddressesAt(ctx context.Context, pc string, n int) ([]adreswijzer.Address, error) {
	d.c.calls.Add(1)
	if d.c.fail != nil {
		return nil, d.c.fail
	}
	return d.Dataset.AddressesAt(ctx, pc, n)
}

func (d countingDataset) AddressesOnStreet(ctx context.Context, st uint32, n int) ([]adreswijzer.Address, error) {
	d.c.calls.Add(1)
	if d.c.fail != nil {
		return nil, d.c.fail
	}
	return d.Dataset.AddressesOnStreet(ctx, st, n)
}

func TestCachedAnswersEqualTheStore(t *testing.T) {
	mem := memory.New(memory.Options{})
	rows := load(t, mem, "best:2021-10-20")
	inner := &counting{Store: mem}
	c := New(inner, Options{Entries: 1000})
	ctx := context.Background()
	plain, err := mem.Active(ctx, adreswijzer.BE)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := c.Active(ctx, adreswijzer.BE)
	if err != nil {
		t.Fatal(err)
	}
	if ds.Info() != plain.Info() || ds.Catalog() != plain.Catalog() {
		t.Fatal("Info and Catalog must be the inner dataset's")
	}
	streetOf := map[string]uint32{}
	for i, s := range ds.Catalog().Streets {
		streetOf[s.RegisterID] = uint32(i)
	}
	checked := 0
	for i, a := range rows {
		if i%41 != 0 {
			continue
		}
		want, err := plain.AddressesAt(ctx, a.Postcode, a.HouseNumber)
		if err != nil {
			t.Fatal(err)
		}
		for round := 0; round < 2; round++ {
			got, err := ds.AddressesAt(ctx, a.Postcode, a.HouseNumber)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s %d round %d: %+v, store says %+v", a.Postcode, a.HouseNumber, round, got, want)
			}
		}
		st := streetOf[a.StreetID]
		want, err = plain.AddressesOnStreet(ctx, st, a.HouseNumber)
		if err != nil {
			t.Fatal(err)
		}
		for round := 0; round < 2; round++ {
			got, err := ds.AddressesOnStreet(ctx, st, a.HouseNumber)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("street %d number %d round %d differs from the store", st, a.HouseNumber, round)
			}
		}
		checked++
	}
	if checked < 200 {
		t.Fatalf("only %d addresses checked", checked)
	}
	// Each query reached the store once; its repetition was a hit. Rows at the same number
	// share a query, so there are at most two calls per checked row.
	st := c.Stats()
	if calls := inner.calls.Load(); calls != st.Misses || st.Hits < st.Misses {
		t.Errorf("store calls %d, misses %d, hits %d", calls, st.Misses, st.Hits)
	}
}

func TestCachedNeverServesAnOldVersion(t *testing.T) {
	mem := memory.New(memory.Options{})
	load(t, mem, "best:2021-10-20")
	inner := &counting{Store: mem}
	c := New(inner, Options{})
	ctx := context.Background()
	ask := func() (adreswijzer.Dataset, []adreswijzer.Address) {
		ds, err := c.Active(ctx, adreswijzer.BE)
		if err != nil {
			t.Fatal(err)
		}
		as, err := ds.AddressesAt(ctx, "1502", 9) // number 9 on every street of Lembeek
		if err != nil {
			t.Fatal(err)
		}
		return ds, as
	}
	old, first := ask()
	if len(first) != 41 {
		t.Fatalf("%d addresses at 1502 9, the sample has 41", len(first))
	}
	ask()
	if n := inner.calls.Load(); n != 1 {
		t.Fatalf("%d store calls for one query asked twice", n)
	}
	load(t, mem, "best:2021-10-21")
	ds, second := ask()
	if n := inner.calls.Load(); n != 2 {
		t.Errorf("%d store calls: the new version must not be answered from the old one's entries", n)
	}
	if ds.Info().Version != "best:2021-10-21" || !reflect.DeepEqual(first, second) {
		t.Errorf("new version %s answered %+v", ds.Info().Version, second)
	}
	// A request that began on the old dataset still reads the old one's entries.
	if _, err := old.AddressesAt(ctx, "1502", 9); err != nil {
		t.Fatal(err)
	}
	if n := inner.calls.Load(); n != 2 {
		t.Errorf("%d store calls: the old dataset's entry should still answer its reader", n)
	}
}

func TestCachedReturnsCopies(t *testing.T) {
	mem := memory.New(memory.Options{})
	load(t, mem, "best:2021-10-20")
	c := New(mem, Options{})
	ctx := context.Background()
	ds, err := c.Active(ctx, adreswijzer.BE)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := ds.AddressesAt(ctx, "1502", 9)
	name := a[0].Street.NL
	a[0].Street.NL = "changed by a caller"
	b, _ := ds.AddressesAt(ctx, "1502", 9)
	if b[0].Street.NL != name {
		t.Errorf("a caller's change reached the cache: %q, was %q", b[0].Street.NL, name)
	}
}

func TestCachedDoesNotCacheErrors(t *testing.T) {
	mem := memory.New(memory.Options{})
	load(t, mem, "best:2021-10-20")
	inner := &counting{Store: mem, fail: adreswijzer.ErrUnavailable}
	c := New(inner, Options{})
	ctx := context.Background()
	ds, err := c.Active(ctx, adreswijzer.BE)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ds.AddressesAt(ctx, "1502", 9); !errors.Is(err, adreswijzer.ErrUnavailable) {
		t.Fatalf("error %v, want ErrUnavailable", err)
	}
	inner.fail = nil
	as, err := ds.AddressesAt(ctx, "1502", 9)
	if err != nil || len(as) != 41 {
		t.Errorf("after the store recovered: %d addresses, %v", len(as), err)
	}
	if _, err := c.Active(ctx, adreswijzer.NL); !errors.Is(err, adreswijzer.ErrNoDataset) {
		t.Errorf("a country without a dataset: %v, want ErrNoDataset", err)
	}
	if err := c.Ping(ctx); err != nil {
		t.Errorf("ping: %v", err)
	}
}

// TestCachedConcurrent runs many readers over one dataset (go test -race).
func TestCachedConcurrent(t *testing.T) {
	mem := memory.New(memory.Options{})
	rows := load(t, mem, "best:2021-10-20")
	c := New(mem, Options{Entries: 64})
	ctx := context.Background()
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := g; i < len(rows); i += 8 * 13 {
				ds, err := c.Active(ctx, adreswijzer.BE)
				if err != nil {
					t.Error(err)
					return
				}
				as, err := ds.AddressesAt(ctx, rows[i].Postcode, rows[i].HouseNumber)
				if err != nil || len(as) == 0 {
					t.Errorf("%s %d: %d addresses, %v", rows[i].Postcode, rows[i].HouseNumber, len(as), err)
					return
				}
			}
		}(g)
	}
	wg.Wait()
}
