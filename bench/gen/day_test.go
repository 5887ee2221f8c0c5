package gen

import (
	"testing"
	"time"
)

// The integer calendar must agree with the standard library on every day the generator
// can write, or a date in the register files would be wrong.
func TestDayMatchesTime(t *testing.T) {
	start := time.Date(1899, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 200*366; i++ {
		tm := start.AddDate(0, 0, i)
		d := dayOf(tm)
		if want := day(tm.Unix() / 86400); d != want {
			t.Fatalf("%s: day %d, want %d", tm.Format(time.DateOnly), d, want)
		}
		if got := string(d.appendISO(nil)); got != tm.Format(time.DateOnly) {
			t.Fatalf("day %d formats as %s, want %s", d, got, tm.Format(time.DateOnly))
		}
	}
	s := at(civilDay(2010, 11, 26), ((8*60+49)*60+46)*1000+7)
	if got := string(s.appendISO(nil)); got != "2010-11-26T08:49:46.007" {
		t.Errorf("stamp %s", got)
	}
}
