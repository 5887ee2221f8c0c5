package gen

import "fmt"

// Addressable object kinds.
const (
	objVBO uint8 = iota
	objLIG
	objSTA
)

// Fates: what the register says about an address, and so what an importer makes of it.
const (
	fateInUse      uint8 = iota // Naamgeving uitgegeven, object in use
	fatePlanned                 // object "Verblijfsobject gevormd": a new build
	fateWithdrawn               // Naamgeving ingetrokken
	fateGone                    // issued, but its object was never realised or registered in error
	fateNoPostcode              // issued, in use, but without a postcode
)

// Shares of the national register the walk reproduces, in parts per million of
// Nummeraanduidingen.
const (
	plannedPPM    = 20_000 // ~2 % planned (per house number: a new building is planned whole)
	withdrawnPPM  = 5_000  // ~0.5 % withdrawn
	gonePPM       = 1_000
	noPostcodePPM = 2_000
	nevenPPM      = 3_000  // carried as nevenadres by the previous address's object
	historyPPM    = 10_000 // ~1 % with an ended voorkomen before the current one
	ligPPM        = 300
	staPPM        = 300
	vboHistoryPPM = 30_000 // Verblijfsobjecten formed first, in use later: two voorkomens

	letterGroupPPM = 41_500 // house numbers with huisletters (12, 12A, 12B)
	toevGroupPPM   = 16_500 // house numbers with toevoegingen (12-1, 12-2; 12-I, 12-II)
	gapPPM         = 60_000 // numbers skipped in a street
	// carryPPM is the share of streets that carry on the previous street's postcodes: short
	// streets share a six-position postcode with their neighbours.
	carryPPM = 400_000
)

// nlAddr is one Nummeraanduiding as the walk produces it, with what its objects need. It
// holds no pointers into mutable state, so batches are plain copies.
type nlAddr struct {
	num    uint64 // Nummeraanduiding identificatie
	opr    uint64
	obj    uint64 // Verblijfsobject, Ligplaats or Standplaats; 0 for a nevenadres
	pand   uint64
	neven  uint64 // the Nummeraanduiding this object carries as nevenadres, 0 if none
	x, y   int64  // RD millimetres
	number uint32
	toev   string
	pc     [6]byte // zero when the address has no postcode
	letter byte
	kind   uint8
	fate   uint8
	numVk  uint8
	objVk  uint8
	// planned, for a nevenadres, is the class of the object that carries it.
	planned   bool
	pandStart bool // first address of its building: the Pand is written with it
	pandUnits uint8
	isNeven   bool
}

// walkStats are the counts an importer must reproduce.
type walkStats struct {
	nums, voorkomens, superseded                  int64
	inUse, planned, withdrawn, gone, noPostcode   int64
	withLetter, withAddition, withHistory, nevens int64
	vbo, vboVk, lig, sta, pand                    int64
	postcodes                                     int64
}

// walkState carries what runs across streets: identificatie counters per gemeente and the
// open postcode runs of the woonplaats.
type walkState struct {
	p      *nlPlan
	numSeq []uint64
	objSeq [3][]uint64
	pndSeq []uint64
	wpl    int
	nextPC int
	runs   [2]pcRun
	st     walkStats
	buf    []nlAddr
}

type pcRun struct {
	idx  int
	left int
	used bool
}

// walk regenerates every address in file order and hands each to fn. The same plan and seed
// give the same addresses every time, so each object file is written by its own walk
// instead of holding ten million addresses in memory.
func (p *nlPlan) walk(fn func(a *nlAddr) error) (walkStats, error) {
	ws := &walkState{p: p, numSeq: make([]uint64, len(p.gemeente)), pndSeq: make([]uint64, len(p.gemeente)), wpl: -1}
	for k := range ws.objSeq {
		ws.objSeq[k] = make([]uint64, len(p.gemeente))
	}
	for si := range p.streets {
		addrs, err := ws.street(si)
		if err != nil {
			return ws.st, err
		}
		for i := range addrs {
			if err := fn(&addrs[i]); err != nil {
				return ws.st, err
			}
		}
	}
	return ws.st, nil
}

// Toevoeging series: real forms (numbers, "H" for the ground floor with numbered floors
// above, roman floors, floor-and-unit numbers, letters, beneden/boven).
var (
	toevNumeric = []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12"}
	toevHouse   = []string{"H", "1", "2", "3", "4", "5"}
	toevRoman   = []string{"I", "II", "III", "IV", "V", "VI", "VII", "VIII"}
	toevLetters = []string{"A", "B", "C", "D", "E", "F"}
	toevBenBov  = []string{"ben", "bov"}
	toevBis     = []string{"BIS"}
	toevFloors  = func() (out [][]string) {
		for f := 1; f <= 7; f++ {
			var fl []string
			for u := 1; u <= 8; u++ {
				fl = append(fl, fmt.Sprintf("%d%02d", f, u))
			}
			out = append(out, fl)
		}
		return out
	}()
	toevSchemeCum = cumulative([]int64{35, 20, 10, 10, 8, 7, 10})
)

func (ws *walkState) street(si int) ([]nlAddr, error) {
	p := ws.p
	s := &p.streets[si]
	r := newRNG(p.seed, streamStreet, uint64(si))
	if s.wpl != ws.wpl {
		ws.wpl, ws.nextPC, ws.runs = s.wpl, 0, [2]pcRun{}
	}
	w := &p.wpl[s.wpl]
	g := w.gem
	if !r.ppm(carryPPM) {
		ws.runs = [2]pcRun{} // a street usually starts its own postcodes
	}
	n := s.addrs
	out := ws.buf[:0]
	oneSided := r.ppm(250_000)
	step := uint32(1)
	if oneSided {
		step = 2
	}
	num := uint32(1)
	switch {
	case r.ppm(50_000):
		num = uint32(r.between(2, 150)) // the street continues one in the next woonplaats
	case oneSided && r.ppm(500_000):
		num = 2
	}
	for len(out) < n && num <= 99999 {
		if r.ppm(gapPPM) {
			num += step * uint32(r.between(1, 5))
		}
		start := len(out)
		add := func(letter byte, toev string) {
			if len(out) < n {
				out = append(out, nlAddr{number: num, letter: letter, toev: toev})
			}
		}
		u := r.intn(1_000_000)
		switch {
		case u < letterGroupPPM:
			k := r.between(1, 3)
			base := byte('A')
			if r.ppm(250_000) {
				base = 'a'
			}
			if r.ppm(600_000) {
				add(0, "")
			}
			for j := range k {
				add(base+byte(j), "")
			}
		case u < letterGroupPPM+toevGroupPPM:
			var vals []string
			switch r.pick(toevSchemeCum) {
			case 0:
				vals = toevNumeric[:r.between(2, len(toevNumeric))]
			case 1:
				vals = toevHouse[:r.between(2, len(toevHouse))]
			case 2:
				vals = toevRoman[:r.between(2, len(toevRoman))]
			case 3:
				floors := r.between(2, len(toevFloors))
				units := r.between(1, len(toevFloors[0]))
				for f := range floors {
					for _, v := range toevFloors[f][:units] {
						add(0, v)
					}
				}
			case 4:
				vals = toevLetters[:r.between(2, len(toevLetters))]
			case 5:
				vals = toevBenBov
			case 6:
				add(0, "")
				vals = toevBis
			}
			for _, v := range vals {
				add(0, v)
			}
		default:
			add(0, "")
		}
		side := num % 2
		if oneSided {
			side = 0
		}
		var prev *nlAddr
		if start > 0 {
			prev = &out[start-1]
		}
		if err := ws.group(&r, s, w, g, out[start:], prev, side); err != nil {
			return nil, err
		}
		num += step
	}
	if len(out) < n {
		return nil, fmt.Errorf("NL: street %d cannot hold %d house numbers", si, n)
	}
	ws.buf = out
	return out, nil
}

// group fills in one building: the addresses at one house number share a postcode, a
// Pand and a fate when the building is new.
func (ws *walkState) group(r *rng, s *streetPlan, w *wplPlan, g int, grp []nlAddr, prev *nlAddr, side uint32) error {
	if len(grp) == 0 {
		return nil
	}
	p := ws.p
	st := &ws.st
	// Postcode: each side of a street has its own runs; a run covers 8 to 36 addresses and
	// may carry on into the next street.
	run := &ws.runs[side]
	if run.left <= 0 {
		*run = pcRun{idx: ws.nextPC, left: r.between(14, 53)}
		ws.nextPC++
	}
	run.left -= len(grp)
	pc, err := w.postcode(run.idx)
	if err != nil {
		return err
	}
	planned := r.ppm(plannedPPM)
	gemCode := p.gemeente[g].code
	// Building position: along the street, odd numbers on one side, even on the other.
	num := int64(grp[0].number)
	bx := s.x + num*s.dx
	by := s.y + num*s.dy
	if side == 1 {
		bx, by = bx-s.dy, by+s.dx
	} else {
		bx, by = bx+s.dy, by-s.dx
	}
	for i := range grp {
		a := &grp[i]
		ws.numSeq[g]++
		a.num = gemCode*1e12 + 20*1e10 + ws.numSeq[g]
		a.opr = s.id
		a.pc = pc
		a.x = bx + int64(r.between(-1500, 1500))
		a.y = by + int64(r.between(-1500, 1500))
		a.numVk, a.objVk = 1, 1
		a.kind = objVBO
		a.fate = fateInUse
		u := r.intn(1_000_000)
		switch {
		case planned:
			a.fate = fatePlanned
		case u < withdrawnPPM:
			a.fate = fateWithdrawn
			a.numVk, a.objVk = 2, 2
		case u < withdrawnPPM+gonePPM:
			a.fate = fateGone
		case u < withdrawnPPM+gonePPM+noPostcodePPM:
			a.fate = fateNoPostcode
			a.pc = [6]byte{}
		case u < withdrawnPPM+gonePPM+noPostcodePPM+nevenPPM && carrier(grp, i, prev) != nil:
			c := carrier(grp, i, prev)
			a.isNeven = true
			a.planned = c.fate == fatePlanned
			c.neven = a.num
		case len(grp) == 1 && u < withdrawnPPM+gonePPM+noPostcodePPM+nevenPPM+ligPPM:
			a.kind = objLIG
		case len(grp) == 1 && u < withdrawnPPM+gonePPM+noPostcodePPM+nevenPPM+ligPPM+staPPM:
			a.kind = objSTA
		}
		if a.fate != fateWithdrawn && r.ppm(historyPPM) {
			a.numVk = uint8(r.between(2, 3))
		}
		if a.fate == fateInUse && a.kind == objVBO && !a.isNeven && r.ppm(vboHistoryPPM) {
			a.objVk = 2
		}
		if !a.isNeven {
			ws.objSeq[a.kind][g]++
			a.obj = gemCode*1e12 + uint64(1+a.kind)*1e10 + ws.objSeq[a.kind][g]
		} else {
			a.objVk = 0
		}

		st.nums++
		st.voorkomens += int64(a.numVk)
		st.superseded += int64(a.numVk) - 1
		if a.numVk > 1 && a.fate != fateWithdrawn {
			st.withHistory++
		}
		if a.letter != 0 {
			st.withLetter++
		}
		if a.toev != "" {
			st.withAddition++
		}
		switch {
		case a.fate == fateWithdrawn:
			st.withdrawn++
		case a.fate == fateGone:
			st.gone++
		case a.fate == fateNoPostcode:
			st.noPostcode++
		case a.fate == fatePlanned || a.isNeven && a.planned:
			st.planned++
		default:
			st.inUse++
		}
		if a.isNeven {
			st.nevens++
		} else {
			switch a.kind {
			case objVBO:
				st.vbo++
				st.vboVk += int64(a.objVk)
			case objLIG:
				st.lig++
			case objSTA:
				st.sta++
			}
		}
		if a.pc != ([6]byte{}) && !run.used {
			run.used = true
			st.postcodes++
		}
	}
	// The building: one Pand for the Verblijfsobjecten at this house number, written with
	// the first of them. Ligplaatsen, Standplaatsen and nevenadressen have none.
	first := -1
	units := 0
	for i := range grp {
		if grp[i].kind == objVBO && !grp[i].isNeven {
			if first < 0 {
				first = i
			}
			units++
		}
	}
	if first >= 0 {
		ws.pndSeq[g]++
		pand := gemCode*1e12 + 10*1e10 + ws.pndSeq[g]
		for i := range grp {
			if grp[i].kind == objVBO && !grp[i].isNeven {
				grp[i].pand = pand
			}
		}
		grp[first].pandStart = true
		grp[first].pandUnits = uint8(min(units, 255))
		grp[first].x, grp[first].y = bx, by
		st.pand++
	}
	return nil
}

// carrier is the object that may carry address i of a group as its nevenadres: the
// previous address's, when that is a live Verblijfsobject carrying none yet.
func carrier(grp []nlAddr, i int, prev *nlAddr) *nlAddr {
	c := prev
	if i > 0 {
		c = &grp[i-1]
	}
	if c != nil && canCarry(c) {
		return c
	}
	return nil
}

// canCarry tells whether an address's object may carry the next address as a nevenadres:
// a live Verblijfsobject that carries none yet.
func canCarry(a *nlAddr) bool {
	return a.kind == objVBO && !a.isNeven && a.neven == 0 && (a.fate == fateInUse || a.fate == fatePlanned)
}

// postcode gives the idx-th six-position postcode of the woonplaats: perPC4 in each of its
// areas, and what does not fit in the last area's remaining letter pairs is an error.
func (w *wplPlan) postcode(idx int) ([6]byte, error) {
	area := idx / w.perPC4
	pair := idx % w.perPC4
	if area >= len(w.pc4) {
		area = len(w.pc4) - 1
		pair = idx - area*w.perPC4
	}
	if pair >= len(pc6Letters) {
		return [6]byte{}, fmt.Errorf("NL: woonplaats %d ran out of postcodes", w.id)
	}
	var pc [6]byte
	v := w.pc4[area]
	pc[0], pc[1], pc[2], pc[3] = byte('0'+v/1000), byte('0'+v/100%10), byte('0'+v/10%10), byte('0'+v%10)
	pc[4], pc[5] = pc6Letters[pair][0], pc6Letters[pair][1]
	return pc, nil
}
