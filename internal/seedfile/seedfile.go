// Package seedfile keeps a server's ed25519 signing seed in one file of its
// data directory: base64 on one line, mode 0600, created once. The registry
// and the notary servers' SQLite stores keep their keys this way.
package seedfile

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/errcode"
)

// LoadOrCreate returns the seed in path, writing fresh there first when
// there is none. The seed is written to a temporary file and linked into
// place, so two servers starting on one data directory agree on the first
// seed linked and a crash never leaves half a key. A file that holds no
// seed is refused with invalid, naming what the key is for.
func LoadOrCreate(path string, fresh []byte, invalid errcode.Code, what string) ([]byte, error) {
	if seed, err := read(path, invalid, what); !errors.Is(err, fs.ErrNotExist) {
		return seed, err
	}
	if len(fresh) != ed25519.SeedSize {
		return nil, fmt.Errorf("seedfile: a signing key seed is %d bytes", ed25519.SeedSize)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.WriteString(base64.StdEncoding.EncodeToString(fresh) + "\n")
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	if err := os.Link(tmp.Name(), path); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, err
	}
	return read(path, invalid, what)
}

func read(path string, invalid errcode.Code, what string) ([]byte, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	seed, err := base64.StdEncoding.DecodeString(string(bytes.TrimSpace(raw)))
	if err != nil || len(seed) != ed25519.SeedSize {
		return nil, contract.Errorf(invalid, "%s is not a %s signing key runx wrote", path, what)
	}
	return seed, nil
}

// SigningKey is a server's ed25519 key: the seed its store keeps, which
// keep writes from a fresh random seed the first time and returns as
// stored after that.
func SigningKey(ctx context.Context, keep func(ctx context.Context, fresh []byte) ([]byte, error)) (ed25519.PrivateKey, error) {
	fresh := make([]byte, ed25519.SeedSize)
	if _, err := rand.Read(fresh); err != nil {
		return nil, err
	}
	seed, err := keep(ctx, fresh)
	if err != nil {
		return nil, err
	}
	if len(seed) != ed25519.SeedSize {
		return nil, fmt.Errorf("seedfile: the store kept a seed of %d bytes, not %d", len(seed), ed25519.SeedSize)
	}
	return ed25519.NewKeyFromSeed(seed), nil
}
