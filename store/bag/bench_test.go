package bag

import (
	"context"
	"runtime"
	"runtime/metrics"
	"slices"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/store/storetest"
)

// BenchmarkImportWeesp measures a whole import of the Weesp municipal extract: nested
// zips, 64 MB of XML, joins, 11,927 addresses. Target: 100k addresses/s.
func BenchmarkImportWeesp(b *testing.B) {
	f := storetest.File(b, "nl", "BAGGEM0457L-15102021.zip")
	var addrs int64
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	peak := watchHeap()
	for b.Loop() {
		res, err := Import(context.Background(), []string{f}, func(adreswijzer.Address) error { return nil }, Options{})
		if err != nil {
			b.Fatal(err)
		}
		addrs += res.Kept
	}
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(addrs)/b.Elapsed().Seconds(), "addr/s")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(addrs), "B/addr")
	b.ReportMetric(float64(peak())/1e6, "peak-heap-MB")
}

// BenchmarkEmitWeesp measures the join alone, from loaded tables to addresses handed to
// add, to show how much of an import is the XML decoding.
func BenchmarkEmitWeesp(b *testing.B) {
	d := openTest(b, "BAGGEM0457L-15102021.zip")
	loaded := load(b, d.jobs, d.standDay)
	var addrs int64
	for b.Loop() {
		tb := &tables{num: slices.Clone(loaded.num), ao: slices.Clone(loaded.ao), neven: slices.Clone(loaded.neven),
			opr: slices.Clone(loaded.opr), wpl: slices.Clone(loaded.wpl)}
		e := &emitter{t: d.standDay, tb: tb, municipality: func(uint16) string { return "" }, skip: func(string) {}}
		n, err := e.run(context.Background(), func(adreswijzer.Address) error { return nil })
		if err != nil {
			b.Fatal(err)
		}
		addrs += n
	}
	b.ReportMetric(float64(addrs)/b.Elapsed().Seconds(), "addr/s")
}

// BenchmarkTablesWeesp measures what the object tables of the Weesp stand hold in the
// heap, per record, and extrapolates that to the national register (about 10 million
// Nummeraanduidingen and 10 million Verblijfsobjecten, Ligplaatsen and Standplaatsen).
func BenchmarkTablesWeesp(b *testing.B) {
	d := openTest(b, "BAGGEM0457L-15102021.zip")
	var heap, records, num, ao float64
	for b.Loop() {
		runtime.GC()
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		tb := load(b, d.jobs, d.standDay)
		e := &emitter{t: d.standDay, tb: tb}
		e.selectAll()
		runtime.GC()
		runtime.ReadMemStats(&m1)
		heap = float64(m1.HeapAlloc) - float64(m0.HeapAlloc)
		num, ao = float64(len(tb.num)), float64(len(tb.ao))
		records = num + ao + float64(len(tb.opr)+len(tb.wpl))
		runtime.KeepAlive(tb)
	}
	perNum, perAO := float64(unsafe.Sizeof(numRec{})), float64(unsafe.Sizeof(aoRec{}))
	b.ReportMetric(heap/1e6, "tables-MB")
	b.ReportMetric(heap/records, "B/record")
	b.ReportMetric(num, "num-records")
	b.ReportMetric(ao, "ao-records")
	// Nationally the slices hold the same kinds of records; the measured bytes per record
	// include slice headroom from growth, so the extrapolation uses the measured ratio
	// over the bare struct sizes.
	overhead := heap / (num*perNum + ao*perAO)
	b.ReportMetric((10e6*perNum+10e6*perAO)*overhead/1e6, "national-MB")
}

// watchHeap samples the live heap every 10 ms until the returned function is called, which
// gives the peak seen.
func watchHeap() func() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var (
		mu   sync.Mutex
		peak uint64
	)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			mu.Lock()
			peak = max(peak, s[0].Value.Uint64())
			mu.Unlock()
			select {
			case <-t.C:
			case <-stop:
				return
			}
		}
	}()
	return func() uint64 {
		close(stop)
		<-done
		mu.Lock()
		defer mu.Unlock()
		return peak
	}
}
