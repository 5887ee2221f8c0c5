package gen

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"time"
)

// beRegion describes one regional file of the official CSV and the shares its content is
// drawn with. Row counts and the share of rows with a box number are those of BOSA's full
// files as profiled in the notes (§4.2); Walloon files hold current addresses only.
type beRegion struct {
	file, code string
	realRows   int64
	boxPPM     int // share of rows with a box number in BOSA's files
	// boxBuildingPPM is the share of house numbers split into boxes. It is calibrated so
	// that the share of rows with a box comes out at boxPPM at national size; streets cut
	// the last building short, so small sets come out a little lower.
	boxBuildingPPM    int
	retiredPPM        int
	proposedPPM       int
	rowsPerStreet     int64
	minX, maxX        int64 // Lambert 72 extent in metres, roughly the region's
	minY, maxY        int64
	addrID, streetID0 uint64 // first identifiers
	zeroPosPPM        int    // rows without a position (0.00000), as some Walloon rows are
}

var beRegions = [3]beRegion{
	{file: "bru", code: "BE-BRU", realRows: 841_627, boxPPM: 269_300, boxBuildingPPM: 42_400, retiredPPM: 10_000, proposedPPM: 2_000, rowsPerStreet: 215,
		minX: 142_000, maxX: 157_000, minY: 163_000, maxY: 177_000, addrID: 1, streetID0: 1},
	{file: "vlg", code: "BE-VLG", realRows: 4_224_089, boxPPM: 298_700, boxBuildingPPM: 54_000, retiredPPM: 8_000, proposedPPM: 5_000, rowsPerStreet: 52,
		minX: 25_000, maxX: 245_000, minY: 155_000, maxY: 240_000, addrID: 1, streetID0: 1},
	{file: "wal", code: "BE-WAL", realRows: 1_983_855, boxPPM: 209_100, boxBuildingPPM: 34_100, rowsPerStreet: 45,
		minX: 40_000, maxX: 295_000, minY: 25_000, maxY: 165_000, addrID: 1_000_000, streetID0: 7_000_000, zeroPosPPM: 3_000},
}

// beHeader is the header BOSA's converter writes (BestWriterCSVOpenAddresses).
const beHeader = "EPSG:31370_x,EPSG:31370_y,EPSG:4326_lat,EPSG:4326_lon,address_id,box_number,house_number,municipality_id,municipality_name_de,municipality_name_fr,municipality_name_nl,postcode,postname_fr,postname_nl,street_id,streetname_de,streetname_fr,streetname_nl,region_code,status\n"

// BEOptions describe a synthetic BeST Address set in the official CSV form.
type BEOptions struct {
	// Addresses is the number of rows over the three regions, split in the proportions of
	// BOSA's full files (Brussels 12 %, Flanders 60 %, Wallonia 28 %).
	Addresses int64
	Seed      uint64
	// DataDir holds the register samples; empty means DataDir().
	DataDir string
	// OnFile, when set, is told about each CSV once it is written.
	OnFile func(FileInfo)
}

// BEStats are what the generator wrote per region. An importer keeps Current+Proposed rows
// (proposed as planned) and skips Retired ones.
type BEStats struct {
	Regions [3]BERegionStats `json:"regions"`
}

// BERegionStats describe one regional CSV.
type BERegionStats struct {
	Region         string        `json:"region"` // bru, vlg, wal
	Path           string        `json:"path"`
	Bytes          int64         `json:"bytes"`
	Rows           int64         `json:"rows"`
	Current        int64         `json:"current"`
	Proposed       int64         `json:"proposed"`
	Retired        int64         `json:"retired"`
	WithBox        int64         `json:"withBox"`
	WithSuffix     int64         `json:"withSuffix"` // rows whose house number has letters, bis or a slash part
	Municipalities int           `json:"municipalities"`
	Streets        int           `json:"streets"`
	Postcodes      int           `json:"postcodes"`
	Duration       time.Duration `json:"durationNs"`
}

// Kept is the number of addresses an importer should keep.
func (s BEStats) Kept() int64 {
	var n int64
	for _, r := range s.Regions {
		n += r.Current + r.Proposed
	}
	return n
}

// FileNameBE is the name of a regional CSV: BOSA's openaddress-be<region>.csv, marked as
// synthetic (the BeST importer recognises the prefix).
func FileNameBE(region string) string { return "openaddress-be" + region + "-SYNTHETIC.csv" }

// WriteBE writes the three regional CSVs into dir, one goroutine per region.
func WriteBE(ctx context.Context, dir string, opts BEOptions) (BEStats, error) {
	var st BEStats
	if opts.Addresses < 3 {
		return st, errors.New("BE: at least one address per region")
	}
	data := opts.DataDir
	if data == "" {
		data = DataDir()
	}
	refs, err := loadBE(data)
	if err != nil {
		return st, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return st, err
	}
	var weights []int64
	for _, r := range beRegions {
		weights = append(weights, r.realRows)
	}
	rows := split(opts.Addresses, weights)
	var (
		wg   sync.WaitGroup
		errs [3]error
		mu   sync.Mutex
	)
	for i := range beRegions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rs, err := writeRegion(ctx, dir, opts.Seed, i, &refs.regions[i], max(1, rows[i]))
			st.Regions[i] = rs
			errs[i] = err
			if err == nil && opts.OnFile != nil {
				mu.Lock()
				opts.OnFile(FileInfo{Name: filepath.Base(rs.Path), Bytes: rs.Bytes, Uncompressed: rs.Bytes, Records: rs.Rows, Duration: rs.Duration})
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return st, errors.Join(errs[:]...)
}

func writeRegion(ctx context.Context, dir string, seed uint64, reg int, refs *beRegionRefs, rows int64) (BERegionStats, error) {
	start := time.Now()
	rg := &beRegions[reg]
	st := BERegionStats{Region: rg.file, Path: filepath.Join(dir, FileNameBE(rg.file))}
	var g *beGen
	size, err := writeFileAtomically(st.Path, func(w *bufio.Writer) error {
		g = &beGen{seed: seed, reg: reg, rg: rg, refs: refs, w: w, st: &st, addrID: rg.addrID, streetID: rg.streetID0,
			postcodes: map[string]bool{}, suffixCum: cumCounts(refs.suffixes)}
		g.boxStarts = seriesStarts(refs.boxes)
		g.boxCum = cumCounts(g.boxStarts)
		if _, err := w.WriteString(beHeader); err != nil {
			return err
		}
		if err := g.run(ctx, rows); err != nil {
			return fmt.Errorf("BE %s: %w", rg.file, err)
		}
		return nil
	})
	if err != nil {
		return st, err
	}
	st.Bytes = size
	st.Postcodes = len(g.postcodes)
	st.Duration = time.Since(start)
	return st, nil
}

func cumCounts(c []counted) []int64 {
	w := make([]int64, len(c))
	for i, v := range c {
		w[i] = v.count
	}
	return cumulative(w)
}

type beGen struct {
	seed      uint64
	reg       int
	rg        *beRegion
	refs      *beRegionRefs
	w         *bufio.Writer
	st        *BERegionStats
	line      []byte
	house     []byte
	addrID    uint64
	streetID  uint64
	postcodes map[string]bool
	suffixCum []int64
	boxCum    []int64
	boxStarts []counted
}

// run spreads the rows over the region's real municipalities (larger where BeST knows more
// postcodes or parts), over streets with real names, and over buildings with and without
// boxes.
func (g *beGen) run(ctx context.Context, rows int64) error {
	munis := append([]beMuni(nil), g.refs.munis...)
	sort.Slice(munis, func(i, j int) bool { return munis[i].nis < munis[j].nis })
	r := newRNG(g.seed, streamPlanBE, uint64(g.reg))
	weights := make([]int64, len(munis))
	for i := range munis {
		weights[i] = munis[i].weight * r.heavy()
	}
	perMuni := split(rows, weights)
	for i := range munis {
		if err := ctx.Err(); err != nil {
			return err
		}
		if perMuni[i] == 0 {
			continue
		}
		g.st.Municipalities++
		if err := g.municipality(&munis[i], uint64(i), perMuni[i]); err != nil {
			return err
		}
	}
	return nil
}

func (g *beGen) municipality(m *beMuni, idx uint64, rows int64) error {
	r := newRNG(g.seed, streamRegion, uint64(g.reg), idx)
	pool := g.refs.streets
	nStreets := int(clamp((rows+g.rg.rowsPerStreet/2)/g.rg.rowsPerStreet, 1, int64(len(pool))))
	// A distinct random choice of street names for this municipality.
	pick := make([]int, len(pool))
	for i := range pick {
		pick[i] = i
	}
	for i := 0; i < nStreets; i++ {
		j := i + r.intn(len(pick)-i)
		pick[i], pick[j] = pick[j], pick[i]
	}
	per := split(rows, heavyWeights(&r, nStreets))
	radius := isqrt(rows*1500/3) + 1500 // metres: about 1,500 m² per address
	cx := int64(r.between(int(g.rg.minX), int(g.rg.maxX)))
	cy := int64(r.between(int(g.rg.minY), int(g.rg.maxY)))
	for s := range nStreets {
		if per[s] == 0 {
			continue
		}
		g.st.Streets++
		pc := &m.postcodes[r.intn(len(m.postcodes))]
		g.postcodes[pc.code] = true
		st := &beStreet{
			id:   g.streetID,
			name: pool[pick[s]],
			pc:   pc,
			x:    (cx + int64(r.between(-int(radius), int(radius)))) * 1000,
			y:    (cy + int64(r.between(-int(radius), int(radius)))) * 1000,
		}
		d := streetDirs[r.intn(len(streetDirs))]
		step := int64(r.between(6_000, 14_000))
		st.dx, st.dy = d[0]*step/1000, d[1]*step/1000
		g.streetID++
		if err := g.street(&r, m, st, int(per[s])); err != nil {
			return err
		}
	}
	return nil
}

type beStreet struct {
	id     uint64
	name   beStreetName
	pc     *bePostcode
	x, y   int64 // millimetres
	dx, dy int64
}

// street writes n rows: house numbers in order with gaps, some with a real suffix, some
// buildings split into boxes numbered in one of the real box forms.
func (g *beGen) street(r *rng, m *beMuni, s *beStreet, n int) error {
	num := 1
	if r.ppm(50_000) {
		num = r.between(2, 120)
	}
	var boxes []string
	for written := 0; written < n; num++ {
		if r.ppm(60_000) {
			num += r.between(1, 6)
		}
		hn := strconv.AppendInt(g.house[:0], int64(num), 10)
		if len(g.suffixCum) > 0 && r.ppm(g.refs.suffixPPM) {
			hn = append(hn, g.refs.suffixes[r.pick(g.suffixCum)].name...)
		}
		g.house = hn
		boxes = boxes[:0]
		// Buildings with boxes have 2 to 8 of them, one in five 9 to 40.
		if r.ppm(g.rg.boxBuildingPPM) {
			k := r.between(2, 8)
			if r.ppm(200_000) {
				k = r.between(9, 40)
			}
			boxes = boxSeries(g.boxStarts[r.pick(g.boxCum)].name, k, boxes)
		}
		side := int64(1 - 2*(num%2))
		x := s.x + int64(num)*s.dx - side*s.dy
		y := s.y + int64(num)*s.dy + side*s.dx
		if len(boxes) == 0 {
			if err := g.row(r, m, s, hn, "", x, y); err != nil {
				return err
			}
			written++
			continue
		}
		for _, b := range boxes {
			if written == n {
				break
			}
			if err := g.row(r, m, s, hn, b, x, y); err != nil {
				return err
			}
			written++
		}
	}
	return nil
}

// seriesStarts keeps the real box numbers that open a building's series, with their counts:
// those whose last number ends in 0 or 1 (1, 0001, 101, b001, A000), those ending in the
// letter A, and forms that cannot be counted on (GLVL). Drawing a building's first box from
// these keeps "1" more common than "4", as in the register.
func seriesStarts(boxes []counted) []counted {
	var out []counted
	for _, b := range boxes {
		s := b.name
		last := s[len(s)-1]
		j := len(s)
		for j > 0 && (s[j-1] < '0' || s[j-1] > '9') {
			j--
		}
		switch tl := trailingLetters(s); {
		case tl == 1:
			if last == 'A' || last == 'a' {
				out = append(out, b)
			}
		case tl == 0 && j > 0:
			if d := s[j-1]; d == '0' || d == '1' {
				out = append(out, b)
			}
		default:
			out = append(out, b) // a form that is not counted on, such as GLVL
		}
	}
	return out
}

func isLetter(c byte) bool { return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' }

// trailingLetters is the length of the run of letters that ends s.
func trailingLetters(s string) int {
	n := 0
	for n < len(s) && isLetter(s[len(s)-1-n]) {
		n++
	}
	return n
}

// boxSeries numbers the k units of a building after a real box number: the last run of
// digits counts up in its width (0101, 0102; b001, b002), a final letter runs through the
// alphabet (A, B, C), and a form that does neither (GLVL) names the first unit, the
// others being numbered.
func boxSeries(tmpl string, k int, out []string) []string {
	i, j := -1, -1
	for p := len(tmpl) - 1; p >= 0; p-- {
		if tmpl[p] >= '0' && tmpl[p] <= '9' {
			if j < 0 {
				j = p + 1
			}
			i = p
		} else if j >= 0 {
			break
		}
	}
	seen := map[string]bool{}
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	switch tl := trailingLetters(tmpl); {
	case tl == 1:
		last := tmpl[len(tmpl)-1]
		limit := byte('Z')
		if last >= 'a' {
			limit = 'z'
		}
		for t := 0; len(out) < k && last+byte(t) <= limit; t++ {
			add(tmpl[:len(tmpl)-1] + string(last+byte(t)))
		}
	case tl == 0 && j >= 0 && j-i <= 9:
		base, _ := strconv.Atoi(tmpl[i:j])
		width := j - i
		for t := 0; len(out) < k && t < 4*k; t++ {
			v := strconv.Itoa(base + t)
			for len(v) < width {
				v = "0" + v
			}
			add(tmpl[:i] + v + tmpl[j:])
		}
	default:
		add(tmpl)
	}
	for t := 1; len(out) < k; t++ {
		add(strconv.Itoa(t))
	}
	return out
}

func (g *beGen) row(r *rng, m *beMuni, s *beStreet, house []byte, box string, x, y int64) error {
	st := g.st
	status := "current"
	switch u := r.intn(1_000_000); {
	case u < g.rg.retiredPPM:
		status = "retired"
		st.Retired++
	case u < g.rg.retiredPPM+g.rg.proposedPPM:
		status = "proposed"
		st.Proposed++
	default:
		st.Current++
	}
	st.Rows++
	if box != "" {
		st.WithBox++
	}
	if c := house[len(house)-1]; c < '0' || c > '9' {
		st.WithSuffix++
	}
	x += int64(r.between(-2000, 2000))
	y += int64(r.between(-2000, 2000))
	b := g.line[:0]
	if g.rg.zeroPosPPM > 0 && r.ppm(g.rg.zeroPosPPM) {
		b = append(b, "0.00000,0.00000,0.00000,0.00000"...)
	} else {
		b = appendMetres5(b, x)
		b = append(b, ',')
		b = appendMetres5(b, y)
		lat, lon := lambert72ToLatLon(float64(x)/1000, float64(y)/1000)
		b = append(b, ',')
		b = strconv.AppendFloat(b, lat, 'f', 5, 64)
		b = append(b, ',')
		b = strconv.AppendFloat(b, lon, 'f', 5, 64)
	}
	b = append(b, ',')
	b = strconv.AppendUint(b, g.addrID, 10)
	g.addrID++
	b = append(b, ',')
	b = append(b, box...)
	b = append(b, ',')
	b = append(b, house...)
	b = append(b, ',')
	b = append(b, m.nis...)
	b = append(b, ',')
	b = append(b, m.de...)
	b = append(b, ',')
	b = append(b, m.fr...)
	b = append(b, ',')
	b = append(b, m.nl...)
	b = append(b, ',')
	b = append(b, s.pc.code...)
	b = append(b, ',')
	b = append(b, s.pc.nameFR...)
	b = append(b, ',')
	b = append(b, s.pc.nameNL...)
	b = append(b, ',')
	b = strconv.AppendUint(b, s.id, 10)
	b = append(b, ",,"...) // streetname_de: the sample has no German street names
	b = append(b, s.name.fr...)
	b = append(b, ',')
	b = append(b, s.name.nl...)
	b = append(b, ',')
	b = append(b, g.rg.code...)
	b = append(b, ',')
	b = append(b, status...)
	b = append(b, '\n')
	g.line = b
	_, err := g.w.Write(b)
	return err
}

// appendMetres5 writes millimetres as metres with five decimals, as BOSA's %.5f does.
func appendMetres5(b []byte, mm int64) []byte {
	mm = max(mm, 0)
	b = strconv.AppendInt(b, mm/1000, 10)
	b = append(b, '.')
	b = append3(b, int(mm%1000))
	return append(b, '0', '0')
}
