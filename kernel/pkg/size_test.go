package pkg

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxLoaderLines is issue 22's bound on a package: no package over 6,000
// non-test lines.
const maxLoaderLines = 6000

// TestLoaderFitsItsBound holds kernel/pkg itself (its parts below it count
// apart) to the bound. Past it, carve a concern into a part below the
// loader, as schema, jsonvalue and semver are (boundary_test.go).
func TestLoaderFitsItsBound(t *testing.T) {
	n, err := nonTestLines(".")
	if err != nil {
		t.Fatal(err)
	}
	if n > maxLoaderLines {
		t.Fatalf("kernel/pkg has %d non-test lines, over its bound of %d: carve a concern into a part below it", n, maxLoaderLines)
	}
	t.Logf("kernel/pkg: %d non-test lines (bound %d)", n, maxLoaderLines)
}

// TestNonTestLinesCountsOnlyCode keeps the count honest: test files and
// directories below are not counted, every line of a code file is.
func TestNonTestLinesCountsOnlyCode(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"a.go":      "package a\n\nfunc A() {}\n",
		"a_test.go": "package a\n\nfunc TestA() {}\n\n\n",
		"b.go":      "package a\n",
		"sub/c.go":  "package c\n\n\n\n",
		"notes.txt": "x\ny\n",
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := nonTestLines(dir); err != nil || n != 4 {
		t.Fatalf("counted %d (%v), want 4", n, err)
	}
}

// nonTestLines counts the lines of dir's non-test Go files, as wc -l does.
func nonTestLines(dir string) (int, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return 0, err
	}
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			return 0, err
		}
		n += bytes.Count(b, []byte("\n"))
	}
	return n, nil
}
