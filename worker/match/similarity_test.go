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

// TestSimilarityOneTypo: one typo in a short name still names it (BeST's Houtweg in Haren,
// typed with two letters swapped), while in very short names one letter makes another.
func TestSimilarityOneTypo(t *testing.T) {
	for _, c := range []struct {
		typed, name string
		match       bool
	}{
		{"hotuweg", "houtweg", true},
		{"houtwg", "houtweg", true},
		{"houtwgg", "houtweg", true},
		{"hamwge", "hamweg", true},
		{"dink", "dijk", false},
		{"hamwg", "hamweg", true},
		{"dorp", "dorpstraat", false},
		{"hotwueg", "houtweg", false}, // two typos in seven letters
	} {
		if got := similarity(c.typed, c.name) >= similarityThreshold; got != c.match {
			t.Errorf("similarity(%q, %q) = %.3f; match %v, want %v", c.typed, c.name, similarity(c.typed, c.name), got, c.match)
		}
	}
}
