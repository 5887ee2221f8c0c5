package codehost

import (
	"errors"
	"net/mail"
	"net/url"
	"strings"
	"testing"
	"time"
)

// FuzzCallback feeds checkCallback any callback query a browser could bring: it must
// return a code only with the state that was sent, and otherwise a typed error whose text
// is one of the fixed ones, holding at most a sanitized error code from the query.
func FuzzCallback(f *testing.F) {
	const state = "ZT3ZQGBFH4VTIWUKO7DQPMKJDA"
	for _, seed := range []string{
		"code=abc&state=" + state,
		"state=" + state + "&error=access_denied&error_description=The+user+has+denied",
		"state=" + state + "&error=temporarily_unavailable",
		"state=" + state + "&error=contact+jan%40example.nl",
		"code=abc&state=wrong",
		"code=abc",
		"state=" + state + "&state=other&code=x",
		"%zz",
	} {
		f.Add(seed)
	}
	p := Pending{Provider: "github", State: state, Expires: time.Now().Add(time.Hour)}
	texts := map[string]bool{
		"github sign-in: state refused: the callback's state is not the one sent":     true,
		"github sign-in: refused at the provider: the person refused access":          true,
		"github sign-in: provider unavailable: authorization failed ()":               true,
		"github sign-in: sign-in refused by the provider: authorization refused ()":   true,
		"github sign-in: sign-in refused by the provider: the callback holds no code": true,
	}
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		code, err := checkCallback("github", p, q)
		if err == nil {
			if q.Get("state") != state || code == "" || code != q.Get("code") || q.Get("error") != "" {
				t.Fatalf("accepted %q", raw)
			}
			return
		}
		var ce *Error
		if !errors.As(err, &ce) {
			t.Fatalf("error %v is not an *Error", err)
		}
		text := strings.Replace(err.Error(), "("+errorCode(q.Get("error"))+")", "()", 1)
		if !texts[text] {
			t.Fatalf("checkCallback(%q): unexpected error text %q", raw, err)
		}
	})
}

// FuzzNormalizeEmail checks that an accepted address is one bare, lower-case address.
func FuzzNormalizeEmail(f *testing.F) {
	for _, seed := range []string{"Jan@Example.NL", "Jan Jansen <jan@example.nl>", " jan@example.nl", "jan@", `"a b"@example.nl`, "jan@example.nl, piet@example.nl"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := normalizeEmail(s)
		if !ok {
			return
		}
		a, err := mail.ParseAddress(got)
		if err != nil || a.Address != got || got != strings.ToLower(got) || !strings.EqualFold(got, strings.TrimSpace(s)) {
			t.Fatalf("normalizeEmail(%q) = %q", s, got)
		}
	})
}
