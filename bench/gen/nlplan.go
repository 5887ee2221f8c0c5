package gen

import (
	"errors"
	"fmt"
	"math/bits"
	"sort"
)

// National proportions of the BAG the plan scales to the requested size: about 10 million
// Nummeraanduidingen in 2,500 woonplaatsen, on 250,000 openbare ruimtes, in 342 gemeenten,
// with 460,000 six-position postcodes in about 4,000 four-digit areas.
const (
	addrPerWoonplaats = 4000
	addrPerStreet     = 40
	nationalGemeenten = 342
	nationalWPL       = 2500
	addrPerPC6Milli   = 21_700 // 21.7 addresses per PC6, in thousandths
	pc6PerPC4         = 113
	emptyStreetPPM    = 40_000 // openbare ruimtes without any address (squares, water, bridges)
	maxNL             = 30_000_000
)

// nlPlan is the skeleton of the synthetic register: woonplaatsen, gemeenten and streets, in
// the order they are written. Addresses are not stored; the walk regenerates them from the
// plan and the seed whenever a file needs them.
type nlPlan struct {
	seed     uint64
	stand    day
	total    int64
	wpl      []wplPlan
	streets  []streetPlan
	gemeente []gemPlan
}

type gemPlan struct {
	code uint64 // four digits as a number, the prefix of every identificatie
}

type wplPlan struct {
	id      uint16
	name    string
	gem     int // index in nlPlan.gemeente
	first   int // streets [first, last)
	last    int
	addrs   int64
	cx, cy  int64 // centre, RD millimetres
	radius  int64 // millimetres
	begin   day
	prevGem string // an earlier, dissolved gemeente of this woonplaats (GEM-WPL-RELATIE history)
	prevEnd day
	// pc4 are the four-digit postcodes reserved for this woonplaats, in order; perPC4 is how
	// many six-position postcodes each holds before the next is opened.
	pc4    []uint16
	perPC4 int
}

type streetPlan struct {
	id     uint64
	name   string
	short  string
	wpl    int
	typ    uint8
	addrs  int
	hist   bool  // two voorkomens: an ended one and the current one
	x, y   int64 // start, RD millimetres
	dx, dy int64 // step per house number, millimetres
}

// voorkomens is how many sl:stand records the openbare ruimte has.
func (s *streetPlan) voorkomens() int {
	if s.hist {
		return 2
	}
	return 1
}

// Openbare ruimte types as the register spells them.
var oprTypes = [...]string{"Weg", "Water", "Spoorbaan", "Terrein", "Kunstwerk", "Landschappelijk gebied", "Administratief gebied"}

const (
	oprWeg = iota
	oprWater
	oprSpoorbaan
	oprTerrein
	oprKunstwerk
	oprLandschap
	oprAdministratief
)

// RD New (EPSG:28992) extent of the Netherlands, in millimetres.
const (
	rdMinX, rdMaxX = 13_000_000, 278_000_000
	rdMinY, rdMaxY = 306_000_000, 619_000_000
)

func newNLPlan(refs *nlRefs, total int64, seed uint64, stand day) (*nlPlan, error) {
	if total < 1 {
		return nil, errors.New("NL: at least one address")
	}
	if total > maxNL {
		return nil, fmt.Errorf("NL: at most %d addresses, three times the national register, fit the four-digit postcode areas", maxNL)
	}
	p := &nlPlan{seed: seed, stand: stand, total: total}
	r := newRNG(seed, streamPlanNL)

	nW := clamp((total+addrPerWoonplaats/2)/addrPerWoonplaats, 1, int64(len(refs.woonplaats)))
	nS := max(nW, (total+addrPerStreet/2)/addrPerStreet)
	nG := clamp((nW*nationalGemeenten+nationalWPL/2)/nationalWPL, 1, int64(len(refs.gemeenten)))

	// Gemeenten: a random choice among the real current ones, in code order.
	gi := make([]int, len(refs.gemeenten))
	for i := range gi {
		gi[i] = i
	}
	r.shuffle(len(gi), func(i, j int) { gi[i], gi[j] = gi[j], gi[i] })
	gi = gi[:nG]
	sort.Ints(gi)
	for _, i := range gi {
		g := refs.gemeenten[i]
		p.gemeente = append(p.gemeente, gemPlan{code: uint64(atoiDigits(g.code))})
	}

	// Woonplaatsen: real names in a random combination. Sizes follow a Zipf law over a random
	// ranking, times a random factor, so a few cities are large and most villages small.
	names := append([]string(nil), refs.woonplaats...)
	r.shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	names = names[:nW]
	weights := make([]int64, nW)
	for i := range weights {
		weights[i] = r.heavy() * 1_000_000 / int64(i+4)
	}
	// Every gemeente gets one woonplaats, the rest go by weight.
	perGem := split(nW-nG, heavyWeights(&r, int(nG)))
	wplGem := make([]int, 0, nW)
	for g, n := range perGem {
		for range n + 1 {
			wplGem = append(wplGem, g)
		}
	}
	r.shuffle(len(wplGem), func(i, j int) { wplGem[i], wplGem[j] = wplGem[j], wplGem[i] })
	order := make([]int, nW)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		if wplGem[order[a]] != wplGem[order[b]] {
			return wplGem[order[a]] < wplGem[order[b]]
		}
		return names[order[a]] < names[order[b]]
	})
	streetsPer := split(nS-nW, weights)
	p.wpl = make([]wplPlan, nW)
	for k, i := range order {
		w := &p.wpl[k]
		w.id = uint16(1001 + k)
		w.name = names[i]
		w.gem = wplGem[i]
		w.first = int(streetsPer[i]) + 1 // a count for now; turned into a range below
		w.begin = civilDay(r.between(1950, 2008), 1, 1)
		if r.ppm(50_000) {
			d := refs.dissolved[r.intn(len(refs.dissolved))]
			w.prevGem = d.code
			w.prevEnd = civilDay(atoiDigits(d.end[:4]), atoiDigits(d.end[5:7]), atoiDigits(d.end[8:10]))
			if w.prevEnd <= w.begin || w.prevEnd >= stand {
				w.prevGem = ""
			}
		}
	}

	// Streets: counts per street are heavy-tailed around 40 and sum exactly to total.
	streetCount := 0
	for k := range p.wpl {
		n := p.wpl[k].first
		p.wpl[k].first = streetCount
		streetCount += n
		p.wpl[k].last = streetCount
	}
	sw := make([]int64, streetCount)
	for i := range sw {
		if !r.ppm(emptyStreetPPM) {
			sw[i] = r.heavy()
		}
	}
	if streetCount > 0 && sw[0] == 0 {
		sw[0] = 1000
	}
	sizes := split(total, sw)
	p.streets = make([]streetPlan, streetCount)

	// Street names come from the national frequency list: a name used by 510 public
	// spaces (Kerkstraat) is drawn 510 times as often as a unique one, and never twice
	// in one woonplaats.
	pool := newNamePool(refs, &r)
	gemSeq := make([]uint64, len(p.gemeente))
	for k := range p.wpl {
		w := &p.wpl[k]
		for i := w.first; i < w.last; i++ {
			s := &p.streets[i]
			s.wpl = k
			s.addrs = int(sizes[i])
			w.addrs += sizes[i]
			s.name = pool.next(int32(k + 1))
			s.short = shortName(s.name)
			gemSeq[w.gem]++
			s.id = p.gemeente[w.gem].code*1e12 + 30*1e10 + gemSeq[w.gem]
			s.typ = oprWeg
			if s.addrs == 0 {
				s.typ = uint8([]int{oprWeg, oprWater, oprKunstwerk, oprTerrein, oprSpoorbaan, oprLandschap, oprAdministratief}[r.pick(emptyTypeCum)])
			} else if r.ppm(15_000) {
				s.typ = oprTerrein
			}
			s.hist = r.ppm(20_000)
		}
	}
	p.place(&r)
	if err := p.postcodes(&r); err != nil {
		return nil, err
	}
	return p, nil
}

// emptyTypeCum weighs the types of openbare ruimtes without addresses.
var emptyTypeCum = cumulative([]int64{40, 20, 15, 12, 5, 5, 3})

func cumulative(w []int64) []int64 {
	out := make([]int64, len(w))
	var s int64
	for i, v := range w {
		s += v
		out[i] = s
	}
	return out
}

func heavyWeights(r *rng, n int) []int64 {
	w := make([]int64, n)
	for i := range w {
		w[i] = r.heavy()
	}
	return w
}

// place puts woonplaatsen and streets on the map: a woonplaats is a disc whose area grows
// with its addresses (about 400 m² each), a street a straight line from a point in it.
func (p *nlPlan) place(r *rng) {
	for k := range p.wpl {
		w := &p.wpl[k]
		w.radius = isqrt(w.addrs*400*1_000_000/3) + 300_000
		w.cx = int64(r.between(rdMinX/1000, rdMaxX/1000)) * 1000
		w.cy = int64(r.between(rdMinY/1000, rdMaxY/1000)) * 1000
		for i := w.first; i < w.last; i++ {
			s := &p.streets[i]
			s.x = w.cx + int64(r.between(-int(w.radius/1000), int(w.radius/1000)))*1000
			s.y = w.cy + int64(r.between(-int(w.radius/1000), int(w.radius/1000)))*1000
			d := streetDirs[r.intn(len(streetDirs))]
			step := int64(r.between(5_000, 11_000)) // 5 to 11 m between house numbers
			s.dx, s.dy = d[0]*step/1000, d[1]*step/1000
		}
	}
}

// streetDirs are unit directions in thousandths: streets run every 22.5 degrees.
var streetDirs = [...][2]int64{{1000, 0}, {924, 383}, {707, 707}, {383, 924}, {0, 1000}, {-383, 924},
	{-707, 707}, {-924, 383}, {-1000, 0}, {-924, -383}, {-707, -707}, {-383, -924}, {0, -1000},
	{383, -924}, {707, -707}, {924, -383}}

// postcodes reserves four-digit areas for every woonplaats in walk order, spread over 1000
// to 9999 with gaps as the real ones are: about 113 six-position postcodes each, a spare
// area per woonplaats for runs that come out longer than expected, and the unused numbers
// between woonplaatsen.
func (p *nlPlan) postcodes(r *rng) error {
	per := pc6PerPC4
	var need int64
	counts := make([]int, len(p.wpl))
	for {
		need = 0
		for k := range p.wpl {
			e6 := p.wpl[k].addrs*1000/addrPerPC6Milli + 1
			m := max(1, int((e6+int64(per)/2)/int64(per)))
			counts[k] = m + 1 + m/4
			need += int64(counts[k])
		}
		if need <= 8500 || per >= 350 {
			break
		}
		per += 20
	}
	if need > 9000 {
		return fmt.Errorf("NL: %d addresses need %d postcode areas, more than 1000-9999 holds", p.total, need)
	}
	gaps := split(9000-need, heavyWeights(r, len(p.wpl)+1))
	next := int64(1000) + gaps[0]
	for k := range p.wpl {
		w := &p.wpl[k]
		e6 := w.addrs*1000/addrPerPC6Milli + 1
		m := max(1, int((e6+int64(per)/2)/int64(per)))
		w.perPC4 = int(min(int64(len(pc6Letters)), (e6+int64(m)-1)/int64(m)))
		w.pc4 = make([]uint16, counts[k])
		for i := range w.pc4 {
			w.pc4[i] = uint16(next)
			next++
		}
		next += gaps[k+1]
	}
	return nil
}

// pc6Letters are the letter pairs of six-position postcodes in the order they are handed
// out: PostNL uses neither F, I, O, Q, U nor Y, and never SA, SD or SS.
var pc6Letters = func() (out [][2]byte) {
	const letters = "ABCDEGHJKLMNPRSTVWXZ"
	for _, a := range []byte(letters) {
		for _, b := range []byte(letters) {
			if a == 'S' && (b == 'A' || b == 'D' || b == 'S') {
				continue
			}
			out = append(out, [2]byte{a, b})
		}
	}
	return out
}()

// namePool deals street names in proportion to how many public spaces carry them
// nationally, dealing the whole national multiset before starting over.
type namePool struct {
	refs  *nlRefs
	r     *rng
	deck  []int32
	taken int
	// usedBy holds, per distinct name, the last woonplaats (index+1) that took it.
	usedBy []int32
}

func newNamePool(refs *nlRefs, r *rng) *namePool {
	np := &namePool{refs: refs, r: r, usedBy: make([]int32, len(refs.streets))}
	np.deal()
	return np
}

func (np *namePool) deal() {
	np.deck = np.deck[:0]
	for i, s := range np.refs.streets {
		for range s.count {
			np.deck = append(np.deck, int32(i))
		}
	}
	np.r.shuffle(len(np.deck), func(i, j int) { np.deck[i], np.deck[j] = np.deck[j], np.deck[i] })
	np.taken = 0
}

// next returns a name that woonplaats wpl (index+1) has not taken yet. Woonplaatsen take
// their streets one after the other, so remembering the last taker per name suffices. A
// woonplaats with more streets than there are distinct names would loop; the plan never
// makes one that large.
func (np *namePool) next(wpl int32) string {
	for tries := 0; ; tries++ {
		if np.taken == len(np.deck) {
			np.deal()
		}
		// Look ahead for an untaken name and swap it to the front, so the deck stays a
		// permutation.
		for j := np.taken; j < len(np.deck) && j < np.taken+4096; j++ {
			if i := np.deck[j]; np.usedBy[i] != wpl {
				np.deck[np.taken], np.deck[j] = np.deck[j], np.deck[np.taken]
				np.taken++
				np.usedBy[i] = wpl
				return np.refs.streets[i].name
			}
		}
		np.taken = len(np.deck) // the rest of this deck is all taken here: deal again
		if tries > 3 {
			panic("gen: woonplaats has more streets than distinct names")
		}
	}
}

func clamp(v, lo, hi int64) int64 { return min(max(v, lo), hi) }

func isqrt(v int64) int64 {
	if v <= 0 {
		return 0
	}
	x := int64(1) << ((bits.Len64(uint64(v)) + 1) / 2)
	for {
		y := (x + v/x) / 2
		if y >= x {
			return x
		}
		x = y
	}
}

func atoiDigits(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n
}

// Streams separate the random draws of independent parts of the output.
const (
	streamPlanNL = iota + 1
	streamStreet
	streamRecord
	streamPlanBE
	streamRegion
)
