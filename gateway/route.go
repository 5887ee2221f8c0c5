package gateway

import (
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/adreswijzer/adreswijzer"
)

// Route is the class of an endpoint: it decides which credentials may call it, whether the
// call is counted and where it is proxied.
type Route uint8

const (
	RouteNotFound     Route = iota // no such endpoint (or not with this method)
	RoutePublic                    // /health, /openapi.json, /docs, OAuth metadata: no credential
	RouteLookup                    // /v1/{country}/lookup
	RouteSuggest                   // /v1/suggest
	RouteAutocomplete              // /v1/autocomplete
	RouteValidate                  // /v1/validate
	RouteAgent                     // /mcp, the agent interface
	// RouteSite is what an extension serves itself, outside the API: the dashboard under
	// /dashboard/, and the agents' OAuth authorization server (/oauth/… and its RFC 8414
	// metadata). No extension serving it: 404.
	RouteSite
)

var routeNames = [...]string{"not_found", "public", "lookup", "suggest", "autocomplete", "validate", "agent", "site"}

func (r Route) String() string {
	if int(r) < len(routeNames) {
		return routeNames[r]
	}
	return "unknown"
}

// Routes is a set of routes a credential may call.
type Routes uint16

// RoutesOf makes a set.
func RoutesOf(rs ...Route) Routes {
	var s Routes
	for _, r := range rs {
		s |= 1 << r
	}
	return s
}

// Allows reports whether r is in the set.
func (s Routes) Allows(r Route) bool { return s&(1<<r) != 0 }

// The route sets of the built-in credential kinds (spec, Authentication).
var (
	// Secret keys may call every data endpoint and the agent interface.
	SecretRoutes = RoutesOf(RouteLookup, RouteSuggest, RouteAutocomplete, RouteValidate, RouteAgent)
	// Publishable keys: "lookup, suggest and validate only".
	PublishableRoutes = RoutesOf(RouteLookup, RouteSuggest, RouteValidate)
	// Platform session tokens: the checkout routes.
	CheckoutRoutes = RoutesOf(RouteLookup, RouteSuggest, RouteAutocomplete, RouteValidate)
)

// Data reports whether the route answers from the register (and is counted): lookup,
// suggest, autocomplete and validate.
func (r Route) Data() bool {
	return r == RouteLookup || r == RouteSuggest || r == RouteAutocomplete || r == RouteValidate
}

// browser reports whether web pages may call the route, so it answers CORS preflights.
func (r Route) browser() bool { return r.Data() }

// Classify maps method and path to a route, and for lookups the country of the path
// ("" for a two-letter code we have no register for: the worker answers those with
// UNSUPPORTED_COUNTRY). OPTIONS is classified by path, for preflights. HEAD is classified as
// GET: HTTP asks a server that answers GET to answer HEAD with the same headers. Its answer
// carries no data, so Decide counts none.
func Classify(method, path string) (Route, adreswijzer.Country) {
	get := method == http.MethodGet || method == http.MethodHead
	post := method == http.MethodPost
	opt := method == http.MethodOptions
	switch path {
	case "/health", "/openapi.json", "/docs", "/docs/", "/.well-known/oauth-protected-resource/mcp":
		if get {
			return RoutePublic, ""
		}
		return RouteNotFound, ""
	case "/v1/suggest":
		return pick(RouteSuggest, get || post || opt), ""
	case "/v1/autocomplete":
		return pick(RouteAutocomplete, get || post || opt), ""
	case "/v1/validate":
		return pick(RouteValidate, post || opt), ""
	case "/mcp":
		return pick(RouteAgent, get || post || opt || method == http.MethodDelete), ""
	}
	if path == "/dashboard" || strings.HasPrefix(path, "/dashboard/") ||
		path == "/.well-known/oauth-authorization-server" || strings.HasPrefix(path, "/oauth/") {
		return RouteSite, ""
	}
	if seg, ok := lookupSegment(path); ok {
		if !(get || post || opt) {
			return RouteNotFound, ""
		}
		return RouteLookup, lookupCountry(seg)
	}
	return RouteNotFound, ""
}

// lookupSegment returns the country segment of a lookup path, /v1/{country}/lookup, whatever
// it holds: a segment that is no lower-case country code (NL, nld, 1x) is the worker's to
// answer with 422, as openapi.json's pattern for it says, not 404.
func lookupSegment(path string) (string, bool) {
	rest, ok := strings.CutPrefix(path, "/v1/")
	if !ok {
		return "", false
	}
	seg, ok := strings.CutSuffix(rest, "/lookup")
	if !ok || strings.IndexByte(seg, '/') >= 0 {
		return "", false
	}
	return seg, true
}

// lookupCountry is the register country of a lookup's segment: nl or be, in the lower case
// the path takes.
func lookupCountry(seg string) adreswijzer.Country {
	switch seg {
	case "nl":
		return adreswijzer.NL
	case "be":
		return adreswijzer.BE
	}
	return ""
}

// unsupportedPath reports whether a lookup's segment is a country code (two lower-case
// letters, as the path takes it) of a country without a register. The worker answers such a
// lookup with UNSUPPORTED_COUNTRY and asks no register, so it is not counted.
func unsupportedPath(seg string) bool {
	return len(seg) == 2 && lookupCountry(seg) == "" && 'a' <= seg[0] && seg[0] <= 'z' && 'a' <= seg[1] && seg[1] <= 'z'
}

// unsupportedParam reports the same of a country parameter (suggest, autocomplete) or member
// (validate's countryCode), which the worker takes as any two characters, NL and BE in any
// letter case.
func unsupportedParam(s string) bool {
	if utf8.RuneCountInString(s) != 2 {
		return false
	}
	_, ok := adreswijzer.ParseCountry(s)
	return !ok
}

// Allow lists the methods a path takes, for the Allow header of a 405; "" for a path that is
// no endpoint.
func Allow(path string) string {
	switch path {
	case "/health", "/openapi.json", "/docs", "/docs/", "/.well-known/oauth-protected-resource/mcp":
		return "GET, HEAD"
	case "/v1/suggest", "/v1/autocomplete":
		return "GET, HEAD, POST"
	case "/v1/validate", "/mcp":
		return "POST"
	}
	if seg, ok := lookupSegment(path); ok {
		if lookupCountry(seg) != "" {
			return "GET, HEAD, POST"
		}
		return "GET, HEAD"
	}
	return ""
}

func pick(r Route, methodOK bool) Route {
	if methodOK {
		return r
	}
	return RouteNotFound
}
