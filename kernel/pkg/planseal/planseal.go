// Package planseal keeps the plan cache's disk entries honest: an entry is
// trusted only under an HMAC-SHA256 by a key that lives beside the entries,
// readable by the owner alone, and the tag covers the entry's key, so an
// entry cannot be moved to another package or forged without the key.
package planseal

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// Schema versions the key and the entry format, so entries written by
// another runx never match.
const Schema = "runx.plan-cache.v1"

// KeyFile is the key's file name in the cache directory.
const KeyFile = "key"

// LoadOrCreateKey returns the cache's key, creating it (owner-only) on
// first use; a key others could read or that is not a plain file is refused.
func LoadOrCreateKey(dir string) ([]byte, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, KeyFile)
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		_, werr := f.Write(secret)
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return nil, werr
		}
		return secret, nil
	}
	if !errors.Is(err, fs.ErrExist) {
		return nil, err
	}
	info, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	// A key anyone else can read or that is not a plain file could have been
	// used to forge entries: no disk cache then.
	if !info.Mode().IsRegular() || info.Mode().Perm()&0o077 != 0 {
		return nil, errors.New("plan cache key is not a private regular file")
	}
	existing, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(existing) != 32 {
		return nil, errors.New("plan cache key has the wrong length")
	}
	return existing, nil
}

// Seal makes an entry: the schema line, the 32-byte tag, then the payload;
// the tag covers the key, so an entry cannot be moved to another package.
func Seal(secret []byte, key string, payload []byte) []byte {
	out := append([]byte(Schema+"\n"), entryTag(secret, key, payload)...)
	return append(out, payload...)
}

// Open returns the payload of an entry sealed under secret for key, or
// false when its tag does not verify.
func Open(secret []byte, key string, raw []byte) ([]byte, bool) {
	head := len(Schema) + 1
	if len(raw) < head+sha256.Size || string(raw[:head]) != Schema+"\n" {
		return nil, false
	}
	tag, payload := raw[head:head+sha256.Size], raw[head+sha256.Size:]
	if !hmac.Equal(tag, entryTag(secret, key, payload)) {
		return nil, false
	}
	return payload, true
}

func entryTag(secret []byte, key string, payload []byte) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(key))
	m.Write([]byte{0})
	m.Write(payload)
	return m.Sum(nil)
}
