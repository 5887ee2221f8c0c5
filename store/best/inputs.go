package best

import (
	"archive/zip"
	"bufio"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// kind is what one input file holds.
type kind int

const (
	kindUnknown kind = iota
	kindLayoutAddresses
	kindLayoutStreets
	kindLayoutMunicipalities
	kindLayoutParts
	kindLayoutPostals
	kindOfficialCSV
	kindXMLAddresses
	kindXMLStreets
	kindXMLMunicipalities
	kindXMLParts
	kindXMLPostals
)

type format int

const (
	formatNone format = iota
	formatLayout
	formatOfficial
	formatXML
)

func (k kind) format() format {
	switch {
	case k >= kindLayoutAddresses && k <= kindLayoutPostals:
		return formatLayout
	case k == kindOfficialCSV:
		return formatOfficial
	case k >= kindXMLAddresses && k <= kindXMLPostals:
		return formatXML
	}
	return formatNone
}

func (f format) String() string {
	switch f {
	case formatLayout:
		return "BOSA load layout (addresses/streets/municipalities/municipalityparts/postals CSV)"
	case formatOfficial:
		return "official CSV (openaddress-be*.csv)"
	case formatXML:
		return "official XML full download"
	}
	return "unknown"
}

// source is one input file, on disk or inside a zip.
type source struct {
	name string // for messages: the path, or "archive.zip:member"
	size int64
	mod  time.Time
	kind kind
	open func() (io.ReadCloser, error)
}

type inputSet struct {
	format   format
	sources  []*source
	closers  []io.Closer
	warnings []string
	// seen holds the absolute paths already taken, so a file named twice (itself and through
	// its directory) is not read twice.
	seen map[string]bool
}

func (in *inputSet) close() {
	for _, c := range in.closers {
		c.Close()
	}
}

func (in *inputSet) of(k kind) []*source {
	var out []*source
	for _, s := range in.sources {
		if s.kind == k {
			out = append(out, s)
		}
	}
	return out
}

func sizeOf(list []*source) int64 {
	var n int64
	for _, s := range list {
		n += s.size
	}
	return n
}

// collect finds the BeST files among the inputs. Files named explicitly must be BeST files;
// in a directory or a zip, other files (a README, a checksum) are passed over with a warning.
func collect(files []string) (*inputSet, error) {
	in := &inputSet{seen: map[string]bool{}}
	ok := false
	defer func() {
		if !ok {
			in.close()
		}
	}()
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			return nil, fmt.Errorf("import BeST %s: %w", f, err)
		}
		if !fi.IsDir() {
			if _, err := in.addFile(f, fi, true); err != nil {
				return nil, err
			}
			continue
		}
		entries, err := os.ReadDir(f)
		if err != nil {
			return nil, fmt.Errorf("import BeST %s: %w", f, err)
		}
		ignored := 0
		for _, e := range entries {
			if e.IsDir() || strings.HasPrefix(e.Name(), ".") {
				continue
			}
			p := filepath.Join(f, e.Name())
			efi, err := e.Info()
			if err != nil {
				return nil, fmt.Errorf("import BeST %s: %w", p, err)
			}
			if !efi.Mode().IsRegular() {
				continue
			}
			taken, err := in.addFile(p, efi, false)
			if err != nil {
				return nil, err
			}
			if !taken {
				ignored++
			}
		}
		if ignored > 0 {
			in.warnings = append(in.warnings, fmt.Sprintf("%s: %d files that are not BeST data were ignored", f, ignored))
		}
	}
	if err := in.check(); err != nil {
		return nil, err
	}
	ok = true
	return in, nil
}

// addFile takes one file, or the BeST members of a zip. taken is false for a file in a
// directory that is not BeST data.
func (in *inputSet) addFile(p string, fi os.FileInfo, explicit bool) (taken bool, err error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return false, fmt.Errorf("import BeST %s: %w", p, err)
	}
	if in.seen[abs] {
		return true, nil
	}
	in.seen[abs] = true
	base := filepath.Base(p)
	if strings.EqualFold(filepath.Ext(base), ".zip") {
		return true, in.addZip(p, explicit)
	}
	open := func() (io.ReadCloser, error) { return os.Open(p) }
	k, err := classify(base, open)
	if err != nil {
		return false, fmt.Errorf("import BeST %s: %w", p, err)
	}
	if k == kindUnknown {
		if explicit {
			return false, fmt.Errorf("import BeST %s: not a BeST file: %w", p, errUnrecognised)
		}
		return false, nil
	}
	in.sources = append(in.sources, &source{name: p, size: fi.Size(), mod: fi.ModTime(), kind: k, open: open})
	return true, nil
}

var errUnrecognised = errors.New("expected addresses*.csv, streets*.csv, municipalities*.csv, municipalityparts*.csv, postals*.csv (BOSA load layout), " +
	"openaddress-be{bru,vlg,wal}.csv (official CSV, also zipped) or {Brussels,Flanders,Wallonia}{Address,Streetname,Municipality,PartOfMunicipality,Postalinfo}*.xml")

func (in *inputSet) addZip(p string, explicit bool) error {
	zr, err := zip.OpenReader(p)
	if err != nil {
		return fmt.Errorf("import BeST %s: %w", p, err)
	}
	in.closers = append(in.closers, zr)
	found, ignored := 0, 0
	for _, zf := range zr.File {
		if zf.FileInfo().IsDir() {
			continue
		}
		base := path.Base(zf.Name)
		if strings.HasPrefix(base, ".") || strings.HasPrefix(zf.Name, "__MACOSX/") {
			continue
		}
		name := p + ":" + zf.Name
		open := zf.Open
		k, err := classify(base, open)
		if err != nil {
			return fmt.Errorf("import BeST %s: %w", name, err)
		}
		if k == kindUnknown {
			ignored++
			continue
		}
		found++
		in.sources = append(in.sources, &source{name: name, size: int64(zf.UncompressedSize64), mod: zf.Modified, kind: k, open: open})
	}
	if found == 0 && explicit {
		return fmt.Errorf("import BeST %s: the archive holds no BeST file: %w", p, errUnrecognised)
	}
	if ignored > 0 {
		in.warnings = append(in.warnings, fmt.Sprintf("%s: %d members that are not BeST data were ignored", p, ignored))
	}
	return nil
}

// classify tells the kind of a file from its name, and for a .csv or .xml with another name
// from its first line or root element.
func classify(base string, open func() (io.ReadCloser, error)) (kind, error) {
	b := strings.ToLower(base)
	switch {
	case strings.HasSuffix(b, ".csv"):
		for _, p := range []struct {
			prefix string
			k      kind
		}{
			{"openaddress-be", kindOfficialCSV},
			{"addresses", kindLayoutAddresses},
			{"streets", kindLayoutStreets},
			{"municipalityparts", kindLayoutParts},
			{"municipalities", kindLayoutMunicipalities},
			{"postals", kindLayoutPostals},
		} {
			if strings.HasPrefix(b, p.prefix) {
				return p.k, nil
			}
		}
		return sniffCSV(open)
	case strings.HasSuffix(b, ".xml"):
		for _, region := range []string{"brussels", "flanders", "wallonia"} {
			rest, ok := strings.CutPrefix(b, region)
			if !ok {
				continue
			}
			for _, p := range []struct {
				prefix string
				k      kind
			}{
				{"address", kindXMLAddresses},
				{"streetname", kindXMLStreets},
				{"partofmunicipality", kindXMLParts},
				{"municipality", kindXMLMunicipalities},
				{"postalinfo", kindXMLPostals},
			} {
				if strings.HasPrefix(rest, p.prefix) {
					return p.k, nil
				}
			}
		}
		return sniffXML(open)
	}
	return kindUnknown, nil
}

// sniffCSV recognises an official CSV under another name by its header.
func sniffCSV(open func() (io.ReadCloser, error)) (kind, error) {
	rc, err := open()
	if err != nil {
		return kindUnknown, err
	}
	defer rc.Close()
	line, err := bufio.NewReaderSize(rc, 64<<10).ReadSlice('\n')
	if err != nil && err != io.EOF && !errors.Is(err, bufio.ErrBufferFull) {
		return kindUnknown, err
	}
	cols := map[string]bool{}
	for _, c := range strings.Split(strings.TrimPrefix(strings.TrimSpace(string(line)), "\ufeff"), ",") {
		cols[strings.ToLower(strings.TrimSpace(c))] = true
	}
	if cols["address_id"] && cols["house_number"] {
		return kindOfficialCSV, nil
	}
	return kindUnknown, nil
}

// xmlRoots are the root elements of the full download, by the kind of file they start.
var xmlRoots = map[string]kind{
	"addressResponseBySource":            kindXMLAddresses,
	"streetNameResponseBySource":         kindXMLStreets,
	"municipalityResponseBySource":       kindXMLMunicipalities,
	"partOfMunicipalityResponseBySource": kindXMLParts,
	"postalInfoResponseBySource":         kindXMLPostals,
}

// sniffXML recognises a full-download file under another name by its root element. A file
// that is not XML at all is just not ours.
func sniffXML(open func() (io.ReadCloser, error)) (kind, error) {
	rc, err := open()
	if err != nil {
		return kindUnknown, err
	}
	defer rc.Close()
	dec := xml.NewDecoder(io.LimitReader(rc, 1<<20))
	for {
		tok, err := dec.Token()
		if err != nil {
			return kindUnknown, nil
		}
		if se, ok := tok.(xml.StartElement); ok {
			if se.Name.Space != tnsNamespace {
				return kindUnknown, nil
			}
			return xmlRoots[se.Name.Local], nil
		}
	}
}

// check refuses a mix of formats and a format without its parts, before anything is read.
func (in *inputSet) check() error {
	formats := map[format]bool{}
	for _, s := range in.sources {
		formats[s.kind.format()] = true
	}
	if len(formats) == 0 {
		return fmt.Errorf("import BeST: no BeST files in the input: %w", errUnrecognised)
	}
	if len(formats) > 1 {
		var names []string
		for _, f := range []format{formatLayout, formatOfficial, formatXML} {
			if formats[f] {
				names = append(names, f.String())
			}
		}
		return fmt.Errorf("import BeST: the input mixes formats (%s); give one format per import, so no address is read twice", strings.Join(names, "; "))
	}
	for f := range formats {
		in.format = f
	}
	need := map[format][]struct {
		k    kind
		name string
	}{
		formatLayout: {
			{kindLayoutAddresses, "addresses*.csv"},
			{kindLayoutStreets, "streets*.csv"},
			{kindLayoutMunicipalities, "municipalities*.csv"},
			{kindLayoutParts, "municipalityparts*.csv"},
			{kindLayoutPostals, "postals*.csv"},
		},
		formatXML: {
			{kindXMLAddresses, "*Address*.xml"},
			{kindXMLStreets, "*Streetname*.xml"},
			{kindXMLMunicipalities, "*Municipality*.xml"},
			{kindXMLPostals, "*Postalinfo*.xml"},
		},
	}
	for _, n := range need[in.format] {
		if len(in.of(n.k)) == 0 {
			return fmt.Errorf("import BeST: the %s input has no %s file", in.format, n.name)
		}
	}
	return nil
}
