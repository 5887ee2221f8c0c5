package backend

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/adreswijzer/adreswijzer/gateway/gatewaytest"
	"github.com/adreswijzer/adreswijzer/gateway/keys"
	"github.com/adreswijzer/adreswijzer/gateway/limit"
	"github.com/adreswijzer/adreswijzer/gateway/usage"
)

func TestOpenFiles(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{KeyFile: filepath.Join(dir, "k.json"), UsageFile: filepath.Join(dir, "u.json")}
	b, err := Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := b.Keys.(*keys.FileStore); !ok {
		t.Errorf("keys in %T", b.Keys)
	}
	if _, ok := b.Limiter.(*limit.Local); !ok || b.Redis != nil {
		t.Errorf("limiter %T", b.Limiter)
	}
	if _, err := b.Meter.Charge(context.Background(), usage.Charge{Account: "a", Quota: 1, Call: usage.Lookup}); err != nil {
		t.Fatal(err)
	}
	b.Meter.Record("a", "key_1", "lookup", 1)
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	checkUsage(t, b.Usage)
	sink, _ := usage.OpenFile(cfg.UsageFile)
	if got, _ := sink.Get(context.Background(), "a", usage.Month(time.Now())); got.Verifications != 1 {
		t.Error("Close did not flush usage")
	}
	if cfg.Identity() == (Config{KeyFile: "other"}).Identity() || cfg.Identity() != (Config{KeyFile: cfg.KeyFile, UsageFile: cfg.UsageFile, SessionIdle: time.Hour}).Identity() {
		t.Error("identity must name the places state lives, and only those")
	}
}

func TestOpenServices(t *testing.T) {
	db := gatewaytest.Postgres(t)
	_, prefix := gatewaytest.Redis(t)
	b, err := Open(context.Background(), Config{DatabaseURL: db, RedisURL: "redis://" + gatewaytest.RedisAddr(), RedisPrefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if _, ok := b.Keys.(*keys.Cache); !ok {
		t.Errorf("keys in %T", b.Keys)
	}
	if _, ok := b.Limiter.(*limit.Shared); !ok || b.Redis == nil {
		t.Errorf("limiter %T", b.Limiter)
	}
	b.Tune(Config{SessionIdle: time.Minute, RedisTimeout: 80 * time.Millisecond, StoreTimeout: 100 * time.Millisecond})
	b.Meter.Record("a", "key_1", "lookup", 1)
	if err := b.Meter.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	checkUsage(t, b.Usage)
	// A Redis that does not answer is no reason to fail; a bad URL is.
	if _, err := Open(context.Background(), Config{KeyFile: filepath.Join(t.TempDir(), "k"), UsageFile: filepath.Join(t.TempDir(), "u"),
		RedisURL: "redis://127.0.0.1:1"}); err != nil {
		t.Errorf("unreachable Redis: %v", err)
	}
	if _, err := Open(context.Background(), Config{KeyFile: filepath.Join(t.TempDir(), "k"), RedisURL: "mysql://x"}); err == nil {
		t.Error("bad Redis URL accepted")
	}
}

// checkUsage reads back the one call recorded today through the backend's reader.
func checkUsage(t *testing.T, r usage.Reader) {
	t.Helper()
	day := usage.Day(time.Now())
	rows, err := r.Activity(context.Background(), "a", day, day)
	if err != nil || len(rows) != 1 || rows[0].Key != "key_1" || rows[0].Calls != 1 {
		t.Errorf("activity read through the backend: %+v (%v)", rows, err)
	}
}
