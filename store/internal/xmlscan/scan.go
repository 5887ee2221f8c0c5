// Package xmlscan is a streaming, namespace-aware XML tokenizer for the register importers.
//
// The official BAG and BeST files run to tens of gigabytes; encoding/xml tokenizes them at a
// few tens of megabytes a second and allocates for every token, which made it most of an
// import's time. A Scanner reads through one large buffer, returns names and text as slices
// of that buffer (decoded into a scratch buffer only where a reference or a CR needs
// replacing), and skips unwanted subtrees with a byte search instead of tokenizing them.
//
// What it checks is what encoding/xml checks, with these exceptions:
//
//   - Stricter: a DOCTYPE or any other <!…> declaration is an error (the registers use no
//     DTD); a prefix without an xmlns declaration in scope is an error (encoding/xml uses the
//     prefix as the namespace); a name with a colon first or last, a local part that does
//     not start a name, the prefix xmlns on an element, or an element named xmlns is an
//     error; the XML declaration must come first (after an optional byte order mark) and
//     follow its grammar, version 1.0, encoding UTF-8 if given; a character reference to a
//     surrogate is an error (encoding/xml returns U+FFFD).
//   - Names are checked against the XML 1.0 Fifth Edition character ranges; encoding/xml
//     uses the older, narrower Unicode 2.0 tables, so some names with letters from later
//     Unicode versions pass here and fail there.
//   - Skip checks the structure of what it skips (tags nest and match, comments, CDATA
//     sections and processing instructions end, quoted attribute values close) but not its
//     characters, references or namespace prefixes: that is what makes it fast.
//
// Like encoding/xml, a Scanner accepts several top-level elements and top-level text, does
// not normalise attribute whitespace, accepts repeated attributes, and returns a byte order
// mark as text.
package xmlscan

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// Kind tells what the current token is; its content comes from the Scanner's methods, so
// that no token value has to be built.
type Kind uint8

const (
	None Kind = iota
	StartElement
	EndElement
	// Text is character data with references replaced and line ends normalised to LF. A run
	// of text can come as several Text tokens: split at comments, processing instructions and
	// CDATA boundaries, and where a run outgrows the buffer.
	Text
)

const (
	defaultBufSize = 64 << 10
	// defaultMaxToken bounds what must sit whole in the buffer: a tag with its attributes, or
	// a reference. Text, CDATA and comments stream through in pieces and have no bound.
	defaultMaxToken = 16 << 20
)

const xmlURL = "http://www.w3.org/XML/1998/namespace"

// Namespace indexes below zero name the namespaces that need no declaration.
const (
	spaceNone  = -1 // no namespace
	spaceXML   = -2 // the xml prefix
	spaceXMLNS = -3 // the xmlns prefix of a declaration attribute
)

// code classifies syntax errors, so that the tests can tell a rejection that encoding/xml
// shares from one that is a documented difference.
type code uint8

const (
	codeSyntax    code = iota // encoding/xml rejects the same input
	codeDirective             // <!DOCTYPE …> or another declaration
	codeUnbound               // prefix without a namespace declaration
	codeQName                 // name that is no qualified name in the namespace sense
	codeDecl                  // misplaced or malformed XML declaration
	codeSurrogate             // character reference to a surrogate
	codeNameChar              // non-ASCII name character outside the Fifth Edition ranges
)

// SyntaxError describes malformed input. Its message names the construct, never the
// content, so that it can be logged.
type SyntaxError struct {
	Offset int64 // bytes from the start of the input
	Line   int   // 1-based
	Msg    string
	code   code
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("XML syntax error at byte %d (line %d): %s", e.Offset, e.Line, e.Msg)
}

// ErrTooLarge is wrapped by the error for a tag or reference longer than the limit.
var ErrTooLarge = errors.New("token too large")

type span struct{ off, len int }

type frame struct {
	name  span // raw qualified name in Scanner.names
	colon int  // index of the colon in the raw name, -1 for none
	ns    int  // len(Scanner.ns) before the element's declarations
	space int  // index into Scanner.ns, or spaceNone/spaceXML
}

type binding struct {
	prefix, uri span // in Scanner.nsData
}

type attr struct {
	name    span // raw qualified name in buf
	colon   int
	val     span // in buf, or in Scanner.vals when decoded
	decoded bool
	space   int
}

// Attr is one attribute of a start element. The slices are valid until the next call to
// Next or Skip.
type Attr struct {
	Space, Local, Value []byte
}

// Scanner reads XML tokens from an io.Reader. The zero value is not usable; call New.
type Scanner struct {
	r     io.Reader
	buf   []byte
	pos   int   // next unread byte
	end   int   // end of the data in buf
	base  int64 // input offset of buf[0]
	lines int   // newlines before buf[0]
	// lnN newlines lie in buf[:lnPos]: lines are counted once, as far as asked for, so
	// that asking for the line of every record costs nothing extra.
	lnPos, lnN int
	rerr       error // error from r, reported once buf is drained
	err        error // sticky error
	max        int

	kind    Kind
	selfEnd bool // the start element just returned was empty: its end element comes next
	popNext bool // the end element just returned is still on the stack
	inCDATA bool // a CDATA section continues
	bom     bool // the input starts with a byte order mark, then '<'

	text  []byte // current Text token
	tbuf  []byte // decoded text
	attrs []attr
	vals  []byte // decoded attribute values

	stack  []frame
	names  []byte
	ns     []binding
	nsData []byte
	// nsGen counts changes to ns; a cached lookup holds only for the generation it was
	// made in. The registers declare all prefixes on the root, so lookups almost always hit.
	nsGen   uint64
	nsCache [8]struct {
		i   int
		gen uint64
	}

	skipNames []byte
	skipEnds  []int
}

// New returns a Scanner reading from r. It does its own buffering.
func New(r io.Reader) *Scanner {
	return NewSize(r, defaultBufSize, defaultMaxToken)
}

// NewSize is New with the initial buffer size and the largest tag or reference it will
// hold whole, past which Next fails with ErrTooLarge.
func NewSize(r io.Reader, size, maxToken int) *Scanner {
	size = max(size, 16)
	return &Scanner{r: r, buf: make([]byte, size), max: max(maxToken, size)}
}

// Next advances to the next token. At the end of the input it returns io.EOF; an error
// stays: every later call returns it too.
func (s *Scanner) Next() (Kind, error) {
	if s.err != nil {
		return None, s.err
	}
	if s.selfEnd {
		s.selfEnd = false
		s.kind, s.popNext = EndElement, true
		return EndElement, nil
	}
	if s.popNext {
		s.popNext = false
		s.pop()
	}
	s.kind = None
	for {
		if s.inCDATA {
			ok, err := s.cdata()
			if err != nil {
				return None, s.fail(err)
			}
			if ok {
				s.kind = Text
				return Text, nil
			}
			continue
		}
		if s.pos >= s.end {
			if _, err := s.more(s.pos); err != nil {
				if err != io.EOF {
					return None, s.fail(err)
				}
				if len(s.stack) > 0 {
					return None, s.fail(s.errorf(s.end, codeSyntax, "unexpected EOF: element <%s> not closed", s.raw(len(s.stack)-1)))
				}
				s.err = io.EOF
				return None, io.EOF
			}
		}
		if s.buf[s.pos] != '<' {
			ok, err := s.textRun()
			if err != nil {
				return None, s.fail(err)
			}
			if ok {
				s.kind = Text
				return Text, nil
			}
			continue
		}
		if err := s.ensure(s.pos, s.pos+2); err != nil {
			return None, s.fail(s.eofIn(err, "markup"))
		}
		var err error
		switch s.buf[s.pos+1] {
		case '/':
			if err = s.endTag(); err == nil {
				s.kind, s.popNext = EndElement, true
				return EndElement, nil
			}
		case '?':
			err = s.procInst()
		case '!':
			err = s.bang()
		default:
			if err = s.startTag(); err == nil {
				s.kind = StartElement
				return StartElement, nil
			}
		}
		if err != nil {
			return None, s.fail(err)
		}
	}
}

func (s *Scanner) fail(err error) error {
	s.err = err
	s.kind = None
	return err
}

// Kind returns the kind of the current token.
func (s *Scanner) Kind() Kind { return s.kind }

// Name returns the namespace URI and local name of the current start or end element.
func (s *Scanner) Name() (space, local []byte) {
	if len(s.stack) == 0 || s.kind != StartElement && s.kind != EndElement {
		return nil, nil
	}
	f := &s.stack[len(s.stack)-1]
	return s.space(f.space), s.names[f.name.off+f.colon+1 : f.name.off+f.name.len]
}

// Local returns the local name of the current start or end element.
func (s *Scanner) Local() []byte {
	_, l := s.Name()
	return l
}

// Text returns the character data of the current Text token.
func (s *Scanner) Text() []byte {
	if s.kind != Text {
		return nil
	}
	return s.text
}

// NumAttr returns how many attributes the current start element has, namespace
// declarations included.
func (s *Scanner) NumAttr() int {
	if s.kind != StartElement {
		return 0
	}
	return len(s.attrs)
}

// Attr returns attribute i (0 ≤ i < NumAttr()) of the current start element. A namespace
// declaration has the space "xmlns" (local name its prefix), or no space and the local name
// "xmlns" for the default namespace, as encoding/xml gives them, so that code moving from
// encoding/xml sees the same attributes. The slices must not be modified.
func (s *Scanner) Attr(i int) Attr {
	a := &s.attrs[i]
	name := s.buf[a.name.off : a.name.off+a.name.len]
	var val []byte
	if a.decoded {
		val = s.vals[a.val.off : a.val.off+a.val.len]
	} else {
		val = s.buf[a.val.off : a.val.off+a.val.len]
	}
	return Attr{Space: s.space(a.space), Local: name[a.colon+1:], Value: val}
}

// Depth returns the number of open elements, counting the current start or end element.
func (s *Scanner) Depth() int { return len(s.stack) }

// Offset returns the input offset just past the current token.
func (s *Scanner) Offset() int64 { return s.base + int64(s.pos) }

// Line returns the 1-based line of Offset.
func (s *Scanner) Line() int { return s.lineAt(s.pos) }

func (s *Scanner) lineAt(i int) int {
	i = min(i, s.end)
	if i < s.lnPos {
		return s.lines + bytes.Count(s.buf[:i], nl) + 1
	}
	s.lnN += bytes.Count(s.buf[s.lnPos:i], nl)
	s.lnPos = i
	return s.lines + s.lnN + 1
}

var nl = []byte{'\n'}

var (
	xmlnsBytes  = []byte("xmlns")
	xmlURLBytes = []byte(xmlURL)
)

func (s *Scanner) space(i int) []byte {
	switch i {
	case spaceNone:
		return nil
	case spaceXML:
		return xmlURLBytes
	case spaceXMLNS:
		return xmlnsBytes
	}
	u := s.ns[i].uri
	return s.nsData[u.off : u.off+u.len]
}

// raw returns the qualified name of open element i as written, for messages.
func (s *Scanner) raw(i int) []byte {
	n := s.stack[i].name
	return s.names[n.off : n.off+n.len]
}

func (s *Scanner) errorf(at int, c code, format string, args ...any) error {
	return &SyntaxError{Offset: s.base + int64(at), Line: s.lineAt(at), Msg: fmt.Sprintf(format, args...), code: c}
}

// eofIn turns the end of the input inside a construct into a syntax error, and passes read
// errors on as they are.
func (s *Scanner) eofIn(err error, what string) error {
	if err == io.EOF {
		return s.errorf(s.end, codeSyntax, "unexpected EOF in %s", what)
	}
	return err
}

// more reads more input, keeping buf[keep:end]. The kept bytes move to the front of the
// buffer, so every index into buf drops by the returned shift (s.pos is adjusted here). It
// returns io.EOF at the end of the input, or the reader's error.
func (s *Scanner) more(keep int) (int, error) {
	if s.rerr != nil {
		return 0, s.rerr
	}
	shift := 0
	if keep > 0 {
		if s.lnPos <= keep {
			s.lines += s.lnN + bytes.Count(s.buf[s.lnPos:keep], nl)
			s.lnPos, s.lnN = 0, 0
		} else {
			c := bytes.Count(s.buf[keep:s.lnPos], nl)
			s.lines += s.lnN - c
			s.lnPos, s.lnN = s.lnPos-keep, c
		}
		s.base += int64(keep)
		s.end = copy(s.buf, s.buf[keep:s.end])
		s.pos -= keep
		shift = keep
	}
	if s.end == len(s.buf) {
		if len(s.buf) >= s.max {
			return shift, fmt.Errorf("%w: %w", s.errorf(0, codeSyntax, "tag or reference longer than %d bytes", s.max), ErrTooLarge)
		}
		nb := make([]byte, min(2*len(s.buf), s.max))
		copy(nb, s.buf[:s.end])
		s.buf = nb
	}
	for range 100 {
		n, err := s.r.Read(s.buf[s.end:])
		if n < 0 || n > len(s.buf)-s.end {
			err = errors.New("xmlscan: reader returned an impossible count")
			n = 0
		}
		s.end += n
		if err != nil {
			s.rerr = err
			if n > 0 {
				return shift, nil
			}
			return shift, err
		}
		if n > 0 {
			return shift, nil
		}
	}
	s.rerr = io.ErrNoProgress
	return shift, s.rerr
}

// ensure makes buf[s.pos:i] hold data, reading more when needed and keeping from keep,
// which must be at or before s.pos; i is relative to buf before the call.
func (s *Scanner) ensure(keep, i int) error {
	for s.end < i {
		sh, err := s.more(keep)
		if err != nil {
			return err
		}
		keep -= sh
		i -= sh
	}
	return nil
}

// startTag reads a start tag at s.pos. A tag is parsed only once it is whole in the buffer,
// so that nothing is undone when it is not.
func (s *Scanner) startTag() error {
	for {
		done, err := s.parseStart()
		if done || err != nil {
			return err
		}
		if _, err := s.more(s.pos); err != nil {
			return s.eofIn(err, "start tag")
		}
	}
}

// parseStart parses the start tag at s.pos, reporting false when it runs past the data.
func (s *Scanner) parseStart() (bool, error) {
	b := s.buf[:s.end]
	i := s.pos + 1
	ne, colon, cls := scanQName(b, i)
	if ne == len(b) {
		return false, nil
	}
	if ne == i {
		return false, s.errorf(i, codeSyntax, "expected element name after <")
	}
	if err := s.qname(b[i:ne], colon, cls, i, true); err != nil {
		return false, err
	}
	nameOff, nameLen := i, ne-i
	s.attrs = s.attrs[:0]
	s.vals = s.vals[:0]
	empty := false
	i = ne
	for {
		for i < len(b) && spaceByte[b[i]] {
			i++
		}
		if i == len(b) {
			return false, nil
		}
		c := b[i]
		if c == '>' {
			i++
			break
		}
		if c == '/' {
			if i+1 == len(b) {
				return false, nil
			}
			if b[i+1] != '>' {
				return false, s.errorf(i, codeSyntax, "expected /> in element")
			}
			empty = true
			i += 2
			break
		}
		an := i
		ae, acolon, cls := scanQName(b, i)
		if ae == len(b) {
			return false, nil
		}
		if ae == an {
			return false, s.errorf(i, codeSyntax, "expected attribute name in element")
		}
		if err := s.qname(b[an:ae], acolon, cls, an, false); err != nil {
			return false, err
		}
		i = ae
		for i < len(b) && spaceByte[b[i]] {
			i++
		}
		if i == len(b) {
			return false, nil
		}
		if b[i] != '=' {
			return false, s.errorf(i, codeSyntax, "attribute name without = in element")
		}
		i++
		for i < len(b) && spaceByte[b[i]] {
			i++
		}
		if i == len(b) {
			return false, nil
		}
		q := b[i]
		if q != '"' && q != '\'' {
			return false, s.errorf(i, codeSyntax, "unquoted or missing attribute value in element")
		}
		i++
		k := bytes.IndexByte(b[i:], q)
		if k < 0 {
			return false, nil
		}
		a := attr{name: span{an, ae - an}, colon: acolon, val: span{i, k}}
		v := b[i : i+k]
		if j := plainPrefix(v, attrSpecial); j < len(v) {
			n0 := len(s.vals)
			out, changed, err := s.chars(s.vals, v, j, i, attrSpecial)
			if err != nil {
				return false, err
			}
			if changed {
				s.vals = out
				a.val, a.decoded = span{n0, len(out) - n0}, true
			}
		}
		s.attrs = append(s.attrs, a)
		i += k + 1
	}

	// The tag is whole and well formed: open the element.
	s.pos = i
	f := frame{name: span{len(s.names), nameLen}, colon: colon, ns: len(s.ns)}
	s.names = append(s.names, b[nameOff:nameOff+nameLen]...)
	for k := range s.attrs {
		a := &s.attrs[k]
		name := b[a.name.off : a.name.off+a.name.len]
		switch {
		case a.colon < 0 && string(name) == "xmlns":
			s.bind(nil, s.attrValue(a))
		case a.colon == 5 && string(name[:5]) == "xmlns":
			s.bind(name[6:], s.attrValue(a))
		}
	}
	name := s.names[f.name.off : f.name.off+f.name.len]
	var err error
	if f.space, err = s.resolve(name, colon, nameOff, true); err != nil {
		return false, err
	}
	s.stack = append(s.stack, f)
	for k := range s.attrs {
		a := &s.attrs[k]
		if a.colon < 0 {
			a.space = spaceNone
			continue
		}
		an := b[a.name.off : a.name.off+a.name.len]
		if a.space, err = s.resolve(an, a.colon, a.name.off, false); err != nil {
			return false, err
		}
	}
	s.selfEnd = empty
	return true, nil
}

func (s *Scanner) attrValue(a *attr) []byte {
	if a.decoded {
		return s.vals[a.val.off : a.val.off+a.val.len]
	}
	return s.buf[a.val.off : a.val.off+a.val.len]
}

// qname checks a name as scanQName found it. Names are qualified names in the namespace
// sense: at most one colon, with a name on each side.
func (s *Scanner) qname(name []byte, colon int, cls uint8, at int, element bool) error {
	if cls&^ncColon == ncName && asciiNameStart[name[0]] && (colon < 0 || colon < len(name)-1 && asciiNameStart[name[colon+1]]) &&
		(!element || len(name) != 5 && colon != 5) {
		// ASCII, well placed colon, nothing reserved: the common case, decided by table.
		return nil
	}
	if cls&ncMulti != 0 {
		return s.errorf(at, codeSyntax, "name with more than one colon")
	}
	if !checkName(name, cls&ncHigh != 0) {
		c := codeSyntax
		if cls&ncHigh != 0 {
			c = codeNameChar
		}
		return s.errorf(at, c, "invalid XML name")
	}
	if colon == 0 || colon == len(name)-1 {
		return s.errorf(at, codeQName, "name with an empty prefix or local part")
	}
	if colon > 0 && !startsName(name[colon+1:]) {
		return s.errorf(at, codeQName, "local part does not start a name")
	}
	if element {
		if colon == 5 && string(name[:5]) == "xmlns" {
			return s.errorf(at, codeQName, "element with the prefix xmlns")
		}
		if colon < 0 && string(name) == "xmlns" {
			return s.errorf(at, codeQName, "element named xmlns")
		}
	}
	return nil
}

// bind declares a prefix (nil for the default namespace) for the element being opened.
func (s *Scanner) bind(prefix, uri []byte) {
	b := binding{prefix: span{len(s.nsData), len(prefix)}}
	s.nsData = append(s.nsData, prefix...)
	b.uri = span{len(s.nsData), len(uri)}
	s.nsData = append(s.nsData, uri...)
	s.ns = append(s.ns, b)
	s.nsGen++
}

// resolve finds the namespace of a name. Unprefixed attributes are in no namespace and do
// not get here.
func (s *Scanner) resolve(name []byte, colon, at int, element bool) (int, error) {
	var prefix []byte
	if colon > 0 {
		prefix = name[:colon]
		switch string(prefix) {
		case "xml":
			return spaceXML, nil
		case "xmlns":
			return spaceXMLNS, nil
		}
	}
	h := 0
	if len(prefix) > 0 {
		h = (len(prefix) ^ int(prefix[0]) ^ int(prefix[len(prefix)-1])<<1) & 7
	}
	if c := s.nsCache[h]; c.gen == s.nsGen && c.i < len(s.ns) {
		p := s.ns[c.i].prefix
		if string(s.nsData[p.off:p.off+p.len]) == string(prefix) {
			return c.i, nil
		}
	}
	for i := len(s.ns) - 1; i >= 0; i-- {
		p := s.ns[i].prefix
		if string(s.nsData[p.off:p.off+p.len]) == string(prefix) {
			s.nsCache[h].i, s.nsCache[h].gen = i, s.nsGen
			return i, nil
		}
	}
	if colon < 0 {
		return spaceNone, nil
	}
	what := "attribute"
	if element {
		what = "element"
	}
	return 0, s.errorf(at, codeUnbound, "%s prefix %q not declared", what, prefix)
}

// pop closes the innermost element and forgets its namespace declarations.
func (s *Scanner) pop() {
	f := s.stack[len(s.stack)-1]
	s.stack = s.stack[:len(s.stack)-1]
	s.names = s.names[:f.name.off]
	if f.ns < len(s.ns) {
		s.nsData = s.nsData[:s.ns[f.ns].prefix.off]
		s.ns = s.ns[:f.ns]
		s.nsGen++
	}
}

// endTag reads an end tag at s.pos, which must close the innermost element.
func (s *Scanner) endTag() error {
	if n := len(s.stack); n > 0 {
		if end, ok := s.closes(s.raw(n - 1)); ok {
			s.pos = end
			return nil
		}
	}
	for {
		b := s.buf[:s.end]
		i := s.pos + 2
		ne, colon, cls := scanQName(b, i)
		j := ne
		for j < len(b) && spaceByte[b[j]] {
			j++
		}
		if j == len(b) {
			if _, err := s.more(s.pos); err != nil {
				return s.eofIn(err, "end tag")
			}
			continue
		}
		if ne == i {
			return s.errorf(i, codeSyntax, "expected element name after </")
		}
		if b[j] != '>' {
			return s.errorf(j, codeSyntax, "invalid characters in end tag")
		}
		name := b[i:ne]
		if len(s.stack) == 0 {
			if err := s.qname(name, colon, cls, i, true); err != nil {
				return err
			}
			return s.errorf(i, codeSyntax, "unexpected end element </%s>", name)
		}
		if open := s.raw(len(s.stack) - 1); !bytes.Equal(name, open) {
			if err := s.qname(name, colon, cls, i, true); err != nil {
				return err
			}
			return s.errorf(i, codeSyntax, "element <%s> closed by </%s>", open, name)
		}
		s.pos = j + 1
		return nil
	}
}

// closes reports whether the buffer holds, at s.pos, the end tag of the element named
// open, and where that tag ends. This is the common case, checked without scanning the
// name; anything else (a mismatch, a tag cut by the end of the buffer) is left to the
// careful path.
func (s *Scanner) closes(open []byte) (int, bool) {
	b := s.buf[:s.end]
	j := s.pos + 2 + len(open)
	if j >= len(b) || string(b[s.pos+2:j]) != string(open) || nameByte[b[j]] {
		return 0, false
	}
	for j < len(b) && spaceByte[b[j]] {
		j++
	}
	if j < len(b) && b[j] == '>' {
		return j + 1, true
	}
	return 0, false
}

// procInst skips a processing instruction at s.pos, checking the XML declaration.
func (s *Scanner) procInst() error {
	at := s.base + int64(s.pos)
	for {
		b := s.buf[:s.end]
		i := s.pos + 2
		ne, high := scanName(b, i)
		if ne == len(b) {
			if _, err := s.more(s.pos); err != nil {
				return s.eofIn(err, "processing instruction")
			}
			continue
		}
		if ne == i {
			return s.errorf(i, codeSyntax, "expected target name after <?")
		}
		if !checkName(b[i:ne], high) {
			c := codeSyntax
			if high {
				c = codeNameChar
			}
			return s.errorf(i, c, "invalid XML name")
		}
		if string(b[i:ne]) != "xml" {
			s.pos = ne
			return s.skipPast("?>", "processing instruction")
		}
		if at != 0 && !(at == 3 && s.bom) {
			return s.errorf(s.pos, codeDecl, "XML declaration not at the start of the input")
		}
		k := bytes.Index(b[ne:], []byte("?>"))
		if k < 0 {
			if _, err := s.more(s.pos); err != nil {
				return s.eofIn(err, "XML declaration")
			}
			continue
		}
		if err := s.decl(b[ne:ne+k], ne); err != nil {
			return err
		}
		s.pos = ne + k + 2
		return nil
	}
}

// decl checks the pseudo-attributes of the XML declaration: version 1.0 (the only one
// encoding/xml reads too), an optional encoding that must be UTF-8, an optional standalone.
func (s *Scanner) decl(d []byte, at int) error {
	i := 0
	for n, name := range []string{"version", "encoding", "standalone"} {
		j := i
		for j < len(d) && spaceByte[d[j]] {
			j++
		}
		if j == i || !bytes.HasPrefix(d[j:], []byte(name)) {
			if n == 0 {
				return s.errorf(at, codeDecl, "XML declaration without version")
			}
			continue
		}
		j += len(name)
		for j < len(d) && spaceByte[d[j]] {
			j++
		}
		if j == len(d) || d[j] != '=' {
			return s.errorf(at+j, codeDecl, "malformed XML declaration")
		}
		j++
		for j < len(d) && spaceByte[d[j]] {
			j++
		}
		if j == len(d) || d[j] != '"' && d[j] != '\'' {
			return s.errorf(at+j, codeDecl, "malformed XML declaration")
		}
		k := bytes.IndexByte(d[j+1:], d[j])
		if k < 0 {
			return s.errorf(at+j, codeDecl, "malformed XML declaration")
		}
		v := string(d[j+1 : j+1+k])
		switch name {
		case "version":
			if v != "1.0" {
				return s.errorf(at+j, codeDecl, "unsupported XML version %q; only 1.0 is supported", v)
			}
		case "encoding":
			if !equalFoldASCII(v, "utf-8") {
				return s.errorf(at+j, codeDecl, "encoding %q declared; only UTF-8 is supported", v)
			}
		case "standalone":
			if v != "yes" && v != "no" {
				return s.errorf(at+j, codeDecl, "malformed XML declaration")
			}
		}
		i = j + 1 + k + 1
	}
	for i < len(d) && spaceByte[d[i]] {
		i++
	}
	if i != len(d) {
		return s.errorf(at+i, codeDecl, "malformed XML declaration")
	}
	return nil
}

func equalFoldASCII(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range len(a) {
		c, d := a[i], b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != d {
			return false
		}
	}
	return true
}

// bang handles <! at s.pos: a comment is skipped, a CDATA section starts, anything else
// (a DOCTYPE above all) is refused.
func (s *Scanner) bang() error {
	if err := s.ensure(s.pos, s.pos+4); err != nil {
		return s.eofIn(err, "markup")
	}
	b := s.buf[s.pos:s.end]
	switch b[2] {
	case '-':
		if b[3] != '-' {
			return s.errorf(s.pos, codeSyntax, "invalid sequence <!- not part of <!--")
		}
		s.pos += 4
		return s.skipComment()
	case '[':
		if err := s.ensure(s.pos, s.pos+9); err != nil {
			return s.eofIn(err, "markup")
		}
		if string(s.buf[s.pos+3:s.pos+9]) != "CDATA[" {
			return s.errorf(s.pos, codeSyntax, "invalid <![ sequence")
		}
		s.pos += 9
		s.inCDATA = true
		return nil
	}
	return s.errorf(s.pos, codeDirective, "DOCTYPE and other <!…> declarations are not supported")
}

// skipComment skips to the end of a comment whose "<!--" is consumed. As in XML and
// encoding/xml, "--" must end it.
func (s *Scanner) skipComment() error {
	for {
		k := bytes.Index(s.buf[s.pos:s.end], []byte("--"))
		if k < 0 || s.pos+k+2 >= s.end {
			// Keep a possible '-' (or "--") at the end: the sequence may continue.
			keep := max(s.pos, s.end-2)
			if k >= 0 {
				keep = s.pos + k
			}
			s.pos = keep
			if _, err := s.more(keep); err != nil {
				return s.eofIn(err, "comment")
			}
			continue
		}
		if s.buf[s.pos+k+2] != '>' {
			return s.errorf(s.pos+k, codeSyntax, `invalid sequence "--" not allowed in comments`)
		}
		s.pos += k + 3
		return nil
	}
}

// skipPast skips to just after the first occurrence of end.
func (s *Scanner) skipPast(end, what string) error {
	for {
		k := bytes.Index(s.buf[s.pos:s.end], []byte(end))
		if k >= 0 {
			s.pos += k + len(end)
			return nil
		}
		keep := max(s.pos, s.end-len(end)+1)
		s.pos = keep
		if _, err := s.more(keep); err != nil {
			return s.eofIn(err, what)
		}
	}
}
