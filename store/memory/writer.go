package memory

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/adreswijzer/adreswijzer"
)

// writer receives one import. It keeps the addresses in the same columns the Dataset uses,
// with strings interned as they arrive, so that an import of ten million addresses never holds
// ten million Address values.
type writer struct {
	store   *Store
	country adreswijzer.Country
	done    bool

	cb *CatalogBuilder

	strIDs  map[string]uint32
	strList []string

	nameIDs  map[adreswijzer.Names]uint32
	nameList []names

	pcIDs  map[string]uint32 // postcode string → index in pcList
	pcList []uint32          // string ids, in order of first appearance

	groupIDs  map[group]uint32
	groupList []group

	unitIDs  map[unit]uint32
	unitList []unit

	formatIDs  map[idFormat]uint32
	formatList []idFormat
	rawIDs     []uint32

	addrGroup []uint32
	addrNum   []uint32
	addrUnit  []uint32
	addrID    []uint64

	// The previous address's group inputs: an import names one street many times in a row.
	last      lastGroup
	lastGroup uint32
	haveLast  bool
}

type lastGroup struct {
	postcode, streetID, short                string
	street, locality, municipality, subMunic adreswijzer.Names
}

func newWriter(s *Store, c adreswijzer.Country) *writer {
	w := &writer{
		store:     s,
		country:   c,
		cb:        NewCatalogBuilder(),
		strIDs:    map[string]uint32{"": 0},
		strList:   []string{""},
		nameIDs:   map[adreswijzer.Names]uint32{{}: 0},
		nameList:  []names{{}},
		pcIDs:     make(map[string]uint32),
		groupIDs:  make(map[group]uint32),
		unitIDs:   make(map[unit]uint32),
		formatIDs: make(map[idFormat]uint32),
	}
	return w
}

var errFinished = errors.New("dataset writer already committed or aborted")

// Add stores one address.
func (w *writer) Add(a adreswijzer.Address) error {
	if w.done {
		return errFinished
	}
	if a.Country != "" && a.Country != w.country {
		return fmt.Errorf("add address: country %s in a %s dataset", a.Country, w.country)
	}
	if a.HouseNumber < 0 || a.HouseNumber > maxNumber {
		return fmt.Errorf("add address %s: house number out of range 0..%d", a.ID, maxNumber)
	}
	if a.Status > statusMask {
		return fmt.Errorf("add address %s: unknown status %d", a.ID, a.Status)
	}
	w.addrGroup = append(w.addrGroup, w.group(&a))
	w.addrNum = append(w.addrNum, uint32(a.HouseNumber)<<statusBits|uint32(a.Status))
	w.addrUnit = append(w.addrUnit, w.unit(&a))
	w.addrID = append(w.addrID, w.encodeID(a.ID))
	return nil
}

func (w *writer) group(a *adreswijzer.Address) uint32 {
	in := lastGroup{a.Postcode, a.StreetID, a.StreetShort, a.Street, a.Locality, a.Municipality, a.SubMunicipality}
	if w.haveLast && in == w.last {
		return w.lastGroup
	}
	street, locality := w.cb.Add(a)
	pc, ok := w.pcIDs[a.Postcode]
	if !ok {
		pc = uint32(len(w.pcList))
		s := w.str(a.Postcode)
		w.pcList = append(w.pcList, s)
		w.pcIDs[w.strList[s]] = pc
	}
	g := group{postcode: pc, street: street, locality: locality, muni: w.names(a.Municipality), sub: w.names(a.SubMunicipality)}
	id, ok := w.groupIDs[g]
	if !ok {
		id = uint32(len(w.groupList))
		w.groupList = append(w.groupList, g)
		w.groupIDs[g] = id
	}
	w.last, w.lastGroup, w.haveLast = in, id, true
	return id
}

func (w *writer) unit(a *adreswijzer.Address) uint32 {
	u := unit{suffix: w.str(a.HouseNumberSuffix), addition: w.str(a.Addition), box: w.str(a.Box)}
	id, ok := w.unitIDs[u]
	if !ok {
		id = uint32(len(w.unitList))
		w.unitList = append(w.unitList, u)
		w.unitIDs[u] = id
	}
	return id
}

// encodeID keeps a register id as its format number above its digits (see idFormat). An id
// without trailing digits, with more than sixteen of them, or of a format beyond the 1,023
// the encoding can name, is kept as a string instead.
func (w *writer) encodeID(id string) uint64 {
	j := len(id)
	for j > 0 && id[j-1] >= '0' && id[j-1] <= '9' {
		j--
	}
	if digits := id[j:]; len(digits) >= 1 && len(digits) <= maxIDDigits {
		v, err := strconv.ParseUint(digits, 10, 64)
		if err == nil {
			f := idFormat{prefix: w.str(id[:j]), width: uint32(len(digits))}
			n, ok := w.formatIDs[f]
			if !ok && len(w.formatList) < rawIDFormat {
				n, ok = uint32(len(w.formatList)), true
				w.formatList = append(w.formatList, f)
				w.formatIDs[f] = n
			}
			if ok {
				return uint64(n)<<idValueBits | v
			}
		}
	}
	w.rawIDs = append(w.rawIDs, w.str(id))
	return rawIDFormat<<idValueBits | uint64(len(w.rawIDs)-1)
}

func (w *writer) str(s string) uint32 {
	if id, ok := w.strIDs[s]; ok {
		return id
	}
	id := uint32(len(w.strList))
	s = strings.Clone(s)
	w.strList = append(w.strList, s)
	w.strIDs[s] = id
	return id
}

func (w *writer) names(n adreswijzer.Names) uint32 {
	if id, ok := w.nameIDs[n]; ok {
		return id
	}
	id := uint32(len(w.nameList))
	ids := names{w.str(n.NL), w.str(n.FR), w.str(n.DE)}
	w.nameList = append(w.nameList, ids)
	// Key the map with the interned copies, not the importer's strings.
	w.nameIDs[adreswijzer.Names{NL: w.strList[ids[0]], FR: w.strList[ids[1]], DE: w.strList[ids[2]]}] = id
	return id
}

// Commit builds the dataset, writes its snapshot when the store has a path for the country,
// and activates it. After Commit, successful or not, the writer is finished.
func (w *writer) Commit(ctx context.Context, v adreswijzer.DatasetVersion) (adreswijzer.DatasetInfo, error) {
	if w.done {
		return adreswijzer.DatasetInfo{}, errFinished
	}
	w.done = true
	defer w.release()
	if _, err := v.Parts(); err != nil {
		return adreswijzer.DatasetInfo{}, fmt.Errorf("commit %s dataset %q: %w", w.country, v, err)
	}
	if len(w.addrNum) == 0 {
		return adreswijzer.DatasetInfo{}, fmt.Errorf("commit %s dataset %s: no addresses; refusing to replace the active dataset with an empty one", w.country, v)
	}
	if err := ctx.Err(); err != nil {
		return adreswijzer.DatasetInfo{}, fmt.Errorf("commit %s dataset %s: %w", w.country, v, err)
	}
	d, err := w.build(adreswijzer.DatasetInfo{
		Country:     w.country,
		Version:     v,
		ActivatedAt: time.Now().UTC(),
		Addresses:   len(w.addrNum),
	})
	if err != nil {
		return adreswijzer.DatasetInfo{}, fmt.Errorf("commit %s dataset %s: %w", w.country, v, err)
	}
	if path := w.store.opts.Snapshots[w.country]; path != "" {
		if err := WriteSnapshot(path, d); err != nil {
			return adreswijzer.DatasetInfo{}, fmt.Errorf("commit %s dataset %s: %w", w.country, v, err)
		}
		w.store.noteLoaded(path)
	}
	w.store.Activate(d)
	return d.info, nil
}

// Abort drops what was added. The active dataset was never touched.
func (w *writer) Abort(context.Context) error {
	w.done = true
	w.release()
	return nil
}

func (w *writer) release() {
	*w = writer{store: w.store, country: w.country, done: true}
}

// build sorts the columns into their final order and derives the indexes.
func (w *writer) build(info adreswijzer.DatasetInfo) (*Dataset, error) {
	cat := w.cb.Catalog()
	d := &Dataset{info: info}
	t := &d.t

	t.streets = make([]streetRec, len(cat.Streets))
	for i, s := range cat.Streets {
		t.streets[i] = streetRec{id: w.str(s.RegisterID), names: w.names(s.Names), short: w.str(s.Short), muni: w.names(s.Municipality)}
	}
	t.localities = make([]localityRec, len(cat.Localities))
	for i, l := range cat.Localities {
		t.localities[i] = localityRec{names: w.names(l.Names), muni: w.names(l.Municipality)}
	}

	// Postcodes in byte order; groups refer to them by rank.
	pcOrder := make([]uint32, len(w.pcList))
	for i := range pcOrder {
		pcOrder[i] = uint32(i)
	}
	slices.SortFunc(pcOrder, func(a, b uint32) int { return strings.Compare(w.strList[w.pcList[a]], w.strList[w.pcList[b]]) })
	pcRank := make([]uint32, len(w.pcList))
	t.postcodes = make([]uint32, len(w.pcList))
	for r, i := range pcOrder {
		pcRank[i] = uint32(r)
		t.postcodes[r] = w.pcList[i]
	}
	t.groups = w.groupList
	for i := range t.groups {
		t.groups[i].postcode = pcRank[t.groups[i].postcode]
	}

	// Units in (suffix, addition, box) byte order, so that sorting by unit number sorts
	// by the strings.
	unitOrder := make([]uint32, len(w.unitList))
	for i := range unitOrder {
		unitOrder[i] = uint32(i)
	}
	unitStrs := func(u unit) [3]string { return [3]string{w.strList[u.suffix], w.strList[u.addition], w.strList[u.box]} }
	slices.SortFunc(unitOrder, func(a, b uint32) int {
		x, y := unitStrs(w.unitList[a]), unitStrs(w.unitList[b])
		return cmp.Or(strings.Compare(x[0], y[0]), strings.Compare(x[1], y[1]), strings.Compare(x[2], y[2]))
	})
	unitRank := make([]uint32, len(w.unitList))
	t.units = make([]unit, len(w.unitList))
	for r, i := range unitOrder {
		unitRank[i] = uint32(r)
		t.units[r] = w.unitList[i]
	}

	t.names = w.nameList
	t.idFormats = w.formatList
	t.rawIDs = w.rawIDs
	t.offs = make([]uint32, len(w.strList)+1)
	var blob strings.Builder
	for i, s := range w.strList {
		if blob.Len()+len(s) > 1<<32-1 {
			return nil, fmt.Errorf("string table exceeds 4 GiB")
		}
		blob.WriteString(s)
		t.offs[i+1] = uint32(blob.Len())
	}
	t.blob = blob.String()
	w.cb = nil
	w.strIDs, w.strList, w.nameIDs, w.pcIDs, w.groupIDs, w.unitIDs, w.formatIDs = nil, nil, nil, nil, nil, nil, nil

	// Address order: postcode, number, unit, register id.
	n := len(w.addrNum)
	type key struct{ pc, num, unit, idx uint32 }
	keys := make([]key, n)
	for i := range keys {
		keys[i] = key{
			pc:   t.groups[w.addrGroup[i]].postcode,
			num:  w.addrNum[i] >> statusBits,
			unit: unitRank[w.addrUnit[i]],
			idx:  uint32(i),
		}
	}
	slices.SortFunc(keys, func(a, b key) int {
		if c := cmp.Or(cmp.Compare(a.pc, b.pc), cmp.Compare(a.num, b.num), cmp.Compare(a.unit, b.unit)); c != 0 {
			return c
		}
		// Rare: two addresses alike but for their id. Only now is the id compared, which may
		// format both ids.
		return t.compareIDs(w.addrID[a.idx], w.addrID[b.idx])
	})
	t.addrGroup = make([]uint32, n)
	t.addrNum = make([]uint32, n)
	t.addrUnit = make([]uint32, n)
	t.addrID = make([]uint64, n)
	for r, k := range keys {
		t.addrGroup[r] = w.addrGroup[k.idx]
		t.addrNum[r] = w.addrNum[k.idx]
		t.addrUnit[r] = unitRank[w.addrUnit[k.idx]]
		t.addrID[r] = w.addrID[k.idx]
	}
	keys = nil
	w.addrGroup, w.addrNum, w.addrUnit, w.addrID = nil, nil, nil, nil

	// Street order: street, number, then address order (postcode, unit, id).
	type skey struct{ street, num, idx uint32 }
	skeys := make([]skey, n)
	for i := range skeys {
		skeys[i] = skey{street: t.groups[t.addrGroup[i]].street, num: t.addrNum[i] >> statusBits, idx: uint32(i)}
	}
	slices.SortFunc(skeys, func(a, b skey) int {
		return cmp.Or(cmp.Compare(a.street, b.street), cmp.Compare(a.num, b.num), cmp.Compare(a.idx, b.idx))
	})
	t.byStreet = make([]uint32, n)
	for r, k := range skeys {
		t.byStreet[r] = k.idx
	}

	if err := t.validate(); err != nil {
		return nil, fmt.Errorf("build: %w", err)
	}
	d.derive()
	return d, nil
}
