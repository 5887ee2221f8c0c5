package gateway

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/adreswijzer/adreswijzer/gateway/internal/query"
	"github.com/adreswijzer/adreswijzer/gateway/keys"
	"github.com/adreswijzer/adreswijzer/gateway/platform"
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
// any parameter value shaped like one of our keys or a JWT.
func credentialInURL(u *url.URL, q *query.Values) bool {
	if u.User != nil {
		return true
	}
	for _, p := range q.All() {
		if urlCredentialParams[strings.ToLower(p.Key)] {
			return true
		}
		if _, ok := keys.Recognise(p.Value); ok || platform.LooksLikeJWT(p.Value) {
			return true
		}
	}
	return false
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
