//go:build faults

package faults_test

import (
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Shape of the load: enough concurrent clients to keep requests in flight at every moment a
// fault can hit, paced so that the two shared cores are not saturated by the load itself
// (then every latency would be the machine's, not the service's).
const (
	loadClients   = 24
	clientEvery   = 80 * time.Millisecond // each client: at most 12.5 requests a second
	limitedEvery  = 50 * time.Millisecond // the rate-limit probe: 20 a second against 5/s
	clientTimeout = 2500 * time.Millisecond
)

// record is one exchange as the client saw it.
type record struct {
	call       *call
	client     int
	start, end time.Time
	status     int    // 0: no answer
	err        string // transport error or time-out
	code       string // error.code of an error body
	cache      string // X-Cache
	version    string // X-Dataset-Version
	retryAfter string
	body       [32]byte // sha256 of the body; the bodies are kept once each
}

func (r *record) took() time.Duration { return r.end.Sub(r.start) }

// ok is a success of the call: 200, or for the rate-limit probe also its 429.
func (r *record) ok() bool {
	return r.err == "" && (r.status == http.StatusOK || (r.call.limited && r.status == http.StatusTooManyRequests))
}

// exchange is the first exchange of each distinct (call, status, body): what is checked
// against openapi.json.
type exchange struct {
	call   *call
	status int
	header http.Header
	body   []byte
}

type load struct {
	base    string
	liveKey string
	pkKey   string
	calls   []*call // unlimited ones
	probe   []*call // limited ones
	client  *http.Client
	started time.Time

	mu        sync.Mutex
	recs      []record
	bodies    map[[32]byte][]byte
	exchanges map[string]*exchange

	stop    chan struct{}
	stopped sync.Once
	wg      sync.WaitGroup
}

func (s *stack) startLoad(calls []*call) *load {
	l := &load{base: s.gatewayURL, liveKey: s.liveKey, pkKey: s.pkKey, started: time.Now(),
		bodies: map[[32]byte][]byte{}, exchanges: map[string]*exchange{}, stop: make(chan struct{})}
	for _, c := range calls {
		if c.limited {
			l.probe = append(l.probe, c)
		} else {
			l.calls = append(l.calls, c)
		}
	}
	l.client = &http.Client{Transport: &http.Transport{
		Proxy:               nil,
		DialContext:         (&net.Dialer{Timeout: time.Second}).DialContext,
		MaxIdleConns:        2 * loadClients,
		MaxIdleConnsPerHost: 2 * loadClients,
		IdleConnTimeout:     30 * time.Second,
		DisableCompression:  true,
	}}
	for i := range loadClients {
		l.wg.Add(1)
		go l.runClient(i, l.calls, l.liveKey, clientEvery)
	}
	if len(l.probe) > 0 {
		l.wg.Add(1)
		go l.runClient(loadClients, l.probe, l.pkKey, limitedEvery)
	}
	s.load = l
	// A test that stops early must not leave its clients running into the next one.
	s.t.Cleanup(l.halt)
	return l
}

// runClient is one client: a checkout session after another, each a few calls under one
// sessionId, at most one request per interval.
func (l *load) runClient(id int, calls []*call, key string, every time.Duration) {
	defer l.wg.Done()
	rng := rand.New(rand.NewPCG(uint64(id), 99))
	next := time.Now().Add(time.Duration(rng.Int64N(int64(every))))
	for seq := 0; ; seq++ {
		select {
		case <-l.stop:
			return
		case <-time.After(time.Until(next)):
		}
		next = next.Add(every)
		if now := time.Now(); next.Before(now) {
			next = now
		}
		c := calls[rng.IntN(len(calls))]
		l.send(id, c, key, fmt.Sprintf("s-%d-%d", id, seq/4))
	}
}

func (l *load) send(client int, c *call, key, session string) {
	req := c.request(l.base, key, session)
	ctx, cancel := context.WithTimeout(context.Background(), clientTimeout)
	defer cancel()
	rec := record{call: c, client: client, start: time.Now()}
	resp, err := l.client.Do(req.WithContext(ctx))
	var body []byte
	if err == nil {
		body, err = io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	rec.end = time.Now()
	if err != nil {
		rec.err = err.Error()
		if errors.Is(err, context.DeadlineExceeded) {
			rec.err = "no answer within " + clientTimeout.String()
		}
		l.add(rec, nil, nil)
		return
	}
	rec.status = resp.StatusCode
	rec.cache = resp.Header.Get("X-Cache")
	rec.version = resp.Header.Get("X-Dataset-Version")
	rec.retryAfter = resp.Header.Get("Retry-After")
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Error struct {
				Code string `json:"code"`
			} `json:"error"`
		}
		if json.Unmarshal(body, &e) == nil {
			rec.code = e.Error.Code
		}
	}
	rec.body = sha256.Sum256(body)
	l.add(rec, resp.Header, body)
}

func (l *load) add(rec record, h http.Header, body []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.recs = append(l.recs, rec)
	if h == nil {
		return
	}
	if _, ok := l.bodies[rec.body]; !ok {
		l.bodies[rec.body] = body
	}
	k := fmt.Sprintf("%d|%d|%x", rec.call.id, rec.status, rec.body)
	if _, ok := l.exchanges[k]; !ok {
		l.exchanges[k] = &exchange{call: rec.call, status: rec.status, header: h.Clone(), body: body}
	}
}

// records returns a copy of what was recorded so far, in order of start.
func (l *load) records() []record {
	l.mu.Lock()
	out := append([]record(nil), l.recs...)
	l.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].start.Before(out[j].start) })
	return out
}

func (l *load) body(r *record) []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.bodies[r.body]
}

// halt stops the clients and waits for their last requests.
func (l *load) halt() {
	l.stopped.Do(func() {
		close(l.stop)
		l.wg.Wait()
		l.client.CloseIdleConnections()
	})
}

// dump writes the records as CSV, for a person who wants to plot a run: when each request
// started, how long it took, what came back. Calls appear by number and route only.
func (l *load) dump(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	w.Write([]string{"start_s", "took_ms", "client", "call", "route", "country", "limited", "status", "code", "cache", "version", "error"})
	for _, r := range l.records() {
		w.Write([]string{
			strconv.FormatFloat(r.start.Sub(l.started).Seconds(), 'f', 4, 64),
			strconv.FormatFloat(float64(r.took().Microseconds())/1000, 'f', 2, 64),
			strconv.Itoa(r.client), strconv.Itoa(r.call.id), r.call.route, string(r.call.country),
			strconv.FormatBool(r.call.limited), strconv.Itoa(r.status), r.code, r.cache, r.version, r.err,
		})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// waitRecovered waits until every call of the load that started after since has succeeded
// for steady in a row, giving up after within. It returns how long after since the last
// failure ended (0 when nothing failed), and whether the steady state was reached.
func (l *load) waitRecovered(since time.Time, within, steady time.Duration) (time.Duration, bool) {
	deadline := since.Add(within + steady)
	for {
		lastBad := since
		n := 0
		for _, r := range l.records() {
			if r.start.Before(since) || r.call.limited {
				continue
			}
			if !r.ok() || r.took() > clientBudget {
				if r.end.After(lastBad) {
					lastBad = r.end
				}
				n = 0
			} else if r.start.After(lastBad) {
				n++
			}
		}
		if time.Since(lastBad) >= steady && n >= 20 {
			return lastBad.Sub(since), true
		}
		if time.Now().After(deadline) {
			return lastBad.Sub(since), false
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// hold keeps the load running for d.
func hold(d time.Duration) { time.Sleep(d) }

// summary is one line about a stretch of the load, for the report.
func summary(recs []record, from, to time.Time) string {
	var n, hits int
	statuses := map[string]int{}
	var lat []time.Duration
	for _, r := range recs {
		if r.start.Before(from) || !r.start.Before(to) || r.call.limited {
			continue
		}
		n++
		key := fmt.Sprint(r.status)
		if r.err != "" {
			key = "error"
		}
		statuses[key]++
		if r.cache == "HIT" {
			hits++
		}
		lat = append(lat, r.took())
	}
	if n == 0 {
		return "no requests"
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	q := func(p float64) time.Duration { return lat[min(len(lat)-1, int(p*float64(len(lat))))] }
	var st []string
	for k, v := range statuses {
		st = append(st, fmt.Sprintf("%s×%d", k, v))
	}
	sort.Strings(st)
	secs := to.Sub(from).Seconds()
	return fmt.Sprintf("%d requests (%.0f/s), %s, %d cache hits; latency p50 %v p99 %v max %v",
		n, float64(n)/secs, strings.Join(st, " "), hits, q(0.5).Round(time.Millisecond),
		q(0.99).Round(time.Millisecond), lat[len(lat)-1].Round(time.Millisecond))
}
