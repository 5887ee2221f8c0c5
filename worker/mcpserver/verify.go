package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/gateway/agentpolicy/rpcinspect"
	"github.com/adreswijzer/adreswijzer/worker/match"
	"github.com/adreswijzer/adreswijzer/worker/messages"
)

// verified is the outcome of one address.
type verified struct {
	resp     adreswijzer.ValidateResponse
	country  string // the country checked; "" when it could not be told
	detected bool   // the countryCode argument was absent
}

func (s *service) verifyTool(ctx context.Context, _ *mcp.CallToolRequest, in VerifyInput) (*mcp.CallToolResult, VerifyOutput, error) {
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, s.opts.CallTimeout)
	defer cancel()
	r, err := buildRequest(in.AddressFields, in.Lang, in.Carrier, s.knownPlace(ctx))
	if err != nil {
		s.logCall(ctx, ToolVerify, start, 0, "bad input", err)
		return nil, VerifyOutput{}, err
	}
	v, err := s.verify(ctx, r)
	if err != nil {
		err = unavailable()
		s.logCall(ctx, ToolVerify, start, 0, "unavailable", err)
		return nil, VerifyOutput{}, err
	}
	// Detected means the caller did not say: a country word in the text counts too.
	v.detected = strings.TrimSpace(in.CountryCode) == "" && v.country != ""
	s.logCall(ctx, ToolVerify, start, 0, string(v.resp.Status), nil)
	return nil, verifyOutput(v), nil
}

func verifyOutput(v verified) VerifyOutput {
	r := v.resp
	out := VerifyOutput{
		Status:          r.Status,
		CountryDetected: v.detected,
		Formatted:       r.Formatted,
		Normalized:      r.Normalized,
		Match:           r.Match,
		Suggestions:     r.Suggestions,
		Confidence:      r.Confidence,
		Blocking:        r.Blocking,
		Issues:          r.Issues,
		Carrier:         r.Carrier,
		NextStep:        r.NextStep,
		Meta:            r.Meta,
	}
	if v.country != "" {
		out.CountryCode = &v.country
	}
	return out
}

// maxIDLength bounds a batch item's id, which is only echoed back: order numbers and UUIDs
// are far shorter, and an answer must not grow with whatever a caller puts there. The
// gateway counts a batch by the same bound.
const maxIDLength = rpcinspect.MaxIDLength

// maxCountryLength bounds countryCode, which takes a country's name too: "Bondsrepubliek
// Duitsland" is far shorter.
const maxCountryLength = 60

// buildRequest checks the arguments and turns them into a validate request, splitting a
// free-form address with the place names of known. Its errors are for the agent and name
// the argument, never its value.
func buildRequest(a AddressFields, lang, carrier string, known adreswijzer.PlaceKnown) (adreswijzer.ValidateRequest, error) {
	l, k, err := langAndCarrier(lang, carrier)
	if err != nil {
		return adreswijzer.ValidateRequest{}, err
	}
	parts := a.Address1 != "" || a.Address2 != "" || a.Zip != "" || a.City != ""
	free := strings.TrimSpace(a.Address) != ""
	switch {
	case free && parts:
		return adreswijzer.ValidateRequest{}, badInput("Give either address (the whole address as text) or the parts address1, address2, zip and city, not both.")
	case !free && !parts:
		return adreswijzer.ValidateRequest{}, badInput(`The address is missing: give address (e.g. "Achtergracht 1, 1381 BK Weesp") or the parts address1 and zip (and city).`)
	case utf8.RuneCountInString(a.Address) > adreswijzer.MaxFreeFormLength:
		return adreswijzer.ValidateRequest{}, badInput(fmt.Sprintf("address is longer than %d characters. Send only the postal address (street and number, postcode, city, country), or use the parts address1, zip and city.", adreswijzer.MaxFreeFormLength))
	}
	for _, f := range []struct{ name, v string }{{"address1", a.Address1}, {"address2", a.Address2}, {"zip", a.Zip}, {"city", a.City}} {
		if utf8.RuneCountInString(f.v) > adreswijzer.MaxFieldLength {
			return adreswijzer.ValidateRequest{}, badInput(fmt.Sprintf("%s is longer than %d characters.", f.name, adreswijzer.MaxFieldLength))
		}
	}
	if utf8.RuneCountInString(a.CountryCode) > maxCountryLength {
		return adreswijzer.ValidateRequest{}, badInput("countryCode must be NL or BE (or a country name).")
	}
	r := adreswijzer.ValidateRequest{
		Lang: string(l), Carrier: string(k),
		CustomerConfirmed: a.CustomerConfirmed, AllowPoBox: a.AllowPoBox,
	}
	if free {
		f := adreswijzer.SplitFreeForm(a.Address, known)
		r.Address1, r.Zip, r.CountryCode = f.Address1, f.Zip, f.Country
		if f.Address2 != "" {
			r.Address2 = &f.Address2
		}
		if f.City != "" {
			r.City = &f.City
		}
	} else {
		r.Address1, r.Zip = a.Address1, a.Zip
		if a.Address2 != "" {
			r.Address2 = &a.Address2
		}
		if a.City != "" {
			r.City = &a.City
		}
	}
	if c := strings.TrimSpace(a.CountryCode); c != "" {
		// The argument wins over a country word in the text.
		r.CountryCode = countryCodeOf(c)
	}
	return r, nil
}

// countryCodeOf reads a countryCode argument: a code in any case or a country name. What is
// neither is passed on as it is, and the engine answers UNSUPPORTED_COUNTRY.
func countryCodeOf(s string) string {
	if c, ok := adreswijzer.ParseCountry(s); ok {
		return string(c)
	}
	if c := adreswijzer.CountryOfName(s); c != "" {
		return c
	}
	return strings.ToUpper(s)
}

// verify validates one address (CountryCode empty when the country must be detected). Its
// errors are the store's.
func (s *service) verify(ctx context.Context, r adreswijzer.ValidateRequest) (verified, error) {
	if r.CountryCode != "" {
		resp, err := s.engine.Validate(ctx, r)
		if err != nil {
			return verified{}, err
		}
		v := verified{resp: resp}
		if _, ok := adreswijzer.ParseCountry(r.CountryCode); ok {
			v.country = r.CountryCode
		}
		return v, nil
	}
	return s.detect(ctx, r)
}

// candidate is a country tried for an address that names none.
type candidate struct {
	c     adreswijzer.Country
	resp  adreswijzer.ValidateResponse
	ds    adreswijzer.Dataset
	found bool // the register knows the address, in the postcode typed
}

// confirms reports whether an answer found the address (any verdict but invalid) in a
// postcode that agrees with the one typed: the same four digits, as Belgian postcodes and
// the Dutch postcode areas (PC4) have them. The engine may find a street by its name
// elsewhere in the country, which is a correction within a country but no evidence that
// the country is right.
func confirms(zip string, resp adreswijzer.ValidateResponse) bool {
	if resp.Status == adreswijzer.VerdictInvalid {
		return false
	}
	if nl, be := adreswijzer.PostcodeCountry(zip); !nl && !be {
		return true // nothing usable typed
	}
	digits := leadingDigits(zip)
	var found []adreswijzer.NormalizedAddress
	if resp.Normalized != nil {
		found = append(found, *resp.Normalized)
	}
	found = append(found, resp.Suggestions...)
	for _, n := range found {
		if strings.HasPrefix(n.Zip, digits) {
			return true
		}
	}
	return false
}

// leadingDigits returns the first four digits of a typed postcode ("B-1130" gives 1130).
func leadingDigits(zip string) string {
	var b strings.Builder
	for _, r := range zip {
		if r >= '0' && r <= '9' {
			b.WriteRune(r)
			if b.Len() == 4 {
				break
			}
		}
	}
	return b.String()
}

// detect finds the country of an address that names none, from the evidence in it: the
// postcode's shape (four digits and two letters are Dutch, a B- prefix Belgian, four bare
// digits either); then which register knows the address; then which knows the postcode or
// the place. COUNTRY_AMBIGUOUS is the answer only when the evidence fits both countries,
// because a parcel sent to the wrong country is lost. Input with no evidence for either
// (no postcode, no known place, found in neither register) is answered with what is wrong
// with it in any country, not with a question about the country.
//
// A country whose register is not loaded may still be the address's: when the postcode
// fits it and the loaded register does not hold the address at that postcode, the answer
// is the store's error (the agent accepts the address and verifies it later), never a
// guess from the other register.
func (s *service) detect(ctx context.Context, req adreswijzer.ValidateRequest) (verified, error) {
	fits := map[adreswijzer.Country]bool{adreswijzer.NL: true, adreswijzer.BE: true}
	hasPostcode := false
	if zip := strings.TrimSpace(req.Zip); zip != "" {
		if nl, be := adreswijzer.PostcodeCountry(zip); nl || be {
			fits[adreswijzer.NL], fits[adreswijzer.BE], hasPostcode = nl, be, true
		}
	}
	var all []candidate
	var missing error
	for _, c := range adreswijzer.Countries {
		if !fits[c] {
			continue
		}
		ds, err := s.engine.Dataset(ctx, c)
		if errors.Is(err, adreswijzer.ErrNoDataset) {
			missing = fmt.Errorf("detect country: register of %s: %w", c, err)
			continue
		}
		if err != nil {
			// A register that is down could hold the address: no guessing from the other.
			return verified{}, fmt.Errorf("detect country: register of %s: %w", c, err)
		}
		r := req
		r.CountryCode = string(c)
		resp, err := s.engine.Validate(ctx, r)
		if err != nil {
			return verified{}, fmt.Errorf("detect country: validate in %s: %w", c, err)
		}
		all = append(all, candidate{c: c, resp: resp, ds: ds, found: confirms(req.Zip, resp)})
	}
	var found []candidate
	for _, t := range all {
		if t.found {
			found = append(found, t)
		}
	}
	if missing != nil && (hasPostcode && len(found) == 0 || len(all) == 0) {
		return verified{}, missing
	}
	switch {
	case len(found) == 1:
		return found[0].verified(), nil
	case len(found) > 1:
		// Found in both: the place typed may still name one country.
		if one := s.placeIn(ctx, found, req.City); one != nil {
			return one.verified(), nil
		}
		return verified{resp: countryAmbiguous(req, all)}, nil
	case len(all) == 1 && hasPostcode:
		// The postcode's shape singled out the country.
		return all[0].verified(), nil
	case hasPostcode:
		// Found nowhere, and four bare digits fit both: an invalid answer from the country
		// whose register knows the postcode (or else the city) explains best what is wrong.
		best, bestScore, tie := -1, 0, false
		for i, t := range all {
			score := 0
			if knowsPostcode(t.ds, t.c, req.Zip) {
				score += 2
			}
			if req.City != nil && s.knowsCity(ctx, t.c, *req.City) {
				score++
			}
			switch {
			case score > bestScore:
				best, bestScore, tie = i, score, false
			case score == bestScore:
				tie = true
			}
		}
		if best >= 0 && !tie {
			return all[best].verified(), nil
		}
		return verified{resp: countryAmbiguous(req, all)}, nil
	}
	// No postcode of either country and found in neither register: the place is the only
	// evidence left.
	var knowing []candidate
	for _, t := range all {
		if req.City != nil && s.knowsCity(ctx, t.c, *req.City) {
			knowing = append(knowing, t)
		}
	}
	switch len(knowing) {
	case 1:
		return knowing[0].verified(), nil
	case 0:
		return verified{resp: noCountry(req, all)}, nil
	}
	return verified{resp: countryAmbiguous(req, all)}, nil
}

func (t candidate) verified() verified { return verified{resp: t.resp, country: string(t.c)} }

// placeIn returns the one candidate whose register knows the city, or nil.
func (s *service) placeIn(ctx context.Context, cands []candidate, city *string) *candidate {
	if city == nil {
		return nil
	}
	var one *candidate
	for i, t := range cands {
		if s.knowsCity(ctx, t.c, *city) {
			if one != nil {
				return nil
			}
			one = &cands[i]
		}
	}
	return one
}

// noCountry answers an address with nothing Dutch or Belgian about it: no postcode either
// country could have, no place either register knows, no address either register holds
// ("asdfghjkl", "Rue de Rivoli 1, 75001 Paris"). Asking which of the two countries would
// be a wrong question; what is wrong in both is a missing or impossible postcode, which
// blocks by the spec, and perhaps the missing house number.
func noCountry(req adreswijzer.ValidateRequest, tried []candidate) adreswijzer.ValidateResponse {
	lang, resp := countryless(req, tried, adreswijzer.VerdictInvalid)
	resp.Blocking = true
	resp.NextStep = messages.NextStep(lang, messages.Blocking(adreswijzer.FieldZip))
	if missesHouseNumber(tried) {
		resp.Issues = append(resp.Issues, messages.NewIssue(lang, adreswijzer.IssueMissingHouseNumber, adreswijzer.FieldAddress1, messages.Details{}))
		resp.NextStep = messages.NextStep(lang, messages.MissingHouseNumber)
	}
	resp.Issues = append(resp.Issues, messages.NewIssue(lang, adreswijzer.IssueFormatInvalid, adreswijzer.FieldZip, messages.Details{}))
	return resp
}

// countryless starts the answer to an address whose country could not be settled: in the
// requested language (the default for none or an unknown one), with low confidence, no
// suggestions yet, and the meta of every register tried.
func countryless(req adreswijzer.ValidateRequest, tried []candidate, status adreswijzer.Verdict) (adreswijzer.Language, adreswijzer.ValidateResponse) {
	lang, ok := adreswijzer.ParseLanguage(req.Lang)
	if !ok {
		lang = adreswijzer.DefaultLanguage
	}
	dss := make([]adreswijzer.Dataset, len(tried))
	for i, t := range tried {
		dss[i] = t.ds
	}
	return lang, adreswijzer.ValidateResponse{
		Status:      status,
		Suggestions: []adreswijzer.NormalizedAddress{},
		Confidence:  adreswijzer.ConfidenceLow,
		Meta:        registersMeta(lang, dss),
	}
}

// missesHouseNumber reports whether the registers tried found no house number in what was
// typed: the engine reads address1 and address2 the same way for either country.
func missesHouseNumber(tried []candidate) bool {
	for _, t := range tried {
		for _, is := range t.resp.Issues {
			if is.Code == adreswijzer.IssueMissingHouseNumber {
				return true
			}
		}
	}
	return false
}

// countryAmbiguous is the answer that asks for the country. When the address exists in both
// registers, both versions are offered as suggestions.
func countryAmbiguous(req adreswijzer.ValidateRequest, tried []candidate) adreswijzer.ValidateResponse {
	lang, resp := countryless(req, tried, adreswijzer.VerdictAmbiguous)
	resp.Issues = []adreswijzer.Issue{
		messages.NewIssue(lang, adreswijzer.IssueCountryAmbiguous, adreswijzer.FieldCountryCode, messages.Details{}),
	}
	resp.NextStep = messages.NextStep(lang, messages.CountryAmbiguous)
	for _, t := range tried {
		if !t.found {
			continue
		}
		if t.resp.Normalized != nil {
			resp.Suggestions = append(resp.Suggestions, *t.resp.Normalized)
			continue
		}
		for _, sug := range t.resp.Suggestions {
			if len(resp.Suggestions) < adreswijzer.MaxSuggestions {
				resp.Suggestions = append(resp.Suggestions, sug)
			}
		}
	}
	return resp
}

// registersMeta names every register an answer consulted, with their versions joined as
// the spec's datasetVersion allows, and the BeST attribution when Belgian data was used.
func registersMeta(lang adreswijzer.Language, dss []adreswijzer.Dataset) adreswijzer.Meta {
	m := adreswijzer.Meta{Language: lang}
	var versions []adreswijzer.DatasetVersion
	var sources []string
	for _, ds := range dss {
		info := ds.Info()
		versions = append(versions, info.Version)
		switch info.Country {
		case adreswijzer.NL:
			sources = append(sources, match.SourceBAG)
		case adreswijzer.BE:
			sources = append(sources, match.SourceBeST)
			m.Attribution = ptr(match.AttributionBeST)
		}
	}
	if v := string(adreswijzer.CombineVersions(versions...)); v != "" {
		m.DatasetVersion = &v
	}
	if len(sources) > 0 {
		m.Source = ptr(strings.Join(sources, "; "))
	}
	return m
}

// knowsPostcode reports whether the register has addresses in the postcode, or for a Dutch
// four-digit area (PC4) in any postcode of it.
func knowsPostcode(ds adreswijzer.Dataset, c adreswijzer.Country, zip string) bool {
	if strings.TrimSpace(zip) == "" {
		return false
	}
	cat := ds.Catalog()
	if pc, err := adreswijzer.NormalizePostcode(c, zip); err == nil {
		return cat.HasPostcode(pc)
	}
	if c != adreswijzer.NL {
		return false
	}
	digits := leadingDigits(zip)
	if len(digits) != 4 {
		return false
	}
	i := sort.Search(len(cat.Places), func(i int) bool { return cat.Places[i].Postcode >= digits })
	return i < len(cat.Places) && strings.HasPrefix(cat.Places[i].Postcode, digits)
}
