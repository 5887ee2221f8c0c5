package openapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// The subset of OpenAPI 3.1 the reference page shows. It is decoded with encoding/json
// rather than an OpenAPI library so the worker does not carry one; members of the document
// that the page does not show are simply not decoded.

type document struct {
	OpenAPI string `json:"openapi"`
	Info    struct {
		Title       string `json:"title"`
		Version     string `json:"version"`
		Summary     string `json:"summary"`
		Description string `json:"description"`
	} `json:"info"`
	Servers []struct {
		URL         string `json:"url"`
		Description string `json:"description"`
	} `json:"servers"`
	Security   []map[string][]string `json:"security"`
	Tags       []tag                 `json:"tags"`
	Paths      ordered[*pathItem]    `json:"paths"`
	Components struct {
		SecuritySchemes ordered[*securityScheme] `json:"securitySchemes"`
		Schemas         ordered[*schema]         `json:"schemas"`
		Parameters      ordered[*parameter]      `json:"parameters"`
		Headers         ordered[*header]         `json:"headers"`
		Responses       ordered[*response]       `json:"responses"`
	} `json:"components"`
}

type tag struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

type securityScheme struct {
	Type        string `json:"type"`
	Scheme      string `json:"scheme"`
	Description string `json:"description"`
}

type pathItem struct {
	Get    *operation `json:"get"`
	Post   *operation `json:"post"`
	Put    *operation `json:"put"`
	Patch  *operation `json:"patch"`
	Delete *operation `json:"delete"`
}

type operation struct {
	OperationID string                 `json:"operationId"`
	Tags        []string               `json:"tags"`
	Summary     string                 `json:"summary"`
	Description string                 `json:"description"`
	Security    *[]map[string][]string `json:"security"`
	Parameters  []*parameter           `json:"parameters"`
	RequestBody *struct {
		Required    bool                `json:"required"`
		Description string              `json:"description"`
		Content     ordered[*mediaType] `json:"content"`
	} `json:"requestBody"`
	Responses ordered[*response] `json:"responses"`
}

type parameter struct {
	Ref         string  `json:"$ref"`
	Name        string  `json:"name"`
	In          string  `json:"in"`
	Required    bool    `json:"required"`
	Description string  `json:"description"`
	Schema      *schema `json:"schema"`
}

type header struct {
	Ref         string  `json:"$ref"`
	Description string  `json:"description"`
	Required    bool    `json:"required"`
	Schema      *schema `json:"schema"`
}

type response struct {
	Ref         string              `json:"$ref"`
	Description string              `json:"description"`
	Headers     ordered[*header]    `json:"headers"`
	Content     ordered[*mediaType] `json:"content"`
}

type mediaType struct {
	Schema   *schema           `json:"schema"`
	Examples ordered[*example] `json:"examples"`
}

type example struct {
	Summary string          `json:"summary"`
	Value   json.RawMessage `json:"value"`
}

type schema struct {
	Ref                  string            `json:"$ref"`
	Type                 typeList          `json:"type"`
	Description          string            `json:"description"`
	Enum                 []json.RawMessage `json:"enum"`
	Const                json.RawMessage   `json:"const"`
	Pattern              string            `json:"pattern"`
	Format               string            `json:"format"`
	MinLength            *int              `json:"minLength"`
	MaxLength            *int              `json:"maxLength"`
	MinItems             *int              `json:"minItems"`
	MaxItems             *int              `json:"maxItems"`
	Minimum              *float64          `json:"minimum"`
	UniqueItems          bool              `json:"uniqueItems"`
	Default              json.RawMessage   `json:"default"`
	Properties           ordered[*schema]  `json:"properties"`
	Required             []string          `json:"required"`
	AdditionalProperties json.RawMessage   `json:"additionalProperties"`
	Items                *schema           `json:"items"`
	Contains             *schema           `json:"contains"`
	AnyOf                []*schema         `json:"anyOf"`
	AllOf                []*schema         `json:"allOf"`
	OneOf                []*schema         `json:"oneOf"`
	If                   *schema           `json:"if"`
	Then                 *schema           `json:"then"`
	Else                 *schema           `json:"else"`
	Examples             []json.RawMessage `json:"examples"`
	EnumDescriptions     map[string]string `json:"x-enum-descriptions"`
	Severity             map[string]string `json:"x-severity"`
	Status               map[string]int    `json:"x-status"`
}

// typeList is JSON Schema's "type": one name or, in 3.1, a list such as ["string","null"].
type typeList []string

func (t *typeList) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*t = typeList{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return fmt.Errorf("type: %w", err)
	}
	*t = many
	return nil
}

// entry is one member of a JSON object whose order matters to a reader: paths, properties
// and responses appear in the page in the order the document gives them.
type entry[T any] struct {
	Key   string
	Value T
}

type ordered[T any] []entry[T]

func (o *ordered[T]) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return fmt.Errorf("want an object, got %v", tok)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		var v T
		if err := dec.Decode(&v); err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		*o = append(*o, entry[T]{key, v})
	}
	_, err = dec.Token()
	return err
}

func (o ordered[T]) get(key string) (T, bool) {
	for _, e := range o {
		if e.Key == key {
			return e.Value, true
		}
	}
	var zero T
	return zero, false
}

// refName returns the last element of a local reference ("#/components/schemas/Issue").
func refName(ref string) string { return ref[strings.LastIndexByte(ref, '/')+1:] }

// resolve follows local component references, failing on a dangling one so a broken
// reference cannot render as an empty section.
func (d *document) resolveParameter(p *parameter) (*parameter, error) {
	if p.Ref == "" {
		return p, nil
	}
	if r, ok := d.Components.Parameters.get(refName(p.Ref)); ok {
		return r, nil
	}
	return nil, fmt.Errorf("dangling reference %s", p.Ref)
}

func (d *document) resolveResponse(r *response) (*response, error) {
	if r.Ref == "" {
		return r, nil
	}
	if x, ok := d.Components.Responses.get(refName(r.Ref)); ok {
		return x, nil
	}
	return nil, fmt.Errorf("dangling reference %s", r.Ref)
}

func (d *document) resolveHeader(h *header) (*header, error) {
	if h.Ref == "" {
		return h, nil
	}
	if x, ok := d.Components.Headers.get(refName(h.Ref)); ok {
		return x, nil
	}
	return nil, fmt.Errorf("dangling reference %s", h.Ref)
}
