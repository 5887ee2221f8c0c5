// Package openapitest holds every HTTP exchange of an integration test to openapi.json, so
// that the document the service publishes and the answers it gives cannot drift apart
// unnoticed. Handlers, the gateway and the agent interface are tested through it:
//
//	v := openapitest.New(t)
//	client := v.Client(t, nil) // every exchange through it is checked
//	resp, err := client.Get(srv.URL + "/v1/nl/lookup?postcode=1381CS&number=16")
//
// or, for a recorded exchange, v.Check(t, req, rec.Code, rec.Header(), rec.Body.Bytes()).
//
// The rules, beyond what OpenAPI itself checks:
//
//   - A 2xx answer requires a request the document allows: a server that accepts what the
//     document forbids is as wrong as one that rejects what it allows. Error answers may
//     follow invalid requests (that is what 400 and 422 are for; 401 comes before any
//     parameter check), so for them only the answer is checked.
//   - Every status must be declared for its operation; undeclared ones fail. HEAD is judged
//     by the GET operation, without a body.
//   - A path the document does not have may only be answered 404 or 405 with a NOT_FOUND
//     ErrorResponse.
//   - 429 RATE_LIMITED and DAILY_CAP_REACHED must carry Retry-After in seconds.
//   - Where an answer declares X-Dataset-Version, the header must equal meta.datasetVersion,
//     and be absent exactly when that is null.
//   - The bearer requirement is accepted without looking at the credential: whether a
//     credential is good is the gateway's business and has its own tests.
package openapitest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"github.com/adreswijzer/adreswijzer/worker/openapi"
)

// Validator checks exchanges against the embedded openapi.json. It is safe for concurrent use.
type Validator struct {
	doc    *openapi3.T
	router routers.Router
}

// New returns the validator of the embedded document, failing the test when the document
// does not load or is not valid OpenAPI 3.1.
func New(t testing.TB) *Validator {
	t.Helper()
	v, err := shared()
	if err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	return v
}

// The document is parsed and validated once per test binary: it is immutable, and a
// package with many integration tests should not pay for it per test.
var shared = sync.OnceValues(func() (*Validator, error) { return load(openapi.JSON()) })

func load(data []byte) (*Validator, error) {
	// /docs and MCP's event streams are text; kin-openapi decodes only the types it knows.
	for _, ct := range []string{"text/html", "text/event-stream"} {
		if openapi3filter.RegisteredBodyDecoder(ct) == nil {
			openapi3filter.RegisterBodyDecoder(ct, openapi3filter.PlainBodyDecoder)
		}
	}
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(data)
	if err != nil {
		return nil, fmt.Errorf("load: %w", err)
	}
	if err := doc.Validate(loader.Context); err != nil {
		return nil, fmt.Errorf("validate: %w", err)
	}
	// Tests serve on random 127.0.0.1 ports and through the gateway on others; the paths,
	// not the host, identify an operation. Without servers the router matches the path alone.
	doc.Servers = nil
	router, err := legacy.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("router: %w", err)
	}
	return &Validator{doc: doc, router: router}, nil
}

// Document returns the parsed document, for tests that inspect it (do not modify it).
func (v *Validator) Document() *openapi3.T { return v.doc }

// Check fails the test (without stopping it) when the exchange does not match the document.
// req may have been sent already: its body is taken from GetBody when there is one, and
// otherwise read and put back.
func (v *Validator) Check(t testing.TB, req *http.Request, status int, header http.Header, body []byte) {
	t.Helper()
	if err := v.Validate(req, status, header, body); err != nil {
		t.Errorf("%s %s answered %d: not as openapi.json describes:\n%v", req.Method, req.URL.RequestURI(), status, err)
	}
}

// Validate is Check returning the mismatch instead of failing a test, for tests that expect
// one.
func (v *Validator) Validate(req *http.Request, status int, header http.Header, body []byte) error {
	reqBody, err := requestBody(req)
	if err != nil {
		return err
	}
	if header == nil {
		header = http.Header{}
	}
	probe := withBody(req, reqBody)
	if req.Method == http.MethodHead {
		// HEAD is GET without the body (RFC 9110), and Go's ServeMux answers it for every GET
		// route, so it is judged by the GET operation.
		probe.Method = http.MethodGet
	}
	route, params, err := v.router.FindRoute(probe)
	if err != nil {
		return v.unrouted(status, header, body, err)
	}
	opts := &openapi3filter.Options{
		AuthenticationFunc:    func(context.Context, *openapi3filter.AuthenticationInput) error { return nil },
		IncludeResponseStatus: true,
		MultiError:            true,
		SkipSettingDefaults:   true,
	}
	ctx := context.Background()
	in := &openapi3filter.RequestValidationInput{Request: probe, PathParams: params, Route: route, Options: opts}
	var errs []error
	if reqErr := openapi3filter.ValidateRequest(ctx, in); reqErr != nil && status >= 200 && status < 300 {
		errs = append(errs, fmt.Errorf("the request is not one the document allows, yet it was answered %d: %w", status, reqErr))
	}
	// The request body was consumed by the request check; the response check reads only
	// the route from it, but give it a fresh one all the same.
	in.Request = withBody(req, reqBody)
	out := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in,
		Status:                 status,
		Header:                 header,
		Body:                   io.NopCloser(bytes.NewReader(body)),
		Options:                opts,
	}
	if err := openapi3filter.ValidateResponse(ctx, out); err != nil {
		errs = append(errs, fmt.Errorf("response: %w", err))
	}
	if req.Method == http.MethodHead && route.Operation.Responses.Status(status) == nil {
		// kin-openapi skips HEAD answers entirely; the status must still be one GET gives.
		errs = append(errs, fmt.Errorf("response: status %d is not declared for GET %s", status, route.Path))
	}
	errs = append(errs, retryAfter(status, header, body))
	errs = append(errs, datasetVersion(route, status, header, body))
	return errors.Join(errs...)
}

// unrouted judges an answer to a path or method the document does not have: only a
// NOT_FOUND error is a correct answer to that.
func (v *Validator) unrouted(status int, header http.Header, body []byte, routeErr error) error {
	if status != http.StatusNotFound && status != http.StatusMethodNotAllowed {
		return fmt.Errorf("no operation in the document (%v), yet answered %d", routeErr, status)
	}
	if !isJSON(header) {
		return fmt.Errorf("answer %d to an unknown operation: Content-Type %q, want application/json ErrorResponse", status, header.Get("Content-Type"))
	}
	var value any
	if err := json.Unmarshal(body, &value); err != nil {
		return fmt.Errorf("answer %d to an unknown operation: body is not JSON: %w", status, err)
	}
	schema := v.doc.Components.Schemas["Error404"]
	if err := schema.Value.VisitJSON(value, openapi3.EnableJSONSchema2020(), openapi3.MultiErrors()); err != nil {
		return fmt.Errorf("answer %d to an unknown operation is not a NOT_FOUND ErrorResponse: %w", status, err)
	}
	return nil
}

// retryAfter holds 429 answers to the promise that RATE_LIMITED and DAILY_CAP_REACHED say
// when to come back; OpenAPI cannot make a header depend on a body member.
func retryAfter(status int, header http.Header, body []byte) error {
	if status != http.StatusTooManyRequests {
		return nil
	}
	var e struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &e) != nil {
		return nil // the schema check has already said what is wrong with the body
	}
	switch e.Error.Code {
	case "RATE_LIMITED", "DAILY_CAP_REACHED":
	default:
		return nil
	}
	ra := header.Get("Retry-After")
	if ra == "" {
		return fmt.Errorf("429 %s without a Retry-After header", e.Error.Code)
	}
	if n, err := strconv.Atoi(ra); err != nil || n < 0 {
		return fmt.Errorf("429 %s: Retry-After %q is not a number of seconds", e.Error.Code, ra)
	}
	return nil
}

// datasetVersion holds the X-Dataset-Version header to the body it travels with, so that
// caches and logs that read only headers see the same version the caller sees.
func datasetVersion(route *routers.Route, status int, header http.Header, body []byte) error {
	resp := route.Operation.Responses.Status(status)
	if resp == nil || resp.Value == nil || resp.Value.Headers["X-Dataset-Version"] == nil || !isJSON(header) {
		return nil
	}
	var b struct {
		Meta *struct {
			DatasetVersion *string `json:"datasetVersion"`
		} `json:"meta"`
	}
	if json.Unmarshal(body, &b) != nil || b.Meta == nil {
		return nil // the schema check reports the body
	}
	got, present := header.Get("X-Dataset-Version"), len(header.Values("X-Dataset-Version")) > 0
	switch {
	case b.Meta.DatasetVersion == nil && present:
		return fmt.Errorf("X-Dataset-Version %q while meta.datasetVersion is null", got)
	case b.Meta.DatasetVersion != nil && !present:
		return fmt.Errorf("X-Dataset-Version missing; meta.datasetVersion is %q", *b.Meta.DatasetVersion)
	case b.Meta.DatasetVersion != nil && got != *b.Meta.DatasetVersion:
		return fmt.Errorf("X-Dataset-Version %q differs from meta.datasetVersion %q", got, *b.Meta.DatasetVersion)
	}
	return nil
}

func isJSON(h http.Header) bool {
	mt, _, err := mime.ParseMediaType(h.Get("Content-Type"))
	return err == nil && mt == "application/json"
}

// requestBody returns the request's body without consuming it for the caller.
func requestBody(req *http.Request) ([]byte, error) {
	if req.GetBody != nil {
		rc, err := req.GetBody()
		if err != nil {
			return nil, fmt.Errorf("request body: %w", err)
		}
		defer rc.Close()
		b, err := io.ReadAll(rc)
		if err != nil {
			return nil, fmt.Errorf("request body: %w", err)
		}
		return b, nil
	}
	if req.Body == nil || req.Body == http.NoBody {
		return nil, nil
	}
	b, err := io.ReadAll(req.Body)
	req.Body.Close()
	req.Body = io.NopCloser(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("request body: %w", err)
	}
	return b, nil
}

// withBody returns a copy of req reading b, so that validation never disturbs the request
// a test still holds.
func withBody(req *http.Request, b []byte) *http.Request {
	c := req.Clone(context.Background())
	if b == nil {
		c.Body = http.NoBody
		c.GetBody = nil
		return c
	}
	c.Body = io.NopCloser(bytes.NewReader(b))
	c.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
	c.ContentLength = int64(len(b))
	return c
}

// RoundTripper wraps base (http.DefaultTransport when nil) so that every exchange through
// it is checked against the document. Bodies are read in full and handed on unchanged.
// Network errors are returned as they are: they are not the document's business.
func (v *Validator) RoundTripper(t testing.TB, base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return &checkingTransport{v: v, t: t, base: base}
}

// Client returns an http.Client whose every exchange is checked against the document.
func (v *Validator) Client(t testing.TB, base http.RoundTripper) *http.Client {
	return &http.Client{Transport: v.RoundTripper(t, base)}
}

type checkingTransport struct {
	v    *Validator
	t    testing.TB
	base http.RoundTripper
}

func (c *checkingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	var reqBody []byte
	if req.Body != nil && req.Body != http.NoBody {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("openapitest: read request body: %w", err)
		}
		reqBody = b
	}
	resp, err := c.base.RoundTrip(withBodyCtx(req, reqBody))
	if err != nil {
		return nil, err
	}
	respBody, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("openapitest: read response body: %w", err)
	}
	resp.Body = io.NopCloser(bytes.NewReader(respBody))
	c.v.Check(c.t, withBody(req, reqBody), resp.StatusCode, resp.Header, respBody)
	return resp, nil
}

// withBodyCtx is withBody keeping the request's context, for the copy that is sent.
func withBodyCtx(req *http.Request, b []byte) *http.Request {
	c := withBody(req, b)
	return c.WithContext(req.Context())
}
