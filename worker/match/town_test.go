package match

import "testing"

func TestTownOf(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Weesp NH", "Weesp"},
		{"WEESP N.H.", "WEESP"},
		{"Weesp (NH)", "Weesp"},
		{"Weesp, Noord-Holland", "Weesp"},
		{"Bergen (L)", "Bergen"},
		{"Malmedy BE", "Malmedy"},
		{"Haren - Belgique", "Haren"},
		{"Gent Oost-Vlaanderen", "Gent"},
		{"Weesp", ""},
		{"NH", ""},
		{"Den Haag", ""},
		{"Bergen op Zoom", ""},
		{"(NH)", ""},
	} {
		if got := townOf(c.in); got != c.want {
			t.Errorf("townOf(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
