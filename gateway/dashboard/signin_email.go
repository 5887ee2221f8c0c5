package dashboard

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strings"

	"github.com/adreswijzer/adreswijzer/gateway"
	"github.com/adreswijzer/adreswijzer/gateway/accounts"
	"github.com/adreswijzer/adreswijzer/gateway/limit"
	"github.com/adreswijzer/adreswijzer/gateway/mail"
)

// signInView is the sign-in page's data.
type signInView struct {
	Email     string
	Error     string
	Providers []Provider
	// Plan and Quota are a new account's, Quota written out.
	Plan, Quota string
}

// signInView is the sign-in page's data, with what was typed and what was wrong with it.
func (d *Dashboard) signInView(r *http.Request, email, problem string) signInView {
	v := signInView{Email: email, Error: problem, Providers: d.cfg.Providers, Plan: d.cfg.DefaultPlan}
	if q := d.planQuota(d.cfg.DefaultPlan); q >= 0 {
		v.Quota = formatNumber(q, d.lang(r))
	} else {
		v.Quota = d.t(r)("plans.unlimited")
	}
	return v
}

func (d *Dashboard) signInPage(w http.ResponseWriter, r *http.Request) {
	if _, err := d.current(r.Context()); err == nil {
		http.Redirect(w, r, Prefix+"/", http.StatusSeeOther)
		return
	}
	d.render(w, r, http.StatusOK, "signin", "signin.title", "signin", d.signInView(r, "", ""))
}

// sendLink mails a one-time sign-in link. The page that follows is the same whether the
// address has an account or not, and the work done is the same too (an account is made
// only when the link is used), so neither the answer nor its timing tells who is a
// customer.
func (d *Dashboard) sendLink(w http.ResponseWriter, r *http.Request) {
	t := d.t(r)
	email, err := accounts.NormaliseEmail(r.PostFormValue("email"))
	if err != nil {
		d.render(w, r, http.StatusUnprocessableEntity, "signin", "signin.title", "signin",
			d.signInView(r, r.PostFormValue("email"), t("signin.bademail")))
		return
	}
	if !d.mayMail(r.Context(), email, gateway.ClientIP(r.Context())) {
		d.say(w, r, http.StatusTooManyRequests, "limit.title", "limit.body", nil)
		return
	}
	token, l, err := accounts.NewLink(email, d.now())
	if err == nil {
		err = d.cfg.Accounts.AddLink(r.Context(), l)
	}
	if err != nil {
		d.fail(w, r, "store sign-in link", err)
		return
	}
	if err := d.cfg.Mail.Send(r.Context(), d.linkMail(r, email, token)); err != nil {
		d.log.Error("dashboard: sign-in mail not sent", "error", err)
		d.say(w, r, http.StatusServiceUnavailable, "mailfail.title", "mailfail.body", nil)
		return
	}
	d.log.Info("sign-in link sent")
	d.render(w, r, http.StatusOK, "mailsent", "sent.title", "signin", nil)
}

// mayMail applies the limits on sign-in mails: per address (hashed, so that no address is
// kept in the limiter's keys) and per client.
func (d *Dashboard) mayMail(ctx context.Context, email, client string) bool {
	sum := sha256.Sum256([]byte(email))
	for _, c := range []struct {
		key  string
		rule limit.Rule
	}{
		{"signin:mail:" + hex.EncodeToString(sum[:12]), MailsPerAddress},
		{"signin:client:" + client, MailsPerClient},
	} {
		res, err := d.cfg.Limiter.Allow(ctx, c.key, c.rule)
		if err != nil || !res.Allowed {
			return false
		}
	}
	return true
}

// linkMail is the sign-in mail, in the language of the page it was asked for on.
func (d *Dashboard) linkMail(r *http.Request, email, token string) mail.Message {
	t := d.t(r)
	link := d.url(Prefix + "/signin/link?token=" + url.QueryEscape(token))
	text := fmt.Sprintf("%s\n\n%s\n\n%s\n%s\n", t("mail.intro"), link, t("mail.expires"), t("mail.ignore"))
	esc := template.HTMLEscapeString
	html := fmt.Sprintf(`<p>%s</p><p><a href="%s">%s</a></p><p>%s<br>%s</p>`,
		esc(t("mail.intro")), esc(link), esc(t("link.button")), esc(t("mail.expires")), esc(t("mail.ignore")))
	return mail.Message{To: email, Subject: t("mail.subject"), Text: text, HTML: html}
}

// linkPage asks for a press of a button before the link is spent: mail scanners open
// links to check them, and must not use up a person's sign-in. The page is kept out of
// Referer headers, which would carry the token.
func (d *Dashboard) linkPage(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Referrer-Policy", "no-referrer")
	token := r.URL.Query().Get("token")
	if token == "" || len(token) > 100 {
		d.say(w, r, http.StatusBadRequest, "link.title", "link.invalid", &link{Prefix + "/signin", d.t(r)("provider.back")})
		return
	}
	d.render(w, r, http.StatusOK, "link", "link.title", "signin", struct{ Token string }{token})
}

// useLink spends the link and signs in, making the account on the first sign-in.
func (d *Dashboard) useLink(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Referrer-Policy", "no-referrer")
	email, err := d.cfg.Accounts.UseLink(r.Context(), accounts.HashToken(strings.TrimSpace(r.PostFormValue("token"))), d.now())
	switch {
	case errors.Is(err, accounts.ErrLinkInvalid):
		d.say(w, r, http.StatusBadRequest, "link.title", "link.invalid", &link{Prefix + "/signin", d.t(r)("provider.back")})
		return
	case err != nil:
		d.fail(w, r, "use sign-in link", err)
		return
	}
	a, created, err := accounts.Open(r.Context(), d.cfg.Accounts, email, d.cfg.DefaultPlan, d.lang(r), d.now())
	if err != nil {
		d.fail(w, r, "open account", err)
		return
	}
	d.finishSignIn(w, r, a, created, "email")
}

// finishSignIn makes the session the account's and goes on.
func (d *Dashboard) finishSignIn(w http.ResponseWriter, r *http.Request, a *accounts.Account, created bool, method string) {
	next, err := d.signIn(r.Context(), a)
	if err != nil {
		d.fail(w, r, "start session", err)
		return
	}
	if created {
		d.log.Info("account created", "account", a.ID, "method", method)
	}
	d.log.Info("signed in", "account", a.ID, "method", method)
	http.Redirect(w, r, next, http.StatusSeeOther)
}
