package match

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/adreswijzer/adreswijzer"
)

// refStrongStreets is strongStreets as it was first written, by ranking every street of
// the lists and checking each core street against them: the reference the index-driven
// version must agree with, street for street and in the same order. coreStreets changed only
// in how it drops repeats (a set instead of a search of its list), which keeps its order.
func (ix *index) refStrongStreets(t typedName, lists [][]uint32) []uint32 {
	var out []uint32
	for _, h := range ix.rankStreets(t, levelCanon, true, lists...) {
		out = append(out, h.st)
	}
	for _, st := range ix.coreStreets(t) {
		if containsU32(out, st) {
			continue
		}
		for _, l := range lists {
			if containsU32(l, st) {
				out = append(out, st)
				break
			}
		}
	}
	return out
}

// TestStrongStreetsAsReference types every street of the register samples and of the
// national catalog in the ways people do (as written, in lower case, abbreviated, without
// titles, with a typo) and compares strongStreets with the reference over the lists validate
// hands it: the street's main locality and its postcode area, and one locality's streets
// twice (a street in two lists counts twice).
func TestStrongStreetsAsReference(t *testing.T) {
	ctx := context.Background()
	var indexes []*index
	sample, _ := sampleEngine(t)
	national := nationalEngine(t)
	for _, c := range []struct {
		e       *Engine
		country adreswijzer.Country
	}{{sample, adreswijzer.NL}, {sample, adreswijzer.BE}, {national, adreswijzer.NL}} {
		_, ix, err := c.e.active(ctx, c.country)
		if err != nil {
			t.Fatal(err)
		}
		indexes = append(indexes, ix)
	}
	compared, found := 0, 0
	for _, ix := range indexes {
		every := max(1, len(ix.cat.Streets)/3000)
		for si := 0; si < len(ix.cat.Streets); si += every {
			st := &ix.cat.Streets[si]
			loc := ix.streets[si].locality
			lists := [][]uint32{ix.locStreets[loc]}
			if p := ix.streets[si].place; p >= 0 {
				pc := ix.cat.Places[p].Postcode
				lists = append(lists, placeStreets(placesWithPrefix(ix.cat, pc[:min(4, len(pc))])))
			}
			for _, name := range []string{st.Names.NL, st.Names.FR, st.Short} {
				if name == "" {
					continue
				}
				typed := []string{name, strings.ToLower(name), withoutTitles(name)}
				if a, ok := abbreviate(name); ok {
					typed = append(typed, a)
				}
				if a, ok := typo(name); ok {
					typed = append(typed, a)
				}
				for _, q := range typed {
					tn := newTypedName(q)
					for _, ls := range [][][]uint32{lists, {lists[0], lists[0]}} {
						want, got := ix.refStrongStreets(tn, ls), ix.strongStreets(tn, ls)
						if !slices.Equal(got, want) {
							t.Fatalf("%q in %d lists: strongStreets %v, reference %v", q, len(ls), got, want)
						}
						compared++
						found += len(got)
					}
				}
			}
		}
	}
	t.Logf("%d comparisons, %d streets found", compared, found)
}
