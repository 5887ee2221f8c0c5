package dashboard

import (
	"context"
	"encoding/csv"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/adreswijzer/adreswijzer/gateway/accounts"
	"github.com/adreswijzer/adreswijzer/gateway/codehost/codehosttest"
	"github.com/adreswijzer/adreswijzer/gateway/keys"
)

var secretRE = regexp.MustCompile(`aw_(?:pk_)?(?:live|test)_[0-9A-Za-z]{43}`)

func (h *harness) account(email string) *accounts.Account {
	h.t.Helper()
	a, err := h.accounts.ByEmail(context.Background(), email)
	if err != nil {
		h.t.Fatal(err)
	}
	return a
}

// createKey submits the form and returns the secret shown.
func (b *browser) createKey(form url.Values) string {
	b.h.t.Helper()
	p := b.post("/dashboard/keys", form)
	secret := secretRE.FindString(p.body)
	if p.status != http.StatusCreated || secret == "" {
		b.h.t.Fatalf("create key: %d\n%s", p.status, p.body)
	}
	return secret
}

func TestKeysLifecycle(t *testing.T) {
	h := newHarness(t)
	b := h.browser()
	b.signUp("winkel@example.nl")
	a := h.account("winkel@example.nl")
	secret := b.createKey(url.Values{"kind": {"pk_test"}, "name": {"Demo shop"}, "origins": {"HTTP://127.0.0.1:8090/\nhttps://winkel.example"}})
	k, err := h.keys.Lookup(context.Background(), keys.HashOf(secret))
	if err != nil || k.Account != a.ID || k.Plan != "free" || k.Kind != keys.PKTest || k.Name != "Demo shop" ||
		len(k.Origins) != 2 || k.Origins[0] != "http://127.0.0.1:8090" || !k.Active() {
		t.Fatalf("key %+v %v", k, err)
	}
	// The list shows it, never its secret.
	p := b.get("/dashboard/keys")
	if !strings.Contains(p.body, k.ID) || !strings.Contains(p.body, "Demo shop") || secretRE.MatchString(p.body) {
		t.Errorf("key list:\n%s", p.body)
	}
	if !strings.Contains(p.body, "not yet") {
		t.Error("a new key is not shown as never used")
	}
	// Used once: the list says when.
	h.meter.Record(a.ID, k.ID, "lookup", 0)
	h.flush()
	if p := b.get("/dashboard/keys"); !strings.Contains(p.body, " UTC") {
		t.Errorf("last use not shown:\n%s", p.body)
	}
	if p := b.post("/dashboard/keys/"+k.ID+"/revoke", url.Values{}); p.status != http.StatusSeeOther {
		t.Fatalf("revoke: %d", p.status)
	}
	if k, _ := h.keys.Lookup(context.Background(), keys.HashOf(secret)); k.Active() {
		t.Error("revoked key still active")
	}
	if p := b.get("/dashboard/keys"); !strings.Contains(p.body, "revoked") {
		t.Error("list does not show the revocation")
	}
}

func TestKeyFormErrors(t *testing.T) {
	h := newHarness(t)
	b := h.browser()
	b.signUp("winkel@example.nl")
	for _, c := range []struct {
		form url.Values
		text string
	}{
		{url.Values{"kind": {"pk_live"}}, "needs at least one allowed origin"},
		{url.Values{"kind": {"live"}, "origins": {"https://winkel.example"}}, "Only publishable keys take allowed origins"},
		{url.Values{"kind": {"pk_test"}, "origins": {"winkel.example/checkout"}}, "scheme://host[:port]"},
		{url.Values{"kind": {"root"}}, "Choose a kind of key"},
		{url.Values{"kind": {"test"}, "name": {strings.Repeat("x", 101)}}, "at most 100 characters"},
	} {
		p := b.post("/dashboard/keys", c.form)
		if p.status != http.StatusUnprocessableEntity || !strings.Contains(p.body, c.text) ||
			!strings.Contains(p.body, `role="alert"`) || secretRE.MatchString(p.body) {
			t.Errorf("%v: %d\n%s", c.form, p.status, p.body)
		}
	}
	if list, _ := h.keys.ListAccount(context.Background(), h.account("winkel@example.nl").ID); len(list) != 0 {
		t.Errorf("refused forms made %d keys", len(list))
	}
}

// Another account's key cannot be seen or revoked, whatever id is tried.
func TestOtherAccountsKeys(t *testing.T) {
	h := newHarness(t)
	owner, other := h.browser(), h.browser()
	owner.signUp("owner@example.nl")
	other.signUp("other@example.nl")
	secret := owner.createKey(url.Values{"kind": {"live"}, "name": {"Backend"}})
	k, _ := h.keys.Lookup(context.Background(), keys.HashOf(secret))
	if p := other.get("/dashboard/keys"); strings.Contains(p.body, k.ID) || strings.Contains(p.body, "Backend") {
		t.Error("another account's key is listed")
	}
	for _, id := range []string{k.ID, "key_0000000000000000", "../" + k.ID} {
		p := other.post("/dashboard/keys/"+url.PathEscape(id)+"/revoke", url.Values{})
		if p.status != http.StatusNotFound {
			t.Errorf("revoke %s by another account: %d", id, p.status)
		}
	}
	if k, _ := h.keys.Lookup(context.Background(), keys.HashOf(secret)); !k.Active() {
		t.Fatal("another account revoked the key")
	}
	// Signed out: nothing.
	if p := h.browser().post("/dashboard/keys/"+k.ID+"/revoke", url.Values{}); p.status != http.StatusSeeOther {
		t.Errorf("revoke signed out: %d", p.status)
	}
}

func TestKeyLimit(t *testing.T) {
	h := newHarness(t)
	b := h.browser()
	b.signUp("winkel@example.nl")
	a := h.account("winkel@example.nl")
	for range MaxActiveKeys {
		k, _, _ := keys.New(keys.Options{Kind: keys.Test, Account: a.ID}, time.Now())
		if err := h.keys.Create(context.Background(), k); err != nil {
			t.Fatal(err)
		}
	}
	if p := b.post("/dashboard/keys", url.Values{"kind": {"test"}}); p.status != http.StatusUnprocessableEntity {
		t.Errorf("key over the limit: %d", p.status)
	}
}

func (h *harness) flush() {
	h.t.Helper()
	if err := h.meter.Flush(context.Background()); err != nil {
		h.t.Fatal(err)
	}
}

func TestUsagePageAndCSV(t *testing.T) {
	h := newHarness(t)
	b := h.browser()
	b.signUp("winkel@example.nl")
	a := h.account("winkel@example.nl")
	secret := b.createKey(url.Values{"kind": {"test"}, "name": {"=HYPERLINK(\"x\")"}})
	k, _ := h.keys.Lookup(context.Background(), keys.HashOf(secret))
	live := b.createKey(url.Values{"kind": {"live"}, "name": {"Backend"}})
	lk, _ := h.keys.Lookup(context.Background(), keys.HashOf(live))
	for range 3 {
		h.meter.Record(a.ID, lk.ID, "validate", 1)
	}
	h.meter.Record(a.ID, lk.ID, "suggest", 0)
	h.meter.Record(a.ID, k.ID, "lookup", 0)
	if ok, _, _ := h.meter.CountDaily(context.Background(), k.ID, 100, 7); !ok {
		t.Fatal("daily count refused")
	}
	h.flush()

	p := b.get("/dashboard/usage")
	for _, want := range []string{`<svg class="chart"`, "Validate", "Street suggestions", "<strong>7</strong> / 100", `download`} {
		if !strings.Contains(p.body, want) {
			t.Errorf("usage page lacks %q", want)
		}
	}
	month := time.Now().UTC().Format("2006-01")
	c := b.get("/dashboard/usage.csv?month=" + month)
	if c.status != http.StatusOK || !strings.HasPrefix(c.header.Get("Content-Type"), "text/csv") {
		t.Fatalf("csv: %d %s", c.status, c.header.Get("Content-Type"))
	}
	rows, err := csv.NewReader(strings.NewReader(c.body)).ReadAll()
	if err != nil || len(rows) != 4 || strings.Join(rows[0], ",") != "day,key_id,key_name,key_kind,route,calls,verifications" {
		t.Fatalf("csv rows %v %v", rows, err)
	}
	today := time.Now().UTC().Format(time.DateOnly)
	found := map[string]bool{}
	for _, r := range rows[1:] {
		found[strings.Join(r, ",")] = true
	}
	for _, want := range []string{
		today + "," + lk.ID + ",Backend,live,validate,3,3",
		today + "," + lk.ID + ",Backend,live,suggest,1,0",
		today + "," + k.ID + `,'=HYPERLINK("x"),test,lookup,1,0`,
	} {
		if !found[want] {
			t.Errorf("csv lacks %s:\n%s", want, c.body)
		}
	}
	// Another month is empty, and a month to come is this one.
	if p := b.get("/dashboard/usage?month=2020-01"); !strings.Contains(p.body, "No calls this month") {
		t.Error("an old month shows calls")
	}
	if p := b.get("/dashboard/usage?month=2999-01"); !strings.Contains(p.body, monthName(month, "en")) {
		t.Error("a month to come is not answered with this one")
	}
}

func TestOverviewQuota(t *testing.T) {
	h := newHarness(t)
	b := h.browser()
	b.signUp("winkel@example.nl")
	a := h.account("winkel@example.nl")
	for range 5 {
		if _, err := h.meter.Charge(context.Background(), usageCharge(a.ID)); err != nil {
			t.Fatal(err)
		}
	}
	h.flush()
	p := b.get("/dashboard/")
	if !strings.Contains(p.body, `<span class="big">5</span> of 2,500`) || !strings.Contains(p.body, "2,495 left") {
		t.Errorf("overview:\n%s", p.body)
	}
}

func TestDeleteAccount(t *testing.T) {
	h := newHarness(t)
	b := h.browser()
	b.signInWith("github", "anna")
	a := h.account("anna@example.nl")
	s1 := b.createKey(url.Values{"kind": {"live"}})
	s2 := b.createKey(url.Values{"kind": {"pk_test"}, "origins": {"https://winkel.example"}})
	if p := b.post("/dashboard/account/delete", url.Values{}); p.status != http.StatusUnprocessableEntity {
		t.Fatalf("delete without confirmation: %d", p.status)
	}
	if p := b.post("/dashboard/account/delete", url.Values{"confirm": {"yes"}}); p.status != http.StatusOK || !strings.Contains(p.body, "all your keys are revoked") {
		t.Fatalf("delete: %d\n%s", p.status, p.body)
	}
	for _, s := range []string{s1, s2} {
		if k, _ := h.keys.Lookup(context.Background(), keys.HashOf(s)); k.Active() {
			t.Error("key of a deleted account still active")
		}
	}
	if _, err := h.accounts.Get(context.Background(), a.ID); err == nil {
		t.Error("account still there")
	}
	b.mustSignedOut()
	// The code-host identity went with it: signing in again makes a new account.
	b.signInWith("github", "anna")
	if n := h.account("anna@example.nl"); n.ID == a.ID {
		t.Error("signed in to the deleted account")
	}
}

func TestGitLabDownAtFirstUse(t *testing.T) {
	h := newHarness(t)
	h.gitlab.SetOutage(codehosttest.Unavailable)
	b := h.browser()
	if p := b.get("/dashboard/signin/gitlab"); p.status != http.StatusServiceUnavailable || !strings.Contains(p.body, "cannot reach") {
		t.Errorf("gitlab down: %d\n%s", p.status, p.body)
	}
	h.gitlab.SetOutage(codehosttest.Up)
	time.Sleep(5 * time.Millisecond) // past the harness's retry interval
	b.signInWith("gitlab", "cees")
	b.mustSignedIn()
}

func authorizeQuery(t *testing.T, authURL string) string {
	return codehosttest.Authorize(t, authURL).Encode()
}
