package mcpserver

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/worker/match"
	"github.com/adreswijzer/adreswijzer/worker/messages"
)

// maxHouseNumber is the largest house number: the spec's number parameter has 1 to 6 digits.
const maxHouseNumber = 999999

// suggestBudget is the autocomplete budget of suggest_address: an agent waits for a
// complete answer rather than a fast partial one, as a person typing would need.
const suggestBudget = 500 * time.Millisecond

func (s *service) lookupTool(ctx context.Context, _ *mcp.CallToolRequest, in LookupInput) (*mcp.CallToolResult, LookupOutput, error) {
	start := time.Now()
	q, err := lookupQuery(in)
	if err != nil {
		s.logCall(ctx, ToolLookup, start, 0, "bad input", err)
		return nil, LookupOutput{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.opts.CallTimeout)
	defer cancel()
	resp, err := s.engine.Lookup(ctx, q)
	if err != nil {
		err = unavailable()
		s.logCall(ctx, ToolLookup, start, 0, "unavailable", err)
		return nil, LookupOutput{}, err
	}
	s.logCall(ctx, ToolLookup, start, len(resp.Addresses), "ok", nil)
	if in.Compact {
		return nil, compact(resp), nil
	}
	return nil, LookupOutput{LookupResponse: resp}, nil
}

// compact is a lookup answer with one line per address in place of the addresses.
func compact(resp adreswijzer.LookupResponse) LookupOutput {
	out := LookupOutput{LookupResponse: resp, Compact: make([]CompactAddress, len(resp.Addresses))}
	for i, a := range resp.Addresses {
		out.Compact[i] = CompactAddress{Addition: a.Addition, Line: strings.Join(a.Formatted, ", "), Planned: a.Planned}
	}
	out.Addresses = []adreswijzer.LookupAddress{}
	return out
}

func lookupQuery(in LookupInput) (match.LookupQuery, error) {
	lang, carrier, err := langAndCarrier(in.Lang, in.Carrier)
	if err != nil {
		return match.LookupQuery{}, err
	}
	switch {
	case strings.TrimSpace(in.Country) == "":
		return match.LookupQuery{}, badInput("country is required: NL or BE.")
	case strings.TrimSpace(in.Postcode) == "":
		return match.LookupQuery{}, badInput("postcode is required.")
	case utf8.RuneCountInString(in.Postcode) > adreswijzer.MaxFieldLength:
		return match.LookupQuery{}, badInput(fmt.Sprintf("postcode is longer than %d characters.", adreswijzer.MaxFieldLength))
	case utf8.RuneCountInString(in.Street) > adreswijzer.MaxFieldLength:
		return match.LookupQuery{}, badInput(fmt.Sprintf("street is longer than %d characters.", adreswijzer.MaxFieldLength))
	case in.HouseNumber < 1 || in.HouseNumber > maxHouseNumber:
		return match.LookupQuery{}, badInput(fmt.Sprintf("houseNumber must be a whole number from 1 to %d, without letter or addition.", maxHouseNumber))
	}
	c := adreswijzer.Country(countryCodeOf(in.Country))
	if c == adreswijzer.BE && strings.TrimSpace(in.Street) == "" {
		return match.LookupQuery{}, badInput("street is required for BE: a Belgian postcode spans many streets. Use suggest_address to find the street.")
	}
	return match.LookupQuery{Country: c, Postcode: in.Postcode, Number: in.HouseNumber, Street: in.Street, Lang: lang, Carrier: carrier}, nil
}

func langAndCarrier(lang, carrier string) (adreswijzer.Language, adreswijzer.Carrier, error) {
	var l adreswijzer.Language
	var k adreswijzer.Carrier
	if lang != "" {
		var ok bool
		if l, ok = adreswijzer.ParseLanguage(lang); !ok {
			return "", "", badInput("lang must be one of nl, fr, de, en.")
		}
	}
	if carrier != "" {
		var ok bool
		if k, ok = adreswijzer.ParseCarrier(carrier); !ok {
			return "", "", badInput("carrier must be one of postnl, bpost, dhl, sendcloud.")
		}
	}
	return l, k, nil
}

func (s *service) suggestTool(ctx context.Context, _ *mcp.CallToolRequest, in SuggestInput) (*mcp.CallToolResult, SuggestOutput, error) {
	start := time.Now()
	lang, _, err := langAndCarrier(in.Lang, "")
	switch n := utf8.RuneCountInString(strings.TrimSpace(in.Query)); {
	case err != nil:
	case strings.TrimSpace(in.Country) == "":
		err = badInput("country is required: NL or BE.")
	case n == 0:
		err = badInput(`query is empty: give what is known of the address, e.g. "Bloemendalerweg 51" or "1382 KB".`)
	case n > adreswijzer.MaxQueryLength:
		err = badInput(fmt.Sprintf("query is longer than %d characters; for a whole address use verify_address.", adreswijzer.MaxQueryLength))
	case utf8.RuneCountInString(in.Postcode) > adreswijzer.MaxFieldLength:
		err = badInput(fmt.Sprintf("postcode is longer than %d characters.", adreswijzer.MaxFieldLength))
	}
	if err != nil {
		s.logCall(ctx, ToolSuggest, start, 0, "bad input", err)
		return nil, SuggestOutput{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.opts.CallTimeout)
	defer cancel()
	resp, err := s.engine.Autocomplete(ctx, match.AutocompleteQuery{
		Country: adreswijzer.Country(countryCodeOf(in.Country)), Q: in.Query, Postcode: in.Postcode, Lang: lang,
		Budget: suggestBudget,
	})
	if err != nil {
		err = unavailable()
		s.logCall(ctx, ToolSuggest, start, 0, "unavailable", err)
		return nil, SuggestOutput{}, err
	}
	out := SuggestOutput{Suggestions: resp.Suggestions, Degraded: resp.Degraded, Issues: resp.Issues, Meta: resp.Meta}
	situation := messages.LookupSeveral
	switch {
	case slices.ContainsFunc(resp.Issues, func(is adreswijzer.Issue) bool { return is.Code == adreswijzer.IssueUnsupportedCountry }):
		situation = messages.UnsupportedCountry
	case len(resp.Suggestions) == 0:
		situation = messages.SuggestNone
	}
	out.NextStep = messages.NextStep(resp.Meta.Language, situation)
	s.logCall(ctx, ToolSuggest, start, len(resp.Suggestions), "ok", nil)
	return nil, out, nil
}

func (s *service) countriesTool(ctx context.Context, _ *mcp.CallToolRequest, _ CountriesInput) (*mcp.CallToolResult, CountriesOutput, error) {
	start := time.Now()
	out := CountriesOutput{Countries: []CountryInfo{}}
	for _, c := range adreswijzer.Countries {
		info := CountryInfo{CountryCode: string(c)}
		switch c {
		case adreswijzer.NL:
			info.Name = "Netherlands"
			info.Register = match.SourceBAG
			info.PostcodeFormat = "1234 AB (four digits, a space, two letters)"
			info.NameLanguages = []string{"nl"}
			info.RequiredInputs = RequiredInputs{
				VerifyAddress:  []string{"address (free-form) or address1 + zip"},
				LookupAddress:  []string{"country", "postcode", "houseNumber"},
				SuggestAddress: []string{"country", "query"},
			}
		case adreswijzer.BE:
			info.Name = "Belgium"
			info.Register = match.SourceBeST
			info.Attribution = ptr(match.AttributionBeST)
			info.PostcodeFormat = "1234 (four digits)"
			info.NameLanguages = []string{"nl", "fr", "de"}
			info.RequiredInputs = RequiredInputs{
				VerifyAddress:  []string{"address (free-form) or address1 + zip"},
				LookupAddress:  []string{"country", "postcode", "street", "houseNumber"},
				SuggestAddress: []string{"country", "query"},
			}
		}
		if ds, err := s.engine.Dataset(ctx, c); err == nil {
			d := ds.Info()
			info.Available = true
			info.DatasetVersion = ptr(string(d.Version))
			info.ActivatedAt = ptr(d.ActivatedAt.UTC().Format(time.RFC3339))
		}
		out.Countries = append(out.Countries, info)
	}
	s.logCall(ctx, ToolCountries, start, 0, "ok", nil)
	return nil, out, nil
}
