package gen

import (
	"archive/zip"
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"time"
)

// DefaultDate is the StandTechnischeDatum of generated extracts when none is given. A fixed
// default keeps two runs with the same seed identical.
var DefaultDate = time.Date(2025, 9, 15, 0, 0, 0, 0, time.UTC)

// maxStandRecords is how many sl:stand records Kadaster puts in one XML file.
const maxStandRecords = 10_000

// NLOptions describe a synthetic national BAG extract.
type NLOptions struct {
	// Addresses is the number of Nummeraanduidingen (identificaties; history adds
	// voorkomens on top), at most 30 million: three times the national register is as
	// far as the four-digit postcode areas stretch.
	Addresses int64
	Seed      uint64
	// Date is the StandTechnischeDatum; zero means DefaultDate. From 2013 on, so that the
	// register's history since 2009 fits before it.
	Date time.Time
	// DataDir holds the register samples (nl/ and be/); empty means DataDir().
	DataDir string
	// Workers compress in parallel; zero means GOMAXPROCS.
	Workers int
	// OnFile, when set, is told about each object zip once it is written.
	OnFile func(FileInfo)
}

// FileInfo describes one file written: an object zip inside the extract, or the extract or
// CSV itself.
type FileInfo struct {
	Name         string        `json:"name"`
	Bytes        int64         `json:"bytes"`        // as stored
	Uncompressed int64         `json:"uncompressed"` // XML or CSV bytes
	Records      int64         `json:"records"`      // sl:stand records or CSV rows
	Duration     time.Duration `json:"durationNs"`
}

// NLStats are what the generator wrote and what an importer must make of it. An importer
// that selects the current voorkomen and applies the BAG status rules keeps InUse+Planned
// addresses and skips the others for the reasons counted here.
type NLStats struct {
	Path               string `json:"path"`
	Bytes              int64  `json:"bytes"`
	Woonplaatsen       int    `json:"woonplaatsen"`
	Gemeenten          int    `json:"gemeenten"`
	OpenbareRuimtes    int    `json:"openbareRuimtes"`
	Postcodes          int64  `json:"postcodes"`          // distinct six-position postcodes in current addresses
	Nummeraanduidingen int64  `json:"nummeraanduidingen"` // identificaties
	NumVoorkomens      int64  `json:"numVoorkomens"`      // Nummeraanduiding sl:stand records
	Superseded         int64  `json:"superseded"`         // ended voorkomens
	InUse              int64  `json:"inUse"`
	Planned            int64  `json:"planned"`         // VBO "Verblijfsobject gevormd" (or carried by one as nevenadres)
	Withdrawn          int64  `json:"withdrawn"`       // "Naamgeving ingetrokken"
	ObjectWithdrawn    int64  `json:"objectWithdrawn"` // issued, but the object was never realised or registered in error
	NoPostcode         int64  `json:"noPostcode"`
	WithHuisletter     int64  `json:"withHuisletter"`
	WithToevoeging     int64  `json:"withToevoeging"`
	WithHistory        int64  `json:"withHistory"` // more than one voorkomen, not counting withdrawals
	Nevenadressen      int64  `json:"nevenadressen"`
	Verblijfsobjecten  int64  `json:"verblijfsobjecten"`
	VBOVoorkomens      int64  `json:"vboVoorkomens"`
	Ligplaatsen        int64  `json:"ligplaatsen"`
	Standplaatsen      int64  `json:"standplaatsen"`
	Panden             int64  `json:"panden"`
	// Files are the object zips inside the extract, in archive order.
	Files []FileInfo `json:"files"`
}

// Current is the number of addresses an importer should keep.
func (s NLStats) Current() int64 { return s.InUse + s.Planned }

// FileNameNL is the name of the extract: Kadaster's BAGNLDL-ddmmyyyy, marked as synthetic.
func FileNameNL(date time.Time) string {
	return "BAGNLDL-" + dayOf(date).ddmmyyyy() + "-SYNTHETIC.zip"
}

// WriteNL writes a synthetic national LV BAG 2.0 extract into dir and returns what it holds.
// The archive is written under a temporary name and renamed when complete.
func WriteNL(ctx context.Context, dir string, opts NLOptions) (NLStats, error) {
	var st NLStats
	date := opts.Date
	if date.IsZero() {
		date = DefaultDate
	}
	stand := dayOf(date)
	if stand < civilDay(2013, 1, 1) || stand > civilDay(2200, 1, 1) {
		return st, errors.New("NL: the stand date must lie between 2013 and 2200")
	}
	data := opts.DataDir
	if data == "" {
		data = DataDir()
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	refs, err := loadNL(data)
	if err != nil {
		return st, err
	}
	p, err := newNLPlan(refs, opts.Addresses, opts.Seed, stand)
	if err != nil {
		return st, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return st, err
	}
	st.Path = filepath.Join(dir, FileNameNL(date))
	size, err := writeFileAtomically(st.Path, func(bw *bufio.Writer) error {
		x := &nlWriter{p: p, outer: zip.NewWriter(bw), workers: workers, mod: date.Add(6 * time.Hour), onFile: opts.OnFile}
		if err := x.outer.SetComment(zipComment(opts.Seed)); err != nil {
			return err
		}
		if err := x.write(ctx, &st); err != nil {
			return fmt.Errorf("NL: %w", err)
		}
		return x.outer.Close()
	})
	if err != nil {
		return st, err
	}
	st.Bytes = size
	return st, nil
}

func zipComment(seed uint64) string {
	return "SYNTHETIC DATA, NOT A KADASTER DELIVERY: Adreswijzer benchmark generator, seed " + strconv.FormatUint(seed, 10)
}

type nlWriter struct {
	p       *nlPlan
	outer   *zip.Writer
	workers int
	mod     time.Time
	onFile  func(FileInfo)
	files   []FileInfo
}

func (x *nlWriter) write(ctx context.Context, st *NLStats) error {
	p := x.p
	dd := p.stand.ddmmyyyy()
	st.Woonplaatsen, st.Gemeenten, st.OpenbareRuimtes = len(p.wpl), len(p.gemeente), len(p.streets)

	fh := &zip.FileHeader{Name: "Leveringsdocument-BAG-Extract.xml", Method: zip.Deflate, Modified: x.mod}
	w, err := x.outer.CreateHeader(fh)
	if err != nil {
		return err
	}
	if _, err := w.Write(leveringsdocument(p.seed, p.stand, p.total)); err != nil {
		return err
	}
	if err := x.smallZip("GEM-WPL-RELATIE-"+dd+".zip", "GEM-WPL-RELATIE-"+dd+"-000001.xml", gemWplRelatie(p)); err != nil {
		return err
	}

	// Woonplaatsen and openbare ruimtes come from the plan.
	if _, err := x.objectZip(ctx, "WPL", func(emit emitFunc) error {
		for k := range p.wpl {
			w := &p.wpl[k]
			if err := emit(1, func(b []byte, tl []vk) ([]byte, []vk) { return appendWPL(b, p, w, tl) }); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return err
	}
	if _, err := x.objectZip(ctx, "OPR", func(emit emitFunc) error {
		for i := range p.streets {
			s := &p.streets[i]
			if err := emit(s.voorkomens(), func(b []byte, tl []vk) ([]byte, []vk) { return appendOPR(b, p, s, tl) }); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return err
	}

	// Addresses and their objects come from walks over the plan, one per zip.
	ws, err := x.addrZip(ctx, "NUM", func(a *nlAddr) int { return int(a.numVk) }, appendNUM)
	if err != nil {
		return err
	}
	var places [2][]nlAddr
	if _, err := x.addrZip(ctx, "VBO", func(a *nlAddr) int {
		if a.isNeven {
			return 0
		}
		if a.kind != objVBO {
			places[a.kind-objLIG] = append(places[a.kind-objLIG], *a)
			return 0
		}
		return int(a.objVk)
	}, appendVBO); err != nil {
		return err
	}
	for i, code := range []string{"LIG", "STA"} {
		list := places[i]
		if _, err := x.objectZip(ctx, code, func(emit emitFunc) error {
			for j := range list {
				a := &list[j]
				if err := emit(1, func(b []byte, tl []vk) ([]byte, []vk) { return appendPlaats(b, p.seed, p.stand, a, tl) }); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			return err
		}
	}
	if _, err := x.addrZip(ctx, "PND", func(a *nlAddr) int {
		if a.pandStart {
			return 1
		}
		return 0
	}, appendPND); err != nil {
		return err
	}

	st.Postcodes = ws.postcodes
	st.Nummeraanduidingen, st.NumVoorkomens, st.Superseded = ws.nums, ws.voorkomens, ws.superseded
	st.InUse, st.Planned, st.Withdrawn, st.ObjectWithdrawn, st.NoPostcode = ws.inUse, ws.planned, ws.withdrawn, ws.gone, ws.noPostcode
	st.WithHuisletter, st.WithToevoeging, st.WithHistory, st.Nevenadressen = ws.withLetter, ws.withAddition, ws.withHistory, ws.nevens
	st.Verblijfsobjecten, st.VBOVoorkomens, st.Ligplaatsen, st.Standplaatsen, st.Panden = ws.vbo, ws.vboVk, ws.lig, ws.sta, ws.pand
	st.Files = x.files
	return nil
}

// emitFunc adds one object's records (n sl:stand elements written by render) to the current
// XML file, starting a new file when it would pass 10,000 records.
type emitFunc func(n int, render renderFunc) error

// renderFunc appends records to b; tl is scratch space for voorkomens, owned by the caller.
type renderFunc func(b []byte, tl []vk) ([]byte, []vk)

// objectZip writes 9999<code>ddmmyyyy.zip from objects the plan lists: produce calls emit
// once per object, and the workers render each file's objects in parallel.
func (x *nlWriter) objectZip(ctx context.Context, code string, produce func(emit emitFunc) error) (FileInfo, error) {
	return x.innerZip(ctx, code, func(submit submitFunc) error {
		var (
			renders []renderFunc
			count   int
		)
		flush := func() error {
			if count == 0 {
				return nil
			}
			rs, n := renders, count
			renders, count = nil, 0
			return submit(n, func(s *sink) error {
				var tl []vk
				for _, render := range rs {
					s.buf, tl = render(s.buf, tl)
					if err := s.spill(); err != nil {
						return err
					}
				}
				return nil
			})
		}
		err := produce(func(n int, render renderFunc) error {
			if count+n > maxStandRecords {
				if err := flush(); err != nil {
					return err
				}
			}
			renders = append(renders, render)
			count += n
			return nil
		})
		if err != nil {
			return err
		}
		return flush()
	})
}

// addrZip writes 9999<code>ddmmyyyy.zip from a walk: records tells how many sl:stand
// elements an address contributes, render writes them. Addresses are copied into batches
// of at most 10,000 records, which the workers render and compress in parallel.
func (x *nlWriter) addrZip(ctx context.Context, code string, records func(a *nlAddr) int,
	render func(b []byte, seed uint64, stand day, a *nlAddr, tl []vk) ([]byte, []vk)) (walkStats, error) {
	var ws walkStats
	p := x.p
	_, err := x.innerZip(ctx, code, func(submit submitFunc) error {
		var (
			batch = getBatch()
			count int
		)
		flush := func() error {
			if len(batch) == 0 {
				return nil
			}
			b := batch
			n := count
			batch, count = getBatch(), 0
			return submit(n, func(s *sink) error {
				defer putBatch(b)
				var tl []vk
				for i := range b {
					s.buf, tl = render(s.buf, p.seed, p.stand, &b[i], tl)
					if err := s.spill(); err != nil {
						return err
					}
				}
				return nil
			})
		}
		var err error
		ws, err = p.walk(func(a *nlAddr) error {
			n := records(a)
			if n == 0 {
				return nil
			}
			if count+n > maxStandRecords {
				if err := flush(); err != nil {
					return err
				}
			}
			batch = append(batch, *a)
			count += n
			return nil
		})
		if err != nil {
			return err
		}
		return flush()
	})
	return ws, err
}

type submitFunc func(records int, render func(*sink) error) error

// batchPool recycles address batches: a national run fills about three thousand of them.
var batchPool = sync.Pool{New: func() any { return new([]nlAddr) }}

func getBatch() []nlAddr { return (*batchPool.Get().(*[]nlAddr))[:0] }

func putBatch(b []nlAddr) {
	b = b[:0]
	batchPool.Put(&b)
}

// innerZip writes one object zip, stored (not compressed again) in the extract, holding
// 9999<code>ddmmyyyy-000001.xml and on, each with the file header and footer around the
// records.
func (x *nlWriter) innerZip(ctx context.Context, code string, produce func(submit submitFunc) error) (FileInfo, error) {
	start := time.Now()
	p := x.p
	dd := p.stand.ddmmyyyy()
	info := FileInfo{Name: "9999" + code + dd + ".zip"}
	w, err := x.outer.CreateHeader(&zip.FileHeader{Name: info.Name, Method: zip.Store, Modified: x.mod})
	if err != nil {
		return info, err
	}
	cw := &countWriter{w: w}
	inner := zip.NewWriter(cw)
	if err := inner.SetComment(zipComment(p.seed)); err != nil {
		return info, err
	}
	header := standHeader(p.seed, p.stand, code)
	files := 0
	err = compressEntries(ctx, x.workers, func(submit func(string, func(*sink) error) error) error {
		return produce(func(records int, render func(*sink) error) error {
			files++
			info.Records += int64(records)
			name := fmt.Sprintf("9999%s%s-%06d.xml", code, dd, files)
			return submit(name, func(s *sink) error {
				s.buf = append(s.buf, header...)
				if err := render(s); err != nil {
					return err
				}
				s.buf = append(s.buf, standClose...)
				return nil
			})
		})
	}, func(name string, r *entryResult) error {
		info.Uncompressed += r.size
		return storeRaw(inner, name, r, x.mod)
	})
	if err != nil {
		return info, fmt.Errorf("%s: %w", info.Name, err)
	}
	if files == 0 {
		// An object type without objects still gets its zip with one empty file, as the
		// register delivers empty types (the Inactief and NietBag zips).
		if err := x.emptyEntry(inner, code, header); err != nil {
			return info, err
		}
	}
	if err := inner.Close(); err != nil {
		return info, err
	}
	info.Bytes = cw.n
	info.Duration = time.Since(start)
	x.files = append(x.files, info)
	if x.onFile != nil {
		x.onFile(info)
	}
	return info, nil
}

func (x *nlWriter) emptyEntry(inner *zip.Writer, code string, header []byte) error {
	w, err := inner.CreateHeader(&zip.FileHeader{Name: fmt.Sprintf("9999%s%s-%06d.xml", code, x.p.stand.ddmmyyyy(), 1), Method: zip.Deflate, Modified: x.mod})
	if err != nil {
		return err
	}
	if _, err := w.Write(header); err != nil {
		return err
	}
	_, err = io.WriteString(w, standClose)
	return err
}

// smallZip stores a zip holding one XML document, for GEM-WPL-RELATIE.
func (x *nlWriter) smallZip(zipName, xmlName string, body []byte) error {
	w, err := x.outer.CreateHeader(&zip.FileHeader{Name: zipName, Method: zip.Store, Modified: x.mod})
	if err != nil {
		return err
	}
	inner := zip.NewWriter(w)
	iw, err := inner.CreateHeader(&zip.FileHeader{Name: xmlName, Method: zip.Deflate, Modified: x.mod})
	if err != nil {
		return err
	}
	if _, err := iw.Write(body); err != nil {
		return err
	}
	return inner.Close()
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
