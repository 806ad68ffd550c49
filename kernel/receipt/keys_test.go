package receipt

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/runxhq/runx/sdk/errcode"
)

func TestLoadOrCreateKeyCreatesOnceWithTightModes(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	k1, err := LoadOrCreateKey(home)
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]os.FileMode{
		home:                        0o700,
		filepath.Join(home, "keys"): 0o700,
		KeyPath(home):               0o600,
	} {
		info, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := info.Mode().Perm(); got != want {
			t.Errorf("%s mode %04o, want %04o", path, got, want)
		}
	}
	k2, err := LoadOrCreateKey(home)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(k1, k2) {
		t.Fatal("second LoadOrCreateKey made a new key")
	}
	// No temporary files are left beside the key.
	entries, err := os.ReadDir(filepath.Join(home, "keys"))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Fatalf("keys dir holds %d entries, want only the key", len(entries))
	}
}

func TestLoadOrCreateKeyRacersAgree(t *testing.T) {
	home := t.TempDir()
	const n = 8
	keys := make([][]byte, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			keys[i], errs[i] = LoadOrCreateKey(home)
		}()
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if !bytes.Equal(keys[i], keys[0]) {
			t.Fatal("concurrent first use produced different keys")
		}
	}
}

func TestLoadOrCreateKeyRefusesGroupReadableKey(t *testing.T) {
	home := t.TempDir()
	if _, err := LoadOrCreateKey(home); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []os.FileMode{0o640, 0o604, 0o666} {
		if err := os.Chmod(KeyPath(home), mode); err != nil {
			t.Fatal(err)
		}
		_, err := LoadOrCreateKey(home)
		wantCode(t, err, errcode.KeyPermissionsUnsafe)
	}
}

func TestLoadOrCreateKeyRefusesMalformedKey(t *testing.T) {
	ecKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ecDER, err := x509.MarshalPKCS8PrivateKey(ecKey)
	if err != nil {
		t.Fatal(err)
	}
	tests := map[string][]byte{
		"empty":         {},
		"not pem":       []byte("hello"),
		"wrong block":   pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: []byte{1}}),
		"bad der":       pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: []byte{1, 2, 3}}),
		"ecdsa key":     pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: ecDER}),
		"trailing junk": append(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: ecDER}), "junk"...),
		"huge":          bytes.Repeat([]byte("a"), maxKeyFileSize+10),
	}
	for name, data := range tests {
		t.Run(name, func(t *testing.T) {
			home := t.TempDir()
			if err := os.MkdirAll(filepath.Join(home, "keys"), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(KeyPath(home), data, 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := LoadOrCreateKey(home)
			wantCode(t, err, errcode.KeyMalformed)
			// The bad file is left for the user to inspect, not replaced.
			got, _ := os.ReadFile(KeyPath(home))
			if !bytes.Equal(got, data) {
				t.Fatal("a malformed key file was rewritten")
			}
		})
	}
}

func TestLoadOrCreateKeyRefusesDirectoryAtKeyPath(t *testing.T) {
	home := t.TempDir()
	if err := os.MkdirAll(KeyPath(home), 0o700); err != nil {
		t.Fatal(err)
	}
	_, err := LoadOrCreateKey(home)
	wantCode(t, err, errcode.KeyMalformed)
}

func TestLoadOrCreateKeyRefusesEmptyHome(t *testing.T) {
	if _, err := LoadOrCreateKey(""); err == nil {
		t.Fatal("accepted an empty home")
	}
}

func TestFixtureKeyIsDeterministicAndPublic(t *testing.T) {
	a, b := FixtureKey(), FixtureKey()
	if !bytes.Equal(a, b) {
		t.Fatal("FixtureKey differs between calls")
	}
	// The seed is published in the package; anyone can derive it.
	if got := EncodePublicKey(a.Public().(ed25519.PublicKey)); got != "ip+lRabtHlXhMjE/3gSCoN8NcffQ5gZOUNMOEC3qxmo=" {
		t.Fatalf("fixture public key %s", got)
	}
}

// LoadKey reads the key LoadOrCreateKey made and makes nothing itself: no
// home, no keys directory, no key where there is none (fs.ErrNotExist), and
// it refuses a key others can read as LoadOrCreateKey does.
func TestLoadKeyReadsAndMakesNothing(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	if _, err := LoadKey(home); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("LoadKey of a home that does not exist: %v, want fs.ErrNotExist", err)
	}
	if _, err := os.Stat(home); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("LoadKey made the home: %v", err)
	}
	made, err := LoadOrCreateKey(home)
	if err != nil {
		t.Fatal(err)
	}
	read, err := LoadKey(home)
	if err != nil || !read.Equal(made) {
		t.Fatalf("LoadKey read %v (%v), want the key made", read, err)
	}
	if err := os.Chmod(KeyPath(home), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = LoadKey(home)
	wantCode(t, err, errcode.KeyPermissionsUnsafe)
}
