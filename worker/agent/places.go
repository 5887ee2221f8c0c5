package agent

import (
	"context"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/adreswijzer/adreswijzer"
)

// placeIndex holds the place names of each country's active register, folded, so that the
// splitter can ask about every trailing word group of a line and country detection about
// the city without reading thousands of localities per call. A set is built once per
// activated dataset: a new catalog replaces it.
type placeIndex struct {
	mu   sync.Mutex
	sets map[adreswijzer.Country]placeSet
}

type placeSet struct {
	cat   *adreswijzer.Catalog
	names map[string]struct{}
}

// names returns the folded place names of ds, the register of c.
func (p *placeIndex) names(c adreswijzer.Country, ds adreswijzer.Dataset) map[string]struct{} {
	cat := ds.Catalog()
	p.mu.Lock()
	defer p.mu.Unlock()
	if s, ok := p.sets[c]; ok && s.cat == cat {
		return s.names
	}
	if p.sets == nil {
		p.sets = map[adreswijzer.Country]placeSet{}
	}
	s := placeSet{cat: cat, names: placeNames(cat)}
	p.sets[c] = s
	return s.names
}

// placeNames folds every name of every locality and municipality, in all its languages.
// BeST names the parts of Brussels "Brussel (Haren)" / "Bruxelles (Haren)", while people
// write "Haren" or "Brussel": both parts count. A part in brackets shorter than four
// letters is a province ("Bergen (NH)", "Hengelo (Gld)"), which alone names no place.
func placeNames(cat *adreswijzer.Catalog) map[string]struct{} {
	set := map[string]struct{}{}
	add := func(n string) {
		if k := foldName(n); k != "" {
			set[k] = struct{}{}
		}
	}
	for _, l := range cat.Localities {
		for _, n := range append(l.Names.All(), l.Municipality.All()...) {
			add(n)
			if before, inside, ok := strings.Cut(n, "("); ok {
				inside, _, _ = strings.Cut(inside, ")")
				add(before)
				if utf8.RuneCountInString(foldName(inside)) >= 4 {
					add(inside)
				}
			}
		}
	}
	return set
}

// knownPlace returns what the splitter asks about place names: whether any loaded register
// has a place so named. A register that is not loaded knows no place.
func (s *service) knownPlace(ctx context.Context) placeKnown {
	var sets []map[string]struct{}
	for _, c := range adreswijzer.Countries {
		if ds, err := s.engine.Dataset(ctx, c); err == nil {
			sets = append(sets, s.places.names(c, ds))
		}
	}
	return func(name string) bool {
		key := foldName(name)
		for _, set := range sets {
			if _, ok := set[key]; ok && key != "" {
				return true
			}
		}
		return false
	}
}

// knowsCity reports whether a locality or municipality of the register has the name, in any
// of its languages, letter case and accents aside.
func (s *service) knowsCity(c adreswijzer.Country, ds adreswijzer.Dataset, city string) bool {
	key := foldName(city)
	_, ok := s.places.names(c, ds)[key]
	return ok && key != ""
}

// foldName compares place names: lower case, accents and punctuation dropped.
func foldName(s string) string {
	var b strings.Builder
	for _, r := range diacritics.Replace(strings.ToLower(s)) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}
