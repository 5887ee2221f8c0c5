package match

import (
	"slices"
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

func TestEditBudget(t *testing.T) {
	for q, want := range map[string]int{"ker": 0, "kerk": 1, "kerkst": 1, "kerkstr": 2, "kerkstraat": 2} {
		if got := editBudget(q); got != want {
			t.Errorf("editBudget(%q) = %d, want %d", q, got, want)
		}
	}
}
