package mcp

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImportBoundary holds the package to what doc.go promises: the server
// imports no plugin and nothing of cmd/. Its tests may link the first-party
// plugins, but only to serve them from the test binary as separate plugin
// processes, as runx serves them (harness_test.go).
func TestImportBoundary(t *testing.T) {
	forbidden := []string{"github.com/runxhq/runx/plugins/", "github.com/runxhq/runx/cmd/"}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			for _, bad := range forbidden {
				if strings.HasPrefix(path, bad) {
					t.Errorf("%s imports %s, which kernel/mcp must not", name, path)
				}
			}
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no source files found")
	}
}
