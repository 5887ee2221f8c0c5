package match

import (
	"slices"
	"strings"

	"github.com/adreswijzer/adreswijzer"
)

// Choosing among the addresses at one number. Both sides are compared as one extension
// (letter or bis plus toevoeging or box, see adreswijzer.HouseNumber.Extension) with leading
// zeros dropped, because neither the registers nor customers split or pad them consistently:
// BAG has a toevoeging "A" where a huisletter was meant, BeST writes box 3 as "0003" or
// "b003", customers type "bus 3". Equal extensions are the same address: that is a match by
// the parts, not by the spelling, and keeps the verdict "valid".

type unitKind uint8

const (
	unitExact      unitKind = iota // the typed extension names exactly one address
	unitCompleted                  // one address fits what was typed, with more to its extension
	unitDropped                    // a unit was typed where the register has none at all
	unitRequired                   // several addresses fit: ask which
	suffixNotFound                 // the letter or bis does not exist at the number
	unitNotFound                   // the toevoeging or box does not exist
)

type unitResult struct {
	kind     unitKind
	match    *adreswijzer.Address
	cands    []adreswijzer.Address
	unitType adreswijzer.UnitType
}

// extensionForms are the comparison forms of an address's extension, strict (letters and
// digits as written) or loose (leading zeros of each digit run dropped). A Belgian box is
// also taken as people write it (adreswijzer.BoxNumber: "Be.4" is 4, "b00D" is D, "bA01"
// is A01) and without the box word BeST sometimes writes into it ("B001", "bus1", "BTE2").
// The separators inside a box count before they are dropped ("b0.2" and "b002" are
// different boxes at one Brussels number), which is why adreswijzer.ParseUnit, which drops
// them first, is not used on register boxes.
func extensionForms(a *adreswijzer.Address, loose bool) []string {
	ext := adreswijzer.ExtensionOf
	if loose {
		ext = adreswijzer.LooseExtensionOf
	}
	forms := []string{ext(a.HouseNumberSuffix, a.Unit())}
	if a.Country == adreswijzer.BE && a.Box != "" {
		// The box as people write it only loosely: its padding dropped, "b013" would be
		// "13" as strictly as "b1.3" at the same Brussels number is.
		boxNumber := stripBoxWord(a.Box)
		if loose {
			boxNumber = adreswijzer.BoxNumber(a.Box)
		}
		for _, b := range [...]string{stripBoxWord(a.Box), boxNumber} {
			if b == a.Box {
				continue
			}
			if f := ext(a.HouseNumberSuffix, b); !slices.Contains(forms, f) {
				forms = append(forms, f)
			}
		}
	}
	return forms
}

// stripBoxWord removes a box word that BeST data writes in front of the box number itself
// ("b001", "bus1", "BTE2", "bt.3"), when a digit or separator follows it.
func stripBoxWord(box string) string {
	lower := strings.ToLower(box)
	for _, w := range [...]string{"boite", "bus", "bte", "bt", "bu", "b"} {
		if rest, ok := strings.CutPrefix(lower, w); ok && rest != "" && (isDigit(rest[0]) || strings.ContainsRune("./- ", rune(rest[0]))) {
			return strings.TrimLeft(box[len(w):], "./- ")
		}
	}
	return box
}

// extensionIs reports whether adreswijzer.ExtensionOf(suffix, unit) is ext, without
// building it: a Belgian building has dozens of boxes to compare.
func extensionIs(ext, suffix, unit string) bool {
	i := 0
	for _, p := range [2]string{suffix, unit} {
		for j := 0; j < len(p); j++ {
			c := p[j]
			switch {
			case c >= 'a' && c <= 'z':
				c -= 'a' - 'A'
			case c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
			default:
				continue
			}
			if i >= len(ext) || ext[i] != c {
				return false
			}
			i++
		}
	}
	return i == len(ext)
}

func hasForm(a *adreswijzer.Address, f string, loose, prefix bool) bool {
	for _, x := range extensionForms(a, loose) {
		if x == f || prefix && strings.HasPrefix(x, f) {
			return true
		}
	}
	return false
}

func filterAddrs(as []adreswijzer.Address, keep func(a *adreswijzer.Address) bool) []adreswijzer.Address {
	var out []adreswijzer.Address
	for i := range as {
		if keep(&as[i]) {
			out = append(out, as[i])
		}
	}
	return out
}

// keepAddrs is filterAddrs in place, for a store's answer, which is the caller's to change:
// a lookup usually keeps every address, and copying each (a large value holding pointers)
// into a new slice would cost an allocation and write barriers for nothing.
func keepAddrs(as []adreswijzer.Address, keep func(a *adreswijzer.Address) bool) []adreswijzer.Address {
	out := as[:0]
	for i := range as {
		if keep(&as[i]) {
			if len(out) != i {
				as[len(out)] = as[i]
			}
			out = out[:len(out)+1]
		}
	}
	return out
}

// resolveUnit chooses among the addresses at one number (as, sorted) by the typed readings of
// the house number, the likeliest first.
func resolveUnit(c adreswijzer.Country, as []adreswijzer.Address, nums []adreswijzer.HouseNumber) unitResult {
	if h := nums[0]; c == adreswijzer.BE && h.Unit == "" {
		// A Belgian building with boxes is registered as the building and each box; bpost
		// needs the box to reach a letterbox, so a number typed without one is a question,
		// even though the building's own address exists. (In the Netherlands the bare
		// number is a dwelling of its own and stays a valid answer.)
		ts := adreswijzer.LooseExtensionOf(h.Suffix)
		same := filterAddrs(as, func(a *adreswijzer.Address) bool { return adreswijzer.LooseExtensionOf(a.HouseNumberSuffix) == ts })
		if len(same) > 1 && unitTypeOf(same) == adreswijzer.UnitBus {
			return unitResult{kind: unitRequired, cands: same, unitType: adreswijzer.UnitBus}
		}
	}
	for _, h := range nums {
		// Strictly first, so that "0.2" finds box "b0.2" and not "b002", and a box typed
		// as the register writes it ("21") finds that one before another written alike
		// once its marker is read ("bs21"); then with leading zeros aside, so that "bus 2"
		// finds "b002".
		te, tl := h.Extension(), h.LooseExtension()
		var exact []adreswijzer.Address
		if c == adreswijzer.BE {
			exact = filterAddrs(as, func(a *adreswijzer.Address) bool { return extensionIs(te, a.HouseNumberSuffix, a.Box) })
		}
		if len(exact) == 0 {
			exact = filterAddrs(as, func(a *adreswijzer.Address) bool { return hasForm(a, te, false, false) })
		}
		if len(exact) == 0 {
			exact = filterAddrs(as, func(a *adreswijzer.Address) bool { return hasForm(a, tl, true, false) })
		}
		if len(exact) > 1 {
			// A letter and a toevoeging with the same text at one number: the split
			// as typed decides.
			ts := adreswijzer.LooseExtensionOf(h.Suffix)
			if same := filterAddrs(exact, func(a *adreswijzer.Address) bool {
				return adreswijzer.LooseExtensionOf(a.HouseNumberSuffix) == ts
			}); len(same) == 1 {
				exact = same
			}
		}
		switch {
		case len(exact) == 1:
			return unitResult{kind: unitExact, match: &exact[0]}
		case len(exact) > 1:
			return unitResult{kind: unitRequired, cands: exact, unitType: unitTypeOf(exact)}
		}
	}
	h := nums[0]
	if h.Floor && h.Unit != "" {
		return asRemark(c, as, h)
	}
	tl := h.LooseExtension()
	if tl == "" {
		if len(as) == 1 {
			return unitResult{kind: unitCompleted, match: &as[0]}
		}
		return unitResult{kind: unitRequired, cands: as, unitType: unitTypeOf(as)}
	}
	if starts := filterAddrs(as, func(a *adreswijzer.Address) bool { return hasForm(a, tl, true, true) }); len(starts) == 1 {
		return unitResult{kind: unitCompleted, match: &starts[0]}
	} else if len(starts) > 1 {
		return unitResult{kind: unitRequired, cands: starts, unitType: unitTypeOf(starts)}
	}
	ts := adreswijzer.LooseExtensionOf(h.Suffix)
	withSuffix := as
	if ts != "" {
		withSuffix = filterAddrs(as, func(a *adreswijzer.Address) bool { return hasForm(a, ts, true, true) })
		if len(withSuffix) == 0 {
			return unitResult{kind: suffixNotFound, cands: as, unitType: unitTypeOf(as)}
		}
	}
	if h.Unit == "" {
		// A suffix longer than what exists ("12AB" where only "12A" is).
		return unitResult{kind: suffixNotFound, cands: as, unitType: unitTypeOf(as)}
	}
	anyUnit := false
	for i := range withSuffix {
		if withSuffix[i].Unit() != "" {
			anyUnit = true
		}
	}
	if !anyUnit {
		// The register knows no toevoeging or box at this number: the address is found,
		// the unit typed is extra. Which address that is the suffix typed tells; without
		// one only the bare number is meant, and among several letters ("87a", "87b")
		// none is: a unit typed is never turned into a letter nobody typed.
		same := filterAddrs(withSuffix, func(a *adreswijzer.Address) bool { return adreswijzer.LooseExtensionOf(a.HouseNumberSuffix) == ts })
		if len(same) == 1 {
			return unitResult{kind: unitDropped, match: &same[0], unitType: unitTypeIn(c)}
		}
		return unitResult{kind: unitNotFound, cands: withSuffix, unitType: unitTypeIn(c)}
	}
	return unitResult{kind: unitNotFound, cands: withSuffix, unitType: unitTypeOf(withSuffix)}
}

// asRemark resolves a number typed with a floor that no address at it has as its unit:
// the floor is a remark on the number, read as the number without it. An address that is
// then the one typed is found with the floor dropped (UNIT_NOT_FOUND); several are a
// question, as for the number typed bare.
func asRemark(c adreswijzer.Country, as []adreswijzer.Address, h adreswijzer.HouseNumber) unitResult {
	bare := h
	bare.Unit, bare.UnitMarker, bare.Floor = "", "", false
	r := resolveUnit(c, as, []adreswijzer.HouseNumber{bare})
	if r.kind == unitExact {
		r.kind, r.unitType = unitDropped, unitTypeIn(c)
	}
	return r
}

// unitTypeIn is the kind of unit the country's register has.
func unitTypeIn(c adreswijzer.Country) adreswijzer.UnitType {
	if c == adreswijzer.BE {
		return adreswijzer.UnitBus
	}
	return adreswijzer.UnitToevoeging
}

// unitTypeOf is what tells the addresses apart: toevoeging or box when any has one, else
// nothing (letters only).
func unitTypeOf(as []adreswijzer.Address) adreswijzer.UnitType {
	for i := range as {
		if t := as[i].UnitType(); t != adreswijzer.UnitNone {
			return t
		}
	}
	return adreswijzer.UnitNone
}
