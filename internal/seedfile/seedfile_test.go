package seedfile

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"os"
	"path/filepath"
	"testing"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/errcode"
)

// The first seed is kept and every later call reads it back, whatever
// fresh seed it brings; a file holding no seed is refused with the code
// given, never replaced.
func TestLoadOrCreate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.key")
	first := bytes.Repeat([]byte{1}, ed25519.SeedSize)
	got, err := LoadOrCreate(path, first, errcode.NotaryKeyInvalid, "notary")
	if err != nil || !bytes.Equal(got, first) {
		t.Fatalf("first: %x %v", got, err)
	}
	got, err = LoadOrCreate(path, bytes.Repeat([]byte{2}, ed25519.SeedSize), errcode.NotaryKeyInvalid, "notary")
	if err != nil || !bytes.Equal(got, first) {
		t.Fatalf("second call replaced the key: %x %v", got, err)
	}
	if _, err := LoadOrCreate(filepath.Join(t.TempDir(), "y.key"), []byte("short"), errcode.NotaryKeyInvalid, "notary"); err == nil {
		t.Fatal("a seed of the wrong size was written")
	}
	if err := os.WriteFile(path, []byte("not a key\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadOrCreate(path, first, errcode.RegistryKeyInvalid, "registry"); contract.CodeOf(err) != errcode.RegistryKeyInvalid {
		t.Fatalf("a damaged key file: %v", err)
	}
	if raw, _ := os.ReadFile(path); string(raw) != "not a key\n" {
		t.Fatal("a damaged key file was replaced")
	}
}

// A server's key comes from the seed its store kept, not the fresh one
// offered; a kept seed of the wrong size is an error, never a panic.
func TestSigningKey(t *testing.T) {
	kept := bytes.Repeat([]byte{7}, ed25519.SeedSize)
	key, err := SigningKey(context.Background(), func(_ context.Context, fresh []byte) ([]byte, error) {
		if len(fresh) != ed25519.SeedSize || bytes.Equal(fresh, kept) {
			t.Fatalf("offered seed %x", fresh)
		}
		return kept, nil
	})
	if err != nil || !key.Equal(ed25519.NewKeyFromSeed(kept)) {
		t.Fatalf("key %x, %v", key, err)
	}
	if _, err := SigningKey(context.Background(), func(context.Context, []byte) ([]byte, error) { return []byte("short"), nil }); err == nil {
		t.Fatal("a short kept seed made a key")
	}
}
