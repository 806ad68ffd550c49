package errcode_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/runxhq/runx/sdk/errcode/internal/registry"
)

const (
	module      = "github.com/runxhq/runx"
	registryDir = "sdk/errcode"
	repoRoot    = "../.."
)

func load(t *testing.T) []registry.Area {
	t.Helper()
	areas, err := registry.Load(".")
	if err != nil {
		t.Fatal(err)
	}
	return areas
}

// Every code is declared once, in snake_case, with its meaning and what to
// do, in the file of its area; no two constants share a spelling.
func TestRegistryWellFormed(t *testing.T) {
	areas := load(t)
	n := 0
	for _, a := range areas {
		n += len(a.Entries)
	}
	if n < 400 {
		t.Fatalf("the registry holds %d codes; it should hold every code runx reports", n)
	}
}

// docs/errors.md is what the registry generates.
func TestDocsUpToDate(t *testing.T) {
	want := registry.Markdown(load(t))
	got, err := os.ReadFile(filepath.Join(repoRoot, "docs", "errors.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("docs/errors.md is out of date: run go generate ./sdk/errcode")
	}
}

// No non-test Go file outside the registry spells a registered code, or gives
// a string literal where a Code is expected. The walk covers the whole
// repository; only test files, testdata and the registry are not read.
func TestNoCodeLiterals(t *testing.T) {
	w, err := registry.Check(repoRoot, module, registryDir, registry.Codes(load(t)))
	if err != nil {
		t.Fatal(err)
	}
	if w.Files < 400 {
		t.Fatalf("read only %d files; is the walk rooted at the module?", w.Files)
	}
	for _, f := range w.Findings {
		t.Error(f)
	}
}

// Every registered code is named somewhere outside the registry's tests: no
// dead entries.
func TestEveryCodeUsed(t *testing.T) {
	areas := load(t)
	w, err := registry.Check(repoRoot, module, registryDir, registry.Codes(areas))
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range areas {
		for _, e := range a.Entries {
			if w.Uses[e.Name] == 0 {
				t.Errorf("%s: %s (%s) is named by no non-test code; remove it or use it", e.Pos, e.Name, e.Code)
			}
		}
	}
}
