package match

import (
	"context"
	"slices"
	"strings"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/worker/messages"
)

// SuggestQuery is what a person has typed of a street so far.
type SuggestQuery struct {
	Country adreswijzer.Country
	Q       string
	// Postcode, when given, limits the streets to those with addresses in it.
	Postcode string
	Lang     adreswijzer.Language
}

// minCountryWide is how many letters a query needs before streets are searched country-wide:
// with fewer, tens of thousands of streets match and no ten of them are a useful answer.
const minCountryWide = 3

// Suggest returns up to ten streets for a partly typed name, in any register language,
// tolerating typos (one for four to six letters, two beyond). Names that start with the query
// come first, then names with a later word that does, then typo-tolerant guesses; ties go to
// the bigger street, then the alphabet. An invalid or unknown postcode gives an empty list
// with an issue; a country-wide query shorter than three letters an empty list without one.
func (e *Engine) Suggest(ctx context.Context, q SuggestQuery) (adreswijzer.SuggestResponse, error) {
	resp := adreswijzer.SuggestResponse{Suggestions: []adreswijzer.StreetSuggestion{}, Issues: []adreswijzer.Issue{}}
	q.Q, _ = cleanText(q.Q)
	q.Postcode, _ = cleanText(q.Postcode)
	c, ok := adreswijzer.ParseCountry(string(q.Country))
	if !ok {
		_, issues, m := unsupported(string(q.Lang))
		resp.Issues, resp.Meta = issues, m
		return resp, nil
	}
	ds, ix, err := e.active(ctx, c)
	if err != nil {
		return adreswijzer.SuggestResponse{}, err
	}
	pc, code := postcodeFilter(c, ix, q.Postcode)
	if code != "" {
		lang := answerLanguage(string(q.Lang), c, "", nil)
		resp.Issues = append(resp.Issues, issue(lang, code, adreswijzer.FieldZip, messages.Details{Country: c}))
		resp.Meta = meta(c, ds, lang)
		return resp, nil
	}
	hits := ix.suggestStreets(ds.Catalog(), fold(q.Q), pc, adreswijzer.MaxSuggestions)
	var first *nameMatch
	if len(hits) > 0 {
		first = &nameMatch{level: levelExact, kind: hits[0].kind}
	}
	lang := answerLanguage(string(q.Lang), c, pc, first)
	resp.Suggestions = ix.streetSuggestions(ds.Catalog(), hits, pc, lang)
	resp.Meta = meta(c, ds, lang)
	return resp, nil
}

// postcodeFilter checks an optional postcode parameter: the register form, or the issue
// code that explains why there is no answer.
func postcodeFilter(c adreswijzer.Country, ix *index, s string) (string, adreswijzer.IssueCode) {
	if strings.TrimSpace(s) == "" {
		return "", ""
	}
	pc, err := adreswijzer.NormalizePostcode(c, s)
	if err != nil {
		return "", adreswijzer.IssueFormatInvalid
	}
	if !ix.hasPostcode(pc) {
		return "", adreswijzer.IssuePostcodeNotFound
	}
	return pc, ""
}

// suggestStreets searches the whole country, or only the streets of a postcode. A few
// hits more than wanted are asked for, because equal suggestions (two public spaces of one
// name in one place) are shown once.
func (ix *index) suggestStreets(cat *adreswijzer.Catalog, q string, pc string, limit int) []hit {
	if q == "" {
		return nil
	}
	if pc == "" {
		if len(strings.ReplaceAll(q, " ", "")) < minCountryWide {
			return nil
		}
		return ix.expanded(q, 2*limit, func(q string) []hit { return ix.searchStreets(q, 2*limit) })
	}
	streets := ix.postcodeStreets(pc)
	return ix.expanded(q, 2*limit, func(q string) []hit { return ix.searchAmong(q, streets, 2*limit) })
}

// expanded runs a street search for the folded query and for each way of writing out its
// abbreviated words, and ranks the hits together. Validation meets "Chée de Haecht" and
// "Chaussée de Haecht" by reducing both to one canonical form (abbrev.go); a type-ahead
// searches the register's names as they are written, by their beginnings, so it must
// write the typed abbreviation out instead, in every way canonWord knows ("st" is sint,
// saint or sankt). A query without abbreviations costs one search, as before.
func (ix *index) expanded(q string, limit int, search func(q string) []hit) []hit {
	variants := expansions(q)
	if len(variants) == 0 {
		return search(q)
	}
	var all []hit
	at := map[uint32]int{}
	for _, v := range append([]string{q}, variants...) {
		for _, h := range search(v) {
			if i, ok := at[h.street]; !ok {
				at[h.street] = len(all)
				all = append(all, h)
			} else if betterHit(h, all[i]) {
				all[i] = h
			}
		}
	}
	return ix.rank(all, limit)
}

// maxExpansions bounds the written-out variants of one query: each costs a search.
const maxExpansions = 6

// expansions returns the folded query with its abbreviated words written out, each
// combination once, at most maxExpansions of them; none when no word is an abbreviation.
func expansions(q string) []string {
	words := strings.Split(q, " ")
	out := []string{""}
	expandedAny := false
	for i, w := range words {
		forms := []string{w}
		if full := writtenOut[w]; len(full) > 0 {
			forms = append(forms, full...)
			expandedAny = true
		}
		var next []string
		for _, prefix := range out {
			for _, f := range forms {
				if len(next) == maxExpansions+1 {
					break
				}
				if i > 0 {
					f = prefix + " " + f
				}
				next = append(next, f)
			}
		}
		out = next
	}
	if !expandedAny {
		return nil
	}
	return out[1:] // the first is q itself
}

// writtenOut maps an abbreviated word (folded) to the words canonWord reduces to the same
// short form and that are longer than it: "chee" to "chaussee", "av" to "avenue" (and
// "ave"), "st" to "sint", "saint" and "sankt".
var writtenOut = func() map[string][]string {
	groups := map[string][]string{}
	for w, c := range canonWord {
		groups[c] = append(groups[c], w)
	}
	m := map[string][]string{}
	for w, c := range canonWord {
		for _, x := range groups[c] {
			if x != w && len(x) > len(w) && len(x) > len(c) {
				m[w] = append(m[w], x)
			}
		}
		slices.Sort(m[w])
	}
	return m
}()

// searchAmong ranks a small set of streets (one postcode's) by the same tiers as the index,
// comparing each name directly: any query length is fine here.
func (ix *index) searchAmong(q string, streets []uint32, limit int) []hit {
	budget := editBudget(q)
	var hits []hit
	for _, st := range streets {
		var best hit
		found := false
		var buf [4]nameVariant
		for _, v := range ix.streetVariants(st, &buf) {
			h := hit{street: st, kind: v.kind, freq: 1, alpha: v.alpha}
			switch {
			case strings.HasPrefix(v.folded, q):
				h.tier = tierName
			case strings.Contains(v.folded, " "+q):
				h.tier, h.word = tierWord, true
			default:
				if budget == 0 {
					continue
				}
				d := fuzzyPrefixDistance(q, v.folded, budget)
				if d > budget {
					continue
				}
				h.tier, h.dist = tierFuzzy, uint8(d)
			}
			if !found || betterHit(h, best) {
				best, found = h, true
			}
		}
		if found {
			hits = append(hits, best)
		}
	}
	return ix.rank(hits, limit)
}

// streetSuggestions writes the hits: the street in the language its matched name is in (a
// Brussels customer typing French sees French), its locality in the same language, and the
// postcode when it is the one asked for or the street's only one.
func (ix *index) streetSuggestions(cat *adreswijzer.Catalog, hits []hit, pc string, lang adreswijzer.Language) []adreswijzer.StreetSuggestion {
	out := make([]adreswijzer.StreetSuggestion, 0, len(hits))
	seen := map[adreswijzer.StreetSuggestion]bool{}
	for _, h := range hits {
		if len(out) == adreswijzer.MaxSuggestions {
			break
		}
		nameLang := lang
		if h.kind != kindShort {
			nameLang = h.kind.lang()
		}
		s := adreswijzer.StreetSuggestion{Street: ix.streetName(h.street, h.kind, lang)}
		loc := ix.streets[h.street].locality
		postcode := ix.onlyPostcode(h.street)
		if pc != "" {
			postcode = pc
			for _, p := range ix.placesIn(pc) {
				if p.Street == h.street {
					loc = p.Locality
					break
				}
			}
		}
		s.Locality = cat.Localities[loc].Names.Pick(nameLang)
		if postcode != "" {
			s.Postcode = &postcode
		}
		key := s
		key.Postcode = nil
		if seen[key] && s.Postcode == nil {
			continue
		}
		seen[key] = true
		out = append(out, s)
	}
	return out
}
