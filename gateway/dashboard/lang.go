package dashboard

import (
	"net/http"

	"golang.org/x/text/language"

	"github.com/adreswijzer/adreswijzer/gateway/accounts"
)

var langMatcher = language.NewMatcher([]language.Tag{language.Dutch, language.English})

// lang is the language of a page: the account's, else the one chosen in this session,
// else the browser's first that the dashboard speaks, else Dutch.
func (d *Dashboard) lang(r *http.Request) string {
	if a, _ := r.Context().Value(ctxAccount{}).(*accounts.Account); a != nil && accounts.ValidLanguage(a.Language) {
		return a.Language
	}
	if l := d.sessions.GetString(r.Context(), keyLang); accounts.ValidLanguage(l) {
		return l
	}
	tags, _, err := language.ParseAcceptLanguage(r.Header.Get("Accept-Language"))
	if err == nil && len(tags) > 0 {
		if _, i, conf := langMatcher.Match(tags...); conf != language.No {
			return languages[i]
		}
	}
	return "nl"
}

func langIndex(lang string) int {
	if lang == "en" {
		return 1
	}
	return 0
}

// language keeps the chosen language in the session, and in the account when signed in,
// then goes back to the page it was chosen on.
func (d *Dashboard) language(w http.ResponseWriter, r *http.Request) {
	l := r.PostFormValue("lang")
	if !accounts.ValidLanguage(l) {
		d.notFound(w, r)
		return
	}
	d.sessions.Put(r.Context(), keyLang, l)
	if a, err := d.current(r.Context()); err == nil {
		if err := d.cfg.Accounts.SetLanguage(r.Context(), a.ID, l); err != nil {
			d.fail(w, r, "set language", err)
			return
		}
	}
	back := r.PostFormValue("back")
	if !safeNext(back) {
		back = Prefix + "/"
	}
	http.Redirect(w, r, back, http.StatusSeeOther)
}
