package pkg

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImportBoundary holds doc.go's promise: packages are data, so this
// package imports nothing that runs them.
func TestImportBoundary(t *testing.T) {
	forbidden := []string{"/kernel/run", "/kernel/host", "/kernel/testrun", "/plugins/", "/sdk/proto", "net/http", "os/exec"}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
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
				if strings.Contains(path, bad) || path == strings.TrimPrefix(bad, "/") {
					t.Errorf("%s imports %s, which kernel/pkg must not", name, path)
				}
			}
		}
	}
}
