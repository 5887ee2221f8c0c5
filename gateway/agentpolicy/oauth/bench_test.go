package oauth

import (
	"context"
	"testing"

	"github.com/golang-jwt/jwt/v5"
)

func BenchmarkVerify(b *testing.B) {
	k := testKeys()
	for _, c := range []struct {
		name   string
		method jwt.SigningMethod
		kid    string
		key    any
	}{
		{"RS256", jwt.SigningMethodRS256, "rsa-1", k.rsa1},
		{"ES256", jwt.SigningMethodES256, "ec-1", k.ec},
	} {
		b.Run(c.name, func(b *testing.B) {
			v, a := setup(b, Config{})
			tok := sign(b, c.method, c.kid, c.key, claimsFor(a))
			for b.Loop() {
				if _, err := v.Verify(context.Background(), tok); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
