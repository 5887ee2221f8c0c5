package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/worker/messages"
)

func (s *service) batchTool(ctx context.Context, _ *mcp.CallToolRequest, in BatchInput) (*mcp.CallToolResult, BatchOutput, error) {
	start := time.Now()
	n := len(in.Addresses)
	var err error
	switch {
	case n == 0:
		err = badInput("addresses is empty: give 1 to 100 addresses.")
	case n > adreswijzer.MaxBatchSize:
		err = badInput(fmt.Sprintf("verify_addresses_batch takes at most %d addresses; this call had %d. Split the list into calls of at most %d; nothing was verified.",
			adreswijzer.MaxBatchSize, n, adreswijzer.MaxBatchSize))
	default:
		if err = uniqueIDs(in.Addresses); err == nil {
			_, _, err = langAndCarrier(in.Lang, in.Carrier)
		}
	}
	if err != nil {
		s.logCall(ctx, ToolBatch, start, n, "bad input", err)
		return nil, BatchOutput{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.opts.BatchTimeout)
	defer cancel()
	results, used, err := s.verifyAll(ctx, in)
	if err != nil {
		err = unavailable()
		s.logCall(ctx, ToolBatch, start, n, "unavailable", err)
		return nil, BatchOutput{}, err
	}
	lang, _ := adreswijzer.ParseLanguage(in.Lang)
	if lang == "" {
		lang = adreswijzer.DefaultLanguage
	}
	s.logCall(ctx, ToolBatch, start, n, "ok", nil)
	return nil, BatchOutput{Results: results, Checked: checked(results), NextStep: batchNextStep(lang, results), Meta: registersMeta(lang, used)}, nil
}

// checked is the number of results with a verdict: the addresses a register was asked
// about. The others (unusable input, a register not loaded, a country without one) were
// never checked, and the gateway does not count them as verifications.
func checked(results []BatchResult) int {
	n := 0
	for _, r := range results {
		switch r.Status {
		case statusError, statusUnavailable, statusUnsupported:
		default:
			n++
		}
	}
	return n
}

// uniqueIDs refuses a batch in which two items have the same id: the results could not be
// told apart by it, which is what it is for. The input schema cannot say this (uniqueItems
// compares whole items), so its description does, and the refusal names positions, not ids.
func uniqueIDs(items []BatchItem) error {
	seen := make(map[string]int, len(items))
	for i, it := range items {
		if j, ok := seen[it.ID]; ok {
			return badInput(fmt.Sprintf("ids must be unique within the batch: items %d and %d have the same id. Nothing was verified.", j+1, i+1))
		}
		seen[it.ID] = i
	}
	return nil
}

// batchNextStep is the one nextStep of a batch. A sentence per result would repeat the same
// few sentences up to a hundred times in a form meant to be compact, and validate's
// sentences point at suggestions and messages the compact results do not carry; so the
// batch says once what to do with the results that are not valid, and each of those is
// checked alone.
//
// Addresses of countries without a register are accepted as given: the sentence says so, and
// does not send the agent to check them one by one, which would only tell it the same.
func batchNextStep(lang adreswijzer.Language, results []BatchResult) string {
	valid, review, unsupported := true, false, false
	for _, r := range results {
		switch r.Status {
		case string(adreswijzer.VerdictValid):
		case string(adreswijzer.VerdictCorrected):
			valid = false
		case statusUnsupported:
			valid, unsupported = false, true
		default:
			valid, review = false, true
		}
	}
	switch {
	case valid:
		return messages.NextStep(lang, messages.BatchValid)
	case unsupported && review:
		return messages.NextStep(lang, messages.BatchReviewAccept)
	case unsupported:
		return messages.NextStep(lang, messages.BatchAccept)
	}
	return messages.NextStep(lang, messages.BatchReview)
}

// verifyAll verifies the items with a few workers and returns the results in the input
// order, with the datasets that answered. An item whose input is unusable gets an error
// result and the others go on; so does an item whose country's register is not loaded
// (status unavailable), because the addresses of the other country can still be checked.
// A register that does not answer fails the whole batch, because the agent must then
// accept every address and verify later anyway, and so does a batch of which no item
// could be checked for want of a register.
func (s *service) verifyAll(ctx context.Context, in BatchInput) ([]BatchResult, []adreswijzer.Dataset, error) {
	results := make([]BatchResult, len(in.Addresses))
	known := s.knownPlace(ctx)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
		next     = make(chan int)
	)
	for range min(s.opts.BatchWorkers, len(in.Addresses)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				r, err := s.verifyItem(ctx, in.Addresses[i], in.Lang, in.Carrier, known)
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					cancel()
					continue
				}
				results[i] = r
			}
		}()
	}
feed:
	for i := range in.Addresses {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if firstErr != nil {
		return nil, nil, firstErr
	}
	checked, unavailable := 0, 0
	for _, r := range results {
		switch r.Status {
		case "": // not reached before the deadline
			return nil, nil, errors.Join(adreswijzer.ErrUnavailable, ctx.Err())
		case statusUnavailable:
			unavailable++
		case statusError:
		default:
			checked++
		}
	}
	if checked == 0 && unavailable > 0 {
		return nil, nil, fmt.Errorf("verify batch: %d items without a register: %w", unavailable, adreswijzer.ErrNoDataset)
	}
	// The registers consulted: those of the countries checked, and both when an address's
	// country could not be told.
	consulted := map[string]bool{}
	for _, r := range results {
		switch {
		case r.CountryCode != nil:
			consulted[*r.CountryCode] = true
		case r.Status != statusError && r.Status != statusUnavailable && r.Status != statusUnsupported:
			consulted[string(adreswijzer.NL)], consulted[string(adreswijzer.BE)] = true, true
		}
	}
	var used []adreswijzer.Dataset
	for _, c := range adreswijzer.Countries {
		if !consulted[string(c)] {
			continue
		}
		if ds, err := s.engine.Dataset(ctx, c); err == nil {
			used = append(used, ds)
		}
	}
	return results, used, nil
}

// Batch statuses beside the verdicts.
const (
	// statusError: the item's input was unusable; its error says why.
	statusError = "error"
	// statusUnavailable: the register of the item's country is not loaded on this worker;
	// the agent accepts the address as given and verifies it later, as for a tool that
	// says the register is unavailable.
	statusUnavailable = "unavailable"
	// statusUnsupported: the item's country has no register here (UNSUPPORTED_COUNTRY); the
	// agent accepts the address as given, as the spec says, and does not check it again.
	statusUnsupported = "unsupported"
)

// verifyItem verifies one address of a batch. Errors are the store's; an unusable input is
// a result with status "error", and an address whose register is not loaded one with
// status "unavailable".
func (s *service) verifyItem(ctx context.Context, it BatchItem, lang, carrier string, known adreswijzer.PlaceKnown) (BatchResult, error) {
	res := BatchResult{ID: it.ID, Issues: []adreswijzer.IssueCode{}}
	if strings.TrimSpace(it.ID) == "" || utf8.RuneCountInString(it.ID) > maxIDLength {
		res.Status, res.Error = statusError, fmt.Sprintf("id must be 1 to %d characters.", maxIDLength)
		return res, nil
	}
	req, err := buildRequest(it.AddressFields, lang, carrier, known)
	if err != nil {
		res.Status, res.Error = statusError, err.Error()
		return res, nil
	}
	v, err := s.verify(ctx, req)
	if errors.Is(err, adreswijzer.ErrNoDataset) {
		res.Status, res.Error = statusUnavailable, unavailableText
		return res, nil
	}
	if err != nil {
		return BatchResult{}, err
	}
	res.Status = string(v.resp.Status)
	if slices.ContainsFunc(v.resp.Issues, func(is adreswijzer.Issue) bool { return is.Code == adreswijzer.IssueUnsupportedCountry }) {
		res.Status = statusUnsupported
	}
	res.Blocking = v.resp.Blocking
	if v.country != "" {
		res.CountryCode = &v.country
	}
	if n := v.resp.Normalized; n != nil {
		line := n.Address1
		if n.Address2 != nil {
			line += " " + *n.Address2
		}
		res.Normalized = ptr(line + ", " + strings.TrimSpace(n.Zip+" "+n.City))
	}
	for _, is := range v.resp.Issues {
		res.Issues = append(res.Issues, is.Code)
	}
	return res, nil
}
