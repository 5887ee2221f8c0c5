package xmlscan

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
)

// tok is a token as both tokenizers give it, for comparison: adjacent text merged, empty
// text, comments, processing instructions and directives dropped.
type tok struct {
	kind         Kind
	space, local string
	attrs        string // "{space}local=value" joined by "\x00"
	text         string
	line         int // after an end element
}

func (t tok) String() string {
	switch t.kind {
	case StartElement:
		return fmt.Sprintf("<{%s}%s %q>", t.space, t.local, t.attrs)
	case EndElement:
		return fmt.Sprintf("</{%s}%s> line %d", t.space, t.local, t.line)
	}
	return fmt.Sprintf("%q", t.text)
}

type toks []tok

func (ts *toks) add(t tok) {
	if t.kind == Text {
		if t.text == "" {
			return
		}
		if n := len(*ts); n > 0 && (*ts)[n-1].kind == Text {
			(*ts)[n-1].text += t.text
			return
		}
	}
	*ts = append(*ts, t)
}

// skipRule decides, the same way for both tokenizers, which elements a skipping reader
// skips: those whose local name is as long as the rule says. Zero skips nothing.
type skipRule int

func (r skipRule) skips(local string) bool { return r > 0 && len(local)%int(r) == 0 }

// goTokens tokenizes data with encoding/xml, the oracle.
func goTokens(data []byte, skip skipRule) (toks, error) {
	d := xml.NewDecoder(bytes.NewReader(data))
	var out toks
	for {
		t, err := d.Token()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		switch t := t.(type) {
		case xml.StartElement:
			var attrs []string
			for _, a := range t.Attr {
				attrs = append(attrs, "{"+a.Name.Space+"}"+a.Name.Local+"="+a.Value)
			}
			out.add(tok{kind: StartElement, space: t.Name.Space, local: t.Name.Local, attrs: strings.Join(attrs, "\x00")})
			if skip.skips(t.Name.Local) {
				if err := d.Skip(); err != nil {
					return out, err
				}
				out.add(tok{kind: EndElement, space: t.Name.Space, local: t.Name.Local, line: line(d)})
			}
		case xml.EndElement:
			out.add(tok{kind: EndElement, space: t.Name.Space, local: t.Name.Local, line: line(d)})
		case xml.CharData:
			out.add(tok{kind: Text, text: string(t)})
		}
	}
}

func line(d *xml.Decoder) int {
	l, _ := d.InputPos()
	return l
}

// scanTokens tokenizes what r yields with a Scanner.
func scanTokens(s *Scanner, skip skipRule) (toks, error) {
	var out toks
	for {
		k, err := s.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		switch k {
		case StartElement:
			space, local := s.Name()
			var attrs []string
			for i := range s.NumAttr() {
				a := s.Attr(i)
				attrs = append(attrs, "{"+string(a.Space)+"}"+string(a.Local)+"="+string(a.Value))
			}
			out.add(tok{kind: StartElement, space: string(space), local: string(local), attrs: strings.Join(attrs, "\x00")})
			if skip.skips(string(local)) {
				if err := s.Skip(); err != nil {
					return out, err
				}
				out.add(tok{kind: EndElement, space: string(space), local: string(local), line: s.Line()})
			}
		case EndElement:
			space, local := s.Name()
			out.add(tok{kind: EndElement, space: string(space), local: string(local), line: s.Line()})
		case Text:
			out.add(tok{kind: Text, text: string(s.Text())})
		}
	}
}

// chunkReader hands out its data in pieces of the given sizes, in turn, to drive the
// Scanner across buffer boundaries at every kind of place.
type chunkReader struct {
	data  []byte
	sizes []int
	i     int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := min(len(p), len(c.data), c.sizes[c.i%len(c.sizes)])
	c.i++
	n = copy(p, c.data[:n])
	c.data = c.data[n:]
	return n, nil
}

// stricter lists the codes of the documented cases where a Scanner rejects what
// encoding/xml accepts.
func stricter(err error) bool {
	var se *SyntaxError
	if !errors.As(err, &se) {
		return false
	}
	switch se.code {
	case codeDirective, codeUnbound, codeQName, codeDecl, codeSurrogate:
		return true
	}
	return false
}

// laxer reports the documented cases where a Scanner accepts what encoding/xml rejects:
// names with characters of the Fifth Edition ranges that encoding/xml's Unicode 2.0 tables
// lack.
func laxer(goErr error, data []byte) bool {
	var se *xml.SyntaxError
	return errors.As(goErr, &se) && strings.HasPrefix(se.Msg, "invalid XML name: ") &&
		strings.IndexFunc(se.Msg[len("invalid XML name: "):], func(r rune) bool { return r >= 0x80 }) >= 0 &&
		bytes.ContainsFunc(data, func(r rune) bool { return r >= 0x80 })
}

// compare tokenizes data with encoding/xml and with Scanners of several buffer sizes and
// reports how they differ beyond the documented differences.
func compare(data []byte, skip skipRule) error {
	want, goErr := goTokens(data, skip)
	var first toks
	var firstErr error
	for i, mk := range []func() *Scanner{
		func() *Scanner { return New(bytes.NewReader(data)) },
		func() *Scanner { return NewSize(&chunkReader{data: data, sizes: []int{1, 7, 3, 64, 2}}, 16, 1<<20) },
		func() *Scanner { return NewSize(&chunkReader{data: data, sizes: []int{13, 5, 1000}}, 32, 1<<20) },
	} {
		got, err := scanTokens(mk(), skip)
		if i == 0 {
			first, firstErr = got, err
			continue
		}
		a, b := got, first
		if err != nil {
			// A smaller buffer may hand out the text before an error in time.
			a, b = dropText(a), dropText(b)
		}
		if (err == nil) != (firstErr == nil) || err != nil && err.Error() != firstErr.Error() || !equal(a, b) {
			return fmt.Errorf("scanner %d differs from scanner 0:\n%v %v\n%v %v", i, got, err, first, firstErr)
		}
	}
	got, err := first, firstErr
	switch {
	case goErr == nil && err == nil:
		if !equal(got, want) {
			return fmt.Errorf("token streams differ:\n got %v\nwant %v", got, want)
		}
	case goErr == nil:
		if !stricter(err) {
			return fmt.Errorf("rejected what encoding/xml accepts: %v\nencoding/xml: %v", err, want)
		}
	case err == nil:
		if skip > 0 {
			// Skip does not check the characters and references it skips; that is the only
			// way for a skipping scan to pass where a full one fails.
			if _, full := scanTokens(New(bytes.NewReader(data)), 0); full != nil {
				return nil
			}
		}
		if !laxer(goErr, data) {
			return fmt.Errorf("accepted what encoding/xml rejects (%v): %v", goErr, got)
		}
	}
	// Whatever was accepted, the tokens before an error agree with encoding/xml's, text
	// aside: a run of text can end differently at an error.
	if goErr == nil || err == nil || stricter(err) || laxer(goErr, data) {
		return nil
	}
	n := min(len(got), len(want))
	for i := range n {
		if got[i].kind != Text && want[i].kind != Text && got[i] != want[i] {
			return fmt.Errorf("token %d before the errors: got %v, want %v (errors: %v; %v)", i, got[i], want[i], err, goErr)
		}
	}
	return nil
}

// dropText drops a final text token.
func dropText(ts toks) toks {
	if n := len(ts); n > 0 && ts[n-1].kind == Text {
		return ts[:n-1]
	}
	return ts
}

func equal(a, b toks) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
