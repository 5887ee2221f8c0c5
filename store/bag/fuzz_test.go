package bag

import (
	"bytes"
	"io"
	"testing"
)

// FuzzReader feeds the record decoder arbitrary bytes, seeded with the openings of real
// stand and mutation files. It must never panic, and what it accepts must hold the
// invariants the tables rely on.
func FuzzReader(f *testing.F) {
	for _, name := range []string{"BAGGEM0457L-15102021.zip", "BAGNLDL-15092020-small.zip", "BAGNLDM-13112021-14112021.zip"} {
		d := openTest(f, name)
		for _, j := range d.jobs {
			rc, err := j.file.Open()
			if err != nil {
				f.Fatal(err)
			}
			b, err := io.ReadAll(io.LimitReader(rc, 12<<10))
			rc.Close()
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r := newReader(bytes.NewReader(data))
		var rec record
		for range 1000 {
			if err := r.next(&rec); err != nil {
				return
			}
			if rec.id == 0 || rec.vk == 0 || rec.vk > 0xffff || rec.begin == 0 || rec.kind == kindNone {
				t.Fatalf("accepted an incomplete record: %+v", rec)
			}
			if rec.postcode != 0 && rec.flags&flagBadPostcode == 0 {
				if p, ok := packPostcode([]byte(unpackPostcode(rec.postcode))); !ok || p != rec.postcode {
					t.Fatalf("postcode %d does not round-trip", rec.postcode)
				}
			}
			if rec.addition != 0 && rec.flags&flagBadNumber == 0 {
				if a, ok := packAddition([]byte(unpackAddition(rec.addition))); !ok || a != rec.addition {
					t.Fatalf("toevoeging %d does not round-trip", rec.addition)
				}
			}
		}
	})
}
