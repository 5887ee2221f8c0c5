package accounts_test

import (
	"path/filepath"
	"testing"

	"github.com/adreswijzer/adreswijzer/gateway/accounts"
	"github.com/adreswijzer/adreswijzer/gateway/accounts/accountstest"
)

func TestFileStore(t *testing.T) {
	accountstest.Run(t, func(t *testing.T) accounts.Store {
		s, err := accounts.OpenFile(filepath.Join(t.TempDir(), "accounts.json"))
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}
