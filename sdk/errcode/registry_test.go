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
