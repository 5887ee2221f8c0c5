package memory

import (
	"strings"

	"github.com/adreswijzer/adreswijzer"
)

// CatalogBuilder collects the catalog while a store receives an import. Both stores number
// streets and localities with it, in the order the import first names them, so that the memory
// and the Postgres store hand the matching engine the same catalog for the same import.
//
// A street is identified by its register id; the names, short name and municipality of the
// first address that names it win. An address without a street id is grouped with others of
// the same names and municipality. A locality is identified by its names and municipality.
type CatalogBuilder struct {
	cat        adreswijzer.Catalog
	streets    map[streetKey]uint32
	localities map[localityKey]uint32
	places     map[adreswijzer.Place]struct{}
	strs       map[string]string
	lastPlace  adreswijzer.Place
	havePlace  bool
}

type streetKey struct {
	id    string
	names adreswijzer.Names
	muni  adreswijzer.Names
}

type localityKey struct {
	names adreswijzer.Names
	muni  adreswijzer.Names
}

// NewCatalogBuilder returns an empty builder.
func NewCatalogBuilder() *CatalogBuilder {
	return &CatalogBuilder{
		streets:    make(map[streetKey]uint32),
		localities: make(map[localityKey]uint32),
		places:     make(map[adreswijzer.Place]struct{}),
		strs:       make(map[string]string),
	}
}

// Add records the street, locality and place of a and returns the street and locality
// indexes the catalog gives them.
func (b *CatalogBuilder) Add(a *adreswijzer.Address) (street, locality uint32) {
	street = b.street(a)
	locality = b.locality(a)
	p := adreswijzer.Place{Postcode: a.Postcode, Street: street, Locality: locality}
	// Imports arrive grouped by street, so most addresses repeat the previous place and
	// skip the map.
	if !b.havePlace || p != b.lastPlace {
		p.Postcode = b.Intern(p.Postcode)
		b.places[p] = struct{}{}
		b.lastPlace, b.havePlace = p, true
	}
	return street, locality
}

func (b *CatalogBuilder) street(a *adreswijzer.Address) uint32 {
	k := streetKey{id: a.StreetID}
	if a.StreetID == "" {
		k = streetKey{names: a.Street, muni: a.Municipality}
	}
	if i, ok := b.streets[k]; ok {
		return i
	}
	i := uint32(len(b.cat.Streets))
	b.cat.Streets = append(b.cat.Streets, adreswijzer.Street{
		RegisterID:   b.Intern(a.StreetID),
		Names:        b.InternNames(a.Street),
		Short:        b.Intern(a.StreetShort),
		Municipality: b.InternNames(a.Municipality),
	})
	k.id = b.Intern(k.id)
	k.names, k.muni = b.InternNames(k.names), b.InternNames(k.muni)
	b.streets[k] = i
	return i
}

func (b *CatalogBuilder) locality(a *adreswijzer.Address) uint32 {
	k := localityKey{names: a.Locality, muni: a.Municipality}
	if i, ok := b.localities[k]; ok {
		return i
	}
	i := uint32(len(b.cat.Localities))
	k = localityKey{names: b.InternNames(k.names), muni: b.InternNames(k.muni)}
	b.cat.Localities = append(b.cat.Localities, adreswijzer.Locality{Names: k.names, Municipality: k.muni})
	b.localities[k] = i
	return i
}

// Intern returns one shared copy of s. The copy is made so that the catalog never keeps an
// importer's parse buffer alive through a substring of it.
func (b *CatalogBuilder) Intern(s string) string {
	if s == "" {
		return ""
	}
	if v, ok := b.strs[s]; ok {
		return v
	}
	v := strings.Clone(s)
	b.strs[v] = v
	return v
}

// InternNames interns each language's name.
func (b *CatalogBuilder) InternNames(n adreswijzer.Names) adreswijzer.Names {
	return adreswijzer.Names{NL: b.Intern(n.NL), FR: b.Intern(n.FR), DE: b.Intern(n.DE)}
}

// Catalog returns the catalog built so far with its places sorted. The builder must not be
// used afterwards: the catalog shares its slices.
func (b *CatalogBuilder) Catalog() *adreswijzer.Catalog {
	cat := b.cat
	cat.Places = make([]adreswijzer.Place, 0, len(b.places))
	for p := range b.places {
		cat.Places = append(cat.Places, p)
	}
	cat.SortPlaces()
	return &cat
}
