// Package importrule reads what a package's non-test Go files import, for
// the tests that hold a package to the import boundary its doc.go states
// (docs/architecture.md, "What may import what").
package importrule

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Import is one import of one file.
type Import struct {
	File string // the file, as found under the directory read
	Path string // the import path
	Std  bool   // a standard-library package (no dot in its first element)
}

// Of lists the imports of the non-test Go files directly in dir. It fails
// t when dir holds fewer than min such files, so a test run from the wrong
// directory cannot pass by reading nothing.
func Of(t testing.TB, dir string, min int) []Import {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	return read(t, dir, files, min)
}

// Below lists the imports of the non-test Go files in dir and every
// directory under it, failing t below min files as Of does.
func Below(t testing.TB, dir string, min int) []Import {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".go") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return read(t, dir, files, min)
}

func read(t testing.TB, dir string, files []string, min int) []Import {
	t.Helper()
	var out []Import
	n := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		n++
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			out = append(out, Import{File: filepath.ToSlash(name), Path: path, Std: !strings.Contains(strings.SplitN(path, "/", 2)[0], ".")})
		}
	}
	if n < min {
		t.Fatalf("found %d non-test Go files in %s, want at least %d: is the test run from its package?", n, dir, min)
	}
	return out
}

// Only holds what the non-test files in dir import beside the standard
// library to allowed, reporting each other import as an error naming who
// (the package the rule is for) and what it may import.
func Only(t testing.TB, dir, who string, allowed ...string) {
	t.Helper()
	for _, imp := range Of(t, dir, 1) {
		if !imp.Std && !slices.Contains(allowed, imp.Path) {
			t.Errorf("%s imports %s; %s may import only %s beside the standard library", imp.File, imp.Path, who, strings.Join(allowed, ", "))
		}
	}
}
