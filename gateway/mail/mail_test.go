package mail_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/adreswijzer/adreswijzer/gateway/mail"
	"github.com/adreswijzer/adreswijzer/gateway/mail/mailtest"
)

func TestSMTP(t *testing.T) {
	srv := mailtest.Start(t)
	s, err := mail.NewSMTP(mail.SMTPConfig{Host: srv.SMTPHost, Port: srv.SMTPPort, TLS: "none",
		From: "Adreswijzer <noreply@adreswijzer.test>"})
	if err != nil {
		t.Fatal(err)
	}
	m := mail.Message{To: "winkel@example.nl", Subject: "Inloggen bij Adreswijzer",
		Text: "Open deze link: https://example.test/x", HTML: "<p>Open <a href=\"https://example.test/x\">deze link</a></p>"}
	if err := s.Send(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	got := srv.Wait(t, "winkel@example.nl", 1)
	if got.From != "noreply@adreswijzer.test" || got.Subject != m.Subject || !strings.Contains(got.Text, "https://example.test/x") ||
		!strings.Contains(got.HTML, `href="https://example.test/x"`) || len(got.To) != 1 || got.To[0] != "winkel@example.nl" {
		t.Errorf("received %+v", got)
	}
}

func TestSMTPErrors(t *testing.T) {
	for _, c := range []mail.SMTPConfig{
		{From: "a@example.nl"},
		{Host: "mail.example.nl"},
		{Host: "mail.example.nl", From: "a@example.nl", TLS: "sometimes"},
	} {
		if _, err := mail.NewSMTP(c); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
	// A server that is not there: an error that names the server, not the recipient.
	s, err := mail.NewSMTP(mail.SMTPConfig{Host: "127.0.0.1", Port: 1, TLS: "none", From: "a@example.nl"})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Send(context.Background(), mail.Message{To: "winkel@example.nl", Subject: "x", Text: "y"})
	if err == nil || strings.Contains(err.Error(), "winkel") {
		t.Errorf("send to no server: %v", err)
	}
	if err := s.Send(context.Background(), mail.Message{To: "not an address", Subject: "x", Text: "y"}); err == nil ||
		strings.Contains(err.Error(), "not an address") {
		t.Errorf("bad recipient: %v", err)
	}
}

// A recipient the server refuses: the error, which the dashboard logs, says which step failed
// and the reply's codes, never the address that the server's reply and go-mail's error quote.
func TestSMTPRefusedRecipient(t *testing.T) {
	srv := mailtest.Start(t, "--smtp-allowed-recipients", "^allowed@")
	s, err := mail.NewSMTP(mail.SMTPConfig{Host: srv.SMTPHost, Port: srv.SMTPPort, TLS: "none", From: "a@example.nl"})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Send(context.Background(), mail.Message{To: "winkel@example.nl", Subject: "x", Text: "y"})
	if err == nil || strings.Contains(err.Error(), "winkel") || !strings.Contains(err.Error(), "550") {
		t.Errorf("refused recipient: %v", err)
	}
}

func TestConsole(t *testing.T) {
	var buf bytes.Buffer
	c := &mail.Console{W: &buf}
	if err := c.Send(context.Background(), mail.Message{To: "dev@example.be", Subject: "Sign in", Text: "https://example.test/link\n"}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{"To: dev@example.be", "Subject: Sign in", "https://example.test/link", "no SMTP server"} {
		if !strings.Contains(out, want) {
			t.Errorf("console mail lacks %q:\n%s", want, out)
		}
	}
}
