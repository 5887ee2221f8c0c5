package match

import (
	"context"
	"errors"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/worker/carrier"
	"github.com/adreswijzer/adreswijzer/worker/messages"
)

// AutocompleteQuery is what a person has typed of a whole address so far: a street and
// number ("Bloemendalerweg 51"), a postcode and number ("1382 KB 51"), or a place.
type AutocompleteQuery struct {
	Country adreswijzer.Country
	Q       string
	// Postcode, when given, limits the answer to it.
	Postcode string
	Lang     adreswijzer.Language
	// Budget replaces Options.AutocompleteBudget for this call: a person typing needs an
	// answer within tens of milliseconds, an agent can wait for a complete one.
	Budget time.Duration
}

// Kinds of autocomplete suggestion (AutocompleteSuggestion.Kind).
const (
	KindAddress  = "address"
	KindStreet   = "street"
	KindLocality = "locality"
)

// streetsPerQuery bounds how many matching streets an autocomplete looks up addresses on:
// each costs a store call, and the eleventh street is never shown anyway.
const streetsPerQuery = 5

// maxLocalities leaves most of the list to streets when a query also names places.
const maxLocalities = 3

// Autocomplete suggests whole addresses while a person types, up to ten. It stays within
// Options.AutocompleteBudget: when the budget runs out (or the store stops answering) it
// returns what it has with degraded set, never an error, because a type-ahead that fails
// must not stop the customer from typing on. Only a missing dataset is an error.
func (e *Engine) Autocomplete(ctx context.Context, q AutocompleteQuery) (adreswijzer.AutocompleteResponse, error) {
	resp := adreswijzer.AutocompleteResponse{Suggestions: []adreswijzer.AutocompleteSuggestion{}, Issues: []adreswijzer.Issue{}}
	q.Q, _ = cleanText(q.Q)
	q.Postcode, _ = cleanText(q.Postcode)
	c, ok := adreswijzer.ParseCountry(string(q.Country))
	if !ok {
		_, issues, m := unsupported(string(q.Lang))
		resp.Issues, resp.Meta = issues, m
		return resp, nil
	}
	budget := e.opts.AutocompleteBudget
	if q.Budget > 0 {
		budget = q.Budget
	}
	ctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	ds, ix, err := e.active(ctx, c)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			resp.Degraded = true
			resp.Meta = meta(c, nil, answerLanguage(string(q.Lang), c, "", nil))
			return resp, nil
		}
		return adreswijzer.AutocompleteResponse{}, err
	}
	filter, code := postcodeFilter(c, ix, q.Postcode)
	if code != "" {
		lang := answerLanguage(string(q.Lang), c, "", nil)
		resp.Issues = append(resp.Issues, issue(lang, code, adreswijzer.FieldZip, messages.Details{Country: c}))
		resp.Meta = meta(c, ds, lang)
		return resp, nil
	}
	ac := &autocomplete{ctx: ctx, c: c, ds: ds, ix: ix, cat: ds.Catalog(), filter: filter}
	ac.run(q.Q)
	lang := answerLanguage(string(q.Lang), c, ac.postcode(), ac.kind)
	resp.Suggestions = ac.write(lang)
	resp.Degraded = ac.degraded
	resp.Meta = meta(c, ds, lang)
	return resp, nil
}

type autocomplete struct {
	ctx    context.Context
	c      adreswijzer.Country
	ds     adreswijzer.Dataset
	ix     *index
	cat    *adreswijzer.Catalog
	filter string // postcode parameter

	addrs      []adreswijzer.Address
	streets    []hit
	localities []uint32
	kind       *nameMatch // the language of the street typed, for the answer language
	degraded   bool
}

func (ac *autocomplete) run(q string) {
	pc, rest := extractPostcode(ac.c, ac.ix, q)
	if ac.filter != "" {
		if pc != "" && pc != ac.filter {
			return
		}
		pc = ac.filter
	}
	line := adreswijzer.ParseAddressLine(ac.c, rest)
	street := fold(line.Street)
	n := 0
	if line.HasNumber {
		n = line.Number.Number
	}
	unit := line.Number.LooseExtension()
	switch {
	case n > 0 && pc != "":
		ac.fetch(func() ([]adreswijzer.Address, error) { return ac.ds.AddressesAt(ac.ctx, pc, n) })
		if street != "" {
			// "1382 KB 51 A1" reads as a postcode, a number and a street "A1": keep the
			// addresses on a street that matches, or else take the text as the unit.
			t := newTypedName(line.Street)
			on := filterAddrs(ac.addrs, func(a *adreswijzer.Address) bool {
				var buf [4]nameVariant
				return matchStreet(t, ac.ix.streetVariantsOf(a, &buf)).level >= levelFuzzy
			})
			if len(on) > 0 {
				ac.addrs = on
			} else if u, _ := adreswijzer.ParseUnit(ac.c, line.Street); u != "" && unit == "" {
				unit = adreswijzer.LooseExtensionOf(u)
			}
		}
	case n > 0 && street != "":
		ac.findStreets(street, "", streetsPerQuery)
		for _, h := range ac.streets {
			st := h.street
			if !ac.fetch(func() ([]adreswijzer.Address, error) { return ac.ds.AddressesOnStreet(ac.ctx, st, n) }) {
				break
			}
		}
		if len(ac.addrs) > 0 {
			ac.streets = nil
		}
	case street != "":
		ac.findStreets(street, pc, adreswijzer.MaxSuggestions)
		if pc == "" {
			ac.findLocalities(street)
		}
	case pc != "":
		ac.streets = ac.ix.rank(ac.allStreetsIn(pc), adreswijzer.MaxSuggestions)
	}
	if unit != "" && len(ac.addrs) > 0 {
		kept := filterAddrs(ac.addrs, func(a *adreswijzer.Address) bool { return hasForm(a, unit, true, true) })
		if len(kept) > 0 {
			ac.addrs = kept
		}
	}
	ac.addrs = firstPostal(ac.addrs, adreswijzer.MaxSuggestions) // all write shows
}

// fetch runs one store call within the budget and reports whether to go on.
func (ac *autocomplete) fetch(call func() ([]adreswijzer.Address, error)) bool {
	if ac.ctx.Err() != nil {
		ac.degraded = true
		return false
	}
	as, err := call()
	if err != nil {
		// Out of time or the store is down: answer with what is there.
		ac.degraded = true
		return false
	}
	ac.addrs = append(ac.addrs, as...)
	return len(ac.addrs) < adreswijzer.MaxSuggestions
}

func (ac *autocomplete) findStreets(street, pc string, limit int) {
	if pc != "" {
		streets := ac.ix.postcodeStreets(pc)
		ac.streets = ac.ix.expanded(street, limit, func(q string) []hit { return ac.ix.searchAmong(q, streets, limit) })
	} else if len(strings.ReplaceAll(street, " ", "")) >= minCountryWide {
		ac.streets = ac.ix.expanded(street, limit, func(q string) []hit { return ac.ix.searchStreets(q, limit) })
	}
	if len(ac.streets) > 0 {
		ac.kind = &nameMatch{level: levelExact, kind: ac.streets[0].kind}
	}
}

func (ac *autocomplete) allStreetsIn(pc string) []hit {
	var hits []hit
	for _, st := range ac.ix.postcodeStreets(pc) {
		var buf [4]nameVariant
		for _, v := range ac.ix.streetVariants(st, &buf) {
			if v.kind != kindShort {
				hits = append(hits, hit{street: st, kind: v.kind, alpha: v.alpha, freq: 1})
				break
			}
		}
	}
	return hits
}

// findLocalities offers places whose name starts with the query.
func (ac *autocomplete) findLocalities(q string) {
	if len(q) < minCountryWide {
		return
	}
	keys := ac.ix.locKeys
	lo := sort.Search(len(keys), func(i int) bool { return keys[i].folded >= q })
	for i := lo; i < len(keys) && strings.HasPrefix(keys[i].folded, q); i++ {
		if !containsU32(ac.localities, keys[i].locality) {
			ac.localities = append(ac.localities, keys[i].locality)
		}
	}
}

// postcode is the postcode the answer is about, for its language.
func (ac *autocomplete) postcode() string {
	if len(ac.addrs) > 0 {
		return ac.addrs[0].Postcode
	}
	if ac.filter != "" {
		return ac.filter
	}
	if len(ac.streets) > 0 {
		return ac.ix.onlyPostcode(ac.streets[0].street)
	}
	return ""
}

func (ac *autocomplete) write(lang adreswijzer.Language) []adreswijzer.AutocompleteSuggestion {
	out := []adreswijzer.AutocompleteSuggestion{}
	for i := range ac.addrs {
		if len(out) == adreswijzer.MaxSuggestions {
			return out
		}
		a := &ac.addrs[i]
		n := normalized(a, lang)
		lines := carrier.Lines(a, lang)
		st := carrier.Fields(a, "", lang).Street
		pc := a.Postcode
		out = append(out, adreswijzer.AutocompleteSuggestion{
			Label:    lines[0] + ", " + strings.TrimSpace(n.Zip+" "+n.City),
			Kind:     KindAddress,
			Address:  &n,
			Street:   &st,
			Postcode: &pc,
			Locality: n.City,
		})
	}
	// Places before streets, at most a few: someone typing a place name wants the place, and
	// the streets of it come next.
	for i, l := range ac.localities {
		if i == maxLocalities {
			break
		}
		if len(out) == adreswijzer.MaxSuggestions {
			return out
		}
		// The postcode when the place has one: a form can fill it in (Malmedy is 4960),
		// and null, as for a street, only when it spans several.
		name := ac.cat.Localities[l].Names.Pick(lang)
		sg := adreswijzer.AutocompleteSuggestion{Label: name, Kind: KindLocality, Locality: name}
		if pc := ac.ix.localityPostcode(l); pc != "" {
			sg.Postcode = &pc
		}
		out = append(out, sg)
	}
	for _, s := range ac.ix.streetSuggestions(ac.cat, ac.streets, ac.filter, lang) {
		if len(out) == adreswijzer.MaxSuggestions {
			return out
		}
		street := s.Street
		out = append(out, adreswijzer.AutocompleteSuggestion{
			Label:    s.Street + ", " + s.Locality,
			Kind:     KindStreet,
			Street:   &street,
			Postcode: s.Postcode,
			Locality: s.Locality,
		})
	}
	return out
}

// extractPostcode finds a postcode in free text and returns it in register form with the rest
// of the text. A Dutch postcode is four digits and two letters, with or without a space, and
// may have the house number typed against it ("1382KB51", which leaves "51"). A Belgian one
// is four digits that the register knows as a postcode and that is not the only number in
// the text (which would be the house number), or that stands first.
func extractPostcode(c adreswijzer.Country, ix *index, q string) (string, string) {
	f := strings.Fields(q)
	numbers := 0
	for _, w := range f {
		if w != "" && isDigit(w[0]) {
			numbers++
		}
	}
	for i, w := range f {
		w = strings.Trim(w, ",;")
		cands := []string{w}
		if c == adreswijzer.NL && i+1 < len(f) && len(w) == 4 {
			cands = append([]string{w + strings.Trim(f[i+1], ",;")}, cands...)
		}
		for j, cand := range cands {
			pc, number := gluedNumber(c, cand)
			if pc == "" {
				var err error
				if pc, err = adreswijzer.NormalizePostcode(c, cand); err != nil {
					continue
				}
			}
			if c == adreswijzer.BE && (numbers < 2 && i > 0 || !ix.hasPostcode(pc)) {
				continue
			}
			used := 1
			if len(cands) == 2 && j == 0 {
				used = 2
			}
			return pc, strings.Join(slices.Concat(f[:i], strings.Fields(number), f[i+used:]), " ")
		}
	}
	return "", q
}

// gluedNumber reads a Dutch postcode with the house number typed against it, "1382KB51"
// or "1382KB51A", as the postcode and the rest; "" when w is not one.
func gluedNumber(c adreswijzer.Country, w string) (pc, number string) {
	const pcLen = len("1382KB")
	if c != adreswijzer.NL || len(w) <= pcLen || !isDigit(w[pcLen]) {
		return "", ""
	}
	pc, err := adreswijzer.NormalizePostcode(c, w[:pcLen])
	if err != nil {
		return "", ""
	}
	return pc, w[pcLen:]
}
