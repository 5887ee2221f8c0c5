package agent

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/store/memory"
	"github.com/adreswijzer/adreswijzer/store/storetest"
	"github.com/adreswijzer/adreswijzer/store/storetest/samples"
	"github.com/adreswijzer/adreswijzer/worker/match"
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

func load(imps map[adreswijzer.Country]storetest.Importer) (*memory.Store, error) {
	ctx := context.Background()
	s := memory.New(memory.Options{Logger: quiet()})
	for _, c := range adreswijzer.Countries {
		w, err := s.Begin(ctx, c)
		if err != nil {
			return nil, err
		}
		v, _, err := imps[c](ctx, w.Add)
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

// call calls a tool and decodes its structured result into out (when not nil). It fails the
// test on a protocol error, and returns the result for tool errors.
func call(t testing.TB, cs *mcp.ClientSession, tool string, args any, out any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
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
