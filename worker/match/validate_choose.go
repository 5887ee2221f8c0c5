package match

import (
	"slices"

	"github.com/adreswijzer/adreswijzer"
)

// Scoring and choosing: how well each group fits the typed fields, which groups may be the
// answer at all, and which one is.

// score weighs how well a group fits the typed fields: the street counts most, then the
// postcode, then the city. A field left empty counts half, so that it neither helps nor
// hurts against a field typed wrong.
func (v *validation) score(g *group) {
	a := &g.addrs[0]
	g.street = v.streetMatch(a)
	g.city = v.cityMatch(a)
	switch {
	case v.zip != zipOK && v.c == adreswijzer.NL && len(a.Postcode) == 6 && digitRun4(v.r.Zip) == a.Postcode[:4]:
		// "1381" or "1381 B": the four digits of a Dutch postcode place the address.
		g.pcHit = 0.4
	case v.zip != zipOK:
		g.pcHit = 0.3
	case a.Postcode == v.pc:
		g.pcHit = 1
	case v.c == adreswijzer.NL && len(a.Postcode) == 6 && a.Postcode[:4] == v.pc[:4]:
		g.pcHit = 0.4
	case slices.Contains(v.pcPlaces, a.Locality):
		g.pcHit = 0.35
	case !v.pcKnown:
		// A postcode the register does not have ("1833 EA" for 1383 EA) places nothing,
		// as one that cannot be read.
		g.pcHit = 0.3
	}
	streetScore, cityScore := g.street.score, g.city.score
	if v.street.empty() {
		streetScore = 0.5
	}
	if v.city.empty() {
		cityScore = 0.5
	}
	g.score = 3*streetScore + 2*g.pcHit + cityScore
}

// streetMatch is how the typed street matches a's street.
func (v *validation) streetMatch(a *adreswijzer.Address) nameMatch {
	return v.streets.match(v.ix, v.street, a)
}

// cityMatch is how the typed city matches a's locality and municipality, each pair
// compared once per request, for the same reason.
func (v *validation) cityMatch(a *adreswijzer.Address) nameMatch {
	k := [2]adreswijzer.Names{a.Locality, a.Municipality}
	for _, c := range v.cityMemo {
		if c.names == k {
			return c.m
		}
	}
	loc := &adreswijzer.Locality{Names: a.Locality, Municipality: a.Municipality}
	m := matchCity(v.c, v.city, loc)
	if m.level < levelAlias {
		if t := v.cityTown(); !t.empty() {
			// The town named, with a qualifier the register's name does not have.
			if mt := matchCity(v.c, *t, loc); mt.level >= levelAlias && mt.better(m) {
				m = mt
				if m.level > levelFolded {
					m.level, m.score = levelFolded, 0.97
				}
			}
		}
	}
	v.cityMemo = append(v.cityMemo, cityMatched{k, m})
	return m
}

// cityTown is the typed city without its qualifier (townOf), empty when it has none.
func (v *validation) cityTown() *typedName {
	if !v.townRead {
		v.townRead = true
		if t := townOf(v.city.raw); t != "" {
			v.town = newTypedName(t)
		}
	}
	return &v.town
}

// cityMatched is how the typed city matched a locality and municipality. A request meets a
// few of them (the places of a postcode, of a few streets), so a list serves better than a
// map keyed by six strings.
type cityMatched struct {
	names [2]adreswijzer.Names
	m     nameMatch
}

// digitRun4 returns the first run of exactly four digits in s, "" when there is none.
func digitRun4(s string) string {
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j-i == 4 {
			return s[i:j]
		}
		i = max(j, i+1)
	}
	return ""
}

// acceptable says whether a group may be the answer at all: its street must match and
// something place-like must agree, or, in the Netherlands, the postcode and number (which
// identify an address there) must, whatever street was typed.
func (v *validation) acceptable(g *group) bool {
	if v.street.empty() || g.street.level >= levelContain {
		// A street and number alone do not place an address: the same name recurs from
		// town to town, so the postcode's digits or the city must agree.
		return g.pcHit >= 0.35 || g.city.level >= levelFuzzy
	}
	return v.c == adreswijzer.NL && g.pcHit == 1
}

// choose returns the best acceptable group and, when another one scores the same, that one.
//
// A street named as the register writes it, or by its core, in the place of the typed
// postcode beats a street that is merely similar, even one at the typed postcode: the
// score would let the postcode outweigh the name ("Troelstralaan 5" at 1381 CS, where
// Hugo de Grootlaan 5 is, is Mr.P.J.Troelstralaan 5 at 1381 CR). And a street that the
// typed name only contains, away from the typed postcode, is too weak to correct to when
// the typed postcode has the number on another street: then both are offered.
func (v *validation) choose(groups []*group) (best, tie *group) {
	for _, g := range groups {
		if !v.acceptable(g) {
			continue
		}
		switch {
		case best == nil || v.ahead(g, best):
			best, tie = g, nil
		case !v.ahead(best, g) && tie == nil:
			tie = g
		}
	}
	if best != nil && tie == nil && !v.street.empty() && best.street.level == levelContain && best.pcHit < 1 {
		for _, g := range groups {
			if g.pcHit == 1 && g.street.level < levelFuzzy && v.acceptable(g) {
				return best, g
			}
		}
	}
	return best, tie
}

// ahead reports whether group a is a better answer than b.
func (v *validation) ahead(a, b *group) bool {
	if sa, sb := v.strongHere(a), v.strongHere(b); sa != sb {
		return sa
	}
	return a.score > b.score+1e-9
}

// strongHere: the group's street is named as the register writes it or by its core, in
// the place the typed postcode (or its absence) points to.
func (v *validation) strongHere(g *group) bool {
	return !v.street.empty() && g.street.level >= levelCore && g.pcHit > 0
}

// conflicting returns the group that reads the input another way as well as best does, or
// nil. The street typed names best at another postcode, but there the number lacks the
// letter, toevoeging or box typed; at the typed postcode the number has exactly that on
// another street ("Achtergracht" with 1381 CS, 16 and "bov": Achtergracht 16 is at 1381 BN
// and has no "bov", Hugo de Grootlaan 16 bov is at 1381 CS). Postcode, number and unit
// agree as much as street and number do: neither reading may be chosen for the customer.
func (v *validation) conflicting(best *group, groups []*group) *group {
	if v.c != adreswijzer.NL || best.pcHit == 1 || v.zip != zipOK || !v.pcKnown || v.nums[0].Extension() == "" {
		return nil
	}
	best.addrs = sortPostal(best.addrs)
	if resolveUnit(v.c, best.addrs, v.nums).kind == unitExact {
		return nil
	}
	for _, g := range groups {
		if g == best || g.pcHit != 1 || !v.acceptable(g) {
			continue
		}
		if g.addrs = sortPostal(g.addrs); resolveUnit(v.c, g.addrs, v.nums).kind == unitExact {
			return g
		}
	}
	return nil
}
