package match

import (
	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/worker/carrier"
	"github.com/adreswijzer/adreswijzer/worker/messages"
)

// Writing the answer: the outcome in the answer's language, with the normalized address, its
// carrier fields and the suggestions.

// answer writes the outcome in the answer's language.
func (v *validation) answer(out outcome) adreswijzer.ValidateResponse {
	pc := v.pc
	if out.match != nil {
		pc = out.match.Postcode
	} else if len(out.cands) > 0 {
		pc = out.cands[0].Postcode
	}
	lang := answerLanguage(v.r.Lang, v.c, pc, out.streetHit)
	resp := adreswijzer.ValidateResponse{
		Status:      out.status,
		Suggestions: []adreswijzer.NormalizedAddress{},
		Confidence:  out.confidence,
		Blocking:    out.blocking,
		Issues:      []adreswijzer.Issue{},
		NextStep:    messages.NextStep(lang, out.situation),
		Meta:        meta(v.c, v.ds, lang),
	}
	for _, p := range out.issues {
		d := messages.Details{Country: v.c, UnitType: p.unit, AtPostcode: p.atPostcode}
		if p.street != nil {
			d.Street = carrier.Fields(p.street, "", lang).Street
		}
		if p.city != nil {
			d.City = carrier.Fields(p.city, "", lang).City
		}
		if len(p.options) > 0 {
			d.Options = options(p.options, lang)
		}
		resp.Issues = append(resp.Issues, issue(lang, p.code, p.field, d))
	}
	if a := out.match; a != nil {
		n := normalized(a, lang)
		resp.Normalized = &n
		resp.Formatted = carrier.Lines(a, lang)
		resp.Match = addressMatch(a, lang)
		cf := carrier.Fields(a, carrierFor(v.r.Carrier, v.c), lang)
		resp.Carrier = &cf
		if _, named := adreswijzer.ParseCarrier(v.r.Carrier); named {
			resp.Issues = append(resp.Issues, cf.Warnings...)
		}
	}
	for i := range out.cands {
		if len(resp.Suggestions) == adreswijzer.MaxSuggestions {
			break
		}
		resp.Suggestions = append(resp.Suggestions, normalized(&out.cands[i], lang))
	}
	return resp
}
