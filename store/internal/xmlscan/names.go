package xmlscan

import "unicode/utf8"

// nameByte marks the bytes a name can hold: the ASCII name characters and every byte of a
// multi-byte UTF-8 sequence, whose runes checkName then tests one by one. Deciding the
// common ASCII case by table keeps name scanning to one load and one branch per byte.
var nameByte = func() (t [256]bool) {
	for c := 0; c < 256; c++ {
		t[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
			c == '_' || c == ':' || c == '.' || c == '-' || c >= utf8.RuneSelf
	}
	return t
}()

// asciiNameStart marks the ASCII bytes that can start a name, colon excluded.
var asciiNameStart = func() (t [256]bool) {
	for c := range 128 {
		t[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_'
	}
	return t
}()

// spaceByte marks the four whitespace characters of the XML grammar (production S).
var spaceByte = func() (t [256]bool) {
	t[' '], t['\t'], t['\n'], t['\r'] = true, true, true, true
	return t
}()

// isNameStart follows NameStartChar of XML 1.0 Fifth Edition. encoding/xml still uses the
// Unicode 2.0 tables of the older editions; the Fifth Edition ranges are the ones current
// tools write, and they accept every name the older tables accept.
func isNameStart(r rune) bool {
	switch {
	case r < utf8.RuneSelf:
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || r == '_' || r == ':'
	case r < 0xC0:
		return false
	}
	return r <= 0xD6 || 0xD8 <= r && r <= 0xF6 || 0xF8 <= r && r <= 0x2FF ||
		0x370 <= r && r <= 0x37D || 0x37F <= r && r <= 0x1FFF || 0x200C <= r && r <= 0x200D ||
		0x2070 <= r && r <= 0x218F || 0x2C00 <= r && r <= 0x2FEF || 0x3001 <= r && r <= 0xD7FF ||
		0xF900 <= r && r <= 0xFDCF || 0xFDF0 <= r && r <= 0xFFFD || 0x10000 <= r && r <= 0xEFFFF
}

// isNameChar follows NameChar of XML 1.0 Fifth Edition.
func isNameChar(r rune) bool {
	return isNameStart(r) || '0' <= r && r <= '9' || r == '-' || r == '.' || r == 0xB7 ||
		0x300 <= r && r <= 0x36F || 0x203F <= r && r <= 0x2040
}

// checkName reports whether b is a Name. high says whether b holds a byte ≥ 0x80; without
// one only the first byte needs a look, since nameByte admitted the rest.
func checkName(b []byte, high bool) bool {
	if len(b) == 0 {
		return false
	}
	if !high {
		c := b[0]
		return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || c == ':'
	}
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return false
		}
		if i == 0 && !isNameStart(r) || i > 0 && !isNameChar(r) {
			return false
		}
		i += n
	}
	return true
}

// startsName reports whether b starts with a NameStartChar other than the colon, as the
// local part of a qualified name must.
func startsName(b []byte) bool {
	if len(b) == 0 || b[0] == ':' {
		return false
	}
	if b[0] < utf8.RuneSelf {
		return checkName(b[:1], false)
	}
	r, _ := utf8.DecodeRune(b)
	return isNameStart(r)
}

// scanName returns the end of the run of name bytes starting at b[i], and whether the run
// holds a byte ≥ 0x80.
func scanName(b []byte, i int) (int, bool) {
	var high byte
	for i < len(b) && nameByte[b[i]] {
		high |= b[i]
		i++
	}
	return i, high >= utf8.RuneSelf
}

// Name byte classes for scanQName.
const (
	ncName  = 1 << iota // an ASCII name character other than the colon
	ncColon             // ':'
	ncHigh              // part of a multi-byte rune
	ncMulti             // (result only) more than one colon
)

var nameClass = func() (t [256]uint8) {
	for c := range 256 {
		switch {
		case c == ':':
			t[c] = ncColon
		case c >= utf8.RuneSelf:
			t[c] = ncHigh
		case nameByte[c]:
			t[c] = ncName
		}
	}
	return t
}()

// scanQName is scanName for a qualified name: it also returns the offset of the last
// colon from i (-1 for none), and the classes of the bytes seen, with ncMulti for more
// than one colon.
func scanQName(b []byte, i int) (end, colon int, cls uint8) {
	colon = -1
	for j := i; j < len(b); j++ {
		c := nameClass[b[j]]
		if c == 0 {
			return j, colon, cls
		}
		if c == ncColon {
			if colon >= 0 {
				cls |= ncMulti
			}
			colon = j - i
		}
		cls |= c
	}
	return len(b), colon, cls
}

// isCharRune is the Char production of XML 1.0 for runes of two or more bytes (the
// one-byte ones are decided by table); surrogates never decode from valid UTF-8.
func isCharRune(r rune) bool { return r != 0xFFFE && r != 0xFFFF }
