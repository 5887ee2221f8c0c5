//go:build unix

package gen

import (
	"context"
	"io"
	"syscall"
	"testing"
	"time"

	"github.com/klauspost/compress/flate"

	"github.com/adreswijzer/adreswijzer/store/storetest"
)

// The generator's cost is reported in CPU seconds as well as wall time: the machine is
// shared, and CPU time per unit of work does not change when other work takes the cores.

// BenchmarkWriteNL measures the generator on 200,000 Nummeraanduidingen: addresses and raw
// XML per second of wall time, CPU seconds per million addresses, and, as "deflate-share",
// the part of that CPU time that deflating the XML alone costs, measured in the same run on
// the generator's own output. Deflating is the floor; planning, walking, rendering and
// writing the zips cost the rest, and the target is a share of at least 0.6.
func BenchmarkWriteNL(b *testing.B) {
	data := storetest.DataDir(b)
	dir := b.TempDir()
	var addrs, raw int64
	var last NLStats
	cpu0 := cpuSeconds(b)
	for b.Loop() {
		st, err := WriteNL(context.Background(), dir, NLOptions{Addresses: 200_000, Seed: 1, DataDir: data})
		if err != nil {
			b.Fatal(err)
		}
		addrs += st.Nummeraanduidingen
		for _, f := range st.Files {
			raw += f.Uncompressed
		}
		last = st
	}
	cpu := cpuSeconds(b) - cpu0
	elapsed := b.Elapsed().Seconds()
	b.StopTimer()
	b.ReportMetric(float64(addrs)/elapsed, "addr/s")
	b.ReportMetric(float64(raw)/1e6/elapsed, "raw-MB/s")
	b.ReportMetric(cpu/float64(addrs)*1e6, "cpu-s/Maddr")
	b.ReportMetric(deflateCPUPerMB(b, last.Path)*float64(raw)/1e6/cpu, "deflate-share")
}

// deflateCPUPerMB is the CPU time the generator's deflater needs per MB of the first NUM
// file of an extract.
func deflateCPUPerMB(b *testing.B, path string) float64 {
	var xml []byte
	for _, f := range openZip(b, path).File {
		if f.Name == "9999NUM"+dayOf(DefaultDate).ddmmyyyy()+".zip" {
			xml = readAll(b, openInner(b, f).File[0])
		}
	}
	if len(xml) == 0 {
		b.Fatal("no NUM file")
	}
	fw, err := flate.NewWriter(io.Discard, compressionLevel)
	if err != nil {
		b.Fatal(err)
	}
	start, cpu0 := time.Now(), cpuSeconds(b)
	var n int
	for time.Since(start) < time.Second {
		fw.Reset(io.Discard)
		if _, err := fw.Write(xml); err != nil {
			b.Fatal(err)
		}
		if err := fw.Close(); err != nil {
			b.Fatal(err)
		}
		n += len(xml)
	}
	return (cpuSeconds(b) - cpu0) / (float64(n) / 1e6)
}

// cpuSeconds is the user and system CPU time of this process so far.
func cpuSeconds(b *testing.B) float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// BenchmarkWriteBE measures the generator on 500,000 BeST rows over the three regions.
func BenchmarkWriteBE(b *testing.B) {
	data := storetest.DataDir(b)
	dir := b.TempDir()
	var rows, size int64
	cpu0 := cpuSeconds(b)
	for b.Loop() {
		st, err := WriteBE(context.Background(), dir, BEOptions{Addresses: 500_000, Seed: 1, DataDir: data})
		if err != nil {
			b.Fatal(err)
		}
		for _, r := range st.Regions {
			rows += r.Rows
			size += r.Bytes
		}
	}
	cpu := cpuSeconds(b) - cpu0
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(size)/1e6/b.Elapsed().Seconds(), "MB/s")
	b.ReportMetric(cpu/float64(rows)*1e6, "cpu-s/Mrow")
}
