package dashboard

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/adreswijzer/adreswijzer/gateway/accounts"
	"github.com/adreswijzer/adreswijzer/gateway/keys"
)

// MaxActiveKeys bounds an account's keys: enough for every shop and system a customer
// runs, and a stop for a script gone wrong.
const MaxActiveKeys = 50

// keyRow is a key as the list shows it.
type keyRow struct {
	*keys.Key
	LastUsed time.Time
}

// keyForm is the form of a new key, as typed, with what is wrong with it.
type keyForm struct {
	Kind    keys.Kind
	Name    string
	Origins string
	Errors  []fieldError
}

type fieldError struct{ Field, Text string }

// Invalid reports whether field has an error, for aria-invalid.
func (f keyForm) Invalid(field string) bool {
	return slices.ContainsFunc(f.Errors, func(e fieldError) bool { return e.Field == field })
}

type keysData struct {
	Keys  []keyRow
	Kinds []keys.Kind
	Form  keyForm
}

func (d *Dashboard) keysPage(w http.ResponseWriter, r *http.Request, a *accounts.Account) {
	d.showKeys(w, r, a, http.StatusOK, keyForm{Kind: keys.Test})
}

// showKeys renders the list and the form; status is 422 when the form comes back with errors.
func (d *Dashboard) showKeys(w http.ResponseWriter, r *http.Request, a *accounts.Account, status int, form keyForm) {
	list, err := d.cfg.Keys.ListAccount(r.Context(), a.ID)
	if err != nil {
		d.fail(w, r, "list keys", err)
		return
	}
	used, err := d.cfg.Usage.LastUsed(r.Context(), a.ID)
	if err != nil {
		d.fail(w, r, "read last use of keys", err)
		return
	}
	rows := make([]keyRow, 0, len(list))
	for i := len(list) - 1; i >= 0; i-- { // newest first
		rows = append(rows, keyRow{Key: list[i], LastUsed: used[list[i].ID]})
	}
	d.render(w, r, status, "keys", "keys.title", "keys", keysData{Keys: rows, Kinds: keys.Kinds, Form: form})
}

// createKey makes a key of the signed-in account, with the account's plan, and shows its
// secret once: in this answer, which is not cached, and nowhere else.
func (d *Dashboard) createKey(w http.ResponseWriter, r *http.Request, a *accounts.Account) {
	t := d.t(r)
	form := keyForm{Name: strings.TrimSpace(r.PostFormValue("name")), Origins: r.PostFormValue("origins")}
	kind, ok := keys.ParseKind(r.PostFormValue("kind"))
	form.Kind = kind
	if !ok {
		form.Errors = append(form.Errors, fieldError{"kind-" + string(keys.Test), t("err.kind")})
	}
	if len(form.Name) > 100 {
		form.Errors = append(form.Errors, fieldError{"name", t("err.name")})
	}
	origins := strings.Fields(form.Origins)
	if ok {
		if e := originError(kind, origins, t); e != "" {
			form.Errors = append(form.Errors, fieldError{"origins", e})
		}
	}
	if len(form.Errors) > 0 {
		d.showKeys(w, r, a, http.StatusUnprocessableEntity, form)
		return
	}
	list, err := d.cfg.Keys.ListAccount(r.Context(), a.ID)
	if err != nil {
		d.fail(w, r, "list keys", err)
		return
	}
	if countActive(list) >= MaxActiveKeys {
		form.Errors = append(form.Errors, fieldError{"name", t("keys.toomany")})
		d.showKeys(w, r, a, http.StatusUnprocessableEntity, form)
		return
	}
	k, secret, err := keys.New(keys.Options{Kind: kind, Account: a.ID, Plan: a.Plan, Name: form.Name, Origins: origins}, d.now())
	if err == nil {
		err = d.cfg.Keys.Create(r.Context(), k)
	}
	if err != nil {
		d.fail(w, r, "create key", err)
		return
	}
	d.log.Info("key created", "account", a.ID, "key", k.ID, "kind", string(k.Kind))
	d.render(w, r, http.StatusCreated, "keycreated", "created.title", "keys", struct {
		Key         *keys.Key
		Secret      string
		Publishable bool
		API, Widget string
	}{k, secret, kind.Publishable(), d.base.String(), d.base.String() + "/widget/"})
}

func countActive(list []*keys.Key) int {
	n := 0
	for _, k := range list {
		if k.Active() {
			n++
		}
	}
	return n
}

// originError says what is wrong with a key's origins, in the page's language.
func originError(kind keys.Kind, origins []string, t func(string) string) string {
	switch {
	case kind.Publishable() && len(origins) == 0:
		return t("err.origins.needed")
	case !kind.Publishable() && len(origins) > 0:
		return t("err.origins.secret")
	}
	for _, o := range origins {
		if _, err := keys.NormaliseOrigin(o); err != nil {
			return fmt.Sprintf(t("err.origins.bad"), o)
		}
	}
	return ""
}

// revokeKey revokes a key of the signed-in account. A key of another account is answered
// as one that does not exist: ids cannot be probed.
func (d *Dashboard) revokeKey(w http.ResponseWriter, r *http.Request, a *accounts.Account) {
	id := r.PathValue("id")
	list, err := d.cfg.Keys.ListAccount(r.Context(), a.ID)
	if err != nil {
		d.fail(w, r, "list keys", err)
		return
	}
	if !slices.ContainsFunc(list, func(k *keys.Key) bool { return k.ID == id }) {
		d.say(w, r, http.StatusNotFound, "keys.title", "keys.notfound", &link{Prefix + "/keys", d.t(r)("created.back")})
		return
	}
	err = d.cfg.Keys.Revoke(r.Context(), id, d.now())
	if err != nil && !errors.Is(err, keys.ErrNotFound) {
		d.fail(w, r, "revoke key", err)
		return
	}
	d.log.Info("key revoked", "account", a.ID, "key", id)
	http.Redirect(w, r, Prefix+"/keys", http.StatusSeeOther)
}
