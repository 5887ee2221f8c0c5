package carrier

import (
	"strconv"
	"strings"
	"unicode"

	"github.com/adreswijzer/adreswijzer"
)

// Writer writes the fields and printed lines of the addresses of one answer. The addresses
// of an answer share their number, postcode and place, so the number and the postal line are
// written once for all of them; the text and lists that differ per address are cut from
// buffers shared by the answer. Written one by one, they cost several allocations per
// address, and a worker's large heap makes every allocation dearer in collection. Fields and
// Lines use a Writer of their own.
//
// The zero Writer is ready to use. What it returns is never changed by later calls; it must
// not be copied once used.
type Writer struct {
	// text holds every string written so far, one after another; each is a slice of it,
	// and a strings.Builder never changes the bytes it has written.
	text   strings.Builder
	lines  []string // unused pairs for Lines
	adds   []string // unused values for houseNumberAddition
	number struct {
		n    int
		text string
	}
	postal postal
}

// postal is the last postal line written and what it was written from.
type postal struct {
	country        adreswijzer.Country
	postcode, city string
	line           string
	ok             bool
}

// Expect makes room for n addresses, so that their lists take one allocation and most of
// their text another.
func (w *Writer) Expect(n int) {
	room := make([]string, 3*n)
	w.lines, w.adds = room[:2*n], room[2*n:]
	// A street line with its number, and an addition or a box; the postal line is shared.
	w.text.Grow(32 + 40*n)
}

// join puts sep between the parts that are not empty. A single part is returned as it is,
// without copying.
func (w *Writer) join(sep string, parts ...string) string {
	var only string
	k, n := 0, 0
	for _, s := range parts {
		if s != "" {
			only = s
			k++
			n += len(sep) + len(s)
		}
	}
	if k < 2 {
		return only
	}
	start := w.text.Len()
	w.text.Grow(n)
	for _, s := range parts {
		if s == "" {
			continue
		}
		if w.text.Len() > start {
			w.text.WriteString(sep)
		}
		w.text.WriteString(s)
	}
	return w.text.String()[start:]
}

// itoa writes a house number; the addresses of an answer share theirs.
func (w *Writer) itoa(n int) string {
	if w.number.text == "" || w.number.n != n {
		w.number.n, w.number.text = n, strconv.Itoa(n)
	}
	return w.number.text
}

// postalLine is the second printed line, shared by the addresses of the same postcode and
// place.
func (w *Writer) postalLine(c adreswijzer.Country, postcode, city string) string {
	if pl := w.postal; pl.ok && pl.country == c && pl.postcode == postcode && pl.city == city {
		return pl.line
	}
	var line string
	if c == adreswijzer.NL {
		line = w.postalLineNL(postcode, city)
	} else {
		line = w.join(" ", postcode, city)
	}
	w.postal = postal{c, postcode, city, line, true}
	return line
}

// postalLineNL writes "1382 KB  WEESP". About 190,000 BAG addresses have no postcode; their
// line is the place alone rather than a line that starts with spaces.
func (w *Writer) postalLineNL(postcode, city string) string {
	if postcode == "" {
		return strings.ToUpper(city)
	}
	// Written with the city in capitals in one go, as strings.ToUpper would copy it again.
	printed := adreswijzer.FormatPostcode(adreswijzer.NL, postcode)
	start := w.text.Len()
	w.text.Grow(len(printed) + 2 + len(city))
	w.text.WriteString(printed)
	w.text.WriteString("  ")
	for _, r := range city {
		w.text.WriteRune(unicode.ToUpper(r))
	}
	return w.text.String()[start:]
}

// pair is the two printed lines of one address, as a list of its own that appending to
// cannot spill into the next address's.
func (w *Writer) pair(street, postal string) []string {
	if len(w.lines) < 2 {
		w.lines = make([]string, 2)
	}
	l := w.lines[:2:2]
	w.lines = w.lines[2:]
	l[0], l[1] = street, postal
	return l
}

// value is where an address's houseNumberAddition points.
func (w *Writer) value(s string) *string {
	if len(w.adds) == 0 {
		w.adds = make([]string, 1)
	}
	v := &w.adds[0]
	w.adds = w.adds[1:]
	*v = s
	return v
}
