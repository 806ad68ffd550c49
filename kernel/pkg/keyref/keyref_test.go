package keyref

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestDocsUpToDate: docs/run-yaml.md is what the table generates.
func TestDocsUpToDate(t *testing.T) {
	got, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "run-yaml.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, Markdown()) {
		t.Fatal("docs/run-yaml.md is out of date: run go generate ./kernel/pkg/keyref")
	}
}

// TestEveryKeyIsPlaced: each key is listed once, sorted, with what enforces
// it and its meaning, and belongs to one of the documents the reference
// renders (a key of no document would be missing from docs/run-yaml.md).
func TestEveryKeyIsPlaced(t *testing.T) {
	seen := map[string]bool{}
	for i, k := range Keys {
		if Document(k.Area) == "" {
			t.Errorf("%s belongs to no document of the reference", k.ID())
		}
		if seen[k.ID()] {
			t.Errorf("%s is listed twice", k.ID())
		}
		seen[k.ID()] = true
		if i > 0 && Keys[i-1].ID() >= k.ID() {
			t.Errorf("%s is out of order after %s", k.ID(), Keys[i-1].ID())
		}
		if k.Evidence == "" {
			t.Errorf("%s names nothing that enforces it", k.ID())
		}
		if k.Meaning == "" {
			t.Errorf("%s has no meaning: say in a line what it does, read from its decoder", k.ID())
		}
	}
	if !bytes.Contains(Markdown(), []byte("| `default_method` |")) {
		t.Error("the reference does not render run.yaml's default_method")
	}
}
