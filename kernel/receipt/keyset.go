package receipt

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/runxhq/runx/sdk/errcode"
)

// KeySet is the set of public keys whose signatures make a receipt verified.
// A signature by any other key can still be checked, but leaves the receipt
// unverified: it proves the body is intact, not who signed it.
type KeySet struct {
	byID map[string]ed25519.PublicKey
	// skipped are the trusted key files LoadKeySet could not use.
	skipped []SkippedKey
}

// SkippedKey is a file under keys/trusted/ that is not a key runx can
// trust (malformed, or writable by others): it is left out of the set and
// reported, so one bad file neither breaks every verification nor is
// trusted.
type SkippedKey struct {
	Path    string       `json:"path"`
	Code    errcode.Code `json:"code"`
	Message string       `json:"message"`
}

// Skipped lists the trusted key files left out of the set, in path order.
func (s KeySet) Skipped() []SkippedKey { return s.skipped }

// NewKeySet trusts exactly the given keys.
func NewKeySet(keys ...ed25519.PublicKey) KeySet {
	var s KeySet
	for _, k := range keys {
		s.Add(k)
	}
	return s
}

// Add trusts one more key. It keeps its own copy, so the caller's slice may
// be reused.
func (s *KeySet) Add(pub ed25519.PublicKey) {
	if len(pub) != ed25519.PublicKeySize {
		// Not a key any signature could verify under; trusting it would
		// change nothing.
		return
	}
	if s.byID == nil {
		s.byID = make(map[string]ed25519.PublicKey)
	}
	s.byID[KeyID(pub)] = bytes.Clone(pub)
}

// Trusts reports whether pub is in the set.
func (s KeySet) Trusts(pub ed25519.PublicKey) bool {
	k, ok := s.byID[KeyID(pub)]
	return ok && bytes.Equal(k, pub)
}

// KeyIDs lists the trusted keys' ids in order, for display.
func (s KeySet) KeyIDs() []string {
	ids := make([]string, 0, len(s.byID))
	for id := range s.byID {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// TrustedKeysDir holds the public keys, one per *.pub file, that the runx
// home trusts besides its own.
func TrustedKeysDir(home string) string {
	return filepath.Join(home, "keys", "trusted")
}

// LoadKeySet trusts the runx home's own key, when it has one, and every
// <home>/keys/trusted/*.pub (the standard base64 of a 32-byte ed25519 public
// key). A file that is not such a key, or that others may write, is
// skipped and listed by Skipped. It never creates a key: verifying must not
// change the home. The fixture key is not trusted here; a caller that wants
// it adds it.
func LoadKeySet(home string) (KeySet, error) {
	var set KeySet
	if home == "" {
		return set, errors.New("load trusted keys: runx home is empty")
	}
	own, err := loadKey(KeyPath(home))
	switch {
	case err == nil:
		set.Add(own.Public().(ed25519.PublicKey))
	case !errors.Is(err, fs.ErrNotExist):
		return KeySet{}, err
	}
	paths, err := filepath.Glob(filepath.Join(TrustedKeysDir(home), "*.pub"))
	if err != nil {
		return KeySet{}, fmt.Errorf("list trusted keys: %w", err)
	}
	for _, p := range paths {
		pub, err := loadPublicKey(p)
		var bad *Error
		if errors.As(err, &bad) {
			set.skipped = append(set.skipped, SkippedKey{Path: p, Code: bad.Code, Message: bad.Message})
			continue
		}
		if err != nil {
			return KeySet{}, err
		}
		set.Add(pub)
	}
	return set, nil
}

// loadPublicKey reads one trusted key. A file others may write is refused:
// whoever can write it can make runx trust any signer.
func loadPublicKey(path string) (ed25519.PublicKey, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open trusted key: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("stat trusted key: %w", err)
	}
	if !info.Mode().IsRegular() {
		return nil, refuse(errcode.KeyMalformed, fmt.Sprintf("trusted key %s is not a regular file", path), nil)
	}
	if perm := info.Mode().Perm(); perm&0o022 != 0 {
		return nil, refuse(errcode.KeyPermissionsUnsafe, fmt.Sprintf("trusted key %s has mode %04o; others may change it. run: chmod 644 %s", path, perm, path), nil)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxKeyFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("read trusted key: %w", err)
	}
	raw, err := base64.StdEncoding.DecodeString(string(bytes.TrimSpace(data)))
	if err != nil || len(raw) != ed25519.PublicKeySize {
		return nil, refuse(errcode.KeyMalformed, fmt.Sprintf("trusted key %s is not the base64 of a 32-byte ed25519 public key", path), err)
	}
	return ed25519.PublicKey(raw), nil
}

// EncodePublicKey is the form a trusted *.pub file and a signature's
// public_key hold: standard, padded base64.
func EncodePublicKey(pub ed25519.PublicKey) string {
	return base64.StdEncoding.EncodeToString(pub)
}
