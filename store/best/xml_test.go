package best

import (
	"context"
	"encoding/xml"
	"fmt"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/adreswijzer/adreswijzer"
)

// No real full-download file exists in the samples, so these tests write the real sample rows
// in the structure documented from BOSA's reader and the Flemish BeST exporter's expected output.

// xmlTestNamespaces are the regions' namespaces by load-layout prefix (BOSA's NsConverter).
var xmlTestNamespaces = map[string]string{
	"BA": "BE.BRUSSELS.BRIC.ADM.ADDR", "BS": "BE.BRUSSELS.BRIC.ADM.STR", "BM": "BE.BRUSSELS.BRIC.ADM.MUNICIPALITY", "BP": "BE.BRUSSELS.BRIC.ADM.PZ",
	"VA": "https://data.vlaanderen.be/id/adres", "VS": "https://data.vlaanderen.be/id/straatnaam",
	"VM": "https://data.vlaanderen.be/id/gemeente", "VP": "https://data.vlaanderen.be/id/postinfo",
	"WA": "geodata.wallonie.be/id/Address", "WS": "geodata.wallonie.be/id/Streetname", "WM": "geodata.wallonie.be/id/Municipality",
	"WMP": "geodata.wallonie.be/id/PartOfMunicipality", "WP": "geodata.wallonie.be/id/PostalInfo",
}

var xmlRegionNames = map[string]string{"B": "Brussels", "V": "Flanders", "W": "Wallonia"}

// xmlStyle varies what real files vary: the prefix and URI of the children's namespace, and
// whether the root has a timestamp.
type xmlStyle struct {
	childPrefix, childURI string
	timestamp             string
}

var documentedStyle = xmlStyle{childPrefix: "com", childURI: "http://fsb.belgium.be/data/common", timestamp: "2021-10-22T09:00:00+02:00"}

type xmlWriter struct {
	sb    strings.Builder
	style xmlStyle
}

func (w *xmlWriter) open(root string) {
	p := w.style.childPrefix
	fmt.Fprintf(&w.sb, `<?xml version="1.0" encoding="utf-8"?>`+"\n"+
		`<tns:%s xmlns:%s="%s" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:tns="http://fsb.belgium.be/mappingservices/FullDownload/v1_00">`+"\n",
		root, p, w.style.childURI)
	fmt.Fprintf(&w.sb, "  <tns:source>%s</tns:source>\n", "bosa")
	if w.style.timestamp != "" {
		fmt.Fprintf(&w.sb, "  <tns:timestamp>%s</tns:timestamp>\n", w.style.timestamp)
	}
}

func (w *xmlWriter) close(root string) string {
	fmt.Fprintf(&w.sb, "</tns:%s>\n", root)
	return w.sb.String()
}

// el writes <prefix:name>text</prefix:name>, escaped; nothing for an empty text.
func (w *xmlWriter) el(name, text string) {
	if text == "" {
		return
	}
	var esc strings.Builder
	if err := xml.EscapeText(&esc, []byte(text)); err != nil {
		panic(err)
	}
	fmt.Fprintf(&w.sb, "<%[1]s:%[2]s>%[3]s</%[1]s:%[2]s>", w.style.childPrefix, name, esc.String())
}

func (w *xmlWriter) start(name string) { fmt.Fprintf(&w.sb, "<%s:%s>", w.style.childPrefix, name) }
func (w *xmlWriter) end(name string)   { fmt.Fprintf(&w.sb, "</%s:%s>", w.style.childPrefix, name) }

// code writes an identifier block from a load-layout identifier "<prefix>/<object>/<version>".
func (w *xmlWriter) code(element, layoutID string) {
	p := strings.SplitN(layoutID, "/", 3)
	w.start(element)
	w.el("namespace", xmlTestNamespaces[p[0]])
	w.el("objectIdentifier", p[1])
	if len(p) == 3 {
		w.el("versionIdentifier", p[2])
	}
	w.end(element)
}

func (w *xmlWriter) names(nl, fr, de string) {
	for _, n := range [][2]string{{"nl", nl}, {"fr", fr}, {"de", de}} {
		if n[1] != "" {
			w.start("name")
			w.el("language", n[0])
			w.el("spelling", n[1])
			w.end("name")
		}
	}
}

// sampleXML writes the whole raw sample as full-download files, per region, named as BOSA names them.
func sampleXML(t testing.TB, raw *rawSample, style xmlStyle) map[string]string {
	t.Helper()
	regionOf := func(id string) string { return id[:1] }
	files := map[string]string{}
	for _, region := range []string{"B", "V", "W"} {
		rn := xmlRegionNames[region]

		w := &xmlWriter{style: style}
		w.open("streetNameResponseBySource")
		for _, s := range sortedRows(raw.streets) {
			if regionOf(s[0]) != region {
				continue
			}
			w.sb.WriteString("  <tns:streetName>")
			w.code("code", s[0])
			w.names(s[2], s[3], s[4])
			w.start("streetNameStatus")
			w.el("status", s[7])
			w.el("validFrom", s[8])
			w.el("validTo", s[9])
			w.end("streetNameStatus")
			w.el("type", s[6])
			w.code("isAssignedByMunicipality", s[1])
			w.sb.WriteString("</tns:streetName>\n")
		}
		files[rn+"Streetname20211020.xml"] = w.close("streetNameResponseBySource")

		for _, named := range []struct {
			file, root, record string
			rows               map[string][]string
			nameCol            int
		}{
			{"Municipality20211020.xml", "municipalityResponseBySource", "municipality", raw.munis, 2},
			{"PartOfMunicipality20211020.xml", "partOfMunicipalityResponseBySource", "partOfMunicipality", raw.parts, 1},
			{"Postalinfo20211020.xml", "postalInfoResponseBySource", "postalInfo", raw.postals, 2},
		} {
			w := &xmlWriter{style: style}
			w.open(named.root)
			n := 0
			for _, r := range sortedRows(named.rows) {
				if regionOf(r[0]) != region {
					continue
				}
				n++
				fmt.Fprintf(&w.sb, "  <tns:%s>", named.record)
				w.code("code", r[0])
				w.names(r[named.nameCol], r[named.nameCol+1], r[named.nameCol+2])
				fmt.Fprintf(&w.sb, "</tns:%s>\n", named.record)
			}
			if n > 0 { // only Wallonia has parts of municipality
				files[rn+named.file] = w.close(named.root)
			}
		}

		w = &xmlWriter{style: style}
		w.open("addressResponseBySource")
		for _, a := range raw.addresses {
			if regionOf(a[0]) != region {
				continue
			}
			w.sb.WriteString("  <tns:address")
			if a[11] != "" {
				fmt.Fprintf(&w.sb, ` beginLifeSpanVersion="%s"`, a[11])
			}
			if a[12] != "" {
				fmt.Fprintf(&w.sb, ` endLifeSpanVersion="%s"`, a[12])
			}
			w.sb.WriteString(">")
			w.code("code", a[0])
			x, y := wkbPoint(t, a[13])
			w.start("position")
			w.start("pointGeometry")
			w.start("point")
			fmt.Fprintf(&w.sb, `<%s:pos axisLabels="x y" srsDimension="2" srsName="http://www.opengis.net/def/crs/EPSG/0/31370" uomLabels="m m">%.2f %.2f</%[1]s:pos>`, style.childPrefix, x, y)
			w.end("point")
			w.end("pointGeometry")
			w.end("position")
			w.start("addressStatus")
			w.el("status", a[8])
			w.el("validFrom", a[9])
			w.el("validTo", a[10])
			w.end("addressStatus")
			w.el("boxNumber", a[6])
			w.el("houseNumber", a[5])
			w.el("officiallyAssigned", "true")
			w.code("hasStreetName", a[3])
			w.code("hasMunicipality", a[1])
			if a[2] != "" {
				w.code("hasPartOfMunicipality", a[2])
			}
			w.code("hasPostalInfo", a[4])
			w.sb.WriteString("</tns:address>\n")
		}
		files[rn+"Address20211020L72.xml"] = w.close("addressResponseBySource")
	}
	return files
}

func sortedRows(m map[string][]string) [][]string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([][]string, len(keys))
	for i, k := range keys {
		out[i] = m[k]
	}
	return out
}

func writeAll(t testing.TB, dir string, files map[string]string) []string {
	t.Helper()
	var out []string
	for name, content := range files {
		out = append(out, writeFile(t, filepath.Join(dir, name), content))
	}
	return out
}

// only keeps the files of the regions named by their XML file prefix.
func only(files map[string]string, regions ...string) map[string]string {
	out := map[string]string{}
	for name, content := range files {
		for _, r := range regions {
			if strings.HasPrefix(name, r) {
				out[name] = content
			}
		}
	}
	return out
}

func TestImportXMLMatchesLayout(t *testing.T) {
	raw := loadRaw(t)
	wantRes, want := importAll(t, sampleFiles(t), Options{})
	var wantWallonia []adreswijzer.Address
	for _, a := range want {
		if strings.HasPrefix(a.ID, "WA/") {
			wantWallonia = append(wantWallonia, a)
		}
	}
	documented := sampleXML(t, raw, documentedStyle)
	olderStyle := documentedStyle
	olderStyle.childPrefix, olderStyle.childURI = "add", "http://vocab.belgif.be/ns/inspire/"
	noTimestamp := documentedStyle
	noTimestamp.timestamp = ""

	tests := []struct {
		name    string
		inputs  func(t *testing.T) []string
		want    []adreswijzer.Address
		version adreswijzer.DatasetVersion
	}{
		{"directory, documented namespaces", func(t *testing.T) []string {
			dir := t.TempDir()
			writeAll(t, dir, documented)
			return []string{dir}
		}, want, "best:2021-10-22"},
		{"one zip", func(t *testing.T) []string {
			return []string{zipFile(t, filepath.Join(t.TempDir(), "best-full.zip"), documented)}
		}, want, "best:2021-10-22"},
		// The three variants below use the Walloon files only, the region with parts of
		// municipality, to keep the test quick.
		{"older add: namespace for the children", func(t *testing.T) []string {
			return writeAll(t, t.TempDir(), only(sampleXML(t, raw, olderStyle), "Wallonia"))
		}, wantWallonia, "best:2021-10-22"},
		{"no root timestamp: newest validFrom", func(t *testing.T) []string {
			return writeAll(t, t.TempDir(), only(sampleXML(t, raw, noTimestamp), "Wallonia"))
		}, wantWallonia, "best:2021-10-20"},
		{"names that do not say the kind", func(t *testing.T) []string {
			dir := t.TempDir()
			var out []string
			i := 0
			for _, content := range only(documented, "Wallonia") {
				i++
				out = append(out, writeFile(t, filepath.Join(dir, fmt.Sprintf("part%d.xml", i)), content))
			}
			return out
		}, wantWallonia, "best:2021-10-22"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, got := importAll(t, tc.inputs(t), Options{})
			sameAddresses(t, tc.want, got)
			if len(tc.want) == len(want) && (res.Read != wantRes.Read || !reflect.DeepEqual(res.Skipped, wantRes.Skipped)) {
				t.Errorf("XML Read %d Skipped %v; load layout %d %v", res.Read, res.Skipped, wantRes.Read, wantRes.Skipped)
			}
			if res.Kept != int64(len(tc.want)) {
				t.Errorf("Kept %d, want %d", res.Kept, len(tc.want))
			}
			if res.Version != tc.version {
				t.Errorf("Version %q, want %q", res.Version, tc.version)
			}
			if len(res.Warnings) != 0 {
				t.Errorf("Warnings %q", res.Warnings)
			}
		})
	}
}

func TestImportXMLRules(t *testing.T) {
	raw := loadRaw(t)
	// The Brussels files (2,492 addresses, none retired) keep these imports quick.
	base := only(sampleXML(t, raw, documentedStyle), "Brussels")
	// The first Brussels address, BA/110975 (Heerlijkheidsstraat 138), with one change.
	const file, first = "BrusselsAddress20211020L72.xml", "<com:objectIdentifier>110975</com:objectIdentifier>"
	edit := func(old, new string) map[string]string {
		files := map[string]string{}
		for k, v := range base {
			files[k] = v
		}
		a := files[file]
		i := strings.Index(a, first)
		k := strings.LastIndex(a[:i], "<tns:address")
		j := i + strings.Index(a[i:], "</tns:address>")
		if i < 0 || k < 0 || !strings.Contains(a[k:j], old) {
			t.Fatalf("%q not in the first address", old)
		}
		files[file] = a[:k] + strings.Replace(a[k:j], old, new, 1) + a[j:]
		return files
	}
	tests := []struct {
		name    string
		files   map[string]string
		skipped map[string]int64
		warning string
		check   func(t *testing.T, m map[string]adreswijzer.Address)
	}{
		{name: "endLifeSpanVersion in the past", files: edit("<tns:address>", `<tns:address endLifeSpanVersion="2015-08-31T17:19:02">`),
			skipped: map[string]int64{SkipEnded: 1}},
		{name: "endLifeSpanVersion in the future", files: edit("<tns:address>", `<tns:address endLifeSpanVersion="2999-01-01T00:00:00">`),
			skipped: map[string]int64{}},
		{name: "validTo in the past", files: edit("</com:validFrom>", "</com:validFrom><com:validTo>2015-08-31T17:19:02</com:validTo>"),
			skipped: map[string]int64{SkipEnded: 1}},
		{name: "street reference unknown", files: edit("<com:objectIdentifier>2855</com:objectIdentifier>", "<com:objectIdentifier>999999</com:objectIdentifier>"),
			skipped: map[string]int64{SkipStreetMissing: 1}},
		{name: "postal info unknown", files: edit("<com:objectIdentifier>1130</com:objectIdentifier>", "<com:objectIdentifier>1131</com:objectIdentifier>"),
			skipped: map[string]int64{}, warning: "1 address records refer to a postal info that is not in the input",
			check: func(t *testing.T, m map[string]adreswijzer.Address) {
				if a := m["BA/110975"]; a.Postcode != "1131" || a.Locality != a.Municipality {
					t.Errorf("BA/110975 = %+v, want postcode 1131 from the reference and the municipality as locality", a)
				}
			}},
		{name: "unknown namespace", files: edit(">BE.BRUSSELS.BRIC.ADM.ADDR<", ">https://example.org/id/address/<"),
			skipped: map[string]int64{}, warning: "unknown namespaces kept in full in the ids: https://example.org/id/address",
			check: func(t *testing.T, m map[string]adreswijzer.Address) {
				if _, ok := m["https://example.org/id/address/110975"]; !ok {
					t.Error("address with an unknown namespace not imported under its full id")
				}
			}},
		{name: "no object identifier", files: edit(first, ""),
			skipped: map[string]int64{SkipMalformed: 1}, warning: "address has no namespace or objectIdentifier"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, got := importAll(t, writeAll(t, t.TempDir(), tc.files), Options{})
			if !reflect.DeepEqual(res.Skipped, tc.skipped) {
				t.Errorf("Skipped %v, want %v", res.Skipped, tc.skipped)
			}
			var skipped int64
			for _, n := range tc.skipped {
				skipped += n
			}
			if res.Read != 2492 || res.Kept != 2492-skipped || int64(len(got)) != res.Kept {
				t.Errorf("Read %d Kept %d", res.Read, res.Kept)
			}
			if tc.warning == "" && len(res.Warnings) != 0 || tc.warning != "" && (len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], tc.warning)) {
				t.Errorf("Warnings %q, want %q", res.Warnings, tc.warning)
			}
			if tc.check != nil {
				tc.check(t, byID(t, got))
			}
		})
	}
}

func TestImportXMLErrors(t *testing.T) {
	raw := loadRaw(t)
	base := only(sampleXML(t, raw, documentedStyle), "Brussels", "Flanders")
	with := func(name, content string) map[string]string {
		files := map[string]string{}
		for k, v := range base {
			files[k] = v
		}
		if content == "" {
			delete(files, name)
		} else {
			files[name] = content
		}
		return files
	}
	brusselsAddr := base["BrusselsAddress20211020L72.xml"]
	tests := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"wrong root", with("BrusselsAddress20211020L72.xml", base["BrusselsStreetname20211020.xml"]),
			"BrusselsAddress20211020L72.xml: root element is {http://fsb.belgium.be/mappingservices/FullDownload/v1_00}streetNameResponseBySource"},
		{"records outside the FullDownload namespace", with("BrusselsAddress20211020L72.xml",
			strings.Replace(brusselsAddr, `xmlns:tns="http://fsb.belgium.be/mappingservices/FullDownload/v1_00"`, `xmlns:tns="http://example.org/other"`, 1)),
			"root element is {http://example.org/other}addressResponseBySource"},
		{"truncated", with("BrusselsAddress20211020L72.xml", brusselsAddr[:len(brusselsAddr)/2]), "XML syntax error"},
		{"no street names", with("FlandersStreetname20211020.xml", ""), ""},
		{"no postal infos at all", func() map[string]string {
			f := with("BrusselsPostalinfo20211020.xml", "")
			delete(f, "FlandersPostalinfo20211020.xml")
			delete(f, "WalloniaPostalinfo20211020.xml")
			return f
		}(), "no *Postalinfo*.xml file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Import(context.Background(), writeAll(t, t.TempDir(), tc.files), func(adreswijzer.Address) error { return nil }, Options{})
			if tc.want == "" {
				// Without Flanders' streets its addresses have no street: skipped, not an error.
				if err != nil || res.Skipped[SkipStreetMissing] != 3446-41 {
					t.Fatalf("err %v Skipped %v, want the 3,405 current Lembeek addresses skipped as street missing", err, res.Skipped)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "import BeST") {
				t.Fatalf("err %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// FuzzXMLAddresses feeds arbitrary bytes to the address stream reader with the real references.
func FuzzXMLAddresses(f *testing.F) {
	raw := loadRaw(f)
	files := sampleXML(f, raw, documentedStyle)
	a := files["WalloniaAddress20211020L72.xml"]
	f.Add(a[:strings.Index(a, "</tns:address>")+len("</tns:address>")] + "</tns:addressResponseBySource>")
	f.Add(files["BrusselsAddress20211020L72.xml"][:3000])
	f.Add(`<tns:addressResponseBySource xmlns:tns="http://fsb.belgium.be/mappingservices/FullDownload/v1_00"><tns:address/></tns:addressResponseBySource>`)
	// The real Walloon references, read once; the fuzzed addresses only look them up.
	setup := newImporter(context.Background(), nil, nil, time.Time{})
	rf := newRefs()
	for _, ref := range []struct {
		name string
		k    kind
	}{{"WalloniaStreetname20211020.xml", kindXMLStreets}, {"WalloniaMunicipality20211020.xml", kindXMLMunicipalities},
		{"WalloniaPartOfMunicipality20211020.xml", kindXMLParts}, {"WalloniaPostalinfo20211020.xml", kindXMLPostals}} {
		src := &source{name: ref.name, kind: ref.k}
		if err := setup.readXMLStream(ref.k, strings.NewReader(files[ref.name]), func(dec *xml.Decoder, se *xml.StartElement) error {
			return setup.xmlRef(dec, se, src, rf)
		}); err != nil {
			f.Fatal(err)
		}
	}
	if len(rf.streets) != 324 {
		f.Fatalf("%d Walloon streets, want 324", len(rf.streets))
	}
	f.Fuzz(func(t *testing.T, content string) {
		imp := newImporter(context.Background(), func(a adreswijzer.Address) error {
			if a.ID == "" || a.HouseNumber < 1 || !validPostcode(a.Postcode) || a.Street.IsZero() || a.Municipality.IsZero() {
				t.Fatalf("unusable address added: %+v", a)
			}
			return nil
		}, nil, time.Time{})
		var r row
		err := imp.readXMLStream(kindXMLAddresses, strings.NewReader(content), func(dec *xml.Decoder, se *xml.StartElement) error {
			var rec xmlAddress
			if err := dec.DecodeElement(&rec, se); err != nil {
				return err
			}
			if imp.xmlAddressRow(&rec, rf, &r) {
				return imp.emit(&r)
			}
			return nil
		})
		if err != nil && err.Error() == "" {
			t.Fatal("empty error")
		}
	})
}
