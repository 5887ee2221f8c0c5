package match

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/adreswijzer/adreswijzer"
)

func TestAnswerLanguage(t *testing.T) {
	typedNL := &nameMatch{level: levelExact, kind: kindNL}
	typedFR := &nameMatch{level: levelFuzzy, kind: kindFR}
	both := &nameMatch{level: levelExact, kind: kindNL, bilingual: true}
	tests := []struct {
		requested string
		c         adreswijzer.Country
		postcode  string
		typed     *nameMatch
		want      adreswijzer.Language
	}{
		{"", adreswijzer.NL, "1381CS", nil, "nl"},
		{"EN", adreswijzer.NL, "1381CS", nil, "en"},
		{"xx", adreswijzer.NL, "1381CS", nil, "nl"},
		{"", adreswijzer.BE, "1130", nil, "fr"},     // Brussels
		{"", adreswijzer.BE, "1130", typedNL, "nl"}, // Brussels, Dutch name typed
		{"", adreswijzer.BE, "1130", both, "fr"},    // a name that is the same in both
		{"", adreswijzer.BE, "1502", nil, "nl"},     // Flanders
		{"", adreswijzer.BE, "4960", nil, "fr"},     // Wallonia
		{"", adreswijzer.BE, "4700", nil, "de"},     // Eupen, German-speaking
		{"", adreswijzer.BE, "4700", typedFR, "fr"}, // French typed there
		{"de", adreswijzer.BE, "1130", typedFR, "de"},
		{"", adreswijzer.BE, "", nil, "nl"},
	}
	for _, tt := range tests {
		if got := answerLanguage(tt.requested, tt.c, tt.postcode, tt.typed); got != tt.want {
			t.Errorf("answerLanguage(%q, %s, %q) = %s, want %s", tt.requested, tt.c, tt.postcode, got, tt.want)
		}
	}
}

func TestNaturalOrder(t *testing.T) {
	got := []string{"10", "B", "", "2", "a", "A10", "A2", "b001", "0003", "II"}
	slices.SortStableFunc(got, naturalCompare)
	want := []string{"", "2", "0003", "10", "a", "A2", "A10", "B", "b001", "II"}
	if !slices.Equal(got, want) {
		t.Errorf("natural order %q, want %q", got, want)
	}
}

// sortAddresses sorts positions and moves each address once, and firstAddresses keeps the
// first ten as they pass; both must give the order that a stable sort of the values
// themselves gives. The rows are the samples'
// numbers with most units (Weesp's apartment blocks, Brussels' boxes), shuffled, and the
// register's own order, which has runs that are already sorted.
func TestSortAddressesAsStableSort(t *testing.T) {
	s := loadSamples(t)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, rows := range [][]adreswijzer.Address{s.nl, s.be} {
		byNumber := map[string][]adreswijzer.Address{}
		for _, a := range rows {
			k := a.Postcode + "/" + a.Street.PickPrimary(false) + "/" + strconv.Itoa(a.HouseNumber)
			byNumber[k] = append(byNumber[k], a)
		}
		var lists [][]adreswijzer.Address
		for _, as := range byNumber {
			if len(as) > 1 {
				lists = append(lists, as)
			}
		}
		slices.SortFunc(lists, func(a, b []adreswijzer.Address) int { return len(b) - len(a) })
		// Ties: copies of one address told apart by a field the order does not read.
		var ties []adreswijzer.Address
		for k := range 25 {
			a := lists[0][k%3]
			a.StreetShort = strconv.Itoa(k)
			ties = append(ties, a)
		}
		lists = append(lists[:min(len(lists), 20)], rows[:min(len(rows), 500)], ties)
		if len(lists[0]) < 30 {
			t.Fatalf("largest number has %d units: the samples should hold apartment blocks", len(lists[0]))
		}
		for i, as := range lists {
			for try := range 3 {
				in := slices.Clone(as)
				if try > 0 {
					rng.Shuffle(len(in), func(i, j int) { in[i], in[j] = in[j], in[i] })
				}
				want := slices.Clone(in)
				slices.SortStableFunc(want, func(a, b adreswijzer.Address) int { return compareAddresses(&a, &b) })
				first := firstAddresses(slices.Clone(in), adreswijzer.MaxSuggestions)
				if n := min(len(in), adreswijzer.MaxSuggestions); len(first) != n {
					t.Fatalf("list %d: firstAddresses kept %d, want %d", i, len(first), n)
				}
				for k := range first {
					if first[k].ID != want[k].ID || first[k].StreetShort != want[k].StreetShort {
						t.Fatalf("list %d (%d addresses), try %d: firstAddresses' %d holds %s, want %s", i, len(in), try, k, first[k].ID, want[k].ID)
					}
				}
				sortAddresses(in)
				for k := range in {
					if in[k].ID != want[k].ID || in[k].StreetShort != want[k].StreetShort {
						t.Fatalf("list %d (%d addresses), try %d: position %d holds %s, want %s", i, len(in), try, k, in[k].ID, want[k].ID)
					}
				}
			}
		}
	}
}

func TestEditBudget(t *testing.T) {
	for q, want := range map[string]int{"ker": 0, "kerk": 1, "kerkst": 1, "kerkstr": 2, "kerkstraat": 2} {
		if got := editBudget(q); got != want {
			t.Errorf("editBudget(%q) = %d, want %d", q, got, want)
		}
	}
}

// compareNumbers compares short runs without parsing them; the order must be the parsed one,
// overflow included.
func FuzzCompareNumbers(f *testing.F) {
	for _, p := range [][2]string{{"2", "10"}, {"0003", "3"}, {"", "0"}, {"99999999999999999", "100000000000000000"}, {"123456789012345678901", "99999999999999999999"}} {
		f.Add(p[0], p[1])
	}
	digits := func(s string) string { // any input, as a run of digits
		d := []byte(s)
		for i := range d {
			d[i] = '0' + d[i]%10
		}
		return string(d)
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		a, b = digits(a), digits(b)
		na, _ := strconv.Atoi(strings.TrimLeft(a, "0") + "0")
		nb, _ := strconv.Atoi(strings.TrimLeft(b, "0") + "0")
		if got, want := compareNumbers(a, b), cmp.Compare(na, nb); got != want {
			t.Errorf("compareNumbers(%q, %q) = %d, want %d", a, b, got, want)
		}
	})
}
