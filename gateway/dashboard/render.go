package dashboard

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/adreswijzer/adreswijzer/gateway/accounts"
)

//go:embed templates/*.html
var templateFiles embed.FS

//go:embed static
var staticFiles embed.FS

// languages the dashboard speaks, in the order of messages' pairs.
var languages = [...]string{"nl", "en"}

// pages holds each page's template in each language: the functions that translate and
// format are bound at parse time, so rendering needs no per-request set-up.
type pages struct {
	byLang map[string]map[string]*template.Template
}

// pageNames are the templates that render a whole page in the layout.
var pageNames = []string{"signin", "mailsent", "link", "message", "overview", "keys", "keycreated", "usage", "plans", "account", "consent", "agents"}

func parsePages() (*pages, error) {
	p := &pages{byLang: map[string]map[string]*template.Template{}}
	for i, lang := range languages {
		funcs := funcsFor(i, lang)
		p.byLang[lang] = map[string]*template.Template{}
		for _, name := range pageNames {
			files := []string{"templates/layout.html", "templates/partials.html", "templates/" + name + ".html"}
			t, err := template.New(name).Funcs(funcs).ParseFS(templateFiles, files...)
			if err != nil {
				return nil, fmt.Errorf("dashboard template %s: %w", name, err)
			}
			p.byLang[lang][name] = t
		}
	}
	return p, nil
}

// text is a message in the language at index i; a missing key shows as itself, and the
// messages test makes sure none is missing.
func text(i int, key string) string {
	if m, ok := messages[key]; ok {
		return m[i]
	}
	return key
}

func funcsFor(i int, lang string) template.FuncMap {
	return template.FuncMap{
		"t":         func(key string) string { return text(i, key) },
		"prefix":    func() string { return Prefix },
		"num":       func(n int64) string { return formatNumber(n, lang) },
		"date":      func(t any) string { return formatDate(t, lang, false) },
		"datetime":  func(t any) string { return formatDate(t, lang, true) },
		"monthname": func(m string) string { return monthName(m, lang) },
	}
}

// formatNumber groups thousands as each language writes them: 2.500 and 2,500.
func formatNumber(n int64, lang string) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	sep := ","
	if lang == "nl" {
		sep = "."
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteString(sep)
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

var monthNames = map[string][12]string{
	"nl": {"januari", "februari", "maart", "april", "mei", "juni", "juli", "augustus", "september", "oktober", "november", "december"},
	"en": {"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"},
}

// formatDate writes a time (or *time.Time) as "28 november 2026" or "28 November 2026",
// with the time of day (UTC) when asked.
func formatDate(v any, lang string, clock bool) string {
	var t time.Time
	switch x := v.(type) {
	case time.Time:
		t = x
	case *time.Time:
		if x == nil {
			return ""
		}
		t = *x
	default:
		return ""
	}
	t = t.UTC()
	s := fmt.Sprintf("%d %s %d", t.Day(), monthNames[lang][t.Month()-1], t.Year())
	if clock {
		s += t.Format(" 15:04") + " UTC"
	}
	return s
}

// monthName writes "2026-11" as "november 2026".
func monthName(m, lang string) string {
	t, err := time.Parse("2006-01", m)
	if err != nil {
		return m
	}
	return monthNames[lang][t.Month()-1] + " " + strconv.Itoa(t.Year())
}

// view is what every page gets.
type view struct {
	Lang    string
	Title   string
	Nav     string
	Path    string
	Account *accounts.Account
	// Agents: the dashboard lists agents signed in with OAuth (an authorization server is
	// configured).
	Agents bool
	Data   any
}

// render writes a page with its status. The page is rendered whole before anything is
// sent, so that a template error is a clean 500 and not half a page.
func (d *Dashboard) render(w http.ResponseWriter, r *http.Request, status int, name, titleKey, nav string, data any) {
	lang := d.lang(r)
	a, _ := r.Context().Value(ctxAccount{}).(*accounts.Account)
	v := view{Lang: lang, Title: text(langIndex(lang), titleKey), Nav: nav, Path: r.URL.Path, Account: a, Agents: d.cfg.OAuth != nil, Data: data}
	var buf bytes.Buffer
	if err := d.pages.byLang[lang][name].ExecuteTemplate(&buf, "layout", v); err != nil {
		d.log.Error("dashboard page not rendered", "page", name, "error", err)
		http.Error(w, "Internal Server Error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// message is the data of the message page.
type message struct {
	Heading, Body string
	Alert         bool
	Next          *link
}

type link struct{ Href, Label string }

// say renders the message page.
func (d *Dashboard) say(w http.ResponseWriter, r *http.Request, status int, heading, body string, next *link) {
	t := d.t(r)
	d.render(w, r, status, "message", heading, "", message{Heading: t(heading), Body: t(body), Alert: status >= 400, Next: next})
}

// t returns the translator of the request's language.
func (d *Dashboard) t(r *http.Request) func(string) string {
	i := langIndex(d.lang(r))
	return func(key string) string { return text(i, key) }
}

// fail answers a fault of the dashboard's own (a store that failed) with a page that
// says so, and logs what failed, never with what was typed.
func (d *Dashboard) fail(w http.ResponseWriter, r *http.Request, what string, err error) {
	d.log.Error("dashboard: "+what, "error", err)
	d.say(w, r, http.StatusInternalServerError, "error.title", "error.body", &link{Prefix + "/", d.t(r)("home")})
}

func (d *Dashboard) notFound(w http.ResponseWriter, r *http.Request) {
	d.say(w, r, http.StatusNotFound, "notfound.title", "notfound.body", &link{Prefix + "/", d.t(r)("home")})
}

// crossOrigin answers a form posted from another site.
func (d *Dashboard) crossOrigin(w http.ResponseWriter, r *http.Request) {
	d.say(w, r, http.StatusForbidden, "csrf.title", "csrf.body", &link{Prefix + "/", d.t(r)("home")})
}

// serveStatic serves the stylesheet and other files the pages use.
func serveStatic(w http.ResponseWriter, r *http.Request) {
	sub, _ := fs.Sub(staticFiles, "static")
	name := r.PathValue("file")
	b, err := fs.ReadFile(sub, name)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	h := w.Header()
	h.Set("Cache-Control", "public, max-age=3600")
	switch {
	case strings.HasSuffix(name, ".css"):
		h.Set("Content-Type", "text/css; charset=utf-8")
	case strings.HasSuffix(name, ".svg"):
		h.Set("Content-Type", "image/svg+xml")
	}
	_, _ = w.Write(b)
}
