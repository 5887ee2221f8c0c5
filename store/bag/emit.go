package bag

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/adreswijzer/adreswijzer"
)

// objClass is what the current voorkomen of an addressable object says about the addresses
// it carries. Higher wins when several objects carry the same Nummeraanduiding (one as
// hoofdadres, another as nevenadres): one live object makes the address live.
type objClass uint8

const (
	objNone    objClass = iota // no current object carries the address
	objGone                    // withdrawn, never realised or registered in error
	objUnknown                 // a status this package does not know
	objPlanned                 // formed, not yet in use
	objInUse                   // exists: in use, being rebuilt or out of use
)

func classOf(s status) objClass {
	switch s {
	case stVBOInGebruik, stVBOInGebruikNietIngemeten, stVBOVerbouwing, stVBOBuitenGebruik, stPlaatsAangewezen:
		return objInUse
	case stVBOGevormd:
		return objPlanned
	case stVBONietGerealiseerd, stVBOIngetrokken, stVBOTenOnrechte, stPlaatsIngetrokken:
		return objGone
	}
	return objUnknown
}

// emitter joins the current voorkomens into addresses.
type emitter struct {
	t            date
	tb           *tables
	municipality func(wpl uint16) string
	skip         func(reason string)
	progress     func(Progress)

	postcodes map[uint32]string
	additions map[uint32]string
	streetIDs []string // formatted OpenbareRuimte ids, by index in tb.opr
}

// selectAll keeps the current voorkomen of every object.
func (e *emitter) selectAll() {
	e.tb.num = selectCurrent(e.tb.num, e.t, e.skip)
	e.tb.ao = selectCurrent(e.tb.ao, e.t, nil)
	e.tb.opr = selectCurrent(e.tb.opr, e.t, nil)
	e.tb.wpl = selectCurrent(e.tb.wpl, e.t, nil)
	slices.SortFunc(e.tb.neven, func(a, b nevenRef) int { return cmp.Compare(a.seq, b.seq) })
}

// classes finds, for each current Nummeraanduiding, the status of the objects that carry
// it as hoofdadres or nevenadres.
func (e *emitter) classes() []objClass {
	nums := e.tb.num
	out := make([]objClass, len(nums))
	mark := func(id uint64, c objClass) {
		if i, ok := find(nums, id); ok && c > out[i] {
			out[i] = c
		}
	}
	for i := range e.tb.ao {
		a := &e.tb.ao[i]
		c := classOf(a.status)
		mark(a.main, c)
		if a.flags&flagNeven == 0 {
			continue
		}
		j, _ := slices.BinarySearchFunc(e.tb.neven, a.seq, func(n nevenRef, s uint32) int { return cmp.Compare(n.seq, s) })
		for ; j < len(e.tb.neven) && e.tb.neven[j].seq == a.seq; j++ {
			mark(e.tb.neven[j].num, c)
		}
	}
	return out
}

// run calls add for every current address, in identificatie order.
func (e *emitter) run(ctx context.Context, add func(adreswijzer.Address) error) (int64, error) {
	e.selectAll()
	cls := e.classes()
	e.postcodes = map[uint32]string{}
	e.additions = map[uint32]string{0: ""}
	e.streetIDs = make([]string, len(e.tb.opr))
	total := int64(len(e.tb.num))
	last := time.Now()
	var kept int64
	for i := range e.tb.num {
		if i&255 == 0 {
			if err := ctx.Err(); err != nil {
				return kept, err
			}
			if e.progress != nil && time.Since(last) >= progressEvery {
				e.progress(Progress{Phase: PhaseAddresses, Done: int64(i), Total: total})
				last = time.Now()
			}
		}
		a, reason := e.address(&e.tb.num[i], cls[i])
		if reason != "" {
			e.skip(reason)
			continue
		}
		if err := add(a); err != nil {
			return kept, fmt.Errorf("add address %d: %w", kept+1, err)
		}
		kept++
	}
	if e.progress != nil {
		e.progress(Progress{Phase: PhaseAddresses, Done: total, Total: total})
	}
	return kept, nil
}

// address applies the rules of the package doc to one current Nummeraanduiding; it returns
// the address, or the reason it gives none.
func (e *emitter) address(n *numRec, c objClass) (adreswijzer.Address, string) {
	switch {
	case n.status == stNaamgevingIngetrokken:
		return adreswijzer.Address{}, reasonWithdrawn
	case n.status != stNaamgevingUitgegeven:
		return adreswijzer.Address{}, reasonUnknownStatus
	case c == objGone:
		return adreswijzer.Address{}, reasonObjectGone
	case c == objUnknown:
		return adreswijzer.Address{}, reasonUnknownStatus
	case n.flags&flagBadNumber != 0 || n.number == 0:
		return adreswijzer.Address{}, reasonBadNumber
	case n.flags&flagBadPostcode != 0:
		return adreswijzer.Address{}, reasonBadPostcode
	case n.postcode == 0:
		return adreswijzer.Address{}, reasonNoPostcode
	}
	si, ok := find(e.tb.opr, n.street)
	if !ok {
		return adreswijzer.Address{}, reasonStreetMissing
	}
	street := &e.tb.opr[si]
	w := woonplaatsOf(n, street)
	wi, ok := find(e.tb.wpl, uint64(w))
	if !ok {
		return adreswijzer.Address{}, reasonLocalityMissing
	}
	if e.streetIDs[si] == "" {
		e.streetIDs[si] = formatID(street.id)
	}
	st := adreswijzer.StatusInUse
	if c != objInUse {
		// A Nummeraanduiding issued before its object exists, or whose object is only
		// formed, is a new build.
		st = adreswijzer.StatusPlanned
	}
	return adreswijzer.Address{
		Country:           adreswijzer.NL,
		ID:                formatID(n.id),
		StreetID:          e.streetIDs[si],
		Street:            adreswijzer.Names{NL: street.name},
		StreetShort:       street.short,
		HouseNumber:       int(n.number),
		HouseNumberSuffix: letters[n.letter],
		Addition:          e.intern(e.additions, n.addition, unpackAddition),
		Postcode:          e.intern(e.postcodes, n.postcode, unpackPostcode),
		Locality:          adreswijzer.Names{NL: e.tb.wpl[wi].name},
		Municipality:      adreswijzer.Names{NL: e.municipality(w)},
		Status:            st,
	}, ""
}

// woonplaatsOf gives the woonplaats of an address: its own ligtIn when the register sets
// one (an address on a street that crosses a woonplaats border), else its street's.
func woonplaatsOf(n *numRec, street *oprRec) uint16 {
	if n.wpl != 0 {
		return n.wpl
	}
	return street.wpl
}

// intern shares one string per distinct postcode or toevoeging across all addresses.
func (e *emitter) intern(m map[uint32]string, v uint32, unpack func(uint32) string) string {
	s, ok := m[v]
	if !ok {
		s = unpack(v)
		m[v] = s
	}
	return s
}

// letters holds the one-letter strings of huisletters, indexed by the byte.
var letters = func() (t [256]string) {
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = string(c)
		t[c+'a'-'A'] = string(c + 'a' - 'A')
	}
	return t
}()

// formatID writes an identificatie with its leading zeros.
func formatID(id uint64) string {
	var b [20]byte
	s := strconv.AppendUint(b[:0], id, 10)
	if len(s) >= 16 {
		return string(s)
	}
	var p [16]byte
	n := copy(p[16-len(s):], s)
	for i := range 16 - n {
		p[i] = '0'
	}
	return string(p[:])
}
