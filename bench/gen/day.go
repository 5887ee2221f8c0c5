package gen

import (
	"fmt"
	"time"
)

// day counts days since 1970-01-01. Dates are integers here so that every date the
// generator writes follows from integer arithmetic on the seed.
type day int32

func dayOf(t time.Time) day {
	y, m, d := t.Date()
	return civilDay(y, int(m), d)
}

// civilDay converts a calendar date to days since the epoch (proleptic Gregorian).
func civilDay(y, m, d int) day {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era--
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return day(era*146097 + doe - 719468)
}

// civil converts days since the epoch back to a calendar date.
func (dd day) civil() (y, m, d int) {
	z := int(dd) + 719468
	era := z / 146097
	if z < 0 && z%146097 != 0 {
		era--
	}
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y = yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = doy - (153*mp+2)/5 + 1
	m = mp + 3
	if m > 12 {
		m -= 12
	}
	if m <= 2 {
		y++
	}
	return y, m, d
}

// appendISO writes yyyy-mm-dd.
func (dd day) appendISO(b []byte) []byte {
	y, m, d := dd.civil()
	b = append4(b, y)
	b = append(b, '-')
	b = append2(b, m)
	b = append(b, '-')
	return append2(b, d)
}

// ddmmyyyy is the date as Kadaster writes it in file names.
func (dd day) ddmmyyyy() string {
	y, m, d := dd.civil()
	return fmt.Sprintf("%02d%02d%04d", d, m, y)
}

func (dd day) time() time.Time {
	y, m, d := dd.civil()
	return time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
}

// stamp is a moment as milliseconds since the epoch, written like the register's
// tijdstipRegistratie: 2010-11-26T08:49:46.000.
type stamp int64

func at(d day, ms int64) stamp { return stamp(int64(d)*86_400_000 + ms) }

func (s stamp) day() day { return day(int64(s) / 86_400_000) }

func (s stamp) appendISO(b []byte) []byte {
	dd := s.day()
	ms := int64(s) - int64(dd)*86_400_000
	b = dd.appendISO(b)
	b = append(b, 'T')
	b = append2(b, int(ms/3_600_000))
	b = append(b, ':')
	b = append2(b, int(ms/60_000%60))
	b = append(b, ':')
	b = append2(b, int(ms/1000%60))
	b = append(b, '.')
	return append3(b, int(ms%1000))
}

func append2(b []byte, v int) []byte { return append(b, byte('0'+v/10%10), byte('0'+v%10)) }

func append3(b []byte, v int) []byte {
	return append(b, byte('0'+v/100%10), byte('0'+v/10%10), byte('0'+v%10))
}

func append4(b []byte, v int) []byte {
	return append(b, byte('0'+v/1000%10), byte('0'+v/100%10), byte('0'+v/10%10), byte('0'+v%10))
}
