package pkg

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/runxhq/runx/sdk/errcode"
)

const testRunx = "0.1.0"

const testSkillMD = "---\nname: sample\ndescription: A sample package.\n---\nDo the thing.\n"

// writePackage writes files (relative path -> content) into a fresh
// directory and returns it.
func writePackage(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// loadProfile loads a package made of the standard SKILL.md, the given
// run.yaml and a module compose.mjs.
func loadProfile(t testing.TB, runYAML string) (*Package, string, error) {
	t.Helper()
	dir := writePackage(t, map[string]string{
		"SKILL.md":    testSkillMD,
		"run.yaml":    runYAML,
		"compose.mjs": "export default () => ({})\n",
	})
	p, err := Load(dir, LoadOptions{RunxVersion: testRunx})
	return p, dir, err
}

func mustLoad(t testing.TB, ref string) *Package {
	t.Helper()
	p, err := Load(ref, LoadOptions{RunxVersion: testRunx})
	if err != nil {
		t.Fatalf("Load(%s): %v", ref, err)
	}
	return p
}

// wantRefusal asserts err is a refusal with code, and, when line > 0, that it
// points at line:col.
func wantRefusal(t testing.TB, err error, code errcode.Code, line, col int) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("want refusal %s, got %v (%T)", code, err, err)
	}
	if e.Code != code {
		t.Fatalf("want code %s, got %s: %v", code, e.Code, e)
	}
	if line > 0 && (e.Line != line || e.Column != col) {
		t.Fatalf("want %s at %d:%d, got %d:%d: %v", code, line, col, e.Line, e.Column, e)
	}
	return e
}
