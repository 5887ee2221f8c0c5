package match

import (
	"strings"

	"github.com/adreswijzer/adreswijzer"
)

// The registers sometimes hold one postal address twice, as two objects with ids of their
// own. The BAG gives a converted building a new nummeraanduiding beside the old one until
// the old object is withdrawn: Blomstraat 17, 1382 AJ Weesp is an office in use since 1996
// (0457200000199450) and a dwelling formed in 2020 (0457200000522333, planned), at the same
// postcode and number. Brussels registered some addresses again under a new id: Rue
// Harenheyde 89A, 1130 is BA/110990 and BA/981841, both current, centimetres apart. A
// customer cannot choose between two identical lines and a carrier delivers to the line, not
// to an id, so verdicts, the additions offered and suggestions count such an address once,
// keeping the record that exists over a planned one (the address is deliverable now, and
// no ADDRESS_PLANNED note should say otherwise). Lookup still lists every record, because
// its addresses mirror the register (and say which one is planned); its additions count
// each once all the same.

// samePostal reports whether a and b print as the same address: street, number, letter,
// toevoeging or box, and postcode, letter case aside.
func samePostal(a, b *adreswijzer.Address) bool {
	return a.HouseNumber == b.HouseNumber && a.Postcode == b.Postcode && a.Country == b.Country &&
		strings.EqualFold(a.HouseNumberSuffix, b.HouseNumberSuffix) &&
		strings.EqualFold(a.Addition, b.Addition) && sameBox(a.Box, b.Box) &&
		a.Street == b.Street
}

// sameBox reports whether two BeST boxes are one letterbox: alike letter case aside, or
// once the marker and padding the register wrote into one of them are read
// (adreswijzer.BoxNumber): Edingensesteenweg 879, 1502 Lembeek has box "21" and box
// "bs21", which a carrier delivers to as one.
func sameBox(a, b string) bool {
	return strings.EqualFold(a, b) || strings.EqualFold(adreswijzer.BoxNumber(a), adreswijzer.BoxNumber(b))
}

// statusRank orders the statuses of duplicates: the address in use first.
func statusRank(s adreswijzer.Status) int {
	switch s {
	case adreswijzer.StatusInUse:
		return 3
	case adreswijzer.StatusPlanned:
		return 2
	case adreswijzer.StatusUnknown:
		return 1
	}
	return 0
}

// onePerPostal drops from as, sorted by sortAddresses, every address that prints as one
// before it, keeping the one with the better status in the earlier place. Duplicates sort
// next to each other (number, suffix, unit and postcode lead the order), so only the run
// of addresses with the same number, suffix and unit is looked back at. as is reused.
func onePerPostal(as []adreswijzer.Address) []adreswijzer.Address {
	out := as[:0]
	for i := range as {
		a := &as[i]
		dup := -1
		for j := len(out) - 1; j >= 0 && out[j].HouseNumber == a.HouseNumber && naturalCompare(out[j].HouseNumberSuffix, a.HouseNumberSuffix) == 0 && naturalCompare(unitKey(&out[j]), unitKey(a)) == 0; j-- {
			if samePostal(&out[j], a) {
				dup = j
				break
			}
		}
		switch {
		case dup < 0:
			out = append(out, *a)
		case statusRank(a.Status) > statusRank(out[dup].Status):
			out[dup] = *a
		}
	}
	return out
}

// sortPostal sorts the addresses as people read them and counts each postal address once.
func sortPostal(as []adreswijzer.Address) []adreswijzer.Address {
	sortAddresses(as)
	return onePerPostal(as)
}

// firstPostal is firstAddresses counting each postal address once: the first k distinct
// addresses, sorted.
func firstPostal(as []adreswijzer.Address, k int) []adreswijzer.Address {
	for n := k; ; {
		top := onePerPostal(firstAddresses(as, n))
		if len(top) >= k || n >= len(as) {
			return top[:min(k, len(top))]
		}
		n += k - len(top)
	}
}
