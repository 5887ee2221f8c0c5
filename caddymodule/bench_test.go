package caddymodule_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adreswijzer/adreswijzer/gateway/gatewaytest"
	"github.com/adreswijzer/adreswijzer/gateway/keys"
)

// BenchmarkThroughCaddy measures requests end to end over loopback HTTP: Caddy proxying
// to the stand-in worker without our handler (the baseline, measured in the same run), then
// the gateway answering lookups from its cache, and proxying them with the cache off. The
// ratios say what the policy adds to the hop and what the cache saves.
func BenchmarkThroughCaddy(b *testing.B) {
	w := gatewaytest.NewWorker(b)
	var proxyNs float64
	run := func(b *testing.B, g *gw, path, key string) float64 {
		client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}, Timeout: 5 * time.Second}
		auth := ""
		if key != "" {
			auth = "Bearer " + g.secrets[key]
		}
		var maxMu sync.Mutex
		var maxLat time.Duration
		defer func() { b.Logf("slowest %v", maxLat) }()
		get := func() {
			start := time.Now()
			defer func() {
				d := time.Since(start)
				maxMu.Lock()
				maxLat = max(maxLat, d)
				maxMu.Unlock()
			}()
			r, _ := http.NewRequest("GET", g.base+path, nil)
			if auth != "" {
				r.Header.Set("Authorization", auth)
			}
			resp, err := client.Do(r)
			if err != nil {
				b.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				b.Errorf("status %d after %v", resp.StatusCode, time.Since(start))
			}
		}
		get() // warm the cache and the connections
		b.ReportAllocs()
		b.ResetTimer()
		b.SetParallelism(16)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				get()
			}
		})
		b.StopTimer()
		return float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	}
	b.Run("proxy_only", func(b *testing.B) {
		port := gatewaytest.FreePort(b)
		loadCaddyfile(b, fmt.Sprintf(`{
	admin off
	auto_https off
	log default {
		level ERROR
	}
}
http://:%d {
	bind 127.0.0.1
	reverse_proxy %s
}
`, port, strings.TrimPrefix(w.URL, "http://")))
		waitListening(b, port)
		proxyNs = run(b, &gw{base: fmt.Sprintf("http://127.0.0.1:%d", port)}, nlLookup, "")
	})
	limits := "limit live 1000000/s burst 1000000\nplan free unlimited"
	b.Run("gateway_cache_hit", func(b *testing.B) {
		g := startGateway(b, gatewayConfig{upstream: w.URL, extra: limits, keys: []keys.Options{{Name: "k", Kind: keys.Live, Account: "bench"}}})
		time.Sleep(300 * time.Millisecond) // first health poll: the version is known
		ns := run(b, g, nlLookup, "k")
		if proxyNs > 0 {
			b.ReportMetric(ns/proxyNs, "x_proxy_only")
		}
	})
	b.Run("gateway_proxied", func(b *testing.B) {
		g := startGateway(b, gatewayConfig{upstream: w.URL, extra: limits + "\ncache off", keys: []keys.Options{{Name: "k", Kind: keys.Live, Account: "bench"}}})
		ns := run(b, g, nlLookup, "k")
		if proxyNs > 0 {
			b.ReportMetric(ns/proxyNs, "x_proxy_only")
		}
	})
}
