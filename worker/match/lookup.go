package match

import (
	"context"
	"strings"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/worker/carrier"
	"github.com/adreswijzer/adreswijzer/worker/messages"
)

// LookupQuery asks for every address at a house number: NL by postcode and number, BE by
// postcode, street and number (a Belgian postcode spans many streets). The HTTP layer has
// checked that the required parameters are present and well-formed.
type LookupQuery struct {
	Country  adreswijzer.Country
	Postcode string
	Number   int
	// Street is required for BE, in either register language and typo-tolerant. For NL it
	// is optional and only narrows the answer when a postcode and number span two streets.
	Street string
	// Lang is the language of messages and names; empty picks the region's.
	Lang adreswijzer.Language
	// Carrier whose fields each address carries; empty gives the country's postal operator
	// (PostNL, bpost), because LookupAddress.carrier is required.
	Carrier adreswijzer.Carrier
}

// Lookup returns every address at the number with the additions to choose from, sorted as
// people read them (the bare number, then letters, then units in numeric order). When there
// is none, the list is empty and an issue says whether the postcode, the street or the
// number was not found.
func (e *Engine) Lookup(ctx context.Context, q LookupQuery) (adreswijzer.LookupResponse, error) {
	resp := adreswijzer.LookupResponse{Addresses: []adreswijzer.LookupAddress{}, Additions: []*string{}, Issues: []adreswijzer.Issue{}}
	q.Street, _ = cleanText(q.Street)
	q.Postcode, _ = cleanText(q.Postcode)
	c, ok := adreswijzer.ParseCountry(string(q.Country))
	if !ok {
		lang, issues, m := unsupported(string(q.Lang))
		resp.Issues, resp.Meta = issues, m
		resp.NextStep = messages.NextStep(lang, messages.UnsupportedCountry)
		return resp, nil
	}
	ds, ix, err := e.active(ctx, c)
	if err != nil {
		return adreswijzer.LookupResponse{}, err
	}
	pc, pcErr := adreswijzer.NormalizePostcode(c, q.Postcode)
	var found []adreswijzer.Address
	var hit *nameMatch
	var pend []pending
	switch {
	case pcErr != nil:
		pend = append(pend, pending{code: adreswijzer.IssueFormatInvalid, field: adreswijzer.FieldZip})
	case !ix.hasPostcode(pc):
		pend = append(pend, pending{code: adreswijzer.IssuePostcodeNotFound, field: adreswijzer.FieldZip})
	case c == adreswijzer.BE && strings.TrimSpace(q.Street) != "":
		found, hit, pend, err = lookupOnStreets(ctx, ds, ix, pc, q.Number, newExactName(q.Street))
		if err != nil {
			return adreswijzer.LookupResponse{}, storeErr(err)
		}
	default:
		as, err := ds.AddressesAt(ctx, pc, q.Number)
		if err != nil {
			return adreswijzer.LookupResponse{}, storeErr(err)
		}
		found, hit, pend = lookupStreet(c, ix, ds.Catalog(), pc, as, newTypedName(q.Street))
	}
	// A register may hold one postal address twice (two current BeST records of
	// Harenheidestraat 89A): a customer picks from what is printed, so each is listed once.
	found = sortPostal(found)
	lang := answerLanguage(string(q.Lang), c, pc, hit)
	k := carrierFor(string(q.Carrier), c)
	var w carrier.Writer
	var opts []optionalFields
	if len(found) > 0 {
		resp.Addresses = make([]adreswijzer.LookupAddress, 0, len(found))
		w.Expect(len(found))
		opts = make([]optionalFields, len(found))
	}
	for i := range found {
		resp.Addresses = append(resp.Addresses, lookupAddress(&w, &found[i], &opts[i], k, lang))
	}
	resp.Additions = additionsOf(resp.Addresses)
	for _, p := range pend {
		d := messages.Details{Country: c}
		if p.street != nil {
			d.Street = carrier.Fields(p.street, "", lang).Street
		}
		resp.Issues = append(resp.Issues, issue(lang, p.code, p.field, d))
	}
	switch len(found) {
	case 0:
		resp.NextStep = messages.NextStep(lang, messages.LookupNone)
	case 1:
		resp.NextStep = messages.NextStep(lang, messages.LookupOne)
	default:
		resp.NextStep = messages.NextStep(lang, messages.LookupSeveral)
	}
	resp.Meta = meta(c, ds, lang)
	return resp, nil
}

// lookupStreet keeps the addresses on the typed street. Without a street (NL) all addresses
// at the number stay. The street is looked for among all streets of the postcode, so that a
// street that exists there without the number gives HOUSE_NUMBER_NOT_FOUND and one that does
// not exist there gives STREET_MISMATCH. A street matched only after a correction is named in
// a STREET_MISMATCH warning beside the addresses.
func lookupStreet(c adreswijzer.Country, ix *index, cat *adreswijzer.Catalog, pc string, as []adreswijzer.Address, street typedName) ([]adreswijzer.Address, *nameMatch, []pending) {
	if street.empty() {
		if len(as) == 0 {
			return nil, nil, []pending{{code: adreswijzer.IssueHouseNumberNotFound, field: adreswijzer.FieldAddress1}}
		}
		return as, nil, nil
	}
	var best nameMatch
	var bestID string
	var memo streetMemo
	for i := range as {
		if m := memo.match(ix, street, &as[i]); m.better(best) {
			best, bestID = m, as[i].StreetID
		}
	}
	if best.level >= levelFuzzy {
		kept := keepAddrs(as, func(a *adreswijzer.Address) bool { return a.StreetID == bestID })
		var pend []pending
		if best.level != levelExact {
			pend = append(pend, pending{code: adreswijzer.IssueStreetMismatch, field: adreswijzer.FieldAddress1, street: &kept[0]})
		}
		return kept, &best, pend
	}
	if c == adreswijzer.NL && len(as) > 0 {
		// The postcode and number identify a Dutch address; a street typed differently does
		// not hide it.
		return as, nil, []pending{{code: adreswijzer.IssueStreetMismatch, field: adreswijzer.FieldAddress1, street: &as[0]}}
	}
	for _, st := range ix.postcodeStreets(pc) {
		var buf [4]nameVariant
		if m := matchStreet(street, ix.streetVariants(st, &buf)); m.level >= levelFuzzy {
			return nil, &m, []pending{{code: adreswijzer.IssueHouseNumberNotFound, field: adreswijzer.FieldAddress1}}
		}
	}
	if len(as) == 0 && c == adreswijzer.NL {
		return nil, nil, []pending{{code: adreswijzer.IssueHouseNumberNotFound, field: adreswijzer.FieldAddress1}}
	}
	return nil, nil, []pending{{code: adreswijzer.IssueStreetMismatch, field: adreswijzer.FieldAddress1}}
}

// lookupOnStreets answers a Belgian lookup as lookupStreet does, street first: a Belgian
// postcode is a whole municipality, with the number on hundreds of its streets, so the
// streets of the postcode are matched by name and only the best ones read for the number.
// The answer is the best-matching street that has the number; a matching street without it
// gives HOUSE_NUMBER_NOT_FOUND, and no matching street STREET_MISMATCH. Streets typed as the
// register writes them (up to case, accents and abbreviations) are tried before any
// similarity is computed, which is most lookups; street has only its exact forms (see
// newExactName) until then.
func lookupOnStreets(ctx context.Context, ds adreswijzer.Dataset, ix *index, pc string, n int, street typedName) ([]adreswijzer.Address, *nameMatch, []pending, error) {
	streets := ix.postcodeStreets(pc)
	var first *nameMatch // the best street found, with or without the number
	tried := map[uint32]bool{}
	for _, exact := range []bool{true, false} {
		if !exact {
			street.addLoose()
		}
		cands := ix.rankStreets(street, levelFuzzy, exact, streets)
		for i := range cands {
			if first == nil {
				first = &cands[i].m
			}
			if tried[cands[i].st] {
				continue
			}
			tried[cands[i].st] = true
			as, err := ds.AddressesOnStreet(ctx, cands[i].st, n)
			if err != nil {
				return nil, nil, nil, err
			}
			kept := keepAddrs(as, func(a *adreswijzer.Address) bool { return a.Postcode == pc })
			if len(kept) == 0 {
				continue
			}
			var pend []pending
			if cands[i].m.level != levelExact {
				pend = append(pend, pending{code: adreswijzer.IssueStreetMismatch, field: adreswijzer.FieldAddress1, street: &kept[0]})
			}
			return kept, &cands[i].m, pend, nil
		}
	}
	if first == nil {
		return nil, nil, []pending{{code: adreswijzer.IssueStreetMismatch, field: adreswijzer.FieldAddress1}}, nil
	}
	return nil, first, []pending{{code: adreswijzer.IssueHouseNumberNotFound, field: adreswijzer.FieldAddress1}}, nil
}

// additionsOf lists the distinct additions of the addresses, in their order. A block of
// flats has hundreds, so past a few they are looked up in a set rather than compared with
// every one before them.
func additionsOf(as []adreswijzer.LookupAddress) []*string {
	const few = 16
	list := make([]*string, 0, len(as))
	if len(as) <= few {
		for i := range as {
			if !containsAddition(list, as[i].Addition) {
				list = append(list, as[i].Addition)
			}
		}
		return list
	}
	seen := make(map[string]bool, len(as))
	bare := false // whether the bare number (no addition) is listed
	for i := range as {
		s := as[i].Addition
		switch {
		case s == nil && !bare:
			bare = true
		case s != nil && !seen[*s]:
			seen[*s] = true
		default:
			continue
		}
		list = append(list, s)
	}
	return list
}

func containsAddition(list []*string, s *string) bool {
	for _, x := range list {
		if x == nil && s == nil || x != nil && s != nil && *x == *s {
			return true
		}
	}
	return false
}
