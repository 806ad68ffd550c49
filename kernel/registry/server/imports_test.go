package server

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestImportBoundary holds the server and its store to what their doc.go
// promise: the server builds on kernel/registry (the package rules, the
// record, signing) and its own store, and never on what runs packages (the
// engine, the plugin host, the journal, a plugin); the store knows nothing
// of HTTP.
func TestImportBoundary(t *testing.T) {
	const mod = "github.com/runxhq/runx/"
	common := []string{mod + "kernel/registry", mod + "kernel/pkg/semver", mod + "kernel/contract", mod + "sdk/errcode"}
	rules := []struct {
		dir      string
		allowed  []string
		stdNever []string
	}{
		{".", append([]string{mod + "kernel/registry/server/store"}, common...), nil},
		{"store", append([]string{"github.com/jackc/pgx/v5", "github.com/jackc/pgx/v5/pgxpool", "modernc.org/sqlite"}, common...), []string{"net/http"}},
	}
	for _, r := range rules {
		files, err := filepath.Glob(filepath.Join(r.dir, "*.go"))
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
				stdlib := !strings.Contains(strings.SplitN(path, "/", 2)[0], ".")
				switch {
				case stdlib && slices.Contains(r.stdNever, path):
					t.Errorf("%s imports %s, which it must not", name, path)
				case !stdlib && !slices.Contains(r.allowed, path):
					t.Errorf("%s imports %s; it may import only %s beside the standard library", name, path, strings.Join(r.allowed, ", "))
				}
			}
			checked++
		}
		if checked == 0 {
			t.Fatalf("no source files in %s", r.dir)
		}
	}
}
