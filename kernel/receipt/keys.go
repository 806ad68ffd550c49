package receipt

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/runxhq/runx/sdk/errcode"
)

// KeyPath is where the runx home keeps its signing key.
func KeyPath(home string) string {
	return filepath.Join(home, "keys", "ed25519.key")
}

// maxKeyFileSize bounds what is read from a key file; a real one is ~120 bytes.
const maxKeyFileSize = 16 << 10

// KeyID names a public key: "sha256:" and the hex of sha256 over its 32 bytes.
func KeyID(pub ed25519.PublicKey) string {
	sum := sha256.Sum256(pub)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// fixtureSeedText is published on purpose: runx test signs with the key it
// derives so a test's receipts are byte-identical on every machine. A receipt
// signed with it proves nothing about who ran it, which is why no KeySet
// trusts it unless a caller adds it.
const fixtureSeedText = "runx public fixture key v1"

// FixtureKey returns the public fixture key: seed = sha256("runx public
// fixture key v1").
func FixtureKey() ed25519.PrivateKey {
	seed := sha256.Sum256([]byte(fixtureSeedText))
	return ed25519.NewKeyFromSeed(seed[:])
}

// LoadOrCreateKey returns the runx home's signing key, creating it at first
// use. The key is a PKCS#8 PEM file at KeyPath(home), mode 0600, in
// directories made 0700. A key file others can read or write, or one that
// does not hold an ed25519 key, is refused rather than repaired: either means
// the key can no longer be taken to be the user's alone.
func LoadOrCreateKey(home string) (ed25519.PrivateKey, error) {
	if home == "" {
		return nil, errors.New("load signing key: runx home is empty")
	}
	path := KeyPath(home)
	key, err := loadKey(path)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return key, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create key directory: %w", err)
	}
	created, err := createKey(path)
	if errors.Is(err, fs.ErrExist) {
		// Another runx process made the key first; use theirs.
		return loadKey(path)
	}
	return created, err
}

// LoadKey reads the runx home's signing key and makes nothing: a missing key
// is an error satisfying errors.Is(err, fs.ErrNotExist). It refuses what
// LoadOrCreateKey refuses (a key file others can read, one holding no
// ed25519 key).
func LoadKey(home string) (ed25519.PrivateKey, error) {
	return loadKey(KeyPath(home))
}

// createKey writes a fresh key under a temporary name and links it into
// place, so the key file appears complete or not at all and never replaces a
// key another process made meanwhile.
func createKey(path string) (ed25519.PrivateKey, error) {
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate signing key: %w", err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("encode signing key: %w", err)
	}
	data := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})

	tmp, err := os.CreateTemp(filepath.Dir(path), ".ed25519.key.tmp-*")
	if err != nil {
		return nil, fmt.Errorf("create signing key: %w", err)
	}
	defer os.Remove(tmp.Name())
	// CreateTemp makes the file 0600 already; say so explicitly in case that
	// ever changes, since the key must never be readable by others.
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return nil, fmt.Errorf("create signing key: %w", err)
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return nil, fmt.Errorf("write signing key: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return nil, fmt.Errorf("write signing key: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return nil, fmt.Errorf("write signing key: %w", err)
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		return nil, fmt.Errorf("install signing key: %w", err)
	}
	return key, nil
}

// loadKey reads and checks an existing key file. A missing file is returned
// as an error satisfying errors.Is(err, fs.ErrNotExist).
func loadKey(path string) (ed25519.PrivateKey, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open signing key: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("stat signing key: %w", err)
	}
	if !info.Mode().IsRegular() {
		return nil, refuse(errcode.KeyMalformed, fmt.Sprintf("%s is not a regular file; move it aside and runx will make a new key", path), nil)
	}
	if perm := info.Mode().Perm(); perm&0o077 != 0 {
		return nil, refuse(errcode.KeyPermissionsUnsafe, fmt.Sprintf("%s has mode %04o; others may read it. run: chmod 600 %s", path, perm, path), nil)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxKeyFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("read signing key: %w", err)
	}
	key, err := parseKey(data)
	if err != nil {
		return nil, refuse(errcode.KeyMalformed, fmt.Sprintf("%s does not hold a PKCS#8 PEM ed25519 key; move it aside and runx will make a new key", path), err)
	}
	return key, nil
}

func parseKey(data []byte) (ed25519.PrivateKey, error) {
	if len(data) > maxKeyFileSize {
		return nil, errors.New("key file is too large")
	}
	block, rest := pem.Decode(data)
	if block == nil || block.Type != "PRIVATE KEY" {
		return nil, errors.New("no PRIVATE KEY pem block")
	}
	if len(bytes.TrimSpace(rest)) != 0 {
		return nil, errors.New("data after the pem block")
	}
	parsed, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("parse pkcs8: %w", err)
	}
	key, ok := parsed.(ed25519.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("key is %T, not ed25519", parsed)
	}
	return key, nil
}
