package match

// The loose pass of the street ranking compares a typed street by similarity and
// containment with every street of a city when none matched exactly; a large city has
// thousands. A street's signature rules most of them out without reading their names: a
// 256-bit set of the bigrams of its names, and the length of its shortest name. Each loose
// level needs a share of the typed name's bigrams to be among the street's:
//
//   - similarity ≥ similarityThreshold needs a Dice coefficient of at least minDice (the
//     edit distance and the common subsequence add at most 2/0.8 to the score); with c
//     common bigrams, c ≤ u and c ≤ the name's bigrams, so 2u/(len(typed)+u) ≥ minDice;
//   - the typed name as a prefix of a name (four letters or more) puts every typed bigram
//     but the closing one in the name: u ≥ len(typed)−1, which the bound for similarity
//     (u ≥ 0.37·len(typed)) already admits;
//   - a name of L letters as words of the typed text puts its L−1 inner bigrams in the
//     typed text: u ≥ L−1 ≥ the shortest name's length − 1, and the text is longer than L.
//
// u counts the typed bigrams (with repeats) whose bit is set in the street's signature: at
// least the bigrams they share, as a bit set only ever says yes too often. A street that
// meets none of the three cannot match loosely, and is skipped.

// minDice is the lowest Dice coefficient at which similarity can reach the threshold.
const minDice = (similarityThreshold*5.5 - 2/0.8) / 3

const sigWords = 4 // 256 bits per street

func sigBit(g uint16) uint8 { return uint8((uint32(g) * 0x9E3779B1) >> 24) }

// buildLooseSigs computes every street's signature from its names' bigrams.
func (ix *index) buildLooseSigs() {
	ix.looseSig = make([]uint64, sigWords*len(ix.streets))
	ix.looseMin = make([]uint8, len(ix.streets))
	for st := range ix.streets {
		sig := ix.looseSig[sigWords*st : sigWords*(st+1)]
		shortest := 255
		for _, v := range ix.vars[ix.varOff[st]:ix.varOff[st+1]] {
			for _, g := range ix.grams[ix.gramOff[v.text]:ix.gramOff[v.text+1]] {
				b := sigBit(g)
				sig[b>>6] |= 1 << (b & 63)
			}
			shortest = min(shortest, len(ix.text(v.text)))
		}
		ix.looseMin[st] = uint8(shortest)
	}
}

// looseQuery is a typed name as the signatures are read: the bit of each of its bigrams.
type looseQuery struct {
	bits   []uint8
	length int // of the folded text
}

func newLooseQuery(t typedName) looseQuery {
	q := looseQuery{bits: make([]uint8, len(t.bigrams)), length: len(t.folded)}
	for i, g := range t.bigrams {
		q.bits[i] = sigBit(g)
	}
	return q
}

// mayMatchLoosely is false when no name of street st can match at a loose level (see
// above); true says nothing.
func (ix *index) mayMatchLoosely(q looseQuery, st uint32) bool {
	if q.length == 0 {
		return false // an empty typed name matches nothing
	}
	sig := ix.looseSig[sigWords*st : sigWords*(st+1)]
	u := 0
	for _, b := range q.bits {
		u += int(sig[b>>6] >> (b & 63) & 1)
	}
	n := len(q.bits)
	shortest := int(ix.looseMin[st])
	return 2*float64(u) >= minDice*float64(n+u) || u >= shortest-1 && q.length > shortest
}
