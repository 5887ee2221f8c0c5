package match

import (
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/adreswijzer/adreswijzer"
)

// index is what the engine derives once from a dataset's catalog: folded street and locality
// names and the word-start index that suggest and autocomplete search. It is immutable after
// build and shared by all requests on that dataset version.
//
// Memory: the folded and canonical names live in two blobs, each distinct text once; streets
// refer to them by number and to the catalog's own strings for their register names. At
// national size (236k streets, 132k distinct names) the index keeps about 50 MiB
// (BenchmarkIndexNational reports it).
type index struct {
	cat *adreswijzer.Catalog

	blob    string   // all distinct folded texts, concatenated
	textOff []uint32 // text i is blob[textOff[i]:textOff[i+1]]
	// postings: text i names the variants post[postOff[i]:postOff[i+1]].
	postOff []uint32
	post    []variant
	keys    []key // every word start of every text, sorted by the text from there on
	// keyBlob[keyOff[i]:keyOff[i+1]] is key i's text, stored again in key order: the fuzzy
	// walk and the prefix searches read keys in that order, and reaching each through its
	// text number in blob read memory at a random place for every key.
	keyBlob string
	keyOff  []uint32
	// lcp[i] is the length of the common prefix of key i and key i-1 (capped at 255): it
	// lets the fuzzy walk reuse work and skip subtrees without comparing strings.
	lcp []uint8

	// grams[gramOff[i]:gramOff[i+1]] are the sorted bigrams of text i, computed once so that
	// comparing a typed street with every street of a large city does not sort them per
	// request.
	grams   []uint16
	gramOff []uint32

	canonBlob string // distinct canonical (abbreviation-reduced) names
	canonOff  []uint32

	streets []streetInfo
	// The name variants of street s are vars[varOff[s]:varOff[s+1]], their exact keys
	// varKeys[varOff[s]:varOff[s+1]]. The keys have an array of their own because the exact
	// pass over a Belgian postcode's hundreds of streets reads nothing else: packed, they
	// share cache lines instead of each costing one.
	vars    []storedVariant
	varKeys []exactKeys
	varOff  []uint32
	// keyStreets holds every exact key of every name with its street, sorted by key
	// (exactkeys.go): the streets a typed name may match exactly, found without reading a
	// city's streets.
	keyStreets []keyStreet
	// looseSig[4s:4s+4] and looseMin[s] are street s's signature for the loose pass (see
	// loosesig.go).
	looseSig []uint64
	looseMin []uint8
	// byID lists the streets with a register id, sorted by it, to find an address's street.
	byID []uint32

	// locStreets[l] are the streets with places in locality l.
	locStreets [][]uint32
	// locPlace[l] is a place of locality l when all its places have one postcode, else -1.
	locPlace []int32
	// The i-th postcode's places are cat.Places[pcPlace[i]:pcPlace[i+1]] and its streets
	// pcStreets[pcOff[i]:pcOff[i+1]], as placeStreets lists them: a Belgian postcode is a
	// municipality of hundreds of streets, and lookups and validations read them on every
	// request. pcSlot finds i by the postcode's number (postcodeCode): one probe of a map
	// without pointers, where a binary search over the catalog's strings took a cache miss
	// per step, and the collector has no half a million strings more to scan.
	pcSlot    map[uint32]uint32
	pcPlace   []uint32
	pcOff     []uint32
	pcStreets []uint32
	// locByKey finds localities by the city key of any of their names, their parts and
	// their municipality's names.
	locByKey map[string][]uint32
	locKeys  []locKey // locality and municipality names by folded text, sorted

	scratch sync.Pool // of *scratch, sized to the streets
}

// nameKind says which of a street's names a text came from, so an answer shows the name in
// the language the person typed.
type nameKind uint8

const (
	kindNL nameKind = iota
	kindFR
	kindDE
	kindShort
)

type variant struct {
	street uint32
	kind   nameKind
	alpha  uint32 // rank of (name, locality) in alphabetical order, for stable tie-breaks
}

type key struct {
	text uint32
	off  uint8
}

type streetInfo struct {
	size     uint32 // number of places: how much of the country the street is
	locality uint32 // the locality with most of its places
	place    int32  // a place of the street when all have one postcode, else -1
}

// storedVariant is one name of a street as the index keeps it.
type storedVariant struct {
	name  string // the catalog's string, not a copy
	text  uint32
	canon uint32
	alpha uint32
	kind  nameKind
	core  uint8 // where the name's core starts in its folded text, 0 for none (corename.go)
}

// nameVariant is one name of a street in the forms matching compares.
type nameVariant struct {
	alpha   uint32 // as variant.alpha
	kind    nameKind
	name    string // as the register writes it
	folded  string
	canon   string
	bigrams []uint16 // of folded, sorted; nil when not precomputed
	keys    exactKeys
	core    string // folded without leading titles and initials; "" when it has none
}

type locKey struct {
	folded   string
	locality uint32
}

func (k nameKind) lang() adreswijzer.Language {
	switch k {
	case kindFR:
		return adreswijzer.LangFR
	case kindDE:
		return adreswijzer.LangDE
	}
	return adreswijzer.LangNL
}

// interner collects distinct strings into one blob.
type interner struct {
	ids  map[string]uint32
	off  []uint32
	blob strings.Builder
}

func (in *interner) id(s string) uint32 {
	if id, ok := in.ids[s]; ok {
		return id
	}
	id := uint32(len(in.off))
	in.ids[s] = id
	in.off = append(in.off, uint32(in.blob.Len()))
	in.blob.WriteString(s)
	return id
}

func (in *interner) done() (string, []uint32) {
	return in.blob.String(), append(in.off, uint32(in.blob.Len()))
}

// buildIndex derives the index from a catalog.
func buildIndex(cat *adreswijzer.Catalog) *index {
	ix := &index{
		cat:        cat,
		streets:    make([]streetInfo, len(cat.Streets)),
		varOff:     make([]uint32, 0, len(cat.Streets)+1),
		vars:       make([]storedVariant, 0, len(cat.Streets)*9/8),
		varKeys:    make([]exactKeys, 0, len(cat.Streets)*9/8),
		locStreets: make([][]uint32, len(cat.Localities)),
		locPlace:   make([]int32, len(cat.Localities)),
		locByKey:   make(map[string][]uint32),
	}
	for i, s := range cat.Streets {
		if s.RegisterID != "" {
			ix.byID = append(ix.byID, uint32(i))
		}
	}
	sort.Slice(ix.byID, func(i, j int) bool {
		return cat.Streets[ix.byID[i]].RegisterID < cat.Streets[ix.byID[j]].RegisterID
	})
	ix.buildPlaces()

	texts := &interner{ids: make(map[string]uint32, len(cat.Streets))}
	canons := &interner{ids: make(map[string]uint32, len(cat.Streets))}
	type pair struct {
		text uint32
		v    variant
	}
	pairs := make([]pair, 0, len(cat.Streets)*9/8)
	for si := range cat.Streets {
		s := &cat.Streets[si]
		ix.varOff = append(ix.varOff, uint32(len(ix.vars)))
		names := [...]struct {
			kind nameKind
			name string
		}{{kindNL, s.Names.NL}, {kindFR, s.Names.FR}, {kindDE, s.Names.DE}, {kindShort, s.Short}}
		for _, n := range names {
			if n.name == "" {
				continue
			}
			f := fold(n.name)
			if f == "" {
				continue
			}
			id, c := texts.id(f), canon(n.name)
			core := coreOffset(n.name)
			if core > 255 {
				core = 0
			}
			ix.vars = append(ix.vars, storedVariant{name: n.name, text: id, canon: canons.id(c), kind: n.kind, core: uint8(core)})
			ix.varKeys = append(ix.varKeys, keysOf(n.name, f, c))
			pairs = append(pairs, pair{id, variant{street: uint32(si), kind: n.kind}})
		}
	}
	ix.varOff = append(ix.varOff, uint32(len(ix.vars)))
	ix.blob, ix.textOff = texts.done()
	ix.gramOff = make([]uint32, 0, len(ix.textOff))
	for t := range len(ix.textOff) - 1 {
		ix.gramOff = append(ix.gramOff, uint32(len(ix.grams)))
		ix.grams = appendSortedBigrams(ix.grams, ix.text(uint32(t)))
	}
	ix.gramOff = append(ix.gramOff, uint32(len(ix.grams)))
	ix.canonBlob, ix.canonOff = canons.done()
	ix.buildLooseSigs()
	ix.buildKeyStreets()

	sort.Slice(pairs, func(i, j int) bool {
		if pairs[i].text != pairs[j].text {
			return pairs[i].text < pairs[j].text
		}
		return pairs[i].v.street < pairs[j].v.street
	})
	ntext := len(ix.textOff) - 1
	ix.postOff = make([]uint32, ntext+1)
	ix.post = make([]variant, len(pairs))
	for i, p := range pairs {
		ix.post[i] = p.v
		ix.postOff[p.text+1]++
	}
	for i := 1; i <= ntext; i++ {
		ix.postOff[i] += ix.postOff[i-1]
	}

	for t := 0; t < ntext; t++ {
		txt := ix.text(uint32(t))
		for off := 0; off < len(txt) && off < 256; off++ {
			if off == 0 || txt[off-1] == ' ' {
				ix.keys = append(ix.keys, key{uint32(t), uint8(off)})
			}
		}
	}
	sort.Slice(ix.keys, func(i, j int) bool { return ix.keyText(ix.keys[i]) < ix.keyText(ix.keys[j]) })
	var kb strings.Builder
	ix.keyOff = make([]uint32, 0, len(ix.keys)+1)
	for _, k := range ix.keys {
		ix.keyOff = append(ix.keyOff, uint32(kb.Len()))
		kb.WriteString(ix.keyText(k))
	}
	ix.keyOff = append(ix.keyOff, uint32(kb.Len()))
	ix.keyBlob = kb.String()
	ix.lcp = make([]uint8, len(ix.keys))
	for i := 1; i < len(ix.keys); i++ {
		ix.lcp[i] = uint8(min(commonPrefix(ix.sortedKey(i-1), ix.sortedKey(i)), 255))
	}
	ix.rankAlphabetically()

	for li := range cat.Localities {
		l := &cat.Localities[li]
		seen := map[string]bool{}
		for _, names := range [...]adreswijzer.Names{l.Names, l.Municipality} {
			for _, n := range names.All() {
				for _, part := range append([]string{n}, placeNameParts(n)...) {
					f := fold(part)
					if f != "" && !seen[f] {
						seen[f] = true
						ix.locKeys = append(ix.locKeys, locKey{f, uint32(li)})
						k := cityKey(part)
						if !containsU32(ix.locByKey[k], uint32(li)) {
							ix.locByKey[k] = append(ix.locByKey[k], uint32(li))
						}
					}
				}
			}
		}
	}
	sort.Slice(ix.locKeys, func(i, j int) bool { return ix.locKeys[i].folded < ix.locKeys[j].folded })
	return ix
}

// streetVariants returns the names of a street in buf (no allocation for up to four names,
// which is all a street has).
func (ix *index) streetVariants(st uint32, buf *[4]nameVariant) []nameVariant {
	out := buf[:0]
	for i := ix.varOff[st]; i < ix.varOff[st+1]; i++ {
		v := &ix.vars[i]
		out = append(out, nameVariant{
			alpha:   v.alpha,
			kind:    v.kind,
			name:    v.name,
			folded:  ix.text(v.text),
			canon:   ix.canonBlob[ix.canonOff[v.canon]:ix.canonOff[v.canon+1]],
			bigrams: ix.grams[ix.gramOff[v.text]:ix.gramOff[v.text+1]:ix.gramOff[v.text+1]],
			keys:    ix.varKeys[i],
			core:    coreOf(ix.text(v.text), int(v.core)),
		})
	}
	return out
}

// mayMatchExactly is false when no name of street st can match t at an exact level, read
// from the stored keys alone.
func (ix *index) mayMatchExactly(t *typedName, st uint32) bool {
	k, alt := t.keys, t.altKey
	for _, v := range ix.varKeys[ix.varOff[st]:ix.varOff[st+1]] {
		if k.text == v.text || k.compact == v.compact || k.canon == v.canon || alt != 0 && alt == v.canon {
			return true
		}
	}
	return false
}

// streetByID finds the catalog street with a register id.
func (ix *index) streetByID(id string) (uint32, bool) {
	streets := ix.cat.Streets
	i := sort.Search(len(ix.byID), func(i int) bool { return streets[ix.byID[i]].RegisterID >= id })
	if i < len(ix.byID) && streets[ix.byID[i]].RegisterID == id {
		return ix.byID[i], true
	}
	return 0, false
}

// localityPostcode is the locality's postcode when it has one, else "".
func (ix *index) localityPostcode(l uint32) string {
	if p := ix.locPlace[l]; p >= 0 {
		return ix.cat.Places[p].Postcode
	}
	return ""
}

// onlyPostcode is the street's postcode when it has one, else "".
func (ix *index) onlyPostcode(st uint32) string {
	if p := ix.streets[st].place; p >= 0 {
		return ix.cat.Places[p].Postcode
	}
	return ""
}

// rankAlphabetically numbers every name variant in the order of its folded name, then its
// locality, so that ranking compares integers instead of strings.
func (ix *index) rankAlphabetically() {
	locName := make([]string, len(ix.cat.Localities))
	for i, l := range ix.cat.Localities {
		locName[i] = fold(l.Names.PickPrimary(false))
	}
	rank := uint32(0)
	for _, k := range ix.keys {
		if k.off != 0 {
			continue
		}
		vs := ix.post[ix.postOff[k.text]:ix.postOff[k.text+1]]
		sort.SliceStable(vs, func(i, j int) bool {
			return locName[ix.streets[vs[i].street].locality] < locName[ix.streets[vs[j].street].locality]
		})
		for i := range vs {
			vs[i].alpha = rank
			st := vs[i].street
			for j := ix.varOff[st]; j < ix.varOff[st+1]; j++ {
				if ix.vars[j].kind == vs[i].kind {
					ix.vars[j].alpha = rank
				}
			}
			rank++
		}
	}
}

// buildPlaces counts the places of every street and notes its main locality and single
// postcode.
func (ix *index) buildPlaces() {
	cat := ix.cat
	for i := range ix.streets {
		ix.streets[i].place = -1
	}
	seen := make([]bool, len(ix.locPlace))
	for i, p := range cat.Places {
		switch l := p.Locality; {
		case !seen[l]:
			seen[l], ix.locPlace[l] = true, int32(i)
		case ix.locPlace[l] >= 0 && cat.Places[ix.locPlace[l]].Postcode != p.Postcode:
			ix.locPlace[l] = -1
		}
	}
	for l := range ix.locPlace {
		if !seen[l] {
			ix.locPlace[l] = -1
		}
	}
	locCount := make(map[uint64]uint32)
	for i, p := range cat.Places {
		s := &ix.streets[p.Street]
		switch {
		case s.size == 0:
			s.place = int32(i)
		case s.place >= 0 && cat.Places[s.place].Postcode != p.Postcode:
			s.place = -1
		}
		s.size++
		locCount[uint64(p.Street)<<32|uint64(p.Locality)]++
	}
	best := make([]uint32, len(ix.streets))
	for k, c := range locCount {
		st, loc := uint32(k>>32), uint32(k)
		ix.locStreets[loc] = append(ix.locStreets[loc], st)
		if c > best[st] || (c == best[st] && loc < ix.streets[st].locality) {
			best[st] = c
			ix.streets[st].locality = loc
		}
	}
	for _, ls := range ix.locStreets {
		slices.Sort(ls)
	}
	ix.pcSlot = make(map[uint32]uint32)
	for i := 0; i < len(cat.Places); {
		pc := cat.Places[i].Postcode
		ps := cat.PlacesIn(pc)
		if code, ok := postcodeCode(pc); ok {
			ix.pcSlot[code] = uint32(len(ix.pcPlace))
		}
		ix.pcPlace = append(ix.pcPlace, uint32(i))
		ix.pcOff = append(ix.pcOff, uint32(len(ix.pcStreets)))
		ix.pcStreets = append(ix.pcStreets, placeStreets(ps)...)
		i += len(ps)
	}
	ix.pcPlace = append(ix.pcPlace, uint32(len(cat.Places)))
	ix.pcOff = append(ix.pcOff, uint32(len(ix.pcStreets)))
}

// postcodeCode numbers a postcode in the register form: the four digits, and for a Dutch
// one the two letters in base 26 on top (1234AB is 1234·676 + 0·26 + 1). Nothing else
// has a number, and so is in no index.
func postcodeCode(pc string) (uint32, bool) {
	if len(pc) != 4 && len(pc) != 6 {
		return 0, false
	}
	var n uint32
	for i := 0; i < 4; i++ {
		if pc[i] < '0' || pc[i] > '9' {
			return 0, false
		}
		n = n*10 + uint32(pc[i]-'0')
	}
	for i := 4; i < len(pc); i++ {
		if pc[i] < 'A' || pc[i] > 'Z' {
			return 0, false
		}
		n = n*26 + uint32(pc[i]-'A')
	}
	return n, true
}

// postcodeAt returns the slot of postcode pc (the register form).
func (ix *index) postcodeAt(pc string) (uint32, bool) {
	code, ok := postcodeCode(pc)
	if !ok {
		return 0, false
	}
	i, ok := ix.pcSlot[code]
	return i, ok
}

// hasPostcode reports whether any address has postcode pc, as Catalog.HasPostcode does.
func (ix *index) hasPostcode(pc string) bool {
	_, ok := ix.postcodeAt(pc)
	return ok
}

// placesIn returns the places of postcode pc, as Catalog.PlacesIn does (shared: not to be
// changed).
func (ix *index) placesIn(pc string) []adreswijzer.Place {
	i, ok := ix.postcodeAt(pc)
	if !ok {
		return nil
	}
	return ix.cat.Places[ix.pcPlace[i]:ix.pcPlace[i+1]:ix.pcPlace[i+1]]
}

// postcodeStreets returns the streets with places in postcode pc (shared: not to be
// changed).
func (ix *index) postcodeStreets(pc string) []uint32 {
	i, ok := ix.postcodeAt(pc)
	if !ok {
		return nil
	}
	return ix.pcStreets[ix.pcOff[i]:ix.pcOff[i+1]:ix.pcOff[i+1]]
}

func containsU32(list []uint32, v uint32) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

func (ix *index) text(t uint32) string { return ix.blob[ix.textOff[t]:ix.textOff[t+1]] }

func (ix *index) keyText(k key) string {
	return ix.blob[ix.textOff[k.text]+uint32(k.off) : ix.textOff[k.text+1]]
}

// sortedKey is the text of the i-th key in key order.
func (ix *index) sortedKey(i int) string { return ix.keyBlob[ix.keyOff[i]:ix.keyOff[i+1]] }

// textID finds a folded name among the full-name keys.
func (ix *index) textID(f string) (uint32, bool) {
	lo, hi := ix.prefixRange(f)
	for _, k := range ix.keys[lo:hi] {
		if k.off == 0 && ix.text(k.text) == f {
			return k.text, true
		}
	}
	return 0, false
}

func (ix *index) postings(t uint32) []variant { return ix.post[ix.postOff[t]:ix.postOff[t+1]] }

// prefixRange returns the keys whose text starts with q.
func (ix *index) prefixRange(q string) (int, int) {
	lo := sort.Search(len(ix.keys), func(i int) bool { return ix.sortedKey(i) >= q })
	hi := lo + sort.Search(len(ix.keys)-lo, func(i int) bool { return !strings.HasPrefix(ix.sortedKey(lo+i), q) })
	return lo, hi
}

// streetName returns the register name of the street in the kind's language, falling back
// on the requested language when the kind is the short name.
func (ix *index) streetName(st uint32, kind nameKind, lang adreswijzer.Language) string {
	s := &ix.cat.Streets[st]
	switch kind {
	case kindNL:
		return s.Names.NL
	case kindFR:
		return s.Names.FR
	case kindDE:
		return s.Names.DE
	}
	return s.Names.Pick(lang)
}
