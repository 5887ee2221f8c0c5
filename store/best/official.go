package best

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/adreswijzer/adreswijzer"
)

// Official CSV columns, matched by name: BOSA writes them in a fixed order today but announced
// the switch from Lambert 72 (EPSG:31370) to Lambert 2008 (EPSG:3812) coordinates, and an order
// that changes under us must not shift a street name into the postcode.
const (
	ocAddressID  = "address_id"
	ocBox        = "box_number"
	ocHouse      = "house_number"
	ocMunDE      = "municipality_name_de"
	ocMunFR      = "municipality_name_fr"
	ocMunNL      = "municipality_name_nl"
	ocPostcode   = "postcode"
	ocPostFR     = "postname_fr"
	ocPostNL     = "postname_nl"
	ocStreetID   = "street_id"
	ocStreetDE   = "streetname_de"
	ocStreetFR   = "streetname_fr"
	ocStreetNL   = "streetname_nl"
	ocRegion     = "region_code"
	ocStatus     = "status"
	ocMunID      = "municipality_id"
	ocLambert72X = "epsg:31370_x"
	ocLambert72Y = "epsg:31370_y"
	ocLambert08X = "epsg:3812_x"
	ocLambert08Y = "epsg:3812_y"
	ocLat        = "epsg:4326_lat"
	ocLon        = "epsg:4326_lon"
)

// officialRequired are the columns an address cannot be built without. region_code may be
// missing when the file name says the region.
var officialRequired = []string{
	ocAddressID, ocBox, ocHouse, ocMunDE, ocMunFR, ocMunNL, ocPostcode, ocPostFR, ocPostNL,
	ocStreetID, ocStreetDE, ocStreetFR, ocStreetNL, ocStatus,
}

// officialKnown are the other columns BOSA writes or announced; the positions are not imported.
var officialKnown = []string{ocRegion, ocMunID, ocLambert72X, ocLambert72Y, ocLambert08X, ocLambert08Y, ocLat, ocLon}

// maxOfficialLine bounds one line of the official CSV; a real line is about 200 bytes, so a
// longer one means the file is not what we think it is.
const maxOfficialLine = 64 << 10

// officialReader reads the official CSV: comma-separated, one header line, no quoting at all.
// Real Brussels rows hold street names like `"La Brise"(Dreef)`, so a quote is an ordinary
// character here and a CSV reader that honours quotes would corrupt them.
type officialReader struct {
	name   string
	sc     *bufio.Scanner
	line   int64
	col    map[string]int
	ncols  int
	region string // from the file name, for rows without region_code
	fields []string
	// Warnings about the header, for the importer.
	unknown []string
}

var errNoHeader = errors.New("empty file: the official CSV starts with a header line")

func newOfficialReader(name, base string, r io.Reader) (*officialReader, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxOfficialLine)
	or := &officialReader{name: name, sc: sc, col: map[string]int{}, region: regionFromFileName(base)}
	if !sc.Scan() {
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("import BeST %s: header: %w", name, err)
		}
		return nil, fmt.Errorf("import BeST %s: %w", name, errNoHeader)
	}
	or.line = 1
	header := strings.TrimPrefix(strings.TrimRight(sc.Text(), "\r"), "\ufeff")
	cols := strings.Split(header, ",")
	known := map[string]bool{}
	for _, c := range officialRequired {
		known[c] = true
	}
	for _, c := range officialKnown {
		known[c] = true
	}
	for i, c := range cols {
		c = strings.ToLower(strings.TrimSpace(c))
		if _, dup := or.col[c]; dup {
			return nil, fmt.Errorf("import BeST %s: header: column %q appears twice", name, c)
		}
		or.col[c] = i
		if !known[c] {
			or.unknown = append(or.unknown, c)
		}
	}
	or.ncols = len(cols)
	var missing []string
	for _, c := range officialRequired {
		if _, ok := or.col[c]; !ok {
			missing = append(missing, c)
		}
	}
	if _, ok := or.col[ocRegion]; !ok && or.region == "" {
		missing = append(missing, ocRegion+" (or a file name openaddress-be{bru,vlg,wal}.csv)")
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return nil, fmt.Errorf("import BeST %s: header lacks the official CSV columns %s", name, strings.Join(missing, ", "))
	}
	or.fields = make([]string, 0, or.ncols)
	return or, nil
}

// next reads the next data line into fields. It returns io.EOF at the end, errRowSkipped after
// noting a malformed line, or an error that ends the import.
func (or *officialReader) next(imp *importer) error {
	for {
		if !or.sc.Scan() {
			if err := or.sc.Err(); err != nil {
				return fmt.Errorf("import BeST %s line %d: %w", or.name, or.line+1, err)
			}
			return io.EOF
		}
		or.line++
		line := strings.TrimRight(or.sc.Text(), "\r")
		if line == "" {
			continue // a trailing blank line is not a record
		}
		or.fields = or.fields[:0]
		for {
			i := strings.IndexByte(line, ',')
			if i < 0 {
				or.fields = append(or.fields, line)
				break
			}
			or.fields = append(or.fields, line[:i])
			line = line[i+1:]
			if len(or.fields) > or.ncols {
				break
			}
		}
		if len(or.fields) != or.ncols {
			// Most likely a comma inside a name, which the unquoted format cannot carry.
			imp.malformed(or.name, or.line, fmt.Sprintf("%d fields, want %d as in the header", len(or.fields), or.ncols))
			return errRowSkipped
		}
		return nil
	}
}

func (or *officialReader) get(c string) string {
	i, ok := or.col[c]
	if !ok {
		return ""
	}
	return strings.TrimSpace(or.fields[i])
}

// row builds the address record of the current line. ok is false after noting a malformed row.
func (or *officialReader) row(imp *importer, r *row) bool {
	region := or.region
	if code := or.get(ocRegion); code != "" {
		if l, ok := regionLetters[strings.ToUpper(code)]; ok {
			region = l
		}
	}
	if region == "" {
		imp.malformed(or.name, or.line, "region_code is not BE-BRU, BE-VLG or BE-WAL and the file name names no region")
		return false
	}
	addressID, streetID := or.get(ocAddressID), or.get(ocStreetID)
	if addressID == "" {
		imp.malformed(or.name, or.line, "address_id is empty")
		return false
	}
	*r = row{
		id:          region + "A/" + addressID,
		houseNumber: or.get(ocHouse),
		box:         or.get(ocBox),
		postcode:    or.get(ocPostcode),
		status:      or.get(ocStatus),
		street:      imp.internNames(names(or.get(ocStreetNL), or.get(ocStreetFR), or.get(ocStreetDE))),
		// municipality_id is the NIS code, not the register id BOSA's other formats use, so the
		// municipality is known by its names only.
		municipality: imp.internNames(names(or.get(ocMunNL), or.get(ocMunFR), or.get(ocMunDE))),
		postName:     imp.internNames(adreswijzer.Names{NL: or.get(ocPostNL), FR: or.get(ocPostFR)}),
	}
	if streetID != "" {
		r.streetID = region + "S/" + streetID
	}
	// BeST's Walloon postal infos carry no names; BOSA fills the Walloon file's postname_fr
	// with the part of municipality instead (1,803 distinct values for 607 postcodes), which is
	// what the other formats give as sub-municipality.
	if region == "W" {
		r.sub = r.postName
	}
	r.streetMissing = r.streetID == "" || r.street.IsZero()
	r.municipalityMissing = r.municipality.IsZero()
	return true
}

func (imp *importer) readOfficial(in *inputSet) error {
	files := in.of(kindOfficialCSV)
	imp.startPhase(PhaseAddresses, sizeOf(files))
	for _, s := range files {
		if err := imp.readOfficialFile(s); err != nil {
			return err
		}
	}
	imp.endPhase()
	return nil
}

func (imp *importer) readOfficialFile(s *source) error {
	rc, err := s.open()
	if err != nil {
		return fmt.Errorf("import BeST %s: %w", s.name, err)
	}
	defer rc.Close()
	return imp.readOfficialStream(s.name, baseName(s.name), countingReader{rc, &imp.done})
}

// readOfficialStream reads one official CSV from r; name is for messages, base for the region.
func (imp *importer) readOfficialStream(name, base string, r io.Reader) error {
	or, err := newOfficialReader(name, base, r)
	if err != nil {
		return err
	}
	if len(or.unknown) > 0 {
		imp.warnings = append(imp.warnings, fmt.Sprintf("%s: columns not part of the official CSV were ignored: %s", name, strings.Join(or.unknown, ", ")))
	}
	var rw row
	for {
		if err := imp.tick(); err != nil {
			return fmt.Errorf("import BeST %s: %w", name, err)
		}
		err := or.next(imp)
		switch {
		case err == io.EOF:
			return nil
		case errors.Is(err, errRowSkipped):
			continue
		case err != nil:
			return err
		}
		if !or.row(imp, &rw) {
			continue
		}
		if err := imp.emit(&rw); err != nil {
			return fmt.Errorf("import BeST %s line %d: %w", name, or.line, err)
		}
	}
}

// baseName is the file name at the end of a source name ("dir/x.zip:openaddress-bebru.csv").
func baseName(name string) string {
	if i := strings.LastIndexAny(name, `/\:`); i >= 0 {
		return name[i+1:]
	}
	return name
}
