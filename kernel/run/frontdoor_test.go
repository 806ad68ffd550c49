package run

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The Kernel is the one front door (docs/architecture.md, "What may import
// what"): no package but this one names the Engine behind it, so every
// caller runs, resumes, reads and closes through Kernel methods.
func TestNoPackageNamesTheEngine(t *testing.T) {
	root := filepath.Join("..", "..")
	checked := 0
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if path.Dir(rel) == "kernel/run" {
			return nil
		}
		for _, at := range namesOfEngine(t, p) {
			t.Errorf("%s:%d names run.Engine: call a Kernel method instead", rel, at)
		}
		checked++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 200 {
		t.Fatalf("checked only %d files; is the walk rooted at the module?", checked)
	}
}

// The check finds a caller that reaches through to the engine.
func TestNoPackageNamesTheEngineFindsOne(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "caller.go")
	src := "package caller\n\nimport kr \"github.com/runxhq/runx/kernel/run\"\n\nvar _ = &kr.Engine{}\n"
	if err := os.WriteFile(file, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := namesOfEngine(t, file); len(got) != 1 || got[0] != 5 {
		t.Fatalf("a planted run.Engine was not found: %v", got)
	}
}

// namesOfEngine lists the lines of file that name kernel/run's Engine.
func namesOfEngine(t *testing.T, file string) []int {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	local := ""
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == "github.com/runxhq/runx/kernel/run" {
			local = "run"
			if imp.Name != nil {
				local = imp.Name.Name
			}
		}
	}
	if local == "" {
		return nil
	}
	var lines []int
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == "Engine" {
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == local {
				lines = append(lines, fset.Position(sel.Pos()).Line)
			}
		}
		return true
	})
	return lines
}
