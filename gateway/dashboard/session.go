package dashboard

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/alexedwards/scs/v2"

	"github.com/adreswijzer/adreswijzer/gateway/accounts"
)

// Session keys.
const (
	keyAccount = "account" // the signed-in account's id
	keySince   = "since"   // when this session signed in (Unix nanoseconds)
	keyPending = "pending" // a code-hosting sign-in under way (JSON)
	keyNext    = "next"    // the dashboard path to return to after signing in
	keyLang    = "lang"    // the language chosen before signing in
)

// newSessions sets up server-side sessions: the cookie holds a random token only; it is
// HttpOnly, SameSite=Lax, limited to the dashboard's paths, and Secure behind TLS.
func newSessions(store scs.Store, secure bool) *scs.SessionManager {
	sm := scs.New()
	sm.Store = store
	sm.Lifetime = 30 * 24 * time.Hour
	sm.IdleTimeout = 7 * 24 * time.Hour
	sm.Cookie.Name = "aw_dashboard"
	sm.Cookie.Path = Prefix
	sm.Cookie.HttpOnly = true
	sm.Cookie.SameSite = http.SameSiteLaxMode
	sm.Cookie.Secure = secure
	sm.Cookie.Persist = true
	return sm
}

// ctxAccount carries the signed-in account to a page.
type ctxAccount struct{}

// signedIn lets a page through only with a live session, and gives it the account: a
// session outlives neither its account nor a "sign out everywhere" made after it began.
func (d *Dashboard) signedIn(page func(http.ResponseWriter, *http.Request, *accounts.Account)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		a, err := d.current(r.Context())
		switch {
		case errors.Is(err, errSignedOut):
			if r.Method == http.MethodGet {
				d.sessions.Put(r.Context(), keyNext, r.URL.RequestURI())
			}
			http.Redirect(w, r, Prefix+"/signin", http.StatusSeeOther)
			return
		case err != nil:
			d.fail(w, r, "read account", err)
			return
		}
		page(w, r.WithContext(withAccount(r.Context(), a)), a)
	}
}

// withAccount gives the pages the account (nil: signed out), for the navigation and the
// language.
func withAccount(ctx context.Context, a *accounts.Account) context.Context {
	return context.WithValue(ctx, ctxAccount{}, a)
}

var errSignedOut = errors.New("not signed in")

// current is the session's account, or errSignedOut.
func (d *Dashboard) current(ctx context.Context) (*accounts.Account, error) {
	id := d.sessions.GetString(ctx, keyAccount)
	if id == "" {
		return nil, errSignedOut
	}
	a, err := d.cfg.Accounts.Get(ctx, id)
	if errors.Is(err, accounts.ErrNotFound) {
		return nil, d.endSession(ctx)
	}
	if err != nil {
		return nil, err
	}
	since := time.Unix(0, d.sessions.GetInt64(ctx, keySince))
	if !a.SignedOut.IsZero() && since.Before(a.SignedOut) {
		return nil, d.endSession(ctx)
	}
	return a, nil
}

// endSession forgets a session whose account is gone or signed out everywhere.
func (d *Dashboard) endSession(ctx context.Context) error {
	if err := d.sessions.Destroy(ctx); err != nil {
		return err
	}
	return errSignedOut
}

// signIn makes the session the account's, under a new token: a token planted in the
// browser before signing in (session fixation) is worth nothing after it. It returns the
// path to go on to.
func (d *Dashboard) signIn(ctx context.Context, a *accounts.Account) (string, error) {
	next := d.sessions.PopString(ctx, keyNext)
	d.sessions.Remove(ctx, keyPending)
	if err := d.sessions.RenewToken(ctx); err != nil {
		return "", err
	}
	d.sessions.Put(ctx, keyAccount, a.ID)
	d.sessions.Put(ctx, keySince, d.now().UnixNano())
	if !safeNext(next) {
		next = Prefix + "/"
	}
	return next, nil
}

// safeNext accepts only the dashboard's own paths as a place to return to.
func safeNext(p string) bool {
	return len(p) > len(Prefix) && p[:len(Prefix)+1] == Prefix+"/" && (len(p) < 2 || p[1] != '/')
}

func (d *Dashboard) signOut(w http.ResponseWriter, r *http.Request) {
	if err := d.sessions.Destroy(r.Context()); err != nil {
		d.fail(w, r, "sign out", err)
		return
	}
	http.Redirect(w, r, Prefix+"/signin", http.StatusSeeOther)
}

func (d *Dashboard) signOutEverywhere(w http.ResponseWriter, r *http.Request, a *accounts.Account) {
	if err := d.cfg.Accounts.SignOut(r.Context(), a.ID, d.now()); err != nil {
		d.fail(w, r, "sign out everywhere", err)
		return
	}
	d.log.Info("signed out everywhere", "account", a.ID)
	d.signOut(w, r)
}
