package adreswijzer

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// HouseNumber is a typed house number taken apart the way the registers store one. The BAG
// holds huisnummer, huisletter (one letter) and huisnummertoevoeging (1 to 4 letters or
// digits); BeST holds a house number text with any letters and "bis" inside ("1161B",
// "104BIS", "240/1") and a separate box number. What people type mixes these freely, so the
// parts here are what the text says, and Extension is what gets compared with the register.
type HouseNumber struct {
	// Number is the house number, 1 to 999999; 0 when none was found.
	Number int
	// Suffix is what is glued to or right after the number: a letter ("A"), "BIS", "TER",
	// "QUATER", or in Belgium any short run of letters ("EA"); and, when a box word follows,
	// what stood between number and box word ("1" in "16/1 bus 8"). Upper case.
	Suffix string
	// Unit is a further part that tells apart the addresses at one number: the NL toevoeging,
	// the BE box ("2", "II", "HS", "3", "B001"). Upper-case letters and digits, separators
	// removed, leading zeros kept as typed ("0163" stays "0163"; see LooseExtension).
	Unit string
	// UnitMarker is "bus" (string(UnitBus)) when a box word introduced the unit: bus, bte,
	// boîte, boite, box, b. (and in Belgium bx, bt, and a lone "b" before digits). "" otherwise.
	// Answers use it to echo the customer's own way of writing a box.
	UnitMarker string
	// RangeEnd is the last number of a typed range ("21-27" in Belgium, "12 t/m 14", "12+14"),
	// 0 when the text is no range. Number holds the first, which is the address a range of
	// numbers on one building is registered under far more often than not.
	RangeEnd int
	// Floor: Unit was read from a floor ("2 hoog", "2e", "2e verdieping", the Roman "III" of
	// "87-III", "huis" for the ground floor). A register may hold it as the toevoeging (BAG
	// series "16-I", "16-II"), but where it does not, it describes the door rather than
	// naming it: a remark, never a letter or toevoeging to look for instead.
	Floor bool
}

// Extension is what to compare with the register's huisletter+toevoeging (NL) or house-number
// suffix+box (BE): Suffix and Unit run together, upper-case ASCII letters and digits only. The
// concatenation makes the split irrelevant, which matters because neither side splits
// consistently: BAG data has a toevoeging "A" where a huisletter was meant, "16 DK" may be
// letter D plus toevoeging K, and BeST stores "240/1" as one house number where a customer
// types "240 bus 1".
func (h HouseNumber) Extension() string { return ExtensionOf(h.Suffix, h.Unit) }

// LooseExtension is the forgiving comparison form, for a second comparison after an exact one
// failed; compare it with LooseExtensionOf of the register parts. Flemish boxes are
// zero-padded in BeST ("0003") and often carry the box word themselves ("B001", "Bus1",
// "BTE1"), while customers type "bus 3"; BAG has toevoegingen such as "0072".
func (h HouseNumber) LooseExtension() string { return LooseExtensionOf(h.Suffix, h.Unit) }

// ExtensionOf gives the exact comparison form of register parts, e.g.
// ExtensionOf(a.HouseNumberSuffix, a.Addition) or ExtensionOf(suffix, box): the parts joined,
// upper-cased, with everything but ASCII letters and digits dropped, so that BeST's "/1" in
// "240/1" and a typed "240-1" meet as "1".
func ExtensionOf(parts ...string) string {
	var b []byte
	for _, p := range parts {
		for i := 0; i < len(p); i++ {
			c := p[i]
			switch {
			case c >= 'a' && c <= 'z':
				b = append(b, c-'a'+'A')
			case c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
				b = append(b, c)
			}
		}
	}
	return string(b)
}

// LooseExtensionOf is ExtensionOf with two register habits undone: a box word that opens a
// part right before its digits is dropped ("Bus1", "BTE 2", "B001" give "1", "2", "1"), and
// leading zeros are dropped from each run of digits ("0003" gives "3", "0000" gives "0"),
// and a run of zeros before a letter altogether ("00D" gives "D").
// Runs are taken per part and before separators are removed, so "1/02" gives "12" like "1/2"
// does. It is applied the same way to typed and register text, so a typed "bus B305" and a
// register "B305" both give "305".
func LooseExtensionOf(parts ...string) string {
	var b []byte
	for _, p := range parts {
		p = stripBoxWord(p)
		for i := 0; i < len(p); {
			c := p[i]
			if c < '0' || c > '9' {
				switch {
				case c >= 'a' && c <= 'z':
					b = append(b, c-'a'+'A')
				case c >= 'A' && c <= 'Z':
					b = append(b, c)
				}
				i++
				continue
			}
			j := i
			for j < len(p) && p[j] >= '0' && p[j] <= '9' {
				j++
			}
			k := i
			for k < j-1 && p[k] == '0' {
				k++
			}
			if p[k] == '0' && j < len(p) && isASCIILetter(p[j]) {
				k = j // zeros that pad a letter: "00D" is D
			}
			b = append(b, p[k:j]...)
			i = j
		}
	}
	return string(b)
}

// stripBoxWord drops a box word that opens p right before a digit.
func stripBoxWord(p string) string {
	i := 0
	for i < len(p) && !isASCIIDigit(p[i]) && !isASCIILetter(p[i]) {
		i++
	}
	j := i
	for j < len(p) && isASCIILetter(p[j]) {
		j++
	}
	if !isBoxMarker(p[i:j]) {
		return p
	}
	k := j
	for k < len(p) && (p[k] == ' ' || p[k] == '.' || p[k] == ':') {
		k++
	}
	if k < len(p) && isASCIIDigit(p[k]) {
		return p[k:]
	}
	return p
}

// isBoxMarker reports whether w is a box word a part may open with, in any letter case;
// compared without upper-casing a copy, as register boxes are compared on every lookup.
func isBoxMarker(w string) bool {
	switch len(w) {
	case 1:
		return w[0]|0x20 == 'b'
	case 2:
		return strings.EqualFold(w, "BT") || strings.EqualFold(w, "BX")
	case 3:
		return strings.EqualFold(w, "BUS") || strings.EqualFold(w, "BTE") || strings.EqualFold(w, "BOX")
	case 5:
		return strings.EqualFold(w, "BOITE")
	}
	return false
}

// ParseHouseNumber parses the text of a house-number field. ok is false when the text holds no
// house number. The text must start with the number, after at most "nr", "no", "n°" and the
// like; the number must have at most six digits (MaxNumberDigits: no register goes that high,
// so more is a phone number, a postcode or a typo) and must not be 0 ("0012" is 12). Text
// after what the grammar understands is ignored, because a field often carries a remark
// ("12 achterom"), and so is text beyond the first 4096 bytes.
//
// The grammar, and why:
//   - Letters glued to or right after the number are the Suffix: "12a", "12 A", "1161B",
//     "104BIS", "12bis", "12 bis", "44-bis". In NL a glued run of several letters ("3HS",
//     "12AB") is a toevoeging, as the BAG letter is one character; in BE it stays the suffix,
//     as BeST keeps letters inside the house number ("16EA").
//   - A part after a hyphen, slash or dot is the Unit: "12-2", "12-II", "12/3", "240/1",
//     "12A-1", "1-TRAF", "3-0072". NEN 5825 writes a toevoeging starting with a digit after a
//     hyphen, and Belgians write a box after a slash (bpost disapproves, but "Dieweg 61/2" is
//     everywhere).
//   - A spaced part is the Unit too: "12 hs", "16 DK", "12 A 1", "239 1" (Amsterdam BAG
//     examples), and in BE "30 20", which the Flemish Adresmatch also reads as number and box.
//   - A box word introduces the unit: "12 bus 3", "12 bte 3", "12 boîte 3", "12 b. 3", and in
//     BE "12 b3" and "12 b 3" (a lone b before digits is the box abbreviation there; glued,
//     "98B1" is a BeST house number and gives suffix B, unit 1). Whatever follows a box word
//     is the unit as typed ("bus B305", "bus GV"): the customer said it is the box. Anything
//     read as a unit before the box word belongs to the house number and moves into the
//     Suffix ("16/1 bus 8" gives suffix "1", unit "8", Extension "18" like BeST's "16/1" +
//     box "8").
//   - Ranges: in BE a hyphen between an increasing pair is a range ("Louizalaan 43-45",
//     "12-14": bpost writes ranges so and boxes with a box word) and a decreasing pair is
//     number and box ("30-20"); in NL "12-14" is toevoeging 14, because that is how NEN 5825
//     prints a numeric toevoeging. "t/m", "tm" and "tot" before a spaced number, and "+" or
//     "&" between an increasing pair, are ranges in both countries.
//   - Floors are not units: a door is. "2 hoog", "2-hoog", "1hg", "2e verdieping",
//     "3ème étage", "1er étage", "étage 2" are dropped in BE, where boxes are numbered
//     independently of floors. In NL the floor number becomes the Unit when no other unit was
//     given, because Dutch toevoegingen are floor numbers by custom ("Kinkerstraat 37-3").
//   - Words that describe rather than identify are dropped: links, rechts, gauche, droite,
//     achter(aan), voor(aan), midden, laag, parterre, souterrain, begane grond, gelijkvloers,
//     rez-de-chaussée. Their abbreviations stay, as units: BeST has boxes named "GV", "GLV",
//     "RDC", "L" and "R". "boven" and "beneden" are dropped in BE and become the toevoegingen
//     "BOV" and "BEN" in NL, the forms BAG data uses (a toevoeging holds at most four
//     characters).
//   - Apartment words (apt, app, appt, appartement, apartment, flat, unit; in BE also ap)
//     introduce a unit without a marker.
//   - Roman numerals are kept as typed ("12-II" gives Unit "II"), never converted: BAG series
//     such as "16-I", "16-II" are stored so.
//   - Trailing separators do not matter ("30-" is 30).
func ParseHouseNumber(c Country, s string) (HouseNumber, bool) {
	_, toks := typedTokens(s)
	k := 0
	for k < len(toks) && (toks[k].kind == tokSep || toks[k].kind == tokWord && isNumberPrefixWord(toks[k].key)) {
		k++
	}
	if k >= len(toks) || toks[k].kind != tokNum {
		return HouseNumber{}, false
	}
	p := parseNumberAt(c, toks, k, modeField)
	if p.h.Number == 0 {
		return HouseNumber{}, false
	}
	return p.h, true
}

// ParseUnit parses the text of an address2-style field that carries the toevoeging or box:
// "bus 3", "bte 3", "boîte 3", "3", "II", "hs", "A", "apt 2", "B/91". It reads the first
// unit the text names and ignores the rest, with the vocabulary of ParseHouseNumber: box words
// give marker "bus"; apartment words are dropped; floors are dropped in BE and give the floor
// number in NL when nothing else names a unit ("2 hoog", "1-hoog", "2e verdieping"); words
// such as links, rechts, étage are dropped, as are words too long to be a toevoeging or box
// (over four letters, roman numerals aside), because they describe the door instead of naming
// it. In BE a unit written "B" plus digits ("B001", "b3") is box 001 or 3 with marker "bus",
// the reading "12 b3" has in a house number. unit is "" when the text names none, and marker
// is then "" too. Register boxes should not be run through ParseUnit: BeST box numbers such as
// "2ét" or "0008 - 4de links" would lose part of their text. LooseExtensionOf compares them
// with typed units instead.
func ParseUnit(c Country, s string) (unit, marker string) {
	h := ParseUnitField(c, s)
	return h.Unit, h.UnitMarker
}

// ParseUnitField is ParseUnit with what the text said about the unit: its Unit and
// UnitMarker as ParseUnit returns them, and Floor when the unit is a floor.
func ParseUnitField(c Country, s string) HouseNumber {
	_, toks := typedTokens(s)
	r := parseUnitAt(c, toks, 0, unitOpts{unitOnly: true})
	h := HouseNumber{Unit: r.unit, Floor: r.floorUnit && r.unit != ""}
	if r.box {
		h.UnitMarker = string(UnitBus)
	}
	return h
}

// Limits of the grammar. They keep absurd input from growing a unit without bound and mark
// where a word stops being a plausible toevoeging or box.
const (
	maxUnitLen     = 16 // BeST box column is wider (35) but real boxes are at most 10 (Flanders)
	maxLetterRun   = 4  // BAG toevoeging is at most four characters; BeST letter runs are shorter
	maxRomanLen    = 8  // "XXXVIII"
	maxFloorDigits = 2
)

// numberValue is the value of a digit run as a house number, 0 when it cannot be one.
func numberValue(digits string) int {
	if digits == "" || len(digits) > MaxNumberDigits {
		return 0
	}
	// By hand rather than strconv.Atoi, whose error type (with strconv.Quote) would be the
	// largest part of strconv in the form's WebAssembly core.
	v := 0
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		if c < '0' || c > '9' {
			return 0
		}
		v = v*10 + int(c-'0')
	}
	return v
}

// numMode says where a number stands, which decides how much text after it may belong to it.
type numMode uint8

const (
	// modeField: a house-number field; text the grammar does not understand ends the number
	// and is ignored.
	modeField numMode = iota
	// modeLine: the number ends an address line; the parse reports whether everything after
	// it belongs to the number, which is how the line parser tells "Rue du 8 Mai 12" apart.
	modeLine
	// modeLineStart: as modeLine for a line that starts with the number; a spaced word of
	// several letters is then the street ("12 Dam"), not a unit.
	modeLineStart
	// modeLeading: a number before the street ("12 Kerkstraat", "12bis rue X"); only what is
	// glued or joined to it belongs to it.
	modeLeading
)

// numParse is the result of parseNumberAt.
type numParse struct {
	h        HouseNumber
	next     int  // first token not used
	complete bool // every later token was used (or dropped as noise)
	atComma  bool // the parse stopped at the first token after a comma
}

// parseNumberAt reads the house number whose digits are toks[k].
func parseNumberAt(c Country, toks []token, k int, mode numMode) numParse {
	var p numParse
	n := numberValue(toks[k].key)
	if n == 0 {
		p.next = k
		return p
	}
	h := &p.h
	h.Number = n
	i := k + 1

	// Suffix.
	sep, j := sepAt(toks, i)
	if j < len(toks) && toks[j].kind == tokWord && toks[j].ascii {
		t := toks[j]
		switch {
		case isSuffixWord(t.key) && !sep.comma:
			h.Suffix, i = t.key, j+1
		case isBoxWord(c, t.key) || isAptWord(c, t.key):
		case sep.onlySpace() && isRangeWordAt(toks, j):
		case sep.none:
			// Glued, "B" is a letter ("98B1" is a BeST house number) unless a dot follows.
			if len(t.key) <= maxLetterRun && (c == BE || len(t.key) == 1) && !(t.key == "B" && boxAbbrev(c, toks, j, false)) {
				h.Suffix, i = t.key, j+1
			}
		case sep.onlySpace() && len(t.key) == 1 && mode != modeLeading:
			if !(t.key == "B" && boxAbbrev(c, toks, j, true)) {
				h.Suffix, i = t.key, j+1
			}
		}
	}

	// Range, only straight after the number.
	if h.Suffix == "" {
		sep, j = sepAt(toks, i)
		if j < len(toks) {
			switch t := toks[j]; t.kind {
			case tokNum:
				ranged := (sep.plus || c == BE && sep.hyphen) && !sep.slash && !sep.dot && !sep.comma
				if ranged && (mode != modeLeading || sep.tight()) {
					if v := numberValue(t.key); v > n {
						h.RangeEnd, i = v, j+1
					}
				}
			case tokWord:
				if e, ok := rangeWordAt(toks, j); ok && mode != modeLeading {
					if v := numberValue(toks[e].key); v > n {
						h.RangeEnd, i = v, e+1
					}
				}
			}
		}
	}

	u := parseUnitAt(c, toks, i, unitOpts{
		strict:       mode != modeField,
		noFreeWords:  mode == modeLineStart,
		leading:      mode == modeLeading,
		noBareNumber: h.RangeEnd != 0,
	})
	h.Unit = u.unit
	h.Floor = u.floorUnit && u.unit != ""
	if u.box {
		h.Suffix += u.pre
		h.UnitMarker = string(UnitBus)
	}
	p.next, p.complete, p.atComma = u.next, u.complete, u.atComma
	return p
}

// rangeWordAt reports whether toks[j] starts a range word ("t/m", "tm", "tot") followed by a
// spaced number, and returns the index of that number. The space is required: BAG has
// toevoegingen such as "TM25".
func rangeWordAt(toks []token, j int) (int, bool) {
	e := j + 1
	switch toks[j].key {
	case "T":
		s, w := sepAt(toks, e)
		if !s.slash || !s.tight() || w >= len(toks) || toks[w].key != "M" {
			return 0, false
		}
		e = w + 1
	case "TM", "TOT":
	default:
		return 0, false
	}
	s, num := sepAt(toks, e)
	if num >= len(toks) || toks[num].kind != tokNum || !s.onlySpace() {
		return 0, false
	}
	return num, true
}

func isRangeWordAt(toks []token, j int) bool {
	_, ok := rangeWordAt(toks, j)
	return ok
}

// unitOpts tune parseUnitAt to where the text stands.
type unitOpts struct {
	strict       bool // stop at the first token that is not part of a unit (address lines)
	noFreeWords  bool // a spaced word of several letters ends the unit: the street follows
	leading      bool // only tokens glued or joined to what came before belong to the number
	noBareNumber bool // after a range a further number is not a unit ("Laan 1940-1945 12")
	unitOnly     bool // ParseUnit: a field of its own; read the first unit, ignore the rest
}

// unitResult is the result of parseUnitAt.
type unitResult struct {
	unit      string
	pre       string // what a later box word showed to be part of the house number
	box       bool   // a box word introduced unit (only set when unit is not empty)
	floorUnit bool   // unit is a floor (HouseNumber.Floor)
	next      int
	complete  bool
	atComma   bool
}

// parseUnitAt reads the unit part that starts at toks[i]; ParseHouseNumber, ParseUnit and the
// line parser share it so the three agree on every word.
func parseUnitAt(c Country, toks []token, i int, o unitOpts) unitResult {
	var r unitResult
	expect := false // a box or apartment word was read: the next group is the unit, whatever it is
	for {
		sep, j := sepAt(toks, i)
		if j >= len(toks) {
			r.next, r.complete = j, true
			break
		}
		stop := func() unitResult {
			r.next, r.atComma = j, sep.comma
			return r
		}
		if o.leading && !sep.none && !sep.tight() {
			r = stop()
			break
		}
		t := toks[j]
		if t.kind == tokWord && !expect {
			switch k := t.key; {
			case isBoxWord(c, k) || k == "B" && boxAbbrev(c, toks, j, r.unit == "" && !r.box):
				if o.leading || r.box {
					r = stop()
					return finishUnit(r)
				}
				if r.unit != "" {
					r.pre, r.unit = r.unit, ""
				}
				r.box, expect, i = true, true, j+1
				continue
			case isAptWord(c, k):
				if o.leading || r.unit != "" {
					if o.unitOnly {
						i = j + 1
						continue
					}
					r = stop()
					return finishUnit(r)
				}
				expect, i = true, j+1
				continue
			case isLoneFloorWord(k):
				if o.leading {
					r = stop()
					return finishUnit(r)
				}
				if s, e := sepAt(toks, j+1); k != "HOOG" && e < len(toks) && toks[e].kind == tokNum && len(toks[e].key) <= maxFloorDigits && !s.comma {
					r.floor(c, toks[e].key) // "étage 2", "verdieping 3"
					i = e + 1
					continue
				}
				i = j + 1
				continue
			case isNoise(k):
				if o.leading {
					r = stop()
					return finishUnit(r)
				}
				if c == NL && r.unit == "" && !r.box {
					switch k {
					case "BOVEN":
						r.unit = "BOV"
					case "BENEDEN":
						r.unit = "BEN"
					}
				}
				i = j + 1
				if k == "REZ" {
					i = skipWords(toks, i, "DE", "CHAUSSEE")
				}
				continue
			}
		}
		if t.kind == tokNum && !expect && !o.leading {
			if fl, e, ok := floorAt(toks, j); ok {
				r.floor(c, fl)
				i = e
				continue
			}
		}
		g, e, ok := readGroup(toks, j)
		switch {
		case expect:
			expect = false
			if !ok {
				if o.unitOnly {
					i = e
					continue
				}
				r = stop()
				return finishUnit(r)
			}
			if r.unit == "" {
				r.setUnit(g, sep)
			}
		case !ok:
			if !o.unitOnly {
				r = stop()
				return finishUnit(r)
			}
		case o.unitOnly:
			if r.unit == "" {
				r.setUnit(g, sep)
			} else if len(r.unit) == 1 && !isASCIIDigit(r.unit[0]) && !r.floorUnit && isASCIIDigit(g[0]) && len(r.unit)+len(g) <= maxUnitLen {
				// "K 1", "b 9b": the letter and the toevoeging of one door, as BAG
				// writes "546 K 1" (huisletter K, toevoeging 1).
				r.unit += g
			}
		case r.unit != "",
			o.strict && sep.comma,
			o.noBareNumber && isASCIIDigit(g[0]),
			o.noFreeWords && !sep.none && len(g) > 1 && asciiLetters(g) && !isRoman(g):
			r = stop()
			return finishUnit(r)
		default:
			r.setUnit(g, sep)
		}
		i = e
	}
	return finishUnit(r)
}

// finishUnit restores a unit that a box word without a box number displaced.
func finishUnit(r unitResult) unitResult {
	if r.box && r.unit == "" {
		r.box = false
		r.unit, r.pre = r.pre, ""
	}
	return r
}

// floor applies a floor number: in NL it names the unit when nothing else does (Dutch
// toevoegingen are floors by custom), in BE it is dropped (boxes are numbered on their own).
func (r *unitResult) floor(c Country, digits string) {
	if c == NL && r.unit == "" && !r.box {
		r.unit, r.floorUnit = digits, true
	}
}

// setUnit takes a group read as the unit; a Roman numeral of a floor ("87-III", "12 II")
// and the ground floor ("huis", "hs", as Amsterdam writes it) are floors. A lone I, V or X
// spaced from the number is a letter more often than a floor ("12 V"), and is left a plain
// unit.
func (r *unitResult) setUnit(g string, sep sepInfo) {
	r.unit = g
	r.floorUnit = isRomanFloor(g) && (len(g) > 1 || sep.tight()) || g == "HUIS" || g == "HS"
}

// isRomanFloor: a Roman numeral of I, V and X only, as floors are numbered ("I" to "XX").
func isRomanFloor(g string) bool {
	if g == "" || len(g) > 5 {
		return false
	}
	for i := 0; i < len(g); i++ {
		switch g[i] {
		case 'I', 'V', 'X':
		default:
			return false
		}
	}
	return true
}

// floorAt reports whether toks[j] (a number) starts a floor: "2 hoog", "2-hoog", "1hg",
// "2e verdieping", "3ème étage", "1° étage". It returns the floor digits and the index after.
func floorAt(toks []token, j int) (string, int, bool) {
	t := toks[j]
	if t.kind != tokNum || len(t.key) > maxFloorDigits {
		return "", j, false
	}
	e := j + 1
	ordinal := false
	if s, w := sepAt(toks, e); w < len(toks) && toks[w].kind == tokWord && isOrdinal(toks[w].key) && !s.comma && !s.slash {
		e, ordinal = w+1, s.none
	}
	if s, w := sepAt(toks, e); w < len(toks) && toks[w].kind == tokWord && isFloorWord(toks[w].key) && !s.comma && !s.slash {
		return t.key, w + 1, true
	}
	if s, w := sepAt(toks, e); ordinal && j > 0 && (w >= len(toks) || s.comma) {
		// "Singel 2 2e", "Achtergracht 87, 3de": an ordinal glued to its number after the
		// house number, with nothing after it, is a floor, never a letter.
		return t.key, e, true
	}
	return "", j, false
}

// readGroup reads the tokens that form one unit from toks[j]: glued to each other or joined by
// a hyphen, slash, dot, underscore or plus without spaces ("B305", "3.21", "348/1-2", "GL-V").
// A word that cannot be part of a unit (not ASCII, or too long and no roman numeral) ends the
// group; ok is false when the group would start with one, or grows past maxUnitLen. Reading
// stops early, so a long run of junk costs no more than maxUnitLen tokens per call.
func readGroup(toks []token, j int) (string, int, bool) {
	var b []byte
	i := j
	for i < len(toks) {
		t := toks[i]
		if t.kind == tokSep {
			s, w := sepAt(toks, i)
			if !s.tight() || s.comma || w >= len(toks) || i == j {
				break
			}
			i = w
			continue
		}
		if t.kind == tokWord && (!t.ascii || len(t.key) > maxLetterRun && !(len(t.key) <= maxRomanLen && isRoman(t.key))) {
			if i == j {
				return "", i + 1, false
			}
			break // "2ét": the group is "2", the word is read on its own
		}
		if len(b)+len(t.key) > maxUnitLen {
			return "", i + 1, false
		}
		b = append(b, t.key...)
		i++
	}
	return string(b), i, len(b) > 0
}

// boxAbbrev reports whether the word "B" at toks[j] abbreviates a box word: before a dot and
// a number anywhere ("b. 3", "b.3"), and in BE also right before a number ("b3", "b 3",
// "B001") when unitStart says no unit has been read yet. Elsewhere a "B" is a letter.
func boxAbbrev(c Country, toks []token, j int, unitStart bool) bool {
	s, w := sepAt(toks, j+1)
	if w >= len(toks) || toks[w].kind != tokNum || s.comma || s.slash {
		return false
	}
	if s.dot && !s.hyphen && !s.plus {
		return true
	}
	return c == BE && unitStart && (s.none || s.onlySpace())
}

func skipWords(toks []token, i int, words ...string) int {
	for {
		_, w := sepAt(toks, i)
		if w >= len(toks) || toks[w].kind != tokWord {
			return i
		}
		found := false
		for _, x := range words {
			if toks[w].key == x {
				found = true
				break
			}
		}
		if !found {
			return i
		}
		i = w + 1
	}
}

// The vocabulary. Keys are upper case without diacritics, so BOÎTE, BOITE and boîte typed with
// a combining circumflex are one word.

func isSuffixWord(k string) bool {
	switch k {
	case "BIS", "TER", "QUATER":
		return true
	}
	return false
}

// isBoxWord: the words the Belgian addressing law (KB 24 April 2014) and bpost name, plus the
// abbreviations the Rijksregister and the Flemish Adresmatch see. bx and bt are Belgian only:
// in NL they could be a toevoeging.
func isBoxWord(c Country, k string) bool {
	switch k {
	case "BUS", "BTE", "BOITE", "BOX":
		return true
	case "BX", "BT":
		return c == BE
	}
	return false
}

func isAptWord(c Country, k string) bool {
	switch k {
	case "APT", "APP", "APPT", "APPART", "APPARTEMENT", "APPARTMENT", "APARTMENT", "FLAT", "UNIT":
		return true
	case "AP":
		return c == BE
	}
	return false
}

// isFloorWord: words that make the number before (or after) them a floor.
func isFloorWord(k string) bool {
	switch k {
	case "HOOG", "HG", "VERDIEPING", "VERDIEP", "VERD", "ETAGE", "ETG", "ET":
		return true
	}
	return false
}

// isLoneFloorWord: floor words that count without a number before them ("étage 2") and are
// dropped when no number goes with them. The short ones (HG, ET, VERD) only count after a
// number: alone they may be a toevoeging, and "et" before a number is French for "and".
func isLoneFloorWord(k string) bool {
	switch k {
	case "HOOG", "VERDIEPING", "VERDIEP", "ETAGE":
		return true
	}
	return false
}

func isOrdinal(k string) bool {
	switch k {
	case "E", "DE", "STE", "ER", "ERE", "EME", "IEME", "ND", "RD", "TH", "ST":
		return true
	}
	return false
}

// isNoise: words that describe where the door is rather than naming it. Short forms (gv, glv,
// rdc, l, r) are not noise: registers use them as box names.
func isNoise(k string) bool {
	switch k {
	case "LINKS", "RECHTS", "GAUCHE", "DROITE", "ACHTER", "ACHTERAAN", "ACHTERKANT", "VOOR",
		"VOORAAN", "VOORKANT", "MIDDEN", "LAAG", "BOVEN", "BENEDEN", "PARTERRE", "SOUTERRAIN",
		"BEGANE", "GROND", "GELIJKVLOERS", "REZ":
		return true
	}
	return false
}

// isNumberPrefixWord: words people put before a house number.
func isNumberPrefixWord(k string) bool {
	switch k {
	case "NR", "NO", "N", "NUM", "NUMMER", "HUISNUMMER", "HUISNR", "NUMERO":
		return true
	}
	return false
}

func isRoman(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case 'I', 'V', 'X', 'L', 'C', 'D', 'M':
		default:
			return false
		}
	}
	return true
}

func isASCIIDigit(b byte) bool { return b >= '0' && b <= '9' }

func isASCIILetter(b byte) bool { return b >= 'A' && b <= 'Z' || b >= 'a' && b <= 'z' }

func asciiLetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isASCIILetter(s[i]) {
			return false
		}
	}
	return s != ""
}

// Tokens. Typed text is cut into runs of ASCII digits, runs of letters and runs of everything
// else; the grammar works on those.

type tokKind uint8

const (
	tokSep tokKind = iota
	tokNum
	tokWord
)

type token struct {
	kind       tokKind
	start, end int    // byte offsets in the folded text, so streets can be cut out as typed
	key        string // word: upper case without diacritics; number: the digits; separator: as is
	ascii      bool   // a word of ASCII letters only: only those can be a suffix or unit
}

// maxTypedInput bounds the text the parsers read, twenty times the API's field limit: what a
// person types is far shorter, and a pasted document must not cost more than this much.
const maxTypedInput = 4096

// typedTokens folds typed text (see foldTyped) and cuts it into tokens; text beyond
// maxTypedInput bytes is ignored.
func typedTokens(s string) (string, []token) {
	if len(s) > maxTypedInput {
		s = s[:maxTypedInput]
	}
	f := foldTyped(s)
	return f, tokenize(f)
}

func tokenize(f string) []token {
	var toks []token
	for i := 0; i < len(f); {
		r, w := utf8.DecodeRuneInString(f[i:])
		j := i + w
		switch {
		case r >= '0' && r <= '9':
			for j < len(f) && isASCIIDigit(f[j]) {
				j++
			}
			toks = append(toks, token{kind: tokNum, start: i, end: j, key: f[i:j]})
		case isWordRune(r):
			for j < len(f) {
				r2, w2 := utf8.DecodeRuneInString(f[j:])
				if !isWordRune(r2) && !unicode.Is(unicode.Mn, r2) {
					break
				}
				j += w2
			}
			word := f[i:j]
			toks = append(toks, token{kind: tokWord, start: i, end: j, key: wordKey(word), ascii: asciiLetters(word)})
		default:
			for j < len(f) {
				r2, w2 := utf8.DecodeRuneInString(f[j:])
				if r2 >= '0' && r2 <= '9' || isWordRune(r2) {
					break
				}
				j += w2
			}
			toks = append(toks, token{kind: tokSep, start: i, end: j, key: f[i:j]})
		}
		i = j
	}
	return toks
}

// isWordRune: letters, except the ordinal indicators º and ª, which Unicode calls letters but
// people use as the degree-like sign in "nº 12" and "1º".
func isWordRune(r rune) bool { return r != 'º' && r != 'ª' && unicode.IsLetter(r) }

// wordKey upper-cases a word and strips the diacritics of the Latin letters our keywords use,
// so keyword tests need one spelling. It is no general folding: matching does that.
func wordKey(w string) string {
	ascii := true
	for i := 0; i < len(w); i++ {
		if w[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToUpper(w)
	}
	var b strings.Builder
	for _, r := range w {
		if unicode.Is(unicode.Mn, r) {
			continue
		}
		b.WriteRune(baseLetter(unicode.ToUpper(r)))
	}
	return b.String()
}

func baseLetter(r rune) rune {
	switch r {
	case 'À', 'Á', 'Â', 'Ã', 'Ä', 'Å':
		return 'A'
	case 'Ç':
		return 'C'
	case 'È', 'É', 'Ê', 'Ë':
		return 'E'
	case 'Ì', 'Í', 'Î', 'Ï':
		return 'I'
	case 'Ñ':
		return 'N'
	case 'Ò', 'Ó', 'Ô', 'Õ', 'Ö':
		return 'O'
	case 'Ù', 'Ú', 'Û', 'Ü':
		return 'U'
	}
	return r
}

// sepInfo describes the separator run between two tokens.
type sepInfo struct {
	none   bool // the tokens touch
	space  bool // whitespace, or punctuation that only separates ("(", "#", "°", "'")
	comma  bool // "," or ";"
	hyphen bool // "-" or "_"
	slash  bool // "/" or "\"
	dot    bool
	plus   bool // "+" or "&"
}

// tight: joined by punctuation without spaces, as in "12-2", "16/3", "3.21".
func (s sepInfo) tight() bool {
	return !s.none && !s.space && !s.comma && (s.hyphen || s.slash || s.dot || s.plus)
}

// onlySpace: separated by nothing but spaces (or separating punctuation).
func (s sepInfo) onlySpace() bool {
	return s.space && !s.comma && !s.hyphen && !s.slash && !s.dot && !s.plus
}

// sepAt describes the separators starting at toks[i] and returns the index of the next
// non-separator token (len(toks) at the end).
func sepAt(toks []token, i int) (sepInfo, int) {
	s := sepInfo{none: true}
	for i < len(toks) && toks[i].kind == tokSep {
		s.none = false
		for _, r := range toks[i].key {
			switch r {
			case ',', ';':
				s.comma = true
			case '-', '_':
				s.hyphen = true
			case '/', '\\':
				s.slash = true
			case '.':
				s.dot = true
			case '+', '&':
				s.plus = true
			default:
				s.space = true
			}
		}
		i++
	}
	return s, i
}
