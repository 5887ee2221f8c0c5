package match

import (
	"context"
	"errors"
	"slices"
	"sort"
	"strings"

	"github.com/adreswijzer/adreswijzer"
)

// Gathering candidates: the addresses at the typed number that the register holds where the
// typed postcode, street and city point, in groups of one street in one postcode.

// group is the addresses at the typed number on one street in one postcode: the unit of
// choice before the letter, toevoeging or box is resolved.
type group struct {
	addrs  []adreswijzer.Address
	street nameMatch
	city   nameMatch
	// pcHit: 1 same postcode, 0.4 same Dutch PC4, 0.35 same place as the typed postcode,
	// 0.3 no postcode usable, 0 elsewhere.
	pcHit float64
	score float64
}

// gather collects candidate addresses at the typed number, widening step by step as the
// cascade of Adresmatch does and stopping as soon as a step finds the typed street: in the
// typed postcode (atPostcode); in the typed city or the postcode's place (inPlace); by the
// street's exact name nationally, when nothing else narrows it (byRareName). It returns the
// groups it made (v.groups), each scored.
func (v *validation) gather() ([]*group, error) {
	c := candidates{v: v, number: v.nums[0].Number, seen: map[string]bool{}, byKey: map[groupKey]*group{}, tried: map[uint32]bool{}}
	if v.zip == zipOK && v.pcKnown {
		if err := c.atPostcode(); err != nil {
			return nil, err
		}
	}
	if !c.strongStreet() && !v.street.empty() {
		if err := c.inPlace(); err != nil {
			return nil, err
		}
	}
	if !c.goodStreet() && !v.street.empty() && v.city.empty() && (v.zip != zipOK || !v.pcKnown) {
		if err := c.byRareName(); err != nil {
			return nil, err
		}
	}
	for _, g := range v.groups {
		v.score(g)
	}
	return v.groups, nil
}

// candidates is what gather has read so far, so that an address found by two steps is taken
// once and a street is read once. The groups it makes are v.groups.
type candidates struct {
	v      *validation
	number int // the typed house number
	byKey  map[groupKey]*group
	seen   map[string]bool // address ids taken
	tried  map[uint32]bool // streets read
}

// groupKey is what makes addresses one group: their street, by register id and names, and
// their postcode.
type groupKey struct{ streetID, nl, fr, postcode string }

// keyOf is the key of the group a belongs in.
func keyOf(a *adreswijzer.Address) groupKey {
	return groupKey{a.StreetID, a.Street.NL, a.Street.FR, a.Postcode}
}

// atPostcode reads the typed postcode, which the register knows: its addresses at the number,
// and its streets named like the typed street when none of those is on it (the postcode may
// be one off along the street). A Belgian postcode is a whole municipality: the number stands
// on hundreds of its streets, and only those named like the typed street can be the address.
// The others at the number are read only when none is, as suggestions.
func (c *candidates) atPostcode() error {
	v := c.v
	beStreetFirst := v.c == adreswijzer.BE && !v.street.empty()
	if beStreetFirst {
		if err := c.onStreets(v.ix.postcodeStreets(v.pc)); err != nil {
			return err
		}
	}
	if !beStreetFirst || !c.goodStreet() {
		as, err := v.ds.AddressesAt(v.ctx, v.pc, c.number)
		if err != nil {
			return storeErr(err)
		}
		c.add(as)
	}
	if !beStreetFirst && !c.goodStreet() && !v.street.empty() {
		return c.onStreets(v.ix.postcodeStreets(v.pc))
	}
	return nil
}

// inPlace reads the typed street in the typed city, or else in the place the typed postcode
// lies in, and in the Netherlands in the typed postcode's PC4 area.
func (c *candidates) inPlace() error {
	v := c.v
	locs := v.cityLocalities()
	if len(locs) == 0 && v.zip == zipOK && v.pcKnown {
		for _, p := range v.ix.placesIn(v.pc) {
			if !containsU32(locs, p.Locality) {
				locs = append(locs, p.Locality)
			}
		}
	}
	// A large city has tens of thousands of streets: they are ranked where the index keeps
	// them, not copied into one list.
	streets := make([][]uint32, 0, len(locs)+1)
	for _, l := range locs {
		streets = append(streets, v.ix.locStreets[l])
	}
	if v.c == adreswijzer.NL && v.zip == zipOK {
		streets = append(streets, placeStreets(placesWithPrefix(v.ds.Catalog(), v.pc[:4])))
	}
	if c.goodStreet() {
		// A street found so far matches only by similarity. A street of the place that the
		// typed name names exactly or by its core ("Troelstralaan" for Mr.P.J.Troelstralaan)
		// is the likelier one, with the number at a postcode next to the typed one; nothing
		// else found here could beat the street found.
		streets = [][]uint32{v.ix.strongStreets(v.street, streets)}
	}
	return c.onStreets(streets...)
}

// byRareName reads the typed street nationally, for when nothing narrows it (no city, and no
// postcode the register knows): only a street name that is exact and rare enough.
func (c *candidates) byRareName() error {
	ix := c.v.ix
	t, ok := ix.textID(c.v.street.folded)
	if !ok || len(ix.postings(t)) > 10 {
		return nil
	}
	var streets []uint32
	for _, vr := range ix.postings(t) {
		streets = append(streets, vr.street)
	}
	return c.onStreets(streets)
}

// onStreets reads the addresses at the number on the best of the streets whose names match
// the typed street, each street once.
func (c *candidates) onStreets(streets ...[]uint32) error {
	v := c.v
	for _, st := range v.bestStreets(streets, 5) {
		if c.tried[st] {
			continue
		}
		c.tried[st] = true
		as, err := v.ds.AddressesOnStreet(v.ctx, st, c.number)
		if err != nil {
			return storeErr(err)
		}
		c.add(as)
	}
	return nil
}

// add puts the addresses not taken yet into their groups. The stores list addresses by
// postcode and street, so a group's addresses come in runs; a group takes its first run as
// it is (the slice is ours), and later ones are copied at once rather than address by
// address (a Belgian number may have hundreds of boxes).
func (c *candidates) add(as []adreswijzer.Address) {
	for i := 0; i < len(as); {
		if c.seen[as[i].ID] {
			i++
			continue
		}
		k := keyOf(&as[i])
		j := i
		for j < len(as) && !c.seen[as[j].ID] && (j == i || keyOf(&as[j]) == k) {
			c.seen[as[j].ID] = true
			j++
		}
		g := c.byKey[k]
		if g == nil {
			g = &group{}
			c.byKey[k] = g
			c.v.groups = append(c.v.groups, g)
		}
		if g.addrs == nil {
			g.addrs = as[i:j:j] // full: a later run is appended to a copy
		} else {
			g.addrs = append(g.addrs, as[i:j]...)
		}
		i = j
	}
}

// goodStreet reports whether some group's street matches the typed one.
func (c *candidates) goodStreet() bool { return c.streetAt(levelFuzzy) }

// strongStreet reports whether some group's street matches the typed one as the register
// writes it or by its core, not merely by similarity.
func (c *candidates) strongStreet() bool { return c.streetAt(levelCore) }

// streetAt reports whether some group's street matches the typed one at level min or better;
// with no street typed, whether there is a group.
func (c *candidates) streetAt(min level) bool {
	for _, g := range c.v.groups {
		if c.v.street.empty() || c.v.streetMatch(&g.addrs[0]).level >= min {
			return true
		}
	}
	return false
}

// storeErr marks a store's failure as adreswijzer.ErrUnavailable, so that the caller answers
// 503 and the checkout fails open; a deadline or cancellation stays what it is.
func storeErr(err error) error {
	if errors.Is(err, adreswijzer.ErrUnavailable) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return err
	}
	return errors.Join(adreswijzer.ErrUnavailable, err)
}

// bestStreets returns up to limit streets whose names match the typed street, best first.
func (v *validation) bestStreets(streets [][]uint32, limit int) []uint32 {
	// Only the best level counts, as the cascade stops at the first level that matches; so
	// when some street matches at an exact level the similarity of the others is not needed.
	hits := v.ix.rankStreets(v.street, levelContain, true, streets...)
	if len(hits) == 0 {
		hits = v.ix.rankStreets(v.street, levelContain, false, streets...)
	}
	var out []uint32
	for _, h := range hits {
		if len(out) == limit || h.m.level != hits[0].m.level {
			break
		}
		out = append(out, h.st)
	}
	return out
}

// knowsPlace reports whether a locality is found by name the way cityLocalities finds one
// before it tries similarity.
func (ix *index) knowsPlace(name string) bool {
	key := cityKey(name)
	if key == "" {
		return false
	}
	if len(ix.locByKey[key]) > 0 {
		return true
	}
	for _, a := range aliases[key] {
		if len(ix.locByKey[a]) > 0 {
			return true
		}
	}
	return false
}

// cityLocalities finds the localities the typed city names: by any of their names, parts of
// names, municipality names and aliases, and only when none does, by similarity.
func (v *validation) cityLocalities() []uint32 {
	if v.city.empty() {
		return nil
	}
	key := cityKey(v.city.raw)
	out := append([]uint32{}, v.ix.locByKey[key]...)
	for _, a := range aliases[key] {
		out = append(out, v.ix.locByKey[a]...)
	}
	if len(out) > 0 {
		return out
	}
	if t := v.cityTown(); !t.empty() {
		key := cityKey(t.raw)
		out = append(out, v.ix.locByKey[key]...)
		for _, a := range aliases[key] {
			out = append(out, v.ix.locByKey[a]...)
		}
		if len(out) > 0 {
			return out
		}
	}
	for _, lk := range v.ix.locKeys {
		if similarity(v.city.folded, lk.folded) >= similarityThreshold && !containsU32(out, lk.locality) {
			out = append(out, lk.locality)
		}
	}
	return out
}

// placeStreets lists the streets of places, each once. Places are sorted by postcode, then
// street: within one postcode a street's places stand together, and a Belgian postcode has
// hundreds of them.
func placeStreets(ps []adreswijzer.Place) []uint32 {
	var out []uint32
	for i, p := range ps {
		if i == 0 || p.Street != ps[i-1].Street {
			out = append(out, p.Street)
		}
	}
	if len(ps) == 0 || ps[0].Postcode == ps[len(ps)-1].Postcode {
		return out
	}
	seen := make(map[uint32]bool, len(out))
	return slices.DeleteFunc(out, func(st uint32) bool {
		dup := seen[st]
		seen[st] = true
		return dup
	})
}

// placesWithPrefix returns the places whose postcode starts with prefix (a Dutch PC4).
func placesWithPrefix(cat *adreswijzer.Catalog, prefix string) []adreswijzer.Place {
	lo := sort.Search(len(cat.Places), func(i int) bool { return cat.Places[i].Postcode >= prefix })
	hi := lo
	for hi < len(cat.Places) && strings.HasPrefix(cat.Places[hi].Postcode, prefix) {
		hi++
	}
	return cat.Places[lo:hi]
}
