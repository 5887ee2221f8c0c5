package authserver

import (
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/adreswijzer/adreswijzer/gateway"
)

// Bounds of a registration: enough for any agent, and a stop for one that sends a book.
const (
	maxRegistrationBody = 16 << 10
	maxRedirectURIs     = 5
	maxRedirectURI      = 512
	maxClientName       = 100
)

// RegistrationError is a refused registration, in RFC 7591 §3.2.2's terms. Descriptions
// name the field that was wrong, never what it held.
type RegistrationError struct {
	Code        string `json:"error"`
	Description string `json:"error_description"`
}

func (e *RegistrationError) Error() string { return e.Code + ": " + e.Description }

func badMetadata(desc string) *RegistrationError {
	return &RegistrationError{Code: "invalid_client_metadata", Description: desc}
}

func badRedirect(desc string) *RegistrationError {
	return &RegistrationError{Code: "invalid_redirect_uri", Description: desc}
}

// registration is the part of RFC 7591's client metadata this server reads; the rest
// (logo_uri, contacts, software_id, …) is ignored, as §2 allows.
type registration struct {
	RedirectURIs            []string `json:"redirect_uris"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
	ClientName              string   `json:"client_name"`
	Scope                   string   `json:"scope"`
}

// ParseRegistration reads a registration request's body into the client it registers (id
// and time not yet set): a public client with loopback or https redirect URIs.
func ParseRegistration(body []byte) (*Client, *RegistrationError) {
	var reg registration
	if err := json.Unmarshal(body, &reg); err != nil {
		return nil, badMetadata("the body must be a JSON object of client metadata (RFC 7591)")
	}
	c := &Client{}
	var e *RegistrationError
	if c.RedirectURIs, e = redirectURIs(reg.RedirectURIs); e != nil {
		return nil, e
	}
	if reg.TokenEndpointAuthMethod != "" && reg.TokenEndpointAuthMethod != "none" {
		return nil, badMetadata("token_endpoint_auth_method must be none: only public clients, with PKCE, register here")
	}
	if c.GrantTypes, e = grantTypes(reg.GrantTypes); e != nil {
		return nil, e
	}
	for _, rt := range reg.ResponseTypes {
		if rt != "code" {
			return nil, badMetadata("response_types may only hold code")
		}
	}
	if c.Name, e = clientName(reg.ClientName); e != nil {
		return nil, e
	}
	if len(reg.Scope) > 1000 {
		return nil, badMetadata("scope is too long")
	}
	return c, nil
}

// redirectURIs checks the redirect URIs: at least one, a few at most, each loopback
// (http://127.0.0.1:port/…, http://[::1]:…, http://localhost:…, RFC 8252 §7.3) or https.
func redirectURIs(uris []string) ([]string, *RegistrationError) {
	if len(uris) == 0 {
		return nil, badRedirect("redirect_uris must name at least one URI")
	}
	if len(uris) > maxRedirectURIs {
		return nil, badRedirect("redirect_uris may name at most " + strconv.Itoa(maxRedirectURIs) + " URIs")
	}
	out := make([]string, 0, len(uris))
	for _, u := range uris {
		if err := checkRedirectURI(u); err != nil {
			return nil, badRedirect(err.Error())
		}
		if !slices.Contains(out, u) {
			out = append(out, u)
		}
	}
	return out, nil
}

// checkRedirectURI accepts an absolute https URL, or an http URL on a loopback host; never a
// fragment or user information, which RFC 6749 §3.1.2 and RFC 8252 §8.10 forbid.
func checkRedirectURI(raw string) error {
	if len(raw) > maxRedirectURI || !utf8.ValidString(raw) || strings.ContainsFunc(raw, unicode.IsSpace) {
		return errors.New("each redirect URI must be a URL of at most " + strconv.Itoa(maxRedirectURI) + " characters without spaces")
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Opaque != "" {
		return errors.New("each redirect URI must be an absolute URL")
	}
	if u.Fragment != "" || strings.Contains(raw, "#") {
		return errors.New("a redirect URI must not have a fragment")
	}
	if u.User != nil {
		return errors.New("a redirect URI must not carry user information")
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		if isLoopback(u.Hostname()) {
			return nil
		}
		return errors.New("http redirect URIs must be on a loopback address (127.0.0.1, [::1] or localhost); others must be https")
	}
	return errors.New("redirect URIs must be https, or http on a loopback address")
}

// isLoopback reports whether a host is this machine: localhost or a loopback address.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// grantTypes checks the grant types: the code grant (the default) and refresh tokens.
func grantTypes(gts []string) ([]string, *RegistrationError) {
	if len(gts) == 0 {
		return []string{grantCode}, nil
	}
	out := make([]string, 0, 2)
	for _, g := range gts {
		if g != grantCode && g != grantRefresh {
			return nil, badMetadata("grant_types may only hold authorization_code and refresh_token")
		}
		if !slices.Contains(out, g) {
			out = append(out, g)
		}
	}
	if !slices.Contains(out, grantCode) {
		return nil, badMetadata("grant_types must hold authorization_code")
	}
	return out, nil
}

// clientName checks the name shown on the consent page: printable, not too long.
func clientName(name string) (string, *RegistrationError) {
	name = strings.TrimSpace(name)
	if !utf8.ValidString(name) || utf8.RuneCountInString(name) > maxClientName {
		return "", badMetadata("client_name must be text of at most " + strconv.Itoa(maxClientName) + " characters")
	}
	if strings.ContainsFunc(name, func(r rune) bool { return unicode.IsControl(r) || unicode.In(r, unicode.Cf) }) {
		return "", badMetadata("client_name must not hold control or format characters")
	}
	return name, nil
}

// registered is the RFC 7591 §3.2.1 answer.
type registered struct {
	ClientID                string   `json:"client_id"`
	ClientIDIssuedAt        int64    `json:"client_id_issued_at"`
	ClientName              string   `json:"client_name,omitempty"`
	RedirectURIs            []string `json:"redirect_uris"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
	Scope                   string   `json:"scope"`
}

// register is the registration endpoint (RFC 7591): open to anyone, for public clients
// only. Registrations that would be stored are limited per client address; refused ones
// cost nothing to keep and are not counted.
func (s *Server) register(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		writeJSON(w, http.StatusMethodNotAllowed, &RegistrationError{Code: "invalid_request", Description: "register with POST"})
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRegistrationBody))
	if err != nil {
		writeJSON(w, http.StatusBadRequest, badMetadata("the body must be at most 16 KiB of JSON"))
		return
	}
	c, e := ParseRegistration(body)
	if e != nil {
		writeJSON(w, http.StatusBadRequest, e)
		return
	}
	res, err := s.cfg.Limiter.Allow(r.Context(), "oauth:register:"+gateway.ClientIP(r.Context()), Registrations)
	if err != nil || !res.Allowed {
		w.Header().Set("Retry-After", strconv.Itoa(max(1, int(res.RetryAfter.Seconds()))))
		writeJSON(w, http.StatusTooManyRequests, &RegistrationError{Code: "invalid_request", Description: "too many registrations from this address; try again later"})
		return
	}
	if c.ID, err = newID("awc_"); err == nil {
		c.Created = s.now().UTC().Truncate(time.Second)
		err = s.cfg.Store.AddClient(r.Context(), c)
	}
	if err != nil {
		s.log.Error("authserver: client not registered", "error", err)
		writeJSON(w, http.StatusInternalServerError, &RegistrationError{Code: "server_error", Description: "the client could not be registered; try again"})
		return
	}
	s.log.Info("agent registered", "client", c.ID)
	writeJSON(w, http.StatusCreated, registered{ClientID: c.ID, ClientIDIssuedAt: c.Created.Unix(), ClientName: c.Name,
		RedirectURIs: c.RedirectURIs, GrantTypes: c.GrantTypes, ResponseTypes: []string{"code"},
		TokenEndpointAuthMethod: "none", Scope: Scope})
}

// writeJSON writes an answer of the registration endpoint.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v) // plain structs: cannot fail
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}
