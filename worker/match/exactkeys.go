package match

import (
	"cmp"
	"slices"
	"unicode"
	"unicode/utf8"
)

// exactKeys are hashes of the three forms exactLevel compares: the name up to letter case and
// white space, the folded name without spaces, and the canonical name. A typed name can only
// match a register name at an exact level when one of its keys equals the name's, so a
// request holding a typed street against every street of a large city or a Belgian
// municipality compares three integers per name instead of reading it; the names themselves
// are compared only when a key agrees. A collision costs one full comparison, never a
// wrong answer.
type exactKeys struct {
	text, compact, canon uint32
}

// keysOf computes the keys of a name: its text as written (typed or as the register has it),
// its folded form and its canonical form.
func keysOf(text, folded, canonical string) exactKeys {
	return exactKeys{text: caselessKey(text), compact: compactKey(folded), canon: bytesKey(canonical)}
}

// mayMatchExactly is false when no exact level can hold between the names.
func (k exactKeys) mayMatchExactly(o exactKeys) bool {
	return k.text == o.text || k.compact == o.compact || k.canon == o.canon
}

const (
	fnvOffset = 2166136261
	fnvPrime  = 16777619
)

// caselessKey hashes s so that any two strings strings.EqualFold finds equal once white
// space is collapsed (sameRegisterText) hash alike: white space (unicode.IsSpace, as
// strings.Fields splits on) is left out and every rune stands for its whole case-folding
// orbit, by the orbit's smallest rune.
func caselessKey(s string) uint32 {
	h := uint32(fnvOffset)
	for _, r := range s {
		if r < utf8.RuneSelf {
			switch {
			case r == ' ', r >= '\t' && r <= '\r':
				continue
			case r >= 'a' && r <= 'z':
				r -= 'a' - 'A'
			}
		} else {
			if unicode.IsSpace(r) {
				continue
			}
			r = orbitMin(r)
		}
		h = (h ^ uint32(r)) * fnvPrime
	}
	return h
}

// orbitMin is the smallest rune of r's simple case-folding orbit: for ASCII letters the upper
// case, as caselessKey's fast path has it.
func orbitMin(r rune) rune {
	m := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		m = min(m, f)
	}
	return m
}

// compactKey hashes a folded name without its spaces (equalWithoutSpaces).
func compactKey(folded string) uint32 {
	h := uint32(fnvOffset)
	for i := 0; i < len(folded); i++ {
		if c := folded[i]; c != ' ' {
			h = (h ^ uint32(c)) * fnvPrime
		}
	}
	return h
}

func bytesKey(s string) uint32 {
	h := uint32(fnvOffset)
	for i := 0; i < len(s); i++ {
		h = (h ^ uint32(s[i])) * fnvPrime
	}
	return h
}

// keyStreet is one entry of the index's table of exact keys: a key of one of the street's
// names (any of the three kinds).
type keyStreet struct {
	key, street uint32
}

// buildKeyStreets lists every key of every name variant with its street, sorted, so that
// the streets a typed name may match exactly are found country-wide by three binary
// searches instead of by reading the keys of every street of a city. The three kinds share
// one table: a key of one kind equal to another kind's is a collision like any other.
func (ix *index) buildKeyStreets() {
	ix.keyStreets = make([]keyStreet, 0, 3*len(ix.varKeys))
	for st := range ix.streets {
		for i := ix.varOff[st]; i < ix.varOff[st+1]; i++ {
			k := ix.varKeys[i]
			for _, key := range [...]uint32{k.text, k.compact, k.canon} {
				ix.keyStreets = append(ix.keyStreets, keyStreet{key, uint32(st)})
			}
		}
	}
	slices.SortFunc(ix.keyStreets, func(a, b keyStreet) int {
		if a.key != b.key {
			return cmp.Compare(a.key, b.key)
		}
		return cmp.Compare(a.street, b.street)
	})
	ix.keyStreets = slices.Clip(slices.Compact(ix.keyStreets))
}

// exactKeyStreets returns, sorted and each once, the streets with a name that shares a key
// with t: every street mayMatchExactly lets through, and a few collisions.
func (ix *index) exactKeyStreets(t typedName) []uint32 {
	var out []uint32
	for _, key := range [...]uint32{t.keys.text, t.keys.compact, t.keys.canon, t.altKey} {
		if key == 0 {
			continue
		}
		i, _ := slices.BinarySearchFunc(ix.keyStreets, key, func(e keyStreet, k uint32) int { return cmp.Compare(e.key, k) })
		for ; i < len(ix.keyStreets) && ix.keyStreets[i].key == key; i++ {
			out = append(out, ix.keyStreets[i].street)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
