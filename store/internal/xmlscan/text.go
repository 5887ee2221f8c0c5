package xmlscan

import (
	"bytes"
	"io"
	"unicode/utf8"
)

// Byte classes of character data. A run of bytes outside the classes a context cares
// about is copied or returned as it is; only the marked bytes need a closer look.
const (
	clsAmp     = 1 << iota // starts a reference
	clsCR                  // normalised to LF
	clsLT                  // not allowed in an attribute value
	clsBracket             // may start "]]>", not allowed in text
	clsCtrl                // not an XML character
	clsHigh                // starts or continues a multi-byte rune, to be validated

	textSpecial  = clsAmp | clsCR | clsBracket | clsCtrl | clsHigh
	attrSpecial  = clsAmp | clsCR | clsLT | clsCtrl | clsHigh
	cdataSpecial = clsCR | clsCtrl | clsHigh
)

var class = func() (t [256]uint8) {
	for c := range 0x20 {
		if c != '\t' && c != '\n' {
			t[c] = clsCtrl
		}
	}
	t['\r'] = clsCR
	t['&'] = clsAmp
	t['<'] = clsLT
	t[']'] = clsBracket
	for c := 0x80; c < 0x100; c++ {
		t[c] = clsHigh
	}
	return t
}()

// plainPrefix returns the length of the prefix of v that holds no byte of the classes in
// mask.
func plainPrefix(v []byte, mask uint8) int {
	i := 0
	for ; i+4 <= len(v); i += 4 {
		if (class[v[i]]|class[v[i+1]]|class[v[i+2]]|class[v[i+3]])&mask != 0 {
			break
		}
	}
	for i < len(v) && class[v[i]]&mask == 0 {
		i++
	}
	return i
}

// isXMLChar is the Char production of XML 1.0.
func isXMLChar(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D || 0x20 <= r && r <= 0xD7FF ||
		0xE000 <= r && r <= 0xFFFD || 0x10000 <= r && r <= 0x10FFFF
}

// chars checks the complete character data v, whose first j bytes are plain and which
// starts at buf index at, and replaces references and CRs. When something was replaced it
// returns v decoded, appended to dst, and true; otherwise v needs no copy.
func (s *Scanner) chars(dst, v []byte, j, at int, mask uint8) ([]byte, bool, error) {
	changed := false
	from := 0 // v[from:j] is still to be appended once changed
	flush := func() {
		dst = append(dst, v[from:j]...)
		changed = true
	}
	for j < len(v) {
		c := v[j]
		if class[c]&mask == 0 {
			j++
			continue
		}
		switch {
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRune(v[j:])
			if r == utf8.RuneError && n == 1 {
				return nil, false, s.errorf(at+j, codeSyntax, "invalid UTF-8")
			}
			if !isCharRune(r) {
				return nil, false, s.errorf(at+j, codeSyntax, "illegal character code %U", r)
			}
			j += n
		case c == '&':
			r, n, err := s.reference(v[j:], at+j)
			if err != nil {
				return nil, false, err
			}
			flush()
			dst = utf8.AppendRune(dst, r)
			j += n
			from = j
		case c == '\r':
			flush()
			dst = append(dst, '\n')
			j++
			if j < len(v) && v[j] == '\n' {
				j++
			}
			from = j
		case c == ']':
			if j+2 < len(v) && v[j+1] == ']' && v[j+2] == '>' {
				return nil, false, s.errorf(at+j, codeSyntax, "unescaped ]]> not in CDATA section")
			}
			j++
		case c == '<':
			return nil, false, s.errorf(at+j, codeSyntax, "unescaped < inside quoted string")
		default:
			return nil, false, s.errorf(at+j, codeSyntax, "illegal character code %U", rune(c))
		}
	}
	if changed {
		dst = append(dst, v[from:]...)
	}
	return dst, changed, nil
}

// reference decodes the entity or character reference at the start of v, which holds
// everything up to the end of its run of character data.
func (s *Scanner) reference(v []byte, at int) (rune, int, error) {
	if len(v) > 1 && v[1] == '#' {
		i, base := 2, rune(10)
		if i < len(v) && v[i] == 'x' {
			i, base = 3, 16
		}
		d0 := i
		var n rune
		for ; i < len(v); i++ {
			var d rune
			switch c := rune(v[i]); {
			case '0' <= c && c <= '9':
				d = c - '0'
			case base == 16 && 'a' <= c && c <= 'f':
				d = c - 'a' + 10
			case base == 16 && 'A' <= c && c <= 'F':
				d = c - 'A' + 10
			default:
				d = -1
			}
			if d < 0 {
				break
			}
			// Saturate past the largest code point, so that long digit strings cannot wrap.
			n = min(n*base+d, utf8.MaxRune+1)
		}
		if i == d0 || i == len(v) || v[i] != ';' || n > utf8.MaxRune {
			return 0, 0, s.errorf(at, codeSyntax, "invalid character reference")
		}
		if 0xD800 <= n && n <= 0xDFFF {
			return 0, 0, s.errorf(at, codeSurrogate, "character reference to a surrogate")
		}
		if !isXMLChar(n) {
			return 0, 0, s.errorf(at, codeSyntax, "illegal character code %U", n)
		}
		return n, i + 1, nil
	}
	i := 1
	for i < len(v) && nameByte[v[i]] {
		i++
	}
	if i == len(v) || v[i] != ';' {
		return 0, 0, s.errorf(at, codeSyntax, "invalid character entity")
	}
	var r rune
	switch string(v[1:i]) {
	case "lt":
		r = '<'
	case "gt":
		r = '>'
	case "amp":
		r = '&'
	case "apos":
		r = '\''
	case "quot":
		r = '"'
	default:
		return 0, 0, s.errorf(at, codeSyntax, "invalid character entity (only the five predefined ones are known)")
	}
	return r, i + 1, nil
}

// safeCut returns how much of a run of character data that goes on past the buffer can be
// decoded on its own: not a reference without its ';', not a CR whose LF may follow, not a
// ']' that may begin "]]>", not part of a rune. refs says whether references count, as
// they do outside CDATA sections.
func safeCut(b []byte, refs bool) int {
	cut := len(b)
	if a := bytes.LastIndexByte(b, '&'); refs && a >= 0 && bytes.IndexByte(b[a:], ';') < 0 {
		cut = a
	}
	for k := cut - 1; k >= 0 && k >= cut-utf8.UTFMax+1; k-- {
		if b[k] < utf8.RuneSelf {
			break
		}
		if utf8.RuneStart(b[k]) {
			if !utf8.FullRune(b[k:cut]) {
				cut = k
			}
			break
		}
	}
	if cut > 0 && b[cut-1] == '\r' {
		return cut - 1
	}
	for n := 0; n < 2 && cut > 0 && b[cut-1] == ']'; n++ {
		cut--
	}
	return cut
}

// textRun reads character data at s.pos, up to the next '<' or as much of a long run as
// the buffer holds.
func (s *Scanner) textRun() (bool, error) {
	for {
		b := s.buf[s.pos:s.end]
		run := b
		k := bytes.IndexByte(b, '<')
		if k >= 0 {
			run = b[:k]
		} else if s.rerr == nil {
			if s.pos > 0 || s.end < len(s.buf) {
				if _, err := s.more(s.pos); err != nil && err != io.EOF {
					return false, err
				}
				continue
			}
			cut := safeCut(b, true)
			if cut == 0 {
				if _, err := s.more(s.pos); err != nil && err != io.EOF {
					return false, err
				}
				continue
			}
			run = b[:cut]
		}
		if err := s.setText(run, textSpecial); err != nil {
			return false, err
		}
		if k == 3 && s.base+int64(s.pos) == 0 && string(run) == "\uFEFF" {
			s.bom = true
		}
		s.pos += len(run)
		return true, nil
	}
}

// setText makes the run at s.pos the current text, decoded if need be.
func (s *Scanner) setText(run []byte, mask uint8) error {
	s.text = run
	if j := plainPrefix(run, mask); j < len(run) {
		out, changed, err := s.chars(s.tbuf[:0], run, j, s.pos, mask)
		if err != nil {
			return err
		}
		if changed {
			s.tbuf, s.text = out, out
		}
	}
	return nil
}

// cdata reads the content of the CDATA section at s.pos, or as much of it as the buffer
// holds. It reports false for an empty section, which gives no token.
func (s *Scanner) cdata() (bool, error) {
	for {
		b := s.buf[s.pos:s.end]
		run := b
		k := bytes.Index(b, []byte("]]>"))
		switch {
		case k >= 0:
			run = b[:k]
		case s.rerr != nil:
			return false, s.eofIn(s.rerr, "CDATA section")
		case s.pos > 0 || s.end < len(s.buf):
			if _, err := s.more(s.pos); err != nil && err != io.EOF {
				return false, err
			}
			continue
		default:
			cut := safeCut(b, false)
			if cut == 0 {
				if _, err := s.more(s.pos); err != nil && err != io.EOF {
					return false, err
				}
				continue
			}
			run = b[:cut]
		}
		if err := s.setText(run, cdataSpecial); err != nil {
			return false, err
		}
		s.pos += len(run)
		if k >= 0 {
			s.pos += 3
			s.inCDATA = false
		}
		return len(s.text) > 0, nil
	}
}
