package match

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// People type "Liege" for "Liège", "s-Gravenhage" for "'s-Gravenhage" and "Sint Jansstraat"
// for "Sint-Jansstraat". Every comparison below the exact level therefore works on a folded
// form: lower case, no diacritics, every run of punctuation and space turned into one space.

// foldTable maps the non-ASCII letters of the Latin blocks to their ASCII base. It is built
// once from Unicode decomposition (so it follows the standard, not a hand list) plus the few
// letters that do not decompose (æ, ø, ł, ß, …).
var foldTable = buildFoldTable()

func buildFoldTable() map[rune]string {
	t := map[rune]string{
		'ß': "ss", 'æ': "ae", 'Æ': "ae", 'œ': "oe", 'Œ': "oe", 'ø': "o", 'Ø': "o",
		'ł': "l", 'Ł': "l", 'đ': "d", 'Đ': "d", 'ð': "d", 'Ð': "d", 'þ': "th", 'Þ': "th",
		'ı': "i", 'ĳ': "ij", 'Ĳ': "ij",
	}
	for r := rune(0xC0); r <= 0x24F; r++ {
		if _, ok := t[r]; ok || !unicode.IsLetter(r) {
			continue
		}
		var b strings.Builder
		for _, d := range norm.NFD.String(string(r)) {
			if d < utf8.RuneSelf {
				b.WriteRune(unicode.ToLower(d))
			}
		}
		if b.Len() > 0 {
			t[r] = b.String()
		}
	}
	return t
}

// fold returns s in lower case without diacritics, with words separated by single spaces and
// no punctuation. Letters outside the Latin blocks are kept (lower-cased) so that input in
// another script never folds to nothing.
func fold(s string) string {
	// Fast path: plain lower-case ASCII words with single spaces fold to themselves.
	if isFolded(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	space := false
	write := func(str string) {
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteString(str)
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
				if space && b.Len() > 0 {
					b.WriteByte(' ')
				}
				space = false
				b.WriteByte(c)
			case c >= 'A' && c <= 'Z':
				if space && b.Len() > 0 {
					b.WriteByte(' ')
				}
				space = false
				b.WriteByte(c + 'a' - 'A')
			default:
				space = true
			}
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		if f, ok := foldTable[r]; ok {
			write(f)
			continue
		}
		switch {
		case unicode.Is(unicode.Mn, r), unicode.Is(unicode.Cf, r):
			// Combining marks and invisible format characters (soft hyphen, zero-width
			// joiner) carry no letter.
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			d := norm.NFKD.String(string(r))
			if d != string(r) {
				// Compatibility forms such as full-width letters or ligatures.
				write(fold(d))
				continue
			}
			write(string(unicode.ToLower(r)))
		default:
			space = true
		}
	}
	return b.String()
}

func isFolded(s string) bool {
	if s == "" {
		return true
	}
	if s[0] == ' ' || s[len(s)-1] == ' ' {
		return false
	}
	prevSpace := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			prevSpace = false
		case c == ' ':
			if prevSpace {
				return false
			}
			prevSpace = true
		default:
			return false
		}
	}
	return true
}

// compact is the folded form without spaces, so that "Sint Jansstraat", "Sint-Jansstraat" and
// "SintJansstraat" meet.
func compact(s string) string {
	f := fold(s)
	if strings.IndexByte(f, ' ') < 0 {
		return f
	}
	return strings.ReplaceAll(f, " ", "")
}

// sameText is the test for "typed exactly as the register writes it, letter case aside":
// spaces are collapsed and case is ignored, but diacritics and punctuation count.
func sameText(typed, register string) bool {
	if strings.EqualFold(typed, register) {
		return true
	}
	if !needsCollapse(typed) && !needsCollapse(register) {
		return false
	}
	return strings.EqualFold(collapseSpaces(typed), collapseSpaces(register))
}

// sameRegisterText is sameText for typed text already collapsed (typedName.raw), which
// is compared with every name of a city: only a register name with stray white space needs
// collapsing, and that check allocates nothing.
func sameRegisterText(collapsed, register string) bool {
	if strings.EqualFold(collapsed, register) {
		return true
	}
	return hasStraySpace(register) && strings.EqualFold(collapsed, collapseSpaces(register))
}

// hasStraySpace reports whether s has white space other than single inner ASCII spaces.
func hasStraySpace(s string) bool {
	prev := byte(' ')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' && prev == ' ', c == '\t', c == '\n', c == '\r', c == '\v', c == '\f':
			return true
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRuneInString(s[i:])
			if unicode.IsSpace(r) {
				return true
			}
			i += size - 1
		}
		prev = c
	}
	return prev == ' ' && len(s) > 0
}

// needsCollapse reports whether s has white space other than single inner spaces.
func needsCollapse(s string) bool {
	prev := byte(' ')
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == ' ' && prev == ' ' || c == '\t' || c == '\n' || c == '\r' || c >= 0x80 {
			return true
		}
		prev = c
	}
	return prev == ' ' && len(s) > 0
}

// collapseSpaces trims s and turns every run of white space into one space. Typed names
// rarely have any to collapse, and are then returned as they are rather than split and
// joined again.
func collapseSpaces(s string) string {
	if isCollapsed(s) {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

// isCollapsed reports whether the only white space in s is single spaces between words, as
// strings.Fields tells white space.
func isCollapsed(s string) bool {
	space := true // a space here would lead, or follow another
	for _, r := range s {
		if !unicode.IsSpace(r) {
			space = false
			continue
		}
		if r != ' ' || space {
			return false
		}
		space = true
	}
	return !space || s == ""
}
