package match

import (
	"context"
	"errors"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/worker/carrier"
	"github.com/adreswijzer/adreswijzer/worker/messages"
)

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

// otherReadings are the readings of address1 to try when the parser's own finds nothing:
//   - "Punter 46 15": not Punter 46 with toevoeging 15, but perhaps number 15 in the street
//     "Punter 46" (line.Alt);
//   - "Rue du 17 Décembre 1944" with "3" in address2: the whole line is the street, and the
//     house number is in address2. The parser reads a trailing number as the house number;
//     only the register can tell that it belongs to the name.
//   - "Jansen Bouw BV" in address1 and "1 Horn" in address2, read as number 1 with
//     toevoeging HORN after a street "Jansen Bouw BV" (as "16 bov" is read after "Hugo de
//     Grootlaan"), is a company name above the street line "1 Horn" (Weesp's Horn):
//     address2 as the line, address1 aside.
func otherReadings(c adreswijzer.Country, line adreswijzer.AddressLine, r adreswijzer.ValidateRequest) []reading {
	var out []reading
	if line.Alt != nil {
		out = append(out, reading{*line.Alt, r})
	}
	addr2 := ""
	if r.Address2 != nil {
		addr2 = strings.TrimSpace(*r.Address2)
	}
	switch {
	case addr2 == "" || line.PoBox:
	case line.HasNumber:
		out = append(out, reading{adreswijzer.AddressLine{Street: collapseSpaces(strings.ToValidUTF8(r.Address1, "\uFFFD"))}, r})
	default:
		if l2 := adreswijzer.ParseAddressLine(c, addr2); l2.HasNumber && additionLike(l2.Street) {
			only := r
			only.Address2 = nil
			out = append(out, reading{l2, only})
		}
	}
	return out
}

// reading is one way to read a request: its street line, and the request with what that
// line took out of it.
type reading struct {
	line adreswijzer.AddressLine
	r    adreswijzer.ValidateRequest
}

// additionLike reports whether what follows a house number may be its toevoeging rather
// than a street: one word of at most four characters, the most a BAG huisnummertoevoeging
// has.
func additionLike(s string) bool {
	return s != "" && utf8.RuneCountInString(s) <= 4 && !strings.ContainsAny(s, " \t")
}

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

// zipState is what the typed postcode turned out to be.
type zipState uint8

const (
	zipOK      zipState = iota // well-formed
	zipMissing                 // nothing typed
	zipBad                     // cannot be a postcode of the country
)

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

// parse takes in the request with address1 read as line.
func (v *validation) parse(line adreswijzer.AddressLine) {
	v.line = line
	addr2 := ""
	if v.r.Address2 != nil {
		addr2 = *v.r.Address2
	}
	v.unitField = adreswijzer.FieldAddress1
	if !v.line.HasNumber && !v.line.PoBox && strings.TrimSpace(addr2) != "" {
		// The street line may be in address2 (a company name in address1), or address2 may
		// hold just the house number, with its toevoeging or box: "16 bov" and "22 bus 3"
		// read as lines too (number first, street "bov" or "bus 3"), but after a street
		// in address1 they are the number.
		l2 := adreswijzer.ParseAddressLine(v.c, addr2)
		h, isNumber := adreswijzer.ParseHouseNumber(v.c, addr2)
		numberOnly := isNumber && v.line.Street != "" && (additionLike(l2.Street) || h.UnitMarker != "")
		switch {
		case l2.HasNumber && l2.Street != "" && !numberOnly:
			v.line, addr2 = l2, ""
		case isNumber:
			v.line.Number, v.line.HasNumber, addr2 = h, true, ""
		}
	}
	v.hasNumber = v.line.HasNumber && v.line.Number.Number > 0
	v.addr2 = addr2
	h := v.line.Number
	v.nums = []adreswijzer.HouseNumber{h}
	if u := adreswijzer.ParseUnitField(v.c, addr2); u.Unit != "" && v.hasNumber {
		switch {
		case h.Unit == "":
			h.Unit, h.UnitMarker, h.Floor = u.Unit, u.UnitMarker, u.Floor
			v.nums = []adreswijzer.HouseNumber{h}
			v.unitField = adreswijzer.FieldAddress2
		case adreswijzer.LooseExtensionOf(h.Unit) != adreswijzer.LooseExtensionOf(u.Unit):
			// Two units: as for "16/1 bus 8", the one in the street line belongs to the
			// house number; else either one alone.
			merged := h
			merged.Suffix, merged.Unit, merged.UnitMarker, merged.Floor = h.Suffix+h.Unit, u.Unit, u.UnitMarker, u.Floor
			replaced := h
			replaced.Unit, replaced.UnitMarker, replaced.Floor = u.Unit, u.UnitMarker, u.Floor
			v.nums = []adreswijzer.HouseNumber{merged, replaced, h}
			v.unitField = adreswijzer.FieldAddress2
		}
	}
	v.street = newTypedName(v.line.Street)
	if v.r.City != nil {
		v.city = newTypedName(*v.r.City)
	}
	pc, err := adreswijzer.NormalizePostcode(v.c, v.r.Zip)
	switch {
	case errors.Is(err, adreswijzer.ErrPostcodeEmpty):
		v.zip = zipMissing
	case err != nil:
		v.zip = zipBad
	default:
		v.zip, v.pc = zipOK, pc
		cat := v.ds.Catalog()
		v.pcKnown = v.ix.hasPostcode(pc)
		v.pcExact = sameText(v.r.Zip, adreswijzer.FormatPostcode(v.c, pc))
		// A Belgian postcode has hundreds of places in a few localities: their names are
		// compared only where the locality changes.
		last := -1
		for _, p := range v.ix.placesIn(pc) {
			if int(p.Locality) == last {
				continue
			}
			last = int(p.Locality)
			if n := cat.Localities[p.Locality].Names; !slices.Contains(v.pcPlaces, n) {
				v.pcPlaces = append(v.pcPlaces, n)
			}
		}
	}
}

// pending is an issue whose message is written once the answer's language is known (it may
// depend on the street the customer typed) and whose names come from the matched address.
type pending struct {
	code    adreswijzer.IssueCode
	field   adreswijzer.Field
	unit    adreswijzer.UnitType
	street  *adreswijzer.Address // STREET_MISMATCH names its street
	city    *adreswijzer.Address // CITY_MISMATCH names its locality
	options []adreswijzer.Address
	// atPostcode: street is the one at the typed postcode and number, offered beside
	// another reading, not the street of an address the answer chose.
	atPostcode bool
}

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

// conflicting returns the group that reads the input another way as well as best does, or
// nil. The street typed names best at another postcode, but there the number lacks the
// letter, toevoeging or box typed; at the typed postcode the number has exactly that on
// another street ("Achtergracht" with 1381 CS, 16 and "bov": Achtergracht 16 is at 1381 BN
// and has no "bov", Hugo de Grootlaan 16 bov is at 1381 CS). Postcode, number and unit
// agree as much as street and number do: neither reading may be chosen for the customer.
func (v *validation) conflicting(best *group, groups []*group) *group {
	if v.c != adreswijzer.NL || best.pcHit == 1 || v.zip != zipOK || !v.pcKnown || v.nums[0].Extension() == "" {
		return nil
	}
	best.addrs = sortPostal(best.addrs)
	if resolveUnit(v.c, best.addrs, v.nums).kind == unitExact {
		return nil
	}
	for _, g := range groups {
		if g == best || g.pcHit != 1 || !v.acceptable(g) {
			continue
		}
		if g.addrs = sortPostal(g.addrs); resolveUnit(v.c, g.addrs, v.nums).kind == unitExact {
			return g
		}
	}
	return nil
}

// bothReadings answers two readings that conflict: ambiguous, offering what each finds. Its
// issue names the one thing typed differently from both: the street, which the register
// has otherwise at the typed postcode and number. Nothing there was "not found": the
// number, and the unit typed, are at that postcode.
func (v *validation) bothReadings(best, other *group) outcome {
	var cands []adreswijzer.Address
	for _, g := range [...]*group{best, other} {
		u := resolveUnit(v.c, g.addrs, v.nums) // sorted by conflicting
		switch {
		case u.match != nil:
			cands = append(cands, *u.match)
		case len(u.cands) > 0:
			cands = append(cands, u.cands...)
		default:
			cands = append(cands, g.addrs...)
		}
	}
	return outcome{
		status:     adreswijzer.VerdictAmbiguous,
		streetHit:  &best.street,
		cands:      cands,
		confidence: adreswijzer.ConfidenceLow,
		situation:  messages.Ambiguous,
		issues: []pending{
			{code: adreswijzer.IssueStreetMismatch, field: adreswijzer.FieldAddress1, street: &other.addrs[0], atPostcode: true},
		},
	}
}

// poBox answers a PO-box line. The registers hold no PO boxes, so an allowed one can only be
// accepted unverified: invalid, not blocking, and like every invalid answer naming the field
// the register could not confirm. That is the postcode when the register does not have it
// (a Dutch PO-box postcode such as 1380 AC never has an address in the BAG), else the box
// number, which no register lists at a postcode that does exist (a Belgian postcode, or a
// Dutch street postcode typed with a PO box).
func (v *validation) poBox() outcome {
	if !v.r.AllowPoBox {
		return outcome{
			status:     adreswijzer.VerdictInvalid,
			blocking:   true,
			confidence: adreswijzer.ConfidenceLow,
			situation:  messages.PoBoxNotAllowed,
			issues:     []pending{{code: adreswijzer.IssuePoBoxNotAllowed, field: adreswijzer.FieldAddress1}},
		}
	}
	out := outcome{status: adreswijzer.VerdictInvalid, confidence: adreswijzer.ConfidenceLow, situation: messages.InvalidConfirmable}
	v.zipIssues(&out)
	switch {
	case v.zip != zipOK:
	case !v.pcKnown:
		out.issues = append(out.issues, pending{code: adreswijzer.IssuePostcodeNotFound, field: adreswijzer.FieldZip})
	default:
		out.issues = append(out.issues, pending{code: adreswijzer.IssueHouseNumberNotFound, field: adreswijzer.FieldAddress1})
	}
	v.confirmed(&out)
	return out
}

// zipIssues reports a missing or malformed postcode, which blocks: the spec's "missing or
// impossible postcode".
func (v *validation) zipIssues(out *outcome) {
	if v.zip == zipOK {
		return
	}
	out.issues = append(out.issues, pending{code: adreswijzer.IssueFormatInvalid, field: adreswijzer.FieldZip})
	if v.otherCountryPostcode() {
		out.issues = append(out.issues, pending{code: adreswijzer.IssueCountryAmbiguous, field: adreswijzer.FieldCountryCode})
		if !out.blocking {
			out.situation = messages.CountryAmbiguous
		}
	}
	if !out.blocking {
		out.blocking = true
		if out.situation != messages.CountryAmbiguous {
			out.situation = messages.Blocking(adreswijzer.FieldZip)
		}
	}
}

// otherCountryPostcode reports whether a postcode that does not fit the chosen country is a
// postcode of the other one that its register knows ("1130" in a Dutch form, "1382 KB" in a
// Belgian one): then the country is what to ask about.
func (v *validation) otherCountryPostcode() bool {
	if v.zip != zipBad {
		return false
	}
	other := adreswijzer.BE
	if v.c == adreswijzer.BE {
		other = adreswijzer.NL
	}
	pc, err := adreswijzer.NormalizePostcode(other, v.r.Zip)
	if err != nil {
		return false
	}
	ds, err := v.e.store.Active(v.ctx, other)
	if err != nil {
		return false
	}
	return ds.Catalog().HasPostcode(pc)
}

// group is the addresses at the typed number on one street in one postcode: the unit of
// choice before the letter, toevoeging or box is resolved.
type group struct {
	addrs  []adreswijzer.Address
	street nameMatch
	city   nameMatch
	// pcHit: 1 same postcode, 0.4 same Dutch PC4, 0.35 same place as the typed postcode,
	// 0.3 no postcode usable, 0 elsewhere.
	pcHit float64
	score float64
}

// gather collects candidate addresses at the typed number, widening step by step as the
// cascade of Adresmatch does and stopping as soon as a step finds the typed street: by
// postcode; by the typed street within the postcode (the postcode may be one off along the
// street); by the typed street within the typed city, its aliases and, in the Netherlands,
// the postcode's PC4 area; by the exact street name nationally.
func (v *validation) gather() ([]*group, error) {
	n := v.nums[0].Number
	ds, ix, cat := v.ds, v.ix, v.ds.Catalog()
	seen := map[string]bool{}
	type groupKey struct{ streetID, nl, fr, postcode string }
	byKey := map[groupKey]*group{}
	var groups []*group
	keyOf := func(a *adreswijzer.Address) groupKey {
		return groupKey{a.StreetID, a.Street.NL, a.Street.FR, a.Postcode}
	}
	add := func(as []adreswijzer.Address) {
		// The stores list addresses by postcode and street, so a group's addresses come in
		// runs; a group takes its first run as it is (the slice is ours), and later ones are
		// copied at once rather than address by address (a Belgian number may have hundreds
		// of boxes).
		for i := 0; i < len(as); {
			if seen[as[i].ID] {
				i++
				continue
			}
			k := keyOf(&as[i])
			j := i
			for j < len(as) && !seen[as[j].ID] && (j == i || keyOf(&as[j]) == k) {
				seen[as[j].ID] = true
				j++
			}
			g := byKey[k]
			if g == nil {
				g = &group{}
				byKey[k] = g
				groups = append(groups, g)
			}
			if g.addrs == nil {
				g.addrs = as[i:j:j] // full: a later run is appended to a copy
			} else {
				g.addrs = append(g.addrs, as[i:j]...)
			}
			i = j
		}
	}
	// goodStreet: some group's street matches the typed one; strongStreet: as the register
	// writes it or by its core, not merely by similarity.
	streetAt := func(min level) bool {
		for _, g := range groups {
			if v.street.empty() || v.streetMatch(&g.addrs[0]).level >= min {
				return true
			}
		}
		return false
	}
	goodStreet := func() bool { return streetAt(levelFuzzy) }
	strongStreet := func() bool { return streetAt(levelCore) }
	tried := map[uint32]bool{}
	onStreets := func(streets ...[]uint32) error {
		for _, st := range v.bestStreets(streets, 5) {
			if tried[st] {
				continue
			}
			tried[st] = true
			as, err := ds.AddressesOnStreet(v.ctx, st, n)
			if err != nil {
				return storeErr(err)
			}
			add(as)
		}
		return nil
	}

	if v.zip == zipOK && v.pcKnown {
		// A Belgian postcode is a whole municipality: the number stands on hundreds of its
		// streets, and only those named like the typed street can be the address. The
		// others at the number are read only when none is, as suggestions.
		beStreetFirst := v.c == adreswijzer.BE && !v.street.empty()
		if beStreetFirst {
			if err := onStreets(ix.postcodeStreets(v.pc)); err != nil {
				return nil, err
			}
		}
		if !beStreetFirst || !goodStreet() {
			as, err := ds.AddressesAt(v.ctx, v.pc, n)
			if err != nil {
				return nil, storeErr(err)
			}
			add(as)
		}
		if !beStreetFirst && !goodStreet() && !v.street.empty() {
			if err := onStreets(ix.postcodeStreets(v.pc)); err != nil {
				return nil, err
			}
		}
	}
	if !strongStreet() && !v.street.empty() {
		// The typed city, or else the place the typed postcode lies in.
		locs := v.cityLocalities()
		if len(locs) == 0 && v.zip == zipOK && v.pcKnown {
			for _, p := range ix.placesIn(v.pc) {
				if !containsU32(locs, p.Locality) {
					locs = append(locs, p.Locality)
				}
			}
		}
		// A large city has tens of thousands of streets: they are ranked where the index
		// keeps them, not copied into one list.
		streets := make([][]uint32, 0, len(locs)+1)
		for _, l := range locs {
			streets = append(streets, ix.locStreets[l])
		}
		if v.c == adreswijzer.NL && v.zip == zipOK {
			streets = append(streets, placeStreets(placesWithPrefix(cat, v.pc[:4])))
		}
		if goodStreet() {
			// A street found so far matches only by similarity. A street of the place
			// that the typed name names exactly or by its core ("Troelstralaan" for
			// Mr.P.J.Troelstralaan) is the likelier one, with the number at a postcode
			// next to the typed one; nothing else found here could beat the street found.
			streets = [][]uint32{v.ix.strongStreets(v.street, streets)}
		}
		if err := onStreets(streets...); err != nil {
			return nil, err
		}
	}
	if !goodStreet() && !v.street.empty() && v.city.empty() && (v.zip != zipOK || !v.pcKnown) {
		// Nothing to narrow by (no city, and no postcode the register knows): only a
		// street name that is exact and rare enough.
		if t, ok := ix.textID(v.street.folded); ok && len(ix.postings(t)) <= 10 {
			var streets []uint32
			for _, vr := range ix.postings(t) {
				streets = append(streets, vr.street)
			}
			if err := onStreets(streets); err != nil {
				return nil, err
			}
		}
	}
	for _, g := range groups {
		v.score(g)
	}
	return groups, nil
}

func storeErr(err error) error {
	if errors.Is(err, adreswijzer.ErrUnavailable) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return err
	}
	return errors.Join(adreswijzer.ErrUnavailable, err)
}

// bestStreets returns up to limit streets whose names match the typed street, best first.
func (v *validation) bestStreets(streets [][]uint32, limit int) []uint32 {
	// Only the best level counts, as the cascade stops at the first level that matches; so
	// when some street matches at an exact level the similarity of the others is not needed.
	hits := v.ix.rankStreets(v.street, levelContain, true, streets...)
	if len(hits) == 0 {
		hits = v.ix.rankStreets(v.street, levelContain, false, streets...)
	}
	var out []uint32
	for _, h := range hits {
		if len(out) == limit || h.m.level != hits[0].m.level {
			break
		}
		out = append(out, h.st)
	}
	return out
}

// knowsPlace reports whether a locality is found by name the way cityLocalities finds one
// before it tries similarity.
func (ix *index) knowsPlace(name string) bool {
	key := cityKey(name)
	if key == "" {
		return false
	}
	if len(ix.locByKey[key]) > 0 {
		return true
	}
	for _, a := range aliases[key] {
		if len(ix.locByKey[a]) > 0 {
			return true
		}
	}
	return false
}

// cityLocalities finds the localities the typed city names: by any of their names, parts of
// names, municipality names and aliases, and only when none does, by similarity.
func (v *validation) cityLocalities() []uint32 {
	if v.city.empty() {
		return nil
	}
	key := cityKey(v.city.raw)
	out := append([]uint32{}, v.ix.locByKey[key]...)
	for _, a := range aliases[key] {
		out = append(out, v.ix.locByKey[a]...)
	}
	if len(out) > 0 {
		return out
	}
	if t := v.cityTown(); !t.empty() {
		key := cityKey(t.raw)
		out = append(out, v.ix.locByKey[key]...)
		for _, a := range aliases[key] {
			out = append(out, v.ix.locByKey[a]...)
		}
		if len(out) > 0 {
			return out
		}
	}
	for _, lk := range v.ix.locKeys {
		if similarity(v.city.folded, lk.folded) >= similarityThreshold && !containsU32(out, lk.locality) {
			out = append(out, lk.locality)
		}
	}
	return out
}

func placeStreets(ps []adreswijzer.Place) []uint32 {
	// Places are sorted by postcode, then street: within one postcode a street's places
	// stand together, and a Belgian postcode has hundreds of them.
	var out []uint32
	for i, p := range ps {
		if i == 0 || p.Street != ps[i-1].Street {
			out = append(out, p.Street)
		}
	}
	if len(ps) == 0 || ps[0].Postcode == ps[len(ps)-1].Postcode {
		return out
	}
	seen := make(map[uint32]bool, len(out))
	return slices.DeleteFunc(out, func(st uint32) bool {
		dup := seen[st]
		seen[st] = true
		return dup
	})
}

// placesWithPrefix returns the places whose postcode starts with prefix (a Dutch PC4).
func placesWithPrefix(cat *adreswijzer.Catalog, prefix string) []adreswijzer.Place {
	lo := sort.Search(len(cat.Places), func(i int) bool { return cat.Places[i].Postcode >= prefix })
	hi := lo
	for hi < len(cat.Places) && strings.HasPrefix(cat.Places[hi].Postcode, prefix) {
		hi++
	}
	return cat.Places[lo:hi]
}

// score weighs how well a group fits the typed fields: the street counts most, then the
// postcode, then the city. A field left empty counts half, so that it neither helps nor
// hurts against a field typed wrong.
func (v *validation) score(g *group) {
	a := &g.addrs[0]
	g.street = v.streetMatch(a)
	g.city = v.cityMatch(a)
	switch {
	case v.zip != zipOK && v.c == adreswijzer.NL && len(a.Postcode) == 6 && digitRun4(v.r.Zip) == a.Postcode[:4]:
		// "1381" or "1381 B": the four digits of a Dutch postcode place the address.
		g.pcHit = 0.4
	case v.zip != zipOK:
		g.pcHit = 0.3
	case a.Postcode == v.pc:
		g.pcHit = 1
	case v.c == adreswijzer.NL && len(a.Postcode) == 6 && a.Postcode[:4] == v.pc[:4]:
		g.pcHit = 0.4
	case slices.Contains(v.pcPlaces, a.Locality):
		g.pcHit = 0.35
	case !v.pcKnown:
		// A postcode the register does not have ("1833 EA" for 1383 EA) places nothing,
		// as one that cannot be read.
		g.pcHit = 0.3
	}
	streetScore, cityScore := g.street.score, g.city.score
	if v.street.empty() {
		streetScore = 0.5
	}
	if v.city.empty() {
		cityScore = 0.5
	}
	g.score = 3*streetScore + 2*g.pcHit + cityScore
}

// streetMatch is how the typed street matches a's street.
func (v *validation) streetMatch(a *adreswijzer.Address) nameMatch {
	return v.streets.match(v.ix, v.street, a)
}

// cityMatch is how the typed city matches a's locality and municipality, each pair
// compared once per request, for the same reason.
func (v *validation) cityMatch(a *adreswijzer.Address) nameMatch {
	k := [2]adreswijzer.Names{a.Locality, a.Municipality}
	for _, c := range v.cityMemo {
		if c.names == k {
			return c.m
		}
	}
	loc := &adreswijzer.Locality{Names: a.Locality, Municipality: a.Municipality}
	m := matchCity(v.c, v.city, loc)
	if m.level < levelAlias {
		if t := v.cityTown(); !t.empty() {
			// The town named, with a qualifier the register's name does not have.
			if mt := matchCity(v.c, *t, loc); mt.level >= levelAlias && mt.better(m) {
				m = mt
				if m.level > levelFolded {
					m.level, m.score = levelFolded, 0.97
				}
			}
		}
	}
	v.cityMemo = append(v.cityMemo, cityMatched{k, m})
	return m
}

// cityTown is the typed city without its qualifier (townOf), empty when it has none.
func (v *validation) cityTown() *typedName {
	if !v.townRead {
		v.townRead = true
		if t := townOf(v.city.raw); t != "" {
			v.town = newTypedName(t)
		}
	}
	return &v.town
}

// cityMatched is how the typed city matched a locality and municipality. A request meets a
// few of them (the places of a postcode, of a few streets), so a list serves better than a
// map keyed by six strings.
type cityMatched struct {
	names [2]adreswijzer.Names
	m     nameMatch
}

// acceptable says whether a group may be the answer at all: its street must match and
// something place-like must agree, or, in the Netherlands, the postcode and number (which
// identify an address there) must, whatever street was typed.
func (v *validation) acceptable(g *group) bool {
	if v.street.empty() || g.street.level >= levelContain {
		// A street and number alone do not place an address: the same name recurs from
		// town to town, so the postcode's digits or the city must agree.
		return g.pcHit >= 0.35 || g.city.level >= levelFuzzy
	}
	return v.c == adreswijzer.NL && g.pcHit == 1
}

// digitRun4 returns the first run of exactly four digits in s, "" when there is none.
func digitRun4(s string) string {
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j-i == 4 {
			return s[i:j]
		}
		i = max(j, i+1)
	}
	return ""
}

// choose returns the best acceptable group and, when another one scores the same, that one.
//
// A street named as the register writes it, or by its core, in the place of the typed
// postcode beats a street that is merely similar, even one at the typed postcode: the
// score would let the postcode outweigh the name ("Troelstralaan 5" at 1381 CS, where
// Hugo de Grootlaan 5 is, is Mr.P.J.Troelstralaan 5 at 1381 CR). And a street that the
// typed name only contains, away from the typed postcode, is too weak to correct to when
// the typed postcode has the number on another street: then both are offered.
func (v *validation) choose(groups []*group) (best, tie *group) {
	for _, g := range groups {
		if !v.acceptable(g) {
			continue
		}
		switch {
		case best == nil || v.ahead(g, best):
			best, tie = g, nil
		case !v.ahead(best, g) && tie == nil:
			tie = g
		}
	}
	if best != nil && tie == nil && !v.street.empty() && best.street.level == levelContain && best.pcHit < 1 {
		for _, g := range groups {
			if g.pcHit == 1 && g.street.level < levelFuzzy && v.acceptable(g) {
				return best, g
			}
		}
	}
	return best, tie
}

// ahead reports whether group a is a better answer than b.
func (v *validation) ahead(a, b *group) bool {
	if sa, sb := v.strongHere(a), v.strongHere(b); sa != sb {
		return sa
	}
	return a.score > b.score+1e-9
}

// strongHere: the group's street is named as the register writes it or by its core, in
// the place the typed postcode (or its absence) points to.
func (v *validation) strongHere(g *group) bool {
	return !v.street.empty() && g.street.level >= levelCore && g.pcHit > 0
}

// noMatch explains an address the register does not have, naming the field that failed,
// and blocks only where the spec says the address cannot be delivered as written.
func (v *validation) noMatch(groups []*group) (outcome, error) {
	out := outcome{status: adreswijzer.VerdictInvalid, confidence: adreswijzer.ConfidenceLow, situation: messages.InvalidConfirmable}
	if v.lineIsStreet() {
		// "Plein 1813" is a street without a house number, not number 1813 of "Plein".
		out.blocking, out.situation = true, messages.MissingHouseNumber
		out.issues = append(out.issues, pending{code: adreswijzer.IssueMissingHouseNumber, field: adreswijzer.FieldAddress1})
		return out, nil
	}
	switch {
	case v.zip != zipOK:
		v.zipIssues(&out)
		// The postcode cannot be read, and nothing else placed the address: offer the
		// addresses with the typed street and number, for the customer to pick.
		for _, g := range groups {
			if g.street.level >= levelFuzzy {
				out.cands = append(out.cands, g.addrs...)
			}
		}
		out.cands = sortPostal(out.cands)
		if len(out.cands) == 0 && v.streetInCity() {
			// The street is in the town typed; the number is not.
			out.issues = append(out.issues, pending{code: adreswijzer.IssueHouseNumberNotFound, field: adreswijzer.FieldAddress1})
		}
	case !v.pcKnown:
		out.issues = append(out.issues, pending{code: adreswijzer.IssuePostcodeNotFound, field: adreswijzer.FieldZip})
		// The typed street and number elsewhere, where nothing placed them: offered, and
		// the address may be one of them, so it is not certainly undeliverable.
		for _, g := range groups {
			if g.street.level >= levelFuzzy {
				out.cands = append(out.cands, g.addrs...)
			}
		}
		out.cands = sortPostal(out.cands)
		if v.c == adreswijzer.NL && len(out.cands) == 0 && !v.streetInCity() {
			// A Dutch postcode the register does not know has neither the number nor
			// the street. When the typed street does exist in the typed city, a new
			// build may have a postcode the register has not yet published: the
			// customer may confirm it.
			out.blocking = true
			out.situation = messages.Blocking(adreswijzer.FieldZip)
		}
	default:
		// The street is in the postcode when a street there matches it; it may be when
		// one only contains it, which is not enough to say so but too much to block on
		// (the spec blocks a Dutch postcode "where neither the number nor the street
		// exists", and blocking is for what certainly cannot be delivered).
		streetInPC, maybeInPC := v.street.empty(), v.street.empty()
		for _, st := range v.ix.postcodeStreets(v.pc) {
			var buf [4]nameVariant
			switch l := matchStreet(v.street, v.ix.streetVariants(st, &buf)).level; {
			case l >= levelFuzzy:
				streetInPC, maybeInPC = true, true
			case l >= levelContain:
				maybeInPC = true
			}
			if streetInPC {
				break
			}
		}
		switch {
		case streetInPC:
			out.issues = append(out.issues, pending{code: adreswijzer.IssueHouseNumberNotFound, field: adreswijzer.FieldAddress1})
		default:
			out.issues = append(out.issues, pending{code: adreswijzer.IssueStreetMismatch, field: adreswijzer.FieldAddress1})
			if v.c == adreswijzer.NL && !v.numberAtPC && !maybeInPC {
				out.blocking = true
				out.situation = messages.Blocking(adreswijzer.FieldAddress1)
			}
		}
		if v.numberAtPC && v.c == adreswijzer.BE {
			// The number exists in the postcode on other streets: offer them.
			for _, g := range groups {
				if g.addrs[0].Postcode == v.pc {
					out.cands = append(out.cands, g.addrs...)
				}
			}
			out.cands = sortPostal(out.cands)
		}
	}
	v.confirmed(&out)
	return out, nil
}

// streetInCity reports whether the typed street exists in one of the typed city's
// localities.
func (v *validation) streetInCity() bool {
	if v.street.empty() {
		return false
	}
	var buf [4]nameVariant
	for _, l := range v.cityLocalities() {
		for _, st := range v.ix.locStreets[l] {
			if matchStreet(v.street, v.ix.streetVariants(st, &buf)).level >= levelFuzzy {
				return true
			}
		}
	}
	return false
}

// lineIsStreet reports whether the whole street line is the name of a street in the typed
// postcode or city: the parser reads a trailing number as the house number, and only the
// register can tell that it belongs to the name.
func (v *validation) lineIsStreet() bool {
	t := newTypedName(v.r.Address1)
	if t.empty() || !v.hasNumber || !v.numberInAddress1() {
		return false
	}
	var streets []uint32
	if v.zip == zipOK && v.pcKnown {
		streets = v.ix.postcodeStreets(v.pc)
	}
	for _, l := range v.cityLocalities() {
		streets = append(streets, v.ix.locStreets[l]...)
	}
	var buf [4]nameVariant
	for _, st := range streets {
		if matchStreetExactly(t, v.ix.streetVariants(st, &buf)).level >= levelCanon {
			return true
		}
	}
	return false
}

// numberInAddress1 reports whether the house number was read from address1 itself, not
// from address2 under a street typed without one ("Rue du Commerce" and "22 bus 3").
func (v *validation) numberInAddress1() bool {
	return adreswijzer.ParseAddressLine(v.c, v.r.Address1).HasNumber
}

// confirmed applies customerConfirmed: only format errors and disallowed PO boxes keep
// blocking, and an address the register does not know is accepted for review.
func (v *validation) confirmed(out *outcome) {
	if !v.r.CustomerConfirmed || out.status != adreswijzer.VerdictInvalid {
		return
	}
	for _, p := range out.issues {
		if p.code.BlocksConfirmed() {
			return
		}
	}
	out.blocking = false
	out.situation = messages.ConfirmedByCustomer
	out.issues = append(out.issues, pending{code: adreswijzer.IssueUnverifiedConfirmed})
}

// resolve picks the address within the chosen group by the letter, toevoeging or box, and
// decides between valid, corrected, ambiguous and invalid.
func (v *validation) resolve(g *group) outcome {
	g.addrs = sortPostal(g.addrs)
	out := outcome{streetHit: &g.street}
	u := resolveUnit(v.c, g.addrs, v.nums)
	if m := v.unitAsWritten(g.addrs); m != nil {
		u = unitResult{kind: unitExact, match: m}
	}
	typedField := v.unitField
	switch u.kind {
	case unitExact:
		out.match = u.match
	case unitCompleted:
		out.match = u.match
		out.issues = append(out.issues, pending{code: adreswijzer.IssueSuffixNotFound, field: typedField, options: []adreswijzer.Address{*u.match}})
	case unitDropped:
		out.match = u.match
		out.issues = append(out.issues, pending{code: adreswijzer.IssueUnitNotFound, field: typedField, unit: u.unitType})
	case unitRequired:
		out.status, out.cands, out.confidence, out.situation = adreswijzer.VerdictAmbiguous, u.cands, adreswijzer.ConfidenceLow, messages.Ambiguous
		out.issues = append(out.issues, pending{code: adreswijzer.IssueUnitRequired, field: adreswijzer.FieldAddress2, unit: u.unitType, options: u.cands})
	case suffixNotFound, unitNotFound:
		code := adreswijzer.IssueSuffixNotFound
		field := adreswijzer.FieldAddress1
		if u.kind == unitNotFound {
			code, field = adreswijzer.IssueUnitNotFound, typedField
		}
		out.status, out.cands, out.confidence, out.situation = adreswijzer.VerdictInvalid, u.cands, adreswijzer.ConfidenceLow, messages.InvalidConfirmable
		out.issues = append(out.issues, pending{code: code, field: field, unit: u.unitType, options: u.cands})
		v.confirmed(&out)
	}
	if out.match == nil {
		v.placeIssues(&out, g, &g.addrs[0])
		return out
	}
	a := out.match
	exact := u.kind == unitExact && g.street.level == levelExact && !v.moved && !v.altered.any() &&
		(v.city.empty() || g.city.level == levelExact) && v.pcExact && a.Postcode == v.pc
	v.placeIssues(&out, g, a)
	if a.Planned() {
		out.issues = append(out.issues, pending{code: adreswijzer.IssueAddressPlanned})
	}
	switch {
	case exact:
		out.status, out.confidence, out.situation = adreswijzer.VerdictValid, adreswijzer.ConfidenceHigh, messages.Valid
		if a.Planned() {
			out.situation = messages.ValidPlanned
		}
	default:
		// The spec pairs a correction with medium confidence, even when only the
		// postcode's spelling changed ("1381AT" for "1381 AT").
		out.status, out.confidence, out.situation = adreswijzer.VerdictCorrected, adreswijzer.ConfidenceMedium, messages.Corrected
		// A partial match is low (the spec's table): a street the typed name only contains,
		// or one merely similar to it at another postcode than the known one typed. Two
		// fields typed differently at once is also how a new street the register does not
		// have yet looks ("Nieuwbouwstraat" at its new postcode, near a Nieuwstraat).
		similarElsewhere := g.street.level < levelCore && v.zip == zipOK && v.pcKnown && a.Postcode != v.pc
		if !v.street.empty() && (g.street.level <= levelContain || similarElsewhere) {
			out.confidence = adreswijzer.ConfidenceLow
		}
	}
	return out
}

// unitAsWritten returns the address whose toevoeging or box is address2 as typed (letter
// case, accents and a box word as stripBoxWord knows them aside), or whose box is written
// so in answers (adreswijzer.BoxNumber), when exactly one at the number has it. The unit
// grammar reads what people mean ("2 hoog" is toevoeging 2, "1er étage" no box at all),
// but a register writes some boxes as floors ("1ET", "2ét" in Malmedy): a customer who
// copied the register's box meant that box, whatever it looks like. And the grammar drops
// separators, where a Brussels number may have both "b013" and "b1.3": "bus 13" and "bus
// 1.3", as answers write them, are each the one box.
func (v *validation) unitAsWritten(as []adreswijzer.Address) *adreswijzer.Address {
	typed := v.addr2
	if typed == "" || !v.hasNumber || v.line.Number.Unit != "" {
		return nil
	}
	key := compact(stripBoxWord(fold(typed)))
	written := ""
	if v.c == adreswijzer.BE {
		written = afterBoxWord(typed)
	}
	suffix := adreswijzer.LooseExtensionOf(v.line.Number.Suffix)
	var found *adreswijzer.Address
	for i := range as {
		a := &as[i]
		if a.Unit() == "" || adreswijzer.LooseExtensionOf(a.HouseNumberSuffix) != suffix {
			continue
		}
		if compact(a.Unit()) != key && (written == "" || !strings.EqualFold(adreswijzer.BoxNumber(a.Box), written)) {
			continue
		}
		if found != nil {
			return nil
		}
		found = a
	}
	return found
}

// afterBoxWord is typed text without the box or apartment word before it, the rest as
// typed: "bus 1.3" gives "1.3", "Bte 13" gives "13".
func afterBoxWord(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, " .:"); i > 0 {
		switch fold(s[:i]) {
		case "bus", "bte", "box", "boite", "bt", "bx", "b", "app", "apt", "appt", "ap", "appartement":
			return strings.TrimLeft(s[i:], " .:")
		}
	}
	return s
}

// placeIssues names what was typed differently from the address a (or the group, when no
// single address was chosen): street, city and postcode.
func (v *validation) placeIssues(out *outcome, g *group, a *adreswijzer.Address) {
	if g.street.level != levelExact || v.altered.address1 {
		out.issues = append(out.issues, pending{code: adreswijzer.IssueStreetMismatch, field: adreswijzer.FieldAddress1, street: a})
	}
	if !v.city.empty() && (g.city.level != levelExact || v.altered.city) {
		out.issues = append(out.issues, pending{code: adreswijzer.IssueCityMismatch, field: adreswijzer.FieldCity, city: a})
	}
	switch {
	case v.zip != zipOK:
		// Recovered from street and city; the postcode as typed could not be right.
		out.issues = append(out.issues, pending{code: adreswijzer.IssueFormatInvalid, field: adreswijzer.FieldZip})
	case a.Postcode == v.pc:
	case !v.pcKnown:
		out.issues = append(out.issues, pending{code: adreswijzer.IssuePostcodeNotFound, field: adreswijzer.FieldZip})
	case v.numberAtPC:
		// The postcode has the number, on another street ("Troelstralaan 5" at 1381 CS,
		// where Hugo de Grootlaan 5 is): it was not "not found" there. No issue code says
		// that a postcode belongs to another address; the answer's postcode shows it.
	default:
		// The postcode exists but does not hold this street and number.
		out.issues = append(out.issues, pending{code: adreswijzer.IssueHouseNumberNotFound, field: adreswijzer.FieldZip})
	}
}

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
