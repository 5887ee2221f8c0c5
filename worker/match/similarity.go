package match

// The street cascade ends with a fuzzy comparison. A single measure misjudges street names:
// edit distance punishes a missing word as hard as ten typos, bigram overlap ignores order and
// a common subsequence alone rewards "Kerkstraat" for "Kerkweg". The Flemish Adresmatch blend of
// the three (Dice bigrams three times, Levenshtein and longest common subsequence once each,
// the last two divided by 0.8) is cheap, explainable and proven on Belgian names; we use it
// with its threshold of 0.75.

// similarityThreshold is the score from which a fuzzy street or city match counts.
const similarityThreshold = 0.75

// similarity scores two folded strings between 0 and 1. Strings whose numbers differ score
// 0: "1e Vogelstraat" and "2e Vogelstraat" are different streets however close the letters
// are (Adresmatch pads numbers to weigh them heavily; refusing the match outright is simpler
// and stricter).
func similarity(a, b string) float64 {
	return typedName{folded: a, bigrams: sortedBigrams(a)}.similarity(b)
}

// similarity scores the typed name against a folded register name, reusing the typed
// name's bigrams: the typed side is compared with hundreds of names per request.
func (t typedName) similarity(b string) float64 { return t.similarityTo(b, nil) }

// similarityTo is similarity with the sorted bigrams of b given (gb), when known.
func (t typedName) similarityTo(b string, gb []uint16) float64 {
	a := t.folded
	if a == b {
		return 1
	}
	if a == "" || b == "" {
		return 0
	}
	if !sameNumbers(a, b) {
		return 0
	}
	if gb == nil {
		var buf [96]uint16
		gb = buf[:0]
		if len(b)+1 > len(buf) {
			gb = make([]uint16, 0, len(b)+1)
		}
		gb = appendSortedBigrams(gb, b)
	}
	dice := 2 * float64(commonSorted(t.bigrams, gb)) / float64(len(t.bigrams)+len(gb))
	// Levenshtein and subsequence each add at most 1/0.8: when even that cannot lift the
	// score over the threshold, the two quadratic measures are not worth computing.
	if (3*dice+2/0.8)/5.5 < similarityThreshold {
		return (3 * dice) / 5.5
	}
	m := max(len(a), len(b))
	d := osaDistance(a, b, m)
	lev := 1 - float64(d)/float64(m)
	lcs := float64(longestCommonSubsequence(a, b)) / float64(m)
	score := (3*dice + lev/0.8 + lcs/0.8) / 5.5
	if d == 1 && min(len(a), len(b)) >= minOneEditLen {
		// One typo (a letter dropped, added, changed, or two swapped) in a short name:
		// "Hotuweg" for Houtweg shares too few bigrams for the blend, as a swap changes
		// three of a short name's seven.
		score = max(score, similarityThreshold)
	}
	return score
}

// minOneEditLen is the shortest name in which one typo still leaves it recognisable:
// shorter names are one letter apart from other names too often ("Dam", "Dijk", "Dorp").
const minOneEditLen = 6

// similarityBound is the highest similarity two texts of lengths la and lb can have: the
// bigrams shared, the edit distance and the common subsequence are all limited by the
// lengths alone.
func similarityBound(la, lb int) float64 {
	short, long := min(la, lb), max(la, lb)
	if long == 0 {
		return 1
	}
	dice := 2 * float64(short+1) / float64(la+lb+2)
	lev := float64(short) / float64(long) // 1 - (long-short)/long
	lcs := float64(short) / float64(long)
	return (3*dice + lev/0.8 + lcs/0.8) / 5.5
}

func sortedBigrams(s string) []uint16 { return appendSortedBigrams(make([]uint16, 0, len(s)+1), s) }

// appendSortedBigrams appends the bigrams of s to dst, sorted among themselves.
func appendSortedBigrams(dst []uint16, s string) []uint16 {
	n := len(dst)
	dst = bigrams(dst, s)
	sortU16(dst[n:])
	return dst
}

// commonSorted counts the elements two sorted multisets share.
func commonSorted(ga, gb []uint16) int {
	common := 0
	for i, j := 0, 0; i < len(ga) && j < len(gb); {
		switch {
		case ga[i] == gb[j]:
			common++
			i++
			j++
		case ga[i] < gb[j]:
			i++
		default:
			j++
		}
	}
	return common
}

// sameNumbers reports whether a and b contain the same digit runs in the same order.
func sameNumbers(a, b string) bool {
	i, j := 0, 0
	for {
		sa, na := nextDigits(a, i)
		sb, nb := nextDigits(b, j)
		if sa != sb {
			return false
		}
		if sa == "" {
			return true
		}
		i, j = na, nb
	}
}

func nextDigits(s string, from int) (string, int) {
	i := from
	for i < len(s) && (s[i] < '0' || s[i] > '9') {
		i++
	}
	j := i
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	return s[i:j], j
}

// bigrams appends the byte bigrams of s, framed with a start and an end sentinel so that
// first and last letters count as much as the middle ones (the Dice part of similarity).
func bigrams(dst []uint16, s string) []uint16 {
	prev := byte('%')
	for i := 0; i < len(s); i++ {
		dst = append(dst, uint16(prev)<<8|uint16(s[i]))
		prev = s[i]
	}
	return append(dst, uint16(prev)<<8|'#')
}

// sortU16 is an insertion sort: bigram lists are short and this avoids sort.Slice's
// allocation on a hot path.
func sortU16(s []uint16) {
	for i := 1; i < len(s); i++ {
		v := s[i]
		j := i
		for j > 0 && s[j-1] > v {
			s[j] = s[j-1]
			j--
		}
		s[j] = v
	}
}

// osaDistance is the optimal-string-alignment distance (Levenshtein plus adjacent
// transpositions, the commonest typing error). It stops early and returns limit+1 once the
// distance must exceed limit.
func osaDistance(a, b string, limit int) int {
	if len(a) < len(b) {
		a, b = b, a
	}
	if len(a)-len(b) > limit {
		return limit + 1
	}
	n := len(b)
	var buf [3 * 97]int
	var rows []int
	if 3*(n+1) <= len(buf) {
		rows = buf[:3*(n+1)]
	} else {
		rows = make([]int, 3*(n+1))
	}
	prev2, prev, cur := rows[:n+1], rows[n+1:2*(n+1)], rows[2*(n+1):]
	for j := 0; j <= n; j++ {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= n; j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				v = min(v, prev2[j-2]+1)
			}
			cur[j] = v
			rowMin = min(rowMin, v)
		}
		if rowMin > limit {
			return limit + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[n]
}

// longestCommonSubsequence returns the length of the longest sequence of letters both
// strings hold in the same order (gaps allowed), which forgives a swapped or dropped letter
// where a common substring would be cut in two.
func longestCommonSubsequence(a, b string) int {
	if len(a) < len(b) {
		a, b = b, a
	}
	n := len(b)
	var buf [2 * 97]int
	var rows []int
	if 2*(n+1) <= len(buf) {
		rows = buf[:2*(n+1)]
	} else {
		rows = make([]int, 2*(n+1))
	}
	prev, cur := rows[:n+1], rows[n+1:]
	for i := 1; i <= len(a); i++ {
		cur[0] = 0
		for j := 1; j <= n; j++ {
			if a[i-1] == b[j-1] {
				cur[j] = prev[j-1] + 1
			} else {
				cur[j] = max(prev[j], cur[j-1])
			}
		}
		prev, cur = cur, prev
	}
	return prev[n]
}
