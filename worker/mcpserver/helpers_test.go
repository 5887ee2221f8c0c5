package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/gateway/agentpolicy/rpcinspect"
	"github.com/adreswijzer/adreswijzer/store/memory"
	"github.com/adreswijzer/adreswijzer/store/storetest"
	"github.com/adreswijzer/adreswijzer/store/storetest/samples"
	"github.com/adreswijzer/adreswijzer/worker/match"
	"github.com/adreswijzer/adreswijzer/worker/mcpserver/mcpservertest"
)

// The tests answer from the real register samples, imported the way the worker imports
// them: the Kadaster extract of Weesp and BOSA's BeST sample (Haren in Brussels, Lembeek in
// Halle, Malmedy), both into the memory store.

var (
	sampleOnce  sync.Once
	sampleStore *memory.Store
	sampleErr   error
)

func sampleData(t testing.TB) *memory.Store {
	t.Helper()
	imps := map[adreswijzer.Country]storetest.Importer{
		adreswijzer.NL: samples.BAGWeesp(t),
		adreswijzer.BE: samples.BeSTSample(t),
	}
	sampleOnce.Do(func() {
		sampleStore, sampleErr = load(imps)
	})
	if sampleErr != nil {
		t.Fatalf("load samples: %v", sampleErr)
	}
	return sampleStore
}

// sampleOf loads the register sample of one country only, as a worker holds it whose other
// snapshot is missing.
func sampleOf(t testing.TB, c adreswijzer.Country) *memory.Store {
	t.Helper()
	imp := samples.BAGWeesp(t)
	if c == adreswijzer.BE {
		imp = samples.BeSTSample(t)
	}
	s, err := load(map[adreswijzer.Country]storetest.Importer{c: imp})
	if err != nil {
		t.Fatalf("load the %s sample: %v", c, err)
	}
	return s
}

func load(imps map[adreswijzer.Country]storetest.Importer) (*memory.Store, error) {
	ctx := context.Background()
	s := memory.New(memory.Options{Logger: quiet()})
	for _, c := range adreswijzer.Countries {
		imp, ok := imps[c]
		if !ok {
			continue // a worker started with one country's snapshot only
		}
		w, err := s.Begin(ctx, c)
		if err != nil {
			return nil, err
		}
		v, _, err := imp(ctx, w.Add)
		if err != nil {
			w.Abort(ctx)
			return nil, err
		}
		if _, err := w.Commit(ctx, v); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// serve starts the agent interface over store and returns its URL.
func serve(t testing.TB, store adreswijzer.Store, opts Options) string {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = quiet()
	}
	srv := httptest.NewServer(NewHandler(match.New(store, match.Options{}), opts))
	t.Cleanup(srv.Close)
	return srv.URL
}

// connect opens a session with the SDK's client at the protocol revision.
func connect(t testing.TB, url, version string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "adreswijzer-test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect at %s: %v", version, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// published are the tool schemas the server lists, which every result of these tests is
// checked against; the first session that calls a tool lists them (every server here has
// the same tools).
var (
	publishedOnce sync.Once
	published     *mcpservertest.Tools
)

func toolSchemas(t testing.TB, cs *mcp.ClientSession) *mcpservertest.Tools {
	t.Helper()
	publishedOnce.Do(func() { published = mcpservertest.New(t, cs) })
	if published == nil {
		t.Fatal("the tool schemas could not be listed: see the first test that failed")
	}
	return published
}

// call calls a tool and decodes its structured result into out (when not nil). It fails the
// test on a protocol error, and returns the result for tool errors. Every result is checked
// against the tool's published output schema.
func call(t testing.TB, cs *mcp.ClientSession, tool string, args any, out any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	toolSchemas(t, cs).Check(t, tool, res)
	if res.IsError || out == nil {
		return res
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("%s: structured content: %v", tool, err)
	}
	return res
}

// errorText is the text of a tool error, failing the test when the call succeeded.
func errorText(t testing.TB, res *mcp.CallToolResult) string {
	t.Helper()
	if !res.IsError {
		b, _ := json.Marshal(res.StructuredContent)
		t.Fatalf("call succeeded, want a tool error: %s", b)
	}
	if len(res.Content) == 0 {
		t.Fatal("tool error without content")
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("tool error content is %T", res.Content[0])
	}
	return tc.Text
}

// refusalOf is the structured content of a tool error, failing the test when the call
// succeeded.
func refusalOf(t testing.TB, res *mcp.CallToolResult) rpcinspect.ToolErrorBody {
	t.Helper()
	errorText(t, res)
	var te rpcinspect.ToolError
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &te); err != nil {
		t.Fatalf("tool error's structured content: %v", err)
	}
	return te.Error
}

// verdict is what these tests compare of a verify_address answer.
type verdict struct {
	status   adreswijzer.Verdict
	country  string // "" for null
	issues   []adreswijzer.IssueCode
	blocking bool
	zip      string // normalized zip, "" when none
	unit     string // normalized address2, "" when none
}

func (v verdict) String() string {
	return fmt.Sprintf("status %s country %q issues %v blocking %v zip %q unit %q", v.status, v.country, v.issues, v.blocking, v.zip, v.unit)
}

// verifyVerdict calls verify_address and reads its answer, failing on a tool error.
func verifyVerdict(t *testing.T, cs *mcp.ClientSession, args map[string]any) (verdict, VerifyOutput) {
	t.Helper()
	var out VerifyOutput
	if res := call(t, cs, ToolVerify, args, &out); res.IsError {
		t.Fatalf("tool error: %s", errorText(t, res))
	}
	v := verdict{status: out.Status, blocking: out.Blocking}
	if out.CountryCode != nil {
		v.country = *out.CountryCode
	}
	for _, is := range out.Issues {
		v.issues = append(v.issues, is.Code)
	}
	if n := out.Normalized; n != nil {
		v.zip = n.Zip
		if n.Address2 != nil {
			v.unit = *n.Address2
		}
	}
	return v, out
}

func sameVerdict(a, b verdict) bool {
	return a.status == b.status && a.country == b.country && slices.Equal(a.issues, b.issues) &&
		a.blocking == b.blocking && a.zip == b.zip && a.unit == b.unit
}
