package form

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// toAny converts the parsed tree to what encoding/json produces for an any, numbers as
// json.Number, so the two parsers can be compared.
func toAny(v value) any {
	switch v.kind {
	case kindBool:
		return v.b
	case kindNumber:
		return json.Number(v.text)
	case kindString:
		return v.text
	case kindArray:
		out := make([]any, 0, len(v.items))
		for _, it := range v.items {
			out = append(out, toAny(it))
		}
		return out
	case kindObject:
		out := make(map[string]any, len(v.items))
		for i, it := range v.items {
			out[v.keys[i]] = toAny(it)
		}
		return out
	}
	return nil
}

func stdDecode(s string) (any, error) {
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, errJSON
	}
	// Decode stops after the first value; trailing text must be only spaces.
	rest := make([]byte, 64)
	n, _ := d.Buffered().Read(rest)
	if strings.TrimLeft(string(rest[:n]), " \t\r\n") != "" {
		return nil, errJSON
	}
	return v, nil
}

var jsonCases = []string{
	`{}`, `[]`, `null`, `true`, `false`, `0`, `-0`, `12.5e-3`, `1E+2`, `"x"`,
	`{"a":1,"b":[true,false,null],"c":{"d":"e"}}`,
	`{"a":1,"a":2}`,
	` { "a" : [ 1 , 2 ] } `,
	`"\u00e9\u20ac\ud83d\ude00\n\t\"\\\/"`,
	`"\ud83d"`, `"\ude00"`, `"\ud83dx"`,
	`"Rue de l'A\u00e9rodrome"`, `"Bruxelles (Haren)"`,
	"\"\xff\xfe\"", "\"caf\xc3\xa9\"",
	// malformed
	`{`, `[1,]`, `{"a"}`, `{"a":}`, `01`, `1.`, `.5`, `-`, `1e`, `"abc`, `"\x"`, `"\u12"`, `tru`, `nul`,
	"\"a\x01b\"", `{"a":1}x`, `[1 2]`, `{"a":1,}`, `+1`, `NaN`,
}

func TestParseAgreesWithEncodingJSON(t *testing.T) {
	for _, c := range jsonCases {
		compareParse(t, c)
	}
}

func compareParse(t *testing.T, s string) {
	t.Helper()
	want, stdErr := stdDecode(s)
	got, err := parseJSON(s)
	if (err != nil) != (stdErr != nil) {
		t.Fatalf("parse %q: error %v, encoding/json %v", s, err, stdErr)
	}
	if err != nil {
		return
	}
	if g := toAny(got); !reflect.DeepEqual(g, want) {
		t.Fatalf("parse %q = %#v, encoding/json %#v", s, g, want)
	}
}

func FuzzParse(f *testing.F) {
	for _, c := range jsonCases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, s string) { compareParse(t, s) })
}

func TestQuotedAgreesWithEncodingJSON(t *testing.T) {
	for _, s := range []string{"", "plain", "quote\" back\\ slash", "\n\r\t\x00\x1f", "é € 😀", "\u2028\u2029", "\xff", "a\xc3", "<&>"} {
		compareQuoted(t, s)
	}
}

func compareQuoted(t *testing.T, s string) {
	t.Helper()
	got := appendQuoted(nil, s)
	var back string
	if err := json.Unmarshal(got, &back); err != nil {
		t.Fatalf("quote %q gave %s, not JSON: %v", s, got, err)
	}
	want, _ := json.Marshal(s)
	var wantBack string
	_ = json.Unmarshal(want, &wantBack)
	if back != wantBack {
		t.Fatalf("quote %q reads back as %q, encoding/json's as %q", s, back, wantBack)
	}
}

func FuzzQuoted(f *testing.F) {
	f.Add("Achteromstraat 4 b")
	f.Add("\xff\"\\\u2028")
	f.Fuzz(func(t *testing.T, s string) { compareQuoted(t, s) })
}

func TestWriter(t *testing.T) {
	var w writer
	w.beginObject()
	w.str("a", "x")
	w.key("list")
	w.beginArray()
	w.int(1)
	w.beginObject()
	w.endObject()
	w.null()
	w.string("y")
	w.endArray()
	w.flag("ok", true)
	w.opt("none", nil)
	w.num("n", -12)
	w.endObject()
	const want = `{"a":"x","list":[1,{},null,"y"],"ok":true,"none":null,"n":-12}`
	if string(w.b) != want {
		t.Fatalf("writer = %s, want %s", w.b, want)
	}
}

func TestQueryEscapesEverythingButUnreserved(t *testing.T) {
	var q query
	q.add("street", "Rue de l'Aérodrome & co=1?#")
	q.add("q", "a+b")
	const want = "street=Rue%20de%20l%27A%C3%A9rodrome%20%26%20co%3D1%3F%23&q=a%2Bb"
	if string(q) != want {
		t.Fatalf("query = %s, want %s", q, want)
	}
}
