package turn

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImportBoundary holds doc.go's promise: turns and calls sit below
// the run engine, so the package imports neither kernel/run nor another of
// the engine's concerns beside it (runstate's named parts excepted), and no
// plugin. What it needs of a run it declares as a port (Engine).
func TestImportBoundary(t *testing.T) {
	const engine = "github.com/runxhq/runx/kernel/run"
	allowedBeside := map[string]bool{engine + "/runstate": true}
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
			switch {
			case path == engine:
				t.Errorf("%s imports %s: kernel/run/turn sits below the engine and takes what it needs as a port", name, path)
			case strings.HasPrefix(path, engine+"/") && !allowedBeside[path]:
				t.Errorf("%s imports %s, another of the engine's concerns", name, path)
			case strings.Contains(path, "/plugins/") || strings.Contains(path, "/kernel/testrun"):
				t.Errorf("%s imports %s, which kernel/run/turn must not", name, path)
			}
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no source files found")
	}
}
