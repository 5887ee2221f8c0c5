package httpapi

import (
	"context"
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/worker/match"
	"github.com/adreswijzer/adreswijzer/worker/openapi"
)

// lookupInput holds the parameters of a lookup, from the query or the JSON body.
type lookupInput struct {
	postcode, number, street, lang, carrier, sessionID value
}

func (in *lookupInput) member(name string) *value {
	switch name {
	case "postcode":
		return &in.postcode
	case "number":
		return &in.number
	case "street":
		return &in.street
	case "lang":
		return &in.lang
	case "carrier":
		return &in.carrier
	case "sessionId":
		return &in.sessionID
	}
	return nil
}

// fromQuery keeps a query parameter of a lookup (readQuery).
func (in *lookupInput) fromQuery(name, s string) { keepFirst(in.member(name), s) }

// lookupGET serves GET /v1/nl/lookup, /v1/be/lookup and, with generic, /v1/{country}/lookup.
func (h *Handler) lookupGET(w http.ResponseWriter, r *http.Request, country string, generic bool) {
	var in lookupInput
	readQuery(r.URL.RawQuery, in.fromQuery)
	h.lookup(w, r, country, generic, &in)
}

// lookupPOST serves POST /v1/nl/lookup and /v1/be/lookup.
func (h *Handler) lookupPOST(w http.ResponseWriter, r *http.Request, c adreswijzer.Country) {
	var in lookupInput
	if e := readObject(w, r, in.member); e != nil {
		writeBodyError(w, e)
		return
	}
	h.lookup(w, r, c.Lower(), false, &in)
}

// lookup checks the parameters in the order openapi.json lists them (postcode and number
// before the country of the generic form, so a call without them is 422 for every country)
// and asks the engine. A well-formed code of a country without a register is the engine's
// to answer: 200 with UNSUPPORTED_COUNTRY.
func (h *Handler) lookup(w http.ResponseWriter, r *http.Request, country string, generic bool, in *lookupInput) {
	c := newCheck(in.lang)
	be := country == adreswijzer.BE.Lower()
	postcode := c.required("postcode", in.postcode, adreswijzer.MaxFieldLength)
	var number int
	var street string
	if be && !generic {
		street = c.required("street", in.street, adreswijzer.MaxFieldLength)
		number = c.number("number", in.number)
	} else {
		number = c.number("number", in.number)
		if generic {
			c.pathCountry(country)
		}
		if be {
			street = c.required("street", in.street, adreswijzer.MaxFieldLength)
		} else if s := c.optional("street", in.street, adreswijzer.MaxFieldLength, false); s != nil {
			street = *s
		}
	}
	lang := c.language(in.lang)
	carrier := c.carrier(in.carrier)
	c.session(in.sessionID)
	if c.bad != nil {
		writeInvalid(w, &c)
		return
	}
	q := match.LookupQuery{
		Country:  upperCountry(country),
		Postcode: postcode, Number: number, Street: street, Lang: lang, Carrier: carrier,
	}
	h.serveLookup(w, r, c.lang, &q)
}

// upperCountry is the country code of a lookup path in upper case, without a copy for the
// countries with a register.
func upperCountry(lower string) adreswijzer.Country {
	for _, c := range adreswijzer.Countries {
		if c.Lower() == lower {
			return c
		}
	}
	return adreswijzer.Country(strings.ToUpper(lower))
}

// serveLookup answers a checked lookup: from the lookup cache when it holds the answer of
// the activation the engine serves from, otherwise from the engine, keeping the answer.
func (h *Handler) serveLookup(w http.ResponseWriter, r *http.Request, lang adreswijzer.Language, q *match.LookupQuery) {
	gen, cacheable := h.lookups.serving(r.Context(), q.Country)
	if !cacheable {
		h.computeLookup(w, r, lang, *q, nil)
		return
	}
	k := keyOf(q)
	if a, ok := h.lookups.get(k, gen); ok {
		a.write(w)
		return
	}
	h.computeLookup(w, r, lang, *q, func(body []byte, version string) { h.lookups.keep(r.Context(), k, gen, body, version) })
}

// computeLookup asks the engine, handing the answer to keep (when not nil) as it is sent.
func (h *Handler) computeLookup(w http.ResponseWriter, r *http.Request, lang adreswijzer.Language, q match.LookupQuery,
	keep func(body []byte, version string)) {
	serve(h, w, r, lang, func(ctx context.Context) (adreswijzer.LookupResponse, error) {
		return h.engine.Lookup(ctx, q)
	}, finishLookup, keep)
}

// typeaheadInput holds the parameters of suggest and autocomplete, which openapi.json
// gives the same parameters.
type typeaheadInput struct {
	country, q, postcode, lang, sessionID value
}

func (in *typeaheadInput) member(name string) *value {
	switch name {
	case "country":
		return &in.country
	case "q":
		return &in.q
	case "postcode":
		return &in.postcode
	case "lang":
		return &in.lang
	case "sessionId":
		return &in.sessionID
	}
	return nil
}

// fromQuery keeps a query parameter of suggest or autocomplete (readQuery).
func (in *typeaheadInput) fromQuery(name, s string) { keepFirst(in.member(name), s) }

func typeaheadQuery(r *http.Request) *typeaheadInput {
	var in typeaheadInput
	readQuery(r.URL.RawQuery, in.fromQuery)
	return &in
}

func typeaheadBody(w http.ResponseWriter, r *http.Request) (*typeaheadInput, bool) {
	var in typeaheadInput
	if e := readObject(w, r, in.member); e != nil {
		writeBodyError(w, e)
		return nil, false
	}
	return &in, true
}

// typeahead is a checked suggest or autocomplete request.
type typeahead struct {
	country  adreswijzer.Country
	q        string
	postcode string
	lang     adreswijzer.Language
}

// checkTypeahead answers 422 and returns nil when a parameter is not as the document says.
func checkTypeahead(w http.ResponseWriter, in *typeaheadInput) (*typeahead, check) {
	c := newCheck(in.lang)
	t := &typeahead{}
	t.country = adreswijzer.Country(strings.ToUpper(c.country("country", in.country)))
	t.q = c.required("q", in.q, adreswijzer.MaxQueryLength)
	if pc := c.optional("postcode", in.postcode, adreswijzer.MaxFieldLength, false); pc != nil {
		t.postcode = *pc
	}
	t.lang = c.language(in.lang)
	c.session(in.sessionID)
	if c.bad != nil {
		writeInvalid(w, &c)
		return nil, c
	}
	return t, c
}

// typeaheadRoute is the route of suggest or autocomplete, which take the same parameters,
// by query string (GET) or body (POST), and differ only in what they compute.
func typeaheadRoute[T any](h *Handler, pattern string, compute func(context.Context, typeahead) (T, error),
	finish func(*T) *adreswijzer.Meta) *route {
	answer := func(w http.ResponseWriter, r *http.Request, in *typeaheadInput) {
		t, c := checkTypeahead(w, in)
		if t == nil {
			return
		}
		serve(h, w, r, c.lang, func(ctx context.Context) (T, error) { return compute(ctx, *t) }, finish, nil)
	}
	return &route{pattern: pattern,
		get: func(w http.ResponseWriter, r *http.Request, _ pathParams) { answer(w, r, typeaheadQuery(r)) },
		post: func(w http.ResponseWriter, r *http.Request, _ pathParams) {
			if in, ok := typeaheadBody(w, r); ok {
				answer(w, r, in)
			}
		}}
}

func (h *Handler) suggest(ctx context.Context, t typeahead) (adreswijzer.SuggestResponse, error) {
	return h.engine.Suggest(ctx, match.SuggestQuery{Country: t.country, Q: t.q, Postcode: t.postcode, Lang: t.lang})
}

func (h *Handler) autocomplete(ctx context.Context, t typeahead) (adreswijzer.AutocompleteResponse, error) {
	return h.engine.Autocomplete(ctx, match.AutocompleteQuery{Country: t.country, Q: t.q, Postcode: t.postcode, Lang: t.lang})
}

// validateInput holds the members of a validate body (adreswijzer.ValidateRequest's),
// with what the request gave for each, so a missing, null or mistyped member can be told
// from an empty one.
type validateInput struct {
	countryCode, address1, address2, zip, city value
	customerConfirmed, allowPoBox              value
	lang, carrier, sessionID                   value
}

func (in *validateInput) member(name string) *value {
	switch name {
	case "countryCode":
		return &in.countryCode
	case "address1":
		return &in.address1
	case "address2":
		return &in.address2
	case "zip":
		return &in.zip
	case "city":
		return &in.city
	case "customerConfirmed":
		return &in.customerConfirmed
	case "allowPoBox":
		return &in.allowPoBox
	case "lang":
		return &in.lang
	case "carrier":
		return &in.carrier
	case "sessionId":
		return &in.sessionID
	}
	return nil
}

// validate serves POST /v1/validate.
func (h *Handler) validate(w http.ResponseWriter, r *http.Request, _ pathParams) {
	var in validateInput
	if e := readObject(w, r, in.member); e != nil {
		writeBodyError(w, e)
		return
	}
	c := newCheck(in.lang)
	const max = adreswijzer.MaxFieldLength
	req := adreswijzer.ValidateRequest{
		CountryCode: c.country("countryCode", in.countryCode),
		Address1:    c.present("address1", in.address1, max),
		Address2:    c.optional("address2", in.address2, max, true),
		Zip:         c.present("zip", in.zip, max),
		City:        c.optional("city", in.city, max, true),
	}
	req.CustomerConfirmed = c.flag("customerConfirmed", in.customerConfirmed)
	req.AllowPoBox = c.flag("allowPoBox", in.allowPoBox)
	req.Lang = string(c.language(in.lang))
	req.Carrier = string(c.carrier(in.carrier))
	req.SessionID = c.session(in.sessionID)
	if c.bad != nil {
		writeInvalid(w, &c)
		return
	}
	serve(h, w, r, c.lang, func(ctx context.Context) (adreswijzer.ValidateResponse, error) {
		return h.engine.Validate(ctx, req)
	}, finishValidate, nil)
}

// health serves GET /health: 200 while the store answers (status degraded while a country
// has no dataset yet), 503 with the same body when the database does not answer within the
// health deadline. The datasets are listed either way, as the engine answers from them
// (after an activation, the previous one until the new index is built): a Postgres-backed
// worker keeps serving the catalogs it loaded, and the gateway reads the versions from here.
func (h *Handler) health(w http.ResponseWriter, r *http.Request, _ pathParams) {
	_, pingErr := within(r.Context(), h.healthTimeout, h.inMemory, func(ctx context.Context) (struct{}, error) {
		return struct{}{}, h.store.Ping(ctx)
	})
	now := time.Now().UTC()
	resp := adreswijzer.HealthResponse{
		Status: "ok", Database: "up", Datasets: []adreswijzer.DatasetStatus{},
		CheckedAt: now.Format(time.RFC3339),
	}
	for _, c := range adreswijzer.Countries {
		ds, err := h.engine.Dataset(r.Context(), c)
		if err != nil {
			resp.Status = "degraded"
			continue
		}
		info := ds.Info()
		resp.Datasets = append(resp.Datasets, adreswijzer.DatasetStatus{
			Country:     string(c),
			Version:     string(info.Version),
			ActivatedAt: info.ActivatedAt.UTC().Format(time.RFC3339),
			AgeHours:    math.Round(info.AgeHours(now)*10) / 10,
		})
	}
	status := http.StatusOK
	if pingErr != nil {
		noteErr(w, pingErr)
		resp.Status, resp.Database, status = "degraded", "down", http.StatusServiceUnavailable
	}
	writeJSON(w, status, &resp)
}

func serveOpenAPI(w http.ResponseWriter, _ *http.Request, _ pathParams) {
	writeStatic(w, "application/json", openapi.JSON())
}

func serveDocs(w http.ResponseWriter, _ *http.Request, _ pathParams) {
	writeStatic(w, "text/html; charset=utf-8", openapi.DocsHTML())
}
