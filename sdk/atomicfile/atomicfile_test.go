package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestWriteReplacesWhole(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.json")
	for _, body := range []string{"first", "second"} {
		if err := Write(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		raw, err := os.ReadFile(path)
		if err != nil || string(raw) != body {
			t.Fatalf("read %q %v, want %q", raw, err, body)
		}
	}
	info, err := os.Stat(path)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v %v", info.Mode(), err)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("a temporary file was left behind: %v", entries)
	}
}

func TestCreateRefusesAnExistingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := Create(path, []byte("one"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Create(path, []byte("two"), 0o644); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("want fs.ErrExist, got %v", err)
	}
	if raw, _ := os.ReadFile(path); string(raw) != "one" {
		t.Fatalf("the existing file changed: %q", raw)
	}
}

func TestSyncFilesAndDirectories(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := Write(path, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, dir} {
		if err := Sync(p); err != nil {
			t.Fatalf("sync %s: %v", p, err)
		}
	}
	if err := Sync(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("want fs.ErrNotExist, got %v", err)
	}
}
