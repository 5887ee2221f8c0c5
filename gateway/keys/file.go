package keys

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/adreswijzer/adreswijzer/gateway/internal/atomicfile"
)

// FileStore keeps keys in a JSON file: the embedded default for one gateway without a
// database. The running gateway only reads the file; `gateway keys` writes it. So that a key
// created or revoked from the command line takes effect without a restart, the gateway looks
// at the file's modification time at most once a second and reloads it when it changed.
type FileStore struct {
	path string

	mu     sync.RWMutex
	byHash map[Hash]*Key
	keys   []*Key
	stamp  fileStamp
	// due is set a reloadEvery after a lookup last looked at the file, by a timer: the
	// lookups in between read one atomic instead of the clock (which costs as much as the
	// rest of a lookup) and a lock.
	due atomic.Bool
}

type fileStamp struct {
	mod  time.Time
	size int64
}

type keyFile struct {
	Keys []*Key `json:"keys"`
}

// reloadEvery bounds how often a lookup looks at the file.
const reloadEvery = time.Second

// OpenFile loads the key file; a missing file is an empty store, created on the first write.
func OpenFile(path string) (*FileStore, error) {
	s := &FileStore{path: path}
	s.due.Store(true) // the first lookup looks
	if err := s.reload(); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *FileStore) reload() error {
	st, err := os.Stat(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		s.set(nil, fileStamp{})
		return nil
	}
	if err != nil {
		return fmt.Errorf("key file: %w", err)
	}
	stamp := fileStamp{st.ModTime(), st.Size()}
	s.mu.RLock()
	same := s.stamp == stamp && s.byHash != nil
	s.mu.RUnlock()
	if same {
		return nil
	}
	list, err := readKeyFile(s.path)
	if err != nil {
		return err
	}
	s.set(list, stamp)
	return nil
}

func readKeyFile(path string) ([]*Key, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("key file: %w", err)
	}
	var f keyFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("key file %s: %w", path, err)
	}
	return f.Keys, nil
}

func (s *FileStore) set(list []*Key, stamp fileStamp) {
	m := make(map[Hash]*Key, len(list))
	for _, k := range list {
		m[k.Hash] = k
	}
	s.mu.Lock()
	s.keys, s.byHash, s.stamp = list, m, stamp
	s.mu.Unlock()
}

func (s *FileStore) maybeReload() error {
	if !s.due.Load() || !s.due.CompareAndSwap(true, false) {
		return nil // not yet, or another lookup is looking
	}
	time.AfterFunc(reloadEvery, func() { s.due.Store(true) })
	return s.reload()
}

// Lookup finds a key by hash.
func (s *FileStore) Lookup(_ context.Context, h Hash) (*Key, error) {
	if err := s.maybeReload(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	k, ok := s.byHash[h]
	s.mu.RUnlock()
	if !ok || !k.Hash.Equal(h) {
		return nil, ErrNotFound
	}
	return k, nil
}

// List returns all keys, oldest first.
func (s *FileStore) List(context.Context) ([]*Key, error) {
	if err := s.reload(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	out := append([]*Key(nil), s.keys...)
	s.mu.RUnlock()
	sort.SliceStable(out, func(i, j int) bool { return out[i].Created.Before(out[j].Created) })
	return out, nil
}

// ListAccount returns one account's keys, oldest first.
func (s *FileStore) ListAccount(ctx context.Context, account string) ([]*Key, error) {
	all, err := s.List(ctx)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(all, func(k *Key) bool { return k.Account != account }), nil
}

// SetPlan gives an account's keys its plan.
func (s *FileStore) SetPlan(_ context.Context, account, plan string) error {
	return s.update(func(list []*Key) ([]*Key, error) {
		for _, k := range list {
			if k.Account == account {
				k.Plan = plan
			}
		}
		return list, nil
	})
}

// Create adds a key.
func (s *FileStore) Create(_ context.Context, k *Key) error {
	return s.update(func(list []*Key) ([]*Key, error) {
		for _, o := range list {
			if o.ID == k.ID || o.Hash == k.Hash {
				return nil, fmt.Errorf("key %s exists", k.ID)
			}
		}
		return append(list, k), nil
	})
}

// Revoke marks a key revoked.
func (s *FileStore) Revoke(_ context.Context, id string, at time.Time) error {
	return s.update(func(list []*Key) ([]*Key, error) {
		for _, o := range list {
			if o.ID == id {
				if o.Revoked == nil {
					t := at.UTC().Truncate(time.Second)
					o.Revoked = &t
				}
				return list, nil
			}
		}
		return nil, ErrNotFound
	})
}

// update reads the file afresh under a lock file, so that two commands run at once cannot
// lose each other's keys, and replaces it atomically.
func (s *FileStore) update(change func([]*Key) ([]*Key, error)) error {
	unlock, err := atomicfile.Lock(s.path)
	if err != nil {
		return err
	}
	defer unlock()
	list, err := readKeyFile(s.path)
	if err != nil {
		return err
	}
	list, err = change(list)
	if err != nil {
		return err
	}
	b, err := json.MarshalIndent(keyFile{Keys: list}, "", "  ")
	if err != nil {
		return fmt.Errorf("key file: %w", err)
	}
	if err := atomicfile.Write(s.path, append(b, '\n')); err != nil {
		return err
	}
	s.mu.Lock()
	s.stamp = fileStamp{} // force the next reload
	s.mu.Unlock()
	return s.reload()
}
