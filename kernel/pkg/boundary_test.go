package pkg

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const pkgPath = "github.com/runxhq/runx/kernel/pkg"

// TestImportBoundary holds doc.go's promise: packages are data, so this
// package, and every part below it, imports nothing that runs them.
func TestImportBoundary(t *testing.T) {
	dirs, err := partDirs(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range append([]string{"."}, dirs...) {
		bad, err := boundaryViolations(dir, dir != ".")
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range bad {
			t.Error(b)
		}
	}
}

// TestPartsSitBelowTheLoader checks that kernel/pkg's parts are found (a
// part is a directory below it) and holds each to the rule: the loader
// imports its parts, never the other way round.
func TestPartsSitBelowTheLoader(t *testing.T) {
	dirs, err := partDirs(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"jsonvalue", "schema", "semver"} {
		found := false
		for _, d := range dirs {
			found = found || d == want
		}
		if !found {
			t.Errorf("part %s not found below kernel/pkg: %v", want, dirs)
		}
	}
}

// TestBoundaryViolationsFindsOne keeps the rule's check honest: a part's
// planted import of the loader, of a runner and of a plugin are each found,
// a sibling part is not, and a test file is not read.
func TestBoundaryViolationsFindsOne(t *testing.T) {
	dir := t.TempDir()
	src := `package planted

import (
	_ "github.com/runxhq/runx/kernel/pkg"
	_ "github.com/runxhq/runx/kernel/pkg/jsonvalue"
	_ "github.com/runxhq/runx/kernel/run"
	_ "github.com/runxhq/runx/plugins/fs"
	_ "os/exec"
)
`
	if err := os.WriteFile(filepath.Join(dir, "planted.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "planted_test.go"), []byte(strings.Replace(src, "planted", "planted_test", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	bad, err := boundaryViolations(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"imports " + pkgPath + ",", "kernel/run,", "plugins/fs,", "os/exec,"}
	if len(bad) != len(want) {
		t.Fatalf("violations %q, want %d", bad, len(want))
	}
	for i, w := range want {
		if !strings.Contains(bad[i], w) {
			t.Errorf("violation %q does not say %q", bad[i], w)
		}
	}
	// The loader itself may import its parts.
	if bad, err := boundaryViolations(dir, false); err != nil || len(bad) != 3 {
		t.Fatalf("as the loader: violations %q (%v), want 3", bad, err)
	}
}

// partDirs lists the directories below dir that hold Go code.
func partDirs(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var dirs []string
	for _, e := range entries {
		if e.IsDir() && e.Name() != "testdata" {
			dirs = append(dirs, e.Name())
		}
	}
	return dirs, nil
}

// boundaryViolations reads the imports of dir's non-test Go files and says
// each that breaks the rule; part is set for a directory below the loader,
// which must not import the loader.
func boundaryViolations(dir string, part bool) ([]string, error) {
	forbidden := []string{"/kernel/run", "/kernel/host", "/kernel/testrun", "/plugins/", "/sdk/proto", "net/http", "os/exec"}
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	var bad []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			return nil, err
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if part && path == pkgPath {
				bad = append(bad, name+" imports "+path+", the loader above it; a part of kernel/pkg never imports it back")
			}
			for _, b := range forbidden {
				if strings.Contains(path, b) || path == strings.TrimPrefix(b, "/") {
					bad = append(bad, name+" imports "+path+", which kernel/pkg and its parts must not")
				}
			}
		}
	}
	return bad, nil
}
