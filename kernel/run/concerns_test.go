package run

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const enginePath = "github.com/runxhq/runx/kernel/run"

// besideAllowed is what each concern below the engine may import of the
// packages beside it; a concern not named here may take runstate's named
// parts and nothing else beside it.
var besideAllowed = map[string][]string{
	"installed": nil,
	"resumedoc": nil,
	"runstate":  nil,
	"script":    nil,
	"step":      {"runstate"},
	// skillctx is a leaf (it imports kernel/pkg, kernel/receipt and the
	// contracts, nothing of the engine): the engine reads a turn's context
	// skills into its request, and a turn reads them back and reads a
	// load's SKILL.md by the same rules and bounds.
	"turn": {"runstate", "skillctx"},
}

// TestConcernsSitBelowTheEngine holds every package below the engine
// (each directory of kernel/run, and kernel/datamigrate) to the rule
// docs/architecture.md states: it imports neither kernel/run nor another
// of the engine's concerns beside it (runstate's named parts excepted
// where allowed), no plugin and no test runner. What it needs of a run it
// declares as a port, which the engine satisfies. A new concern is held
// to the rule by being a directory here.
func TestConcernsSitBelowTheEngine(t *testing.T) {
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	dirs := []string{filepath.Join("..", "datamigrate")}
	for _, e := range entries {
		if e.IsDir() && e.Name() != "testdata" {
			dirs = append(dirs, e.Name())
		}
	}
	if len(dirs) < 12 {
		t.Fatalf("found %d concerns below the engine: %v", len(dirs), dirs)
	}
	for _, dir := range dirs {
		allowed := map[string]bool{enginePath + "/runstate": true}
		if names, ok := besideAllowed[dir]; ok || strings.HasPrefix(dir, "..") {
			allowed = map[string]bool{}
			for _, n := range names {
				allowed[enginePath+"/"+n] = true
			}
		}
		bad, err := importViolations(dir, allowed)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range bad {
			t.Error(b)
		}
	}
}

// TestImportViolationsFindsOne keeps the rule's check honest: a planted
// import of the engine, of a concern beside it and of a plugin are each
// found, and an allowed one is not.
func TestImportViolationsFindsOne(t *testing.T) {
	dir := t.TempDir()
	src := `package planted

import (
	_ "github.com/runxhq/runx/kernel/run"
	_ "github.com/runxhq/runx/kernel/run/turn"
	_ "github.com/runxhq/runx/kernel/run/runstate"
	_ "github.com/runxhq/runx/plugins/fs"
)
`
	if err := os.WriteFile(filepath.Join(dir, "planted.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "planted_test.go"), []byte(strings.Replace(src, "planted", "planted_test", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	bad, err := importViolations(dir, map[string]bool{enginePath + "/runstate": true})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"imports " + enginePath + ":", "kernel/run/turn, another", "plugins/fs, which"}
	if len(bad) != len(want) {
		t.Fatalf("violations %q, want %d", bad, len(want))
	}
	for i, w := range want {
		if !strings.Contains(bad[i], w) {
			t.Errorf("violation %q does not say %q", bad[i], w)
		}
	}
}

// importViolations reads the imports of dir's non-test Go files and says
// each that breaks the rule.
func importViolations(dir string, allowed map[string]bool) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	var bad []string
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			return nil, err
		}
		checked++
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			switch {
			case path == enginePath:
				bad = append(bad, name+" imports "+path+": it sits below the engine and takes what it needs as a port")
			case strings.HasPrefix(path, enginePath+"/") && !allowed[path]:
				bad = append(bad, name+" imports "+path+", another of the engine's concerns")
			case strings.Contains(path, "/plugins/") || strings.Contains(path, "/kernel/testrun"):
				bad = append(bad, name+" imports "+path+", which a concern below the engine must not")
			}
		}
	}
	if checked == 0 {
		return nil, os.ErrNotExist
	}
	return bad, nil
}
