package pkg

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/runxhq/runx/sdk/errcode"
)

// A remembered listing and remembered bytes are served only while nothing
// changed: each kind of edit (a file added, removed, renamed, rewritten
// with the same size, a directory added below) is seen by the next
// listing, digest and read, and a file rewritten within the racy window is
// read again.
func TestTreeCacheSeesEveryEdit(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the stamp caches read Linux stat fields")
	}
	defer func(w time.Duration) { racyWindow = w }(racyWindow)
	racyWindow = 0
	dir := t.TempDir()
	write := func(rel, body string) {
		t.Helper()
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	list := func() string {
		t.Helper()
		entries, err := ListTree(dir)
		if err != nil {
			t.Fatal(err)
		}
		var rels []string
		for _, e := range entries {
			rels = append(rels, e.Rel)
		}
		return strings.Join(rels, ",")
	}
	digests := map[string]bool{}
	digest := func() string {
		t.Helper()
		d, err := PackageDigest(dir)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	fresh := func(what string) {
		t.Helper()
		d := digest()
		if digests[d] {
			t.Fatalf("%s: the digest %s was served from before the edit", what, d)
		}
		digests[d] = true
		if again := digest(); again != d {
			t.Fatalf("%s: the unchanged package's digest moved: %s then %s", what, d, again)
		}
	}
	write("SKILL.md", "one")
	write("a.mjs", "export const a = 1")
	write(".git/HEAD", "ref")
	if got := list(); got != ".git,SKILL.md,a.mjs" {
		t.Fatalf("listing %q: .git is listed, not entered", got)
	}
	if _, ok := trees.Load(dir); !ok {
		t.Fatal("a listing outside the racy window was not remembered")
	}
	fresh("first")

	write("b.mjs", "export const b = 2")
	if got := list(); got != ".git,SKILL.md,a.mjs,b.mjs" {
		t.Fatalf("a file added: listing %q", got)
	}
	fresh("a file added")

	if err := os.Rename(filepath.Join(dir, "b.mjs"), filepath.Join(dir, "c.mjs")); err != nil {
		t.Fatal(err)
	}
	if got := list(); got != ".git,SKILL.md,a.mjs,c.mjs" {
		t.Fatalf("a file renamed: listing %q", got)
	}
	fresh("a file renamed")

	write("lib/d.mjs", "export const d = 4")
	if got := list(); got != ".git,SKILL.md,a.mjs,c.mjs,lib,lib/d.mjs" {
		t.Fatalf("a directory added: listing %q", got)
	}
	fresh("a directory added")
	write("lib/e.mjs", "export const e = 5")
	if got := list(); got != ".git,SKILL.md,a.mjs,c.mjs,lib,lib/d.mjs,lib/e.mjs" {
		t.Fatalf("a file added below: listing %q", got)
	}
	fresh("a file added below")

	if err := os.Remove(filepath.Join(dir, "c.mjs")); err != nil {
		t.Fatal(err)
	}
	if got := list(); got != ".git,SKILL.md,a.mjs,lib,lib/d.mjs,lib/e.mjs" {
		t.Fatalf("a file removed: listing %q", got)
	}
	fresh("a file removed")

	path := filepath.Join(dir, "a.mjs")
	if raw, err := ReadFileCached(path, 1<<20); err != nil || string(raw) != "export const a = 1" {
		t.Fatalf("read %q %v", raw, err)
	}
	if _, ok := fileContents.Load(path); !ok {
		t.Fatal("bytes outside the racy window were not remembered")
	}
	// Same size, new bytes, times set back: the change time still moves.
	write("a.mjs", "export const a = 9")
	past := time.Now().Add(-time.Hour)
	if err := os.Chtimes(path, past, past); err != nil {
		t.Fatal(err)
	}
	if raw, err := ReadFileCached(path, 1<<20); err != nil || string(raw) != "export const a = 9" {
		t.Fatalf("a rewritten file read %q %v", raw, err)
	}
	fresh("a file rewritten")

	// Inside the racy window nothing is remembered.
	racyWindow = time.Hour
	write("SKILL.md", "two")
	if raw, err := ReadFileCached(filepath.Join(dir, "SKILL.md"), 1<<20); err != nil || string(raw) != "two" {
		t.Fatalf("read %q %v", raw, err)
	}
	if v, ok := fileContents.Load(filepath.Join(dir, "SKILL.md")); ok && v.(contentEntry).text == "two" {
		t.Fatal("bytes written within the racy window were remembered")
	}
	fresh("inside the racy window")
	if _, ok := trees.Load(dir); ok {
		t.Fatal("a listing with an entry inside the racy window was remembered")
	}
}

// A symbolic link appearing in a remembered package is refused by the
// next digest, as a walk would refuse it.
func TestTreeCacheRefusesANewSymlink(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the stamp caches read Linux stat fields")
	}
	defer func(w time.Duration) { racyWindow = w }(racyWindow)
	racyWindow = 0
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := PackageDigest(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "SKILL.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/hostname", filepath.Join(dir, "SKILL.md")); err != nil {
		t.Fatal(err)
	}
	_, err := PackageDigest(dir)
	wantRefusal(t, err, errcode.PackageSymlinkRefused, 0, 0)
}
