package accounts

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"sort"
	"time"

	"github.com/adreswijzer/adreswijzer/gateway/internal/atomicfile"
)

// FileStore keeps accounts in a JSON file beside the key file: the embedded default for
// one gateway without a database. Every call reads the file afresh, so that `gateway
// accounts` run beside a serving gateway is seen at once; the file is small (one entry per
// account) and only the dashboard reads it, never the request path of the API.
type FileStore struct {
	path string
}

type accountFile struct {
	Accounts   []*Account `json:"accounts"`
	Identities []Identity `json:"identities"`
	Links      []Link     `json:"links"`
}

// OpenFile opens the account file; a missing file is an empty store, created on the first
// write.
func OpenFile(path string) (*FileStore, error) {
	s := &FileStore{path: path}
	if _, err := s.read(); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *FileStore) read() (*accountFile, error) {
	b, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return &accountFile{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("account file: %w", err)
	}
	var f accountFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("account file %s: %w", s.path, err)
	}
	return &f, nil
}

// update reads the file under a lock file, changes it and replaces it atomically, so that
// the dashboard and a command run at once cannot lose each other's changes.
func (s *FileStore) update(change func(*accountFile) error) error {
	unlock, err := atomicfile.Lock(s.path)
	if err != nil {
		return err
	}
	defer unlock()
	f, err := s.read()
	if err != nil {
		return err
	}
	if err := change(f); err != nil {
		return err
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("account file: %w", err)
	}
	return atomicfile.Write(s.path, append(b, '\n'))
}

// find returns the first account that match accepts, or ErrNotFound.
func (s *FileStore) find(match func(*Account) bool) (*Account, error) {
	f, err := s.read()
	if err != nil {
		return nil, err
	}
	for _, a := range f.Accounts {
		if match(a) {
			return a, nil
		}
	}
	return nil, ErrNotFound
}

// change applies fn to the account with id, or returns ErrNotFound.
func (s *FileStore) change(id string, fn func(*Account)) error {
	return s.update(func(f *accountFile) error {
		for _, a := range f.Accounts {
			if a.ID == id {
				fn(a)
				return nil
			}
		}
		return ErrNotFound
	})
}

// Get finds an account by id.
func (s *FileStore) Get(_ context.Context, id string) (*Account, error) {
	return s.find(func(a *Account) bool { return a.ID == id })
}

// ByEmail finds an account by address.
func (s *FileStore) ByEmail(_ context.Context, email string) (*Account, error) {
	return s.find(func(a *Account) bool { return a.Email == email })
}

// ByIdentity finds the account an identity signs in to.
func (s *FileStore) ByIdentity(_ context.Context, provider, subject string) (*Account, error) {
	f, err := s.read()
	if err != nil {
		return nil, err
	}
	for _, id := range f.Identities {
		if id.Provider == provider && id.Subject == subject {
			return s.find(func(a *Account) bool { return a.ID == id.Account })
		}
	}
	return nil, ErrNotFound
}

// List returns every account, oldest first.
func (s *FileStore) List(context.Context) ([]*Account, error) {
	f, err := s.read()
	if err != nil {
		return nil, err
	}
	sort.SliceStable(f.Accounts, func(i, j int) bool { return f.Accounts[i].Created.Before(f.Accounts[j].Created) })
	return f.Accounts, nil
}

// Create adds an account.
func (s *FileStore) Create(_ context.Context, a *Account) error {
	return s.update(func(f *accountFile) error {
		for _, o := range f.Accounts {
			if o.Email == a.Email || o.ID == a.ID {
				return ErrExists
			}
		}
		c := *a
		f.Accounts = append(f.Accounts, &c)
		return nil
	})
}

// AddIdentity links an identity.
func (s *FileStore) AddIdentity(_ context.Context, id Identity) error {
	return s.update(func(f *accountFile) error {
		if !slices.ContainsFunc(f.Accounts, func(a *Account) bool { return a.ID == id.Account }) {
			return ErrNotFound
		}
		for _, o := range f.Identities {
			if o.Provider == id.Provider && o.Subject == id.Subject {
				return ErrExists
			}
		}
		id.Created = id.Created.UTC().Truncate(time.Second)
		f.Identities = append(f.Identities, id)
		return nil
	})
}

// SetPlan changes an account's plan.
func (s *FileStore) SetPlan(_ context.Context, id, plan string) error {
	return s.change(id, func(a *Account) { a.Plan = plan })
}

// SetLanguage changes an account's language.
func (s *FileStore) SetLanguage(_ context.Context, id, lang string) error {
	return s.change(id, func(a *Account) { a.Language = lang })
}

// SignOut voids the account's sessions begun before at.
func (s *FileStore) SignOut(_ context.Context, id string, at time.Time) error {
	return s.change(id, func(a *Account) { a.SignedOut = at.UTC() })
}

// Delete removes an account and its identities.
func (s *FileStore) Delete(_ context.Context, id string) error {
	return s.update(func(f *accountFile) error {
		n := len(f.Accounts)
		f.Accounts = slices.DeleteFunc(f.Accounts, func(a *Account) bool { return a.ID == id })
		if len(f.Accounts) == n {
			return ErrNotFound
		}
		f.Identities = slices.DeleteFunc(f.Identities, func(i Identity) bool { return i.Account == id })
		return nil
	})
}

// AddLink stores a link and drops the expired ones.
func (s *FileStore) AddLink(_ context.Context, l Link) error {
	return s.update(func(f *accountFile) error {
		now := time.Now()
		f.Links = slices.DeleteFunc(f.Links, func(o Link) bool { return !o.Expires.After(now) })
		f.Links = append(f.Links, l)
		return nil
	})
}

// UseLink spends a link: it is removed, so that a second use finds nothing.
func (s *FileStore) UseLink(_ context.Context, h Hash, now time.Time) (string, error) {
	var email string
	err := s.update(func(f *accountFile) error {
		i := slices.IndexFunc(f.Links, func(l Link) bool { return l.Hash.Equal(h) })
		if i < 0 {
			return ErrLinkInvalid
		}
		l := f.Links[i]
		f.Links = slices.Delete(f.Links, i, i+1)
		if !l.Expires.After(now) {
			return nil // spent all the same; the answer below says invalid
		}
		email = l.Email
		return nil
	})
	if err == nil && email == "" {
		err = ErrLinkInvalid
	}
	return email, err
}
