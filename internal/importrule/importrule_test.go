package importrule

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder keeps what a rule reported instead of failing the test.
type recorder struct {
	testing.TB
	errors []string
	fatal  bool
}

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, format)
}

func (r *recorder) Fatalf(format string, args ...any) { r.fatal = true; panic(r) }

func (r *recorder) Helper() {}

// run calls fn with a recorder, catching the panic Fatalf uses to stop.
func run(t *testing.T, fn func(*recorder)) *recorder {
	r := &recorder{TB: t}
	func() {
		defer func() {
			if v := recover(); v != nil && v != r {
				panic(v)
			}
		}()
		fn(r)
	}()
	return r
}

func plant(t *testing.T, dir string, files map[string]string) {
	for name, src := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Only reports an import outside the allowed list, and only that one: the
// standard library, allowed imports and test files pass.
func TestOnlyFindsAPlantedImport(t *testing.T) {
	dir := t.TempDir()
	plant(t, dir, map[string]string{
		"a.go":      "package a\n\nimport (\n\t\"fmt\"\n\t\"example.com/ok\"\n\t\"example.com/bad\"\n)\n",
		"a_test.go": "package a\n\nimport _ \"example.com/tests/may\"\n",
	})
	r := run(t, func(r *recorder) { Only(r, dir, "a", "example.com/ok") })
	if r.fatal || len(r.errors) != 1 {
		t.Fatalf("want one import reported, got %v (fatal %v)", r.errors, r.fatal)
	}
}

// Of and Below refuse to pass by reading nothing, and tell standard
// imports from module ones; Below reads the directories under dir.
func TestOfReadsEnoughFiles(t *testing.T) {
	dir := t.TempDir()
	plant(t, dir, map[string]string{
		"a.go":     "package a\n\nimport \"net/http\"\n",
		"sub/b.go": "package b\n\nimport \"example.com/x\"\n",
	})
	if r := run(t, func(r *recorder) { Of(r, dir, 2) }); !r.fatal {
		t.Fatal("Of passed with one file where two were wanted")
	}
	imps := Below(t, dir, 2)
	if len(imps) != 2 || !imps[0].Std || imps[1].Std || !strings.HasSuffix(imps[1].File, "sub/b.go") {
		t.Fatalf("Below read %+v", imps)
	}
}
