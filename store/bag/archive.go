package bag

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/klauspost/compress/flate"
)

// spillLimit is the largest compressed nested zip read into memory. archive/zip needs
// random access, which a compressed entry does not give, so such a nested zip must be
// materialised; the national VBO and NUM zips run to hundreds of megabytes and go to a
// temporary file instead, the municipal ones (a few megabytes) stay in memory. A nested zip
// stored without compression (Kadaster stores the outer level so) is read in place.
var spillLimit uint64 = 64 << 20

// archive is one zip level with what it reads from, so that a nested zip stored without
// compression can be opened in place instead of copied.
type archive struct {
	*zip.Reader
	at io.ReaderAt
}

// openZip reads a zip with the faster flate decoder of klauspost/compress: decompression is
// a fifth of a national import's CPU, and the standard decoder is about 1.4 times slower.
func openZip(at io.ReaderAt, size int64) (archive, error) {
	zr, err := zip.NewReader(at, size)
	if err != nil {
		return archive{}, err
	}
	zr.RegisterDecompressor(zip.Deflate, func(r io.Reader) io.ReadCloser { return flate.NewReader(r) })
	return archive{zr, at}, nil
}

// job is one XML document to read: an object file of a stand or a mutation file.
type job struct {
	delivery string // base name of the delivery, for errors
	name     string // base name of the XML entry
	file     *zip.File
	stand    bool
	// was reads the state before each mutation instead of after it (tests only).
	was bool
}

// delivery is one input file: a stand (LVC extract) or a daily mutation delivery.
type delivery struct {
	name     string
	mutation bool
	standDay date // StandTechnischeDatum
	from, to date // Mutatieperiode of a mutation delivery
	// gemeenten maps gemeente code to name as the Leveringsdocument gives them (a
	// municipal extract names its gemeente; a national one names none).
	gemeenten map[string]string
	gwr       *zip.File // GEM-WPL-RELATIE XML, nil if absent
	jobs      []job
	objects   map[kind]bool
	hasLevDoc bool

	closers []io.Closer
	temps   []string
}

var (
	reObjectZip = regexp.MustCompile(`^[0-9]{4}(NUM|OPR|WPL|VBO|LIG|STA|PND)[0-9]{8}\.zip$`)
	reGEMZip    = regexp.MustCompile(`^[0-9]{4}GEM[0-9]{8}\.zip$`)
	reMutZip    = regexp.MustCompile(`^[0-9]{4}MUT[0-9]{8}-[0-9]{8}\.zip$`)
	reGWRZip    = regexp.MustCompile(`^GEM-WPL-RELATIE-[0-9]{8}\.zip$`)
)

var kindByCode = map[string]kind{"NUM": kindNUM, "OPR": kindOPR, "WPL": kindWPL, "VBO": kindVBO, "LIG": kindLIG, "STA": kindSTA}

// junk reports entries that archivers add and that are no part of the delivery (the
// national sample carries macOS resource forks and Finder files).
func junk(name string) bool {
	base := path.Base(name)
	return strings.HasPrefix(name, "__MACOSX/") || strings.Contains(name, "/__MACOSX/") ||
		strings.HasPrefix(base, "._") || base == ".DS_Store" || strings.HasSuffix(name, "/")
}

// openDelivery opens one input file and lists what it holds, without reading any object
// file yet. The caller must call close.
func openDelivery(ctx context.Context, file string) (d *delivery, err error) {
	d = &delivery{name: filepath.Base(file), objects: map[kind]bool{}}
	defer func() {
		if err != nil {
			d.close()
			d = nil
		}
	}()
	f, err := os.Open(file)
	if err != nil {
		return d, err
	}
	d.closers = append(d.closers, f)
	st, err := f.Stat()
	if err != nil {
		return d, err
	}
	zr, err := openZip(f, st.Size())
	if err != nil {
		return d, err
	}
	if err := d.walk(ctx, zr, 0); err != nil {
		return d, err
	}
	if !d.hasLevDoc {
		return d, errors.New("no Leveringsdocument-BAG-Extract.xml: not a BAG 2.0 extract")
	}
	if d.mutation && len(d.jobs) == 0 {
		return d, errors.New("mutation delivery without a MUT zip")
	}
	if !d.mutation {
		for _, k := range []kind{kindNUM, kindOPR, kindWPL} {
			if !d.objects[k] {
				return d, fmt.Errorf("stand without %s files", k)
			}
		}
	}
	return d, nil
}

// walk lists the entries of one zip level. The sub-deliveries InOnderzoek, Inactief and
// NietBag, and the in-onderzoek mutations (IOMUT), are skipped: see the package doc.
func (d *delivery) walk(ctx context.Context, zr archive, depth int) error {
	if depth > 3 {
		return errors.New("zips nested deeper than a BAG delivery")
	}
	for _, f := range zr.File {
		if err := ctx.Err(); err != nil {
			return err
		}
		if junk(f.Name) {
			continue
		}
		base := path.Base(f.Name)
		switch {
		case base == "Leveringsdocument-BAG-Extract.xml":
			if err := d.readLeveringsdocument(f); err != nil {
				return fmt.Errorf("%s: %w", base, err)
			}
		case reGWRZip.MatchString(base):
			inner, err := d.nested(ctx, zr, f)
			if err != nil {
				return fmt.Errorf("%s: %w", base, err)
			}
			for _, g := range inner.File {
				if !junk(g.Name) && strings.HasSuffix(g.Name, ".xml") {
					d.gwr = g
				}
			}
		case reGEMZip.MatchString(base):
			inner, err := d.nested(ctx, zr, f)
			if err != nil {
				return fmt.Errorf("%s: %w", base, err)
			}
			if err := d.walk(ctx, inner, depth+1); err != nil {
				return fmt.Errorf("%s: %w", base, err)
			}
		case reObjectZip.MatchString(base):
			k, ok := kindByCode[base[4:7]]
			if !ok {
				continue // PND: buildings carry no address
			}
			if err := d.addJobs(ctx, zr, f, true); err != nil {
				return fmt.Errorf("%s: %w", base, err)
			}
			d.objects[k] = true
		case reMutZip.MatchString(base):
			if err := d.addJobs(ctx, zr, f, false); err != nil {
				return fmt.Errorf("%s: %w", base, err)
			}
		}
	}
	return nil
}

// addJobs lists the XML files of one object or mutation zip in name order, which is the
// order Kadaster numbers them (-000001, -000002, …) and the order mutations apply in.
func (d *delivery) addJobs(ctx context.Context, parent archive, f *zip.File, stand bool) error {
	inner, err := d.nested(ctx, parent, f)
	if err != nil {
		return err
	}
	var files []*zip.File
	for _, g := range inner.File {
		if !junk(g.Name) && strings.HasSuffix(strings.ToLower(g.Name), ".xml") {
			files = append(files, g)
		}
	}
	slices.SortFunc(files, func(a, b *zip.File) int { return strings.Compare(a.Name, b.Name) })
	for _, g := range files {
		d.jobs = append(d.jobs, job{delivery: d.name, name: path.Base(g.Name), file: g, stand: stand})
	}
	return nil
}

// nested opens a zip stored inside a zip: in place when it is stored without compression,
// else in memory when small, else through a temporary file removed by close.
func (d *delivery) nested(ctx context.Context, parent archive, f *zip.File) (archive, error) {
	if f.Method == zip.Store {
		off, err := f.DataOffset()
		if err != nil {
			return archive{}, err
		}
		size := int64(f.CompressedSize64)
		return openZip(io.NewSectionReader(parent.at, off, size), size)
	}
	rc, err := f.Open()
	if err != nil {
		return archive{}, err
	}
	defer rc.Close()
	if f.UncompressedSize64 <= spillLimit {
		// The header gives the size, so the buffer is allocated once; one more byte
		// proves the entry is not longer than the header says.
		b := make([]byte, f.UncompressedSize64)
		if _, err := io.ReadFull(rc, b); err != nil {
			return archive{}, err
		}
		if n, _ := rc.Read(make([]byte, 1)); n != 0 {
			return archive{}, errors.New("nested zip larger than its header says")
		}
		return openZip(bytes.NewReader(b), int64(len(b)))
	}
	tmp, err := os.CreateTemp("", "adreswijzer-bag-*.zip")
	if err != nil {
		return archive{}, err
	}
	d.closers = append(d.closers, tmp)
	d.temps = append(d.temps, tmp.Name())
	n, err := io.Copy(tmp, ctxReader{ctx, rc})
	if err != nil {
		return archive{}, fmt.Errorf("spill to temporary file: %w", err)
	}
	return openZip(tmp, n)
}

// close releases the input file and removes temporary files.
func (d *delivery) close() error {
	var errs []error
	for i := len(d.closers) - 1; i >= 0; i-- {
		if err := d.closers[i].Close(); err != nil && !errors.Is(err, os.ErrClosed) {
			errs = append(errs, err)
		}
	}
	for _, t := range d.temps {
		if err := os.Remove(t); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	d.closers, d.temps = nil, nil
	return errors.Join(errs...)
}

// ctxReader stops a long copy when the import is cancelled.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
