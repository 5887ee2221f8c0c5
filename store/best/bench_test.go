package best

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adreswijzer/adreswijzer"
)

// BenchmarkImportSample imports the real load-layout sample (11,879 rows, 11,838 kept) and
// reports the throughput a national import (about 7 million addresses) scales from.
func BenchmarkImportSample(b *testing.B) {
	benchImport(b, sampleFiles(b))
}

// BenchmarkImportSampleOfficialCSV imports the same rows converted to the official CSV.
func BenchmarkImportSampleOfficialCSV(b *testing.B) {
	raw := loadRaw(b)
	recs := officialRecords(b, raw)
	header := strings.Split(officialHeader, ",")
	dir := b.TempDir()
	var files []string
	for region, name := range map[string]string{"B": "bru", "V": "vlg", "W": "wal"} {
		files = append(files, writeFile(b, filepath.Join(dir, "openaddress-be"+name+".csv"), officialCSV(b, header, recs[region])))
	}
	benchImport(b, files)
}

// BenchmarkImportSampleXML imports the same rows written as the XML full download.
func BenchmarkImportSampleXML(b *testing.B) {
	benchImport(b, writeAll(b, b.TempDir(), sampleXML(b, loadRaw(b), documentedStyle)))
}

func benchImport(b *testing.B, files []string) {
	b.Helper()
	var kept, bytes int64
	for _, f := range files {
		bytes += fileSize(b, f)
	}
	b.SetBytes(bytes)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		res, err := Import(context.Background(), files, func(adreswijzer.Address) error { return nil }, Options{Date: "2021-10-20"})
		if err != nil {
			b.Fatal(err)
		}
		kept += res.Kept
	}
	b.ReportMetric(float64(kept)/b.Elapsed().Seconds(), "addresses/s")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(kept), "ns/address")
}
