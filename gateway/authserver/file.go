package authserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"time"

	"github.com/adreswijzer/adreswijzer/gateway/internal/atomicfile"
)

// FileStore keeps the authorization server's state in a JSON file beside the account file:
// the embedded default, for one gateway without a database. Every call reads the file
// afresh under the writers' lock, so that a restart loses nothing; agents sign in now and
// then, and the gateway's grant checks are cached, so the file is seldom read.
type FileStore struct {
	path string
}

type oauthFile struct {
	Clients  []*Client `json:"clients"`
	Requests []Request `json:"requests"`
	Codes    []Code    `json:"codes"`
	Grants   []*Grant  `json:"grants"`
	Refresh  []Refresh `json:"refresh"`
	Keys     []Key     `json:"keys"`
}

// OpenFile opens the file; a missing file is an empty store, created on the first write.
func OpenFile(path string) (*FileStore, error) {
	s := &FileStore{path: path}
	if _, err := s.read(); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *FileStore) read() (*oauthFile, error) {
	b, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return &oauthFile{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("oauth file: %w", err)
	}
	var f oauthFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("oauth file %s: %w", s.path, err)
	}
	return &f, nil
}

// view reads the file for a lookup.
func (s *FileStore) view(fn func(*oauthFile) error) error {
	f, err := s.read()
	if err != nil {
		return err
	}
	return fn(f)
}

// update changes the file under the lock and replaces it atomically (mode 0600: it holds
// the private signing keys). Expired requests, codes and refresh tokens are dropped on
// the way.
func (s *FileStore) update(change func(*oauthFile) error) error {
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
	f.sweep(time.Now())
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("oauth file: %w", err)
	}
	return atomicfile.Write(s.path, append(b, '\n'))
}

// sweep drops what has expired.
func (f *oauthFile) sweep(now time.Time) {
	f.Requests = slices.DeleteFunc(f.Requests, func(r Request) bool { return !r.Expires.After(now) })
	f.Codes = slices.DeleteFunc(f.Codes, func(c Code) bool { return !c.Expires.After(now) })
	f.Refresh = slices.DeleteFunc(f.Refresh, func(r Refresh) bool { return !r.Expires.After(now) })
}

// AddClient registers a client.
func (s *FileStore) AddClient(_ context.Context, c *Client) error {
	return s.update(func(f *oauthFile) error {
		cp := *c
		f.Clients = append(f.Clients, &cp)
		return nil
	})
}

// Client finds a client.
func (s *FileStore) Client(_ context.Context, id string) (*Client, error) {
	var out *Client
	err := s.view(func(f *oauthFile) error {
		i := slices.IndexFunc(f.Clients, func(c *Client) bool { return c.ID == id })
		if i < 0 {
			return ErrNotFound
		}
		out = f.Clients[i]
		return nil
	})
	return out, err
}

// AddRequest keeps a request.
func (s *FileStore) AddRequest(_ context.Context, r Request) error {
	return s.update(func(f *oauthFile) error {
		f.Requests = append(f.Requests, r)
		return nil
	})
}

// Request reads a request.
func (s *FileStore) Request(_ context.Context, id string, now time.Time) (*Request, error) {
	var out *Request
	err := s.view(func(f *oauthFile) error {
		i := slices.IndexFunc(f.Requests, func(r Request) bool { return r.ID == id })
		if i < 0 || !f.Requests[i].Expires.After(now) {
			return ErrNotFound
		}
		out = &f.Requests[i]
		return nil
	})
	return out, err
}

// TakeRequest removes a request and returns it.
func (s *FileStore) TakeRequest(_ context.Context, id string, now time.Time) (*Request, error) {
	var out *Request
	err := s.update(func(f *oauthFile) error {
		i := slices.IndexFunc(f.Requests, func(r Request) bool { return r.ID == id })
		if i < 0 {
			return ErrNotFound
		}
		r := f.Requests[i]
		f.Requests = slices.Delete(f.Requests, i, i+1)
		if r.Expires.After(now) {
			out = &r
		}
		return nil
	})
	if err == nil && out == nil {
		err = ErrNotFound
	}
	return out, err
}

// AddCode keeps a code.
func (s *FileStore) AddCode(_ context.Context, c Code) error {
	return s.update(func(f *oauthFile) error {
		f.Codes = append(f.Codes, c)
		return nil
	})
}

// UseCode spends a code: it is removed, so that a second use finds nothing.
func (s *FileStore) UseCode(_ context.Context, h Hash, now time.Time) (*Code, error) {
	var out *Code
	err := s.update(func(f *oauthFile) error {
		i := slices.IndexFunc(f.Codes, func(c Code) bool { return c.Hash.Equal(h) })
		if i < 0 {
			return ErrNotFound
		}
		c := f.Codes[i]
		f.Codes = slices.Delete(f.Codes, i, i+1)
		if c.Expires.After(now) {
			out = &c
		}
		return nil
	})
	if err == nil && out == nil {
		err = ErrNotFound
	}
	return out, err
}

// AddGrant records a consent.
func (s *FileStore) AddGrant(_ context.Context, g *Grant) error {
	return s.update(func(f *oauthFile) error {
		cp := *g
		f.Grants = append(f.Grants, &cp)
		return nil
	})
}

// Grant finds a grant.
func (s *FileStore) Grant(_ context.Context, id string) (*Grant, error) {
	var out *Grant
	err := s.view(func(f *oauthFile) error {
		i := slices.IndexFunc(f.Grants, func(g *Grant) bool { return g.ID == id })
		if i < 0 {
			return ErrNotFound
		}
		out = f.Grants[i]
		return nil
	})
	return out, err
}

// Grants lists an account's active grants, oldest first.
func (s *FileStore) Grants(_ context.Context, account string) ([]*Grant, error) {
	var out []*Grant
	err := s.view(func(f *oauthFile) error {
		for _, g := range f.Grants {
			if g.Account == account && g.Active() {
				out = append(out, g)
			}
		}
		return nil
	})
	slices.SortStableFunc(out, func(a, b *Grant) int { return a.Created.Compare(b.Created) })
	return out, err
}

// RevokeGrant revokes a grant and forgets its refresh tokens.
func (s *FileStore) RevokeGrant(_ context.Context, id string, at time.Time) error {
	return s.update(func(f *oauthFile) error {
		i := slices.IndexFunc(f.Grants, func(g *Grant) bool { return g.ID == id })
		if i < 0 {
			return ErrNotFound
		}
		if f.Grants[i].Revoked.IsZero() {
			f.Grants[i].Revoked = at.UTC().Truncate(time.Second)
		}
		f.Refresh = slices.DeleteFunc(f.Refresh, func(r Refresh) bool { return r.Grant == id })
		return nil
	})
}

// AddRefresh keeps a refresh token.
func (s *FileStore) AddRefresh(_ context.Context, r Refresh) error {
	return s.update(func(f *oauthFile) error {
		f.Refresh = append(f.Refresh, r)
		return nil
	})
}

// UseRefresh spends a refresh token: it stays, marked spent, until it expires.
func (s *FileStore) UseRefresh(_ context.Context, h Hash, now time.Time) (string, error) {
	var grant string
	var reused bool
	err := s.update(func(f *oauthFile) error {
		i := slices.IndexFunc(f.Refresh, func(r Refresh) bool { return r.Hash.Equal(h) })
		if i < 0 || !f.Refresh[i].Expires.After(now) {
			return ErrNotFound
		}
		grant, reused = f.Refresh[i].Grant, f.Refresh[i].Spent
		f.Refresh[i].Spent = true
		return nil
	})
	if err == nil && reused {
		err = ErrReused
	}
	return grant, err
}

// Keys lists the signing keys, oldest first.
func (s *FileStore) Keys(context.Context) ([]Key, error) {
	var out []Key
	err := s.view(func(f *oauthFile) error {
		out = slices.Clone(f.Keys)
		return nil
	})
	slices.SortStableFunc(out, func(a, b Key) int { return a.Created.Compare(b.Created) })
	return out, err
}

// AddKey stores a signing key.
func (s *FileStore) AddKey(_ context.Context, k Key) error {
	return s.update(func(f *oauthFile) error {
		f.Keys = append(f.Keys, k)
		return nil
	})
}

// DeleteKey forgets a signing key.
func (s *FileStore) DeleteKey(_ context.Context, id string) error {
	return s.update(func(f *oauthFile) error {
		f.Keys = slices.DeleteFunc(f.Keys, func(k Key) bool { return k.ID == id })
		return nil
	})
}

var _ Store = (*FileStore)(nil)
