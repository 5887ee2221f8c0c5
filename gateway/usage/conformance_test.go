package usage_test

import (
	"path/filepath"
	"testing"

	"github.com/adreswijzer/adreswijzer/gateway/usage"
	"github.com/adreswijzer/adreswijzer/gateway/usage/usagetest"
)

func TestFileSinkConformance(t *testing.T) {
	usagetest.Run(t, func(t *testing.T) usage.Store {
		s, err := usage.OpenFile(filepath.Join(t.TempDir(), "usage.json"))
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}
