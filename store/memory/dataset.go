package memory

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"

	"github.com/adreswijzer/adreswijzer"
)

// Dataset is one activated register version held in columns. A national dataset holds
// about ten million addresses, so nothing here is stored per address that can be shared:
// strings live once in one blob and are referred to by number, the postcode is implied by the
// position of the address (addresses are sorted by postcode), and the Address values that
// readers get are assembled on each call from the columns, their strings pointing into the
// blob rather than copied.
//
// A Dataset never changes after it is built, so readers need no locks and a reader holding an
// older Dataset keeps a consistent view after a newer one is activated.
type Dataset struct {
	info adreswijzer.DatasetInfo
	cat  adreswijzer.Catalog
	t    tables

	// Derived from t when the dataset is built or loaded, never stored in a snapshot.
	pcKeys      []uint32 // packed postcodes parallel to t.postcodes, when pcPacked
	pcPacked    bool
	pcStart     []uint32 // addresses of postcode i are pcStart[i]..pcStart[i+1]
	streetStart []uint32 // t.byStreet[streetStart[s]:streetStart[s+1]] are street s's addresses
}

// tables is what a snapshot stores: everything else is derived from it.
type tables struct {
	blob string   // every distinct string, concatenated
	offs []uint32 // string i is blob[offs[i]:offs[i+1]]; string 0 is ""

	names      []names // index 0 is the empty Names
	streets    []streetRec
	localities []localityRec
	postcodes  []uint32 // string ids of the distinct postcodes, in byte order
	groups     []group
	units      []unit // in (suffix, addition, box) byte order
	idFormats  []idFormat
	rawIDs     []uint32 // string ids of register ids that do not fit an idFormat

	// One entry per address, sorted by postcode, number, unit and register id.
	addrGroup []uint32
	addrNum   []uint32 // house number << 2 | status
	addrUnit  []uint32
	addrID    []uint64 // see encodeID

	// Address indexes sorted by street, then number, then address order.
	byStreet []uint32
}

// names holds the string ids of one Names value (nl, fr, de).
type names [3]uint32

type streetRec struct{ id, names, short, muni uint32 }

type localityRec struct{ names, muni uint32 }

// group is what addresses share: postcode, street, locality, municipality and part of
// municipality. A street in one postcode is one group, so there are about as many groups as
// catalog places, a small fraction of the addresses.
type group struct{ postcode, street, locality, muni, sub uint32 }

type unit struct{ suffix, addition, box uint32 }

// idFormat describes register ids made of a fixed prefix and a run of digits of fixed width
// ("0457200000199360" is "" and 16 digits, "BA/110975" is "BA/" and 6 digits), so that each
// id is kept as a number instead of a string.
type idFormat struct{ prefix, width uint32 }

const (
	statusBits = 2
	statusMask = 1<<statusBits - 1
	maxNumber  = 1<<(32-statusBits) - 1

	idValueBits = 54 // 10^16 < 2^54: sixteen digits fit
	idValueMask = 1<<idValueBits - 1
	rawIDFormat = 1<<(64-idValueBits) - 1 // the format number that marks an id kept as a string
	maxIDDigits = 16
)

var _ adreswijzer.Dataset = (*Dataset)(nil)

// Info describes the dataset.
func (d *Dataset) Info() adreswijzer.DatasetInfo { return d.info }

// Catalog is the street and locality index; it is shared, do not modify it.
func (d *Dataset) Catalog() *adreswijzer.Catalog { return &d.cat }

// Len is the number of addresses.
func (d *Dataset) Len() int { return len(d.t.addrNum) }

// AddressesAt returns the addresses at a postcode and house number, ordered by letter or
// suffix, addition, box and register id.
func (d *Dataset) AddressesAt(ctx context.Context, postcode string, number int) ([]adreswijzer.Address, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	lo, hi, ok := d.postcodeRange(postcode)
	if !ok || number <= 0 || number > maxNumber {
		return nil, nil
	}
	num := d.t.addrNum
	want := uint32(number)
	i := lo + uint32(sort.Search(int(hi-lo), func(j int) bool { return num[lo+uint32(j)]>>statusBits >= want }))
	j := i
	for j < hi && num[j]>>statusBits == want {
		j++
	}
	if i == j {
		return nil, nil
	}
	out := make([]adreswijzer.Address, j-i)
	for k := range out {
		out[k] = d.address(i + uint32(k))
	}
	return out, nil
}

// AddressesOnStreet returns the addresses on a catalog street with a house number, ordered by
// postcode, then as AddressesAt orders them.
func (d *Dataset) AddressesOnStreet(ctx context.Context, street uint32, number int) ([]adreswijzer.Address, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if int(street) >= len(d.cat.Streets) || number <= 0 || number > maxNumber {
		return nil, nil
	}
	lo, hi := d.streetStart[street], d.streetStart[street+1]
	idx, num := d.t.byStreet, d.t.addrNum
	want := uint32(number)
	k := lo + uint32(sort.Search(int(hi-lo), func(j int) bool { return num[idx[lo+uint32(j)]]>>statusBits >= want }))
	j := k
	for j < hi && num[idx[j]]>>statusBits == want {
		j++
	}
	if k == j {
		return nil, nil
	}
	out := make([]adreswijzer.Address, j-k)
	for n := range out {
		out[n] = d.address(idx[k+uint32(n)])
	}
	return out, nil
}

func (d *Dataset) postcodeRange(pc string) (lo, hi uint32, ok bool) {
	var i int
	if d.pcPacked {
		k, packed := packPostcode(pc)
		if !packed {
			return 0, 0, false
		}
		i, ok = slices.BinarySearch(d.pcKeys, k)
	} else {
		i, ok = sort.Find(len(d.t.postcodes), func(j int) int {
			s := d.t.str(d.t.postcodes[j])
			switch {
			case pc < s:
				return -1
			case pc > s:
				return 1
			}
			return 0
		})
	}
	if !ok {
		return 0, 0, false
	}
	return d.pcStart[i], d.pcStart[i+1], true
}

// address assembles address i from the columns.
func (d *Dataset) address(i uint32) adreswijzer.Address {
	t := &d.t
	g := t.groups[t.addrGroup[i]]
	st := &d.cat.Streets[g.street]
	loc := &d.cat.Localities[g.locality]
	u := t.units[t.addrUnit[i]]
	n := t.addrNum[i]
	return adreswijzer.Address{
		Country:           d.info.Country,
		ID:                t.formatID(t.addrID[i]),
		StreetID:          st.RegisterID,
		Street:            st.Names,
		StreetShort:       st.Short,
		HouseNumber:       int(n >> statusBits),
		HouseNumberSuffix: t.str(u.suffix),
		Addition:          t.str(u.addition),
		Box:               t.str(u.box),
		Postcode:          t.str(t.postcodes[g.postcode]),
		Locality:          loc.Names,
		Municipality:      t.namesOf(g.muni),
		SubMunicipality:   t.namesOf(g.sub),
		Status:            adreswijzer.Status(n & statusMask),
	}
}

func (t *tables) str(i uint32) string { return t.blob[t.offs[i]:t.offs[i+1]] }

func (t *tables) namesOf(i uint32) adreswijzer.Names {
	n := t.names[i]
	return adreswijzer.Names{NL: t.str(n[0]), FR: t.str(n[1]), DE: t.str(n[2])}
}

func (t *tables) formatID(v uint64) string {
	f := v >> idValueBits
	if f == rawIDFormat {
		return t.str(t.rawIDs[v&idValueMask])
	}
	fm := t.idFormats[f]
	prefix := t.str(fm.prefix)
	var digits [20]byte
	ds := strconv.AppendUint(digits[:0], v&idValueMask, 10)
	b := make([]byte, 0, len(prefix)+int(fm.width))
	b = append(b, prefix...)
	for range int(fm.width) - len(ds) {
		b = append(b, '0')
	}
	return string(append(b, ds...))
}

// compareIDs orders two encoded register ids as their strings order, without allocating in
// the common case of two ids of one format.
func (t *tables) compareIDs(a, b uint64) int {
	fa, fb := a>>idValueBits, b>>idValueBits
	if fa == fb && fa != rawIDFormat {
		// Same prefix and width: the zero-padded digits order as the numbers do.
		switch va, vb := a&idValueMask, b&idValueMask; {
		case va < vb:
			return -1
		case va > vb:
			return 1
		}
		return 0
	}
	sa, sb := t.formatID(a), t.formatID(b)
	switch {
	case sa < sb:
		return -1
	case sa > sb:
		return 1
	}
	return 0
}

// packPostcode turns a register postcode into a number that orders as the string does:
// "" is 0, Belgian "1130" is 1+1130, Dutch "1382KB" is 10001+1382*676+letters. It fails for
// anything else; datasets whose postcodes do not all pack search the strings instead.
func packPostcode(s string) (uint32, bool) {
	switch len(s) {
	case 0:
		return 0, true
	case 4, 6:
		var d uint32
		for i := range 4 {
			c := s[i]
			if c < '0' || c > '9' {
				return 0, false
			}
			d = d*10 + uint32(c-'0')
		}
		if len(s) == 4 {
			return 1 + d, true
		}
		a, b := s[4], s[5]
		if a < 'A' || a > 'Z' || b < 'A' || b > 'Z' {
			return 0, false
		}
		return 10001 + d*676 + uint32(a-'A')*26 + uint32(b-'A'), true
	}
	return 0, false
}

// derive builds what a Dataset computes from its tables: the catalog, the postcode index and
// the street index. It runs after a build and after a snapshot is read and validated.
func (d *Dataset) derive() {
	t := &d.t
	d.cat.Streets = make([]adreswijzer.Street, len(t.streets))
	for i, s := range t.streets {
		d.cat.Streets[i] = adreswijzer.Street{
			RegisterID:   t.str(s.id),
			Names:        t.namesOf(s.names),
			Short:        t.str(s.short),
			Municipality: t.namesOf(s.muni),
		}
	}
	d.cat.Localities = make([]adreswijzer.Locality, len(t.localities))
	for i, l := range t.localities {
		d.cat.Localities[i] = adreswijzer.Locality{Names: t.namesOf(l.names), Municipality: t.namesOf(l.muni)}
	}
	d.cat.Places = make([]adreswijzer.Place, 0, len(t.groups))
	for _, g := range t.groups {
		d.cat.Places = append(d.cat.Places, adreswijzer.Place{
			Postcode: t.str(t.postcodes[g.postcode]), Street: g.street, Locality: g.locality,
		})
	}
	d.cat.SortPlaces()
	d.cat.Places = slices.Clip(d.cat.Places)

	d.pcKeys = make([]uint32, len(t.postcodes))
	d.pcPacked = true
	for i, s := range t.postcodes {
		k, ok := packPostcode(t.str(s))
		if !ok || (i > 0 && k <= d.pcKeys[i-1]) {
			d.pcPacked = false
			d.pcKeys = nil
			break
		}
		d.pcKeys[i] = k
	}

	d.pcStart = make([]uint32, len(t.postcodes)+1)
	for i := range t.addrGroup {
		d.pcStart[t.groups[t.addrGroup[i]].postcode+1]++
	}
	for i := 1; i < len(d.pcStart); i++ {
		d.pcStart[i] += d.pcStart[i-1]
	}

	d.streetStart = make([]uint32, len(t.streets)+1)
	for _, a := range t.byStreet {
		d.streetStart[t.groups[t.addrGroup[a]].street+1]++
	}
	for i := 1; i < len(d.streetStart); i++ {
		d.streetStart[i] += d.streetStart[i-1]
	}
}

// validate checks that every reference in the tables points inside its table and that the
// columns are in the order the lookups rely on, so that a snapshot written by a faulty
// program is rejected instead of crashing the server that loads it.
func (t *tables) validate() error {
	nstr := uint32(len(t.offs)) - 1
	if len(t.offs) == 0 || t.offs[0] != 0 || nstr == 0 || t.offs[1] != 0 {
		return fmt.Errorf("string table: must start with the empty string")
	}
	for i := 1; i < len(t.offs); i++ {
		if t.offs[i] < t.offs[i-1] {
			return fmt.Errorf("string table: offsets not increasing at %d", i)
		}
	}
	if int(t.offs[nstr]) != len(t.blob) {
		return fmt.Errorf("string table: offsets end at %d, blob has %d bytes", t.offs[nstr], len(t.blob))
	}
	strOK := func(ids ...uint32) bool {
		for _, id := range ids {
			if id >= nstr {
				return false
			}
		}
		return true
	}
	if len(t.names) == 0 || t.names[0] != (names{}) {
		return fmt.Errorf("names table: must start with the empty names")
	}
	for i, n := range t.names {
		if !strOK(n[:]...) {
			return fmt.Errorf("names %d: string id out of range", i)
		}
	}
	nnames := uint32(len(t.names))
	for i, s := range t.streets {
		if !strOK(s.id, s.short) || s.names >= nnames || s.muni >= nnames {
			return fmt.Errorf("street %d: reference out of range", i)
		}
	}
	for i, l := range t.localities {
		if l.names >= nnames || l.muni >= nnames {
			return fmt.Errorf("locality %d: reference out of range", i)
		}
	}
	for i, p := range t.postcodes {
		if !strOK(p) || (i > 0 && t.str(t.postcodes[i-1]) >= t.str(p)) {
			return fmt.Errorf("postcode %d: out of range or out of order", i)
		}
	}
	for i, g := range t.groups {
		if g.postcode >= uint32(len(t.postcodes)) || g.street >= uint32(len(t.streets)) ||
			g.locality >= uint32(len(t.localities)) || g.muni >= nnames || g.sub >= nnames {
			return fmt.Errorf("group %d: reference out of range", i)
		}
	}
	for i, u := range t.units {
		if !strOK(u.suffix, u.addition, u.box) {
			return fmt.Errorf("unit %d: string id out of range", i)
		}
	}
	if len(t.idFormats) >= rawIDFormat {
		return fmt.Errorf("id formats: %d, at most %d", len(t.idFormats), rawIDFormat-1)
	}
	for i, f := range t.idFormats {
		if !strOK(f.prefix) || f.width == 0 || f.width > maxIDDigits {
			return fmt.Errorf("id format %d: invalid", i)
		}
	}
	if !strOK(t.rawIDs...) {
		return fmt.Errorf("raw ids: string id out of range")
	}
	n := len(t.addrNum)
	if len(t.addrGroup) != n || len(t.addrUnit) != n || len(t.addrID) != n || len(t.byStreet) != n {
		return fmt.Errorf("address columns differ in length")
	}
	for i := range n {
		if t.addrGroup[i] >= uint32(len(t.groups)) || t.addrUnit[i] >= uint32(len(t.units)) {
			return fmt.Errorf("address %d: reference out of range", i)
		}
		f := t.addrID[i] >> idValueBits
		if (f == rawIDFormat && t.addrID[i]&idValueMask >= uint64(len(t.rawIDs))) ||
			(f != rawIDFormat && f >= uint64(len(t.idFormats))) {
			return fmt.Errorf("address %d: id out of range", i)
		}
		if i > 0 {
			p, q := t.groups[t.addrGroup[i-1]].postcode, t.groups[t.addrGroup[i]].postcode
			if p > q || (p == q && t.addrNum[i-1]>>statusBits > t.addrNum[i]>>statusBits) {
				return fmt.Errorf("address %d: not in postcode and number order", i)
			}
		}
	}
	seen := make([]bool, n)
	for k, a := range t.byStreet {
		if a >= uint32(n) || seen[a] {
			return fmt.Errorf("street index %d: not a permutation", k)
		}
		seen[a] = true
		if k > 0 {
			p, q := t.byStreet[k-1], a
			sp, sq := t.groups[t.addrGroup[p]].street, t.groups[t.addrGroup[q]].street
			if sp > sq || (sp == sq && t.addrNum[p]>>statusBits > t.addrNum[q]>>statusBits) {
				return fmt.Errorf("street index %d: not in street and number order", k)
			}
		}
	}
	return nil
}
