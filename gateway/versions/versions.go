// Package versions knows which register dataset version each country is served from, so
// that cached answers of an older version are never served once a worker activated a new
// one. It learns from two sources: the X-Dataset-Version header of every answer the
// gateway proxies (immediate, but only for countries that get traffic) and a poll of the
// workers' /health (every second, and the only source that can notice a rollback).
package versions

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/adreswijzer/adreswijzer"
)

// Header carries an answer's dataset version from the worker.
const Header = "X-Dataset-Version"

// Tracker holds the current version per country.
type Tracker struct {
	current map[adreswijzer.Country]*atomic.Pointer[string]
}

// NewTracker knows no version yet: until it does, nothing is served from cache.
func NewTracker() *Tracker {
	t := &Tracker{current: map[adreswijzer.Country]*atomic.Pointer[string]{}}
	for _, c := range adreswijzer.Countries {
		t.current[c] = new(atomic.Pointer[string])
	}
	return t
}

// Current returns the version of c, or "" when unknown.
func (t *Tracker) Current(c adreswijzer.Country) string {
	p, ok := t.current[c]
	if !ok {
		return ""
	}
	if v := p.Load(); v != nil {
		return *v
	}
	return ""
}

// Observe takes a version seen in an answer. It only moves forward (a version whose newest
// date is not older than the current one's), because while workers are being updated one
// by one, answers of the old and the new version interleave and the cache must not flip
// back. It reports whether the version changed.
func (t *Tracker) Observe(c adreswijzer.Country, v string) bool {
	p, ok := t.current[c]
	if !ok || v == "" || len(v) > 200 {
		return false
	}
	for {
		cur := p.Load()
		if cur != nil && (*cur == v || !newer(v, *cur)) {
			return false
		}
		// A copy, taken only here: &v would move v to the heap on every call, and nearly
		// every answer names the version already current.
		nv := v
		if p.CompareAndSwap(cur, &nv) {
			return true
		}
	}
}

// Set takes a version all workers agree on, even an older one (a rollback).
func (t *Tracker) Set(c adreswijzer.Country, v string) bool {
	p, ok := t.current[c]
	if !ok || v == "" {
		return false
	}
	old := p.Swap(&v)
	return old == nil || *old != v
}

// Mark is the state of one country at a moment, for SetSince.
type Mark struct{ p *string }

// Mark returns the state of c now.
func (t *Tracker) Mark(c adreswijzer.Country) Mark {
	if p, ok := t.current[c]; ok {
		return Mark{p.Load()}
	}
	return Mark{}
}

// SetSince is Set for a version read while answers kept arriving: it takes v only when
// nothing changed c since m. A health round takes a while, and an answer of a newly
// activated dataset observed meanwhile is newer news than what the round read before it;
// setting the round's older version would serve cached answers of a replaced dataset. A
// real rollback is still followed, by the next round.
func (t *Tracker) SetSince(c adreswijzer.Country, m Mark, v string) bool {
	p, ok := t.current[c]
	if !ok || v == "" {
		return false
	}
	if m.p != nil && *m.p == v {
		return false
	}
	return p.CompareAndSwap(m.p, &v)
}

// newer reports whether v should replace cur: its newest date is later, or the same (the
// later observation wins), or either cannot be read (then any change is news).
func newer(v, cur string) bool {
	dv, err1 := adreswijzer.DatasetVersion(v).Date()
	dc, err2 := adreswijzer.DatasetVersion(cur).Date()
	if err1 != nil || err2 != nil {
		return true
	}
	return !dv.Before(dc)
}

// Poller reads /health of every worker once per interval.
type Poller struct {
	urls     []string
	interval time.Duration
	client   *http.Client
	tracker  *Tracker
	log      *slog.Logger

	failing map[string]bool
	stop    chan struct{}
	done    chan struct{}
	once    sync.Once
}

// HealthURL turns a worker's base URL into its health URL.
func HealthURL(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("worker url %q: want http(s)://host[:port][/health]", s)
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/health"
	}
	return u.String(), nil
}

// StartPoller polls until Stop. urls are health URLs (see HealthURL).
func StartPoller(t *Tracker, urls []string, interval time.Duration, log *slog.Logger) *Poller {
	if log == nil {
		log = slog.Default()
	}
	p := &Poller{
		urls:     urls,
		interval: interval,
		client:   &http.Client{Timeout: min(interval, 800*time.Millisecond)},
		tracker:  t,
		log:      log,
		failing:  map[string]bool{},
		stop:     make(chan struct{}),
		done:     make(chan struct{}),
	}
	go p.run()
	return p
}

// Stop ends polling and waits for the poller to finish.
func (p *Poller) Stop() {
	p.once.Do(func() { close(p.stop) })
	<-p.done
}

func (p *Poller) run() {
	defer close(p.done)
	tick := time.NewTicker(p.interval)
	defer tick.Stop()
	for {
		p.Poll(context.Background())
		select {
		case <-p.stop:
			return
		case <-tick.C:
		}
	}
}

// Poll runs one round: when every worker that answered agrees on a country's version,
// that version is set (so a rollback is followed); when they disagree (an update in
// progress), the newest one is taken.
func (p *Poller) Poll(ctx context.Context) {
	marks := map[adreswijzer.Country]Mark{}
	for _, c := range adreswijzer.Countries {
		marks[c] = p.tracker.Mark(c)
	}
	seen := map[adreswijzer.Country]map[string]bool{}
	for _, u := range p.urls {
		h, err := p.fetch(ctx, u)
		if err != nil {
			if !p.failing[u] {
				p.failing[u] = true
				p.log.Warn("worker health unreadable, dataset versions from it unknown", "worker", u, "error", err)
			}
			continue
		}
		if p.failing[u] {
			p.failing[u] = false
			p.log.Info("worker health readable again", "worker", u)
		}
		for _, d := range h.Datasets {
			c, ok := adreswijzer.ParseCountry(d.Country)
			if !ok || d.Version == "" {
				continue
			}
			if seen[c] == nil {
				seen[c] = map[string]bool{}
			}
			seen[c][d.Version] = true
		}
	}
	for c, vs := range seen {
		if len(vs) == 1 {
			for v := range vs {
				if p.tracker.SetSince(c, marks[c], v) {
					p.log.Info("dataset version changed", "country", string(c), "version", v)
				}
			}
			continue
		}
		for v := range vs {
			if p.tracker.Observe(c, v) {
				p.log.Info("dataset version changed", "country", string(c), "version", v)
			}
		}
	}
}

func (p *Poller) fetch(ctx context.Context, u string) (*adreswijzer.HealthResponse, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	// 503 carries the same body (database down); the datasets in it are still served.
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusServiceUnavailable {
		return nil, fmt.Errorf("health answered %d", resp.StatusCode)
	}
	var h adreswijzer.HealthResponse
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&h); err != nil {
		return nil, fmt.Errorf("health body: %w", err)
	}
	return &h, nil
}
