package registry

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestImportBoundary holds the library to what its doc.go promises: a pure
// library over files, building on kernel/pkg (a package loads as a run
// would load it) and the SDK's canonical JSON, codes and atomic writes,
// never on what runs packages and never on the network; the client and the
// server build on it, not the other way round.
func TestImportBoundary(t *testing.T) {
	const mod = "github.com/runxhq/runx/"
	allowed := []string{mod + "kernel/pkg", mod + "kernel/pkg/semver", mod + "kernel/contract",
		mod + "sdk/canon", mod + "sdk/errcode", mod + "sdk/atomicfile", "github.com/goccy/go-yaml"}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		checked++
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			stdlib := !strings.Contains(strings.SplitN(path, "/", 2)[0], ".")
			switch {
			case stdlib && (path == "net" || strings.HasPrefix(path, "net/") || path == "os/exec"):
				t.Errorf("%s imports %s: the registry library reads and writes files, the client and server do the network", name, path)
			case !stdlib && !slices.Contains(allowed, path):
				t.Errorf("%s imports %s; it may import only %s beside the standard library", name, path, strings.Join(allowed, ", "))
			}
		}
	}
	if checked < 8 {
		t.Fatalf("checked only %d files; is the test in kernel/registry?", checked)
	}
}
