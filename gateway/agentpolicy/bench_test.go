package agentpolicy

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/adreswijzer/adreswijzer/gateway/agentpolicy/limits"
	"github.com/adreswijzer/adreswijzer/gateway/agentpolicy/rpcinspect"
)

// What the agent policy adds to the gateway's decision on a request to /mcp (reading the
// JSON-RPC body, counting verifications, the agent limits in memory), as a ratio to the
// decision on a REST lookup by the same key measured in the same run.
func BenchmarkDecide(b *testing.B) {
	f := newFixture(b, Config{Policy: limits.Policy{Rate: 1 << 30, Period: time.Hour, Burst: 1 << 30,
		Daily: 1 << 30, RepeatMax: 5, RepeatWindow: time.Minute}})
	ctx := context.Background()
	run := func(b *testing.B, req func(i int) *http.Request) float64 {
		reqs := make([]*http.Request, 1024)
		n := 0
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; b.Loop(); i++ {
			if i%len(reqs) == 0 {
				b.StopTimer()
				for j := range reqs {
					reqs[j] = req(n) // distinct calls: the repeat rule must not refuse them
					n++
				}
				b.StartTimer()
			}
			d, e := f.g.Decide(ctx, reqs[i%len(reqs)], "")
			if e != nil {
				b.Fatal(e)
			}
			f.g.Finish(ctx, d, http.StatusOK)
		}
		b.StopTimer()
		return float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	}
	var rest float64
	b.Run("rest_lookup", func(b *testing.B) {
		rest = run(b, func(i int) *http.Request {
			r, _ := http.NewRequest(http.MethodGet, fmt.Sprintf("https://api.adreswijzer.example/v1/nl/lookup?postcode=1381CS&number=%d", i%999+1), nil)
			r.Header.Set("Authorization", "Bearer "+f.secrets["bench"])
			return r
		})
	})
	for _, c := range []struct {
		name  string
		tool  string
		items int
	}{{"verify_address", rpcinspect.ToolVerify, 0}, {"batch_of_30", rpcinspect.ToolVerifyBatch, 30}} {
		b.Run(c.name, func(b *testing.B) {
			ns := run(b, func(i int) *http.Request {
				args := fmt.Sprintf(`{"address":"Hugo de Grootlaan %d, 1381 CS Weesp"}`, i)
				if c.items > 0 {
					items := make([]string, c.items)
					for j := range items {
						items[j] = fmt.Sprintf(`{"id":"%d","address":"Hugo de Grootlaan %d, 1381 CS Weesp"}`, j, i)
					}
					args = `{"addresses":[` + strings.Join(items, ",") + `]}`
				}
				r := f.post("bench", toolCall(i, c.tool, args))
				return r
			})
			if rest > 0 {
				b.ReportMetric(ns/rest, "x_rest_lookup")
			}
		})
	}
}
