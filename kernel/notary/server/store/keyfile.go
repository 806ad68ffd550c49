package store

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/errcode"
)

// KeyFileName is the SQLite store's signing key, beside notary.db.
const KeyFileName = "notary.key"

// keyFile returns the seed in path, writing fresh there first when there is
// none: written to a temporary file and linked into place, so two servers
// starting on one data directory agree on the first key linked and a crash
// never leaves half a key.
func keyFile(path string, fresh []byte) ([]byte, error) {
	if seed, err := readKeyFile(path); !errors.Is(err, fs.ErrNotExist) {
		return seed, err
	}
	if len(fresh) != ed25519.SeedSize {
		return nil, fmt.Errorf("store: a signing key seed is %d bytes", ed25519.SeedSize)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".notary.key-*")
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
	return readKeyFile(path)
}

func readKeyFile(path string) ([]byte, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	seed, err := base64.StdEncoding.DecodeString(string(bytes.TrimSpace(raw)))
	if err != nil || len(seed) != ed25519.SeedSize {
		return nil, contract.Errorf(errcode.NotaryKeyInvalid, "%s is not a notary signing key runx wrote", path)
	}
	return seed, nil
}
