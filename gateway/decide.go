package gateway

import (
	"context"
	"net/http"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/gateway/answercache"
	"github.com/adreswijzer/adreswijzer/gateway/apierr"
	"github.com/adreswijzer/adreswijzer/gateway/keys"
	"github.com/adreswijzer/adreswijzer/gateway/usage"
	"github.com/adreswijzer/adreswijzer/internal/query"
)

// Decide runs every check on r. It reads (and restores) the body of POST requests. On
// success it removes the credential from r so that it is never proxied. clientIP is the
// caller's address as the server determined it (trusted proxies considered).
func (g *Gateway) Decide(ctx context.Context, r *http.Request, clientIP string) (*Decision, *apierr.Error) {
	d, e := g.decide(ctx, r, clientIP)
	if e == nil {
		return d, nil
	}
	if e.Challenge == "" {
		ch := d.Challenge
		if ch == nil {
			ch = &restChallenges
		}
		switch {
		case e.Status == http.StatusUnauthorized && d.credRefused:
			e.Challenge = ch.Refused
		case e.Status == http.StatusUnauthorized:
			e.Challenge = ch.Missing
		case d.scopeRefused:
			e.Challenge = ch.Scope
		}
	}
	if d.Body != nil {
		e = g.Recast(r, d, e)
	}
	return d, e
}

// Recast hands a refusal of a decided request whose body was read to the extensions that
// answer refusals in a form of their own (see Recaster), and returns it as it is to be
// written. The adapter calls it for the refusal it answers when no worker did.
func (g *Gateway) Recast(r *http.Request, d *Decision, e *apierr.Error) *apierr.Error {
	for _, x := range g.Extensions {
		if rc, ok := x.(Recaster); ok {
			e = rc.Recast(r, d, e)
		}
	}
	return e
}

// decide runs the checks of the package doc as phases, in its order; each refuses the
// request or passes it on to the next. The query is parsed once, here, for every phase.
func (g *Gateway) decide(ctx context.Context, r *http.Request, clientIP string) (*Decision, *apierr.Error) {
	route, country := Classify(r.Method, r.URL.Path)
	d := &Decision{Route: route, Country: country}
	origin := r.Header.Get("Origin")
	var params query.Values
	params.Parse(r.URL.RawQuery)
	if e := g.screen(r, d, origin, &params); e != nil {
		return d, e
	}
	if done, e := uncredentialed(r, d, origin); done {
		return d, e
	}
	if e := g.credential(ctx, r, d, origin); e != nil {
		return d, e
	}
	if e := permit(d, origin); e != nil {
		return d, e
	}
	in, e := takeInput(r, d, &params)
	if e != nil {
		return d, e
	}
	if e := g.rate(ctx, d, clientIP); e != nil {
		return d, e
	}
	if e := g.dailyCap(ctx, d); e != nil {
		return d, e
	}
	if e := g.countCall(ctx, r, d, &in); e != nil {
		return d, e
	}
	if e := g.extensionChecks(ctx, r, d); e != nil {
		return d, e
	}
	g.cacheQuery(r, d, &params)
	return d, nil
}

// screen refuses what is no endpoint and a credential in the URL, and lets the extensions
// look at the request before any credential is read (see Screener). A path that is no
// endpoint is 404, unless a key was pasted into it: that is as exposed as one in the query,
// and its caller must hear why the call failed. The dashboard's pages are no API endpoint:
// its one-time sign-in link carries a token of its own in the query.
func (g *Gateway) screen(r *http.Request, d *Decision, origin string, params *query.Values) *apierr.Error {
	inURL := d.Route != RouteSite && credentialInURL(r.URL, params)
	if d.Route == RouteNotFound && !inURL {
		if allow := Allow(r.URL.Path); allow != "" {
			return apierr.MethodNotAllowed(allow)
		}
		return apierr.NotFound()
	}
	for _, x := range g.Extensions {
		if s, ok := x.(Screener); ok {
			if e := s.Screen(r, d); e != nil {
				return e
			}
		}
	}
	if inURL {
		d.Origin = corsOrigin(origin)
		return apierr.CredentialInURL()
	}
	return nil
}

// uncredentialed decides the requests that carry no credential: public documents, what an
// extension answers itself (d.Answer), pages of the site no extension serves, and CORS
// preflights. done reports that the decision is made, e nil when the request may go on.
func uncredentialed(r *http.Request, d *Decision, origin string) (done bool, e *apierr.Error) {
	d.Health = d.Route == RoutePublic && r.URL.Path == "/health"
	switch {
	case d.Route == RouteSite && d.Answer == nil:
		return true, apierr.NotFound()
	case d.Route == RoutePublic || d.Answer != nil:
		r.Header.Del("Authorization") // not needed here, and the worker never sees credentials
		return true, nil
	case r.Method == http.MethodOptions:
		return true, preflight(r, d, origin)
	}
	return false, nil
}

// preflight allows a CORS preflight of a browser route from a well-formed origin (see
// WritePreflight for why any); anything else sent with OPTIONS is no endpoint.
func preflight(r *http.Request, d *Decision, origin string) *apierr.Error {
	if d.Route.browser() && origin != "" && r.Header.Get("Access-Control-Request-Method") != "" {
		if o := corsOrigin(origin); o != "" {
			d.Preflight, d.Origin = true, o
			return nil
		}
	}
	return apierr.NotFound()
}

// credential finds who is calling from the bearer credential, and removes it from r so that
// no worker ever sees it. Its refusals carry CORS headers: a page may read why it was
// refused, and nothing in the answer is private.
func (g *Gateway) credential(ctx context.Context, r *http.Request, d *Decision, origin string) *apierr.Error {
	cred, ok := bearer(r.Header)
	if !ok {
		d.Origin = corsOrigin(origin)
		return apierr.Unauthorized()
	}
	p, e := g.authenticate(ctx, r, d.Route, cred, &d.own.principal)
	if e != nil {
		d.Origin = corsOrigin(origin)
		d.credRefused = true
		return e
	}
	r.Header.Del("Authorization")
	d.Principal = p
	if p.Browser {
		// As the preflight allowed: the page may read the answer it is counted for.
		d.Origin = corsOrigin(origin)
	}
	return nil
}

// permit checks what the credential may do: a publishable key is used only from its
// origins, each kind calls only its routes, and only with the scope address:verify.
func permit(d *Decision, origin string) *apierr.Error {
	p := d.Principal
	if p.Publishable {
		// CORS headers on the refusal too, so that the embedded form can read it and say
		// "not available on this site" instead of failing blind; the refusal names nothing
		// but the fact, which the page's owner may know.
		d.Origin = corsOrigin(origin)
		if origin == "" || !originAllowed(p.Origins, origin) {
			return apierr.ForeignOrigin()
		}
	}
	if !p.Routes.Allows(d.Route) {
		return apierr.RouteNotAllowed()
	}
	if !p.hasScope(keys.ScopeVerify) {
		d.scopeRefused = true
		return apierr.MissingScope()
	}
	return nil
}

// takeInput reads what the policy needs of the query or the body (see readInput) and checks
// the sessionId: well formed when sent, and always sent by a publishable key, in a body that
// is a JSON object. The body is kept for the extensions; the routing country of a POST comes
// from it.
func takeInput(r *http.Request, d *Decision, params *query.Values) (input, *apierr.Error) {
	in, e := readInput(r, d.Route, params)
	if e != nil {
		return in, e
	}
	d.Body = in.body
	if d.Route != RouteLookup {
		d.Country = in.country
	}
	p := d.Principal
	if in.badSession || (in.session != "" && !adreswijzer.ValidSessionID(in.session)) {
		return in, apierr.BadSessionID()
	}
	if p.Publishable && in.badBody {
		return in, apierr.BadBody()
	}
	if p.Publishable && in.session == "" {
		return in, apierr.SessionRequired()
	}
	d.SessionID = in.session
	return in, nil
}

// rate applies the rate rule of the credential's kind, per credential and, for a
// publishable key, which anyone may copy from a page, per client address too.
func (g *Gateway) rate(ctx context.Context, d *Decision, clientIP string) *apierr.Error {
	p := d.Principal
	rule, ok := g.cfg.Limits[p.Kind]
	if !ok {
		return nil
	}
	key := p.LimitKey
	if p.Publishable {
		key += "@" + clientIP
	}
	res, err := g.Limiter.Allow(ctx, key, rule)
	if err != nil {
		return apierr.Unavailable() // only when the caller has gone
	}
	if !res.Allowed {
		return apierr.RateLimited(res.RetryAfter)
	}
	return nil
}

// dailyCap counts the request against a test key's calls of the day, unless an extension
// counts the calls inside it itself (see CallCounter).
func (g *Gateway) dailyCap(ctx context.Context, d *Decision) *apierr.Error {
	if !d.Principal.Testing || g.countsCalls(d.Route) {
		return nil
	}
	if ok, _, wait := g.CountDaily(ctx, d, 1); !ok {
		return apierr.DailyCapReached(wait)
	}
	return nil
}

// countCall charges a data call to the monthly quota of its account. A HEAD request gets the
// headers of a GET's answer and none of its data: nothing is verified for the caller, so
// nothing is counted, and the session of its sessionId is left as it was. It is
// authenticated and rate-limited like the GET, and a test key's daily calls include it, for
// the register still does the work. A call about a country without a register is answered
// UNSUPPORTED_COUNTRY without asking one: nothing is verified, and it is not counted either.
func (g *Gateway) countCall(ctx context.Context, r *http.Request, d *Decision, in *input) *apierr.Error {
	p := d.Principal
	if !d.Route.Data() || p.Testing || p.Uncounted || r.Method == http.MethodHead || in.unsupported {
		return nil
	}
	call := usage.Lookup
	switch d.Route {
	case RouteSuggest, RouteAutocomplete:
		call = usage.Suggest
	case RouteValidate:
		call = usage.Validate
	}
	c := usage.Charge{Call: call, Session: in.session, Confirmed: d.Route == RouteValidate && in.confirmed}
	return g.charge(ctx, d, c, "")
}

// extensionChecks runs the extensions' own checks last (see Extension.Check); a refusal
// gives back what the gateway charged, for a refused call is not counted.
func (g *Gateway) extensionChecks(ctx context.Context, r *http.Request, d *Decision) *apierr.Error {
	for _, x := range g.Extensions {
		if e := x.Check(ctx, r, d); e != nil {
			g.refund(ctx, d)
			return e
		}
	}
	return nil
}

// cacheQuery marks a GET lookup in a country with a register as one the answer cache may
// serve and keep, under its query's key (see answercache.ParseQuery).
func (g *Gateway) cacheQuery(r *http.Request, d *Decision, params *query.Values) {
	if d.Route != RouteLookup || g.Cache == nil || r.Method != http.MethodGet ||
		(d.Country != adreswijzer.NL && d.Country != adreswijzer.BE) {
		return
	}
	if q, ok := answercache.ParseQuery(d.Country, params); ok {
		d.own.cache = q
		d.Cache = &d.own.cache
	}
}
