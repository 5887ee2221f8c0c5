// Package demo is a small shop checkout that uses the address form the way a real shop
// would: its page comes from the shop's own origin, the form's script and its WebAssembly
// core from the gateway under /widget/, and the answers from the gateway's API with a
// publishable key bound to the shop's origin. Submitting the order shows what the shop
// receives. cmd/demoshop serves it; the browser tests of the widget drive it.
//
// The shop keeps nothing: the order page is rendered from the posted form and forgotten, and
// nothing posted is logged.
package demo

import (
	"embed"
	"html/template"
	"net/http"
	"strings"
)

//go:embed index.html receipt.html
var pages embed.FS

var templates = template.Must(template.ParseFS(pages, "index.html", "receipt.html"))

// Config says where the shop finds the address service.
type Config struct {
	// API is the gateway's base URL, e.g. http://127.0.0.1:8080.
	API string
	// Widget is the base URL of the form's files; API + "/widget/" when empty.
	Widget string
	// Key is the publishable key (aw_pk_test_… or aw_pk_live_…) for this shop's origin.
	Key string
	// Country and Lang are the form's starting country (nl, be) and language.
	Country, Lang string
	// Plain leaves the address form out: the page is the shop's plain HTML form, the
	// baseline the bench compares the form's loading with.
	Plain bool
}

// Received lists the order fields the receipt shows, in order: the shop's own and those
// the address form fills (data-fields in index.html).
var Received = []string{
	"name", "email", "country",
	"address1", "address2", "zip", "city",
	"address_country", "address_status", "address_unverified", "address_confirmed",
}

// Handler serves the checkout page on / and the order receipt on POST /order.
func Handler(cfg Config) http.Handler {
	cfg.API = strings.TrimRight(cfg.API, "/")
	if cfg.Widget == "" {
		cfg.Widget = cfg.API + "/widget/"
	}
	if cfg.Country == "" {
		cfg.Country = "nl"
	}
	if cfg.Lang == "" {
		cfg.Lang = "nl"
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		page(w, "index.html", cfg)
	})
	mux.HandleFunc("POST /order", func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil {
			http.Error(w, "the order form could not be read", http.StatusBadRequest)
			return
		}
		type field struct{ Name, Value string }
		var got []field
		for _, name := range Received {
			got = append(got, field{name, r.PostForm.Get(name)})
		}
		page(w, "receipt.html", struct {
			Lang   string
			Fields []field
		}{cfg.Lang, got})
	})
	return mux
}

func page(w http.ResponseWriter, name string, data any) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "strict-origin-when-cross-origin")
	if err := templates.ExecuteTemplate(w, name, data); err != nil {
		http.Error(w, "page failed", http.StatusInternalServerError)
	}
}
