package form

import (
	"crypto/rand"
	"encoding/json"
	"strings"
	"testing"

	"github.com/adreswijzer/adreswijzer"
)

func TestTextsComplete(t *testing.T) {
	for _, l := range []adreswijzer.Language{adreswijzer.LangNL, adreswijzer.LangFR, adreswijzer.LangDE, adreswijzer.LangEN} {
		tab := texts(l)
		if tab == nil {
			t.Fatalf("no texts in %s", l)
		}
		for i, s := range tab {
			if strings.TrimSpace(s) == "" {
				t.Errorf("%s: text %d is empty", l, i)
			}
		}
	}
}

func TestSessionIDs(t *testing.T) {
	seen := map[string]bool{}
	for i := 0; i < 100; i++ {
		m := New(Config{Country: adreswijzer.NL}, rand.Reader)
		id := m.sessionID()
		if !adreswijzer.ValidSessionID(id) {
			t.Fatalf("session id %q does not match ^[\\w.:-]{1,64}$", id)
		}
		if seen[id] {
			t.Fatalf("session id %q drawn twice", id)
		}
		seen[id] = true
		if m.sessionID() != id {
			t.Fatal("an open session changed its id")
		}
		m.sessionEnded = true
		if m.sessionID() == id {
			t.Fatal("an ended session was reused")
		}
	}
}

// FuzzEvents feeds arbitrary event sequences: the core must never panic, always answer
// JSON, keep every field within the API's length limit, and never hand over an unverified
// address without street, number, postcode and town.
func FuzzEvents(f *testing.F) {
	f.Add(`{"type":"input","field":"postcode","text":"1381AV"}` + "\n" + `{"type":"input","field":"number","text":"4b"}` + "\n" + `{"type":"timer","name":"lookup","seq":1}` + "\n" + `{"type":"response","id":1,"status":200,"body":"{\"addresses\":[{\"street\":\"X\",\"houseNumber\":4,\"addition\":\"b\",\"postcode\":\"1381AV\",\"locality\":\"Weesp\"},{\"street\":\"X\",\"houseNumber\":4,\"postcode\":\"1381AV\"}],\"issues\":[]}"}`)
	f.Add(`{"type":"config","country":"BE","lang":"fr"}` + "\n" + `{"type":"input","field":"street","text":"Rue de la Loi 16 bte 3"}` + "\n" + `{"type":"blur","field":"street"}` + "\n" + `{"type":"submit"}`)
	f.Add(`{"type":"key","field":"addition","key":"ArrowDown"}` + "\n" + `{"type":"choose","index":-1}` + "\n" + `{"type":"response","id":1,"error":"timeout"}` + "\n" + `{"type":"submit"}`)
	f.Add(`{"type":"prefill","values":{"address1":"Kerkstraat 12 bus 3","zip":"1381AV","address2":"A"},"focus":"address1"}` + "\n" + `{"type":"submit"}` + "\n" + `{"type":"timer","name":"submit","seq":1}`)
	f.Add(`{"type":"input","field":"number","text":"12345678"}` + "\n" + `{"type":"correction","use":true}` + "\n" + `{"type":"config","country":"","lang":"de"}` + "\n" + `{"type":"submit"}`)
	f.Add(`{"type":"input","field":"postcode","text":"1381CS","now":1}` + "\n" + `{"type":"input","field":"number","text":"16","now":2}` + "\n" + `{"type":"submit","now":3}` + "\n" + `{"type":"timer","name":"submit","seq":1,"now":1600}` + "\n" + `{"type":"submit","now":1700}`)
	f.Add(`{"type":"input","field":"postcode","text":"Hugo de Gr"}` + "\n" + `{"type":"timer","name":"suggest","seq":1}` + "\n" + `{"type":"response","id":1,"status":429,"retryAfter":30,"body":"{}"}` + "\n" + `{"type":"timer","name":"retry","seq":1}` + "\n" + `{"type":"manual"}` + "\n" + `{"type":"manual"}`)
	f.Fuzz(func(t *testing.T, events string) {
		m := New(Config{Country: adreswijzer.NL, Lang: adreswijzer.LangNL}, rand.Reader)
		for _, ev := range strings.Split(events, "\n") {
			out := m.HandleJSON([]byte(ev))
			var r struct {
				Effects []struct {
					Type       string
					Unverified bool
					Address    struct{ Street, HouseNumber, Zip, City string }
				} `json:"effects"`
				View struct {
					Fields []struct{ Value string } `json:"fields"`
				} `json:"view"`
			}
			if err := json.Unmarshal(out, &r); err != nil {
				t.Fatalf("after %q the result is not JSON: %v\n%s", ev, err, out)
			}
			// No address the register did not give goes to the shop without a street, a
			// number, a postcode and a town.
			for _, e := range r.Effects {
				a := e.Address
				if e.Type == "commit" && e.Unverified && (a.Street == "" || a.HouseNumber == "" || a.Zip == "" || a.City == "") {
					t.Fatalf("after %q an incomplete address was handed over: %+v", ev, a)
				}
			}
			for _, f := range r.View.Fields {
				if n := len([]rune(f.Value)); n > adreswijzer.MaxFieldLength {
					t.Fatalf("a field holds %d characters", n)
				}
			}
		}
	})
}
