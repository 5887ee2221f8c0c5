package gatewaytest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/worker/openapi"
)

// UpstreamEnv names a running register worker (e.g. http://127.0.0.1:8081) for the
// gateway's contract tests to use instead of the worker they build and start themselves
// from this checkout. The stand-in below is only for tests that must steer the worker
// (versions, failures, hangs) or see what it received.
const UpstreamEnv = "ADRESWIJZER_TEST_UPSTREAM"

// Worker stands in for a register worker: it keeps the worker's HTTP contract (paths,
// methods, answer shapes of openapi.json, X-Dataset-Version on every data answer, errors
// as ErrorResponse, /health with the datasets) and answers from what the request says
// instead of from a register. It records what it received, so tests can see what the
// gateway forwarded.
type Worker struct {
	*httptest.Server

	mu       sync.Mutex
	versions map[adreswijzer.Country]string
	calls    map[string]int
	fail     int
	failRaw  *rawAnswer // an error page instead of the data answers
	delay    time.Duration
	sawCred  bool
	lastBody int
}

// Default versions of the stand-in's datasets.
const (
	VersionNL = "bag:2026-11-08+bagmut:2026-11-21"
	VersionBE = "best:2026-11-20"
)

// NewWorker starts a stand-in on 127.0.0.1; it stops with the test.
func NewWorker(t testing.TB) *Worker {
	w := &Worker{
		versions: map[adreswijzer.Country]string{adreswijzer.NL: VersionNL, adreswijzer.BE: VersionBE},
		calls:    map[string]int{},
	}
	w.Server = httptest.NewServer(http.HandlerFunc(w.serve))
	t.Cleanup(w.Close)
	return w
}

// SetVersion activates a new dataset version for a country.
func (w *Worker) SetVersion(c adreswijzer.Country, v string) {
	w.mu.Lock()
	w.versions[c] = v
	w.mu.Unlock()
}

// Fail makes data answers fail with status (0: answer normally).
func (w *Worker) Fail(status int) {
	w.mu.Lock()
	w.fail = status
	w.mu.Unlock()
}

// rawAnswer is an answer as a web server or proxy of its own would give it.
type rawAnswer struct {
	status            int
	contentType, body string
}

// FailRaw makes data answers fail with status and a body that is not the spec's
// ErrorResponse (a page of the worker's web server, or of a proxy between), as given;
// status 0 answers normally.
func (w *Worker) FailRaw(status int, contentType, body string) {
	w.mu.Lock()
	w.failRaw = nil
	if status != 0 {
		w.failRaw = &rawAnswer{status: status, contentType: contentType, body: body}
	}
	w.mu.Unlock()
}

// Delay makes every answer wait.
func (w *Worker) Delay(d time.Duration) {
	w.mu.Lock()
	w.delay = d
	w.mu.Unlock()
}

// Calls returns how many requests reached path.
func (w *Worker) Calls(path string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.calls[path]
}

// SawCredential reports whether any request arrived with an Authorization header.
func (w *Worker) SawCredential() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.sawCred
}

// LastBodyLength is the length of the last POST body received.
func (w *Worker) LastBodyLength() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.lastBody
}

func (w *Worker) version(c adreswijzer.Country) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.versions[c]
}

func (w *Worker) serve(rw http.ResponseWriter, r *http.Request) {
	w.mu.Lock()
	w.calls[r.URL.Path]++
	if r.Header.Get("Authorization") != "" {
		w.sawCred = true
	}
	delay, fail, raw := w.delay, w.fail, w.failRaw
	w.mu.Unlock()
	if delay > 0 {
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
	}
	var body map[string]any
	if r.Method == http.MethodPost {
		b, _ := io.ReadAll(r.Body)
		w.mu.Lock()
		w.lastBody = len(b)
		w.mu.Unlock()
		if len(b) > adreswijzer.MaxBodyBytes {
			writeError(rw, http.StatusRequestEntityTooLarge, adreswijzer.ErrPayloadTooLarge, "The request body is larger than 64 KB.")
			return
		}
		if err := json.Unmarshal(b, &body); err != nil && r.URL.Path != "/mcp" {
			writeError(rw, http.StatusBadRequest, adreswijzer.ErrBadRequest, "The request body must be a JSON object.")
			return
		}
	}
	param := func(name string) string {
		if body != nil {
			if s, ok := body[name].(string); ok {
				return s
			}
			return ""
		}
		return r.URL.Query().Get(name)
	}
	path := r.URL.Path
	switch {
	case path == "/health" && r.Method == http.MethodGet:
		w.health(rw)
	case path == "/openapi.json" && r.Method == http.MethodGet:
		rw.Header().Set("Content-Type", "application/json")
		_, _ = rw.Write(openapi.JSON())
	case path == "/docs" && r.Method == http.MethodGet:
		rw.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(rw, "<!doctype html><title>Adreswijzer API</title><h1>Adreswijzer API</h1>")
	case path == "/.well-known/oauth-protected-resource/mcp" && r.Method == http.MethodGet:
		writeJSON(rw, http.StatusOK, "", map[string]any{
			"resource": "http://" + r.Host + "/mcp", "authorization_servers": []string{"https://auth.adreswijzer.example"},
			"scopes_supported": []string{"address:verify"}, "bearer_methods_supported": []string{"header"},
		})
	case path == "/mcp":
		if r.Method != http.MethodPost {
			rw.Header().Set("Allow", "POST")
			writeError(rw, http.StatusMethodNotAllowed, adreswijzer.ErrNotFound, "This endpoint takes POST.")
			return
		}
		writeJSON(rw, http.StatusOK, "", map[string]any{"jsonrpc": "2.0", "id": 1, "result": map[string]any{"tools": []any{}}})
	case fail != 0:
		writeError(rw, fail, adreswijzer.ErrServiceUnavailable, "The address register is temporarily unavailable.")
	case raw != nil:
		rw.Header().Set("Content-Type", raw.contentType)
		rw.WriteHeader(raw.status)
		_, _ = io.WriteString(rw, raw.body)
	case strings.HasPrefix(path, "/v1/") && strings.HasSuffix(path, "/lookup") && len(path) == len("/v1/nl/lookup") &&
		(r.Method == http.MethodGet || r.Method == http.MethodPost):
		w.lookup(rw, path[4:6], param)
	case (path == "/v1/suggest" || path == "/v1/autocomplete") && (r.Method == http.MethodGet || r.Method == http.MethodPost):
		w.suggest(rw, path == "/v1/autocomplete", param)
	case path == "/v1/validate" && r.Method == http.MethodPost:
		w.validate(rw, param)
	default:
		writeError(rw, http.StatusNotFound, adreswijzer.ErrNotFound, "No such endpoint.")
	}
}

func (w *Worker) health(rw http.ResponseWriter) {
	now := time.Now().UTC()
	h := adreswijzer.HealthResponse{Status: "ok", Database: "up", CheckedAt: now.Format(time.RFC3339)}
	for _, c := range adreswijzer.Countries {
		v := w.version(c)
		info := adreswijzer.DatasetInfo{Country: c, Version: adreswijzer.DatasetVersion(v)}
		h.Datasets = append(h.Datasets, adreswijzer.DatasetStatus{Country: string(c), Version: v,
			ActivatedAt: now.Add(-time.Hour).Format(time.RFC3339), AgeHours: info.AgeHours(now)})
	}
	writeJSON(rw, http.StatusOK, "", h)
}

func (w *Worker) meta(c adreswijzer.Country) adreswijzer.Meta {
	v := w.version(c)
	src := map[adreswijzer.Country]string{adreswijzer.NL: "Basisregistratie Adressen en Gebouwen (BAG)", adreswijzer.BE: "BeST Address"}[c]
	m := adreswijzer.Meta{DatasetVersion: &v, Source: &src, Language: adreswijzer.LangNL}
	if c == adreswijzer.BE {
		a := "BeST Address, FPS BOSA, CC BY 4.0"
		m.Attribution = &a
	}
	return m
}

func (w *Worker) lookup(rw http.ResponseWriter, cc string, param func(string) string) {
	c, ok := adreswijzer.ParseCountry(cc)
	if !ok {
		writeJSON(rw, http.StatusOK, "", adreswijzer.LookupResponse{
			Addresses: []adreswijzer.LookupAddress{}, Additions: []*string{},
			Issues:   []adreswijzer.Issue{{Code: adreswijzer.IssueUnsupportedCountry, Severity: adreswijzer.IssueUnsupportedCountry.Severity(), Message: "Only NL and BE are checked."}},
			NextStep: "Accept the address as given.",
			Meta:     adreswijzer.Meta{Language: adreswijzer.LangNL},
		})
		return
	}
	number := param("number")
	pc, err := adreswijzer.NormalizePostcode(c, param("postcode"))
	if number == "" || param("postcode") == "" || (c == adreswijzer.BE && param("street") == "") {
		writeError(rw, http.StatusUnprocessableEntity, adreswijzer.ErrValidationFailed, "A required parameter is missing.")
		return
	}
	m := w.meta(c)
	resp := adreswijzer.LookupResponse{Addresses: []adreswijzer.LookupAddress{}, Additions: []*string{}, Issues: []adreswijzer.Issue{},
		NextStep: "Ask which address is meant.", Meta: m}
	if err == nil {
		n := 0
		fmt.Sscan(number, &n)
		street := param("street")
		if street == "" {
			street = "Achterstraat"
		}
		city := map[adreswijzer.Country]string{adreswijzer.NL: "Weesp", adreswijzer.BE: "Haren"}[c]
		resp.Addresses = append(resp.Addresses, adreswijzer.LookupAddress{
			Street: street, HouseNumber: &n, Postcode: pc, Locality: city,
			Formatted: []string{street + " " + number, adreswijzer.FormatPostcode(c, pc) + "  " + strings.ToUpper(city)},
			Carrier: adreswijzer.CarrierAddress{Street: street, HouseNumber: number, Postcode: pc, City: city, CountryCode: c,
				Warnings: []adreswijzer.Issue{}},
		})
		resp.Additions = append(resp.Additions, nil)
	} else {
		resp.Issues = append(resp.Issues, adreswijzer.Issue{Code: adreswijzer.IssueFormatInvalid,
			Severity: adreswijzer.IssueFormatInvalid.Severity(), Field: adreswijzer.FieldZip, Message: "The postcode cannot be valid."})
	}
	writeJSON(rw, http.StatusOK, *m.DatasetVersion, resp)
}

func (w *Worker) suggest(rw http.ResponseWriter, autocomplete bool, param func(string) string) {
	c, ok := adreswijzer.ParseCountry(param("country"))
	q := param("q")
	if len(param("country")) != 2 || q == "" || len(q) > adreswijzer.MaxQueryLength {
		writeError(rw, http.StatusUnprocessableEntity, adreswijzer.ErrValidationFailed, "A required parameter is missing or malformed.")
		return
	}
	m := adreswijzer.Meta{Language: adreswijzer.LangNL}
	version := ""
	if ok {
		m = w.meta(c)
		version = *m.DatasetVersion
	}
	if autocomplete {
		writeJSON(rw, http.StatusOK, version, adreswijzer.AutocompleteResponse{Suggestions: []adreswijzer.AutocompleteSuggestion{},
			Issues: []adreswijzer.Issue{}, Meta: m})
		return
	}
	writeJSON(rw, http.StatusOK, version, adreswijzer.SuggestResponse{Suggestions: []adreswijzer.StreetSuggestion{},
		Issues: []adreswijzer.Issue{}, Meta: m})
}

func (w *Worker) validate(rw http.ResponseWriter, param func(string) string) {
	c, ok := adreswijzer.ParseCountry(param("countryCode"))
	// Like the worker: a malformed countryCode is refused; an empty address1 or zip is
	// judged, not refused.
	if len(param("countryCode")) != 2 {
		writeError(rw, http.StatusUnprocessableEntity, adreswijzer.ErrValidationFailed, "The field countryCode must have 2 letters.")
		return
	}
	resp := adreswijzer.ValidateResponse{Status: adreswijzer.VerdictInvalid, Suggestions: []adreswijzer.NormalizedAddress{},
		Confidence: adreswijzer.ConfidenceLow, Issues: []adreswijzer.Issue{}, NextStep: "Let the customer confirm the address.",
		Meta: adreswijzer.Meta{Language: adreswijzer.LangNL}}
	version := ""
	if ok {
		resp.Meta = w.meta(c)
		version = *resp.Meta.DatasetVersion
		resp.Issues = append(resp.Issues, adreswijzer.Issue{Code: adreswijzer.IssueHouseNumberNotFound,
			Severity: adreswijzer.IssueHouseNumberNotFound.Severity(), Field: adreswijzer.FieldAddress1, Message: "The number is not known at this postcode."})
	} else {
		resp.Issues = append(resp.Issues, adreswijzer.Issue{Code: adreswijzer.IssueUnsupportedCountry,
			Severity: adreswijzer.IssueUnsupportedCountry.Severity(), Field: adreswijzer.FieldCountryCode, Message: "Only NL and BE are checked."})
	}
	writeJSON(rw, http.StatusOK, version, resp)
}

func writeJSON(rw http.ResponseWriter, status int, version string, v any) {
	b, _ := json.Marshal(v)
	// The headers the real worker sets on every answer (worker/httpapi).
	rw.Header().Set("Content-Type", "application/json; charset=utf-8")
	rw.Header().Set("Cache-Control", "no-store")
	rw.Header().Set("X-Content-Type-Options", "nosniff")
	if version != "" {
		rw.Header().Set("X-Dataset-Version", version)
	}
	rw.WriteHeader(status)
	_, _ = rw.Write(b)
}

func writeError(rw http.ResponseWriter, status int, code adreswijzer.ErrorCode, msg string) {
	writeJSON(rw, status, "", adreswijzer.ErrorResponse{Error: adreswijzer.ErrorBody{Code: code, Message: msg}})
}
