package httpapi_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/worker/httpapi"
	"github.com/adreswijzer/adreswijzer/worker/openapi"
)

// The answers of every endpoint over the real samples in the memory store. Each exchange
// goes through the openapitest client, so each answer is also held to openapi.json; the
// representative ones are compared with golden files.

func TestAnswers(t *testing.T) {
	d := loadSamples(t)
	base, c := worker(t, newHandler(d.store, nil, httpapi.Options{}))
	// Lookup (cachedLookups): units, boxes, nothing at the number, a bad postcode, both forms.
	for _, e := range append(slices.Clone(cachedLookups), []exchange{
		// Suggest and autocomplete, GET and POST.
		{name: "suggest-nl", target: "/v1/suggest?country=nl&q=Achter"},
		{name: "suggest-nl-post", target: "/v1/suggest", body: `{"country":"NL","q":"Achter","sessionId":"s.1:a-b_c"}`},
		{name: "suggest-nl-postcode", target: "/v1/suggest?country=NL&q=h&postcode=1381%20CS"},
		{name: "suggest-nl-postcode-unknown", target: "/v1/suggest?country=NL&q=h&postcode=9999ZZ"},
		{name: "suggest-short", target: "/v1/suggest?country=nl&q=Ac"},
		{name: "suggest-be-brussels", target: "/v1/suggest?country=be&q=Haren&lang=fr"},
		{name: "suggest-unsupported", target: "/v1/suggest?country=DE&q=Haupt&lang=de"},
		{name: "autocomplete-nl", target: "/v1/autocomplete?country=NL&q=Achteromstraat%201"},
		{name: "autocomplete-nl-post", target: "/v1/autocomplete", body: `{"country":"nl","q":"1381 CS 16"}`},
		{name: "autocomplete-be", target: "/v1/autocomplete?country=BE&q=Stevens-de%20Waelplein%209&postcode=1502"},
		// Validate: each verdict, both countries, every language.
		{name: "validate-nl-valid", target: "/v1/validate", body: `{"countryCode":"NL","address1":"Achtergracht 1","zip":"1381 BK","city":"Weesp","lang":"en"}`},
		{name: "validate-nl-corrected", target: "/v1/validate", body: `{"countryCode":"nl","address1":"Achtergraht 1","zip":"1381bk","city":"Amsterdam"}`},
		{name: "validate-nl-ambiguous", target: "/v1/validate", body: `{"countryCode":"NL","address1":"Hugo de Grootlaan 16","zip":"1381CS","lang":"en","carrier":"postnl"}`},
		{name: "validate-nl-invalid", target: "/v1/validate", body: `{"countryCode":"NL","address1":"Achtergracht 9999","zip":"1381BK","city":null,"address2":null}`},
		{name: "validate-nl-empty", target: "/v1/validate", body: `{"countryCode":"NL","address1":"","zip":""}`},
		{name: "validate-nl-confirmed", target: "/v1/validate", body: `{"countryCode":"NL","address1":"Achtergracht 9999","zip":"1381BK","customerConfirmed":true,"allowPoBox":false}`},
		{name: "validate-nl-unknown-members", target: "/v1/validate", body: `{"countryCode":"NL","address1":"Achtergracht 1","zip":"1381BK","firstName":"x","phone":{"n":[1,2]},"company":null}`},
		{name: "validate-be-nl", target: "/v1/validate", body: `{"countryCode":"BE","address1":"Harenheidestraat 28","address2":"bus 6","zip":"1130","city":"Haren","lang":"nl"}`},
		{name: "validate-be-fr", target: "/v1/validate", body: `{"countryCode":"BE","address1":"Rue Harenheyde 28","address2":"bte 6","zip":"1130","city":"Haren","lang":"fr"}`},
		{name: "validate-be-de", target: "/v1/validate", body: `{"countryCode":"BE","address1":"Route de Maronfa 3","zip":"4960","city":"Malmedy","lang":"de","carrier":"bpost"}`},
		{name: "validate-be-en", target: "/v1/validate", body: `{"countryCode":"BE","address1":"Stevens-de Waelplein 9","zip":"1502","city":"Lembeek","lang":"en","carrier":"sendcloud"}`},
		{name: "validate-unsupported", target: "/v1/validate", body: `{"countryCode":"DE","address1":"Unter den Linden 1","zip":"10117","city":"Berlin","lang":"de"}`},
	}...) {
		t.Run(e.name, func(t *testing.T) {
			resp, body := do(t, c, base, e)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status %d, want 200: %s", resp.StatusCode, body)
			}
			checkDataHeaders(t, resp)
			goldenAnswer(t, e.name, resp, body)
		})
	}
}

// checkDataHeaders holds a data answer to the headers every one carries.
func checkDataHeaders(t *testing.T, resp *http.Response) {
	t.Helper()
	if got := resp.Header.Get("Cache-Control"); got != "no-store" {
		t.Errorf("Cache-Control %q, want no-store: the answers concern personal data", got)
	}
	if got := resp.Header.Get("Content-Type"); got != "application/json; charset=utf-8" {
		t.Errorf("Content-Type %q", got)
	}
}

// The GET and POST forms of one question give the same answer.
func TestPostEqualsGet(t *testing.T) {
	d := loadSamples(t)
	base, c := worker(t, newHandler(d.store, nil, httpapi.Options{}))
	for _, p := range []struct{ get, post, body string }{
		{"/v1/nl/lookup?postcode=1381CS&number=16&lang=fr&carrier=dhl", "/v1/nl/lookup", `{"postcode":"1381CS","number":"16","lang":"fr","carrier":"dhl"}`},
		{"/v1/be/lookup?postcode=1130&street=Harenheidestraat&number=28", "/v1/be/lookup", `{"postcode":"1130","street":"Harenheidestraat","number":"28"}`},
		{"/v1/suggest?country=BE&q=Rue&postcode=1130", "/v1/suggest", `{"country":"BE","q":"Rue","postcode":"1130"}`},
		{"/v1/autocomplete?country=NL&q=Hugo%20de%20Grootlaan%2016", "/v1/autocomplete", `{"country":"NL","q":"Hugo de Grootlaan 16"}`},
	} {
		r1, b1 := do(t, c, base, exchange{name: p.get, target: p.get})
		r2, b2 := do(t, c, base, exchange{name: p.post, target: p.post, body: p.body})
		if r1.StatusCode != 200 || r2.StatusCode != 200 || !bytes.Equal(b1, b2) {
			t.Errorf("GET %s and POST %s differ:\n%d %s\n%d %s", p.get, p.post, r1.StatusCode, b1, r2.StatusCode, b2)
		}
	}
}

// HEAD is GET without the body.
func TestHead(t *testing.T) {
	d := loadSamples(t)
	base, c := worker(t, newHandler(d.store, nil, httpapi.Options{}))
	for _, target := range []string{"/health", "/v1/nl/lookup?postcode=1381CS&number=16", "/openapi.json", "/docs"} {
		get, gbody := do(t, c, base, exchange{name: target, target: target})
		head, hbody := do(t, c, base, exchange{name: target, method: http.MethodHead, target: target})
		if head.StatusCode != get.StatusCode || len(hbody) != 0 {
			t.Errorf("HEAD %s: %d with %d bytes; GET gave %d", target, head.StatusCode, len(hbody), get.StatusCode)
		}
		if target != "/health" && head.Header.Get("Content-Length") != strconv.Itoa(len(gbody)) {
			t.Errorf("HEAD %s: Content-Length %q, GET body has %d bytes", target, head.Header.Get("Content-Length"), len(gbody))
		}
	}
}

func TestHealth(t *testing.T) {
	d := loadSamples(t)
	base, c := worker(t, newHandler(d.store, nil, httpapi.Options{}))
	before := time.Now().UTC().Truncate(time.Second)
	resp, body := do(t, c, base, exchange{target: "/health"})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	var h adreswijzer.HealthResponse
	if err := json.Unmarshal(body, &h); err != nil {
		t.Fatal(err)
	}
	if h.Status != "ok" || h.Database != "up" || len(h.Datasets) != 2 {
		t.Fatalf("health %+v", h)
	}
	checked, err := time.Parse(time.RFC3339, h.CheckedAt)
	if err != nil || checked.Before(before) || checked.After(time.Now().Add(time.Second)) {
		t.Errorf("checkedAt %q: not the time of the check (%v)", h.CheckedAt, err)
	}
	for i, c := range adreswijzer.Countries {
		ds := h.Datasets[i]
		info := mustActive(t, d.store, c)
		if ds.Country != string(c) || ds.Version != string(d.versions[c]) {
			t.Errorf("dataset %d: %+v, want %s %s", i, ds, c, d.versions[c])
		}
		if ds.ActivatedAt != info.ActivatedAt.UTC().Format(time.RFC3339) {
			t.Errorf("%s activatedAt %q, want %s", c, ds.ActivatedAt, info.ActivatedAt.UTC().Format(time.RFC3339))
		}
		// The register date of the version is midnight UTC of its newest date.
		regDate, _ := d.versions[c].Date()
		if want := checked.Sub(regDate).Hours(); ds.AgeHours < want-1 || ds.AgeHours > want+1 {
			t.Errorf("%s ageHours %v, want about %v", c, ds.AgeHours, want)
		}
	}
	if resp.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("health Cache-Control %q", resp.Header.Get("Cache-Control"))
	}
}

func mustActive(t *testing.T, s adreswijzer.Store, c adreswijzer.Country) adreswijzer.DatasetInfo {
	t.Helper()
	ds, err := s.Active(t.Context(), c)
	if err != nil {
		t.Fatal(err)
	}
	return ds.Info()
}

func TestDocuments(t *testing.T) {
	d := loadSamples(t)
	base, c := worker(t, newHandler(d.store, nil, httpapi.Options{}))
	resp, body := do(t, c, base, exchange{target: "/openapi.json"})
	if resp.StatusCode != 200 || !bytes.Equal(body, openapi.JSON()) || resp.Header.Get("Content-Type") != "application/json" {
		t.Errorf("/openapi.json: %d %q, %d bytes", resp.StatusCode, resp.Header.Get("Content-Type"), len(body))
	}
	resp, body = do(t, c, base, exchange{target: "/docs"})
	if resp.StatusCode != 200 || !bytes.Equal(body, openapi.DocsHTML()) || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Errorf("/docs: %d %q, %d bytes", resp.StatusCode, resp.Header.Get("Content-Type"), len(body))
	}
}
