package seedfile

import (
	"bytes"
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
