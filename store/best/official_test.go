package best

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/adreswijzer/adreswijzer"
)

// officialHeader is the header BOSA's generator writes (BestWriterCSVOpenAddresses).
const officialHeader = "EPSG:31370_x,EPSG:31370_y,EPSG:4326_lat,EPSG:4326_lon,address_id,box_number,house_number," +
	"municipality_id,municipality_name_de,municipality_name_fr,municipality_name_nl,postcode,postname_fr,postname_nl," +
	"street_id,streetname_de,streetname_fr,streetname_nl,region_code,status"

var regionCodes = map[string]string{"B": "BE-BRU", "V": "BE-VLG", "W": "BE-WAL"}

// officialRecords turns the raw sample rows into official CSV records (column name → value),
// per region letter, filled the way BOSA's files are: bare object identifiers, the NIS code as
// municipality_id, and in Wallonia the part of municipality as postname_fr (BeST's Walloon postal
// infos have no names). Positions are decoded from the rows' big-endian WKB points.
func officialRecords(t testing.TB, raw *rawSample) map[string][]map[string]string {
	t.Helper()
	obj := func(id string) string { return strings.Split(id, "/")[1] }
	out := map[string][]map[string]string{}
	for _, r := range raw.addresses {
		region := r[0][:1]
		x, y := wkbPoint(t, r[13])
		st := raw.streets[noVersion(r[3])]
		mu := raw.munis[noVersion(r[1])]
		pi := raw.postals[noVersion(r[4])]
		postFR, postNL := pi[3], pi[2]
		if region == "W" {
			part := raw.parts[noVersion(r[2])]
			postFR, postNL = part[2], part[1]
		}
		rec := map[string]string{
			"EPSG:31370_x": fmt.Sprintf("%.5f", x), "EPSG:31370_y": fmt.Sprintf("%.5f", y),
			// Not converted to WGS84 or Lambert 2008 here: the importer reads no position.
			"EPSG:4326_lat": "", "EPSG:4326_lon": "", "EPSG:3812_x": "", "EPSG:3812_y": "",
			"address_id": obj(r[0]), "box_number": r[6], "house_number": r[5],
			"municipality_id": mu[1], "municipality_name_de": mu[4], "municipality_name_fr": mu[3], "municipality_name_nl": mu[2],
			"postcode": pi[1], "postname_fr": postFR, "postname_nl": postNL,
			"street_id": obj(r[3]), "streetname_de": st[4], "streetname_fr": st[3], "streetname_nl": st[2],
			"region_code": regionCodes[region], "status": r[8],
		}
		out[region] = append(out[region], rec)
	}
	return out
}

func wkbPoint(t testing.TB, h string) (x, y float64) {
	t.Helper()
	b, err := hex.DecodeString(h)
	if err != nil || len(b) != 21 || b[0] != 0 || binary.BigEndian.Uint32(b[1:5]) != 1 {
		t.Fatalf("point %q is not a big-endian WKB point", h)
	}
	return math.Float64frombits(binary.BigEndian.Uint64(b[5:13])), math.Float64frombits(binary.BigEndian.Uint64(b[13:21]))
}

// officialCSV writes records under the given header, columns in header order.
func officialCSV(t testing.TB, header []string, recs []map[string]string) string {
	t.Helper()
	var sb strings.Builder
	sb.WriteString(strings.Join(header, ","))
	sb.WriteByte('\n')
	vals := make([]string, len(header))
	for _, rec := range recs {
		for i, c := range header {
			v, ok := rec[c]
			if !ok {
				t.Fatalf("no value for column %s", c)
			}
			if strings.Contains(v, ",") {
				t.Fatalf("value for %s contains a comma, which the unquoted official CSV cannot carry", c)
			}
			vals[i] = v
		}
		sb.WriteString(strings.Join(vals, ","))
		sb.WriteByte('\n')
	}
	return sb.String()
}

func shuffled(cols []string, seed uint64) []string {
	out := append([]string(nil), cols...)
	rand.New(rand.NewPCG(seed, seed+1)).Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

func zipFile(t testing.TB, path string, members map[string]string) string {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, content := range members {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(content)); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return writeFile(t, path, buf.String())
}

// The real sample, converted to the official CSV: Brussels with the Lambert 72 header in a
// shuffled order, Flanders with the announced Lambert 2008 header in another order, Wallonia
// in BOSA's own order inside a zip. All must give exactly the addresses of the load layout.
func TestImportOfficialCSVMatchesLayout(t *testing.T) {
	raw := loadRaw(t)
	recs := officialRecords(t, raw)
	h72 := strings.Split(officialHeader, ",")
	h08 := strings.Split(strings.NewReplacer("EPSG:31370_x", "EPSG:3812_x", "EPSG:31370_y", "EPSG:3812_y").Replace(officialHeader), ",")
	bru, vlg := shuffled(h72, 1), shuffled(h08, 2)
	if reflect.DeepEqual(bru, h72) || reflect.DeepEqual(vlg, h08) {
		t.Fatal("shuffle left a header in its original order")
	}

	dir := t.TempDir()
	files := []string{
		writeFile(t, filepath.Join(dir, "openaddress-bebru.csv"), officialCSV(t, bru, recs["B"])),
		writeFile(t, filepath.Join(dir, "openaddress-bevlg.csv"), officialCSV(t, vlg, recs["V"])),
		zipFile(t, filepath.Join(dir, "openaddress-bewal.zip"), map[string]string{"openaddress-bewal.csv": officialCSV(t, h72, recs["W"])}),
	}
	wantRes, want := importAll(t, sampleFiles(t), Options{})
	res, got := importAll(t, files, Options{Date: "2021-10-20"})
	sameAddresses(t, want, got)
	if res.Read != wantRes.Read || res.Kept != wantRes.Kept || !reflect.DeepEqual(res.Skipped, wantRes.Skipped) {
		t.Errorf("official CSV Read %d Kept %d Skipped %v; load layout %d %d %v", res.Read, res.Kept, res.Skipped, wantRes.Read, wantRes.Kept, wantRes.Skipped)
	}
	if res.Version != "best:2021-10-20" || len(res.Warnings) != 0 {
		t.Errorf("Version %q Warnings %q", res.Version, res.Warnings)
	}
}

// The official CSV has no dates: without Options.Date the file time stands in, with a warning.
func TestImportOfficialCSVDateFallback(t *testing.T) {
	raw := loadRaw(t)
	dir := t.TempDir()
	f := writeFile(t, filepath.Join(dir, "openaddress-bebru.csv"), officialCSV(t, strings.Split(officialHeader, ","), officialRecords(t, raw)["B"]))
	mod := time.Date(2021, 10, 21, 12, 0, 0, 0, time.UTC)
	if err := os.Chtimes(f, mod, mod); err != nil {
		t.Fatal(err)
	}
	res, got := importAll(t, []string{f}, Options{})
	if len(got) != 2492 {
		t.Errorf("%d Haren addresses, want 2492", len(got))
	}
	if res.Version != "best:2021-10-21" {
		t.Errorf("Version %q, want the file time best:2021-10-21", res.Version)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "Options.Date") {
		t.Errorf("Warnings %q, want one asking for Options.Date", res.Warnings)
	}
}

// Real rows in shapes that only the official CSV produces.
func TestImportOfficialCSVRows(t *testing.T) {
	raw := loadRaw(t)
	haren := officialRecords(t, raw)["B"][0] // BA/110975, Heerlijkheidsstraat 138
	header := strings.Split(officialHeader, ",")
	line := func(change map[string]string) string {
		rec := map[string]string{}
		for k, v := range haren {
			rec[k] = v
		}
		for k, v := range change {
			rec[k] = v
		}
		vals := make([]string, len(header))
		for i, c := range header {
			vals[i] = rec[c]
		}
		return strings.Join(vals, ",")
	}
	tests := []struct {
		name, file string
		header     string
		lines      []string
		skipped    map[string]int64
		warning    string
		check      func(t *testing.T, a adreswijzer.Address)
	}{
		{
			// A real Brussels street name (streetname_nl of the 2024 Brussels file) with quotes.
			name: "quotes are text", lines: []string{line(map[string]string{"streetname_nl": `"La Brise"(Dreef)`})},
			check: func(t *testing.T, a adreswijzer.Address) {
				if a.Street.NL != `"La Brise"(Dreef)` {
					t.Errorf("street %q", a.Street.NL)
				}
			},
		},
		{
			// The real postal name of 1030 holds a comma: the unquoted format cannot carry it.
			name: "comma in a name", lines: []string{line(nil), line(map[string]string{"postcode": "1030",
				"postname_nl": "Schaarbeek + Brussel (Van Praet, Teichmann Brug)"})},
			skipped: map[string]int64{SkipMalformed: 1}, warning: "line 3: 21 fields, want 20 as in the header",
		},
		{
			name: "region from file name", file: "openaddress-bebru.csv",
			header: strings.Replace(officialHeader, ",region_code", "", 1),
			lines:  []string{strings.Replace(line(nil), ",BE-BRU", "", 1)},
			check: func(t *testing.T, a adreswijzer.Address) {
				if a.ID != "BA/110975" || a.StreetID != "BS/2855" {
					t.Errorf("ids %s %s", a.ID, a.StreetID)
				}
			},
		},
		{
			name: "unknown region without file name", file: "bxl.csv",
			lines:   []string{line(nil), line(map[string]string{"region_code": "BE-XXX"})},
			skipped: map[string]int64{SkipMalformed: 1}, warning: "line 3: region_code",
		},
		{
			name: "extra column", header: officialHeader + ",note", lines: []string{line(nil) + ","},
			warning: "not part of the official CSV were ignored: note",
		},
		{
			name: "windows line ends and a byte order mark", header: "\ufeff" + officialHeader + "\r",
			lines: []string{line(nil) + "\r", ""},
		},
		{
			name: "street without name", lines: []string{line(nil), line(map[string]string{"streetname_nl": "", "streetname_fr": ""})},
			skipped: map[string]int64{SkipStreetMissing: 1},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			file, head := tc.file, tc.header
			if file == "" {
				file = "openaddress-bebru.csv"
			}
			if head == "" {
				head = officialHeader
			}
			p := writeFile(t, filepath.Join(t.TempDir(), file), head+"\n"+strings.Join(tc.lines, "\n")+"\n")
			res, got := importAll(t, []string{p}, Options{Date: "2021-10-20"})
			skipped := tc.skipped
			if skipped == nil {
				skipped = map[string]int64{}
			}
			if !reflect.DeepEqual(res.Skipped, skipped) || res.Kept != 1 || len(got) != 1 {
				t.Fatalf("Kept %d Skipped %v, want 1 and %v", res.Kept, res.Skipped, skipped)
			}
			if tc.warning != "" && (len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], tc.warning)) {
				t.Errorf("Warnings %q, want %q", res.Warnings, tc.warning)
			}
			if tc.warning == "" && len(res.Warnings) != 0 {
				t.Errorf("Warnings %q, want none", res.Warnings)
			}
			if tc.check != nil {
				tc.check(t, got[0])
			}
		})
	}
}

func TestImportOfficialCSVHeaderErrors(t *testing.T) {
	tests := []struct{ name, file, content, want string }{
		{"empty", "openaddress-bebru.csv", "", "empty file"},
		{"no house number", "openaddress-bebru.csv", strings.Replace(officialHeader, "house_number,", "", 1) + "\n", "house_number"},
		{"duplicate column", "openaddress-bebru.csv", officialHeader + ",status\n", `"status" appears twice`},
		{"no region", "bxl-official.csv", strings.Replace(officialHeader, ",region_code", "", 1) + "\n", "region_code"},
		{"line too long", "openaddress-bebru.csv", officialHeader + "\n" + strings.Repeat("x", maxOfficialLine+1) + "\n", "too long"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := writeFile(t, filepath.Join(t.TempDir(), tc.file), tc.content)
			_, err := Import(context.Background(), []string{p}, func(adreswijzer.Address) error { return nil }, Options{Date: "2021-10-20"})
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "import BeST") {
				t.Fatalf("err %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// FuzzOfficialCSV feeds arbitrary bytes to the official CSV reader. It must never panic, every
// error must say it is a BeST import error, and whatever it adds must be a usable address.
func FuzzOfficialCSV(f *testing.F) {
	raw := loadRaw(f)
	recs := officialRecords(f, raw)
	header := strings.Split(officialHeader, ",")
	for _, region := range []string{"B", "V", "W"} {
		f.Add(officialCSV(f, header, recs[region][:3]))
	}
	f.Add(officialCSV(f, shuffled(header, 3), recs["V"][40:42]))
	f.Add(officialHeader + "\n,,,,\n")
	f.Add("")
	f.Fuzz(func(t *testing.T, content string) {
		imp := newImporter(context.Background(), func(a adreswijzer.Address) error {
			if a.Country != adreswijzer.BE || a.ID == "" || a.StreetID == "" || a.HouseNumber < 1 ||
				!validPostcode(a.Postcode) || a.Street.IsZero() || a.Municipality.IsZero() || a.Locality.IsZero() {
				t.Fatalf("unusable address added: %+v", a)
			}
			return nil
		}, nil, time.Time{})
		err := imp.readOfficialStream("fuzz.csv", "openaddress-bebru.csv", strings.NewReader(content))
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
