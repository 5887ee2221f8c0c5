package gen

import "math/bits"

// rng is splitmix64. The generator keeps its own generator rather than math/rand so that
// the output for a seed is fixed by this file alone, whatever the Go release, and every
// decision is integer arithmetic so it cannot drift with a platform's floating point.
type rng struct{ s uint64 }

// newRNG derives an independent stream for one purpose (a region, a street, a record)
// from the seed, so that parts of the output can be produced in any order, or in parallel,
// and still come out the same.
func newRNG(seed uint64, stream ...uint64) rng {
	r := rng{s: mix(seed ^ 0x6a09e667f3bcc908)}
	for _, s := range stream {
		r.s = mix(r.s ^ mix(s+0x9e3779b97f4a7c15))
	}
	return r
}

func mix(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func (r *rng) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	return mix(r.s)
}

// intn returns a value in [0, n) for 0 < n < 2^32 (multiply-shift; the bias is below 2^-32).
func (r *rng) intn(n int) int {
	return int(((r.next() >> 32) * uint64(n)) >> 32)
}

// between returns a value in [lo, hi].
func (r *rng) between(lo, hi int) int { return lo + r.intn(hi-lo+1) }

// ppm is true with the given probability in parts per million.
func (r *rng) ppm(p int) bool { return r.intn(1_000_000) < p }

// pick draws an index with probability proportional to cumulative weights cum (cum[i] is
// the sum of the weights up to and including i).
func (r *rng) pick(cum []int64) int {
	t := int64((r.next() >> 1) % uint64(cum[len(cum)-1]))
	lo, hi := 0, len(cum)-1
	for lo < hi {
		m := (lo + hi) / 2
		if cum[m] > t {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo
}

// heavy draws a positive weight with mean about 1000 from a log-normal shape (sigma 1):
// most streets and places are small, a few are very large. The quantiles are fixed
// integers so that the draw is exact on every platform.
func (r *rng) heavy() int64 {
	i := r.intn(len(heavyQuantiles))
	lo := heavyQuantiles[i]
	hi := lo * 3 / 2
	if i+1 < len(heavyQuantiles) {
		hi = heavyQuantiles[i+1]
	}
	return lo + int64(r.intn(int(hi-lo)+1))
}

// heavyQuantiles are the 64 mid-bin quantiles of a log-normal distribution with sigma 1,
// scaled to mean 1000.
var heavyQuantiles = [...]int64{55, 85, 106, 125, 142, 158, 173, 188, 203, 218, 233, 247, 262, 277, 292,
	307, 323, 339, 355, 371, 388, 405, 422, 440, 459, 478, 498, 518, 539, 561, 583, 606, 631, 656, 682,
	710, 738, 768, 800, 833, 868, 905, 945, 986, 1031, 1078, 1130, 1185, 1244, 1309, 1381, 1459, 1546,
	1644, 1755, 1882, 2031, 2208, 2424, 2699, 3066, 3600, 4512, 6937}

// shuffle permutes n items in place through swap (Fisher-Yates).
func (r *rng) shuffle(n int, swap func(i, j int)) {
	for i := n - 1; i > 0; i-- {
		swap(i, r.intn(i+1))
	}
}

// split divides total into len(weights) integer parts proportional to the weights, summing
// exactly to total: part i is round(total*W_i/W) - round(total*W_{i-1}/W) over the running
// sums W_i, so no rounding error accumulates.
func split(total int64, weights []int64) []int64 {
	var sum int64
	for _, w := range weights {
		sum += w
	}
	out := make([]int64, len(weights))
	if sum == 0 {
		return out
	}
	var run, prev int64
	for i, w := range weights {
		run += w
		cur := mulDivRound(total, run, sum)
		out[i] = cur - prev
		prev = cur
	}
	return out
}

// mulDivRound computes round(a*b/c) through a 128-bit product, so that large
// weight sums cannot overflow; the quotient must fit 64 bits (b <= c).
func mulDivRound(a, b, c int64) int64 {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	q, r := bits.Div64(hi, lo, uint64(c))
	if 2*r >= uint64(c) {
		q++
	}
	return int64(q)
}
