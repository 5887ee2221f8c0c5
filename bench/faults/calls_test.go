//go:build faults

package faults_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/adreswijzer/adreswijzer"
)

// Route classes of the load.
const (
	routeLookup       = "lookup"
	routeValidate     = "validate"
	routeSuggest      = "suggest"
	routeAutocomplete = "autocomplete"
)

// call is one request of the load, as a shop's checkout or backend would send it: real
// register addresses, typed cleanly or with mistakes, and the type-ahead text on the way to
// them. The sessionId is added per send.
type call struct {
	id      int
	route   string
	country adreswijzer.Country
	method  string
	target  string         // path and query, without sessionId
	body    map[string]any // validate
	// limited calls go with the publishable key of the rate-limit probe.
	limited bool

	// What the call is about, to judge answers against each register version: the
	// register address it was made from, and how it was typed.
	addr     *adreswijzer.Address
	streetID string // BE lookups: the street typed
	clean    bool   // validate: typed as the register has it
	q        string // suggest, autocomplete

	// submitted holds every value the call sends, as typed: none may reach a log.
	submitted []string
}

func (c *call) String() string {
	return fmt.Sprintf("#%d %s %s %s", c.id, c.method, c.route, c.country)
}

// request builds the HTTP request of one send.
func (c *call) request(base, key, session string) *http.Request {
	var req *http.Request
	if c.method == http.MethodPost {
		body := map[string]any{}
		for k, v := range c.body {
			body[k] = v
		}
		if session != "" {
			body["sessionId"] = session
		}
		b, _ := json.Marshal(body)
		req, _ = http.NewRequest(http.MethodPost, base+c.target, bytes.NewReader(b))
		req.Header.Set("Content-Type", "application/json")
	} else {
		target := c.target
		if session != "" {
			target += "&sessionId=" + url.QueryEscape(session)
		}
		req, _ = http.NewRequest(http.MethodGet, base+target, nil)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if c.limited {
		req.Header.Set("Origin", shopOrigin)
	}
	return req
}

// shopOrigin is the allowed origin of the publishable key.
const shopOrigin = "https://winkel.example"

// mix builds the calls over the registers: lookups (cacheable), validations clean and
// mistyped, street suggestions and autocomplete, for both countries. The choice is seeded, so
// every run sends the same requests.
func mix(nl []*register, be *register) []*call {
	rng := rand.New(rand.NewPCG(20261122, 7))
	var calls []*call
	add := func(c *call) {
		c.id = len(calls)
		if c.addr == nil {
			panic("call without its address")
		}
		calls = append(calls, c)
	}
	for i, r := range nl {
		n := 40
		if i > 0 {
			n = 5 // the other NL version: a few of its own addresses, to see them come and go
		}
		for _, a := range pick(rng, r, n) {
			add(nlLookup(a, len(calls)))
		}
		for j, a := range pick(rng, r, n) {
			add(validateCall(a, j%2 == 0 || i > 0, len(calls)))
		}
		for _, a := range pick(rng, r, n/2) {
			add(suggestCall(r, a, len(calls)))
			add(autocompleteCall(a, len(calls)))
		}
	}
	// The thinned BE version has a subset of these addresses.
	for _, a := range pick(rng, be, 30) {
		add(beLookup(a))
	}
	for j, a := range pick(rng, be, 24) {
		add(validateCall(a, j%2 == 0, len(calls)))
	}
	for _, a := range pick(rng, be, 12) {
		add(suggestCall(be, a, len(calls)))
		add(autocompleteCall(a, len(calls)))
	}
	for _, a := range pick(rng, nl[0], 6) {
		c := nlLookup(a, 0)
		c.limited = true
		add(c)
	}
	return calls
}

// pick chooses n addresses of r, each at a different (postcode, number).
func pick(rng *rand.Rand, r *register, n int) []*adreswijzer.Address {
	idx := rng.Perm(len(r.addrs))
	seen := map[atKey]bool{}
	var out []*adreswijzer.Address
	for _, i := range idx {
		a := &r.addrs[i]
		k := atKey{a.Postcode, a.HouseNumber}
		if seen[k] || a.HouseNumber <= 0 {
			continue
		}
		seen[k] = true
		out = append(out, a)
		if len(out) == n {
			break
		}
	}
	return out
}

// postcodeAsTyped varies how a Dutch postcode is typed: as the register has it, with a
// space, in lower case.
func postcodeAsTyped(pc string, variant int) string {
	switch variant % 3 {
	case 1:
		return pc[:4] + " " + pc[4:]
	case 2:
		return strings.ToLower(pc)
	}
	return pc
}

func nlLookup(a *adreswijzer.Address, variant int) *call {
	pc := postcodeAsTyped(a.Postcode, variant)
	q := url.Values{"postcode": {pc}, "number": {strconv.Itoa(a.HouseNumber)}}
	if variant%5 == 4 {
		q.Set("lang", "en")
	}
	return &call{route: routeLookup, country: adreswijzer.NL, method: http.MethodGet,
		target:    "/v1/nl/lookup?" + q.Encode(),
		addr:      a,
		submitted: []string{pc}}
}

func beLookup(a *adreswijzer.Address) *call {
	street := a.Street.Pick(adreswijzer.LangNL)
	q := url.Values{"postcode": {a.Postcode}, "street": {street}, "number": {strconv.Itoa(a.HouseNumber)}}
	return &call{route: routeLookup, country: adreswijzer.BE, method: http.MethodGet,
		target: "/v1/be/lookup?" + q.Encode(),
		addr:   a, streetID: a.StreetID,
		submitted: []string{street}}
}

func validateCall(a *adreswijzer.Address, clean bool, variant int) *call {
	street := a.Street.Pick(adreswijzer.LangNL)
	city := a.Locality.Pick(adreswijzer.LangNL)
	zip := adreswijzer.FormatPostcode(a.Country, a.Postcode)
	if !clean {
		if t, ok := typo(street); ok {
			street = t
		} else {
			clean = true
		}
	}
	address1 := street + " " + strconv.Itoa(a.HouseNumber) + a.HouseNumberSuffix
	body := map[string]any{"countryCode": string(a.Country), "address1": address1, "zip": zip, "city": city}
	if !clean && a.Country == adreswijzer.NL {
		body["zip"] = strings.ToLower(a.Postcode)
		if variant%2 == 1 {
			body["city"] = nil
		}
	}
	switch {
	case a.Country == adreswijzer.NL && a.Addition != "":
		body["address2"] = a.Addition
	case a.Country == adreswijzer.BE && a.Box != "":
		body["address2"] = "bus " + a.Box
	}
	c := &call{route: routeValidate, country: a.Country, method: http.MethodPost, target: "/v1/validate", body: body,
		addr: a, clean: clean}
	for _, k := range []string{"address1", "address2", "zip", "city"} {
		if s, ok := body[k].(string); ok {
			c.submitted = append(c.submitted, s)
		}
	}
	return c
}

// typo drops a letter from the middle of the street name's longest word, a common
// mistake in a checkout form; names without a word of six letters are left alone.
func typo(street string) (string, bool) {
	words := strings.Fields(street)
	best := -1
	for i, w := range words {
		if utf8.RuneCountInString(w) >= 6 && (best < 0 || len(w) > len(words[best])) {
			best = i
		}
	}
	if best < 0 {
		return street, false
	}
	r := []rune(words[best])
	m := len(r) / 2
	words[best] = string(slices.Delete(r, m, m+1))
	return strings.Join(words, " "), true
}

// prefix is the first n letters of s, trimmed.
func prefix(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		r = r[:n]
	}
	return strings.TrimSpace(string(r))
}

// suggestCall types the street's name up to where it differs from every other street of
// its postcode, at least seven letters, so that the street must be among the ten answers.
func suggestCall(r *register, a *adreswijzer.Address, variant int) *call {
	street := a.Street.Pick(adreswijzer.LangNL)
	others := r.streetsAt(a.Postcode)
	q := prefix(street, 7)
	for n := 7; n <= utf8.RuneCountInString(street); n++ {
		q = prefix(street, n)
		unique := true
		for o := range others {
			if o != fold(street) && strings.HasPrefix(o, fold(q)) {
				unique = false
				break
			}
		}
		if unique {
			break
		}
	}
	v := url.Values{"country": {strings.ToLower(string(a.Country))}, "q": {q}}
	if variant%2 == 0 {
		v.Set("postcode", a.Postcode)
	}
	return &call{route: routeSuggest, country: a.Country, method: http.MethodGet,
		target: "/v1/suggest?" + v.Encode(), q: q, addr: a, submitted: []string{q}}
}

func autocompleteCall(a *adreswijzer.Address, variant int) *call {
	street := a.Street.Pick(adreswijzer.LangNL)
	var q string
	switch variant % 3 {
	case 0:
		q = street + " " + strconv.Itoa(a.HouseNumber)
	case 1:
		q = adreswijzer.FormatPostcode(a.Country, a.Postcode) + " " + strconv.Itoa(a.HouseNumber)
	default:
		q = prefix(street, 9)
	}
	v := url.Values{"country": {strings.ToLower(string(a.Country))}, "q": {q}}
	return &call{route: routeAutocomplete, country: a.Country, method: http.MethodGet,
		target: "/v1/autocomplete?" + v.Encode(), q: q, addr: a,
		submitted: []string{q}}
}
