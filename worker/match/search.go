package match

import (
	"cmp"
	"slices"
	"sort"
	"strings"
)

// Street search while a person types. Ranking follows what people expect of a type-ahead
// (addok, Pelias): a name that starts with what was typed beats a name with a later word that
// starts with it, and both beat a typo-tolerant guess; fuzzy matching only runs when the
// exact tiers leave the list short, which keeps most keystrokes cheap and avoids surprising
// guesses. Ties go to the bigger street (more postcodes and localities: the likelier one)
// and then to the alphabet, so the answer is stable.

const (
	tierName  = 0 // the name starts with the query
	tierWord  = 1 // a later word of the name starts with it
	tierFuzzy = 2 // within the edit budget of a prefix of a word
)

type hit struct {
	street uint32
	alpha  uint32
	freq   uint32 // how many streets carry the matched name
	kind   nameKind
	tier   uint8
	dist   uint8
	word   bool // matched at a later word, not the name's start
}

// editBudget is how many typing errors a query of this length may hold: none below four
// letters (too many streets are one edit apart), one up to six, two beyond.
func editBudget(q string) int {
	switch n := len(q); {
	case n < 4:
		return 0
	case n <= 6:
		return 1
	}
	return 2
}

// searchStreets returns up to limit streets of the whole country for the folded query,
// ranked.
func (ix *index) searchStreets(q string, limit int) []hit {
	if q == "" || limit <= 0 {
		return nil
	}
	sc := ix.getScratch()
	defer ix.putScratch(sc)
	add := func(t uint32, tier uint8, dist uint8, word bool) {
		vs := ix.postings(t)
		freq := uint32(len(vs))
		for _, v := range vs {
			h := hit{street: v.street, alpha: v.alpha, freq: freq, kind: v.kind, tier: tier, dist: dist, word: word}
			if p := sc.slot[v.street]; p == 0 {
				sc.hits = append(sc.hits, h)
				sc.slot[v.street] = int32(len(sc.hits))
			} else if betterHit(h, sc.hits[p-1]) {
				sc.hits[p-1] = h
			}
		}
	}
	lo, hi := ix.prefixRange(q)
	for _, k := range ix.keys[lo:hi] {
		tier := uint8(tierName)
		if k.off > 0 {
			tier = tierWord
		}
		add(k.text, tier, 0, k.off > 0)
	}
	if budget := editBudget(q); len(sc.hits) < limit && budget > 0 {
		visit := func(from, to int, dist int) {
			for _, k := range ix.keys[from:to] {
				add(k.text, tierFuzzy, uint8(dist), k.off > 0)
			}
		}
		// Typos are searched cheapest first, and a costlier step runs only while the list
		// is short: one edit before two (a closer guess always ranks first), and names
		// with the first letter as typed (people rarely get that one wrong) before all.
		before := len(sc.hits)
		lo, hi := ix.prefixRange(q[:1])
		for b := 1; b <= budget && len(sc.hits) < limit; b++ {
			ix.fuzzyPrefix(sc, q, b, lo, hi, visit)
		}
		if len(sc.hits) == 0 && before == 0 {
			ix.fuzzyPrefix(sc, q, budget, 0, len(ix.keys), visit)
		}
	}
	return ix.rank(sc.hits, limit)
}

// scratch deduplicates the hits of one search by street without a map: slot[s] is the
// position+1 of street s in hits. Only the touched slots are cleared after use.
type scratch struct {
	slot []int32
	hits []hit
	// rows and bestAt are fuzzyPrefix's tables: 256 rows of the query's length each, tens
	// of kilobytes per call that would otherwise be allocated for every typo-tolerant
	// keystroke and collected with the rest.
	rows   []int32
	bestAt []int32
}

// zeroed returns buf resized to n and cleared, reallocated only when too small.
func zeroed(buf []int32, n int) []int32 {
	if cap(buf) < n {
		return make([]int32, n)
	}
	buf = buf[:n]
	clear(buf)
	return buf
}

func (ix *index) getScratch() *scratch {
	if sc, ok := ix.scratch.Get().(*scratch); ok {
		return sc
	}
	return &scratch{slot: make([]int32, len(ix.streets))}
}

func (ix *index) putScratch(sc *scratch) {
	for _, h := range sc.hits {
		sc.slot[h.street] = 0
	}
	sc.hits = sc.hits[:0]
	ix.scratch.Put(sc)
}

func betterHit(a, b hit) bool {
	if a.tier != b.tier {
		return a.tier < b.tier
	}
	if a.dist != b.dist {
		return a.dist < b.dist
	}
	if a.word != b.word {
		return !a.word
	}
	return a.kind < b.kind
}

// rank orders the hits and returns the first limit in a new slice; hits is reordered.
func (ix *index) rank(hits []hit, limit int) []hit {
	cmpHit := func(a, b hit) int {
		if c := cmp.Compare(a.tier, b.tier); c != 0 {
			return c
		}
		if c := cmp.Compare(a.dist, b.dist); c != 0 {
			return c
		}
		if a.word != b.word {
			if a.word {
				return 1
			}
			return -1
		}
		if a.tier == tierFuzzy {
			// Between equally close guesses the commoner name is the likelier intent
			// ("krekstraat" is a Kerkstraat, of which there are hundreds, before a
			// Keekstraat).
			if c := cmp.Compare(b.freq, a.freq); c != 0 {
				return c
			}
		}
		if c := cmp.Compare(ix.streets[b.street].size, ix.streets[a.street].size); c != 0 {
			return c
		}
		if c := cmp.Compare(a.alpha, b.alpha); c != 0 {
			return c
		}
		return cmp.Compare(a.street, b.street)
	}
	if len(hits) > 4*limit {
		// Partial selection: most prefix queries at national size match thousands of
		// streets and only ten are wanted.
		hits = selectTop(hits, limit, cmpHit)
	}
	slices.SortFunc(hits, cmpHit)
	if len(hits) > limit {
		hits = hits[:limit]
	}
	return slices.Clone(hits)
}

// selectTop keeps the limit smallest hits under cmpHit, in no particular order, in linear
// time on average (quickselect).
func selectTop(hits []hit, limit int, cmpHit func(a, b hit) int) []hit {
	lo, hi := 0, len(hits)-1
	for lo < hi {
		p := hits[(lo+hi)/2]
		i, j := lo, hi
		for i <= j {
			for cmpHit(hits[i], p) < 0 {
				i++
			}
			for cmpHit(hits[j], p) > 0 {
				j--
			}
			if i <= j {
				hits[i], hits[j] = hits[j], hits[i]
				i++
				j--
			}
		}
		switch {
		case limit-1 <= j:
			hi = j
		case limit-1 >= i:
			lo = i
		default:
			return hits[:limit]
		}
	}
	return hits[:limit]
}

// fuzzyPrefix finds the keys whose text starts with something within budget edits of q, with
// the smallest such distance. The sorted keys are walked as an implicit trie: the edit
// distance rows of a key's common prefix with the previous key are reused, a subtree is
// skipped as soon as no row value stays within budget, and a whole subtree is reported at once
// when its prefix already reaches the smallest distance any longer prefix could have.
func (ix *index) fuzzyPrefix(sc *scratch, q string, budget, from, to int, visit func(from, to int, dist int)) {
	m := len(q)
	width := m + 1
	const maxDepth = 255
	sc.rows = zeroed(sc.rows, (maxDepth+1)*width)
	rows := sc.rows
	// bestAt[d] is the smallest distance between q and a prefix of length <= d.
	sc.bestAt = zeroed(sc.bestAt, maxDepth+1)
	bestAt := sc.bestAt
	for j := 0; j <= m; j++ {
		rows[j] = int32(j)
	}
	bestAt[0] = int32(m)
	b := int32(budget)
	valid := 0 // rows are valid up to this depth for the previous key
	shared := 0
	for i := from; i < to; {
		k := ix.sortedKey(i)
		d := min(shared, valid)
		next := i + 1
		done := false
		for depth := d + 1; depth <= len(k) && depth <= maxDepth; depth++ {
			// Only cells within budget of the diagonal can stay within budget; the
			// cells just outside the band hold budget+1 as sentinels.
			row := rows[depth*width : (depth+1)*width]
			up := rows[(depth-1)*width : depth*width]
			c := k[depth-1]
			lo, hi := max(1, depth-budget), min(m, depth+budget)
			row[0] = int32(depth)
			if lo > 1 {
				row[lo-1] = b + 1
			}
			if hi < m {
				row[hi+1] = b + 1
			}
			rowMin := int32(depth)
			if lo > 1 {
				rowMin = b + 1
			}
			for j := lo; j <= hi; j++ {
				v := up[j-1]
				if q[j-1] != c {
					v++
				}
				v = min(v, up[j]+1, row[j-1]+1)
				if depth > 1 && j > 1 && q[j-1] == k[depth-2] && q[j-2] == c {
					v = min(v, rows[(depth-2)*width+j-2]+1)
				}
				row[j] = v
				rowMin = min(rowMin, v)
			}
			last := b + 1
			if hi == m {
				last = row[m]
			}
			valid = depth
			bestAt[depth] = min(bestAt[depth-1], last)
			if rowMin > b || bestAt[depth] <= rowMin {
				// Nothing below this prefix can get closer: report or skip the subtree.
				var common int
				next, common = ix.subtreeEnd(i, depth, to)
				if bestAt[depth] <= b {
					visit(i, next, int(bestAt[depth]))
				}
				shared = common
				done = true
				break
			}
		}
		if !done {
			if last := min(len(k), valid); bestAt[last] <= b {
				visit(i, i+1, int(bestAt[last]))
			}
			if next < to {
				shared = int(ix.lcp[next])
			}
		}
		i = next
	}
}

// subtreeEnd returns the first key after i that does not share the first depth bytes of key
// i, and how many bytes that key shares with key i (0 at to). Most subtrees the walk skips are
// a few keys, whose lcp values it reads; a large one (every name under "ka" once the typed
// text has gone too far from it) is crossed by galloping over the sorted key texts.
func (ix *index) subtreeEnd(i, depth, to int) (end, common int) {
	const scan = 16
	common = 255
	j := i + 1
	for ; j < to && j <= i+scan; j++ {
		l := int(ix.lcp[j])
		common = min(common, l)
		if l < depth {
			return j, common
		}
	}
	if j >= to {
		return to, 0
	}
	prefix := ix.sortedKey(i)[:depth]
	inside := func(k int) bool { return strings.HasPrefix(ix.sortedKey(k), prefix) }
	lo, step := j-1, scan // lo is inside the subtree
	for lo+step < to && inside(lo+step) {
		lo += step
		step *= 2
	}
	hi := min(lo+step, to) // the end is in (lo, hi]
	end = lo + 1 + sort.Search(hi-lo-1, func(x int) bool { return !inside(lo + 1 + x) })
	if end >= to {
		return to, 0
	}
	return end, min(commonPrefix(ix.sortedKey(i), ix.sortedKey(end)), 255)
}

func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// fuzzyPrefixDistance is the same measure for one text, for small candidate sets (the
// streets of one postcode) where walking the whole index would be wasteful. It returns the
// smallest distance between q and any word-start prefix of text, or budget+1.
func fuzzyPrefixDistance(q, text string, budget int) int {
	best := budget + 1
	for off := 0; off < len(text); off++ {
		if off > 0 && text[off-1] != ' ' {
			continue
		}
		if d := prefixDistance(q, text[off:], budget); d < best {
			best = d
		}
	}
	return best
}

// prefixDistance is min over prefixes p of s of the OSA distance between q and p.
func prefixDistance(q, s string, budget int) int {
	m := len(q)
	var buf [3 * 101]int
	var rows []int
	if 3*(m+1) <= len(buf) {
		rows = buf[:3*(m+1)]
	} else {
		rows = make([]int, 3*(m+1))
	}
	prev2, prev, cur := rows[:m+1], rows[m+1:2*(m+1)], rows[2*(m+1):]
	for j := 0; j <= m; j++ {
		prev[j] = j
	}
	best := prev[m]
	for i := 1; i <= len(s); i++ {
		c := s[i-1]
		cur[0] = i
		rowMin := i
		for j := 1; j <= m; j++ {
			cost := 1
			if q[j-1] == c {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && q[j-1] == s[i-2] && q[j-2] == c {
				v = min(v, prev2[j-2]+1)
			}
			cur[j] = v
			rowMin = min(rowMin, v)
		}
		best = min(best, cur[m])
		if rowMin > budget {
			break
		}
		prev2, prev, cur = prev, cur, prev2
	}
	if best > budget {
		return budget + 1
	}
	return best
}
