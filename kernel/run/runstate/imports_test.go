package runstate

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImportBoundary holds doc.go's promise: the run's named parts are
// data every concern below the engine can take, so runstate imports only
// the standard library and the packages whose values it holds
// (kernel/authority, kernel/journal), never the engine, a concern beside
// it or the plugin host.
func TestImportBoundary(t *testing.T) {
	allowed := map[string]bool{"github.com/runxhq/runx/kernel/authority": true, "github.com/runxhq/runx/kernel/journal": true}
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
			if strings.Contains(strings.SplitN(path, "/", 2)[0], ".") && !allowed[path] {
				t.Errorf("%s imports %s: runstate holds the run's parts as data, importing only the standard library, kernel/authority and kernel/journal", name, path)
			}
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no source files found")
	}
}
