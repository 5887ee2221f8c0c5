package memory_test

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/store/memory"
	"github.com/adreswijzer/adreswijzer/store/storetest"
)

// The national target: at most 64 bytes per address, catalog and indexes included.
const budgetPerAddress = 64

const benchAddresses = 1_000_000

type benchKey struct {
	postcode string
	number   int
	street   string
}

var bench struct {
	once sync.Once
	ds   *memory.Dataset
	keys []benchKey // every 97th address: spread over the whole dataset
}

// benchDataset builds the synthetic million-address dataset once per benchmark binary.
func benchDataset(b *testing.B) (*memory.Dataset, []benchKey) {
	b.Helper()
	bench.once.Do(func() {
		s := memory.New(memory.Options{Logger: quiet})
		w, err := s.Begin(context.Background(), adreswijzer.NL)
		if err != nil {
			b.Fatal(err)
		}
		i := 0
		err = storetest.LoadSynth(b).Each(benchAddresses, 1, func(a adreswijzer.Address) error {
			if i%97 == 0 {
				bench.keys = append(bench.keys, benchKey{a.Postcode, a.HouseNumber, a.StreetID})
			}
			i++
			return w.Add(a)
		})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := w.Commit(context.Background(), "bag:2026-11-01"); err != nil {
			b.Fatal(err)
		}
		d, err := s.Active(context.Background(), adreswijzer.NL)
		if err != nil {
			b.Fatal(err)
		}
		bench.ds = d.(*memory.Dataset)
	})
	if bench.ds == nil {
		b.Fatal("benchmark dataset not built")
	}
	return bench.ds, bench.keys
}

func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkMemoryPerAddress imports a SYNTHETIC Dutch-like dataset of one million addresses
// (see storetest.Synth) and reports the live heap the store holds afterwards, per address: columns,
// string tables, catalog and indexes, everything. ns/op is the time to import and build.
func BenchmarkMemoryPerAddress(b *testing.B) {
	sy := storetest.LoadSynth(b)
	ctx := context.Background()
	var perAddr float64
	for b.Loop() {
		before := liveHeap()
		s := memory.New(memory.Options{Logger: quiet})
		w, err := s.Begin(ctx, adreswijzer.NL)
		if err != nil {
			b.Fatal(err)
		}
		if err := sy.Each(benchAddresses, 1, w.Add); err != nil {
			b.Fatal(err)
		}
		if _, err := w.Commit(ctx, "bag:2026-11-01"); err != nil {
			b.Fatal(err)
		}
		w = nil
		perAddr = float64(liveHeap()-before) / benchAddresses
		runtime.KeepAlive(s)
	}
	b.ReportMetric(perAddr, "B/addr")
	b.ReportMetric(perAddr/budgetPerAddress, "budget-ratio")
}

// BenchmarkAddressesAt looks up random existing postcode and number pairs. The baseline, a
// Go map from a packed (postcode, number) key to the address index of the same million
// addresses, is measured in the same run; x-map is the ratio to it.
func BenchmarkAddressesAt(b *testing.B) {
	d, keys := benchDataset(b)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(2, 2))
	order := make([]int, 1<<16)
	for i := range order {
		order[i] = r.IntN(len(keys))
	}
	base := mapBaseline(keys, order)
	var found int
	i := 0
	b.ResetTimer()
	for b.Loop() {
		k := keys[order[i&(len(order)-1)]]
		got, err := d.AddressesAt(ctx, k.postcode, k.number)
		if err != nil || len(got) == 0 {
			b.Fatalf("AddressesAt(%s, %d) = %d, %v", k.postcode, k.number, len(got), err)
		}
		found += len(got)
		i++
	}
	perOp := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	b.ReportMetric(float64(found)/float64(b.N), "addr/op")
	b.ReportMetric(base, "map-ns/op")
	b.ReportMetric(perOp/base, "x-map")
}

// mapBaseline times lookups of the same keys in a plain map, as the baselines note measured
// the in-process cache.
func mapBaseline(keys []benchKey, order []int) float64 {
	m := make(map[uint64]int32, benchAddresses)
	pack := func(k benchKey) uint64 {
		pc := k.postcode
		d := uint64(pc[0]-'0')*1000 + uint64(pc[1]-'0')*100 + uint64(pc[2]-'0')*10 + uint64(pc[3]-'0')
		l := uint64(pc[4]-'A')*26 + uint64(pc[5]-'A')
		return (d*676+l)<<20 | uint64(k.number)
	}
	// Fill it with as many entries as the dataset has addresses, so its size matches.
	for i := range benchAddresses {
		m[1<<63|uint64(i)] = int32(i)
	}
	for i, k := range keys {
		m[pack(k)] = int32(i)
	}
	const n = 2_000_000
	start := time.Now()
	sum := 0
	for i := range n {
		sum += int(m[pack(keys[order[i&(len(order)-1)]])])
	}
	el := time.Since(start)
	runtime.KeepAlive(sum)
	return float64(el.Nanoseconds()) / n
}

// BenchmarkAddressesOnStreet looks up random existing street and number pairs.
func BenchmarkAddressesOnStreet(b *testing.B) {
	d, keys := benchDataset(b)
	ctx := context.Background()
	index := make(map[string]uint32, len(d.Catalog().Streets))
	for i, s := range d.Catalog().Streets {
		index[s.RegisterID] = uint32(i)
	}
	streets := make([]uint32, len(keys))
	for i, k := range keys {
		streets[i] = index[k.street]
	}
	i := 0
	for b.Loop() {
		j := i % len(keys)
		got, err := d.AddressesOnStreet(ctx, streets[j], keys[j].number)
		if err != nil || len(got) == 0 {
			b.Fatalf("AddressesOnStreet(%d, %d) = %d, %v", streets[j], keys[j].number, len(got), err)
		}
		i += 7919
	}
}

// BenchmarkSnapshotLoad reads and checks the million-address snapshot: the time a serving
// process needs to take over a new import. It also reports the file size and the live heap of
// the loaded dataset per address.
func BenchmarkSnapshotLoad(b *testing.B) {
	d, _ := benchDataset(b)
	path := filepath.Join(b.TempDir(), "nl.snap")
	if err := memory.WriteSnapshot(path, d); err != nil {
		b.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	before := liveHeap()
	loaded, err := memory.ReadSnapshot(path)
	if err != nil {
		b.Fatal(err)
	}
	heap := float64(liveHeap()-before) / benchAddresses
	runtime.KeepAlive(loaded)
	loaded = nil
	b.SetBytes(fi.Size())
	for b.Loop() {
		got, err := memory.ReadSnapshot(path)
		if err != nil || got.Len() != benchAddresses {
			b.Fatalf("ReadSnapshot: %v", err)
		}
	}
	b.ReportMetric(float64(fi.Size())/benchAddresses, "file-B/addr")
	b.ReportMetric(heap, "B/addr")
}

// BenchmarkSnapshotWrite writes the million-address snapshot, fsync and rename included.
func BenchmarkSnapshotWrite(b *testing.B) {
	d, _ := benchDataset(b)
	path := filepath.Join(b.TempDir(), "nl.snap")
	for b.Loop() {
		if err := memory.WriteSnapshot(path, d); err != nil {
			b.Fatal(err)
		}
	}
}
