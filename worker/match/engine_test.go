package match

import (
	"context"
	"sync"
	"testing"

	"github.com/adreswijzer/adreswijzer"
)

// TestConcurrentAnswers runs validate, lookup and suggest from many goroutines on a fresh
// engine, so that the index is built while requests race for it (go test -race).
func TestConcurrentAnswers(t *testing.T) {
	s := loadSamples(t)
	e := New(s.store, Options{})
	cases := qualityCases(s)
	var wg sync.WaitGroup
	for g := 0; g < 6; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			ctx := context.Background()
			for i := g; i < len(cases); i += 6 * 7 {
				want, err := e.Validate(ctx, cases[i].req)
				if err != nil {
					t.Error(err)
					return
				}
				if want.Status != cases[i].want {
					t.Errorf("%s: %s, want %s", cases[i].name, want.Status, cases[i].want)
				}
				if _, err := e.Suggest(ctx, SuggestQuery{Country: adreswijzer.Country(cases[i].req.CountryCode), Q: cases[i].req.Address1}); err != nil {
					t.Error(err)
				}
				if _, err := e.Lookup(ctx, LookupQuery{Country: adreswijzer.Country(cases[i].req.CountryCode), Postcode: cases[i].req.Zip, Number: 1, Street: "a"}); err != nil {
					t.Error(err)
				}
			}
		}(g)
	}
	wg.Wait()
}
