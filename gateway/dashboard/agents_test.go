package dashboard

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/oauth2"
)

// agentClient registers an agent with the authorization server and starts its
// authorization request; it returns the consent page's path.
func (h *harness) agentClient(name string) (clientID, consentPath, state string) {
	h.t.Helper()
	b := h.browser()
	resp, err := http.Post(h.srv.URL+"/oauth/register", "application/json", strings.NewReader(
		`{"client_name":"`+name+`","redirect_uris":["http://127.0.0.1:4242/callback"],"grant_types":["authorization_code","refresh_token"]}`))
	if err != nil {
		h.t.Fatal(err)
	}
	var reg map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&reg)
	resp.Body.Close()
	clientID, _ = reg["client_id"].(string)
	state = "s-" + name
	q := url.Values{"response_type": {"code"}, "client_id": {clientID}, "redirect_uri": {"http://127.0.0.1:4242/callback"},
		"state": {state}, "code_challenge": {oauth2.S256ChallengeFromVerifier(oauth2.GenerateVerifier())}, "code_challenge_method": {"S256"},
		"resource": {h.srv.URL + "/mcp"}, "scope": {"address:verify"}}
	p := b.get("/oauth/authorize?" + q.Encode())
	if p.status != http.StatusFound || !strings.HasPrefix(p.location, h.srv.URL+ConsentPath+"?request=") {
		h.t.Fatalf("authorize: %d %s\n%s", p.status, p.location, p.body)
	}
	return clientID, strings.TrimPrefix(p.location, h.srv.URL), state
}

// Consent: a person not signed in signs in first and comes back to the request; allowing
// sends the browser back to the agent with a code, denying with access_denied.
func TestConsent(t *testing.T) {
	h := newHarness(t)
	_, consent, state := h.agentClient("Claude Desktop")
	b := h.browser()
	if p := b.get(consent); p.status != http.StatusSeeOther || p.location != "/dashboard/signin" {
		t.Fatalf("consent signed out: %d %s", p.status, p.location)
	}
	b.signUp("bouwer@example.nl")
	// signUp follows the sign-in to where it goes next: check it came back here.
	p := b.get(consent)
	if p.status != http.StatusOK || !strings.Contains(p.body, "Claude Desktop wants to check addresses") ||
		!strings.Contains(p.body, "127.0.0.1:4242") || !strings.Contains(p.body, "address:verify") ||
		!strings.Contains(p.body, h.srv.URL+"/mcp") || !strings.Contains(p.body, "bouwer@example.nl") {
		t.Fatalf("consent page: %d\n%s", p.status, p.body)
	}
	id, _ := url.ParseQuery(strings.SplitN(consent, "?", 2)[1])
	// Another site cannot answer for the person.
	cross := b.do(http.MethodPost, ConsentPath, url.Values{"request": {id.Get("request")}, "decision": {"allow"}},
		map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"})
	if cross.status != http.StatusForbidden {
		t.Errorf("cross-site consent: %d", cross.status)
	}
	p = b.post(ConsentPath, url.Values{"request": {id.Get("request")}, "decision": {"allow"}})
	u, _ := url.Parse(p.location)
	if p.status != http.StatusSeeOther || u.Host != "127.0.0.1:4242" || u.Query().Get("state") != state ||
		!strings.HasPrefix(u.Query().Get("code"), "awco_") || u.Query().Get("iss") != h.srv.URL {
		t.Fatalf("allow: %d %s", p.status, p.location)
	}
	// Answered: the page says so.
	if p := b.get(consent); p.status != http.StatusBadRequest || !strings.Contains(p.body, "was answered or has expired") {
		t.Errorf("answered request: %d", p.status)
	}
	// Denied: access_denied to the agent.
	_, consent, state = h.agentClient("Other agent")
	id, _ = url.ParseQuery(strings.SplitN(consent, "?", 2)[1])
	p = b.post(ConsentPath, url.Values{"request": {id.Get("request")}, "decision": {"deny"}})
	u, _ = url.Parse(p.location)
	if p.status != http.StatusSeeOther || u.Query().Get("error") != "access_denied" || u.Query().Get("state") != state || u.Query().Get("code") != "" {
		t.Errorf("deny: %d %s", p.status, p.location)
	}
	if strings.Contains(h.logs.String(), "awco_") || strings.Contains(h.logs.String(), "bouwer@") {
		t.Errorf("a code or an address reached the log:\n%s", h.logs.String())
	}
}

// The Agents page lists what the account allowed, and revokes it; another account sees
// and revokes nothing of it.
func TestAgentsPage(t *testing.T) {
	h := newHarness(t)
	owner, other := h.browser(), h.browser()
	owner.signUp("owner@example.nl")
	other.signUp("other@example.nl")
	a := h.account("owner@example.nl")
	client, _, _ := h.agentClient("Claude Code")
	if list, _ := h.as.Agents(context.Background(), a.ID); len(list) != 0 {
		t.Fatalf("a grant before any code was exchanged: %v", list)
	}
	h.exchangeFor(client, a.ID)
	p := owner.get("/dashboard/agents")
	if p.status != http.StatusOK || !strings.Contains(p.body, "Claude Code") || !strings.Contains(p.body, client) || !strings.Contains(p.body, `aria-current="page">Agents`) {
		t.Fatalf("agents page: %d\n%s", p.status, p.body)
	}
	list, _ := h.as.Agents(context.Background(), a.ID)
	grant := list[0].Grant
	if p := other.get("/dashboard/agents"); strings.Contains(p.body, "Claude Code") {
		t.Error("another account sees the agent")
	}
	if p := other.post("/dashboard/agents/"+grant+"/revoke", url.Values{}); p.status != http.StatusNotFound {
		t.Errorf("another account revokes: %d", p.status)
	}
	if st, _ := h.as.CheckGrant(context.Background(), grant); !st.Active {
		t.Fatal("another account revoked the agent")
	}
	if p := owner.post("/dashboard/agents/"+grant+"/revoke", url.Values{}); p.status != http.StatusSeeOther {
		t.Fatalf("revoke: %d", p.status)
	}
	if st, _ := h.as.CheckGrant(context.Background(), grant); st.Active {
		t.Error("revoked agent still active")
	}
	if p := owner.get("/dashboard/agents"); strings.Contains(p.body, "Claude Code") || !strings.Contains(p.body, "No agents connected yet.") {
		t.Error("revoked agent still listed")
	}
}

// exchangeFor runs an authorization of the client for the account, as the agent and the
// dashboard do, up to the tokens.
func (h *harness) exchangeFor(client, account string) map[string]any {
	h.t.Helper()
	verifier := oauth2.GenerateVerifier()
	q := url.Values{"response_type": {"code"}, "client_id": {client}, "redirect_uri": {"http://127.0.0.1:4242/callback"},
		"code_challenge": {oauth2.S256ChallengeFromVerifier(verifier)}, "code_challenge_method": {"S256"}}
	p := h.browser().get("/oauth/authorize?" + q.Encode())
	loc, _ := url.Parse(p.location)
	back, err := h.as.Approve(context.Background(), loc.Query().Get("request"), account)
	if err != nil {
		h.t.Fatal(err)
	}
	u, _ := url.Parse(back)
	resp, err := http.PostForm(h.srv.URL+"/oauth/token", url.Values{"grant_type": {"authorization_code"}, "code": {u.Query().Get("code")},
		"redirect_uri": {"http://127.0.0.1:4242/callback"}, "client_id": {client}, "code_verifier": {verifier}})
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	var tok map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&tok)
	if resp.StatusCode != http.StatusOK {
		h.t.Fatalf("exchange: %d %v", resp.StatusCode, tok)
	}
	return tok
}
