package breaker

import (
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"
)

func TestBreaker(t *testing.T) {
	b := New("test", time.Second, slog.New(slog.NewTextHandler(io.Discard, nil)))
	t0 := time.Unix(1_800_000_000, 0)
	if !b.Use(t0) || b.Down() {
		t.Fatal("a new breaker is not closed")
	}
	if !b.Fail(t0, errors.New("refused")) || b.Fail(t0, errors.New("again")) {
		t.Error("Fail reports the transition once")
	}
	if b.Use(t0.Add(500 * time.Millisecond)) {
		t.Error("used before the retry interval")
	}
	if !b.Use(t0.Add(time.Second)) || b.Use(t0.Add(time.Second)) {
		t.Error("not exactly one probe per interval")
	}
	if !b.Succeed() || b.Succeed() || b.Down() {
		t.Error("Succeed reports the recovery once")
	}
}
