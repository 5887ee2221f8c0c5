package authserver

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// keyCacheTTL is how long the keys read from the store are used before they are read again:
// the time another gateway's new key takes to be known here.
const keyCacheTTL = 30 * time.Second

// keyPublish is how long a new key is in the key set before it signs, so that every
// verifier that fetched the key set before it was made has fetched it again (a verifier
// fetches at once when a token names a key it does not hold, at most twice a minute).
const keyPublish = 2 * keyCacheTTL

// keyRing holds the signing keys: it makes the first, rotates them on a schedule, and
// forgets a key once no token it signed can still be valid. Keys live in the Store, so
// that a restart and every gateway sign and verify with the same ones.
type keyRing struct {
	store    Store
	rotate   time.Duration // a new key this long after the last one began to sign
	lifetime time.Duration // of access tokens: an old key stays published this long after its successor took over
	now      func() time.Time

	mu   sync.Mutex
	keys []ringKey // oldest first
	read time.Time
}

// ringKey is a stored key, parsed.
type ringKey struct {
	Key
	priv *ecdsa.PrivateKey
}

// signer returns the key that signs now, after rotating and retiring keys when due.
func (r *keyRing) signer(ctx context.Context) (ringKey, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.load(ctx, false); err != nil {
		return ringKey{}, err
	}
	now := r.now()
	if err := r.maintain(ctx, now); err != nil {
		return ringKey{}, err
	}
	k, ok := r.current(now)
	if !ok {
		return ringKey{}, errors.New("signing keys: none active")
	}
	return k, nil
}

// public returns every published key, for the key set and for verifying.
func (r *keyRing) public(ctx context.Context) ([]ringKey, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.load(ctx, false); err != nil {
		return nil, err
	}
	return slices.Clone(r.keys), nil
}

// load reads the keys from the store when the cached ones are older than keyCacheTTL, or
// when forced (after a change).
func (r *keyRing) load(ctx context.Context, force bool) error {
	if !force && r.keys != nil && r.now().Sub(r.read) < keyCacheTTL {
		return nil
	}
	stored, err := r.store.Keys(ctx)
	if err != nil {
		return fmt.Errorf("signing keys: %w", err)
	}
	keys := make([]ringKey, 0, len(stored))
	for _, k := range stored {
		p, err := x509.ParsePKCS8PrivateKey(k.Private)
		priv, ok := p.(*ecdsa.PrivateKey)
		if err != nil || !ok || priv.Curve != elliptic.P256() {
			return fmt.Errorf("signing key %s: not an ECDSA P-256 key in PKCS #8", k.ID)
		}
		keys = append(keys, ringKey{Key: k, priv: priv})
	}
	slices.SortStableFunc(keys, func(a, b ringKey) int { return a.Active.Compare(b.Active) })
	r.keys, r.read = keys, r.now()
	return nil
}

// current is the newest key that signs at now.
func (r *keyRing) current(now time.Time) (ringKey, bool) {
	for i := len(r.keys) - 1; i >= 0; i-- {
		if !r.keys[i].Active.After(now) {
			return r.keys[i], true
		}
	}
	return ringKey{}, false
}

// maintain makes the first key (signing at once), publishes the next one keyPublish before
// the newest is due for rotation, and forgets keys whose successor has signed for longer
// than a token lives. Gateways doing this at once may each add a key; the newest signs.
func (r *keyRing) maintain(ctx context.Context, now time.Time) error {
	changed := false
	if len(r.keys) == 0 {
		if err := r.add(ctx, now, now); err != nil {
			return err
		}
		changed = true
	} else if newest := r.keys[len(r.keys)-1]; !newest.Active.After(now) && !now.Before(newest.Active.Add(r.rotate-keyPublish)) {
		active := newest.Active.Add(r.rotate)
		if earliest := now.Add(keyPublish); active.Before(earliest) {
			active = earliest
		}
		if err := r.add(ctx, active, now); err != nil {
			return err
		}
		changed = true
	}
	for i := 0; i+1 < len(r.keys); i++ {
		next := r.keys[i+1]
		if !next.Active.After(now) && now.Sub(next.Active) > r.lifetime+time.Minute {
			if err := r.store.DeleteKey(ctx, r.keys[i].ID); err != nil {
				return fmt.Errorf("retire signing key: %w", err)
			}
			changed = true
		}
	}
	if changed {
		return r.load(ctx, true)
	}
	return nil
}

// add makes a key that signs from active.
func (r *keyRing) add(ctx context.Context, active, now time.Time) error {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return fmt.Errorf("new signing key: %w", err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return fmt.Errorf("new signing key: %w", err)
	}
	// The key id is the key's RFC 7638 thumbprint: the same key always has the same id.
	tp, err := (&jose.JSONWebKey{Key: &priv.PublicKey}).Thumbprint(crypto.SHA256)
	if err != nil {
		return fmt.Errorf("new signing key: %w", err)
	}
	k := Key{ID: base64.RawURLEncoding.EncodeToString(tp), Private: der, Active: active.UTC(), Created: now.UTC()}
	if err := r.store.AddKey(ctx, k); err != nil {
		return fmt.Errorf("new signing key: %w", err)
	}
	return nil
}

// jwks is the key set clients and the gateway verify tokens with: the public half of every
// key, with its id, algorithm and use.
func jwks(keys []ringKey) jose.JSONWebKeySet {
	set := jose.JSONWebKeySet{Keys: make([]jose.JSONWebKey, 0, len(keys))}
	for _, k := range keys {
		set.Keys = append(set.Keys, jose.JSONWebKey{Key: &k.priv.PublicKey, KeyID: k.ID, Algorithm: string(jose.ES256), Use: "sig"})
	}
	return set
}
