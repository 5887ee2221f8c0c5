package usage

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"time"

	"github.com/adreswijzer/adreswijzer/gateway/internal/atomicfile"
)

// FileSink keeps usage in a JSON file, for a single gateway without a database. It holds
// the totals and the activity in memory and rewrites the file atomically on each flush (at
// most once a second), so a crash loses at most the last second. It must not be shared by
// several gateways: each would overwrite the others' counts.
type FileSink struct {
	path string
	mu   sync.Mutex
	data usageFile
}

// usageFile is the file's layout. Activity and LastUsed came later: a file without them
// reads as one without activity.
type usageFile struct {
	// Months maps "YYYY-MM" to account to totals.
	Months map[string]map[string]Totals `json:"months"`
	// Activity maps account to UTC day ("YYYY-MM-DD") to that day's rows.
	Activity map[string]map[string][]fileRow `json:"activity,omitempty"`
	// LastUsed maps account to credential id to its last answered call.
	LastUsed map[string]map[string]time.Time `json:"lastUsed,omitempty"`
}

// OpenFile loads the usage file; a missing file starts empty.
func OpenFile(path string) (*FileSink, error) {
	s := &FileSink{path: path}
	b, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("usage file: %w", err)
	}
	if err == nil {
		if err := json.Unmarshal(b, &s.data); err != nil {
			return nil, fmt.Errorf("usage file %s: %w", path, err)
		}
	}
	if s.data.Months == nil {
		s.data.Months = map[string]map[string]Totals{}
	}
	if s.data.Activity == nil {
		s.data.Activity = map[string]map[string][]fileRow{}
	}
	if s.data.LastUsed == nil {
		s.data.LastUsed = map[string]map[string]time.Time{}
	}
	return s, nil
}

// Get returns the totals of an account's month.
func (s *FileSink) Get(_ context.Context, account, month string) (Totals, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.data.Months[month][account], nil
}

// Add merges a batch and writes the file. If the write fails the merge is undone, so that
// the caller can retry the same batch.
func (s *FileSink) Add(_ context.Context, b Batch) error {
	if err := checkDays(b.Activity); err != nil {
		return fmt.Errorf("usage file: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var undo undoLog
	s.addDeltas(b.Deltas, &undo)
	s.addActivity(b.Activity, &undo)
	if err := s.write(); err != nil {
		undo.run()
		return fmt.Errorf("usage file: %w", err)
	}
	return nil
}

// addDeltas adds deltas to the months' totals.
func (s *FileSink) addDeltas(deltas []Delta, undo *undoLog) {
	for _, d := range deltas {
		m := inner(s.data.Months, d.Month, undo)
		keep(undo, m, d.Account)
		t := m[d.Account]
		t.add(d.Totals)
		m[d.Account] = t
	}
}

// inner returns outer[k], made (and its making noted in undo) when missing.
func inner[V any](outer map[string]map[string]V, k string, undo *undoLog) map[string]V {
	m := outer[k]
	if m == nil {
		keep(undo, outer, k)
		m = map[string]V{}
		outer[k] = m
	}
	return m
}

// write rewrites the file with what is in memory.
func (s *FileSink) write() error {
	b, err := json.MarshalIndent(s.data, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(s.path, append(b, '\n'))
}

// undoLog restores what a merge changed, in reverse order, when the file could not be
// written: some changes (the later of two times) cannot be subtracted.
type undoLog []func()

// keep notes m[k] as it is, to be restored.
func keep[V any](u *undoLog, m map[string]V, k string) {
	old, had := m[k]
	*u = append(*u, func() {
		if had {
			m[k] = old
		} else {
			delete(m, k)
		}
	})
}

func (u undoLog) run() {
	for i := len(u) - 1; i >= 0; i-- {
		u[i]()
	}
}
