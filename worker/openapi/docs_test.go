package openapi

import (
	"bytes"
	"encoding/xml"
	"io"
	"strconv"
	"strings"
	"testing"

	aw "github.com/adreswijzer/adreswijzer"
)

func TestDocsShowEveryOperationAndSchema(t *testing.T) {
	page := string(DocsHTML())
	d := parsed(t)
	for _, pe := range d.Paths {
		for _, m := range pe.Value.operations() {
			id := "op-" + m.op.OperationID
			heading := `<h3 id="` + id + `"><span class="method ` + m.method + `">` + m.method + `</span> <code>` + esc(pe.Key) + `</code></h3>`
			if !strings.Contains(page, heading) {
				t.Errorf("no heading for %s %s (%s)", m.method, pe.Key, id)
			}
			if !strings.Contains(page, `href="#`+id+`"`) {
				t.Errorf("contents do not link %s", id)
			}
			for _, r := range m.op.Responses {
				if !strings.Contains(page, `<tr><th scope="row">`+r.Key+`</th>`) {
					t.Errorf("%s: status %s not shown", id, r.Key)
				}
			}
		}
	}
	for _, e := range d.Components.Schemas {
		if !strings.Contains(page, `<h3 id="schema-`+e.Key+`">`+e.Key+`</h3>`) {
			t.Errorf("schema %s not shown", e.Key)
		}
		for _, p := range e.Value.Properties {
			if !strings.Contains(page, `<th scope="row"><code>`+p.Key+`</code></th>`) {
				t.Errorf("member %s.%s not shown", e.Key, p.Key)
			}
		}
	}
	for _, e := range d.Components.Responses {
		if !strings.Contains(page, `id="response-`+e.Key+`"`) {
			t.Errorf("response %s not shown", e.Key)
		}
	}
	for _, e := range d.Components.Headers {
		if !strings.Contains(page, `id="header-`+e.Key+`"`) {
			t.Errorf("header %s not shown", e.Key)
		}
	}
}

func TestDocsShowCodesWithSeverityAndStatus(t *testing.T) {
	page := string(DocsHTML())
	for _, c := range aw.IssueCodes {
		row := `<tr><th scope="row"><code>` + string(c) + `</code></th><td>` + string(c.Severity()) + `</td>`
		if !strings.Contains(page, row) {
			t.Errorf("issue code %s is not shown with severity %s", c, c.Severity())
		}
	}
	// The schema's own rules, rendered as sentences, must say the same.
	for _, want := range []string{
		"<code>severity</code> is <code>error</code>", "<code>severity</code> is <code>warning</code>", "<code>severity</code> is <code>info</code>",
		"When <code>error.code</code> is <code>QUOTA_EXCEEDED</code>: <code>error.upgradeUrl</code> is required.",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page does not say %q", want)
		}
	}
	codes := component(t, parsed(t), "ErrorCode")
	for code, status := range codes.Status {
		row := `<tr><th scope="row"><code>` + code + `</code></th><td>` + strconv.Itoa(status) + `</td>`
		if !strings.Contains(page, row) {
			t.Errorf("error code %s is not shown with status %d", code, status)
		}
	}
}

func TestDocsShowEveryExample(t *testing.T) {
	page := string(DocsHTML())
	d := parsed(t)
	count := 0
	check := func(where string, content ordered[*mediaType]) {
		for _, c := range content {
			for _, ex := range c.Value.Examples {
				count++
				if !strings.Contains(page, esc(ex.Value.Summary)+`</figcaption>`) {
					t.Errorf("%s: example %q not shown", where, ex.Value.Summary)
				}
			}
		}
	}
	for _, pe := range d.Paths {
		for _, m := range pe.Value.operations() {
			if m.op.RequestBody != nil {
				check(m.op.OperationID, m.op.RequestBody.Content)
			}
			for _, r := range m.op.Responses {
				check(m.op.OperationID+" "+r.Key, r.Value.Content)
			}
		}
	}
	for _, r := range d.Components.Responses {
		check(r.Key, r.Value.Content)
	}
	if count < 30 {
		t.Errorf("only %d examples in the document", count)
	}
}

// The page is written as well-formed markup so that it can be checked here with
// encoding/xml: structure, links and the accessibility basics.
func TestDocsWellFormedAndAccessible(t *testing.T) {
	dec := xml.NewDecoder(bytes.NewReader(DocsHTML()))
	dec.Strict = true
	ids := map[string]int{}
	var hrefs []string
	var headings []int
	var open []string
	tables, captions, h1 := 0, 0, 0
	sawLang := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("page is not well-formed: %v", err)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			name := el.Name.Local
			open = append(open, name)
			for _, a := range el.Attr {
				switch a.Name.Local {
				case "id":
					ids[a.Value]++
				case "href":
					hrefs = append(hrefs, a.Value)
				case "src":
					t.Errorf("<%s src=%q>: the page must not load anything", name, a.Value)
				case "lang":
					sawLang = sawLang || (name == "html" && a.Value == "en")
				}
				if strings.HasPrefix(a.Name.Local, "on") {
					t.Errorf("<%s %s>: no scripts", name, a.Name.Local)
				}
			}
			switch name {
			case "script", "link", "iframe", "img", "object":
				t.Errorf("<%s>: the page must be self-contained and script-free", name)
			case "h1", "h2", "h3", "h4", "h5", "h6":
				level := int(name[1] - '0')
				if len(headings) > 0 && level > headings[len(headings)-1]+1 {
					t.Errorf("heading level jumps from h%d to h%d", headings[len(headings)-1], level)
				}
				headings = append(headings, level)
				if level == 1 {
					h1++
				}
			case "table":
				tables++
			case "caption":
				captions++
			case "th":
				scope := ""
				for _, a := range el.Attr {
					if a.Name.Local == "scope" {
						scope = a.Value
					}
				}
				if scope != "col" && scope != "row" {
					t.Errorf("<th> without scope col or row")
				}
			case "pre":
				focusable := false
				for _, a := range el.Attr {
					focusable = focusable || a.Name.Local == "tabindex"
				}
				if !focusable {
					t.Errorf("<pre> scrolls but cannot take keyboard focus")
				}
			}
		case xml.EndElement:
			open = open[:len(open)-1]
		}
	}
	if !sawLang {
		t.Error(`<html> has no lang="en"`)
	}
	if h1 != 1 {
		t.Errorf("%d h1 elements, want 1", h1)
	}
	if tables == 0 || tables != captions {
		t.Errorf("%d tables, %d captions: every table needs a caption", tables, captions)
	}
	for id, n := range ids {
		if n > 1 {
			t.Errorf("id %q used %d times", id, n)
		}
	}
	for _, h := range hrefs {
		if !strings.HasPrefix(h, "#") {
			t.Errorf("link %q leaves the page", h)
			continue
		}
		if ids[h[1:]] == 0 {
			t.Errorf("link %q points nowhere", h)
		}
	}
}

func TestMarkdown(t *testing.T) {
	for _, tc := range []struct {
		in       string
		headings bool
		want     string
	}{
		{"plain text", false, "<p>plain text</p>"},
		{"two\nlines", false, "<p>two lines</p>"},
		{"one\n\ntwo", false, "<p>one</p>\n<p>two</p>"},
		{"- a\n- `b`", false, "<ul>\n<li>a</li>\n<li><code>b</code></li>\n</ul>"},
		{"## Fail open\n\ntext", true, "<h3 id=\"overview-fail-open\">Fail open</h3>\n<p>text</p>"},
		{"## not a heading here", false, "<p>## not a heading here</p>"},
		{"**1.5 s** and `<key>`", false, "<p><strong>1.5 s</strong> and <code>&lt;key&gt;</code></p>"},
		{"<script>alert(1)</script>", false, "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>"},
		{"an unmatched ` stays", false, "<p>an unmatched ` stays</p>"},
		{"- a\nb", false, "<p>- a b</p>"},
		{"", false, ""},
	} {
		if got := string(markdown(tc.in, tc.headings)); got != tc.want {
			t.Errorf("markdown(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestRenderRejectsBrokenDocuments(t *testing.T) {
	for _, tc := range []struct{ name, doc string }{
		{"not JSON", `{`},
		{"dangling response", `{"paths":{"/x":{"get":{"operationId":"x","responses":{"200":{"$ref":"#/components/responses/Nope"}}}}}}`},
		{"dangling parameter", `{"paths":{"/x":{"get":{"operationId":"x","parameters":[{"$ref":"#/components/parameters/Nope"}],"responses":{}}}}}`},
		{"no operationId", `{"paths":{"/x":{"get":{"responses":{}}}}}`},
	} {
		if _, err := renderDocs([]byte(tc.doc)); err == nil {
			t.Errorf("%s: rendered without error", tc.name)
		}
	}
}
