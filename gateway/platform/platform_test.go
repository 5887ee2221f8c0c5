package platform

import (
	"errors"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

const secret = "0123456789abcdef0123456789abcdef"

func sign(t *testing.T, m jwt.SigningMethod, key any, c jwt.MapClaims) string {
	t.Helper()
	s, err := jwt.NewWithClaims(m, c).SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func tokenClaims(mod func(jwt.MapClaims)) jwt.MapClaims {
	now := time.Now()
	c := jwt.MapClaims{"aud": "client-1", "dest": "https://a.myshopify.com", "sub": "7", "exp": now.Add(time.Minute).Unix()}
	if mod != nil {
		mod(c)
	}
	return c
}

func TestVerify(t *testing.T) {
	v, err := NewVerifier([]Platform{
		{Name: "shopify", Secret: secret, Audience: "client-1", Account: "acct-default"},
		{Name: "mapped", Secret: secret + "x", Audience: "client-2", Shops: map[string]string{"b.example": "acct-b"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	hs := jwt.SigningMethodHS256
	good := sign(t, hs, []byte(secret), tokenClaims(nil))
	s, err := v.Verify(good)
	if err != nil || s.Account != "acct-default" || s.Shop != "a.myshopify.com" || s.Platform != "shopify" || s.Plan != "free" {
		t.Fatalf("valid token: %+v %v", s, err)
	}
	mapped := sign(t, hs, []byte(secret+"x"), tokenClaims(func(c jwt.MapClaims) { c["aud"] = "client-2"; c["dest"] = "https://b.example" }))
	if s, err := v.Verify(mapped); err != nil || s.Account != "acct-b" {
		t.Errorf("mapped shop: %+v %v", s, err)
	}
	for name, tok := range map[string]string{
		"expired":       sign(t, hs, []byte(secret), tokenClaims(func(c jwt.MapClaims) { c["exp"] = time.Now().Add(-time.Minute).Unix() })),
		"no exp":        sign(t, hs, []byte(secret), tokenClaims(func(c jwt.MapClaims) { delete(c, "exp") })),
		"not yet":       sign(t, hs, []byte(secret), tokenClaims(func(c jwt.MapClaims) { c["nbf"] = time.Now().Add(time.Hour).Unix() })),
		"wrong secret":  sign(t, hs, []byte("another secret of some length"), tokenClaims(nil)),
		"HS512":         sign(t, jwt.SigningMethodHS512, []byte(secret), tokenClaims(nil)),
		"none":          sign(t, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, tokenClaims(nil)),
		"unknown app":   sign(t, hs, []byte(secret), tokenClaims(func(c jwt.MapClaims) { c["aud"] = "client-9" })),
		"other's key":   sign(t, hs, []byte(secret), tokenClaims(func(c jwt.MapClaims) { c["aud"] = "client-2"; c["dest"] = "https://b.example" })),
		"unmapped shop": sign(t, hs, []byte(secret+"x"), tokenClaims(func(c jwt.MapClaims) { c["aud"] = "client-2"; c["dest"] = "https://c.example" })),
		"not a JWT":     "aw_live_x",
		"tampered":      good[:len(good)-2] + "xx",
	} {
		if s, err := v.Verify(tok); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: accepted (%+v)", name, s)
		}
	}
}

func TestNewVerifier(t *testing.T) {
	for _, ps := range [][]Platform{
		{{Name: "", Secret: secret, Audience: "a", Account: "x"}},
		{{Name: "p", Secret: "short", Audience: "a", Account: "x"}},
		{{Name: "p", Secret: secret, Account: "x"}},
		{{Name: "p", Secret: secret, Audience: "a"}},
		{{Name: "p", Secret: secret, Audience: "a", Account: "x"}, {Name: "q", Secret: secret, Audience: "a", Account: "y"}},
	} {
		if _, err := NewVerifier(ps); err == nil {
			t.Errorf("%+v accepted", ps)
		}
	}
	var none *Verifier
	if !none.Empty() {
		t.Error("nil verifier not empty")
	}
}
