package measure

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Outputs as wrk 4.1.0 and pgbench 15 print them.
const (
	wrkClean = `Running 10s test @ http://127.0.0.1:18080
  2 threads and 64 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     2.48ms    5.20ms 100.00ms   95.00%
    Req/Sec    13.01k     1.20k   15.00k    70.00%
  Latency Distribution
     50%    2.48ms
     75%  812.00us
     90%    4.00ms
     99%    1.02s
  258920 requests in 10.00s, 170.50MB read
Requests/sec:  25892.00
Transfer/sec:     17.05MB
`
	wrkErrors = `Running 2s test @ http://127.0.0.1:8080
  2 threads and 8 connections
  Latency Distribution
     50%  210.00us
     75%  300.00us
     90%  400.00us
     99%    4.54ms
  54938 requests in 2.00s, 38.01MB read
  Socket errors: connect 0, read 3, write 0, timeout 2
  Non-2xx or 3xx responses: 12
Requests/sec:  27469.00
Transfer/sec:     19.00MB
`
	pgbenchOut = `pgbench (15.20 (Debian 15.20-0+deb12u1))
starting vacuum...end.
transaction type: <builtin: select only>
scaling factor: 10
query mode: prepared
number of clients: 32
number of threads: 2
maximum number of tries: 1
duration: 10 s
number of transactions actually processed: 216730
number of failed transactions: 0 (0.000%)
latency average = 1.476 ms
initial connection time = 25.123 ms
tps = 21673.123456 (without initial connection time)
`
)

func TestParseWrk(t *testing.T) {
	for _, tc := range []struct {
		name string
		out  string
		want Stats
	}{
		{"clean", wrkClean, Stats{Requests: 258920, Seconds: 10, RPS: 25892, P50: 2.48, P75: 0.812, P90: 4, P99: 1020, BytesRead: 170.5 * (1 << 20)}},
		{"errors", wrkErrors, Stats{Requests: 54938, Seconds: 2, RPS: 27469, P50: 0.21, P75: 0.3, P90: 0.4, P99: 4.54, BytesRead: 38.01 * (1 << 20),
			Errors: 17, ErrorText: "12 non-2xx; socket errors connect 0, read 3, write 0, timeout 2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseWrk(tc.out)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("ParseWrk:\n got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestParseWrkRefusesIncompleteReports(t *testing.T) {
	for _, out := range []string{
		"",
		"unable to connect to 127.0.0.1:1 Connection refused\n",
		// Without --latency there are no percentiles.
		"  1000 requests in 1.00s, 1.00KB read\nRequests/sec:   1000.00\n",
	} {
		if _, err := ParseWrk(out); err == nil {
			t.Errorf("ParseWrk(%q) accepted a report without the figures", out)
		}
	}
}

func TestParsePgbench(t *testing.T) {
	got, err := ParsePgbench(pgbenchOut)
	if err != nil {
		t.Fatal(err)
	}
	want := Stats{Requests: 216730, Seconds: 10, RPS: 21673.123456}
	if got != want {
		t.Errorf("ParsePgbench:\n got %+v\nwant %+v", got, want)
	}
	// A run that processed nothing prints no tps: that must not read as zero throughput.
	none := strings.Replace(pgbenchOut, "tps = 21673.123456 (without initial connection time)\n", "", 1)
	if _, err := ParsePgbench(none); err == nil {
		t.Error("ParsePgbench accepted a report without tps")
	}
}

func TestPgbenchLatencies(t *testing.T) {
	dir := t.TempDir()
	prefix := filepath.Join(dir, "tx")
	// client_id transaction_no latency_us script_no epoch epoch_us, one file per thread.
	var a, b strings.Builder
	for i := 1; i <= 100; i++ {
		w := &a
		if i%2 == 0 {
			w = &b
		}
		w.WriteString("0 " + strconv.Itoa(i) + " " + strconv.Itoa(i*1000) + " 0 1700000000 123\n")
	}
	if err := os.WriteFile(prefix+".123", []byte(a.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(prefix+".123.1", []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var s Stats
	if err := PgbenchLatencies(&s, prefix); err != nil {
		t.Fatal(err)
	}
	if s.P50 != 50 || s.P99 != 99 {
		t.Errorf("p50 %v ms, p99 %v ms; want 50 and 99", s.P50, s.P99)
	}
	if err := PgbenchLatencies(&s, filepath.Join(dir, "none")); err == nil {
		t.Error("no logs must be an error")
	}
}

func TestParseGoBench(t *testing.T) {
	out := `goos: linux
goarch: amd64
pkg: github.com/adreswijzer/adreswijzer/worker/httpapi
cpu: AMD EPYC
BenchmarkHandler/baseline-2         	  195212	      6011 ns/op	     384 B/op	       3 allocs/op
BenchmarkHandler/lookup-2           	   10000	    127448 ns/op	   38832 B/op	     506 allocs/op
    bench_test.go:40: a log line
BenchmarkMemoryPerAddress           	       1	12384549468 ns/op	        33.21 B/addr	         0.5188 budget-ratio
BenchmarkThroughCaddy/gateway_proxied-2    	{"level":"warn","logger":"admin","msg":"admin endpoint disabled"}
{"level":"warn","logger":"http","msg":"HTTP/2 skipped because it requires TLS","addr":"127.0.0.1:45827"}
   13158	     86460 ns/op	         1.069 x_proxy_only	   31871 B/op	     407 allocs/op
--- BENCH: BenchmarkThroughCaddy/gateway_proxied-2
    bench_test.go:31: slowest 1.025697ms
PASS
ok  	github.com/adreswijzer/adreswijzer/worker/httpapi	12.3s
`
	got, err := ParseGoBench(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 {
		t.Fatalf("%d results, want 4: %+v", len(got), got)
	}
	for _, tc := range []struct {
		i          int
		name, unit string
		value      float64
	}{
		{0, "BenchmarkHandler/baseline", "ns/op", 6011},
		{1, "BenchmarkHandler/lookup", "allocs/op", 506},
		{2, "BenchmarkMemoryPerAddress", "B/addr", 33.21},
		{3, "BenchmarkThroughCaddy/gateway_proxied", "x_proxy_only", 1.069}, // split by a log line
	} {
		b := got[tc.i]
		if b.Name != tc.name || b.Package != "github.com/adreswijzer/adreswijzer/worker/httpapi" {
			t.Errorf("result %d is %s in %s", tc.i, b.Name, b.Package)
		}
		if v, ok := b.Get(tc.unit); !ok || v != tc.value {
			t.Errorf("%s %s = %v, %v; want %v", b.Name, tc.unit, v, ok, tc.value)
		}
	}
}
