package e2e

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	"github.com/adreswijzer/adreswijzer/gateway/authserver"
	"github.com/adreswijzer/adreswijzer/internal/e2etest"
	"github.com/adreswijzer/adreswijzer/worker/openapi/openapitest"
)

const (
	email  = "bouwer@example.nl"
	weesp  = "Achtergracht 1, 1381 BK Weesp"
	tsName = "Adreswijzer e2e (TypeScript SDK)"
	goName = "Adreswijzer e2e (Go SDK)"
)

// TestAgentsSignIn is the whole story, in order: the TypeScript SDK signs in (the person
// signs in to the dashboard on the way) and calls tools, billed to the account; a refused
// consent reaches the client; the Go SDK signs in and calls tools; the refusals of RFC 6749
// and 6750; revoking on the dashboard stops the TypeScript agent's next call.
func TestAgentsSignIn(t *testing.T) {
	s := startStack(t)
	ctx := e2etest.Browser(t)
	j := &journey{Page: e2etest.Open(t, ctx, s.shots, "about:blank"), axe: e2etest.AxeJS(t, ".")}
	v := openapitest.New(t)

	ts := startNode(t, s)
	ts.consent(j, s, true)
	out := ts.next(t, "tools")
	var first struct {
		Tools  []string           `json:"tools"`
		Result mcp.CallToolResult `json:"result"`
	}
	mustJSON(t, out, &first)
	if len(first.Tools) != 5 || first.Result.IsError || !strings.Contains(fmt.Sprint(first.Result.StructuredContent), "status:valid") {
		t.Fatalf("TypeScript agent: %s", out)
	}
	j.billed(s)

	t.Run("refused consent", func(t *testing.T) {
		denied := startNode(t, s)
		denied.consent(j, s, false)
		var d struct {
			Denied map[string]string `json:"denied"`
		}
		mustJSON(t, denied.next(t, "denied"), &d)
		if d.Denied["error"] != "access_denied" || d.Denied["iss"] != s.base || d.Denied["code"] != "" {
			t.Errorf("refused consent reached the client as %v", d.Denied)
		}
	})

	var goToken *oauth2.Token
	t.Run("Go SDK", func(t *testing.T) { goToken = goSDK(t, s, j, v) })

	t.Run("refusals", func(t *testing.T) {
		if goToken == nil {
			t.Fatal("no token: the Go SDK's sign-in failed")
		}
		refusals(t, s, j, v, goToken)
	})

	t.Run("revoked on the dashboard", func(t *testing.T) {
		j.Do(chromedp.Navigate(s.base + "/dashboard/agents"))
		if !strings.Contains(j.Eval(`document.body.innerText`), tsName) {
			t.Fatal("the Agents page does not list the TypeScript agent")
		}
		j.check("agents")
		row := `//tr[contains(., ` + strconv.Quote(tsName) + `)]`
		j.Do(chromedp.Click(chromedp.Search(row + `//summary`)))
		j.check("agents-revoke")
		j.Eval(`(window.awOldPage = true, '')`)
		j.Do(chromedp.Click(chromedp.Search(row + `//button[contains(@class,'danger')]`)))
		j.WaitAcrossNavigation(`window.awOldPage === undefined && ` + at("/dashboard/agents") + ` && !document.body.innerText.includes(` + strconv.Quote(tsName) + `)`)
		ts.send(t, "again")
		var again struct {
			Again struct {
				Error   string `json:"error"`
				IsError bool   `json:"isError"`
			} `json:"again"`
		}
		mustJSON(t, ts.next(t, "again"), &again)
		if again.Again.Error == "" {
			t.Errorf("the revoked agent's next call was answered: %+v", again.Again)
		}
	})
	noSecretsLogged(t, s, goToken)
}

// node is the TypeScript client, running.
type node struct {
	port  int
	lines chan string
	stdin io.WriteCloser
}

// startNode starts oauth-client.mjs against the stack.
func startNode(t *testing.T, s *stack) *node {
	t.Helper()
	n := &node{port: e2etest.FreePort(t), lines: make(chan string, 16)}
	cmd := exec.Command("node", "oauth-client.mjs", s.base+"/mcp", strconv.Itoa(n.port))
	logf, err := os.Create(filepath.Join(s.shots, e2etest.FileName(t.Name(), "node", ".log")))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = logf
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if n.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("node: %v (npm ci in this directory installs the SDK; make test does)", err)
	}
	t.Cleanup(func() { n.stdin.Close(); _ = cmd.Process.Kill(); _ = cmd.Wait(); logf.Close() })
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			n.lines <- sc.Text()
		}
		close(n.lines)
	}()
	return n
}

// next waits for the client's next line with the given member.
func (n *node) next(t *testing.T, member string) string {
	t.Helper()
	timeout := time.After(60 * time.Second)
	for {
		select {
		case l, ok := <-n.lines:
			if !ok {
				t.Fatalf("the TypeScript client ended before printing %q (its log is among the artifacts)", member)
			}
			var m map[string]json.RawMessage
			if json.Unmarshal([]byte(l), &m) == nil && m[member] != nil {
				return l
			}
		case <-timeout:
			t.Fatalf("the TypeScript client printed no %q", member)
		}
	}
}

func (n *node) send(t *testing.T, line string) {
	if _, err := io.WriteString(n.stdin, line+"\n"); err != nil {
		t.Fatal(err)
	}
}

// consent opens the authorization URL the client printed, signs in when asked, and answers
// on the consent page; the browser then goes back to the client.
func (n *node) consent(j *journey, s *stack, allow bool) {
	j.T.Helper()
	var a struct {
		Authorize string `json:"authorize"`
	}
	mustJSON(j.T, n.next(j.T.(*testing.T), "authorize"), &a)
	j.answer(s, a.Authorize, n.port, allow)
}

// answer takes the browser through an authorization: sign in if needed, then allow or deny,
// then the agent's loopback page.
func (j *journey) answer(s *stack, authorizeURL string, port int, allow bool) {
	j.T.Helper()
	j.Do(chromedp.Navigate(authorizeURL))
	j.WaitAcrossNavigation(at("/dashboard/signin") + ` || ` + at("/dashboard/consent"))
	if j.Eval(`location.pathname`) == "/dashboard/signin" {
		j.signIn(s, email, "/dashboard/consent")
	}
	j.WaitFor(`document.getElementById('allow') !== null`)
	j.check("consent")
	button := "#deny"
	if allow {
		button = "#allow"
	}
	j.submit(button, `location.host === '127.0.0.1:`+strconv.Itoa(port)+`'`)
}

// billed waits until the account's usage page shows the agent's calls: the consenting
// account pays for them.
func (j *journey) billed(s *stack) {
	j.T.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		j.Do(chromedp.Navigate(s.base + "/dashboard/usage"))
		text := j.Eval(`document.body.innerText`)
		if strings.Contains(text, "Agents (MCP)") && !strings.Contains(text, "No calls this month.") {
			break
		}
		if time.Now().After(deadline) {
			j.Screenshot("usage-missing")
			j.T.Fatal("the account's usage page does not show the agent's calls")
		}
		time.Sleep(500 * time.Millisecond)
	}
	j.check("usage-agent")
}

// goSDK signs in with the Go SDK's AuthorizationCodeHandler and calls tools; every answer of
// /mcp is checked against openapi.json on the way. It returns the token it holds.
func goSDK(t *testing.T, s *stack, j *journey, v *openapitest.Validator) *oauth2.Token {
	port := e2etest.FreePort(t)
	redirect := fmt.Sprintf("http://127.0.0.1:%d/callback", port)
	h, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			RedirectURIs: []string{redirect}, ClientName: goName, TokenEndpointAuthMethod: "none",
			GrantTypes: []string{"authorization_code", "refresh_token"}, ResponseTypes: []string{"code"}}},
		RedirectURL: redirect,
		AuthorizationCodeFetcher: func(_ context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			q := j.loopback(s, args.URL, port, true)
			return &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "adreswijzer-oauth-e2e-go", Version: "1.0.0"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.base + "/mcp", OAuthHandler: h,
		HTTPClient: v.Client(t, nil)}, nil)
	if err != nil {
		t.Fatalf("the Go SDK did not sign in: %v", err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 5 {
		t.Fatalf("tools: %v %v", tools, err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "verify_address", Arguments: map[string]any{"address": weesp, "lang": "en"}})
	if err != nil || res.IsError || !strings.Contains(fmt.Sprint(res.StructuredContent), "status:valid") {
		t.Fatalf("verify_address: %+v %v", res, err)
	}
	src, err := h.TokenSource(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := src.Token()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// loopback answers an authorization in the browser and returns what came back to the
// redirect URI on port.
func (j *journey) loopback(s *stack, authorizeURL string, port int, allow bool) url.Values {
	j.T.Helper()
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		j.T.Fatal(err)
	}
	got := make(chan url.Values, 1)
	srv := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case got <- r.URL.Query():
		default:
		}
		_, _ = io.WriteString(w, "You can close this window.")
	})}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	j.answer(s, authorizeURL, port, allow)
	select {
	case q := <-got:
		return q
	case <-time.After(15 * time.Second):
		j.T.Fatal("the browser did not come back to the agent")
	}
	return nil
}

// refusals checks what RFC 6749 and RFC 6750 say is refused: a wrong PKCE verifier at the
// token endpoint, and at /mcp a token for another audience, an expired one and a revoked
// one (401 invalid_token each, answers checked against openapi.json).
func refusals(t *testing.T, s *stack, j *journey, v *openapitest.Validator, tok *oauth2.Token) {
	// A wrong verifier: the code is refused with invalid_grant.
	port := e2etest.FreePort(t)
	redirect := fmt.Sprintf("http://127.0.0.1:%d/callback", port)
	reg := postJSON(t, s.base+"/oauth/register", `{"client_name":"Wrong verifier","redirect_uris":["`+redirect+`"]}`)
	verifier := oauth2.GenerateVerifier()
	cfg := oauth2.Config{ClientID: reg["client_id"].(string), RedirectURL: redirect, Scopes: []string{"address:verify"},
		Endpoint: oauth2.Endpoint{AuthURL: s.base + "/oauth/authorize", TokenURL: s.base + "/oauth/token", AuthStyle: oauth2.AuthStyleInParams}}
	q := j.loopback(s, cfg.AuthCodeURL("st", oauth2.S256ChallengeOption(verifier), oauth2.SetAuthURLParam("resource", s.base+"/mcp")), port, true)
	_, err := cfg.Exchange(context.Background(), q.Get("code"), oauth2.VerifierOption(oauth2.GenerateVerifier()))
	var re *oauth2.RetrieveError
	if !asRetrieve(err, &re) || re.Response.StatusCode != http.StatusBadRequest || re.ErrorCode != "invalid_grant" {
		t.Errorf("wrong PKCE verifier: %v", err)
	}

	// The Go SDK's token works; forged ones signed with the server's own key do not.
	mcpStatus(t, v, s, tok.AccessToken, http.StatusOK, "")
	claims := tokenClaims(t, tok.AccessToken)
	other := claims
	other.Audience = "https://other.example/mcp"
	mcpStatus(t, v, s, sign(t, s, other), http.StatusUnauthorized, "invalid_token")
	expired := claims
	expired.IssuedAt, expired.Expiry = time.Now().Add(-2*time.Hour).Unix(), time.Now().Add(-time.Hour).Unix()
	mcpStatus(t, v, s, sign(t, s, expired), http.StatusUnauthorized, "invalid_token")

	// Revoked by the agent (RFC 7009): its token stops at once.
	resp, err := http.PostForm(s.base+"/oauth/revoke", url.Values{"token": {tok.RefreshToken}, "client_id": {claims.ClientID}})
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("revoke: %v %v", resp, err)
	}
	resp.Body.Close()
	mcpStatus(t, v, s, tok.AccessToken, http.StatusUnauthorized, "invalid_token")
}

// mcpStatus calls tools/list on /mcp with a bearer token and checks the status and the
// RFC 6750 error of the challenge.
func mcpStatus(t *testing.T, v *openapitest.Validator, s *stack, token string, status int, code string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, s.base+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}`))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := v.Client(t, nil).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != status {
		t.Errorf("/mcp: %d, want %d", resp.StatusCode, status)
	}
	if code == "" {
		return
	}
	chs, err := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	if err != nil || len(chs) != 1 || chs[0].Params["error"] != code || chs[0].Params["resource_metadata"] == "" {
		t.Errorf("challenge %q, want error=%s", resp.Header.Get("WWW-Authenticate"), code)
	}
}

// tokenClaims reads an access token's claims (the test checks the server's answers to
// tokens made from them, not the token).
func tokenClaims(t *testing.T, raw string) authserver.AccessClaims {
	t.Helper()
	tok, err := jwt.ParseSigned(raw, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		t.Fatal(err)
	}
	var c authserver.AccessClaims
	if err := tok.UnsafeClaimsWithoutVerification(&c); err != nil {
		t.Fatal(err)
	}
	return c
}

// sign signs claims with the authorization server's current key, read from its file: a
// token only the audience or the time is wrong with.
func sign(t *testing.T, s *stack, c authserver.AccessClaims) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(s.dir, "var", "oauth.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct{ Keys []authserver.Key }
	if err := json.Unmarshal(b, &f); err != nil || len(f.Keys) == 0 {
		t.Fatalf("keys in oauth.json: %v", err)
	}
	k := f.Keys[len(f.Keys)-1]
	p, err := x509.ParsePKCS8PrivateKey(k.Private)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: p.(*ecdsa.PrivateKey)},
		(&jose.SignerOptions{}).WithType("at+jwt").WithHeader("kid", k.ID))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := jwt.Signed(signer).Claims(c).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func postJSON(t *testing.T, url, body string) map[string]any {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("register: %d %v", resp.StatusCode, err)
	}
	return m
}

func asRetrieve(err error, re **oauth2.RetrieveError) bool {
	r, ok := err.(*oauth2.RetrieveError)
	*re = r
	return ok
}

func mustJSON(t testing.TB, line string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(line), v); err != nil {
		t.Fatalf("%v: %s", err, line)
	}
}

// noSecretsLogged fails when a token, a code or the person's address reached the gateway's
// log.
func noSecretsLogged(t *testing.T, s *stack, tok *oauth2.Token) {
	b, err := os.ReadFile(filepath.Join(s.shots, "gateway.log"))
	if err != nil {
		t.Fatal(err)
	}
	log := string(b)
	for _, bad := range []string{"awrt_", "awco_", "eyJ", email, "code_verifier=", "code_challenge=", "code=awco"} {
		if strings.Contains(log, bad) {
			t.Errorf("the gateway's log holds %q", bad)
		}
	}
	if tok != nil && slices.ContainsFunc([]string{tok.AccessToken, tok.RefreshToken}, func(s string) bool { return s != "" && strings.Contains(log, s) }) {
		t.Error("the gateway's log holds a token")
	}
}
