package pkg

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// An unchanged file's digest is served from what stat says of it; any
// change to the file's stamp makes PackageDigest read and hash it again,
// and a file written within the racy window is never remembered.
func TestPackageDigestCache(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the stamp cache reads Linux stat fields; elsewhere every load hashes")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "SKILL.md")
	if err := os.WriteFile(path, []byte("one"), 0o644); err != nil {
		t.Fatal(err)
	}
	// freshly written: inside the racy window, so not remembered
	first, err := PackageDigest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, hit := fileDigests.Load(path); hit {
		t.Fatal("a file written within the racy window was remembered")
	}

	defer func(w time.Duration) { racyWindow = w }(racyWindow)
	racyWindow = 0
	if again, err := PackageDigest(dir); err != nil || again != first {
		t.Fatalf("digest of the unchanged package = %s %v, want %s", again, err, first)
	}
	if _, hit := fileDigests.Load(path); !hit {
		t.Fatal("an unchanged file outside the racy window was not remembered")
	}
	// same size, new bytes, and a stamp that moved: hashed again
	if err := os.WriteFile(path, []byte("two"), 0o644); err != nil {
		t.Fatal(err)
	}
	past := time.Now().Add(-time.Hour)
	if err := os.Chtimes(path, past, past); err != nil {
		t.Fatal(err)
	}
	changed, err := PackageDigest(dir)
	if err != nil || changed == first {
		t.Fatalf("digest after a change = %s %v, want a new one", changed, err)
	}
	want, _ := fileDigest(path)
	if e, _ := fileDigests.Load(path); e.(digestEntry).sum != want {
		t.Errorf("remembered %s, want %s", e.(digestEntry).sum, want)
	}
}
