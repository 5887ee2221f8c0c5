package match

import (
	"context"
	"slices"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/worker/messages"
)

// A validation reads in phases, one concern per file: the request is taken in (cleanRequest,
// readRequest) and its lines read into fields (parse, validate_parse.go); run answers a PO
// box or a missing number at once, or gathers the candidate addresses at the typed number
// (gather, validate_gather.go), scores them and chooses (choose, validate_choose.go), and
// resolves the chosen one (resolve, validate_resolve.go) or explains why none fits (noMatch,
// validate_nomatch.go), naming what was typed wrong on the way (validate_issues.go). Other
// readings of the lines are tried when the first did not find the street as typed
// (validate_readings.go), and answer writes the outcome (validate_answer.go).

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
	// Other readings of the lines, each of which wins only when it finds the address on a
	// street named as typed: a street whose name ends in a number is a name the customer
	// copies, not one they misspell, and a looser match would turn "Hugo de Grootlaan 16 1"
	// (number 16, toevoeging 1) into number 1 of a "Hugo de Grootlaan 16" that is only
	// similar to the street. They are tried when the first reading found nothing, or found
	// the address only by correcting the street (a Dutch postcode and number find it
	// whatever street line was read).
	if out.match == nil || out.streetHit == nil || out.streetHit.level < levelCanon { // most addresses are found by the first reading, street as typed
		for _, other := range otherReadings(c, line, r) {
			alt := &validation{e: e, ctx: ctx, ds: ds, ix: ix, c: c, r: other.r, moved: moved, altered: altered}
			alt.parse(other.line)
			if altOut, err := alt.run(); err == nil && altOut.match != nil && altOut.streetHit != nil && altOut.streetHit.level >= levelCanon {
				v, out = alt, altOut
				break
			}
		}
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

// run decides the outcome of this reading of the request.
func (v *validation) run() (outcome, error) {
	if v.line.PoBox {
		return v.poBox(), nil
	}
	var out outcome
	if !v.hasNumber {
		out = outcome{
			status:    adreswijzer.VerdictInvalid,
			blocking:  true,
			situation: messages.MissingHouseNumber,
			issues:    []pending{{code: adreswijzer.IssueMissingHouseNumber, field: adreswijzer.FieldAddress1}},
		}
		v.zipIssues(&out)
		out.confidence = adreswijzer.ConfidenceLow
		return out, nil
	}
	groups, err := v.gather()
	if err != nil {
		return outcome{}, err
	}
	v.numberAtPC = slices.ContainsFunc(groups, func(g *group) bool { return g.addrs[0].Postcode == v.pc })
	best, tie := v.choose(groups)
	if best == nil {
		return v.noMatch(groups)
	}
	if tie != nil {
		// Two places fit equally well: the same street name in two postcodes of the town
		// when no usable postcode was typed, or two streets the typed name is as close to.
		cands := sortPostal(append(append([]adreswijzer.Address{}, best.addrs...), tie.addrs...))
		p := pending{code: adreswijzer.IssueStreetMismatch, field: adreswijzer.FieldAddress1}
		if v.zip != zipOK {
			p = pending{code: adreswijzer.IssueFormatInvalid, field: adreswijzer.FieldZip}
		}
		return outcome{
			status:     adreswijzer.VerdictAmbiguous,
			streetHit:  &best.street,
			cands:      cands,
			confidence: adreswijzer.ConfidenceLow,
			situation:  messages.Ambiguous,
			issues:     []pending{p},
		}, nil
	}
	if other := v.conflicting(best, groups); other != nil {
		return v.bothReadings(best, other), nil
	}
	return v.resolve(best), nil
}
