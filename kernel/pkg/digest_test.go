package pkg

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/runxhq/runx/sdk/errcode"
)

func TestPackageDigestIsStable(t *testing.T) {
	files := map[string]string{
		"SKILL.md":           testSkillMD,
		"run.yaml":           "minimum_runx: 0.1.0\nmethods:\n  m:\n    steps: [{ id: a, tool: { module: compose.mjs } }]\n",
		"compose.mjs":        "export default () => ({})\n",
		"fixtures/data.json": `{"a":1}`,
		"tests/t.yaml":       "expect: { status: sealed }\n",
	}
	a := mustLoad(t, writePackage(t, files))
	b := mustLoad(t, writePackage(t, files))
	if a.Digest != b.Digest {
		t.Fatalf("the same files in two directories digest differently: %s %s", a.Digest, b.Digest)
	}
	again, err := PackageDigest(a.Dir)
	if err != nil || again != a.Digest {
		t.Fatalf("digest changed on a second read: %s, %v", again, err)
	}
	// runx state and version control are not package content.
	for _, name := range []string{".runx/state.sqlite", ".git/HEAD", "fixtures/.git/config"} {
		p := filepath.Join(a.Dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if d, err := PackageDigest(a.Dir); err != nil || d != a.Digest {
		t.Fatalf("state under .runx or .git changed the digest: %s, %v", d, err)
	}
}

func TestPackageDigestChanges(t *testing.T) {
	files := map[string]string{"SKILL.md": testSkillMD, "notes/a.txt": "abc"}
	dir := writePackage(t, files)
	before, err := PackageDigest(dir)
	if err != nil {
		t.Fatal(err)
	}
	edits := []struct {
		name string
		edit func(t *testing.T)
	}{
		{"one byte edited", func(t *testing.T) { write(t, filepath.Join(dir, "notes/a.txt"), "abd") }},
		{"file renamed", func(t *testing.T) {
			mustRename(t, filepath.Join(dir, "notes/a.txt"), filepath.Join(dir, "notes/b.txt"))
		}},
		{"file added", func(t *testing.T) { write(t, filepath.Join(dir, "notes/c.txt"), "") }},
	}
	seen := map[string]string{before: "original"}
	for _, e := range edits {
		e.edit(t)
		d, err := PackageDigest(dir)
		if err != nil {
			t.Fatal(err)
		}
		if prev, dup := seen[d]; dup {
			t.Fatalf("%s: digest %s equals the digest after %s", e.name, d, prev)
		}
		seen[d] = e.name
	}
}

func TestPackageDigestRefusesSymlinks(t *testing.T) {
	dir := writePackage(t, map[string]string{"SKILL.md": testSkillMD, "real.txt": "x"})
	if err := os.Symlink("real.txt", filepath.Join(dir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	_, err := PackageDigest(dir)
	wantRefusal(t, err, errcode.PackageSymlinkRefused, 0, 0)
	_, err = Load(dir, LoadOptions{RunxVersion: testRunx})
	wantRefusal(t, err, errcode.PackageSymlinkRefused, 0, 0)
}

func TestPackageDirMayBeReachedThroughASymlink(t *testing.T) {
	real := writePackage(t, map[string]string{"SKILL.md": testSkillMD})
	link := filepath.Join(t.TempDir(), "pkg")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	p := mustLoad(t, link)
	want, _ := filepath.EvalSymlinks(real)
	if p.Dir != want {
		t.Errorf("Dir = %s, want %s", p.Dir, want)
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustRename(t *testing.T, from, to string) {
	t.Helper()
	if err := os.Rename(from, to); err != nil {
		t.Fatal(err)
	}
}
