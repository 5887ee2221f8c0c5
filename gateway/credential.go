package gateway

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/adreswijzer/adreswijzer/gateway/apierr"
	"github.com/adreswijzer/adreswijzer/gateway/keys"
	"github.com/adreswijzer/adreswijzer/gateway/platform"
	"github.com/adreswijzer/adreswijzer/internal/query"
)

// urlCredentialParams are query parameters that conventionally carry credentials. A
// request that uses one is refused even when it also has a valid header, because the
// credential has by then been written to every log on the way.
var urlCredentialParams = map[string]bool{
	"key": true, "api_key": true, "apikey": true, "api-key": true, "token": true,
	"access_token": true, "auth": true, "authorization": true, "bearer": true, "credential": true,
	"secret": true, "client_secret": true, "session_token": true, "id_token": true,
}

// credentialInURL reports a credential in the URL: user info, a credential parameter, or
// a parameter name or value, or a segment of the path, shaped like one of our keys or a
// JWT, wherever a client library or a typo put it.
func credentialInURL(u *url.URL, q *query.Values) bool {
	if u.User != nil {
		return true
	}
	for _, p := range q.All() {
		if credentialParam(p.Key) || credentialShaped(p.Key) || credentialShaped(p.Value) {
			return true
		}
	}
	for rest := u.Path; rest != ""; {
		var seg string
		seg, rest, _ = strings.Cut(strings.TrimPrefix(rest, "/"), "/")
		if credentialShaped(seg) {
			return true
		}
	}
	return false
}

// credentialShaped reports whether s is one of our keys or a JWT.
func credentialShaped(s string) bool {
	_, ok := keys.Recognise(s)
	return ok || platform.LooksLikeJWT(s)
}

// credentialParam reports whether k is one of urlCredentialParams in any case, as
// strings.ToLower would find it. An ASCII name is lowered on the stack: ToLower's copy of
// every name with a capital (sessionId) was an allocation per request.
func credentialParam(k string) bool {
	var buf [16]byte // longer than any of urlCredentialParams
	for i := 0; i < len(k); i++ {
		if k[i] >= utf8.RuneSelf {
			return urlCredentialParams[strings.ToLower(k)] // Unicode lowers to other lengths
		}
	}
	if len(k) > len(buf) {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	return urlCredentialParams[string(buf[:len(k)])]
}

// bearer returns the credential of the single Authorization header of scheme Bearer.
func bearer(h http.Header) (string, bool) {
	vs := h.Values("Authorization")
	if len(vs) != 1 {
		return "", false
	}
	scheme, cred, ok := strings.Cut(strings.TrimSpace(vs[0]), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	cred = strings.TrimSpace(cred)
	if cred == "" || strings.ContainsAny(cred, " \t") {
		return "", false
	}
	return cred, true
}

// authenticate returns the principal of cred; that of an API key is written to own.
func (g *Gateway) authenticate(ctx context.Context, r *http.Request, route Route, cred string, own *Principal) (*Principal, *apierr.Error) {
	if kind, ok := keys.Recognise(cred); ok {
		k, err := g.Keys.Lookup(ctx, keys.HashOf(cred))
		switch {
		case errors.Is(err, keys.ErrNotFound):
			return nil, apierr.Unauthorized()
		case err != nil:
			// Neither the store nor the cache could tell (see keys.Cache): fail open, fast.
			g.ops.Error("key store unavailable", "error", err)
			return nil, apierr.Unavailable()
		case !k.Active() || k.Kind != kind:
			return nil, apierr.Unauthorized()
		}
		p := own
		*p = Principal{
			Kind: string(k.Kind), ID: k.ID, Account: k.Account, Plan: k.Plan, Scopes: k.Scopes,
			Routes: SecretRoutes, Testing: k.Kind.Testing(), LimitKey: k.ID,
		}
		if k.Kind.Publishable() {
			p.Routes, p.Publishable, p.Origins = PublishableRoutes, true, k.Origins
		}
		return p, nil
	}
	if platform.LooksLikeJWT(cred) && !g.Platforms.Empty() {
		if s, err := g.Platforms.Verify(cred); err == nil {
			id := s.Platform + ":" + s.Shop
			return &Principal{
				Kind: KindPlatform, ID: id, Account: s.Account, Plan: s.Plan,
				Scopes: []string{keys.ScopeVerify}, Routes: CheckoutRoutes, LimitKey: "platform:" + id, Browser: true,
			}, nil
		}
	}
	for _, x := range g.Extensions {
		p, ok, e := x.Authenticate(ctx, r, route, cred)
		if e != nil {
			return nil, e
		}
		if ok {
			return p, nil
		}
	}
	return nil, apierr.Unauthorized()
}
