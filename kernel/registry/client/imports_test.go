package client

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

const module = "github.com/runxhq/runx/"

// TestImportBoundary holds the client to what its doc.go promises: it
// builds on kernel/registry (the record, verification, install) and talks
// HTTP, and never on what runs packages; and no part of the engine
// (kernel/run and below) imports it, so a run reaches a registry only
// through the fetcher cmd/runx gives the kernel.
func TestImportBoundary(t *testing.T) {
	allowed := []string{module + "kernel/registry", module + "kernel/pkg/semver", module + "kernel/contract", module + "sdk/errcode"}
	for _, name := range sources(t, ".") {
		for _, path := range imports(t, name) {
			if strings.Contains(strings.SplitN(path, "/", 2)[0], ".") && !slices.Contains(allowed, path) {
				t.Errorf("%s imports %s; it may import only %s beside the standard library", name, path, strings.Join(allowed, ", "))
			}
		}
	}
	engine := sources(t, filepath.Join("..", "..", "run"))
	if len(engine) < 50 {
		t.Fatalf("found only %d files under kernel/run; is the walk rooted right?", len(engine))
	}
	for _, name := range engine {
		for _, path := range imports(t, name) {
			if path == module+"kernel/registry/client" {
				t.Errorf("%s imports the registry client: a run reaches a registry only through the fetcher it is given", name)
			}
		}
	}
}

// sources lists the non-test Go files under dir.
func sources(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
			out = append(out, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func imports(t *testing.T, name string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		out = append(out, p)
	}
	return out
}
