package accounts

import (
	"errors"
	"testing"
	"time"
)

func TestNormaliseEmail(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Winkel@Example.NL", "winkel@example.nl"},
		{"  dev@example.be\t", "dev@example.be"},
		{"a.b+shop@sub.example.nl", "a.b+shop@sub.example.nl"},
		{"", ""},
		{"winkel", ""},
		{"winkel@localhost", ""},
		{"winkel@example.", ""},
		{"Jan <jan@example.nl>", ""},
		{"jan@example.nl, piet@example.nl", ""},
		{"jan@exa mple.nl", ""},
		{"jan@example.nl\r\nBcc: x@example.nl", ""},
		{"@example.nl", ""},
	} {
		got, err := NormaliseEmail(c.in)
		if got != c.want || (c.want == "") != errors.Is(err, ErrBadEmail) {
			t.Errorf("NormaliseEmail(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	long := make([]byte, maxEmail)
	for i := range long {
		long[i] = 'a'
	}
	copy(long[len(long)-11:], "@example.nl")
	if _, err := NormaliseEmail(string(long) + "x"); err == nil {
		t.Error("address over the length limit accepted")
	}
}

func TestNewLink(t *testing.T) {
	now := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
	token, l, err := NewLink("winkel@example.nl", now)
	if err != nil {
		t.Fatal(err)
	}
	other, _, _ := NewLink("winkel@example.nl", now)
	if len(token) != 43 || token == other || !l.Hash.Equal(HashToken(token)) || l.Hash.Equal(HashToken(other)) ||
		!l.Expires.Equal(now.Add(15*time.Minute)) || l.Email != "winkel@example.nl" {
		t.Errorf("link %q %+v", token, l)
	}
	b, _ := l.Hash.MarshalText()
	var h Hash
	if err := h.UnmarshalText(b); err != nil || h != l.Hash {
		t.Errorf("hash round trip: %v", err)
	}
	if err := h.UnmarshalText([]byte("abc")); err == nil {
		t.Error("short hash accepted")
	}
}
