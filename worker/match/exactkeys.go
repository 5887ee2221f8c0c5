package match

import (
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
