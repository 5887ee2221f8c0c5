// Package mailtest starts a real SMTP server for tests, Mailpit (pinned as a tool in
// go.mod), and reads what it received through Mailpit's HTTP API, so that mail is tested
// as it travels and not through a stand-in.
package mailtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adreswijzer/adreswijzer/gateway/gatewaytest"
)

// Server is a Mailpit of the test's own.
type Server struct {
	// SMTPHost and SMTPPort receive mail (no TLS, any credentials accepted).
	SMTPHost string
	SMTPPort int
	api      string
}

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// binary builds the tool once per test process; the go command caches it across runs.
func binary() (string, error) {
	binOnce.Do(func() {
		out, err := exec.Command("go", "tool", "-n", "mailpit").Output()
		if err != nil {
			binErr = fmt.Errorf("build mailpit: %w", err)
			return
		}
		binPath = strings.TrimSpace(string(out))
	})
	return binPath, binErr
}

// Start runs Mailpit on free ports until the test ends; flags are more of Mailpit's options
// (e.g. --smtp-allowed-recipients, for a server that refuses some).
func Start(t testing.TB, flags ...string) *Server {
	t.Helper()
	bin, err := binary()
	if err != nil {
		t.Fatal(err)
	}
	smtpPort, httpPort := gatewaytest.FreePort(t), gatewaytest.FreePort(t)
	cmd := exec.Command(bin, append([]string{
		"--smtp", "127.0.0.1:" + strconv.Itoa(smtpPort), "--listen", "127.0.0.1:" + strconv.Itoa(httpPort),
		"--database", filepath.Join(t.TempDir(), "mailpit.db"), "--smtp-auth-accept-any",
		"--smtp-auth-allow-insecure", "--smtp-disable-rdns", "--quiet"}, flags...)...)
	if err := cmd.Start(); err != nil {
		t.Fatalf("start mailpit: %v", err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	s := &Server{SMTPHost: "127.0.0.1", SMTPPort: smtpPort, api: "http://127.0.0.1:" + strconv.Itoa(httpPort)}
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := http.Get(s.api + "/api/v1/info")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("mailpit did not start: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Message is what Mailpit received.
type Message struct {
	ID      string
	From    string
	To      []string
	Subject string
	Text    string
	HTML    string
}

// Messages lists what the server received for an address, newest first.
func (s *Server) Messages(ctx context.Context, to string) ([]Message, error) {
	var list struct {
		Messages []struct {
			ID string `json:"ID"`
		} `json:"messages"`
	}
	q := "to:" + strconv.Quote(to)
	if err := s.get(ctx, "/api/v1/search?query="+url.QueryEscape(q), &list); err != nil {
		return nil, err
	}
	out := make([]Message, 0, len(list.Messages))
	for _, m := range list.Messages {
		var full struct {
			ID   string `json:"ID"`
			From struct {
				Address string `json:"Address"`
			} `json:"From"`
			To []struct {
				Address string `json:"Address"`
			} `json:"To"`
			Subject string `json:"Subject"`
			Text    string `json:"Text"`
			HTML    string `json:"HTML"`
		}
		if err := s.get(ctx, "/api/v1/message/"+m.ID, &full); err != nil {
			return nil, err
		}
		msg := Message{ID: full.ID, From: full.From.Address, Subject: full.Subject, Text: full.Text, HTML: full.HTML}
		for _, a := range full.To {
			msg.To = append(msg.To, a.Address)
		}
		out = append(out, msg)
	}
	return out, nil
}

// Wait returns the newest message to an address once there are at least n.
func (s *Server) Wait(t testing.TB, to string, n int) Message {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		list, err := s.Messages(ctx, to)
		if err == nil && len(list) >= n {
			return list[0]
		}
		if ctx.Err() != nil {
			t.Fatalf("waited for mail %d: have %d (%v)", n, len(list), err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (s *Server) get(ctx context.Context, path string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.api+path, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("mailpit %s: %s", path, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}
