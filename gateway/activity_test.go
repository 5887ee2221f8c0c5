package gateway

import (
	"context"
	"maps"
	"net/http"
	"testing"
	"time"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/gateway/keys"
	"github.com/adreswijzer/adreswijzer/gateway/usage"
	"github.com/adreswijzer/adreswijzer/gateway/usage/usagetest"
	"github.com/adreswijzer/adreswijzer/gateway/versions"
)

// activityCall is one request of an activity case and how it ends.
type activityCall struct {
	cred                 string // a key kind, or "agent" for the agent extension's token
	method, target, body string
	origin               string
	refused              bool // Decide refuses it
	status               int  // what Finish is told; 0: 200
	cache                bool // the answer goes to the cache (the next same lookup is a hit)
	hit                  bool // the call must be answered from the cache
	finishes             int  // Finish calls; 0: 1
}

// activityRow is an expected row: a credential's calls and verifications on a route today.
type activityRow struct {
	cred, route          string
	calls, verifications int64
}

const (
	nlLookup   = "/v1/nl/lookup?postcode=1381CS&number=16"
	agentToken = "oauth-token-of-an-agent"
	validateNL = `{"countryCode":"NL","address1":"Hugo de Grootlaan 16","zip":"1381 CS","city":"Weesp"`
	shopOrigin = "https://shop.example"
	toolsList  = `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
)

// Every answered call of a principal becomes activity of its credential, route and day,
// with the verifications it counted in the end; refused and failed calls none; a request
// finished twice once.
func TestActivity(t *testing.T) {
	live := func(target string) activityCall {
		return activityCall{cred: string(keys.Live), method: "GET", target: target}
	}
	for _, c := range []struct {
		name  string
		calls []activityCall
		rows  []activityRow
	}{
		{"lookup", []activityCall{live(nlLookup)},
			[]activityRow{{"live", "lookup", 1, 1}}},
		{"cached lookup", []activityCall{{cred: "live", method: "GET", target: nlLookup, cache: true},
			{cred: "live", method: "GET", target: nlLookup, hit: true}},
			[]activityRow{{"live", "lookup", 2, 2}}},
		{"validate", []activityCall{{cred: "live", method: "POST", target: "/v1/validate", body: validateNL + `}`}},
			[]activityRow{{"live", "validate", 1, 1}}},
		{"session: lookup then validate", []activityCall{live(nlLookup + "&sessionId=s1"),
			{cred: "live", method: "POST", target: "/v1/validate", body: validateNL + `,"sessionId":"s1"}`}},
			[]activityRow{{"live", "lookup", 1, 1}, {"live", "validate", 1, 0}}},
		{"HEAD", []activityCall{{cred: "live", method: "HEAD", target: nlLookup}},
			[]activityRow{{"live", "lookup", 1, 0}}},
		{"test key", []activityCall{{cred: "test", method: "GET", target: nlLookup}, {cred: "test", method: "GET", target: "/v1/suggest?country=nl&q=Hugo"}},
			[]activityRow{{"test", "lookup", 1, 0}, {"test", "suggest", 1, 0}}},
		{"publishable key", []activityCall{{cred: "pk_live", method: "GET", target: "/v1/suggest?country=nl&q=Hugo&sessionId=s2", origin: shopOrigin}},
			[]activityRow{{"pk_live", "suggest", 1, 1}}},
		{"agent", []activityCall{{cred: "agent", method: "POST", target: "/mcp", body: toolsList}},
			[]activityRow{{"agent", "agent", 1, 0}}},
		{"refused call", []activityCall{{cred: "pk_live", method: "GET", target: nlLookup + "&sessionId=s3", origin: "https://evil.example", refused: true},
			{cred: "", method: "GET", target: nlLookup, refused: true}}, nil},
		{"failed call", []activityCall{{cred: "live", method: "GET", target: nlLookup, status: http.StatusServiceUnavailable},
			{cred: "live", method: "GET", target: nlLookup, status: 499}}, nil},
		{"finished twice", []activityCall{{cred: "live", method: "GET", target: nlLookup, finishes: 2}},
			[]activityRow{{"live", "lookup", 1, 1}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, Config{}, &agentExtension{})
			start := time.Now()
			for i, call := range c.calls {
				f.activityCall(t, i, call)
			}
			f.checkActivity(t, start, c.rows)
		})
	}
}

// activityCall makes one call of a case and finishes it as the adapter would.
func (f *fixture) activityCall(t *testing.T, i int, c activityCall) {
	t.Helper()
	ctx := context.Background()
	var body []byte
	if c.body != "" {
		body = []byte(c.body)
	}
	cred := f.secrets[keys.Kind(c.cred)]
	if c.cred == "agent" {
		cred = agentToken
	}
	d, e := f.g.Decide(ctx, f.request(c.method, c.target, cred, c.origin, body), "192.0.2.1")
	if c.refused {
		if e == nil {
			t.Fatalf("call %d was not refused", i)
		}
		return
	}
	if e != nil {
		t.Fatalf("call %d: %v", i, e)
	}
	if _, hit := f.g.Cached(d); hit != c.hit {
		t.Fatalf("call %d: cache hit %v, want %v", i, hit, c.hit)
	}
	status := c.status
	if status == 0 {
		status = http.StatusOK
	}
	if c.cache {
		f.g.Store(d, http.Header{versions.Header: {f.g.Versions.Current(adreswijzer.NL)}}, []byte(`{"addresses":[]}`))
	}
	for range max(c.finishes, 1) {
		f.g.Finish(ctx, d, status)
	}
}

// checkActivity flushes the meter and compares each account's activity since start with
// rows, and each account's verifications with its month's totals: the dashboard's two
// figures come from one count.
func (f *fixture) checkActivity(t *testing.T, start time.Time, rows []activityRow) {
	t.Helper()
	ctx := context.Background()
	if err := f.g.Meter.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	account := func(cred string) (acct, id string) {
		if cred == "agent" {
			return "acct-agent", "agent-1"
		}
		return "acct-" + cred, f.ids[keys.Kind(cred)]
	}
	for _, cred := range []string{"live", "test", "pk_live", "pk_test", "agent"} {
		acct, id := account(cred)
		want := map[[2]string]usage.Activity{}
		var verifications int64
		for _, r := range rows {
			if r.cred == cred {
				want[[2]string{id, r.route}] = usage.Activity{Calls: r.calls, Verifications: r.verifications}
				verifications += r.verifications
			}
		}
		got := usagetest.Sum(t, f.sink, acct, start, time.Now())
		if !maps.EqualFunc(got, want, func(a, b usage.Activity) bool {
			return a.Calls == b.Calls && a.Verifications == b.Verifications
		}) {
			t.Errorf("%s: activity %v, want %v", acct, got, want)
		}
		last, err := f.sink.LastUsed(ctx, acct)
		if err != nil || (len(want) > 0) != (len(last) == 1 && !last[id].Before(start.Truncate(time.Microsecond))) {
			t.Errorf("%s: last used %v (%v), want %s's when it has activity", acct, last, err, id)
		}
		if tot, err := f.sink.Get(ctx, acct, usage.Month(start)); err != nil || tot.Verifications != verifications {
			t.Errorf("%s: %d verifications in the month's totals (%v), %d in its activity", acct, tot.Verifications, err, verifications)
		}
	}
}
