package match

import (
	"strings"
	"testing"
)

// looseMatches lists the streets of ix that t matches at a loose level, each read in full.
func looseMatches(ix *index, t typedName) []uint32 {
	var out []uint32
	var buf [4]nameVariant
	for st := range ix.streets {
		if bestVariant(t, ix.streetVariants(uint32(st), &buf), matchLoosely).level > levelNone {
			out = append(out, uint32(st))
		}
	}
	return out
}

// checkLooseSigs fails when a signature rules out a street that t matches loosely.
func checkLooseSigs(t *testing.T, ix *index, typed string) int {
	t.Helper()
	tn := newTypedName(typed)
	q := newLooseQuery(tn)
	matches := looseMatches(ix, tn)
	for _, st := range matches {
		if !ix.mayMatchLoosely(q, st) {
			t.Fatalf("typed %q: the signature rules out street %q, which matches loosely", typed, ix.streetName(st, kindNL, ""))
		}
	}
	return len(matches)
}

// The signatures never hide a loose match: street names of the national list typed with
// the mistakes and additions the loose levels exist for (a letter dropped, swapped or
// changed, the start of a name, the name with a city, a number or a long text after it),
// against every street of the list; and the signatures do rule streets out.
func TestLooseSigsNeverHideAMatch(t *testing.T) {
	ix := nationalIndex(t)
	var buf [4]nameVariant
	matched, skipped, asked := 0, 0, 0
	for st := 0; st < len(ix.streets); st += len(ix.streets) / 40 {
		for _, v := range ix.streetVariants(uint32(st), &buf) {
			f := v.folded
			if len(f) < 5 {
				continue
			}
			mid := len(f) / 2
			for _, typed := range []string{
				f,
				f[:mid] + f[mid+1:], // a letter dropped
				f[:mid] + f[mid+1:mid+2] + f[mid:mid+1] + f[mid+2:], // two swapped
				f[:mid] + "x" + f[mid+1:],                           // one changed
				f[:5],                                               // the start of the name
				f + " amsterdam",                                    // the city after it
				f + " naast het oude station van de gemeente", // a long text around it
				strings.ToUpper(f) + " 12",                    // a number after it
			} {
				matched += checkLooseSigs(t, ix, typed)
				q := newLooseQuery(newTypedName(typed))
				for s := range ix.streets {
					if !ix.mayMatchLoosely(q, uint32(s)) {
						skipped++
					}
				}
				asked += len(ix.streets)
			}
		}
	}
	t.Logf("%d loose matches kept; the signatures ruled out %d of %d comparisons of a typed name with a street", matched, skipped, asked)
	if matched == 0 || skipped < asked/2 {
		t.Fatalf("%d matches, %d of %d ruled out: the test or the signatures are not doing their work", matched, skipped, asked)
	}
}

func FuzzLooseSigs(f *testing.F) {
	for _, s := range []string{"Kempenaar", "bloemendalerweg weesp", "Heerlijk", "rue de la loi 16", "a", "", "ĳssel"} {
		f.Add(s)
	}
	ix := belgianStreetIndex(f)
	f.Fuzz(func(t *testing.T, typed string) {
		checkLooseSigs(t, ix, typed)
	})
}
