// Package mail sends the gateway's few mails (sign-in links) by SMTP, or, on a developer's
// machine without a mail server, writes them to the terminal, as web frameworks do in
// development. The text of a mail is its sender's business; this package only carries it.
package mail

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	gomail "github.com/wneessen/go-mail"
)

// Message is one mail: a plain text body and an HTML alternative.
type Message struct {
	To      string
	Subject string
	Text    string
	HTML    string
}

// Sender sends a message, or says why it could not. Errors never quote the recipient or
// the body: they may reach a log.
type Sender interface {
	Send(ctx context.Context, m Message) error
}

// SMTPConfig names a mail server and how to talk to it.
type SMTPConfig struct {
	Host     string
	Port     int    // default 587 (submission), 465 with TLS "implicit"
	Username string // empty: no authentication
	Password string
	// TLS is "starttls" (default: required), "implicit" (TLS from the first byte, port 465),
	// "opportunistic" (STARTTLS when offered) or "none" (a relay on the same machine, tests).
	TLS string
	// From is the sender's address, e.g. "Adreswijzer <noreply@adreswijzer.nl>".
	From string
	// Timeout bounds one delivery; default 10s.
	Timeout time.Duration
}

// SMTP delivers through a mail server, one connection per message: sign-in mails are rare.
type SMTP struct {
	cfg  SMTPConfig
	opts []gomail.Option
}

// NewSMTP checks the configuration.
func NewSMTP(cfg SMTPConfig) (*SMTP, error) {
	if cfg.Host == "" || cfg.From == "" {
		return nil, errors.New("mail: smtp needs a host and a from address")
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 10 * time.Second
	}
	opts := []gomail.Option{gomail.WithTimeout(cfg.Timeout)}
	port := cfg.Port
	switch cfg.TLS {
	case "", "starttls":
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSMandatory))
		port = defaultPort(port, 587)
	case "implicit":
		opts = append(opts, gomail.WithSSL())
		port = defaultPort(port, 465)
	case "opportunistic":
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSOpportunistic))
		port = defaultPort(port, 587)
	case "none":
		opts = append(opts, gomail.WithTLSPolicy(gomail.NoTLS))
		port = defaultPort(port, 25)
	default:
		return nil, fmt.Errorf("mail: tls must be starttls, implicit, opportunistic or none, not %q", cfg.TLS)
	}
	opts = append(opts, gomail.WithPort(port))
	if cfg.Username != "" {
		opts = append(opts, gomail.WithSMTPAuth(gomail.SMTPAuthAutoDiscover),
			gomail.WithUsername(cfg.Username), gomail.WithPassword(cfg.Password))
	}
	if _, err := gomail.NewClient(cfg.Host, opts...); err != nil {
		return nil, fmt.Errorf("mail: %w", err)
	}
	return &SMTP{cfg: cfg, opts: opts}, nil
}

func defaultPort(p, def int) int {
	if p > 0 {
		return p
	}
	return def
}

// Send delivers m.
func (s *SMTP) Send(ctx context.Context, m Message) error {
	msg, err := build(s.cfg.From, m)
	if err != nil {
		return err
	}
	c, err := gomail.NewClient(s.cfg.Host, s.opts...)
	if err != nil {
		return fmt.Errorf("mail: %w", err)
	}
	if err := c.DialAndSendWithContext(ctx, msg); err != nil {
		return fmt.Errorf("mail via %s: %w", s.cfg.Host, withoutRecipient(err))
	}
	return nil
}

// withoutRecipient keeps of a failed delivery what a log may hold: go-mail's SendError lists
// the affected recipients, and a server's reply to RCPT TO commonly quotes the address, so
// only the step that failed and the reply's codes are kept. Other errors (dialling, TLS)
// name the server only.
func withoutRecipient(err error) error {
	var se *gomail.SendError
	if !errors.As(err, &se) {
		return err
	}
	return fmt.Errorf("%s (SMTP %d %s, temporary: %t)", se.Reason, se.ErrorCode(), se.EnhancedStatusCode(), se.IsTemp())
}

// build makes the MIME message: text first, HTML as the alternative mail clients prefer.
func build(from string, m Message) (*gomail.Msg, error) {
	msg := gomail.NewMsg()
	if err := msg.From(from); err != nil {
		return nil, errors.New("mail: the from address is not valid")
	}
	if err := msg.To(m.To); err != nil {
		return nil, errors.New("mail: the recipient's address is not valid")
	}
	msg.Subject(m.Subject)
	msg.SetDate()
	msg.SetMessageID()
	msg.SetBodyString(gomail.TypeTextPlain, m.Text)
	if m.HTML != "" {
		msg.AddAlternativeString(gomail.TypeTextHTML, m.HTML)
	}
	return msg, nil
}

// Console writes each message's text to W instead of sending it: the embedded default's
// sender when no mail server is configured, so that a developer signs in from the
// terminal that runs the gateway. It is never used when SMTP is configured.
type Console struct {
	W  io.Writer
	mu sync.Mutex
}

// Send writes m.
func (c *Console) Send(_ context.Context, m Message) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	rule := strings.Repeat("─", 72)
	_, err := fmt.Fprintf(c.W, "\n%s\nMail (not sent: no SMTP server is configured)\nTo: %s\nSubject: %s\n\n%s\n%s\n",
		rule, m.To, m.Subject, strings.TrimSpace(m.Text), rule)
	if err != nil {
		return fmt.Errorf("mail to the console: %w", err)
	}
	return nil
}
