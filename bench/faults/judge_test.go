//go:build faults

package faults_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/adreswijzer/adreswijzer"
)

// Answers are judged two ways. Against the register: a lookup of a known address returns
// exactly the addresses the register has there, a clean address validates to itself, every
// suggested street exists. And against the reference: the answer each worker gave to the
// same request with the same dataset active and nothing failing. An answer served during a
// fault must be byte for byte one of the references, so nothing half-computed, cached from
// another version or cut short passes.

// judge checks an answer of call c against register r.
func judge(c *call, r *register, body []byte) error {
	var meta struct {
		Meta adreswijzer.Meta `json:"meta"`
	}
	if err := json.Unmarshal(body, &meta); err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	if meta.Meta.DatasetVersion == nil || *meta.Meta.DatasetVersion != r.version {
		return fmt.Errorf("meta.datasetVersion %v, judged against %s", deref(meta.Meta.DatasetVersion), r.version)
	}
	switch c.route {
	case routeLookup:
		return judgeLookup(c, r, body)
	case routeValidate:
		return judgeValidate(c, r, body)
	case routeSuggest:
		return judgeSuggest(c, r, body)
	case routeAutocomplete:
		return judgeAutocomplete(r, body)
	}
	return fmt.Errorf("no judge for route %s", c.route)
}

func deref(p *string) string {
	if p == nil {
		return "null"
	}
	return *p
}

// unitKey identifies an address at its number: postcode, number, suffix and unit.
func unitKey(postcode string, number int, suffix, unit string) string {
	return strings.ToUpper(fmt.Sprintf("%s|%d|%s|%s", postcode, number, suffix, unit))
}

func judgeLookup(c *call, r *register, body []byte) error {
	var resp adreswijzer.LookupResponse
	if err := json.Unmarshal(body, &resp); err != nil {
		return err
	}
	want := r.lookup(c.addr.Postcode, c.addr.HouseNumber, c.streetID)
	if len(want) == 0 && c.streetID != "" && len(resp.Addresses) > 0 {
		// The typed street has no address at this number (in this version): the engine may
		// offer the number on another street of the postcode, and must then say so.
		if !hasIssue(resp.Issues, adreswijzer.IssueStreetMismatch) {
			return fmt.Errorf("addresses on %q for a street without this number, and no %s", resp.Addresses[0].Street,
				adreswijzer.IssueStreetMismatch)
		}
		for _, a := range r.lookup(c.addr.Postcode, c.addr.HouseNumber, "") {
			if nameIn(resp.Addresses[0].Street, a.Street) {
				want = append(want, a)
			}
		}
	}
	var wantKeys, gotKeys []string
	for _, a := range want {
		wantKeys = append(wantKeys, unitKey(a.Postcode, a.HouseNumber, a.HouseNumberSuffix, a.Unit()))
	}
	for i, a := range resp.Addresses {
		n := 0
		if a.HouseNumber != nil {
			n = *a.HouseNumber
		}
		gotKeys = append(gotKeys, unitKey(a.Postcode, n, strings.TrimSpace(deref0(a.HouseNumberSuffix)), deref0(a.Unit)))
		if i < len(want) {
			if !nameIn(a.Street, want[0].Street) || !nameIn(a.Locality, want[0].Locality) {
				return fmt.Errorf("address %d is %q in %q; the register has %v in %v", i, a.Street, a.Locality,
					want[0].Street.All(), want[0].Locality.All())
			}
		}
	}
	slices.Sort(wantKeys)
	slices.Sort(gotKeys)
	if !slices.Equal(wantKeys, gotKeys) {
		return fmt.Errorf("addresses %v; the register has %v", gotKeys, wantKeys)
	}
	return nil
}

func hasIssue(is []adreswijzer.Issue, code adreswijzer.IssueCode) bool {
	return slices.ContainsFunc(is, func(i adreswijzer.Issue) bool { return i.Code == code })
}

func deref0(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func nameIn(s string, n adreswijzer.Names) bool {
	for _, v := range n.All() {
		if fold(v) == fold(s) {
			return true
		}
	}
	return false
}

func judgeValidate(c *call, r *register, body []byte) error {
	var resp adreswijzer.ValidateResponse
	if err := json.Unmarshal(body, &resp); err != nil {
		return err
	}
	i, present := r.byID[c.addr.ID]
	matches := func(a *adreswijzer.Address) bool {
		m := resp.Match
		return m != nil && m.HouseNumber != nil && nameIn(m.Street, a.Street) &&
			unitKey(m.Postcode, *m.HouseNumber, deref0(m.HouseNumberSuffix), deref0(m.Unit)) ==
				unitKey(a.Postcode, a.HouseNumber, a.HouseNumberSuffix, a.Unit())
	}
	if !present {
		if resp.Status == adreswijzer.VerdictValid || matches(c.addr) {
			return fmt.Errorf("status %s, match %s %v, for an address this register version does not have",
				resp.Status, resp.Match.Street, resp.Match.HouseNumber)
		}
		return nil
	}
	a := &r.addrs[i]
	if resp.Status == adreswijzer.VerdictAmbiguous && a.Unit() == "" && r.hasUnitsAt(a) {
		// The number has units besides the address without one: the spec's "a number with
		// additions or bus numbers and none given". The address itself must be offered.
		for _, sg := range resp.Suggestions {
			if sg.Address2 == nil && fold(sg.Zip) == fold(adreswijzer.FormatPostcode(a.Country, a.Postcode)) {
				return nil
			}
		}
		return fmt.Errorf("ambiguous without offering the address that has no unit")
	}
	switch {
	case c.clean && resp.Status != adreswijzer.VerdictValid:
		return fmt.Errorf("status %s for an address typed as the register has it", resp.Status)
	case resp.Status != adreswijzer.VerdictValid && resp.Status != adreswijzer.VerdictCorrected:
		return fmt.Errorf("status %s for a register address with a typo", resp.Status)
	case !matches(a):
		return fmt.Errorf("match %+v, want %s", resp.Match, unitKey(a.Postcode, a.HouseNumber, a.HouseNumberSuffix, a.Unit()))
	}
	return nil
}

func judgeSuggest(c *call, r *register, body []byte) error {
	var resp adreswijzer.SuggestResponse
	if err := json.Unmarshal(body, &resp); err != nil {
		return err
	}
	if len(resp.Suggestions) > adreswijzer.MaxSuggestions {
		return fmt.Errorf("%d suggestions", len(resp.Suggestions))
	}
	for _, s := range resp.Suggestions {
		if !r.streets[fold(s.Street)+"|"+fold(s.Locality)] {
			return fmt.Errorf("suggests %q in %q, which this register version does not have", s.Street, s.Locality)
		}
	}
	// With the postcode given, the street the text was typed from must be among them.
	a := c.addr
	if strings.Contains(c.target, "postcode=") && r.hasPlace(a) {
		for _, s := range resp.Suggestions {
			if nameIn(s.Street, a.Street) {
				return nil
			}
		}
		return fmt.Errorf("%v not among the suggestions", a.Street.All())
	}
	return nil
}

// hasUnitsAt reports whether a's number has addresses with a unit (toevoeging, bus).
func (r *register) hasUnitsAt(a *adreswijzer.Address) bool {
	for _, o := range r.lookup(a.Postcode, a.HouseNumber, a.StreetID) {
		if o.HouseNumberSuffix == a.HouseNumberSuffix && o.Unit() != "" {
			return true
		}
	}
	return false
}

// hasPlace reports whether r has an address on a's street at a's postcode.
func (r *register) hasPlace(a *adreswijzer.Address) bool {
	for _, st := range a.Street.All() {
		for _, loc := range a.Locality.All() {
			if r.places[a.Postcode+"|"+fold(st)+"|"+fold(loc)] {
				return true
			}
		}
	}
	return false
}

func judgeAutocomplete(r *register, body []byte) error {
	var resp adreswijzer.AutocompleteResponse
	if err := json.Unmarshal(body, &resp); err != nil {
		return err
	}
	if len(resp.Suggestions) > adreswijzer.MaxSuggestions {
		return fmt.Errorf("%d suggestions", len(resp.Suggestions))
	}
	for _, s := range resp.Suggestions {
		switch s.Kind {
		case "address":
			if s.Street == nil || s.Postcode == nil || !r.places[*s.Postcode+"|"+fold(*s.Street)+"|"+fold(s.Locality)] {
				return fmt.Errorf("suggests address %q, which this register version does not have", s.Label)
			}
		case "street":
			if s.Street == nil || !r.streets[fold(*s.Street)+"|"+fold(s.Locality)] {
				return fmt.Errorf("suggests street %q, which this register version does not have", s.Label)
			}
		case "locality":
			if !r.localities[fold(s.Locality)] {
				return fmt.Errorf("suggests place %q, which this register version does not have", s.Label)
			}
		default:
			return fmt.Errorf("suggestion of kind %q", s.Kind)
		}
	}
	return nil
}

func degraded(body []byte) bool {
	var resp struct {
		Degraded bool `json:"degraded"`
	}
	return json.Unmarshal(body, &resp) == nil && resp.Degraded
}

// references holds, per register version, each call's answer with nothing failing.
type references struct {
	registers map[string]*register
	answers   map[string]map[int][]byte
}

func newReferences() *references {
	return &references{registers: map[string]*register{}, answers: map[string]map[int][]byte{}}
}

// gather asks every worker directly (no gateway, no cache) each call, with regs active,
// and keeps the answers after judging them against the registers. Both workers must give
// the same answer: the gateway sends a request to either. Mistyped validations the engine
// does not resolve are dropped from the load (that is matching quality, not a fault); the
// returned calls are those that stay.
func (s *stack) gather(refs *references, calls []*call, regs ...*register) []*call {
	s.t.Helper()
	byCountry := map[adreswijzer.Country]*register{}
	for _, r := range regs {
		byCountry[r.country] = r
		refs.registers[r.version] = r
		if refs.answers[r.version] == nil {
			refs.answers[r.version] = map[int][]byte{}
		}
	}
	client := &http.Client{Timeout: 5 * time.Second}
	var keep []*call
	for _, c := range calls {
		r := byCountry[c.country]
		if r == nil {
			keep = append(keep, c)
			continue
		}
		var first []byte
		for attempt := 0; ; attempt++ {
			var answers [][]byte
			for _, w := range s.workers {
				resp, err := client.Do(c.request(w.url, "", ""))
				if err != nil {
					s.t.Fatalf("reference %v from %s: %v", c, w.name, err)
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					s.t.Fatalf("reference %v from %s: %d %s", c, w.name, resp.StatusCode, b)
				}
				if v := resp.Header.Get("X-Dataset-Version"); v != r.version {
					s.t.Fatalf("reference %v from %s: version %q, want %q", c, w.name, v, r.version)
				}
				answers = append(answers, bytes.TrimSpace(b))
			}
			if c.route == routeAutocomplete && slices.ContainsFunc(answers, degraded) && attempt < 10 {
				continue // its time budget is short and the machine shared; ask again
			}
			for i, a := range answers[1:] {
				if !bytes.Equal(a, answers[0]) {
					s.t.Errorf("%v: %s and %s answer differently with nothing failing:\n%s\n%s", c,
						s.workers[0].name, s.workers[i+1].name, answers[0], a)
				}
			}
			first = answers[0]
			break
		}
		if err := judge(c, r, first); err != nil {
			if c.route == routeValidate && !c.clean {
				s.t.Logf("%v left out of the load: the engine does not resolve its typo (%v)", c, err)
				continue
			}
			s.t.Errorf("%v, %s: %v\n%s", c, r.version, err, first)
		}
		refs.answers[r.version][c.id] = first
		keep = append(keep, c)
	}
	return keep
}

// agrees checks a 200 answer of version v to call c: the reference of v, or for a degraded
// autocomplete (fewer suggestions, by design, when time runs short) only the register.
func (refs *references) agrees(c *call, v string, body []byte) error {
	r := refs.registers[v]
	if r == nil || r.country != c.country {
		return fmt.Errorf("answered from version %q, which is not one this test activated for %s", v, c.country)
	}
	body = bytes.TrimSpace(body)
	ref, ok := refs.answers[v][c.id]
	if c.route == routeAutocomplete && (degraded(body) || degraded(ref)) {
		return judge(c, r, body)
	}
	if !ok {
		return fmt.Errorf("no reference answer of %s", v)
	}
	if !bytes.Equal(body, ref) {
		return fmt.Errorf("differs from the answer of %s with nothing failing:\n got %s\nwant %s", v, clip(body), clip(ref))
	}
	return nil
}

func clip(b []byte) string {
	if len(b) > 600 {
		return string(b[:600]) + "…(" + strconv.Itoa(len(b)) + " bytes)"
	}
	return string(b)
}
