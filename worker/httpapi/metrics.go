package httpapi

import (
	"errors"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics count requests and their durations by route pattern, method and status. Labels
// come from a fixed set (patterns, known methods, status codes), so neither a submitted
// value nor a caller inventing paths or methods can reach them or grow them without bound.
type metrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
	// series keeps the counter and histogram of each label set once resolved (by
	// seriesKey), as the client library advises for hot paths: resolving hashes the label
	// values and takes a lock on every request.
	series sync.Map
}

type seriesKey struct {
	route, method string
	status        int
}

type series struct {
	requests prometheus.Counter
	duration prometheus.Observer
}

var labels = []string{"route", "method", "status"}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "adreswijzer", Subsystem: "worker", Name: "http_requests_total",
			Help: "HTTP requests answered, by route pattern, method and status.",
		}, labels),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "adreswijzer", Subsystem: "worker", Name: "http_request_duration_seconds",
			Help: "Time to answer an HTTP request, by route pattern, method and status.",
			// Fine below 10 ms, where the memory store answers; coarse up to the deadline.
			Buckets: []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, .8, 1, 2.5},
		}, labels),
	}
	m.requests = register(reg, m.requests)
	m.duration = register(reg, m.duration)
	return m
}

// register adds c to reg, or returns the collector already there, so that several handlers
// (tests, a restart of the handler in one process) can share one registry.
func register[C prometheus.Collector](reg prometheus.Registerer, c C) C {
	if err := reg.Register(c); err != nil {
		var are prometheus.AlreadyRegisteredError
		if errors.As(err, &are) {
			if existing, ok := are.ExistingCollector.(C); ok {
				return existing
			}
		}
		panic("httpapi: register metrics: " + err.Error())
	}
	return c
}

func (m *metrics) observe(route, method string, status int, d time.Duration) {
	k := seriesKey{route, method, status}
	v, ok := m.series.Load(k)
	if !ok {
		code := strconv.Itoa(status)
		v, _ = m.series.LoadOrStore(k, &series{
			requests: m.requests.WithLabelValues(route, method, code),
			duration: m.duration.WithLabelValues(route, method, code),
		})
	}
	s := v.(*series)
	s.requests.Inc()
	s.duration.Observe(d.Seconds())
}

// method keeps the methods HTTP defines and folds anything else into one label value.
func method(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return m
	}
	return "OTHER"
}
