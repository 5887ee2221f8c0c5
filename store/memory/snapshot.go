package memory

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"time"
	"unsafe"

	"github.com/adreswijzer/adreswijzer"
)

// Snapshot file layout, all integers little-endian:
//
//	magic        8 bytes "AWSNAP\r\n" (the CR LF shows a file mangled by a text transfer)
//	format       uint32, snapshotFormat
//	country      uint16 length + bytes
//	version      uint16 length + bytes (the DatasetVersion)
//	activatedAt  int64, Unix nanoseconds
//	addresses    uint64
//	sections     in a fixed order, each a 4-byte tag, a uint64 element count and the elements
//	end          tag "END!", then the CRC-32C (Castagnoli) of every byte before it
//
// The sections are the Dataset's tables, written as they are held, so that loading a national
// snapshot is a sequential read with no sorting. The checksum covers the whole file: a
// truncated or damaged file is rejected before anything of it is served.
const (
	snapshotMagic  = "AWSNAP\r\n"
	snapshotFormat = 1
	endTag         = "END!"
)

// ErrBadSnapshot is wrapped by every error about a snapshot file's content (as opposed to
// failing to open or read it).
var ErrBadSnapshot = errors.New("snapshot file is damaged, truncated or not a snapshot")

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// WriteSnapshot writes d to path atomically: to a temporary file in the same directory, synced,
// then renamed over path, so that a reader or a crash sees either the old file or the new one
// complete, never a mixture.
func WriteSnapshot(path string, d *Dataset) (err error) {
	dir := filepath.Dir(path)
	tmpPattern := "." + filepath.Base(path) + ".tmp-*"
	removeStaleTemps(filepath.Join(dir, tmpPattern))
	f, err := os.CreateTemp(dir, tmpPattern)
	if err != nil {
		return fmt.Errorf("write snapshot %s: %w", path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
			err = fmt.Errorf("write snapshot %s: %w", path, err)
		}
	}()
	if err := f.Chmod(0o644); err != nil {
		return err
	}
	h := crc32.New(castagnoli)
	bw := bufio.NewWriterSize(io.MultiWriter(f, h), 1<<20)
	e := &encoder{w: bw}
	e.header(d)
	e.tables(&d.t)
	e.bytes([]byte(endTag))
	if e.err != nil {
		return e.err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	var sum [4]byte
	binary.LittleEndian.PutUint32(sum[:], h.Sum32())
	if _, err := f.Write(sum[:]); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	// Make the rename itself durable.
	if dh, err := os.Open(dir); err == nil {
		dh.Sync()
		dh.Close()
	}
	return nil
}

// staleAfter is how long a temporary snapshot file must have gone unwritten before a later
// write takes it for the leftover of a killed import and removes it. A live writer touches its
// file many times a second.
const staleAfter = time.Minute

func removeStaleTemps(pattern string) {
	matches, _ := filepath.Glob(pattern)
	for _, m := range matches {
		if fi, err := os.Stat(m); err == nil && time.Since(fi.ModTime()) > staleAfter {
			os.Remove(m)
		}
	}
}

// ReadSnapshot reads and checks a snapshot file without activating it.
func ReadSnapshot(path string) (*Dataset, error) {
	d, _, err := readSnapshotFile(path)
	return d, err
}

func readSnapshotFile(path string) (*Dataset, fileState, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fileState{}, fmt.Errorf("read snapshot: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fileState{}, fmt.Errorf("read snapshot %s: %w", path, err)
	}
	st := fileState{mod: fi.ModTime(), size: fi.Size()}
	dec := &decoder{r: bufio.NewReaderSize(f, int(min(fi.Size(), 1<<20))), h: crc32.New(castagnoli), remaining: fi.Size()}
	d, err := dec.dataset()
	if err != nil {
		return nil, st, fmt.Errorf("read snapshot %s: %w", path, err)
	}
	return d, st, nil
}

type encoder struct {
	w   *bufio.Writer
	err error
	buf [8]byte
}

func (e *encoder) bytes(b []byte) {
	if e.err == nil {
		_, e.err = e.w.Write(b)
	}
}

func (e *encoder) u16(v uint16) { binary.LittleEndian.PutUint16(e.buf[:], v); e.bytes(e.buf[:2]) }
func (e *encoder) u32(v uint32) { binary.LittleEndian.PutUint32(e.buf[:], v); e.bytes(e.buf[:4]) }
func (e *encoder) u64(v uint64) { binary.LittleEndian.PutUint64(e.buf[:], v); e.bytes(e.buf[:8]) }

func (e *encoder) str16(s string) {
	if len(s) > 1<<16-1 {
		e.err = fmt.Errorf("header string of %d bytes", len(s))
		return
	}
	e.u16(uint16(len(s)))
	e.bytes([]byte(s))
}

func (e *encoder) header(d *Dataset) {
	e.bytes([]byte(snapshotMagic))
	e.u32(snapshotFormat)
	e.str16(string(d.info.Country))
	e.str16(string(d.info.Version))
	e.u64(uint64(d.info.ActivatedAt.UnixNano()))
	e.u64(uint64(d.info.Addresses))
}

func (e *encoder) tables(t *tables) {
	e.words("STRO", t.offs)
	e.bytes([]byte("BLOB"))
	e.u64(uint64(len(t.blob)))
	e.bytes(unsafe.Slice(unsafe.StringData(t.blob), len(t.blob)))
	e.words("NAME", asWords(t.names))
	e.words("STRT", asWords(t.streets))
	e.words("LOCS", asWords(t.localities))
	e.words("PCOD", t.postcodes)
	e.words("GRPS", asWords(t.groups))
	e.words("UNIT", asWords(t.units))
	e.words("IDFM", asWords(t.idFormats))
	e.words("RAWI", t.rawIDs)
	e.words("AGRP", t.addrGroup)
	e.words("ANUM", t.addrNum)
	e.words("AUNT", t.addrUnit)
	e.words64("AIDS", t.addrID)
	e.words("BYST", t.byStreet)
}

// words writes a section of uint32 values. The count written is the number of values; the
// reader knows how many make one table row.
func (e *encoder) words(tag string, s []uint32) {
	e.bytes([]byte(tag))
	e.u64(uint64(len(s)))
	var chunk [4096]byte
	for len(s) > 0 && e.err == nil {
		n := min(len(s), len(chunk)/4)
		for i, v := range s[:n] {
			binary.LittleEndian.PutUint32(chunk[4*i:], v)
		}
		e.bytes(chunk[:4*n])
		s = s[n:]
	}
}

func (e *encoder) words64(tag string, s []uint64) {
	e.bytes([]byte(tag))
	e.u64(uint64(len(s)))
	var chunk [4096]byte
	for len(s) > 0 && e.err == nil {
		n := min(len(s), len(chunk)/8)
		for i, v := range s[:n] {
			binary.LittleEndian.PutUint64(chunk[8*i:], v)
		}
		e.bytes(chunk[:8*n])
		s = s[n:]
	}
}

// asWords views a table of uint32-only rows as its uint32 values, for reading and writing a
// whole table in one section.
func asWords[T names | streetRec | localityRec | group | unit | idFormat](s []T) []uint32 {
	var zero T
	per := int(unsafe.Sizeof(zero) / 4)
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*per)
}

type decoder struct {
	r         *bufio.Reader
	h         hash.Hash32
	remaining int64
	buf       [8]byte
}

func corrupt(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrBadSnapshot, fmt.Sprintf(format, args...))
}

// read fills p from the file and adds it to the checksum.
func (dc *decoder) read(p []byte) error {
	if int64(len(p)) > dc.remaining {
		return corrupt("file ends %d bytes early (truncated)", int64(len(p))-dc.remaining)
	}
	if _, err := io.ReadFull(dc.r, p); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return corrupt("file truncated")
		}
		return err
	}
	dc.remaining -= int64(len(p))
	dc.h.Write(p)
	return nil
}

func (dc *decoder) u16() (uint16, error) {
	err := dc.read(dc.buf[:2])
	return binary.LittleEndian.Uint16(dc.buf[:2]), err
}

func (dc *decoder) u32() (uint32, error) {
	err := dc.read(dc.buf[:4])
	return binary.LittleEndian.Uint32(dc.buf[:4]), err
}

func (dc *decoder) u64() (uint64, error) {
	err := dc.read(dc.buf[:8])
	return binary.LittleEndian.Uint64(dc.buf[:8]), err
}

func (dc *decoder) str16() (string, error) {
	n, err := dc.u16()
	if err != nil {
		return "", err
	}
	b := make([]byte, n)
	if err := dc.read(b); err != nil {
		return "", err
	}
	return string(b), nil
}

func (dc *decoder) tag(want string) error {
	var b [4]byte
	if err := dc.read(b[:]); err != nil {
		return err
	}
	if string(b[:]) != want {
		return corrupt("section %q where %q belongs", b[:], want)
	}
	return nil
}

// count reads a section's element count and checks that the file still holds that many
// elements of size bytes, so that a damaged count cannot make us allocate gigabytes.
func (dc *decoder) count(tag string, size int64) (int, error) {
	if err := dc.tag(tag); err != nil {
		return 0, err
	}
	n, err := dc.u64()
	if err != nil {
		return 0, err
	}
	if n > uint64(dc.remaining/size) {
		return 0, corrupt("section %s declares %d elements, the file holds at most %d (truncated)", tag, n, dc.remaining/size)
	}
	return int(n), nil
}

func (dc *decoder) words(tag string, per int) ([]uint32, error) {
	n, err := dc.count(tag, 4)
	if err != nil {
		return nil, err
	}
	if n%per != 0 {
		return nil, corrupt("section %s: %d values is not a whole number of rows of %d", tag, n, per)
	}
	s := make([]uint32, n)
	var chunk [4096]byte
	for done := 0; done < n; {
		k := min(n-done, len(chunk)/4)
		if err := dc.read(chunk[:4*k]); err != nil {
			return nil, err
		}
		for i := range k {
			s[done+i] = binary.LittleEndian.Uint32(chunk[4*i:])
		}
		done += k
	}
	return s, nil
}

func (dc *decoder) words64(tag string) ([]uint64, error) {
	n, err := dc.count(tag, 8)
	if err != nil {
		return nil, err
	}
	s := make([]uint64, n)
	var chunk [4096]byte
	for done := 0; done < n; {
		k := min(n-done, len(chunk)/8)
		if err := dc.read(chunk[:8*k]); err != nil {
			return nil, err
		}
		for i := range k {
			s[done+i] = binary.LittleEndian.Uint64(chunk[8*i:])
		}
		done += k
	}
	return s, nil
}

// rows reads a section into a table of uint32-only rows.
func rows[T names | streetRec | localityRec | group | unit | idFormat](dc *decoder, tag string) ([]T, error) {
	var zero T
	per := int(unsafe.Sizeof(zero) / 4)
	w, err := dc.words(tag, per)
	if err != nil || len(w) == 0 {
		return nil, err
	}
	out := make([]T, len(w)/per)
	copy(asWords(out), w)
	return out, nil
}

func (dc *decoder) dataset() (*Dataset, error) {
	var magic [len(snapshotMagic)]byte
	if err := dc.read(magic[:]); err != nil {
		return nil, err
	}
	if string(magic[:]) != snapshotMagic {
		return nil, corrupt("no snapshot magic at the start")
	}
	format, err := dc.u32()
	if err != nil {
		return nil, err
	}
	if format != snapshotFormat {
		return nil, fmt.Errorf("%w: format version %d, this program reads %d", ErrBadSnapshot, format, snapshotFormat)
	}
	d := &Dataset{}
	country, err := dc.str16()
	if err != nil {
		return nil, err
	}
	c, ok := adreswijzer.ParseCountry(country)
	if !ok || string(c) != country {
		return nil, corrupt("unsupported country %q", country)
	}
	version, err := dc.str16()
	if err != nil {
		return nil, err
	}
	if _, err := adreswijzer.DatasetVersion(version).Parts(); err != nil {
		return nil, corrupt("dataset version %q: %v", version, err)
	}
	at, err := dc.u64()
	if err != nil {
		return nil, err
	}
	addrs, err := dc.u64()
	if err != nil {
		return nil, err
	}
	d.info = adreswijzer.DatasetInfo{
		Country:     c,
		Version:     adreswijzer.DatasetVersion(version),
		ActivatedAt: time.Unix(0, int64(at)).UTC(),
		Addresses:   int(addrs),
	}

	t := &d.t
	steps := []func() error{
		func() (err error) { t.offs, err = dc.words("STRO", 1); return },
		func() error {
			n, err := dc.count("BLOB", 1)
			if err != nil {
				return err
			}
			b := make([]byte, n)
			if err := dc.read(b); err != nil {
				return err
			}
			t.blob = unsafe.String(unsafe.SliceData(b), len(b)) // b is never written again
			return nil
		},
		func() (err error) { t.names, err = rows[names](dc, "NAME"); return },
		func() (err error) { t.streets, err = rows[streetRec](dc, "STRT"); return },
		func() (err error) { t.localities, err = rows[localityRec](dc, "LOCS"); return },
		func() (err error) { t.postcodes, err = dc.words("PCOD", 1); return },
		func() (err error) { t.groups, err = rows[group](dc, "GRPS"); return },
		func() (err error) { t.units, err = rows[unit](dc, "UNIT"); return },
		func() (err error) { t.idFormats, err = rows[idFormat](dc, "IDFM"); return },
		func() (err error) { t.rawIDs, err = dc.words("RAWI", 1); return },
		func() (err error) { t.addrGroup, err = dc.words("AGRP", 1); return },
		func() (err error) { t.addrNum, err = dc.words("ANUM", 1); return },
		func() (err error) { t.addrUnit, err = dc.words("AUNT", 1); return },
		func() (err error) { t.addrID, err = dc.words64("AIDS"); return },
		func() (err error) { t.byStreet, err = dc.words("BYST", 1); return },
		func() error { return dc.tag(endTag) },
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return nil, err
		}
	}
	want := dc.h.Sum32()
	var sum [4]byte
	if dc.remaining != int64(len(sum)) {
		return nil, corrupt("%d bytes where the 4-byte checksum belongs", dc.remaining)
	}
	if _, err := io.ReadFull(dc.r, sum[:]); err != nil {
		return nil, corrupt("checksum missing (truncated)")
	}
	if got := binary.LittleEndian.Uint32(sum[:]); got != want {
		return nil, corrupt("checksum mismatch (file %08x, content %08x)", got, want)
	}
	if err := t.validate(); err != nil {
		return nil, corrupt("%v", err)
	}
	if d.info.Addresses != len(t.addrNum) {
		return nil, corrupt("header says %d addresses, columns hold %d", d.info.Addresses, len(t.addrNum))
	}
	d.derive()
	return d, nil
}
