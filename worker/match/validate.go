package match

import (
	"context"
	"slices"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/worker/messages"
)

// A validation reads in phases, one concern per file:
//
//   - Validate takes the request in (cleanRequest, readRequest) and reads its lines into
//     fields (parse, validate_parse.go);
//   - run answers a PO box or a missing number at once (poBox, missingNumber,
//     validate_nomatch.go), or gathers the candidate addresses at the typed number (gather:
//     atPostcode, inPlace, byRareName, validate_gather.go), scores them and chooses (choose,
//     validate_choose.go), and resolves the chosen one (resolve: unitOutcome, verdict), or
//     offers two that tie (tied, bothReadings, validate_resolve.go), or explains why none
//     fits (noMatch, validate_nomatch.go), naming on the way what was typed differently
//     (validate_issues.go);
//   - Validate tries other readings of the lines when the first did not find the street as
//     typed (reread, validate_readings.go), and writes the outcome (answer,
//     validate_answer.go).

// Validate judges an address as a checkout holds it. The verdict is "valid" only when one
// register address matches and everything was typed as the register writes it (letter case
// and spacing aside, and the house number compared by its parts: "bus 3" is box "0003");
// "corrected" when one address matches after a correction; "ambiguous" when several fit;
// "invalid" when none does. blocking is true only where the spec allows it, and never for an
// address the register knows, however it was typed.
//
// normalized, formatted, match and carrier are filled when one address matched (valid,
// corrected), null otherwise. carrier holds the fields of the requested carrier or, when the
// request names none, of the national postal operator (PostNL, bpost), as lookup does and as
// openapi.json promises: a shop that prints its own labels still needs the fields split and
// checked against the limits every parcel to that country must meet. Its
// CARRIER_LINE_TOO_LONG warnings stay in carrier.warnings; they are copied into issues only
// when the caller named the carrier, because a warning about a carrier the shop may not use
// is no finding about the address the customer typed.
//
// The only errors are the store's (wrapping adreswijzer.ErrUnavailable or ErrNoDataset).
func (e *Engine) Validate(ctx context.Context, r adreswijzer.ValidateRequest) (adreswijzer.ValidateResponse, error) {
	c, ok := adreswijzer.ParseCountry(r.CountryCode)
	if !ok {
		return unsupportedCountry(r), nil
	}
	ds, ix, err := e.active(ctx, c)
	if err != nil {
		return adreswijzer.ValidateResponse{}, err
	}
	r, altered := cleanRequest(r)
	r, moved := readRequest(c, r, ix.knowsPlace)
	v := &validation{e: e, ctx: ctx, ds: ds, ix: ix, c: c, r: r, moved: moved, altered: altered}
	line := adreswijzer.ParseAddressLine(c, r.Address1)
	v.parse(line)
	out, err := v.run()
	if err != nil {
		return adreswijzer.ValidateResponse{}, err
	}
	if !out.foundAsTyped() { // most addresses are found by the first reading, street as typed
		v, out = v.reread(line, out)
	}
	return v.answer(out), nil
}

// unsupportedCountry answers a country without a register with UNSUPPORTED_COUNTRY, never
// blocking: the spec has the caller accept such an address as given.
func unsupportedCountry(r adreswijzer.ValidateRequest) adreswijzer.ValidateResponse {
	lang, issues, m := unsupported(r.Lang)
	return adreswijzer.ValidateResponse{
		Status:      adreswijzer.VerdictInvalid,
		Suggestions: []adreswijzer.NormalizedAddress{},
		Confidence:  adreswijzer.ConfidenceLow,
		Issues:      issues,
		NextStep:    messages.NextStep(lang, messages.UnsupportedCountry),
		Meta:        m,
	}
}

// validation is one reading of one request: the fields as read, and what matching them
// learnt along the way, kept for the phases after it.
type validation struct {
	e   *Engine
	ctx context.Context
	ds  adreswijzer.Dataset
	ix  *index
	c   adreswijzer.Country
	r   adreswijzer.ValidateRequest
	// moved: the postcode or town was read from another field than its own (readRequest).
	moved bool
	// altered: the fields that held invisible characters (cleanRequest).
	altered alteredFields

	line      adreswijzer.AddressLine
	hasNumber bool
	// addr2 is address2 when it holds neither the street line nor the house number: the
	// unit, as typed.
	addr2 string
	// nums are the readings of the house number, the likeliest first: the street line with
	// the unit of address2 merged in, then the alternatives when the two disagree.
	nums      []adreswijzer.HouseNumber
	unitField adreswijzer.Field // where the typed unit came from
	street    typedName
	city      typedName
	// town is city without a province or country qualifier ("Weesp NH"), read when the
	// city names no place as typed (townRead).
	town     typedName
	townRead bool
	zip      zipState
	pc       string // register form when zip is zipOK
	pcKnown  bool
	pcExact  bool // typed exactly as the printed form
	// numberAtPC: the typed postcode has an address at the typed number, on whatever
	// street (gather, which in the Netherlands always reads every address there). Then
	// no answer may say the number was not found at the postcode.
	numberAtPC bool
	// pcPlaces are the localities of the typed postcode: a street and number found in the
	// same place under another postcode is a postcode typo, not a different address.
	pcPlaces []adreswijzer.Names

	streets  streetMemo
	cityMemo []cityMatched
	// groups are the candidates gather found, in the order found. They are kept here rather
	// than in gather's own state so that the maps of that state stay on the stack.
	groups []*group
}

// zipState is what the typed postcode turned out to be.
type zipState uint8

const (
	zipOK      zipState = iota // well-formed
	zipMissing                 // nothing typed
	zipBad                     // cannot be a postcode of the country
)

// outcome is the decision, before it is written in the answer's language.
type outcome struct {
	status     adreswijzer.Verdict
	match      *adreswijzer.Address
	streetHit  *nameMatch // how the typed street matched, for the answer language
	cands      []adreswijzer.Address
	issues     []pending
	blocking   bool
	confidence adreswijzer.Confidence
	situation  messages.Situation
}

// foundAsTyped reports whether the outcome is one address on a street named as the register
// writes it, which no other reading of the lines can improve on.
func (o outcome) foundAsTyped() bool {
	return o.match != nil && o.streetHit != nil && o.streetHit.level >= levelCanon
}

// run decides the outcome of this reading of the request. A PO box or a missing house number
// is answered at once. Otherwise the candidates are gathered and the best chosen; the
// outcome is why none fits (noMatch), the ambiguity of two that fit equally well (tied) or
// that read the input two ways (bothReadings), or the chosen one resolved (resolve).
func (v *validation) run() (outcome, error) {
	switch {
	case v.line.PoBox:
		return v.poBox(), nil
	case !v.hasNumber:
		return v.missingNumber(), nil
	}
	groups, err := v.gather()
	if err != nil {
		return outcome{}, err
	}
	v.numberAtPC = slices.ContainsFunc(groups, func(g *group) bool { return g.addrs[0].Postcode == v.pc })
	best, tie := v.choose(groups)
	switch {
	case best == nil:
		return v.noMatch(groups)
	case tie != nil:
		return v.tied(best, tie), nil
	}
	if other := v.conflicting(best, groups); other != nil {
		return v.bothReadings(best, other), nil
	}
	return v.resolve(best), nil
}
