// Package logsink is where the services under test write their logs for the test to read
// back: that no address or credential reached a line, that an outage was logged once. The
// services log from several goroutines (handlers, background flushes) while the test reads.
package logsink

import (
	"bytes"
	"sync"
)

// Buffer collects what is written to it; writers and readers may run at once.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns what was written so far.
func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
