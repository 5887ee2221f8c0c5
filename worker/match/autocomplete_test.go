package match

import (
	"context"
	"errors"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/adreswijzer/adreswijzer"
)

func TestAutocomplete(t *testing.T) {
	e, _ := sampleEngine(t)
	tests := []struct {
		name   string
		q      AutocompleteQuery
		labels []string // the first labels, in order
		kinds  string   // the kind of every suggestion, first letters ("aas" = address, address, street)
		issues []adreswijzer.IssueCode
		lang   adreswijzer.Language
		golden string
	}{
		{name: "street and number", q: AutocompleteQuery{Country: "NL", Q: "hugo de grootlaan 16"},
			labels: []string{"Hugo de Grootlaan 16 ben, 1381 CS Weesp", "Hugo de Grootlaan 16 bov, 1381 CS Weesp"}, kinds: "aa", lang: "nl", golden: "autocomplete_nl_street_number"},
		{name: "postcode and number", q: AutocompleteQuery{Country: "NL", Q: "1381cs 16"},
			labels: []string{"Hugo de Grootlaan 16 ben, 1381 CS Weesp", "Hugo de Grootlaan 16 bov, 1381 CS Weesp"}, kinds: "aa", lang: "nl"},
		{name: "postcode and number typed together", q: AutocompleteQuery{Country: "NL", Q: "1381CS16"},
			labels: []string{"Hugo de Grootlaan 16 ben, 1381 CS Weesp", "Hugo de Grootlaan 16 bov, 1381 CS Weesp"}, kinds: "aa", lang: "nl"},
		{name: "postcode with its letters against the number", q: AutocompleteQuery{Country: "NL", Q: "1381 cs16 bov"},
			labels: []string{"Hugo de Grootlaan 16 bov, 1381 CS Weesp"}, kinds: "a", lang: "nl"},
		{name: "postcode, number and toevoeging", q: AutocompleteQuery{Country: "NL", Q: "1381 CS 16 bov"},
			labels: []string{"Hugo de Grootlaan 16 bov, 1381 CS Weesp"}, kinds: "a", lang: "nl"},
		{name: "street with typo and number", q: AutocompleteQuery{Country: "NL", Q: "Henriete Roland Holsthof 2"},
			labels: []string{"Henriëtte Roland Holsthof 2, 1382 SK Weesp"}, kinds: "a", lang: "nl"},
		{name: "street only", q: AutocompleteQuery{Country: "NL", Q: "hugo de"},
			labels: []string{"Hugo de Grootlaan, Weesp"}, kinds: "s", lang: "nl"},
		{name: "place", q: AutocompleteQuery{Country: "BE", Q: "lembe"},
			labels: []string{"Lembeek"}, kinds: "l", lang: "nl", golden: "autocomplete_be_place"},
		{name: "belgian box", q: AutocompleteQuery{Country: "BE", Q: "Stevens-de Waelplein 9 bus 2"},
			labels: []string{"Stevens-de Waelplein 9 bus 2, 1502 Lembeek"}, kinds: "a", lang: "nl"},
		{name: "belgian address in french", q: AutocompleteQuery{Country: "BE", Q: "rue du pre aux oies 134"},
			labels: []string{"Rue du Pré aux Oies 134, 1130 Bruxelles (Haren)", "Rue du Pré aux Oies 134 bte 1, 1130 Bruxelles (Haren)"}, kinds: "aa", lang: "fr", golden: "autocomplete_be_fr"},
		{name: "postcode parameter", q: AutocompleteQuery{Country: "NL", Q: "16", Postcode: "1381CS", Lang: "en"},
			labels: []string{"Hugo de Grootlaan 16 ben, 1381 CS Weesp", "Hugo de Grootlaan 16 bov, 1381 CS Weesp"}, kinds: "aa", lang: "en"},
		{name: "unknown postcode parameter", q: AutocompleteQuery{Country: "NL", Q: "16", Postcode: "9999 ZZ"},
			issues: []adreswijzer.IssueCode{"POSTCODE_NOT_FOUND"}, lang: "nl"},
		{name: "too short", q: AutocompleteQuery{Country: "NL", Q: "hu"}, lang: "nl"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := e.Autocomplete(context.Background(), tc.q)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Degraded {
				t.Error("degraded on the memory store")
			}
			var kinds strings.Builder
			for i, s := range resp.Suggestions {
				kinds.WriteByte(s.Kind[0])
				if i < len(tc.labels) && s.Label != tc.labels[i] {
					t.Errorf("suggestion %d = %q, want %q", i, s.Label, tc.labels[i])
				}
				if (s.Kind == KindAddress) != (s.Address != nil) {
					t.Errorf("suggestion %q of kind %s with address %v", s.Label, s.Kind, s.Address)
				}
			}
			if !strings.HasPrefix(kinds.String(), tc.kinds) || len(resp.Suggestions) < len(tc.labels) {
				t.Errorf("kinds = %q, want them to start with %q: %+v", kinds.String(), tc.kinds, resp.Suggestions)
			}
			if len(resp.Suggestions) > adreswijzer.MaxSuggestions {
				t.Errorf("%d suggestions", len(resp.Suggestions))
			}
			if got := issueCodes(resp.Issues); len(got) != len(tc.issues) || len(got) > 0 && got[0] != tc.issues[0] {
				t.Errorf("issues = %v, want %v", got, tc.issues)
			}
			if resp.Meta.Language != tc.lang {
				t.Errorf("language = %s, want %s", resp.Meta.Language, tc.lang)
			}
			v := url.Values{"country": {strings.ToLower(string(tc.q.Country))}, "q": {tc.q.Q}}
			if tc.q.Postcode != "" {
				v.Set("postcode", tc.q.Postcode)
			}
			if tc.q.Lang != "" {
				v.Set("lang", string(tc.q.Lang))
			}
			conforms(t, "GET", "/v1/autocomplete?"+v.Encode(), nil, resp, resp.Meta)
			if tc.golden != "" {
				goldenJSON(t, tc.golden, resp)
			}
		})
	}
}

// slowStore answers from the real samples, but each address query first waits as a
// database under load would, or fails as one that is down would.
type slowStore struct {
	adreswijzer.Store
	delay time.Duration
	fail  error
}

func (s slowStore) Active(ctx context.Context, c adreswijzer.Country) (adreswijzer.Dataset, error) {
	ds, err := s.Store.Active(ctx, c)
	if err != nil {
		return nil, err
	}
	return slowDataset{ds, s.delay, s.fail}, nil
}

type slowDataset struct {
	adreswijzer.Dataset
	delay time.Duration
	fail  error
}

func (d slowDataset) wait(ctx context.Context) error {
	if d.fail != nil {
		return d.fail
	}
	select {
	case <-time.After(d.delay):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (d slowDataset) AddressesAt(ctx context.Context, pc string, n int) ([]adreswijzer.Address, error) {
	if err := d.wait(ctx); err != nil {
		return nil, err
	}
	return d.Dataset.AddressesAt(ctx, pc, n)
}

func (d slowDataset) AddressesOnStreet(ctx context.Context, st uint32, n int) ([]adreswijzer.Address, error) {
	if err := d.wait(ctx); err != nil {
		return nil, err
	}
	return d.Dataset.AddressesOnStreet(ctx, st, n)
}

// TestAutocompleteBudget: a store slower than the budget, or one that is down, gives a
// degraded answer with what the in-memory catalog knows, never an error, and within the
// budget.
func TestAutocompleteBudget(t *testing.T) {
	s := loadSamples(t)
	for _, tc := range []struct {
		name  string
		store slowStore
	}{
		{"slow", slowStore{Store: s.store, delay: 200 * time.Millisecond}},
		{"down", slowStore{Store: s.store, fail: adreswijzer.ErrUnavailable}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := New(tc.store, Options{AutocompleteBudget: 20 * time.Millisecond})
			e.Warm(context.Background())
			start := time.Now()
			resp, err := e.Autocomplete(context.Background(), AutocompleteQuery{Country: "NL", Q: "hugo de grootlaan 16"})
			took := time.Since(start)
			if err != nil {
				t.Fatal(err)
			}
			if !resp.Degraded {
				t.Error("not degraded")
			}
			if took > 150*time.Millisecond {
				t.Errorf("took %v, far beyond the 20 ms budget", took)
			}
			conforms(t, "GET", "/v1/autocomplete?country=nl&q=hugo+de+grootlaan+16", nil, resp, resp.Meta)
		})
	}
}

// TestNoDatasetIsAnError: only infrastructure is an error, and it wraps ErrNoDataset so the
// HTTP layer answers 503.
func TestNoDatasetIsAnError(t *testing.T) {
	s := loadSamples(t)
	empty := New(emptyStore{s.store}, Options{})
	ctx := context.Background()
	if _, err := empty.Validate(ctx, nl("Hugo de Grootlaan 16 ben", "1381 CS", "Weesp")); !errors.Is(err, adreswijzer.ErrNoDataset) {
		t.Errorf("validate: %v", err)
	}
	if _, err := empty.Lookup(ctx, LookupQuery{Country: "NL", Postcode: "1381CS", Number: 16}); !errors.Is(err, adreswijzer.ErrNoDataset) {
		t.Errorf("lookup: %v", err)
	}
	if _, err := empty.Suggest(ctx, SuggestQuery{Country: "NL", Q: "hugo"}); !errors.Is(err, adreswijzer.ErrNoDataset) {
		t.Errorf("suggest: %v", err)
	}
	if _, err := empty.Autocomplete(ctx, AutocompleteQuery{Country: "NL", Q: "hugo"}); !errors.Is(err, adreswijzer.ErrNoDataset) {
		t.Errorf("autocomplete: %v", err)
	}
	down := New(slowStore{Store: s.store, fail: adreswijzer.ErrUnavailable}, Options{})
	if _, err := down.Validate(ctx, nl("Hugo de Grootlaan 16 ben", "1381 CS", "Weesp")); !errors.Is(err, adreswijzer.ErrUnavailable) {
		t.Errorf("validate on a store that is down: %v", err)
	}
	if _, err := down.Lookup(ctx, LookupQuery{Country: "NL", Postcode: "1381CS", Number: 16}); !errors.Is(err, adreswijzer.ErrUnavailable) {
		t.Errorf("lookup on a store that is down: %v", err)
	}
}

// emptyStore is the memory store before any import: Active says so for every country.
type emptyStore struct{ adreswijzer.Store }

func (emptyStore) Active(context.Context, adreswijzer.Country) (adreswijzer.Dataset, error) {
	return nil, adreswijzer.ErrNoDataset
}

// TestAutocompleteLocalityPostcode types every locality of both samples: its suggestion
// carries the postcode when all its addresses have one (Malmedy 4960, Lembeek 1502), and
// null only when it spans several (Weesp).
func TestAutocompleteLocalityPostcode(t *testing.T) {
	e, s := sampleEngine(t)
	postcodes := map[adreswijzer.Names]map[string]bool{}
	country := map[adreswijzer.Names]adreswijzer.Country{}
	for _, rows := range [][]adreswijzer.Address{s.nl, s.be} {
		for _, a := range rows {
			if postcodes[a.Locality] == nil {
				postcodes[a.Locality] = map[string]bool{}
			}
			postcodes[a.Locality][a.Postcode] = true
			country[a.Locality] = a.Country
		}
	}
	single := 0
	for loc, pcs := range postcodes {
		name := loc.PickPrimary(country[loc] == adreswijzer.BE)
		resp, err := e.Autocomplete(context.Background(), AutocompleteQuery{Country: country[loc], Q: name, Budget: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		var got *adreswijzer.AutocompleteSuggestion
		for i, sg := range resp.Suggestions {
			if sg.Kind == KindLocality && slices.Contains(loc.All(), sg.Locality) {
				got = &resp.Suggestions[i]
				break
			}
		}
		if got == nil {
			t.Errorf("%q is not suggested as a place: %+v", name, resp.Suggestions)
			continue
		}
		want := ""
		if len(pcs) == 1 {
			for pc := range pcs {
				want = pc
			}
			single++
		}
		if p := got.Postcode; want == "" && p != nil || want != "" && (p == nil || *p != want) {
			t.Errorf("%q: postcode %v, want %q (null for several)", name, got.Postcode, want)
		}
	}
	if single < 5 {
		t.Errorf("only %d places with one postcode checked", single)
	}
}
