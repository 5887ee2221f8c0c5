package gen

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"sync"
	"time"

	"github.com/klauspost/compress/flate"
)

// compressionLevel trades size for speed: a national extract is about 40 GB of XML, so
// deflating it is most of the run. klauspost's deflate (already in the build through Caddy)
// at its fastest level compresses this XML 1.7 to 2.3 times faster than compress/flate at
// BestSpeed (375 against 223 MB/s per core on NUM files, 352 against 153 on PND) and still
// about sixteenfold; any zip reader inflates it.
const compressionLevel = flate.BestSpeed

// sink receives one XML file as it is rendered, compressing it in slices so that no file is
// ever whole in memory uncompressed.
type sink struct {
	buf  []byte
	fw   *flate.Writer
	out  *bytes.Buffer
	crc  uint32
	size int64
}

const sinkFlush = 256 << 10

// spill compresses what has been rendered so far when it is large enough.
func (s *sink) spill() error {
	if len(s.buf) < sinkFlush {
		return nil
	}
	return s.flush()
}

func (s *sink) flush() error {
	s.crc = crc32.Update(s.crc, crc32.IEEETable, s.buf)
	s.size += int64(len(s.buf))
	_, err := s.fw.Write(s.buf)
	s.buf = s.buf[:0]
	return err
}

// entry is one compressed XML file waiting to be stored in its zip, in order.
type entry struct {
	name   string
	render func(s *sink) error
	done   chan entryResult
}

type entryResult struct {
	data *bytes.Buffer
	crc  uint32
	size int64
	err  error
}

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// compressEntries renders and compresses entries on all workers and hands them to write in
// the order produce submitted them, so the archive is the same whatever the scheduling.
// produce runs in its own goroutine; submit blocks while the workers are a few entries
// behind, which bounds memory.
func compressEntries(ctx context.Context, workers int, produce func(submit func(name string, render func(*sink) error) error) error,
	write func(name string, r *entryResult) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan *entry)
	order := make(chan *entry, 2*workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := &sink{buf: make([]byte, 0, sinkFlush+64<<10)}
			s.fw, _ = flate.NewWriter(io.Discard, compressionLevel)
			for e := range jobs {
				e.done <- s.run(e)
			}
		}()
	}
	prodErr := make(chan error, 1)
	go func() {
		defer close(order)
		defer close(jobs)
		prodErr <- produce(func(name string, render func(*sink) error) error {
			e := &entry{name: name, render: render, done: make(chan entryResult, 1)}
			select {
			case order <- e:
			case <-ctx.Done():
				return ctx.Err()
			}
			select {
			case jobs <- e:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
	}()
	var err error
	for e := range order {
		if err != nil {
			continue // drain after a failure so the producer can finish
		}
		var r entryResult
		select {
		case r = <-e.done:
		case <-ctx.Done():
			err = ctx.Err()
			continue
		}
		if r.err == nil {
			r.err = write(e.name, &r)
		}
		if r.data != nil {
			r.data.Reset()
			bufPool.Put(r.data)
		}
		if r.err != nil {
			err = r.err
			cancel()
		}
	}
	wg.Wait()
	if perr := <-prodErr; err == nil {
		err = perr
	}
	return err
}

func (s *sink) run(e *entry) entryResult {
	out := bufPool.Get().(*bytes.Buffer)
	s.buf, s.crc, s.size, s.out = s.buf[:0], 0, 0, out
	s.fw.Reset(out)
	err := e.render(s)
	if err == nil {
		err = s.flush()
	}
	if err == nil {
		err = s.fw.Close()
	}
	return entryResult{data: out, crc: s.crc, size: s.size, err: err}
}

// storeRaw adds a compressed entry to a zip with its sizes and checksum in the local header,
// as Kadaster's archives have them, and a fixed time so that equal seeds give equal bytes.
func storeRaw(zw *zip.Writer, name string, r *entryResult, mod time.Time) error {
	fh := &zip.FileHeader{
		Name:               name,
		Method:             zip.Deflate,
		CRC32:              r.crc,
		CompressedSize64:   uint64(r.data.Len()),
		UncompressedSize64: uint64(r.size),
	}
	fh.ModifiedDate, fh.ModifiedTime = dosTime(mod)
	w, err := zw.CreateRaw(fh)
	if err != nil {
		return err
	}
	_, err = w.Write(r.data.Bytes())
	return err
}

// dosTime is the MS-DOS date and time a zip header carries.
func dosTime(t time.Time) (date, tm uint16) {
	date = uint16(t.Day() + int(t.Month())<<5 + (t.Year()-1980)<<9)
	tm = uint16(t.Second()/2 + t.Minute()<<5 + t.Hour()<<11)
	return date, tm
}

// writeFileAtomically writes path through a buffered writer given to write: into path
// + ".partial", renamed over path only once everything is written and closed, so that an
// interrupted generation never leaves a file that looks complete. It returns the file's size.
func writeFileAtomically(path string, write func(*bufio.Writer) error) (int64, error) {
	tmp := path + ".partial"
	f, err := os.Create(tmp)
	if err != nil {
		return 0, err
	}
	ok := false
	defer func() {
		if !ok {
			f.Close()
			os.Remove(tmp)
		}
	}()
	w := bufio.NewWriterSize(f, 1<<20)
	if err := write(w); err != nil {
		return 0, err
	}
	if err := w.Flush(); err != nil {
		return 0, fmt.Errorf("write %s: %w", tmp, err)
	}
	if err := f.Close(); err != nil {
		return 0, fmt.Errorf("write %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return 0, err
	}
	ok = true
	fi, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}
