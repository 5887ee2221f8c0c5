package usage

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"

	"github.com/adreswijzer/adreswijzer/gateway/internal/atomicfile"
)

// FileSink keeps usage in a JSON file, for a single gateway without a database. It holds
// the totals in memory and rewrites the file atomically on each flush (at most once a
// second), so a crash loses at most the deltas of the last second. It must not be shared by
// several gateways: each would overwrite the others' counts.
type FileSink struct {
	path string
	mu   sync.Mutex
	data usageFile
}

type usageFile struct {
	// Months maps "YYYY-MM" to account to totals.
	Months map[string]map[string]Totals `json:"months"`
}

// OpenFile loads the usage file; a missing file starts empty.
func OpenFile(path string) (*FileSink, error) {
	s := &FileSink{path: path, data: usageFile{Months: map[string]map[string]Totals{}}}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return nil, fmt.Errorf("usage file: %w", err)
	}
	if err := json.Unmarshal(b, &s.data); err != nil {
		return nil, fmt.Errorf("usage file %s: %w", path, err)
	}
	if s.data.Months == nil {
		s.data.Months = map[string]map[string]Totals{}
	}
	return s, nil
}

// Get returns the totals of an account's month.
func (s *FileSink) Get(_ context.Context, account, month string) (Totals, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.data.Months[month][account], nil
}

// Add merges deltas and writes the file. If the write fails the merge is undone, so that
// the caller can retry the same deltas.
func (s *FileSink) Add(_ context.Context, deltas []Delta) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	apply := func(sign int64) {
		for _, d := range deltas {
			m := s.data.Months[d.Month]
			if m == nil {
				m = map[string]Totals{}
				s.data.Months[d.Month] = m
			}
			t := m[d.Account]
			t.add(Totals{Verifications: sign * d.Verifications, SuggestCalls: sign * d.SuggestCalls})
			m[d.Account] = t
		}
	}
	apply(1)
	b, err := json.MarshalIndent(s.data, "", "  ")
	if err == nil {
		err = atomicfile.Write(s.path, append(b, '\n'))
	}
	if err != nil {
		apply(-1)
		return fmt.Errorf("usage file: %w", err)
	}
	return nil
}
