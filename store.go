//go:build !wasip1

// Not in wasip1 builds: the address form's WebAssembly core (wasm/) needs the domain's
// parsing, not the store interfaces, and leaving this file out keeps time and context (with the
// runtime settings they register) out of the file every shopper downloads.

package adreswijzer

import (
	"context"
	"errors"
	"sort"
)

// Errors a Store returns; callers test them with errors.Is.
var (
	// ErrNoDataset: no dataset has been activated for the country yet.
	ErrNoDataset = errors.New("no dataset active for this country")
	// ErrUnavailable: the backing database cannot answer now (down, slow past the deadline).
	// The HTTP layer turns it into 503 SERVICE_UNAVAILABLE so callers fail open.
	ErrUnavailable = errors.New("register store unavailable")
)

// Store serves the active dataset of each country. Implementations: store/memory (the
// embedded default) and store/postgres.
type Store interface {
	// Active returns the dataset serving now for the country. It must be cheap (an atomic
	// load): the worker calls it on every request, and a dataset activated by an import takes
	// over between two calls, never within one.
	Active(ctx context.Context, c Country) (Dataset, error)
	// Ping reports whether the backing database answers; nil for the memory store.
	Ping(ctx context.Context) error
}

// Dataset is one activated register version for one country. Readers hold on to it for the
// length of one request, so an activation in between cannot mix two versions in one answer.
type Dataset interface {
	Info() DatasetInfo
	// Catalog is the street and locality index, always in memory (see Catalog).
	Catalog() *Catalog
	// AddressesAt returns every address with this postcode and house number: all letters,
	// additions and boxes, on every street (a Belgian postcode spans many streets). The
	// slice is the caller's to reorder or change, as AddressesOnStreet's: the matching
	// engine sorts and groups the addresses of a request without copying them.
	AddressesAt(ctx context.Context, postcode string, number int) ([]Address, error)
	// AddressesOnStreet returns every address on the catalog street with this house number,
	// in any postcode.
	AddressesOnStreet(ctx context.Context, street uint32, number int) ([]Address, error)
}

// Loader creates new datasets beside the active ones.
type Loader interface {
	// Begin starts a dataset for the country. Readers see nothing of it until Commit.
	Begin(ctx context.Context, c Country) (DatasetWriter, error)
}

// DatasetWriter receives an import. A failed or interrupted import never calls Commit, so the
// previous version keeps serving untouched; Abort only frees what was written so far.
type DatasetWriter interface {
	// Add stores one address. Importers call it from one goroutine.
	Add(a Address) error
	// Commit builds the indexes and activates the dataset atomically.
	Commit(ctx context.Context, v DatasetVersion) (DatasetInfo, error)
	// Abort discards the partial dataset.
	Abort(ctx context.Context) error
}

// Catalog is the part of a dataset every store keeps in memory, whatever holds the
// addresses: streets, localities and which streets have addresses in which postcode. It is
// small (about 250k streets and 600k postcode-street pairs nationally for NL) and street
// suggestion and street matching must answer in well under a millisecond, which no database
// round trip allows.
type Catalog struct {
	Streets    []Street   // indexed by Place.Street and Dataset.AddressesOnStreet
	Localities []Locality // indexed by Place.Locality
	// Places are the distinct (postcode, street, locality) triples that have at least one
	// address, sorted by postcode, then street, then locality.
	Places []Place
}

// Street is one public space of the register.
type Street struct {
	RegisterID   string // BAG OpenbareRuimte id, BeST streetname id
	Names        Names
	Short        string // NEN 5825 short name, empty when none
	Municipality Names
}

// Locality is a place name on the postal line (BAG woonplaats; BeST postal name, part of
// municipality or municipality).
type Locality struct {
	Names        Names
	Municipality Names
}

// Place says that a street has addresses in a postcode and locality.
type Place struct {
	Postcode string
	Street   uint32
	Locality uint32
}

// PlacesIn returns the places of a postcode (a sub-slice of Places; do not modify).
func (c *Catalog) PlacesIn(postcode string) []Place {
	i := sort.Search(len(c.Places), func(i int) bool { return c.Places[i].Postcode >= postcode })
	j := i
	for j < len(c.Places) && c.Places[j].Postcode == postcode {
		j++
	}
	return c.Places[i:j]
}

// HasPostcode reports whether any address has the postcode.
func (c *Catalog) HasPostcode(postcode string) bool { return len(c.PlacesIn(postcode)) > 0 }

// SortPlaces puts Places in the order PlacesIn relies on and removes duplicates; stores
// call it once when they build or load a catalog.
func (c *Catalog) SortPlaces() {
	p := c.Places
	sort.Slice(p, func(i, j int) bool {
		if p[i].Postcode != p[j].Postcode {
			return p[i].Postcode < p[j].Postcode
		}
		if p[i].Street != p[j].Street {
			return p[i].Street < p[j].Street
		}
		return p[i].Locality < p[j].Locality
	})
	out := p[:0]
	for i, x := range p {
		if i == 0 || x != p[i-1] {
			out = append(out, x)
		}
	}
	c.Places = out
}
