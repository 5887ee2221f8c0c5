package match

import (
	"context"
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
		return ix.searchStreets(q, 2*limit)
	}
	return ix.searchAmong(q, ix.postcodeStreets(pc), 2*limit)
}

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
