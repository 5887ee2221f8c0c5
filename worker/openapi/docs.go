package openapi

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"sort"
	"strconv"
	"strings"
)

//go:embed docs.tmpl
var docsTemplate string

var pageTemplate = template.Must(template.New("docs").Parse(docsTemplate))

// The view the template renders. Everything that needs the document's references resolved
// or its JSON re-indented is computed here, so the template stays a plain layout and a
// broken reference fails rendering (and the tests) instead of showing an empty cell.
type page struct {
	Title, Version, Summary string
	Description             template.HTML
	Servers                 []server
	Security                []security
	Tags                    []tagView
	Schemas                 []schemaView
	Responses               []sharedResponse
	Headers                 []headerView
}

type server struct {
	URL         string
	Description template.HTML
}

type security struct {
	Name, Kind  string
	Description template.HTML
}

type tagView struct {
	ID, Name, Description string
	Ops                   []opView
}

type opView struct {
	ID, Method, Path, Summary string
	Description               template.HTML
	Auth                      template.HTML
	Params                    []member
	Body                      *bodyView
	Responses                 []responseView
	Examples                  []exampleView
}

type bodyView struct {
	Required    bool
	Description template.HTML
	Media       []mediaView
}

type mediaView struct {
	ContentType string
	Type        template.HTML
}

type responseView struct {
	Status      string
	Description template.HTML
	Media       []mediaView
	Headers     []template.HTML
}

type sharedResponse struct {
	ID, Name    string
	Description template.HTML
	Media       []mediaView
	Headers     []template.HTML
	Examples    []exampleView
}

type exampleView struct {
	Caption string
	JSON    string
}

// member is one row of a members or parameters table.
type member struct {
	Name, In    string
	Type        template.HTML
	Required    bool
	Constraints string
	Description template.HTML
}

type schemaView struct {
	ID, Name     string
	Description  template.HTML
	Type         template.HTML
	Constraints  string
	Members      []member
	Closed, Open bool
	Values       []valueView
	HasSeverity  bool
	HasStatus    bool
	Restrictions []template.HTML
	Examples     []string
}

type valueView struct {
	Value, Severity, Status string
	Meaning                 template.HTML
}

type headerView struct {
	ID, Name    string
	Type        template.HTML
	Constraints string
	Description template.HTML
}

func renderDocs(data []byte) ([]byte, error) {
	var d document
	if err := json.Unmarshal(data, &d); err != nil {
		return nil, fmt.Errorf("decode openapi.json: %w", err)
	}
	p, err := d.view()
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := pageTemplate.Execute(&out, p); err != nil {
		return nil, fmt.Errorf("execute template: %w", err)
	}
	return out.Bytes(), nil
}

func (d *document) view() (*page, error) {
	p := &page{
		Title:       d.Info.Title,
		Version:     d.Info.Version,
		Summary:     d.Info.Summary,
		Description: markdown(d.Info.Description, true),
	}
	for _, s := range d.Servers {
		p.Servers = append(p.Servers, server{URL: s.URL, Description: markdown(s.Description, false)})
	}
	for _, e := range d.Components.SecuritySchemes {
		p.Security = append(p.Security, security{Name: e.Key, Kind: e.Value.Type + " " + e.Value.Scheme, Description: markdown(e.Value.Description, false)})
	}
	headerNames := d.headerNames()
	tagIndex := map[string]int{}
	for _, t := range d.Tags {
		tagIndex[t.Name] = len(p.Tags)
		p.Tags = append(p.Tags, tagView{ID: "tag-" + anchor(t.Name), Name: t.Name, Description: t.Description})
	}
	for _, pe := range d.Paths {
		for _, m := range pe.Value.operations() {
			op, err := d.opView(pe.Key, m.method, m.op, headerNames)
			if err != nil {
				return nil, fmt.Errorf("%s %s: %w", m.method, pe.Key, err)
			}
			name := "Other"
			if len(m.op.Tags) > 0 {
				name = m.op.Tags[0]
			}
			i, ok := tagIndex[name]
			if !ok {
				i = len(p.Tags)
				tagIndex[name] = i
				p.Tags = append(p.Tags, tagView{ID: "tag-" + anchor(name), Name: name})
			}
			p.Tags[i].Ops = append(p.Tags[i].Ops, op)
		}
	}
	for _, e := range d.Components.Schemas {
		p.Schemas = append(p.Schemas, schemaViewOf(e.Key, e.Value))
	}
	for _, e := range d.Components.Responses {
		r := sharedResponse{ID: "response-" + e.Key, Name: e.Key, Description: markdown(e.Value.Description, false)}
		var err error
		if r.Media, r.Examples, err = mediaViews(e.Value.Content, e.Key); err != nil {
			return nil, err
		}
		if r.Headers, err = d.headerLinks(e.Value.Headers, headerNames); err != nil {
			return nil, err
		}
		p.Responses = append(p.Responses, r)
	}
	for _, e := range d.Components.Headers {
		h := e.Value
		name := headerNames[e.Key]
		if name == "" {
			name = e.Key
		}
		p.Headers = append(p.Headers, headerView{ID: "header-" + e.Key, Name: name, Type: typeHTML(h.Schema),
			Constraints: constraints(h.Schema, h.Required), Description: markdown(h.Description, false)})
	}
	return p, nil
}

type methodOp struct {
	method string
	op     *operation
}

func (pi *pathItem) operations() []methodOp {
	var out []methodOp
	for _, m := range []methodOp{{"GET", pi.Get}, {"POST", pi.Post}, {"PUT", pi.Put}, {"PATCH", pi.Patch}, {"DELETE", pi.Delete}} {
		if m.op != nil {
			out = append(out, m)
		}
	}
	return out
}

// headerNames maps each component header to the HTTP name it is sent under, so the page can
// title "RetryAfter" as Retry-After.
func (d *document) headerNames() map[string]string {
	names := map[string]string{}
	note := func(hs ordered[*header]) {
		for _, h := range hs {
			if h.Value.Ref != "" && names[refName(h.Value.Ref)] == "" {
				names[refName(h.Value.Ref)] = h.Key
			}
		}
	}
	for _, r := range d.Components.Responses {
		note(r.Value.Headers)
	}
	for _, pe := range d.Paths {
		for _, m := range pe.Value.operations() {
			for _, r := range m.op.Responses {
				note(r.Value.Headers)
			}
		}
	}
	return names
}

func (d *document) headerLinks(hs ordered[*header], names map[string]string) ([]template.HTML, error) {
	var out []template.HTML
	for _, e := range hs {
		if e.Value.Ref == "" {
			out = append(out, template.HTML("<code>"+esc(e.Key)+"</code>"))
			continue
		}
		if _, err := d.resolveHeader(e.Value); err != nil {
			return nil, err
		}
		out = append(out, template.HTML(`<a href="#header-`+esc(refName(e.Value.Ref))+`"><code>`+esc(e.Key)+`</code></a>`))
	}
	return out, nil
}

func (d *document) opView(path, method string, op *operation, headerNames map[string]string) (opView, error) {
	v := opView{
		ID:          "op-" + anchor(op.OperationID),
		Method:      method,
		Path:        path,
		Summary:     op.Summary,
		Description: markdown(op.Description, false),
		Auth:        d.auth(op),
	}
	if op.OperationID == "" {
		return v, fmt.Errorf("no operationId")
	}
	for _, pr := range op.Parameters {
		prm, err := d.resolveParameter(pr)
		if err != nil {
			return v, err
		}
		v.Params = append(v.Params, member{Name: prm.Name, In: prm.In, Type: typeHTML(prm.Schema), Required: prm.Required,
			Constraints: constraints(prm.Schema, false), Description: markdown(prm.Description, false)})
	}
	if rb := op.RequestBody; rb != nil {
		media, examples, err := mediaViews(rb.Content, "Request")
		if err != nil {
			return v, err
		}
		v.Body = &bodyView{Required: rb.Required, Description: markdown(rb.Description, false), Media: media}
		v.Examples = append(v.Examples, examples...)
	}
	for _, e := range op.Responses {
		r, err := d.resolveResponse(e.Value)
		if err != nil {
			return v, err
		}
		rv := responseView{Status: e.Key, Description: markdown(r.Description, false)}
		if e.Value.Ref != "" {
			rv.Description += template.HTML(` <a href="#response-` + esc(refName(e.Value.Ref)) + `">Details and examples</a>.`)
		}
		media, examples, err := mediaViews(r.Content, e.Key)
		if err != nil {
			return v, err
		}
		rv.Media = media
		if e.Value.Ref == "" { // shared responses show their examples once, in their own section
			v.Examples = append(v.Examples, examples...)
		}
		if rv.Headers, err = d.headerLinks(r.Headers, headerNames); err != nil {
			return v, err
		}
		v.Responses = append(v.Responses, rv)
	}
	return v, nil
}

func (d *document) auth(op *operation) template.HTML {
	reqs := d.Security
	if op.Security != nil {
		reqs = *op.Security
	}
	if len(reqs) == 0 {
		return "None: public."
	}
	var parts []string
	for _, r := range reqs {
		names := make([]string, 0, len(r))
		for name := range r {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			s := `<a href="#security-` + esc(name) + `">` + esc(name) + `</a> credential`
			if scopes := r[name]; len(scopes) > 0 {
				s += " with scope <code>" + esc(strings.Join(scopes, " ")) + "</code>"
			}
			parts = append(parts, s)
		}
	}
	return template.HTML(strings.Join(parts, ", or ") + ".")
}

func mediaViews(content ordered[*mediaType], caption string) ([]mediaView, []exampleView, error) {
	var media []mediaView
	var examples []exampleView
	for _, c := range content {
		media = append(media, mediaView{ContentType: c.Key, Type: typeHTML(c.Value.Schema)})
		for _, ex := range c.Value.Examples {
			j, err := indentJSON(ex.Value.Value)
			if err != nil {
				return nil, nil, fmt.Errorf("example %s: %w", ex.Key, err)
			}
			label := caption
			if _, err := strconv.Atoi(caption); err == nil {
				label = "Answer " + caption
			}
			examples = append(examples, exampleView{Caption: label + ": " + ex.Value.Summary, JSON: j})
		}
	}
	return media, examples, nil
}

func indentJSON(raw json.RawMessage) (string, error) {
	var compact, out bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		return "", err
	}
	if err := json.Indent(&out, compact.Bytes(), "", "  "); err != nil {
		return "", err
	}
	return out.String(), nil
}

func schemaViewOf(name string, s *schema) schemaView {
	v := schemaView{ID: "schema-" + name, Name: name, Description: markdown(s.Description, false)}
	for _, m := range s.AllOf {
		if m.Ref != "" {
			v.Type = "Based on " + typeHTML(m)
			continue
		}
		v.Restrictions = append(v.Restrictions, rules("", m, false)...)
		v.Restrictions = append(v.Restrictions, conditional("", m)...)
	}
	v.Restrictions = append(v.Restrictions, conditional("", s)...)
	switch {
	case len(s.Properties) > 0:
		v.Type = "object"
		v.Members = members(s)
		v.Closed = string(s.AdditionalProperties) == "false"
		v.Open = len(s.AdditionalProperties) == 0
	case len(s.Enum) > 0 && len(s.EnumDescriptions) > 0:
		v.Type = typeHTML(s)
		v.HasSeverity = len(s.Severity) > 0
		v.HasStatus = len(s.Status) > 0
		for _, raw := range s.Enum {
			val := enumText(raw)
			vv := valueView{Value: val, Severity: s.Severity[val], Meaning: markdown(s.EnumDescriptions[val], false)}
			if st, ok := s.Status[val]; ok {
				vv.Status = strconv.Itoa(st)
			}
			v.Values = append(v.Values, vv)
		}
	case len(s.AllOf) == 0:
		v.Type = typeHTML(s)
		v.Constraints = constraints(s, false)
	}
	for _, ex := range s.Examples {
		v.Examples = append(v.Examples, string(ex))
	}
	return v
}

func members(s *schema) []member {
	var out []member
	for _, e := range s.Properties {
		p := e.Value
		m := member{Name: e.Key, Type: typeHTML(p), Constraints: constraints(p, false), Description: markdown(p.Description, false)}
		for _, r := range s.Required {
			if r == e.Key {
				m.Required = true
			}
		}
		if len(p.EnumDescriptions) > 0 {
			var parts []string
			for _, raw := range p.Enum {
				val := enumText(raw)
				parts = append(parts, "<code>"+esc(val)+"</code>: "+string(inline(p.EnumDescriptions[val])))
			}
			m.Description += template.HTML(" " + strings.Join(parts, " "))
		}
		out = append(out, m)
	}
	return out
}

// rules describes the constraints an allOf member or an if/then branch adds, as sentences.
// cond marks an if branch, whose "required" only guards the condition and is not a rule.
func rules(prefix string, s *schema, cond bool) []template.HTML {
	var out []template.HTML
	for _, e := range s.Properties {
		path := "<code>" + esc(prefix+e.Key) + "</code>"
		p := e.Value
		switch {
		case len(p.Const) > 0:
			out = append(out, template.HTML(path+" is <code>"+esc(enumText(p.Const))+"</code>"))
		case len(p.Enum) == 1:
			out = append(out, template.HTML(path+" is "+enumList(p.Enum)))
		case len(p.Enum) > 1:
			out = append(out, template.HTML(path+" is one of "+enumList(p.Enum)))
		case p.Ref != "" || len(p.Type) > 0:
			out = append(out, template.HTML(path+" is "+string(typeHTML(p))))
		}
		out = append(out, rules(prefix+e.Key+".", p, cond)...)
		out = append(out, conditional(prefix+e.Key+".", p)...)
	}
	if !cond {
		for _, r := range s.Required {
			out = append(out, template.HTML("<code>"+esc(prefix+r)+"</code> is required"))
		}
	}
	return out
}

func conditional(prefix string, s *schema) []template.HTML {
	if s.If == nil {
		return nil
	}
	line := "When " + joinHTML(rules(prefix, s.If, true), " and ") + ": " + joinHTML(rules(prefix, s.Then, false), "; ")
	if s.Else != nil {
		line += "; otherwise " + joinHTML(rules(prefix, s.Else, false), "; ")
	}
	return []template.HTML{template.HTML(line + ".")}
}

func joinHTML(parts []template.HTML, sep string) string {
	s := make([]string, len(parts))
	for i, p := range parts {
		s[i] = string(p)
	}
	return strings.Join(s, sep)
}

// typeHTML names a schema's type for a table cell, linking named schemas.
func typeHTML(s *schema) template.HTML {
	if s == nil {
		return "any"
	}
	if s.Ref != "" {
		n := refName(s.Ref)
		return template.HTML(`<a href="#schema-` + esc(n) + `">` + esc(n) + `</a>`)
	}
	alt := func(list []*schema) template.HTML {
		parts := make([]template.HTML, len(list))
		for i, x := range list {
			parts[i] = typeHTML(x)
		}
		return template.HTML(joinHTML(parts, " or "))
	}
	switch {
	case len(s.AnyOf) > 0:
		return alt(s.AnyOf)
	case len(s.OneOf) > 0:
		return alt(s.OneOf)
	case len(s.Const) > 0:
		return template.HTML("<code>" + esc(string(s.Const)) + "</code>")
	}
	var parts []string
	for _, t := range s.Type {
		if t == "array" {
			parts = append(parts, "array of "+string(typeHTML(s.Items)))
			continue
		}
		parts = append(parts, esc(t))
	}
	switch {
	case len(parts) > 0:
		return template.HTML(strings.Join(parts, " or "))
	case len(s.Properties) > 0:
		return "object"
	case len(s.AllOf) > 0:
		return alt(s.AllOf[:1])
	}
	return "any"
}

// constraints summarises a schema's limits in words for a table cell.
func constraints(s *schema, required bool) string {
	if s == nil {
		return ""
	}
	var c []string
	if required {
		c = append(c, "always sent")
	}
	if len(s.Enum) > 0 {
		vals := make([]string, len(s.Enum))
		for i, raw := range s.Enum {
			vals[i] = enumText(raw)
		}
		c = append(c, "one of "+strings.Join(vals, ", "))
	}
	switch {
	case s.MinLength != nil && s.MaxLength != nil && *s.MinLength == *s.MaxLength:
		c = append(c, fmt.Sprintf("exactly %d characters", *s.MinLength))
	case s.MinLength != nil && s.MaxLength != nil:
		c = append(c, fmt.Sprintf("%d to %d characters", *s.MinLength, *s.MaxLength))
	case s.MinLength != nil:
		c = append(c, fmt.Sprintf("at least %d characters", *s.MinLength))
	case s.MaxLength != nil:
		c = append(c, fmt.Sprintf("at most %d characters", *s.MaxLength))
	}
	if s.Pattern != "" {
		c = append(c, "pattern "+s.Pattern)
	}
	if s.Format != "" {
		c = append(c, "format "+s.Format)
	}
	if s.Minimum != nil {
		c = append(c, "at least "+strconv.FormatFloat(*s.Minimum, 'f', -1, 64))
	}
	if s.MinItems != nil {
		c = append(c, fmt.Sprintf("at least %d items", *s.MinItems))
	}
	if s.MaxItems != nil {
		c = append(c, fmt.Sprintf("at most %d items", *s.MaxItems))
	}
	if s.UniqueItems {
		c = append(c, "no duplicates")
	}
	if s.Items != nil && len(s.Items.Enum) > 0 {
		c = append(c, "items "+constraints(s.Items, false))
	}
	if s.Items != nil && len(s.Items.Const) > 0 {
		c = append(c, "every item "+enumText(s.Items.Const))
	}
	if s.Contains != nil && len(s.Contains.Const) > 0 {
		c = append(c, "contains "+enumText(s.Contains.Const))
	}
	if len(s.Default) > 0 {
		c = append(c, "default "+string(s.Default))
	}
	return strings.Join(c, "; ")
}

// enumText shows a JSON value as a reader would type it: strings without quotes.
func enumText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s *string
	if json.Unmarshal(raw, &s) == nil && s != nil {
		return *s
	}
	return string(raw)
}

func enumList(raw []json.RawMessage) string {
	parts := make([]string, len(raw))
	for i, r := range raw {
		parts[i] = "<code>" + esc(enumText(r)) + "</code>"
	}
	return strings.Join(parts, ", ")
}

func esc(s string) string { return template.HTMLEscapeString(s) }

// anchor makes a fragment identifier from a name.
func anchor(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	return b.String()
}

// markdown renders the small part of CommonMark the document's descriptions use: paragraphs,
// "## " headings (in the overview only), "- " lists, `code` and **strong**. A full Markdown
// renderer would be a dependency for four constructs.
func markdown(text string, headings bool) template.HTML {
	var b strings.Builder
	for _, block := range strings.Split(strings.TrimSpace(text), "\n\n") {
		block = strings.TrimSpace(block)
		if block == "" {
			continue
		}
		lines := strings.Split(block, "\n")
		switch {
		case headings && strings.HasPrefix(block, "## "):
			title := strings.TrimPrefix(lines[0], "## ")
			b.WriteString(`<h3 id="overview-` + anchor(strings.ToLower(title)) + `">` + string(inline(title)) + "</h3>\n")
		case isList(lines):
			b.WriteString("<ul>\n")
			for _, l := range lines {
				b.WriteString("<li>" + string(inline(strings.TrimPrefix(l, "- "))) + "</li>\n")
			}
			b.WriteString("</ul>\n")
		default:
			b.WriteString("<p>" + string(inline(strings.Join(lines, " "))) + "</p>\n")
		}
	}
	return template.HTML(strings.TrimSuffix(b.String(), "\n"))
}

func isList(lines []string) bool {
	for _, l := range lines {
		if !strings.HasPrefix(l, "- ") {
			return false
		}
	}
	return true
}

// inline escapes text and then marks up `code` and **strong**; escaping first means the
// markers are the only markup that can appear.
func inline(text string) template.HTML {
	s := esc(text)
	s = pairs(s, "`", "<code>", "</code>")
	s = pairs(s, "**", "<strong>", "</strong>")
	return template.HTML(s)
}

// pairs replaces each matched pair of delimiters; an unmatched one is left as text.
func pairs(s, delim, open, close string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, delim)
		if i < 0 {
			break
		}
		j := strings.Index(s[i+len(delim):], delim)
		if j < 0 {
			break
		}
		b.WriteString(s[:i] + open + s[i+len(delim):i+len(delim)+j] + close)
		s = s[i+len(delim)+j+len(delim):]
	}
	b.WriteString(s)
	return b.String()
}
