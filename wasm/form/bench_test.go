package form_test

import (
	"crypto/rand"
	"testing"

	"github.com/adreswijzer/adreswijzer/wasm/form"
)

// BenchmarkKeystroke is one typed character natively; package wasm measures the same through
// WebAssembly.
func BenchmarkKeystroke(b *testing.B) {
	m := form.New(form.Config{Country: "NL", Lang: "nl"}, rand.Reader)
	evs := [][]byte{[]byte(`{"type":"input","field":"postcode","text":"1381","now":1}`), []byte(`{"type":"input","field":"postcode","text":"138","now":2}`)}
	for i := 0; b.Loop(); i++ {
		m.HandleJSON(evs[i%2])
	}
}
