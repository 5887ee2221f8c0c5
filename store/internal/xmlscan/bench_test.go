package xmlscan

import (
	"bytes"
	"encoding/xml"
	"io"
	"testing"
	"time"
)

// BenchmarkTokenizeWeesp tokenizes the real Weesp NUM and VBO files (unpacked from the
// nested zips before timing) with encoding/xml and with a Scanner, alternating within each
// iteration so that both see the same machine load, and reports both speeds and their
// ratio. skip-MB/s reads as the importers do, skipping geometries.
func BenchmarkTokenizeWeesp(b *testing.B) {
	for _, kind := range []string{"NUM", "VBO"} {
		b.Run(kind, func(b *testing.B) {
			files := weespFiles(b, `^0457`+kind+`15102021-[0-9]+\.xml$`)
			var size int64
			for _, f := range files {
				size += int64(len(f))
			}
			var tStd, tScan, tSkip time.Duration
			for b.Loop() {
				t0 := time.Now()
				for _, f := range files {
					d := xml.NewDecoder(bytes.NewReader(f))
					for {
						if _, err := d.Token(); err == io.EOF {
							break
						} else if err != nil {
							b.Fatal(err)
						}
					}
				}
				t1 := time.Now()
				for _, f := range files {
					s := New(bytes.NewReader(f))
					for {
						if _, err := s.Next(); err == io.EOF {
							break
						} else if err != nil {
							b.Fatal(err)
						}
					}
				}
				t2 := time.Now()
				for _, f := range files {
					s := New(bytes.NewReader(f))
					for {
						k, err := s.Next()
						if err == io.EOF {
							break
						} else if err != nil {
							b.Fatal(err)
						}
						if k == StartElement && string(s.Local()) == "geometrie" {
							if err := s.Skip(); err != nil {
								b.Fatal(err)
							}
						}
					}
				}
				t3 := time.Now()
				tStd, tScan, tSkip = tStd+t1.Sub(t0), tScan+t2.Sub(t1), tSkip+t3.Sub(t2)
			}
			mbps := func(d time.Duration) float64 { return float64(size) * float64(b.N) / d.Seconds() / 1e6 }
			b.ReportMetric(mbps(tStd), "encxml-MB/s")
			b.ReportMetric(mbps(tScan), "xmlscan-MB/s")
			b.ReportMetric(mbps(tSkip), "skip-MB/s")
			b.ReportMetric(tStd.Seconds()/tScan.Seconds(), "speedup")
		})
	}
}

// BenchmarkScanWeesp reads the Weesp NUM and VBO files with a Scanner alone, as the
// importers do (skipping geometries), for profiling.
func BenchmarkScanWeesp(b *testing.B) {
	files := weespFiles(b, `^0457(NUM|VBO)15102021-[0-9]+\.xml$`)
	var size int64
	for _, f := range files {
		size += int64(len(f))
	}
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		for _, f := range files {
			s := New(bytes.NewReader(f))
			for {
				k, err := s.Next()
				if err == io.EOF {
					break
				} else if err != nil {
					b.Fatal(err)
				}
				if k == StartElement && string(s.Local()) == "geometrie" {
					if err := s.Skip(); err != nil {
						b.Fatal(err)
					}
				}
			}
		}
	}
}
