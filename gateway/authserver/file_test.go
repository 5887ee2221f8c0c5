package authserver_test

import (
	"path/filepath"
	"testing"

	"github.com/adreswijzer/adreswijzer/gateway/authserver"
	"github.com/adreswijzer/adreswijzer/gateway/authserver/authservertest"
)

func TestFileStore(t *testing.T) {
	authservertest.Run(t, func(t *testing.T) authserver.Store {
		s, err := authserver.OpenFile(filepath.Join(t.TempDir(), "oauth.json"))
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}
