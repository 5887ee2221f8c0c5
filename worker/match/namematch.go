package match

import (
	"slices"
	"strings"

	"github.com/adreswijzer/adreswijzer"
)

// The cascade of the Flemish Adresmatch, per name: exact (letter case and spacing aside),
// normalised (diacritics, punctuation and spaces aside), abbreviations toggled, fuzzy, and
// containment. The level a name matched at decides both whether the candidate counts and
// whether the answer is "valid" (only the exact level is) or "corrected".

type level uint8

const (
	levelNone    level = iota
	levelContain       // one name contains the other as whole words
	levelFuzzy         // composite similarity over the threshold
	levelCore          // equal once leading titles and initials are dropped (Bührmannlaan)
	levelAlias         // another name of the same place (Den Haag, Luik, a Dutch gemeente)
	levelCanon         // equal once abbreviations are reduced (Burg. / Burgemeester)
	levelFolded        // equal without diacritics, punctuation and spaces
	levelExact         // as the register writes it, letter case and spacing aside
)

// nameMatch is how well a typed name fits a register name.
type nameMatch struct {
	level level
	score float64 // 0..1, for ranking candidates against each other
	kind  nameKind
	name  string // the register name that matched
	// bilingual: names in two languages matched equally well (Brussels "Kasteelhof" is
	// Dutch and French), so the match says nothing about the customer's language.
	bilingual bool
}

func (m nameMatch) better(o nameMatch) bool {
	if m.level != o.level {
		return m.level > o.level
	}
	return m.score > o.score
}

// typedName holds the forms of one typed name, computed once per request.
type typedName struct {
	raw     string
	folded  string
	compact string
	canon   string
	// canonAlt is the canonical key with an ambiguous abbreviation read the other way
	// ("Ch." as Chemin rather than Chaussée), and altKey its hash; "" and 0 when none.
	canonAlt string
	altKey   uint32
	bigrams  []uint16 // of folded, sorted, for similarity
	keys     exactKeys
	// core is the folded name without its leading titles and initials, with its compact
	// and canonical forms; all "" when it has none (see corename.go).
	core, coreCompact, coreCanon string
}

func newTypedName(s string) typedName {
	t := newExactName(s)
	t.addLoose()
	return t
}

// newExactName has only the forms the exact levels read (matchStreetExactly and the exact
// keys), for a lookup that tries them first and rarely needs more: the bigrams and the core
// take about half of newTypedName's time. addLoose completes it before any loose match.
func newExactName(s string) typedName {
	if s == "" {
		return typedName{} // no street typed: most Dutch lookups, and nothing to fold
	}
	f, raw := fold(s), collapseSpaces(s)
	c := canonFolded(f)
	t := typedName{raw: raw, folded: f, compact: strings.ReplaceAll(f, " ", ""), canon: c, keys: keysOf(raw, f, c)}
	if alt := canonAlt(f); alt != "" && alt != c {
		t.canonAlt, t.altKey = alt, bytesKey(alt)
	}
	return t
}

func (t *typedName) addLoose() {
	if t.empty() {
		return
	}
	t.bigrams = sortedBigrams(t.folded)
	if core := coreOf(t.folded, coreOffset(t.raw)); core != "" {
		t.core, t.coreCompact, t.coreCanon = core, strings.ReplaceAll(core, " ", ""), canon(core)
	}
}

func (t typedName) empty() bool { return t.folded == "" }

// mayMatchExactly is false when no exact level can hold between t and a name with keys k.
func (t *typedName) mayMatchExactly(k exactKeys) bool {
	return t.keys.mayMatchExactly(k) || t.altKey != 0 && t.altKey == k.canon
}

// matchLoosely compares a typed name with one register name variant at the levels below
// the exact ones: the core (titles and initials aside), similarity, then containment.
// matchStreet calls it only once no variant matched exactly.
func matchLoosely(t typedName, v nameVariant) nameMatch {
	m := nameMatch{kind: v.kind, name: v.name}
	if t.empty() {
		return m
	}
	if matchCore(t, v) {
		m.level, m.score = levelCore, 0.93
		return m
	}
	// Names too different in length cannot reach the threshold, and a typed street is
	// compared with every street of a city when it matches none closely.
	if similarityBound(len(t.folded), len(v.folded)) >= similarityThreshold {
		if s := t.similarityTo(v.folded, v.bigrams); s >= similarityThreshold {
			m.level, m.score = levelFuzzy, 0.9*s
			return m
		}
	}
	if containsWords(t.folded, v.folded) || (len(t.folded) >= 4 && strings.HasPrefix(v.folded, t.folded)) {
		// "Bloemendalerweg Weesp" typed into the street field, or "Heerlijkheid" for
		// "Heerlijkheidsstraat": the last resort of the cascade.
		m.level, m.score = levelContain, 0.7
	}
	return m
}

// exactLevel sets m when the typed name is the variant up to case, spacing, diacritics or
// abbreviations, the levels that need no similarity measure.
func exactLevel(t typedName, v nameVariant, m *nameMatch) bool {
	switch {
	case !t.mayMatchExactly(v.keys):
		return false
	case sameRegisterText(t.raw, v.name):
		m.level, m.score = levelExact, 1
	case equalWithoutSpaces(t.compact, v.folded):
		m.level, m.score = levelFolded, 0.97
	case t.canon == v.canon, t.canonAlt != "" && t.canonAlt == v.canon:
		m.level, m.score = levelCanon, 0.95
	default:
		return false
	}
	return true
}

// equalWithoutSpaces reports whether compact equals folded with its spaces removed.
func equalWithoutSpaces(compact, folded string) bool {
	i := 0
	for j := 0; j < len(folded); j++ {
		if folded[j] == ' ' {
			continue
		}
		if i >= len(compact) || compact[i] != folded[j] {
			return false
		}
		i++
	}
	return i == len(compact)
}

// containsWords reports whether the folded text holds the folded name as whole words.
func containsWords(text, name string) bool {
	if len(name) < 4 || len(text) <= len(name) {
		return false
	}
	for from := 0; ; {
		i := strings.Index(text[from:], name)
		if i < 0 {
			return false
		}
		i += from
		end := i + len(name)
		if (i == 0 || text[i-1] == ' ') && (end == len(text) || text[end] == ' ') {
			return true
		}
		from = i + 1
	}
}

// matchStreet returns the best match of the typed street among a street's name variants.
// When one variant matches at an exact level no similarity can beat it, so the others'
// similarity (a street's short name, its name in the other language) is not computed.
func matchStreet(t typedName, vars []nameVariant) nameMatch {
	if m := matchStreetExactly(t, vars); m.level != levelNone {
		return m
	}
	return matchStreetLoosely(t, vars)
}

// matchStreetLoosely is matchStreet below levelCanon: for a street none of whose names
// matched exactly.
func matchStreetLoosely(t typedName, vars []nameVariant) nameMatch {
	return bestVariant(t, vars, matchLoosely)
}

// matchStreetExactly is matchStreet up to levelCanon: no similarity is computed.
func matchStreetExactly(t typedName, vars []nameVariant) nameMatch {
	return bestVariant(t, vars, func(t typedName, v nameVariant) nameMatch {
		m := nameMatch{kind: v.kind, name: v.name}
		if !t.empty() {
			exactLevel(t, v, &m)
		}
		return m
	})
}

func bestVariant(t typedName, vars []nameVariant, match func(typedName, nameVariant) nameMatch) nameMatch {
	var best nameMatch
	for _, v := range vars {
		m := match(t, v)
		switch {
		case m.better(best):
			best = m
		case m.level == best.level && m.level != levelNone && m.score == best.score && m.kind != best.kind && m.kind != kindShort:
			best.bilingual = true
		}
	}
	return best
}

// streetCand is a catalog street and how a typed name matched it.
type streetCand struct {
	st uint32
	m  nameMatch
}

// rankStreets matches t against the streets of every list and returns those at min or
// better, best first (in the given order among equals). It runs in two passes, because most
// names are typed as the register writes them and a city or a Belgian postcode has hundreds
// of streets to compare: with exact set, only the levels that need no similarity; without,
// only the loose ones (core, similarity, containment). The loose pass follows an exact pass
// over the same lists and does not repeat it: a street with an exact match was found there,
// and in the loose pass it ranks by its loose match only.
func (ix *index) rankStreets(t typedName, min level, exact bool, lists ...[]uint32) []streetCand {
	// Each pass reads a street's names only when what the index keeps of them (exact keys,
	// a bigram signature) leaves a match possible. The passes are called directly, not
	// through function values, which would move buf to the heap on every call.
	var q looseQuery
	if !exact {
		q = newLooseQuery(t)
	}
	var out []streetCand
	var buf [4]nameVariant
	for _, streets := range lists {
		for _, st := range streets {
			var m nameMatch
			switch {
			case exact && ix.mayMatchExactly(&t, st):
				m = matchStreetExactly(t, ix.streetVariants(st, &buf))
			case !exact && ix.mayMatchLoosely(q, st):
				m = matchStreetLoosely(t, ix.streetVariants(st, &buf))
			default:
				continue
			}
			if m.level >= min {
				out = append(out, streetCand{st, m})
			}
		}
	}
	slices.SortStableFunc(out, func(a, b streetCand) int {
		switch {
		case a.m.better(b.m):
			return -1
		case b.m.better(a.m):
			return 1
		}
		return 0
	})
	return out
}

// streetMemo keeps how one typed street matched each register street. A Belgian postcode
// holds hundreds of streets with thousands of addresses, so a request compares each street
// once, not once per address.
type streetMemo map[string]nameMatch // by register street id

func (sm *streetMemo) match(ix *index, t typedName, a *adreswijzer.Address) nameMatch {
	if m, ok := (*sm)[a.StreetID]; ok && a.StreetID != "" {
		return m
	}
	var buf [4]nameVariant
	m := matchStreet(t, ix.streetVariantsOf(a, &buf))
	if a.StreetID != "" {
		if *sm == nil {
			*sm = streetMemo{}
		}
		(*sm)[a.StreetID] = m
	}
	return m
}

// streetVariantsOf returns the name variants of an address's street: from the index when the
// register id is known, else computed (a street without a register id).
func (ix *index) streetVariantsOf(a *adreswijzer.Address, buf *[4]nameVariant) []nameVariant {
	if a.StreetID != "" {
		if i, ok := ix.streetByID(a.StreetID); ok {
			return ix.streetVariants(i, buf)
		}
	}
	return variantsOf(a.Street, a.StreetShort, buf)
}

func variantsOf(n adreswijzer.Names, short string, buf *[4]nameVariant) []nameVariant {
	out := buf[:0]
	for _, p := range [...]struct {
		kind nameKind
		name string
	}{{kindNL, n.NL}, {kindFR, n.FR}, {kindDE, n.DE}, {kindShort, short}} {
		if p.name != "" {
			f, c := fold(p.name), canon(p.name)
			out = append(out, nameVariant{kind: p.kind, name: p.name, folded: f, canon: c, keys: keysOf(p.name, f, c), core: coreOf(f, coreOffset(p.name))})
		}
	}
	return out
}

// matchCity compares a typed city with the names of a locality: its own names in every
// language, their parts ("Haren" in "Brussel (Haren)"), and the municipality. A Belgian
// municipality name is as good as the locality's (bpost accepts "1502 Halle" for Lembeek);
// the Dutch postal line carries the woonplaats, so a gemeente name is a correction there.
func matchCity(country adreswijzer.Country, t typedName, loc *adreswijzer.Locality) nameMatch {
	var best nameMatch
	if t.empty() {
		return best
	}
	type placeName struct {
		name string
		muni bool
	}
	var buf [12]placeName
	names := buf[:0]
	for i, ns := range [...]adreswijzer.Names{loc.Names, loc.Municipality} {
		for _, n := range ns.All() {
			names = append(names, placeName{n, i == 1})
			for _, p := range placeNameParts(n) {
				names = append(names, placeName{p, i == 1})
			}
		}
	}
	consider := func(m nameMatch, muni bool) {
		if muni && country == adreswijzer.NL && m.level > levelAlias {
			m.level, m.score = levelAlias, 0.9
		}
		if m.better(best) {
			best = m
		}
	}
	typedKey := cityKey(t.raw)
	for _, n := range names {
		m := nameMatch{name: n.name}
		key := cityKey(n.name)
		switch {
		case sameText(t.raw, n.name):
			m.level, m.score = levelExact, 1
		case typedKey == key:
			m.level, m.score = levelFolded, 0.97
		case isAlias(typedKey, key) && country == adreswijzer.BE:
			// Another language's name of a Belgian place (alias.go): as good as the
			// register's own names in the other languages.
			m.level, m.score = levelExact, 0.98
		case isAlias(typedKey, key):
			m.level, m.score = levelAlias, 0.9
		default:
			continue
		}
		consider(m, n.muni)
	}
	if best.level != levelNone {
		// Every level above is above any similarity: the place is named.
		return best
	}
	for _, n := range names {
		f := fold(n.name)
		if similarityBound(len(t.folded), len(f)) < similarityThreshold {
			continue
		}
		if s := t.similarity(f); s >= similarityThreshold {
			consider(nameMatch{name: n.name, level: levelFuzzy, score: 0.8 * s}, n.muni)
		}
	}
	return best
}
