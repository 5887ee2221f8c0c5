package match

import "testing"

// similarityBound lets the matcher skip names by length alone, so it must never be below
// the similarity it stands for: checked over pairs of real national street names, typed
// with and without typos.
func TestSimilarityBound(t *testing.T) {
	names, _ := nationalStreetNames(t)
	var typed []string
	for i := 0; i < len(names); i += 997 {
		typed = append(typed, names[i])
		if s, ok := typo(names[i]); ok {
			typed = append(typed, s)
		}
	}
	checked, skipped := 0, 0
	for _, a := range typed {
		ta := newTypedName(a)
		for j := 0; j < len(names); j += 211 {
			b := fold(names[j])
			s, bound := ta.similarity(b), similarityBound(len(ta.folded), len(b))
			if s > bound+1e-9 {
				t.Fatalf("similarity(%q, %q) = %v above its bound %v", a, names[j], s, bound)
			}
			if bound < similarityThreshold {
				skipped++
			}
			checked++
		}
	}
	if checked == 0 || skipped == 0 {
		t.Fatalf("%d pairs checked, %d skippable: the test proves nothing", checked, skipped)
	}
	t.Logf("%d pairs, %d of them skipped by length", checked, skipped)
}
