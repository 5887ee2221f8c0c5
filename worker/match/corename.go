package match

import (
	"cmp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Dutch streets named after people carry the person's title and initials: the BAG writes
// "Mr.J.C.Bührmannlaan", "Dr.A.Kuyperlaan", "Mgr.Dr.W.H.Nolenslaan", and the people who
// live there write "Bührmannlaan", "Kuyperlaan", "Mr. Bührmannlaan". Without the initials
// the typed name is too short beside the register's for the similarity measure to reach its
// threshold, so the street went unmatched and the number was taken from whatever street the
// postcode had. The core of a name is what is left when its leading titles and initials
// are dropped; two names with the same core name the same street, which is a stronger match
// than any similarity (levelCore) though weaker than the register's own spelling.

// titleWords are the titles that open Dutch street names (folded), written out or
// abbreviated.
var titleWords = map[string]bool{
	"burgemeester": true, "burg": true, "wethouder": true, "weth": true,
	"professor": true, "prof": true, "dokter": true, "doctor": true, "dr": true, "drs": true,
	"meester": true, "mr": true, "ingenieur": true, "ir": true, "ing": true,
	"monseigneur": true, "mgr": true, "kardinaal": true, "kard": true, "pastoor": true,
	"past": true, "pater": true, "kapelaan": true, "dominee": true, "ds": true,
	"broeder": true, "zuster": true, "jonkheer": true, "jhr": true, "jonkvrouw": true,
	"jkvr": true, "generaal": true, "gen": true, "kolonel": true, "majoor": true,
	"kapitein": true, "luitenant": true, "commandant": true, "comm": true,
	"koning": true, "koningin": true, "kon": true, "prins": true, "prinses": true, "pr": true,
	"graaf": true, "gravin": true, "baron": true, "barones": true, "hertog": true,
}

// notInitials are short words with a dot that belong to the name: a saint ("St.") or Our
// Lady ("O.L.Vrouwestraat") is part of what the street is called, and so is "v." (van).
var notInitials = map[string]bool{"st": true, "ste": true, "sint": true, "o": true, "v": true}

// streetWords are the canonical street types: a core that is nothing more ("Dr. Laan")
// names no street in particular.
var streetWords = map[string]bool{
	"str": true, "ln": true, "wg": true, "pl": true, "dk": true, "plnts": true, "stwg": true,
	"av": true, "bd": true, "chee": true, "chem": true, "sq": true, "imp": true, "rte": true,
}

// minCoreLen is the shortest core (letters, spaces aside) that counts: shorter ones are
// surnames such as "Bos" that many streets end in.
const minCoreLen = 5

// nameWord is one word of a name as fold splits it, with what stands right around it.
type nameWord struct {
	folded     string
	dot        bool // a dot follows at once: an abbreviation ("Mr.", "J.", "Th.")
	apostrophe bool // an apostrophe touches it: an article or elision ("'s", "'t", "d'")
}

// coreOffset returns where the core of a name starts in fold(name), 0 when the name opens
// with no title or initial (or is nothing but them).
func coreOffset(name string) int {
	words := nameWords(name)
	k := 0
	for k < len(words) && isTitleOrInitial(words[k]) {
		k++
	}
	if k == 0 || k == len(words) {
		return 0
	}
	f := fold(name)
	var core []string
	for _, w := range words[k:] {
		core = append(core, w.folded)
	}
	c := strings.Join(core, " ")
	if !strings.HasSuffix(f, c) || !distinctiveCore(c) {
		return 0
	}
	return len(f) - len(c)
}

// distinctiveCore reports whether a core can name one street: long enough, and more than a
// street type.
func distinctiveCore(c string) bool {
	if len(c)-strings.Count(c, " ") < minCoreLen {
		return false
	}
	return !streetWords[canon(c)]
}

func isTitleOrInitial(w nameWord) bool {
	switch {
	case w.apostrophe || notInitials[w.folded]:
		return false
	case titleWords[w.folded]:
		return true
	case !asciiLettersOnly(w.folded):
		return false
	case len(w.folded) == 1:
		return true // "J C Bührmannlaan"
	}
	return w.dot && len(w.folded) <= 4 // "Th.", "Joh.", "Chr."
}

func asciiLettersOnly(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return s != ""
}

// nameWords splits a name into words the way fold does (runs of letters and digits;
// combining marks and format characters inside a word), noting the punctuation around each.
func nameWords(s string) []nameWord {
	var out []nameWord
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !isNameRune(r) {
			i += n
			continue
		}
		start := i
		for i < len(s) {
			r, n := utf8.DecodeRuneInString(s[i:])
			if !isNameRune(r) && !unicode.Is(unicode.Mn, r) && !unicode.Is(unicode.Cf, r) {
				break
			}
			i += n
		}
		w := nameWord{folded: fold(s[start:i])}
		w.dot = i < len(s) && s[i] == '.'
		w.apostrophe = isApostropheAt(s, i) || start > 0 && isApostropheBefore(s, start)
		if w.folded != "" {
			out = append(out, w)
		}
	}
	return out
}

func isNameRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

func isApostropheAt(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return r == '\'' || r == '’' || r == '`'
}

func isApostropheBefore(s string, i int) bool {
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return r == '\'' || r == '’' || r == '`'
}

// coreOf returns the core of a folded name that starts at off, "" when there is none.
func coreOf(folded string, off int) string {
	if off <= 0 || off >= len(folded) {
		return ""
	}
	return folded[off:]
}

// matchCore reports whether a typed name and a register name have the same core, where at
// least one of them has titles or initials to drop: "Bührmannlaan", "Mr. Bührmannlaan" and
// "J.C. Bührmannlaan" for "Mr.J.C.Bührmannlaan", and "Troelstraln" by its abbreviation.
func matchCore(t typedName, v nameVariant) bool {
	if t.core == "" && v.core == "" {
		return false
	}
	tcCompact, tcCanon := t.coreCompact, t.coreCanon
	if t.core == "" {
		tcCompact, tcCanon = t.compact, t.canon
	}
	if v.core == "" {
		return equalWithoutSpaces(tcCompact, v.folded) || tcCanon == v.canon
	}
	if equalWithoutSpaces(tcCompact, v.core) {
		return true
	}
	// canon works word by word, so the core's canonical form ends the name's: only a
	// name whose canonical form ends in the typed one is worth reducing again.
	return strings.HasSuffix(v.canon, tcCanon) && tcCanon == canon(v.core)
}

// strongStreets returns the streets of the lists that t names as the register writes them
// (up to case, diacritics and abbreviations) or by their core: first the exact matches,
// best level first and in the lists' order among equals (a street in two lists twice), as
// rankStreets has them, then the core matches in coreStreets' order. It runs whenever the
// street found so far is merely similar, which is most typos, and a big city's lists hold
// thousands of streets: so the candidates come from the index (the exact keys and the word
// starts), country-wide, and the lists are read only when there are some, each street
// costing a binary search among a handful of candidates instead of its names' keys.
func (ix *index) strongStreets(t typedName, lists [][]uint32) []uint32 {
	exact := ix.exactKeyStreets(t)
	core := ix.coreStreets(t)
	if len(exact) == 0 && len(core) == 0 {
		return nil
	}
	// The level each exact candidate matches at, levelNone for a key collision.
	levels := make([]level, len(exact))
	var buf [4]nameVariant
	for i, st := range exact {
		levels[i] = matchStreetExactly(t, ix.streetVariants(st, &buf)).level
	}
	cands := slices.Concat(exact, core)
	slices.Sort(cands)
	cands = slices.Compact(cands)
	inLists := make([]bool, len(cands))
	type found struct {
		st  uint32
		lvl level
	}
	var hits []found
	for _, l := range lists {
		for _, st := range l {
			c, ok := slices.BinarySearch(cands, st)
			if !ok {
				continue
			}
			inLists[c] = true
			if e, ok := slices.BinarySearch(exact, st); ok && levels[e] != levelNone {
				hits = append(hits, found{st, levels[e]})
			}
		}
	}
	// Each level has one score, so ordering by level is rankStreets' order.
	slices.SortStableFunc(hits, func(a, b found) int { return cmp.Compare(b.lvl, a.lvl) })
	out := make([]uint32, 0, len(hits))
	for _, h := range hits {
		out = append(out, h.st)
	}
	for _, st := range core {
		c, _ := slices.BinarySearch(cands, st)
		if e, ok := slices.BinarySearch(exact, st); inLists[c] && (!ok || levels[e] == levelNone) {
			out = append(out, st)
		}
	}
	return out
}

// coreStreets returns the streets, country-wide, whose core is the typed name, or whose
// whole name is the core of a typed name with titles or initials, each once, in key order.
// Every word start of every folded name is a key of the index, so a core is a key whose
// text ends where the typed text does, at the offset where its name's core starts. Cores
// that meet only by their abbreviations ("Troelstraln") are not found here; the similarity
// pass finds those among a postcode's streets. A typed "Mr. Kerkstraat" reaches every
// Kerkstraat of the country, so repeats are dropped with a set, not by searching the list.
func (ix *index) coreStreets(t typedName) []uint32 {
	q := t.core
	if q == "" {
		q = t.folded
	}
	if !distinctiveCore(q) {
		return nil
	}
	var out []uint32
	seen := map[uint32]bool{}
	lo, hi := ix.prefixRange(q)
	for i := lo; i < hi; i++ {
		if len(ix.sortedKey(i)) != len(q) {
			continue
		}
		k := ix.keys[i]
		for _, p := range ix.postings(k.text) {
			if k.off == 0 && t.core == "" || k.off > 0 && ix.coreAt(p, k.text) != k.off {
				continue
			}
			if !seen[p.street] {
				seen[p.street] = true
				out = append(out, p.street)
			}
		}
	}
	return out
}

// coreAt is where the core of the posting's name starts in text.
func (ix *index) coreAt(p variant, text uint32) uint8 {
	for i := ix.varOff[p.street]; i < ix.varOff[p.street+1]; i++ {
		if v := &ix.vars[i]; v.text == text && v.kind == p.kind {
			return v.core
		}
	}
	return 0
}
