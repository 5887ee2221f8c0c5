package gateway

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"

	exactjson "github.com/segmentio/encoding/json"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/gateway/agentpolicy/rpcinspect"
	"github.com/adreswijzer/adreswijzer/gateway/apierr"
	"github.com/adreswijzer/adreswijzer/internal/query"
)

// input is what policy needs from the query or the body.
type input struct {
	session    string
	badSession bool // present but not a string
	// confirmed: customerConfirmed is true, which changes how a validate is counted (see
	// usage.Charge.Confirmed). Anything else, the worker's 422 for a malformed value included,
	// is not a confirmation.
	confirmed bool
	country   adreswijzer.Country
	// unsupported: the call names a country without a register (see unsupportedParam).
	unsupported bool
	badBody     bool // a POST body that is not a JSON object
	body        []byte
}

// readInput takes sessionId and the routing country from the query (GET) or the body
// (POST; query as fallback), reading and restoring the body.
func readInput(r *http.Request, route Route, q *query.Values) (input, *apierr.Error) {
	in := input{session: q.Get("sessionId")}
	countryParam := q.Get("country")
	if r.Method == http.MethodPost {
		body, e := readPostBody(r, route)
		if e != nil {
			return in, e
		}
		in.body = body
		if route == RouteAgent {
			return in, nil // JSON-RPC: the agent extension reads it
		}
		if c, ok := in.readMembers(route); ok {
			countryParam = c
		}
	}
	in.routeBy(r, route, countryParam)
	return in, nil
}

// readPostBody reads a POST's body whole, up to its route's limit (an agent's batch is
// larger than a REST call), within the deadline the adapter set for the read.
func readPostBody(r *http.Request, route Route) ([]byte, *apierr.Error) {
	limit, tooLarge := int64(adreswijzer.MaxBodyBytes), apierr.TooLarge
	if route == RouteAgent {
		limit, tooLarge = rpcinspect.MaxBodyBytes, apierr.TooLargeAgent
	}
	body, err := readBody(r, limit)
	switch {
	case errors.Is(err, errTooLarge):
		return nil, tooLarge()
	case errors.Is(err, os.ErrDeadlineExceeded):
		// The request's deadline passed while the body was read (the adapter bounds the
		// read by it): the caller did not send what it announced.
		return nil, apierr.SlowBody()
	case err != nil:
		return nil, apierr.BadBody()
	}
	return body, nil
}

// readMembers reads sessionId and customerConfirmed from the JSON body, and the country the
// body names (ok false for none): a validate's countryCode, else country. Members are read
// by their exact names, as the worker reads the body: the standard library's struct
// decoding would match "SESSIONID" or "CountryCode" too, and the gateway would then count
// and route by members the worker ignores.
func (in *input) readMembers(route Route) (country string, ok bool) {
	if len(bytes.TrimSpace(in.body)) == 0 {
		in.badBody = route == RouteValidate
		return "", false
	}
	var f struct {
		SessionID         json.RawMessage `json:"sessionId"`
		Country           json.RawMessage `json:"country"`
		CountryCode       json.RawMessage `json:"countryCode"`
		CustomerConfirmed json.RawMessage `json:"customerConfirmed"`
	}
	if rest, err := exactjson.Parse(in.body, &f, exactjson.DontMatchCaseInsensitiveStructFields); err != nil || len(bytes.TrimSpace(rest)) > 0 {
		in.badBody = true
		return "", false
	}
	if raw := f.SessionID; len(raw) > 0 && string(raw) != "null" {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			in.badSession = true
		} else {
			in.session = s
		}
	}
	in.confirmed = string(bytes.TrimSpace(f.CustomerConfirmed)) == "true"
	if s, ok := jsonString(f.CountryCode); ok && route == RouteValidate {
		return s, true
	}
	return jsonString(f.Country)
}

// routeBy sets the country a call is routed by, and whether it names one without a
// register: a lookup's from its path, the other data calls' from countryParam.
func (in *input) routeBy(r *http.Request, route Route, countryParam string) {
	switch route {
	case RouteLookup:
		seg, _ := lookupSegment(r.URL.Path)
		in.unsupported = unsupportedPath(seg)
	case RouteAgent:
	default:
		in.country, _ = adreswijzer.ParseCountry(countryParam)
		in.unsupported = in.country == "" && unsupportedParam(countryParam)
	}
}

// jsonString is raw as the string it encodes; false when raw is absent or no string.
func jsonString(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

var errTooLarge = errors.New("body too large")

// readBody reads at most limit bytes and puts the body back for the upstream.
func readBody(r *http.Request, limit int64) ([]byte, error) {
	if r.ContentLength > limit {
		return nil, errTooLarge
	}
	if r.Body == nil || r.Body == http.NoBody {
		return nil, nil
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	r.Body.Close()
	if err != nil {
		return nil, err
	}
	if int64(len(body)) > limit {
		return nil, errTooLarge
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	r.ContentLength = int64(len(body))
	r.Header.Set("Content-Length", fmt.Sprint(len(body)))
	r.TransferEncoding = nil
	return body, nil
}
