package gen

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// DefaultDataDir is where the register samples sit relative to the repository root, as
// for the tests (DEVELOPERS.md); ADRESWIJZER_DATA overrides it.
const DefaultDataDir = "../shared/data"

// DataDir gives the directory of the register samples: ADRESWIJZER_DATA, else the default.
func DataDir() string {
	if d := os.Getenv("ADRESWIJZER_DATA"); d != "" {
		return d
	}
	return DefaultDataDir
}

// counted is a real name with how often the register holds it.
type counted struct {
	name  string
	count int64
}

// nlRefs are the real Dutch name lists the synthetic extract draws from.
type nlRefs struct {
	streets    []counted // openbare ruimte names, count = public spaces with that name
	woonplaats []string  // one entry per woonplaats: names repeat as often as they do nationally
	gemeenten  []gemeente
	dissolved  []gemeente // gemeenten that have ended, for earlier woonplaats relations
}

type gemeente struct {
	code string // 4 digits
	end  string // einddatum, empty while current
}

func loadNL(dir string) (*nlRefs, error) {
	r := &nlRefs{}
	err := eachLine(filepath.Join(dir, "nl", "bagadres.csv.openbareruimte-frequency.tsv"), func(line string) error {
		n, name, ok := strings.Cut(line, "\t")
		if !ok {
			return fmt.Errorf("no tab")
		}
		c, err := strconv.ParseInt(strings.TrimSpace(n), 10, 64)
		if err != nil || c <= 0 {
			return fmt.Errorf("count %q", n)
		}
		name = strings.TrimSpace(name)
		if !validName(name, 80) {
			return nil // a name the register could not carry is left out, not repaired
		}
		r.streets = append(r.streets, counted{name, c})
		return nil
	})
	if err != nil {
		return nil, err
	}
	dup := map[string]int{}
	err = eachLine(filepath.Join(dir, "nl", "bagadres.csv.woonplaats-frequency.tsv"), func(line string) error {
		n, name, ok := strings.Cut(line, "\t")
		if !ok {
			return fmt.Errorf("no tab")
		}
		c, err := strconv.Atoi(strings.TrimSpace(n))
		if err != nil || c <= 0 {
			return fmt.Errorf("count %q", n)
		}
		dup[strings.TrimSpace(name)] = c
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = eachLine(filepath.Join(dir, "nl", "bagadres.csv.woonplaats-sorted.txt"), func(line string) error {
		name := strings.TrimSpace(line)
		if !validName(name, 80) {
			return nil
		}
		for range max(1, dup[name]) {
			r.woonplaats = append(r.woonplaats, name)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	first := true
	err = eachLine(filepath.Join(dir, "nl", "gemeentelijke-indeling.csv"), func(line string) error {
		if first {
			first = false
			return nil
		}
		f := strings.Split(line, ";")
		if len(f) != 6 || len(f[2]) != 4 {
			return fmt.Errorf("want 6 fields with a 4-digit gemeentecode")
		}
		g := gemeente{code: f[2], end: f[5]}
		if g.end == "" {
			r.gemeenten = append(r.gemeenten, g)
		} else {
			r.dissolved = append(r.dissolved, g)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(r.streets) < 1000 || len(r.woonplaats) < 100 || len(r.gemeenten) < 10 || len(r.dissolved) == 0 {
		return nil, fmt.Errorf("NL name lists in %s are too short: %d street names, %d woonplaatsen, %d gemeenten",
			dir, len(r.streets), len(r.woonplaats), len(r.gemeenten))
	}
	return r, nil
}

// validName accepts a name the official formats can carry as it is: valid UTF-8, no control
// characters, not padded, and for the Belgian CSV no comma (checked there).
func validName(s string, maxRunes int) bool {
	if s == "" || !utf8.ValidString(s) || utf8.RuneCountInString(s) > maxRunes || strings.TrimSpace(s) != s {
		return false
	}
	for _, c := range s {
		if c < 0x20 || c == 0x7f {
			return false
		}
	}
	return true
}

func eachLine(path string, fn func(string) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("reference data: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		if err := fn(line); err != nil {
			return fmt.Errorf("reference data %s line %d: %w", filepath.Base(path), n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("reference data %s: %w", filepath.Base(path), err)
	}
	return nil
}

// beRefs are the real Belgian lists: BeST municipalities with their postcodes (and for
// Wallonia their parts), postal names, street names, and house and box number forms with
// their national frequencies.
type beRefs struct {
	regions [3]beRegionRefs
}

type beRegionRefs struct {
	munis   []beMuni
	streets []beStreetName
	// suffixes are the non-numeric tails of real house numbers ("A", "BIS", "/1") with
	// counts; suffixPPM is the share of house numbers that have one.
	suffixes  []counted
	suffixPPM int
	// boxes are real box numbers with counts, the templates of each building's series.
	boxes []counted
}

type beMuni struct {
	nis        string
	nl, fr, de string
	postcodes  []bePostcode
	weight     int64 // number of postcodes or parts: a size proxy
}

// bePostcode is one postal info as an address refers to it; in Wallonia one part of a
// municipality with its postcode, since BOSA writes the part's name as postname_fr there.
type bePostcode struct {
	code           string
	nameNL, nameFR string
}

type beStreetName struct{ nl, fr string }

const (
	regBRU = iota
	regVLG
	regWAL
)

func loadBE(dir string) (*beRefs, error) {
	be := filepath.Join(dir, "be")
	regionOf := map[byte]int{'B': regBRU, 'V': regVLG, 'F': regVLG, 'W': regWAL}

	postNames := map[string][2]string{} // region letter + postcode -> nl, fr
	err := eachLine(filepath.Join(be, "postals.csv"), func(line string) error {
		f := strings.Split(line, ";")
		if len(f) != 5 {
			return fmt.Errorf("want 5 fields")
		}
		postNames[f[0][:1]+f[1]] = [2]string{csvSafe(f[2]), csvSafe(f[3])}
		return nil
	})
	if err != nil {
		return nil, err
	}

	var mtoP, mtoPM, pmToP map[string][]string
	for _, j := range []struct {
		file string
		dst  *map[string][]string
	}{{"DIC_MtoP.txt", &mtoP}, {"DIC_MtoPM.txt", &mtoPM}, {"DIC_PMtoP.txt", &pmToP}} {
		b, err := os.ReadFile(filepath.Join(be, j.file))
		if err != nil {
			return nil, fmt.Errorf("reference data: %w", err)
		}
		if err := json.Unmarshal(b, j.dst); err != nil {
			return nil, fmt.Errorf("reference data %s: %w", j.file, err)
		}
	}
	// The dictionary keys read "<region>-<nl>,<fr>,<de>(<code>)", where the names may hold
	// commas themselves; only the region and the code are taken from them.
	byCode := func(m map[string][]string) map[string][]string {
		out := map[string][]string{}
		for k, v := range m {
			if r, c, ok := dicKey(k); ok {
				out[r+c] = v
			}
		}
		return out
	}
	muniPostcodes, muniParts, partPostcodes := byCode(mtoP), byCode(mtoPM), byCode(pmToP)

	r := &beRefs{}
	err = eachLine(filepath.Join(be, "municipalities.csv"), func(line string) error {
		f := strings.Split(line, ";")
		if len(f) != 5 {
			return fmt.Errorf("want 5 fields")
		}
		reg, ok := regionOf[f[0][0]]
		if !ok {
			return fmt.Errorf("unknown region %q", f[0][:1])
		}
		m := beMuni{nis: f[1], nl: csvSafe(f[2]), fr: csvSafe(f[3]), de: csvSafe(f[4])}
		letter := map[int]string{regBRU: "B", regVLG: "F", regWAL: "W"}[reg]
		if reg == regWAL {
			for _, part := range muniParts[letter+m.nis] {
				_, pmCode, ok := dicKey(part)
				name := dicName(part, 1)
				if !ok || name == "" {
					continue
				}
				for _, pc := range partPostcodes[letter+pmCode] {
					if _, code, ok := dicKey(pc); ok && len(code) == 4 {
						m.postcodes = append(m.postcodes, bePostcode{code: code, nameFR: csvSafe(name)})
						break
					}
				}
			}
		} else {
			for _, pc := range muniPostcodes[letter+m.nis] {
				if _, code, ok := dicKey(pc); ok && len(code) == 4 {
					n := postNames[map[int]string{regBRU: "B", regVLG: "V"}[reg]+code]
					m.postcodes = append(m.postcodes, bePostcode{code: code, nameNL: n[0], nameFR: n[1]})
				}
			}
		}
		if len(m.postcodes) == 0 || (m.nl == "" && m.fr == "") {
			return nil // a municipality merged away before the dictionaries were made
		}
		sort.Slice(m.postcodes, func(i, j int) bool {
			if m.postcodes[i].code != m.postcodes[j].code {
				return m.postcodes[i].code < m.postcodes[j].code
			}
			return m.postcodes[i].nameFR < m.postcodes[j].nameFR
		})
		m.weight = int64(len(m.postcodes))
		r.regions[reg].munis = append(r.regions[reg].munis, m)
		return nil
	})
	if err != nil {
		return nil, err
	}

	// Street names: Brussels streets carry Dutch and French; Flemish streets take the Dutch
	// names and Walloon streets the French ones of the sample, which holds Brussels (both
	// languages), Halle (Dutch) and Malmedy (French) streets.
	seen := [3]map[beStreetName]bool{{}, {}, {}}
	add := func(reg int, s beStreetName) {
		if !seen[reg][s] {
			seen[reg][s] = true
			r.regions[reg].streets = append(r.regions[reg].streets, s)
		}
	}
	err = eachLine(filepath.Join(be, "streets_part.csv"), func(line string) error {
		f := strings.Split(line, ";")
		if len(f) != 12 {
			return fmt.Errorf("want 12 fields")
		}
		if f[7] != "current" {
			return nil
		}
		nl, fr := csvSafe(f[2]), csvSafe(f[3])
		if f[0][0] == 'B' && nl != "" && fr != "" {
			add(regBRU, beStreetName{nl: nl, fr: fr})
		}
		if nl != "" {
			add(regVLG, beStreetName{nl: nl})
		}
		if fr != "" {
			add(regWAL, beStreetName{fr: fr})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := r.loadNumbers(filepath.Join(be, "OUT_hsBx.txt")); err != nil {
		return nil, err
	}
	for i, reg := range r.regions {
		if len(reg.munis) == 0 || len(reg.streets) < 100 || len(reg.boxes) == 0 {
			return nil, fmt.Errorf("BE reference lists in %s are too short for region %d: %d municipalities, %d street names, %d box forms",
				be, i, len(reg.munis), len(reg.streets), len(reg.boxes))
		}
	}
	return r, nil
}

// dicKey splits a BOSA dictionary key into its region letter and the code in the final
// parentheses.
func dicKey(k string) (region, code string, ok bool) {
	if len(k) < 4 || k[1] != '-' || !strings.HasSuffix(k, ")") {
		return "", "", false
	}
	i := strings.LastIndexByte(k, '(')
	if i < 0 {
		return "", "", false
	}
	return k[:1], k[i+1 : len(k)-1], true
}

// dicName returns the i-th comma-separated name of a dictionary key whose names hold no
// comma (the parts of Walloon municipalities: "W-,Nodebais,(1092)").
func dicName(k string, i int) string {
	body := k[2:strings.LastIndexByte(k, '(')]
	f := strings.Split(body, ",")
	if len(f) != 3 {
		return ""
	}
	return strings.TrimSpace(f[i])
}

// csvSafe makes a real name fit the official CSV, which has no quoting: BOSA's Brussels postal
// names hold commas ("Schaarbeek + Brussel (Van Praet, Teichmann Brug)"), which would break
// the row, so the comma is dropped.
func csvSafe(s string) string {
	s = strings.TrimSpace(s)
	if !strings.Contains(s, ",") {
		return s
	}
	return strings.Join(strings.Fields(strings.ReplaceAll(s, ",", " ")), " ")
}

// loadNumbers reads BOSA's report of every distinct house and box number with its count
// per region (sections "Hs=B", "Bx=F", ...). Values with a comma, padding, or bytes outside
// ASCII are left out: the CSV cannot carry the first, the importer would trim the second,
// and the report's encoding of the third is unknown.
func (r *beRefs) loadNumbers(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("reference data: %w", err)
	}
	defer f.Close()
	regionOf := map[string]int{"B": regBRU, "F": regVLG, "W": regWAL}
	sc := bufio.NewScanner(f)
	sc.Split(scanAnyLines)
	section, reg := "", -1
	var houseTotal, houseBare [3]int64
	suffix := [3]map[string]int64{{}, {}, {}}
	for sc.Scan() {
		line := sc.Text()
		if k, rest, ok := strings.Cut(line, "="); ok && (k == "Hs" || k == "Bx") && strings.HasSuffix(rest, "=") {
			section = k
			reg = -1
			if i, ok := regionOf[strings.TrimRight(rest, "=")]; ok {
				reg = i
			}
			continue
		}
		if reg < 0 || !strings.HasPrefix(line, "('") || !strings.HasSuffix(line, ")") {
			continue
		}
		i := strings.LastIndex(line, "', ")
		if i < 2 {
			continue
		}
		v := line[2:i]
		n, err := strconv.ParseInt(strings.TrimSuffix(line[i+3:], ")"), 10, 64)
		if err != nil || n <= 0 || strings.ContainsAny(v, `,\`) || strings.TrimSpace(v) != v || !isASCIIPrintable(v) {
			continue
		}
		switch section {
		case "Hs":
			d := 0
			for d < len(v) && v[d] >= '0' && v[d] <= '9' {
				d++
			}
			if d == 0 || d > 6 || strings.TrimLeft(v[:d], "0") == "" {
				continue // the importer refuses these; the generator writes only usable numbers
			}
			houseTotal[reg] += n
			if d == len(v) {
				houseBare[reg] += n
			} else {
				suffix[reg][v[d:]] += n
			}
		case "Bx":
			if v != "" {
				r.regions[reg].boxes = append(r.regions[reg].boxes, counted{v, n})
			}
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("reference data %s: %w", filepath.Base(path), err)
	}
	for i := range r.regions {
		rr := &r.regions[i]
		for s, n := range suffix[i] {
			rr.suffixes = append(rr.suffixes, counted{s, n})
		}
		sortCounted(rr.suffixes)
		sortCounted(rr.boxes)
		if houseTotal[i] > 0 {
			rr.suffixPPM = int((houseTotal[i] - houseBare[i]) * 1_000_000 / houseTotal[i])
		}
	}
	// The 2019 report holds almost no Brussels box numbers (UrbIS delivered them apart
	// then); Brussels buildings take their box forms from the national list instead.
	if len(r.regions[regBRU].boxes) < 20 {
		all := map[string]int64{}
		for i := range r.regions {
			for _, b := range r.regions[i].boxes {
				all[b.name] += b.count
			}
		}
		r.regions[regBRU].boxes = r.regions[regBRU].boxes[:0]
		for s, n := range all {
			r.regions[regBRU].boxes = append(r.regions[regBRU].boxes, counted{s, n})
		}
		sortCounted(r.regions[regBRU].boxes)
	}
	return nil
}

func sortCounted(c []counted) {
	sort.Slice(c, func(i, j int) bool {
		if c[i].count != c[j].count {
			return c[i].count > c[j].count
		}
		return c[i].name < c[j].name
	})
}

func isASCIIPrintable(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// scanAnyLines splits on CR, LF or CRLF: the report mixes Windows and old Mac line ends.
func scanAnyLines(data []byte, atEOF bool) (advance int, token []byte, err error) {
	for i, c := range data {
		if c == '\n' {
			return i + 1, data[:i], nil
		}
		if c == '\r' {
			if i+1 < len(data) {
				if data[i+1] == '\n' {
					return i + 2, data[:i], nil
				}
				return i + 1, data[:i], nil
			}
			if atEOF {
				return i + 1, data[:i], nil
			}
			return 0, nil, nil // need one more byte to tell CR from CRLF
		}
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}
