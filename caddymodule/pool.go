package caddymodule

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/adreswijzer/adreswijzer/gateway/answercache"
	"github.com/adreswijzer/adreswijzer/gateway/backend"
	"github.com/adreswijzer/adreswijzer/gateway/versions"
)

// pool keeps what must survive configuration reloads: connections, the usage meter with
// its unflushed counts, the rate limiter's state, the answer cache and the version
// poller. The expirable LRUs start goroutines that cannot be stopped, so they must not be
// made again on every reload. Entries are keyed by what identifies them; the last
// configuration to release one closes it.
var pool = caddy.NewUsagePool()

type pooledBackend struct{ *backend.Backend }

func (p pooledBackend) Destruct() error { return p.Backend.Close() }

func loadBackend(cfg backend.Config) (*backend.Backend, string, error) {
	key := "backend|" + cfg.Identity()
	v, _, err := pool.LoadOrNew(key, func() (caddy.Destructor, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		b, err := backend.Open(ctx, cfg)
		if err != nil {
			return nil, err
		}
		return pooledBackend{b}, nil
	})
	if err != nil {
		return nil, "", err
	}
	return v.(pooledBackend).Backend, key, nil
}

type answers struct {
	cache    *answercache.Cache
	versions *versions.Tracker
	poller   *versions.Poller
}

func (a *answers) Destruct() error {
	if a.poller != nil {
		a.poller.Stop()
	}
	return nil
}

func loadAnswers(size int, ttl time.Duration, workers []string, interval time.Duration, log *slog.Logger) (*answers, string, error) {
	urls := make([]string, 0, len(workers))
	for _, w := range workers {
		u, err := versions.HealthURL(w)
		if err != nil {
			return nil, "", err
		}
		urls = append(urls, u)
	}
	key := fmt.Sprintf("answers|%d|%s|%s|%s", size, ttl, interval, strings.Join(urls, ","))
	v, _, err := pool.LoadOrNew(key, func() (caddy.Destructor, error) {
		a := &answers{cache: answercache.New(size, ttl), versions: versions.NewTracker()}
		if len(urls) > 0 {
			a.poller = versions.StartPoller(a.versions, urls, interval, log)
		}
		return a, nil
	})
	if err != nil {
		return nil, "", err
	}
	return v.(*answers), key, nil
}
