package adreswijzer

import "strings"

// BoxNumber is a BeST box number as people and carriers write it after their own box word:
// without the marker the register wrote into the value and without its zero padding. The
// regions fill the box column each in their own way: Brussels pads to three characters
// behind a "b" ("b001", "b00D", "bA01"), Flanders to four digits ("0001"), and Malmedy's
// values carry the marker in any spelling ("Be.4", "Bte5", "Ap.8", "BeA2", "Be15"). A
// customer types "bus 4", "bte 5", "app. 8", "bus D", "bt. A01", "A2" or "box 15" for
// those, and an answer that prints "bte Bte5" says the marker twice. So:
//
//   - a marker at the start is dropped (bus, bte, box, boite, bt, bx, bs, bu, be, a lower
//     case b, and the apartment words app, apt, ap) when a digit, a separator or, after a
//     marker written in lower case, a capital follows: "Be.4", "Bte5", "b001", "bA01",
//     "BeA2". An upper-case marker before a capital stays, as "BUSE" may be a box of its
//     own, and so does a capital B alone, as often a building ("B1" beside "A1");
//   - leading zeros are dropped from what remains when it is letters and digits only:
//     "0001" is 1, "00D" is D, "000B" is B. Zeros before a separator count ("0.2" at a
//     Brussels number is another box than "002").
//
// Other values are the box itself ("A/2", "2ét", "1.Et", "0-11") and come back as they
// are, trimmed.
func BoxNumber(box string) string {
	s := strings.TrimSpace(box)
	id := s
	if n := boxMarkerLen(s); n > 0 {
		rest := s[n:]
		for rest != "" && (rest[0] == ' ' || rest[0] == '.' || rest[0] == ':' || rest[0] == '-') {
			rest = rest[1:]
		}
		if rest != "" {
			id = rest
		}
	}
	if len(id) > 1 && id[0] == '0' {
		t := id
		for t != "" && t[0] == '0' {
			t = t[1:]
		}
		if t != "" && alnumOnly(t) {
			id = t
		}
	}
	return id
}

// boxMarkerLen returns the length of the marker s starts with, 0 when it starts with
// none. Markers are bus, bte, box, boite, bt, bx, bs, bu, be, a lower-case b, and the
// apartment words app, apt, ap; the longest that fits is taken, so that "Bte5" is not read
// as "B" before "te5". Answers sort boxes by this on every lookup: it reads the letters
// once and compares no strings.
func boxMarkerLen(s string) int {
	var buf [5]byte
	n := 0
	for n < len(s) && n < len(buf) && isASCIILetter(s[n]) {
		buf[n] = s[n] | 0x20
		n++
	}
	for l := n; l >= 1; l-- {
		switch string(buf[:l]) {
		case "boite", "bus", "bte", "box", "app", "apt", "bt", "bx", "bs", "bu", "be", "ap":
		case "b":
			if s[0] == 'B' {
				// A capital B is as often a building ("B1" beside "A1" and "C2" in
				// Malmedy) as a box word.
				continue
			}
		default:
			continue
		}
		if l == len(s) {
			return 0
		}
		next, last := s[l], s[l-1]
		switch {
		case isASCIIDigit(next), next == '.', next == ':', next == ' ', next == '-':
			return l
		case next >= 'A' && next <= 'Z' && last >= 'a' && last <= 'z':
			return l
		}
	}
	return 0
}

func alnumOnly(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isASCIIDigit(s[i]) && !isASCIILetter(s[i]) {
			return false
		}
	}
	return s != ""
}
