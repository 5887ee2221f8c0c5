package golden

import "testing"

func TestFirstDifference(t *testing.T) {
	for _, c := range []struct {
		got, want string
		line      int
		g, w      string
	}{
		{"a\nb\nc\n", "a\nB\nc\n", 2, "b", "B"},
		{"a\nb\n", "a\nb\nc\n", 3, "", "c"},
		{"a\nb\nc\n", "a\nb\n", 3, "c", ""},
		{"a\nb", "a\nb\n", 3, "", ""},
		{"x", "", 1, "x", ""},
	} {
		line, g, w := firstDifference([]byte(c.got), []byte(c.want))
		if line != c.line || g != c.g || w != c.w {
			t.Errorf("%q against %q: line %d %q %q, want line %d %q %q", c.got, c.want, line, g, w, c.line, c.g, c.w)
		}
	}
}
