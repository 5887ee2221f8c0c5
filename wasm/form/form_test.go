//go:build !wasip1

package form_test

import (
	"crypto/rand"
	"testing"

	"github.com/adreswijzer/adreswijzer/wasm/form"
	"github.com/adreswijzer/adreswijzer/wasm/form/formtest"
)

// native runs the core as compiled for the test binary; package wasm runs the same
// journeys on the WebAssembly build.
type native struct{ m *form.Machine }

func (n native) Event(_ testing.TB, ev []byte) []byte { return n.m.HandleJSON(ev) }

func newNative(_ testing.TB, cfg []byte) formtest.Core {
	return native{form.New(form.ConfigJSON(cfg), rand.Reader)}
}

func TestJourneys(t *testing.T) { formtest.Run(t, newNative) }
