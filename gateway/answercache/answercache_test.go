package answercache

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/internal/query"
)

func key(t *testing.T, c adreswijzer.Country, q string) (string, bool) {
	t.Helper()
	var v query.Values
	v.Parse(q)
	p, ok := ParseQuery(c, &v)
	return p.Key("v1"), ok
}

func TestKeys(t *testing.T) {
	nl := adreswijzer.NL
	be := adreswijzer.BE
	same := [][2]string{
		{"postcode=1381CS&number=16", "postcode=1381+cs&number=16"},
		{"postcode=1381CS&number=16", "number=16&postcode=1381cs&sessionId=abc"},
		{"postcode=1381CS&number=16", "postcode=%201381%20cs%20&number=16"},
	}
	for _, p := range same {
		a, ok1 := key(t, nl, p[0])
		b, ok2 := key(t, nl, p[1])
		if !ok1 || !ok2 || a != b {
			t.Errorf("%q and %q differ", p[0], p[1])
		}
	}
	a, _ := key(t, be, "postcode=1130&street=Harenheidestraat&number=67")
	b, _ := key(t, be, "postcode=1130&street=%20harenheidestraat%20%20&number=67")
	if a != b {
		t.Error("Belgian street not folded")
	}
	differ := []string{
		"postcode=1381CS&number=17", "postcode=1381CS&number=16&lang=fr", "postcode=1381CS&number=16&carrier=dhl",
		"postcode=1381CT&number=16", "postcode=1381CS&number=16&street=Other",
	}
	base, _ := key(t, nl, "postcode=1381CS&number=16")
	for _, q := range differ {
		if k, _ := key(t, nl, q); k == base {
			t.Errorf("%q shares the key of the base query", q)
		}
	}
	for _, q := range []string{"postcode=1381CS&number=16&debug=1", "postcode=1381CS&postcode=1381CT&number=16", "postcode=xx&number=1"} {
		if _, ok := key(t, nl, q); ok {
			t.Errorf("%q cacheable", q)
		}
	}
	// What the worker refuses (422) must never be answered from the cache, however close it
	// is to a form it accepts.
	long := strings.Repeat(" ", adreswijzer.MaxFieldLength)
	for _, c := range []struct {
		country adreswijzer.Country
		q       string
	}{
		{nl, "postcode=1381CS&number=%2016"}, {nl, "postcode=1381CS&number=16%20"}, {nl, "postcode=1381CS&number=+16"},
		{nl, "postcode=1381CS&number="}, {nl, "postcode=1381CS"}, {nl, "postcode=1381CS&number=1234567"},
		{nl, "postcode=1381CS&number=%EF%BC%91%EF%BC%96"}, // full-width digits
		{nl, "postcode=1381CS&number=16&lang=NL"}, {nl, "postcode=1381CS&number=16&lang=%20nl%20"}, {nl, "postcode=1381CS&number=16&lang="},
		{nl, "postcode=1381CS&number=16&carrier=PostNL"}, {nl, "postcode=1381CS&number=16&carrier=postnl%20"}, {nl, "postcode=1381CS&number=16&carrier="},
		{nl, "postcode=1381CS&number=16&sessionId=a%20b"},
		{nl, "postcode=1381CS" + url.QueryEscape(long) + "&number=16"},
		{nl, "postcode=1381CS&number=16&street=Hugo" + url.QueryEscape(long)},
		{be, "postcode=1130&number=67"}, {be, "postcode=1130&street=&number=67"},
		{be, "postcode=1130&street=Harenheidestraat" + url.QueryEscape(long) + "&number=67"},
	} {
		if _, ok := key(t, c.country, c.q); ok {
			t.Errorf("%s %q cacheable, but the worker refuses it", c.country, c.q)
		}
	}
	for _, q := range []string{"postcode=1381CS&number=16&lang=nl&carrier=postnl&sessionId=s.1", "postcode=1381CS&number=016&street="} {
		if _, ok := key(t, nl, q); !ok {
			t.Errorf("%q not cacheable", q)
		}
	}
	var v query.Values
	v.Parse("postcode=1381CS&number=16")
	q, _ := ParseQuery(nl, &v)
	if q.Key("v1") == q.Key("v2") {
		t.Error("version not in the key")
	}
}

func TestCache(t *testing.T) {
	c := New(2, time.Minute)
	c.Put("a", &Entry{Body: []byte("1")})
	c.Put("b", &Entry{Body: []byte("2")})
	c.Put("c", &Entry{Body: []byte("3")})
	if _, ok := c.Get("a"); ok || c.Len() != 2 {
		t.Error("size not kept")
	}
	c.Put("big", &Entry{Body: make([]byte, MaxEntryBytes+1)})
	if _, ok := c.Get("big"); ok {
		t.Error("oversized entry stored")
	}
}
