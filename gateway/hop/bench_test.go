package hop_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"syscall"
	"testing"
	"time"

	"github.com/adreswijzer/adreswijzer/gateway/hop"
)

// BenchmarkHop compares the hop's transport with net/http's on the same loopback worker
// answering a fixed 600-byte body. cpu-ns/op is the process's CPU (client and worker)
// per request, which wall time on a shared machine does not tell.
func BenchmarkHop(b *testing.B) {
	body := make([]byte, 600)
	for i := range body {
		body[i] = 'a'
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	}))
	defer srv.Close()
	for _, tc := range []struct {
		name string
		tr   http.RoundTripper
	}{
		{"net-http", &http.Transport{MaxIdleConnsPerHost: 64}},
		{"hop", &hop.Transport{}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetParallelism(8)
			start := cpu()
			b.RunParallel(func(pb *testing.PB) {
				buf := make([]byte, 1024)
				for pb.Next() {
					req, _ := http.NewRequest(http.MethodGet, srv.URL+"/v1/nl/lookup?postcode=1381CS&number=16", nil)
					resp, err := tc.tr.RoundTrip(req)
					if err != nil {
						b.Error(err)
						return
					}
					for {
						if _, err := resp.Body.Read(buf); err == io.EOF {
							break
						} else if err != nil {
							b.Error(err)
							return
						}
					}
					resp.Body.Close()
				}
			})
			b.ReportMetric(float64(cpu()-start)/float64(b.N), "cpu-ns/op")
		})
	}
}

// cpu is the process's user and system CPU time so far.
func cpu() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
