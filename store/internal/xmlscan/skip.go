package xmlscan

import (
	"bytes"
	"errors"
)

// tagDelim marks the bytes that matter while skipping over a start tag.
var tagDelim = func() (t [256]bool) {
	t['>'], t['"'], t['\''] = true, true, true
	return t
}()

var errSkipOutside = errors.New("xmlscan: Skip called outside an element")

// Skip consumes the rest of the innermost open element, its end tag included; right after
// a StartElement that is the whole element. Geometries run to hundreds of kilobytes, so the
// content is searched for '<' rather than tokenized: tags must nest and match, comments,
// CDATA sections and processing instructions must end, but text, references and namespace
// prefixes inside are not checked.
func (s *Scanner) Skip() error {
	if s.err != nil {
		return s.err
	}
	if s.selfEnd {
		s.selfEnd = false
		s.kind = None
		s.pop()
		return nil
	}
	if s.popNext {
		s.popNext = false
		s.pop()
	}
	s.kind = None
	if len(s.stack) == 0 {
		return errSkipOutside
	}
	if s.inCDATA {
		if err := s.skipPast("]]>", "CDATA section"); err != nil {
			return s.fail(err)
		}
		s.inCDATA = false
	}
	s.skipNames, s.skipEnds = s.skipNames[:0], s.skipEnds[:0]
	for {
		k := bytes.IndexByte(s.buf[s.pos:s.end], '<')
		if k < 0 {
			s.pos = s.end
			if _, err := s.more(s.pos); err != nil {
				return s.fail(s.eofIn(err, "element"))
			}
			continue
		}
		s.pos += k
		if err := s.ensure(s.pos, s.pos+2); err != nil {
			return s.fail(s.eofIn(err, "markup"))
		}
		var err error
		switch s.buf[s.pos+1] {
		case '/':
			var open []byte
			from := 0
			if n := len(s.skipEnds); n == 0 {
				open = s.raw(len(s.stack) - 1)
			} else {
				if n > 1 {
					from = s.skipEnds[n-2]
				}
				open = s.skipNames[from:]
			}
			end, ok := s.closes(open)
			if !ok {
				var name []byte
				if name, err = s.skipEndTag(); err != nil {
					break
				}
				if !bytes.Equal(name, open) {
					return s.fail(s.errorf(s.pos, codeSyntax, "element <%s> closed by </%s>", open, name))
				}
				end = s.pos + 2 + len(name)
				end += bytes.IndexByte(s.buf[end:s.end], '>') + 1
			}
			s.pos = end
			if len(s.skipEnds) == 0 {
				s.pop()
				return nil
			}
			s.skipNames = s.skipNames[:from]
			s.skipEnds = s.skipEnds[:len(s.skipEnds)-1]
		case '!':
			err = s.skipBang()
		case '?':
			s.pos += 2
			err = s.skipPast("?>", "processing instruction")
		default:
			err = s.skipStartTag()
		}
		if err != nil {
			return s.fail(err)
		}
	}
}

// skipEndTag checks the end tag at s.pos and returns its name; s.pos stays at the tag, and
// the tag is whole in the buffer.
func (s *Scanner) skipEndTag() ([]byte, error) {
	for {
		b := s.buf[:s.end]
		i := s.pos + 2
		ne, _ := scanName(b, i)
		j := ne
		for j < len(b) && spaceByte[b[j]] {
			j++
		}
		if j == len(b) {
			if _, err := s.more(s.pos); err != nil {
				return nil, s.eofIn(err, "end tag")
			}
			continue
		}
		if ne == i {
			return nil, s.errorf(i, codeSyntax, "expected element name after </")
		}
		if b[j] != '>' {
			return nil, s.errorf(j, codeSyntax, "invalid characters in end tag")
		}
		return b[i:ne], nil
	}
}

// skipStartTag passes over the start tag at s.pos, noting its name unless it is empty.
func (s *Scanner) skipStartTag() error {
restart:
	b := s.buf[:s.end]
	i := s.pos + 1
	ne, _ := scanName(b, i)
	if ne == len(b) {
		if _, err := s.more(s.pos); err != nil {
			return s.eofIn(err, "start tag")
		}
		goto restart
	}
	if ne == i {
		return s.errorf(i, codeSyntax, "expected element name after <")
	}
	for j := ne; ; {
		for j < len(b) && !tagDelim[b[j]] {
			j++
		}
		if j == len(b) {
			if _, err := s.more(s.pos); err != nil {
				return s.eofIn(err, "start tag")
			}
			goto restart
		}
		if c := b[j]; c != '>' {
			q := bytes.IndexByte(b[j+1:], c)
			if q < 0 {
				if _, err := s.more(s.pos); err != nil {
					return s.eofIn(err, "start tag")
				}
				goto restart
			}
			j += q + 2
			continue
		}
		if b[j-1] != '/' {
			s.skipNames = append(s.skipNames, b[i:ne]...)
			s.skipEnds = append(s.skipEnds, len(s.skipNames))
		}
		s.pos = j + 1
		return nil
	}
}

// skipBang passes over a comment or CDATA section at s.pos.
func (s *Scanner) skipBang() error {
	if err := s.ensure(s.pos, s.pos+4); err != nil {
		return s.eofIn(err, "markup")
	}
	b := s.buf[s.pos:s.end]
	switch {
	case b[2] == '-' && b[3] == '-':
		s.pos += 4
		return s.skipComment()
	case b[2] == '[':
		if err := s.ensure(s.pos, s.pos+9); err != nil {
			return s.eofIn(err, "markup")
		}
		if string(s.buf[s.pos+3:s.pos+9]) != "CDATA[" {
			return s.errorf(s.pos, codeSyntax, "invalid <![ sequence")
		}
		s.pos += 9
		return s.skipPast("]]>", "CDATA section")
	case b[2] == '-':
		return s.errorf(s.pos, codeSyntax, "invalid sequence <!- not part of <!--")
	}
	return s.errorf(s.pos, codeDirective, "DOCTYPE and other <!…> declarations are not supported")
}
