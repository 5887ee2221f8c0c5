package gen

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"maps"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/store/bag"
	"github.com/adreswijzer/adreswijzer/store/storetest"
)

// The generated extract must import with the project's BAG importer, which reads the
// official format, and give exactly the addresses the generator says it made current, for
// exactly the reasons it says it skips the others.
func TestNLImportsWithBAGImporter(t *testing.T) {
	st := nlSample(t)
	var addrs []adreswijzer.Address
	res, err := bag.Import(context.Background(), []string{st.Path}, func(a adreswijzer.Address) error {
		addrs = append(addrs, a)
		return nil
	}, bag.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Version != "bag:2025-09-15" || len(res.Warnings) != 0 {
		t.Errorf("version %q, warnings %q", res.Version, res.Warnings)
	}
	if res.Kept != st.Current() || int64(len(addrs)) != st.Current() {
		t.Errorf("kept %d (%d addresses), generator made %d current", res.Kept, len(addrs), st.Current())
	}
	want := map[string]int64{}
	for k, v := range map[string]int64{"superseded voorkomen": st.Superseded, "withdrawn": st.Withdrawn,
		"object withdrawn": st.ObjectWithdrawn, "no postcode": st.NoPostcode} {
		if v != 0 {
			want[k] = v
		}
	}
	if !maps.Equal(res.Skipped, want) {
		t.Errorf("skipped %v, want %v", res.Skipped, want)
	}
	var records int64
	for _, f := range st.Files {
		if f.Name[4:7] != "PND" {
			records += f.Records
		}
	}
	if res.Read != records {
		t.Errorf("importer read %d voorkomens, generator wrote %d outside PND", res.Read, records)
	}

	refs, err := loadNL(storetest.DataDir(t))
	if err != nil {
		t.Fatal(err)
	}
	streets := map[string]bool{}
	for _, s := range refs.streets {
		streets[s.name] = true
	}
	places := map[string]bool{}
	for _, w := range refs.woonplaats {
		places[w] = true
	}
	pcRe := regexp.MustCompile(`^[1-9][0-9]{3}[ABCDEGHJKLMNPRSTVWXZ]{2}$`)
	postcodes := map[string]bool{}
	var planned, inUse, letter, addition int64
	for _, a := range addrs {
		switch a.Status {
		case adreswijzer.StatusPlanned:
			planned++
		case adreswijzer.StatusInUse:
			inUse++
		}
		if !streets[a.Street.NL] || !places[a.Locality.NL] {
			t.Fatalf("%s: street %q or woonplaats %q is not a real name", a.ID, a.Street.NL, a.Locality.NL)
		}
		if long := utf8.RuneCountInString(a.Street.NL) > maxShortName; long != (a.StreetShort != "") ||
			utf8.RuneCountInString(a.StreetShort) > maxShortName {
			t.Fatalf("%s: street %q has short name %q", a.ID, a.Street.NL, a.StreetShort)
		}
		if !pcRe.MatchString(a.Postcode) || strings.Contains("SA SD SS", a.Postcode[4:]) {
			t.Fatalf("%s: postcode %q", a.ID, a.Postcode)
		}
		postcodes[a.Postcode] = true
		if a.HouseNumber < 1 || a.HouseNumber > 99999 || a.Municipality.NL != "" {
			t.Fatalf("%s: number %d, municipality %q", a.ID, a.HouseNumber, a.Municipality.NL)
		}
		if a.HouseNumberSuffix != "" {
			letter++
		}
		if a.Addition != "" {
			addition++
		}
	}
	if planned != st.Planned || inUse != st.InUse {
		t.Errorf("imported %d planned and %d in use, generator made %d and %d", planned, inUse, st.Planned, st.InUse)
	}
	if int64(len(postcodes)) != st.Postcodes {
		t.Errorf("%d distinct postcodes imported, generator counted %d", len(postcodes), st.Postcodes)
	}
	within(t, "planned", planned, res.Kept, 1.5, 2.5)
	within(t, "huisletter", letter, res.Kept, 6, 8)
	within(t, "toevoeging", addition, res.Kept, 7, 9.5)
	within(t, "history", st.WithHistory, st.Nummeraanduidingen, 0.7, 1.3)
	within(t, "withdrawn", st.Withdrawn, st.Nummeraanduidingen, 0.3, 0.7)
	within(t, "addresses per postcode", 100*st.Nummeraanduidingen/st.Postcodes, 100, 1800, 2600)
}

// Two runs with the same seed write the same bytes; another seed writes other content.
func TestNLDeterministic(t *testing.T) {
	dir := t.TempDir()
	var hashes [3][32]byte
	for i, seed := range []uint64{7, 7, 8} {
		st, err := WriteNL(context.Background(), filepath.Join(dir, fmt.Sprint(i)),
			NLOptions{Addresses: 3000, Seed: seed, Date: testDate, DataDir: storetest.DataDir(t), Workers: 1 + i})
		if err != nil {
			t.Fatal(err)
		}
		hashes[i] = fileHash(t, st.Path)
	}
	if hashes[0] != hashes[1] {
		t.Error("the same seed gave different archives (with 1 and 2 workers)")
	}
	if hashes[0] == hashes[2] {
		t.Error("different seeds gave the same archive")
	}
}

// The archive has the national layout: the delivery document, the woonplaats-gemeente
// relation and one zip per object type, each holding numbered XML files of at most
// 10,000 sl:stand records, every file marked as synthetic.
func TestNLArchiveLayout(t *testing.T) {
	st := nlSample(t)
	if filepath.Base(st.Path) != "BAGNLDL-15092025-SYNTHETIC.zip" {
		t.Errorf("file name %s", filepath.Base(st.Path))
	}
	zr, err := zip.OpenReader(st.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	if !strings.Contains(zr.Comment, "SYNTHETIC") {
		t.Errorf("archive comment %q", zr.Comment)
	}
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
	}
	want := []string{"Leveringsdocument-BAG-Extract.xml", "GEM-WPL-RELATIE-15092025.zip", "9999WPL15092025.zip",
		"9999OPR15092025.zip", "9999NUM15092025.zip", "9999VBO15092025.zip", "9999LIG15092025.zip",
		"9999STA15092025.zip", "9999PND15092025.zip"}
	if !slices.Equal(names, want) {
		t.Fatalf("entries %q, want %q", names, want)
	}
	lev := readAll(t, zr.File[0])
	if !bytes.Contains(lev, []byte("SYNTHETIC DATA")) || !bytes.Contains(lev, []byte("<selecties-extract:StandTechnischeDatum>2025-09-15<")) {
		t.Errorf("Leveringsdocument:\n%s", lev)
	}
	for i, f := range zr.File[2:] {
		code := f.Name[4:7]
		inner := openInner(t, f)
		if int64(len(inner.File)) < 1 {
			t.Fatalf("%s is empty", f.Name)
		}
		var records int64
		for j, x := range inner.File {
			if wantName := fmt.Sprintf("9999%s15092025-%06d.xml", code, j+1); x.Name != wantName {
				t.Errorf("%s: entry %q, want %q", f.Name, x.Name, wantName)
			}
			b := readAll(t, x)
			n := int64(bytes.Count(b, []byte("<sl:stand>")))
			if n > maxStandRecords {
				t.Errorf("%s: %d records", x.Name, n)
			}
			if !bytes.Contains(b[:600], []byte("<!-- SYNTHETIC DATA")) || !bytes.Contains(b, []byte("<sl:objectType>"+code+"</sl:objectType>")) {
				t.Errorf("%s: no synthetic mark or wrong object type", x.Name)
			}
			records += n
		}
		if records != st.Files[i].Records {
			t.Errorf("%s: %d records, generator reported %d", f.Name, records, st.Files[i].Records)
		}
		if code == "NUM" && len(inner.File) < 3 {
			t.Errorf("NUM in %d files, want the 20,000 addresses split over at least 3", len(inner.File))
		}
	}
}

// Every element and attribute the generator writes under sl:stand occurs, with the same
// prefix, at the same place in Kadaster's own files (the Weesp municipal extract); the
// stand files declare exactly the namespaces Kadaster's do; the delivery document and the
// woonplaats-gemeente relation use only paths of Kadaster's (the national mutation
// delivery's document for the national area).
func TestNLStructureMatchesKadaster(t *testing.T) {
	st := nlSample(t)
	real := map[string]map[string]bool{}
	var realRoot []xml.Attr
	weesp := openZip(t, storetest.File(t, "nl", "BAGGEM0457L-15102021.zip"))
	for _, f := range weesp.File {
		switch {
		case f.Name == "Leveringsdocument-BAG-Extract.xml":
			collectPaths(t, readAll(t, f), "LEV", real, nil)
		case strings.HasPrefix(f.Name, "GEM-WPL-RELATIE"):
			for _, x := range openInner(t, f).File {
				collectPaths(t, readAll(t, x), "GWR", real, nil)
			}
		case strings.HasSuffix(f.Name, "GEM15102021.zip"):
			for _, g := range openInner(t, f).File {
				code := strings.TrimSuffix(g.Name[4:], "15102021.zip")
				if len(code) != 3 {
					continue // InOnderzoek, Inactief, NietBag
				}
				for _, x := range openInner(t, g).File {
					realRoot = collectPaths(t, readAll(t, x), code, real, realRoot)
				}
			}
		}
	}
	mut := openZip(t, storetest.File(t, "nl", "BAGNLDM-13112021-14112021.zip"))
	for _, f := range mut.File {
		if f.Name == "Leveringsdocument-BAG-Extract.xml" {
			collectPaths(t, readAll(t, f), "LEV", real, nil)
		}
	}

	ours := map[string]map[string]bool{}
	zr := openZip(t, st.Path)
	for _, f := range zr.File {
		switch {
		case f.Name == "Leveringsdocument-BAG-Extract.xml":
			collectPaths(t, readAll(t, f), "LEV", ours, nil)
		case strings.HasPrefix(f.Name, "GEM-WPL-RELATIE"):
			for _, x := range openInner(t, f).File {
				collectPaths(t, readAll(t, x), "GWR", ours, nil)
			}
		default:
			code := f.Name[4:7]
			for _, x := range openInner(t, f).File {
				root := collectPaths(t, readAll(t, x), code, ours, nil)
				if !slices.Equal(root, realRoot) {
					t.Fatalf("%s: root attributes differ from Kadaster's:\n%v\n%v", x.Name, root, realRoot)
				}
			}
		}
	}
	for _, code := range []string{"LEV", "GWR", "WPL", "OPR", "NUM", "VBO", "LIG", "STA", "PND"} {
		if len(ours[code]) == 0 || len(real[code]) == 0 {
			t.Errorf("%s: no paths (ours %d, Kadaster %d)", code, len(ours[code]), len(real[code]))
		}
		for p := range ours[code] {
			if !real[code][p] {
				t.Errorf("%s: %s does not occur in Kadaster's files", code, p)
			}
		}
	}
	// The optional parts the importer reads must occur: nevenadressen, short names, history.
	for _, p := range []string{
		"VBO sl:stand/sl-bag-extract:bagObject/Objecten:Verblijfsobject/Objecten:heeftAlsNevenadres/Objecten-ref:NummeraanduidingRef",
		"OPR sl:stand/sl-bag-extract:bagObject/Objecten:OpenbareRuimte/Objecten:verkorteNaam/nen5825:VerkorteNaamOpenbareRuimte/nen5825:verkorteNaam",
		"NUM sl:stand/sl-bag-extract:bagObject/Objecten:Nummeraanduiding/Objecten:voorkomen/Historie:Voorkomen/Historie:eindGeldigheid",
		"NUM sl:stand/sl-bag-extract:bagObject/Objecten:Nummeraanduiding/Objecten:huisnummertoevoeging",
	} {
		code, rest, _ := strings.Cut(p, " ")
		if !ours[code][rest] {
			t.Errorf("generated %s files never hold %s", code, rest)
		}
	}
}

// collectPaths records every element path (prefix:local, as written) and attribute under
// sl:stand, or the whole document for files without records, and returns the root
// element's attributes.
func collectPaths(t *testing.T, doc []byte, code string, into map[string]map[string]bool, root []xml.Attr) []xml.Attr {
	t.Helper()
	if into[code] == nil {
		into[code] = map[string]bool{}
	}
	set := into[code]
	d := xml.NewDecoder(bytes.NewReader(doc))
	var stack []string
	records := bytes.Contains(doc, []byte("<sl:stand>"))
	inStand := !records
	first := true
	for {
		tok, err := d.RawToken()
		if err == io.EOF {
			return root
		}
		if err != nil {
			t.Fatalf("%s: %v", code, err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			name := e.Name.Local
			if e.Name.Space != "" {
				name = e.Name.Space + ":" + name
			}
			if first {
				first = false
				if root == nil {
					root = e.Attr
				}
			}
			if name == "sl:stand" {
				inStand = true
				stack = stack[:0]
			}
			stack = append(stack, name)
			if inStand {
				p := strings.Join(stack, "/")
				set[p] = true
				for _, a := range e.Attr {
					set[p+"@"+a.Name.Space+":"+a.Name.Local] = true
				}
			}
		case xml.EndElement:
			if len(stack) > 0 {
				if stack[len(stack)-1] == "sl:stand" && records {
					inStand = false
				}
				stack = stack[:len(stack)-1]
			}
		}
	}
}

func openZip(t testing.TB, p string) *zip.ReadCloser {
	t.Helper()
	zr, err := zip.OpenReader(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { zr.Close() })
	return zr
}

func openInner(t testing.TB, f *zip.File) *zip.Reader {
	t.Helper()
	b := readAll(t, f)
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatalf("%s: %v", f.Name, err)
	}
	var keep []*zip.File
	for _, x := range zr.File {
		if !strings.HasPrefix(x.Name, "__MACOSX/") && path.Base(x.Name) != ".DS_Store" && !strings.HasSuffix(x.Name, "/") {
			keep = append(keep, x)
		}
	}
	zr.File = keep
	return zr
}

func readAll(t testing.TB, f *zip.File) []byte {
	t.Helper()
	rc, err := f.Open()
	if err != nil {
		t.Fatalf("%s: %v", f.Name, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatalf("%s: %v", f.Name, err)
	}
	return b
}
