package xmlscan

import (
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
)

// render writes the token stream compactly: <{space}local {space}name=value>, </local>,
// "text", with a run of text that came in pieces joined.
func render(t *testing.T, s *Scanner) (string, error) {
	t.Helper()
	var sb, text strings.Builder
	for {
		k, err := s.Next()
		if k != Text && text.Len() > 0 {
			sb.WriteString(`"` + text.String() + `"`)
			text.Reset()
		}
		if err == io.EOF {
			return sb.String(), nil
		}
		if err != nil {
			return sb.String(), err
		}
		switch k {
		case StartElement:
			space, local := s.Name()
			sb.WriteString("<{" + string(space) + "}" + string(local))
			for i := range s.NumAttr() {
				a := s.Attr(i)
				sb.WriteString(" {" + string(a.Space) + "}" + string(a.Local) + "=" + string(a.Value))
			}
			sb.WriteString(">")
		case EndElement:
			sb.WriteString("</" + string(s.Local()) + ">")
		case Text:
			text.Write(s.Text())
		}
	}
}

const (
	nsObj = "www.kadaster.nl/schemas/lvbag/imbag/objecten/v20200601"
	nsRef = "www.kadaster.nl/schemas/lvbag/imbag/objecten-ref/v20200601"
)

func TestTokens(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"BAG record", `<?xml version="1.0" encoding="UTF-8"?>` + "\n" +
			`<Objecten:Nummeraanduiding xmlns:Objecten="` + nsObj + `"><Objecten:identificatie domein="NL.IMBAG.Nummeraanduiding">0424200000017336</Objecten:identificatie><Objecten:huisnummer>8</Objecten:huisnummer></Objecten:Nummeraanduiding>`,
			"\"\n\"<{" + nsObj + `}Nummeraanduiding {xmlns}Objecten=` + nsObj + `><{` + nsObj + `}identificatie {}domein=NL.IMBAG.Nummeraanduiding>"0424200000017336"</identificatie><{` + nsObj + `}huisnummer>"8"</huisnummer></Nummeraanduiding>`},
		{"default namespace and its scope", `<a xmlns="u1"><b/><c xmlns="u2"><d/></c><e xmlns=""/></a>`,
			`<{u1}a {}xmlns=u1><{u1}b></b><{u2}c {}xmlns=u2><{u2}d></d></c><{}e {}xmlns=></e></a>`},
		{"prefix redeclared in a child", `<p:a xmlns:p="u1"><p:b xmlns:p="u2"/><p:c/></p:a>`,
			`<{u1}a {xmlns}p=u1><{u2}b {xmlns}p=u2></b><{u1}c></c></a>`},
		{"declaration after use in the same tag", `<p:a p:x="1" xmlns:p="u"/>`, `<{u}a {u}x=1 {xmlns}p=u></a>`},
		{"unprefixed attribute has no namespace", `<a xmlns="u" x="1"/>`, `<{u}a {}xmlns=u {}x=1></a>`},
		{"xml prefix needs no declaration", `<a xml:lang="nl"/>`, `<{}a {http://www.w3.org/XML/1998/namespace}lang=nl></a>`},
		{"predefined entities", `<a x="&lt;&gt;&amp;&apos;&quot;">&lt;&gt;&amp;&apos;&quot;</a>`, `<{}a {}x=<>&'">"<>&'""</a>`},
		{"character references", `<a>&#65;&#x42;&#x1F600;&#xe9;</a>`, `<{}a>"AB😀é"</a>`},
		{"CDATA passes markup through", `<a>x<![CDATA[<b>&amp;]]]]><![CDATA[>]]>y</a>`, `<{}a>"x<b>&amp;]]>y"</a>`},
		{"comments, PIs skipped", `<!-- <a> --><?pi <b>?><a><!---->t<?x?>u</a><!--z-->`, `<{}a>"tu"</a>`},
		{"line ends normalised", "<a x=\"1\r\n2\r3\">a\r\nb\rc\r\n</a>", "<{}a {}x=1\n2\n3>\"a\nb\nc\n\"</a>"},
		{"CR from a reference stays", `<a>&#13;&#10;</a>`, "<{}a>\"\r\n\"</a>"},
		{"attribute whitespace kept", "<a x=\" \t1\n\"/>", "<{}a {}x= \t1\n></a>"},
		{"spaces around = and in end tags", `<a x = '1' ></a >`, `<{}a {}x=1></a>`},
		{"byte order mark is text", "\uFEFF<?xml version='1.0'?><a/>", "\"\uFEFF\"<{}a></a>"},
		{"greater-than in text and values", `<a x=">">></a>`, `<{}a {}x=>>">"</a>`},
		{"non-ASCII names and text", `<straße Ort="Zürich">Henriëtte Roland Holsthof</straße>`, `<{}straße {}Ort=Zürich>"Henriëtte Roland Holsthof"</straße>`},
		{"several roots", `<a/>x<b/>`, `<{}a></a>"x"<{}b></b>`},
		{"empty input", ``, ``},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, s := range []*Scanner{New(strings.NewReader(tc.in)), NewSize(iotest.OneByteReader(strings.NewReader(tc.in)), 16, 1<<10)} {
				got, err := render(t, s)
				if err != nil {
					t.Fatalf("error %v after %s", err, got)
				}
				if got != tc.want {
					t.Errorf("got  %s\nwant %s", got, tc.want)
				}
			}
			if err := compare([]byte(tc.in), 0); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		offset   int64
		want     string
	}{
		{"unclosed at EOF", `<a><b></b>`, 10, "element <a> not closed"},
		{"EOF in a start tag", `<a x="1"`, 8, "unexpected EOF in start tag"},
		{"EOF in an attribute value", `<a x="1`, 7, "unexpected EOF in start tag"},
		{"EOF in a comment", `<a><!-- x`, 9, "unexpected EOF in comment"},
		{"EOF in CDATA", `<a><![CDATA[x`, 13, "unexpected EOF in CDATA section"},
		{"mismatched end tag", `<a><b></a>`, 8, "element <b> closed by </a>"},
		{"end tag with another prefix", `<p:a xmlns:p="u" xmlns:q="u"></q:a>`, 31, "element <p:a> closed by </q:a>"},
		{"end tag without start", `<a/></a>`, 6, "unexpected end element </a>"},
		{"unknown entity", `<a>&nbsp;</a>`, 3, "invalid character entity"},
		{"entity without semicolon", `<a>&amp</a>`, 3, "invalid character entity"},
		{"reference past Unicode", `<a>&#x110000;</a>`, 3, "invalid character reference"},
		{"reference to NUL", `<a>&#0;</a>`, 3, "illegal character code U+0000"},
		{"reference to a surrogate", `<a>&#xD800;</a>`, 3, "surrogate"},
		{"unbound element prefix", `<p:a/>`, 1, `element prefix "p" not declared`},
		{"unbound attribute prefix", `<a p:x="1"/>`, 3, `attribute prefix "p" not declared`},
		{"prefix out of scope", `<a><b xmlns:p="u"/><p:c/></a>`, 20, `element prefix "p" not declared`},
		{"DOCTYPE", `<!DOCTYPE a><a/>`, 0, "DOCTYPE"},
		{"other encoding", `<?xml version="1.0" encoding="ISO-8859-1"?><a/>`, 29, `encoding "ISO-8859-1" declared; only UTF-8`},
		{"XML 1.1", `<?xml version="1.1"?><a/>`, 14, "only 1.0"},
		{"declaration not first", ` <?xml version="1.0"?><a/>`, 1, "XML declaration not at the start"},
		{"invalid UTF-8", "<a>\xff</a>", 3, "invalid UTF-8"},
		{"control character", "<a>\x01</a>", 3, "illegal character code U+0001"},
		{"]]> in text", `<a>]]></a>`, 3, "unescaped ]]>"},
		{"< in an attribute value", `<a x="<"/>`, 6, "unescaped < inside quoted string"},
		{"unquoted attribute value", `<a x=1/>`, 5, "unquoted"},
		{"attribute without value", `<a x/>`, 4, "attribute name without ="},
		{"two colons", `<a:b:c/>`, 1, "more than one colon"},
		{"empty local part", `<a: xmlns:a="u"/>`, 1, "empty prefix or local part"},
		{"name starting with a digit", `<1a/>`, 1, "invalid XML name"},
		{"-- in a comment", `<!-- a -- b -->`, 7, `"--" not allowed`},
		{"space after <", `< a/>`, 1, "expected element name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, s := range []*Scanner{New(strings.NewReader(tc.in)), NewSize(iotest.OneByteReader(strings.NewReader(tc.in)), 16, 1<<10)} {
				_, err := render(t, s)
				var se *SyntaxError
				if !errors.As(err, &se) || !strings.Contains(err.Error(), tc.want) || se.Offset != tc.offset {
					t.Fatalf("error %v, want a syntax error at byte %d containing %q", err, tc.offset, tc.want)
				}
				if _, again := s.Next(); again != err {
					t.Errorf("next call gave %v, want the same error", again)
				}
			}
			if err := compare([]byte(tc.in), 0); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestSkip(t *testing.T) {
	for _, tc := range []struct {
		name, in string
	}{
		{"geometry", `<gml:Polygon xmlns:gml="g"><gml:exterior><gml:LinearRing><gml:posList srsDimension="3" count="5">131009.0 482405.0 0.0 131010.0 482405.0 0.0</gml:posList></gml:LinearRing></gml:exterior></gml:Polygon>`},
		{"markup in comments, CDATA, PIs and values", `<s><!-- </s> <s> --><![CDATA[</s><s>]]><?pi </s>?><t a="</s>" b='/>'/><u a=">"></u></s>`},
		{"nested elements of the same name", `<s><s><s/></s><s></s></s>`},
		{"unchecked content", `<s>&nope; ]]> <x:y/></s>`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := "<r><a>1</a>" + tc.in + "<b>2</b></r>"
			for _, s := range []*Scanner{New(strings.NewReader(in)), NewSize(iotest.OneByteReader(strings.NewReader(in)), 16, 1<<10)} {
				var sb strings.Builder
				tokens(t, s, func(k Kind) {
					if k == StartElement && s.Depth() == 2 && string(s.Local()) != "a" && string(s.Local()) != "b" {
						if err := s.Skip(); err != nil {
							t.Fatal(err)
						}
						sb.WriteString("[skipped]")
						return
					}
					if k == Text {
						sb.Write(s.Text())
					}
				})
				if got := sb.String(); got != "1[skipped]2" {
					t.Errorf("got %q", got)
				}
			}
		})
	}
	for _, tc := range []struct {
		name, in, want string
	}{
		{"mismatched inside", `<s><t></u></s>`, "element <t> closed by </u>"},
		{"mismatched end", `<s><t></t></x>`, "element <s> closed by </x>"},
		{"EOF", `<s><t>text`, "unexpected EOF in element"},
		{"EOF in a comment", `<s><!-- </s>`, "unexpected EOF in comment"},
		{"DOCTYPE", `<s><!DOCTYPE x></s>`, "DOCTYPE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := New(strings.NewReader(tc.in))
			if _, err := s.Next(); err != nil {
				t.Fatal(err)
			}
			err := s.Skip()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	// Skip inside an element skips the rest of it; after a self-closing start, just its end.
	s := New(strings.NewReader(`<r><a/><b>x<c/>y</b><d/></r>`))
	var got []string
	tokens(t, s, func(k Kind) {
		got = append(got, string(s.Local())+string(s.Text()))
		if k == StartElement && string(s.Local()) == "a" || k == Text && string(s.Text()) == "x" {
			if err := s.Skip(); err != nil {
				t.Fatal(err)
			}
		}
	})
	if want := "r a b x d d r"; strings.Join(got, " ") != want {
		t.Errorf("got %q, want %q", strings.Join(got, " "), want)
	}
}

// Text longer than the buffer streams through in pieces that add up to the whole; a tag
// must fit in the limit.
func TestLongTokens(t *testing.T) {
	text := strings.Repeat("ë&amp;\r\n]]", 5000)
	want := strings.Repeat("ë&\n]]", 5000)
	for _, in := range []string{"<a>" + text + "</a>", "<a><![CDATA[" + strings.ReplaceAll(text, "&amp;", "&") + "]]></a>"} {
		s := NewSize(strings.NewReader(in), 64, 1<<10)
		var sb strings.Builder
		pieces := 0
		tokens(t, s, func(k Kind) {
			if k == Text {
				sb.Write(s.Text())
				pieces++
			}
		})
		if sb.String() != want || pieces < 2 {
			t.Errorf("%d pieces adding up to %d bytes, want %d bytes", pieces, sb.Len(), len(want))
		}
	}
	s := NewSize(strings.NewReader(`<a x="`+strings.Repeat("y", 2000)+`"/>`), 64, 1<<10)
	if _, err := s.Next(); !errors.Is(err, ErrTooLarge) {
		t.Errorf("error %v, want ErrTooLarge", err)
	}
}

type failingReader struct{ err error }

func (f failingReader) Read([]byte) (int, error) { return 0, f.err }

func TestReaderErrors(t *testing.T) {
	boom := errors.New("boom")
	s := New(io.MultiReader(strings.NewReader("<a><b>"), failingReader{boom}))
	if _, err := render(t, s); !errors.Is(err, boom) {
		t.Errorf("error %v, want the reader's", err)
	}
	s = New(failingReader{nil})
	if _, err := s.Next(); !errors.Is(err, io.ErrNoProgress) {
		t.Errorf("error %v from a reader that returns nothing, want io.ErrNoProgress", err)
	}
	s = New(io.MultiReader(strings.NewReader("<a><b>"), failingReader{boom}))
	s.Next()
	if err := s.Skip(); !errors.Is(err, boom) {
		t.Errorf("Skip error %v, want the reader's", err)
	}
}

func TestPosition(t *testing.T) {
	in := "<a>\n<b>x</b>\n\n<c/></a>"
	s := NewSize(iotest.OneByteReader(strings.NewReader(in)), 16, 1<<10)
	var got []string
	tokens(t, s, func(k Kind) {
		if k == EndElement {
			got = append(got, string(s.Local())+":"+strconv.Itoa(int(s.Offset()))+":"+strconv.Itoa(s.Line()))
		}
	})
	if want := "b:12:2 c:18:4 a:22:4"; strings.Join(got, " ") != want {
		t.Errorf("got %s, want %s", strings.Join(got, " "), want)
	}
}

// After the first record the scanner allocates nothing: its buffers have grown to size.
func TestNoAllocationsPerToken(t *testing.T) {
	record := `<sl:stand><Objecten:Nummeraanduiding><Objecten:identificatie domein="NL.IMBAG.Nummeraanduiding">0424200000017336</Objecten:identificatie><Objecten:huisnummer>8</Objecten:huisnummer><Objecten:documentnummer>B&amp;W-1774</Objecten:documentnummer><Objecten:status>Naamgeving uitgegeven</Objecten:status><Objecten:geometrie><gml:Point><gml:pos>131009.0 482405.0 0.0</gml:pos></gml:Point></Objecten:geometrie></Objecten:Nummeraanduiding></sl:stand>` + "\n"
	doc := func(n int) string {
		return `<sl:bagStand xmlns:sl="s" xmlns:Objecten="` + nsObj + `" xmlns:gml="g">` + strings.Repeat(record, n) + `</sl:bagStand>`
	}
	scan := func(doc string) func() {
		return func() {
			s := New(strings.NewReader(doc))
			tokens(t, s, func(k Kind) {
				if k == StartElement && string(s.Local()) == "geometrie" {
					if err := s.Skip(); err != nil {
						t.Fatal(err)
					}
				}
			})
		}
	}
	// The Scanner, its buffer and its stacks allocate; the tokens of 20,000 records more do not.
	small, large := testing.AllocsPerRun(3, scan(doc(200))), testing.AllocsPerRun(3, scan(doc(20200)))
	if large != small {
		t.Errorf("%.0f allocations for 200 records, %.0f for 20,200", small, large)
	}
}

// tokens calls fn with the kind of every token of s until the end of the input, failing
// the test on a scanning error.
func tokens(t testing.TB, s *Scanner, fn func(k Kind)) {
	t.Helper()
	for {
		k, err := s.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		fn(k)
	}
}
