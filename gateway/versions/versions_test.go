package versions

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/adreswijzer/adreswijzer"
)

func TestTrackerMovesForward(t *testing.T) {
	tr := NewTracker()
	nl := adreswijzer.NL
	if tr.Current(nl) != "" {
		t.Fatal("known before anything was seen")
	}
	steps := []struct {
		v       string
		changed bool
		want    string
	}{
		{"bag:2026-11-08", true, "bag:2026-11-08"},
		{"bag:2026-11-08+bagmut:2026-11-21", true, "bag:2026-11-08+bagmut:2026-11-21"},
		{"bag:2026-11-08", false, "bag:2026-11-08+bagmut:2026-11-21"}, // an old worker's answer
		{"bag:2026-11-21", true, "bag:2026-11-21"},                    // same newest date: later one wins
		{"garbage", true, "garbage"},
	}
	for _, s := range steps {
		if got := tr.Observe(nl, s.v); got != s.changed || tr.Current(nl) != s.want {
			t.Errorf("Observe(%q) = %v, current %q; want %v, %q", s.v, got, tr.Current(nl), s.changed, s.want)
		}
	}
	if !tr.Set(nl, "bag:2020-01-01") || tr.Current(nl) != "bag:2020-01-01" {
		t.Error("Set does not roll back")
	}
	if tr.Observe("DE", "x:2026-01-01") || tr.Current(adreswijzer.BE) != "" {
		t.Error("countries mixed up")
	}
}

type fakeHealth struct {
	mu sync.Mutex
	v  map[string]string
}

func (f *fakeHealth) set(c, v string) {
	f.mu.Lock()
	f.v[c] = v
	f.mu.Unlock()
}

func (f *fakeHealth) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	h := adreswijzer.HealthResponse{Status: "ok", Database: "up"}
	for c, v := range f.v {
		h.Datasets = append(h.Datasets, adreswijzer.DatasetStatus{Country: c, Version: v})
	}
	_ = json.NewEncoder(w).Encode(h)
}

func TestPoll(t *testing.T) {
	a := &fakeHealth{v: map[string]string{"NL": "bag:2026-11-08", "BE": "best:2026-11-20"}}
	b := &fakeHealth{v: map[string]string{"NL": "bag:2026-11-08"}}
	sa, sb := httptest.NewServer(a), httptest.NewServer(b)
	defer sa.Close()
	defer sb.Close()
	tr := NewTracker()
	urls := []string{}
	for _, s := range []string{sa.URL, sb.URL, "http://127.0.0.1:1"} {
		u, err := HealthURL(s)
		if err != nil {
			t.Fatal(err)
		}
		urls = append(urls, u)
	}
	p := &Poller{urls: urls, client: http.DefaultClient, tracker: tr, log: nil, failing: map[string]bool{}}
	p.log = discard()
	ctx := context.Background()
	p.Poll(ctx)
	if tr.Current(adreswijzer.NL) != "bag:2026-11-08" || tr.Current(adreswijzer.BE) != "best:2026-11-20" {
		t.Fatalf("after one poll: %q %q", tr.Current(adreswijzer.NL), tr.Current(adreswijzer.BE))
	}
	// One worker updated: the newest wins while they disagree.
	a.set("NL", "bag:2026-11-22")
	p.Poll(ctx)
	if tr.Current(adreswijzer.NL) != "bag:2026-11-22" {
		t.Errorf("update in progress: %q", tr.Current(adreswijzer.NL))
	}
	// Both back on the old one: a rollback.
	a.set("NL", "bag:2026-11-08")
	p.Poll(ctx)
	if tr.Current(adreswijzer.NL) != "bag:2026-11-08" {
		t.Errorf("rollback: %q", tr.Current(adreswijzer.NL))
	}
	// An answer of a new dataset observed while a round was reading the old one from every
	// worker: the round must not take the tracker back.
	mark := tr.Mark(adreswijzer.NL)
	tr.Observe(adreswijzer.NL, "bag:2026-11-23")
	if tr.SetSince(adreswijzer.NL, mark, "bag:2026-11-08") || tr.Current(adreswijzer.NL) != "bag:2026-11-23" {
		t.Errorf("a round older than an observation set the version back: %q", tr.Current(adreswijzer.NL))
	}
	// The next round, with nothing observed meanwhile, follows what the workers agree on.
	p.Poll(ctx)
	if tr.Current(adreswijzer.NL) != "bag:2026-11-08" {
		t.Errorf("rollback after an observation: %q", tr.Current(adreswijzer.NL))
	}
	if _, err := HealthURL("ftp://x"); err == nil {
		t.Error("bad worker URL accepted")
	}
	if u, _ := HealthURL("http://w:8081/"); u != "http://w:8081/health" {
		t.Errorf("HealthURL %q", u)
	}
}
