package httpapi

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"

	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/worker/match"
)

// DefaultLookupCache is the number of lookup answers a worker keeps when its operator says
// nothing else: about a kilobyte each (up to a few for a building of many units), so some
// 25 MB, enough for the addresses asked about more than once in a while (a customer who goes
// back, the form's lookup and the shop's own, several gateways each with a cache of its own).
const DefaultLookupCache = 20000

// lookupCache keeps whole lookup answers as they were sent. A lookup's answer depends on
// nothing but its parameters and the dataset the engine answers from, so the same question
// within one activation may be answered with the same bytes, without the engine, the
// carrier fields, the messages or the encoding.
//
// Only 200 answers are kept. Every lookup that reaches the engine is a 200, including the
// ones that find nothing (an empty list with an issue): those are as much a function of the
// question and the dataset as a found address, and a shop retrying a wrong postcode asks
// them again. A 422 never reaches the cache (the parameters are checked first, and cheaply)
// and a 503 or 500 is a moment's state, not an answer.
//
// What is kept is never logged and never leaves the process other than as the answer to
// the same question.
type lookupCache struct {
	engine  *match.Engine
	answers *lru.Cache[lookupKey, *keptAnswer]
	// hits and misses count the lookups that could be answered from the cache, so that an
	// operator can size it: a miss is answered by the engine and then kept.
	hits, misses prometheus.Counter
	// seen is the newest activation served from per country, to notice the next one.
	seen map[adreswijzer.Country]*atomic.Uint64
}

// lookupKey is everything of a lookup's question that can change its answer. The sessionId
// is not (the worker does not use it) and neither is the form (GET or POST, the country's
// own path or the generic one): each gives the same answer to the same parameters.
type lookupKey struct {
	country  adreswijzer.Country
	postcode string // canonical (cacheKeyPostcode)
	number   int
	street   string // as sent: typed names are matched, and the engine says how they matched
	lang     adreswijzer.Language
	carrier  adreswijzer.Carrier
}

// keptAnswer is an answer as sent: the body and the header values that vary between
// answers, ready to be shared by every request it answers (never written to in place: each
// slice's capacity is its length).
type keptAnswer struct {
	gen     uint64 // the engine's activation the answer came from (match.Engine.Serving)
	body    []byte
	length  []string // Content-Length
	version []string // X-Dataset-Version; nil when the answer names none
}

// newLookupCache returns a cache of size answers counted in reg, or nil (no cache) when
// size is 0.
func newLookupCache(engine *match.Engine, size int, reg prometheus.Registerer) *lookupCache {
	if size <= 0 {
		return nil
	}
	answers, err := lru.New[lookupKey, *keptAnswer](size)
	if err != nil {
		panic("httpapi: lookup cache: " + err.Error()) // only for a size below 1
	}
	counts := register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "adreswijzer", Subsystem: "worker", Name: "lookup_cache_requests_total",
		Help: "Lookups that could be answered from the lookup cache, by whether it held the answer (hit) or not (miss).",
	}, []string{"result"}))
	lc := &lookupCache{engine: engine, answers: answers,
		hits: counts.WithLabelValues("hit"), misses: counts.WithLabelValues("miss"),
		seen: make(map[adreswijzer.Country]*atomic.Uint64, len(adreswijzer.Countries))}
	for _, c := range adreswijzer.Countries {
		lc.seen[c] = new(atomic.Uint64)
	}
	return lc
}

// keyOf is the key of a checked question.
func keyOf(q *match.LookupQuery) lookupKey {
	return lookupKey{country: q.Country, postcode: cacheKeyPostcode(q.Country, q.Postcode), number: q.Number,
		street: q.Street, lang: q.Lang, carrier: q.Carrier}
}

// cacheKeyPostcode lets the spellings of one postcode ("1381cs", "1381 CS") share an
// answer: the engine reads a postcode only in its register form and the answer never
// echoes what was typed (TestLookupCacheSpellings holds both). Only printable ASCII is
// folded, which the engine's cleaning of the input leaves as it is; anything else, or
// text that is no postcode, is kept as sent.
func cacheKeyPostcode(c adreswijzer.Country, s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x7f {
			return s
		}
	}
	if pc, err := adreswijzer.NormalizePostcode(c, s); err == nil {
		return pc
	}
	return s
}

// serving returns the engine's activation answering c now, when answers may be kept and
// served for it: not for a country without a register or before its index is built, and
// not for a request whose context has already ended, which is answered as without a cache.
func (lc *lookupCache) serving(ctx context.Context, c adreswijzer.Country) (uint64, bool) {
	if lc == nil || ctx.Err() != nil {
		return 0, false
	}
	seen := lc.seen[c]
	if seen == nil {
		return 0, false
	}
	gen, ok := lc.engine.Serving(ctx, c)
	if ok {
		lc.forget(seen, gen)
	}
	return gen, ok
}

// forget drops every kept answer once the engine serves a country from a newer activation
// than before: the answers of the earlier one can no longer be served (get checks each
// answer's activation), and the memory they hold is given back at once rather than as they
// are evicted. Activations are daily at most, so both countries' answers going is no loss.
func (lc *lookupCache) forget(seen *atomic.Uint64, gen uint64) {
	for {
		old := seen.Load()
		if gen <= old {
			return
		}
		if seen.CompareAndSwap(old, gen) {
			if old != 0 {
				lc.answers.Purge()
			}
			return
		}
	}
}

// get returns the answer kept for k under the activation gen. An answer of an earlier
// activation is never returned; it is replaced when the question is answered again.
func (lc *lookupCache) get(k lookupKey, gen uint64) (*keptAnswer, bool) {
	a, ok := lc.answers.Get(k)
	if !ok || a.gen != gen {
		lc.misses.Inc()
		return nil, false
	}
	lc.hits.Inc()
	return a, true
}

// keep stores an answer computed under the activation gen, unless another activation took
// over while it was computed: then it is not known which of the two the answer came from.
func (lc *lookupCache) keep(ctx context.Context, k lookupKey, gen uint64, body []byte, version string) {
	if now, ok := lc.engine.Serving(ctx, k.country); !ok || now != gen {
		return
	}
	a := &keptAnswer{gen: gen, body: append([]byte(nil), body...), length: []string{strconv.Itoa(len(body))}}
	if version != "" {
		a.version = []string{version}
	}
	// The key's strings may be slices of the request's query: copied, so that a kept
	// answer holds only its own bytes.
	k.postcode, k.street = strings.Clone(k.postcode), strings.Clone(k.street)
	lc.answers.Add(k, a)
}

// write sends a kept answer with the headers writeJSON gives it.
func (a *keptAnswer) write(w http.ResponseWriter) {
	hdr := w.Header()
	jsonHeadersOf(hdr, a.length)
	if a.version != nil {
		hdr["X-Dataset-Version"] = a.version
	}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(a.body)
}
