package e2e

import (
	"testing"

	"github.com/adreswijzer/adreswijzer/internal/e2etest"
)

// The accessibility check finds what it must: a page with an image without text and a
// field without a label is refused.
func TestAxeFindsViolations(t *testing.T) {
	ctx := e2etest.Browser(t)
	p := e2etest.Open(t, ctx, t.TempDir(), `data:text/html,<html lang="en"><title>x</title><main><img src="a.png"><input id="q"></main></html>`)
	rec := &recorder{TB: t}
	p.T = rec
	p.Accessible(e2etest.AxeJS(t, "."), "", "broken page")
	if len(rec.errors) == 0 {
		t.Error("axe found nothing wrong with an image without text and an unlabelled field")
	}
}

type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Errorf(format string, args ...any) { r.errors = append(r.errors, format) }
func (r *recorder) Helper()                           {}
