package postgres

import (
	"context"
	"fmt"
	"math"

	"github.com/jackc/pgx/v5"

	"github.com/adreswijzer/adreswijzer"
)

// dataset is one activated dataset: its catalog in memory, its addresses in its schema.
type dataset struct {
	s     *Store
	id    int64
	info  adreswijzer.DatasetInfo
	cat   adreswijzer.Catalog
	areas []area

	sqlAt, sqlStreet string
}

// area is what addresses of one municipality part share beyond street and locality.
type area struct{ muni, sub adreswijzer.Names }

var _ adreswijzer.Dataset = (*dataset)(nil)

func (d *dataset) Info() adreswijzer.DatasetInfo { return d.info }
func (d *dataset) Catalog() *adreswijzer.Catalog { return &d.cat }

const addressSelect = "SELECT id, number, suffix, addition, box, postcode, street, locality, area, status FROM "

// AddressesAt returns the addresses at a postcode and house number, ordered by suffix,
// addition, box and id.
func (d *dataset) AddressesAt(ctx context.Context, postcode string, number int) ([]adreswijzer.Address, error) {
	if number <= 0 || number > math.MaxInt32 {
		return nil, nil
	}
	out, err := d.query(ctx, d.sqlAt, postcode, int32(number))
	if err != nil {
		return nil, fmt.Errorf("addresses at postcode and number: %w", err)
	}
	return out, nil
}

// AddressesOnStreet returns the addresses on a catalog street with a house number, ordered by
// postcode, then as AddressesAt orders them.
func (d *dataset) AddressesOnStreet(ctx context.Context, street uint32, number int) ([]adreswijzer.Address, error) {
	if int(street) >= len(d.cat.Streets) || number <= 0 || number > math.MaxInt32 {
		return nil, nil
	}
	out, err := d.query(ctx, d.sqlStreet, int32(street), int32(number))
	if err != nil {
		return nil, fmt.Errorf("addresses on street: %w", err)
	}
	return out, nil
}

func (d *dataset) query(ctx context.Context, sql string, args ...any) ([]adreswijzer.Address, error) {
	ctx, cancel := d.s.queryContext(ctx)
	defer cancel()
	rows, err := d.s.read.Query(ctx, sql, args...)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", adreswijzer.ErrUnavailable, err)
	}
	defer rows.Close()
	var out []adreswijzer.Address
	var (
		id, suffix, addition, box, postcode string
		number, street, locality, ar        int32
		status                              int16
	)
	for rows.Next() {
		if err := rows.Scan(&id, &number, &suffix, &addition, &box, &postcode, &street, &locality, &ar, &status); err != nil {
			return nil, fmt.Errorf("%w: %w", adreswijzer.ErrUnavailable, err)
		}
		if street < 0 || int(street) >= len(d.cat.Streets) || locality < 0 || int(locality) >= len(d.cat.Localities) ||
			ar < 0 || int(ar) >= len(d.areas) {
			return nil, fmt.Errorf("dataset %d: address %s refers outside the catalog", d.id, id)
		}
		st := &d.cat.Streets[street]
		a := &d.areas[ar]
		out = append(out, adreswijzer.Address{
			Country:           d.info.Country,
			ID:                id,
			StreetID:          st.RegisterID,
			Street:            st.Names,
			StreetShort:       st.Short,
			HouseNumber:       int(number),
			HouseNumberSuffix: suffix,
			Addition:          addition,
			Box:               box,
			Postcode:          postcode,
			Locality:          d.cat.Localities[locality].Names,
			Municipality:      a.muni,
			SubMunicipality:   a.sub,
			Status:            adreswijzer.Status(status),
		})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%w: %w", adreswijzer.ErrUnavailable, err)
	}
	return out, nil
}

// loadDataset reads the catalog of an active dataset into memory.
func (s *Store) loadDataset(ctx context.Context, a activeRow) (*dataset, error) {
	ctx, cancel := context.WithTimeout(ctx, s.opts.CatalogTimeout)
	defer cancel()
	q := pgx.Identifier{a.schema}.Sanitize()
	d := &dataset{
		s:  s,
		id: a.id,
		info: adreswijzer.DatasetInfo{
			Country:     a.country,
			Version:     adreswijzer.DatasetVersion(a.version),
			ActivatedAt: a.activatedAt.UTC(),
			Addresses:   int(a.addresses),
		},
		sqlAt:     addressSelect + q + ".addresses WHERE postcode = $1 AND number = $2 ORDER BY suffix, addition, box, id",
		sqlStreet: addressSelect + q + ".addresses WHERE street = $1 AND number = $2 ORDER BY postcode, suffix, addition, box, id",
	}
	// The same municipality and postcode strings recur thousands of times; keep one copy.
	strs := make(map[string]string)
	intern := func(s string) string {
		if v, ok := strs[s]; ok {
			return v
		}
		strs[s] = s
		return s
	}
	names := func(nl, fr, de string) adreswijzer.Names {
		return adreswijzer.Names{NL: intern(nl), FR: intern(fr), DE: intern(de)}
	}
	checkID := func(table string, id int32, n int) error {
		if int(id) != n {
			return fmt.Errorf("%s: id %d at position %d", table, id, n)
		}
		return nil
	}

	rows, err := s.read.Query(ctx, "SELECT id, register_id, name_nl, name_fr, name_de, short, muni_nl, muni_fr, muni_de FROM "+q+".streets ORDER BY id")
	if err != nil {
		return nil, fmt.Errorf("%w: %w", adreswijzer.ErrUnavailable, err)
	}
	var id int32
	var v [8]string
	_, err = pgx.ForEachRow(rows, []any{&id, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]}, func() error {
		if err := checkID("streets", id, len(d.cat.Streets)); err != nil {
			return err
		}
		d.cat.Streets = append(d.cat.Streets, adreswijzer.Street{
			RegisterID: v[0], Names: names(v[1], v[2], v[3]), Short: intern(v[4]), Municipality: names(v[5], v[6], v[7]),
		})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("streets: %w", err)
	}

	rows, err = s.read.Query(ctx, "SELECT id, name_nl, name_fr, name_de, muni_nl, muni_fr, muni_de FROM "+q+".localities ORDER BY id")
	if err != nil {
		return nil, fmt.Errorf("%w: %w", adreswijzer.ErrUnavailable, err)
	}
	_, err = pgx.ForEachRow(rows, []any{&id, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5]}, func() error {
		if err := checkID("localities", id, len(d.cat.Localities)); err != nil {
			return err
		}
		d.cat.Localities = append(d.cat.Localities, adreswijzer.Locality{Names: names(v[0], v[1], v[2]), Municipality: names(v[3], v[4], v[5])})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("localities: %w", err)
	}

	rows, err = s.read.Query(ctx, "SELECT id, muni_nl, muni_fr, muni_de, sub_nl, sub_fr, sub_de FROM "+q+".areas ORDER BY id")
	if err != nil {
		return nil, fmt.Errorf("%w: %w", adreswijzer.ErrUnavailable, err)
	}
	_, err = pgx.ForEachRow(rows, []any{&id, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5]}, func() error {
		if err := checkID("areas", id, len(d.areas)); err != nil {
			return err
		}
		d.areas = append(d.areas, area{muni: names(v[0], v[1], v[2]), sub: names(v[3], v[4], v[5])})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("areas: %w", err)
	}

	rows, err = s.read.Query(ctx, "SELECT postcode, street, locality FROM "+q+".places")
	if err != nil {
		return nil, fmt.Errorf("%w: %w", adreswijzer.ErrUnavailable, err)
	}
	var street, locality int32
	_, err = pgx.ForEachRow(rows, []any{&v[0], &street, &locality}, func() error {
		if street < 0 || int(street) >= len(d.cat.Streets) || locality < 0 || int(locality) >= len(d.cat.Localities) {
			return fmt.Errorf("place refers outside the catalog")
		}
		d.cat.Places = append(d.cat.Places, adreswijzer.Place{Postcode: intern(v[0]), Street: uint32(street), Locality: uint32(locality)})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("places: %w", err)
	}
	d.cat.SortPlaces()
	return d, nil
}
