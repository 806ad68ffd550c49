package receipt

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImportBoundary holds the package to what doc.go promises: the standard
// library, jcs, sdk/canon, sdk/atomicfile, the seal vocabulary
// (kernel/contract/seal, a leaf) and the error-code registry (sdk/errcode,
// declarations only). The run engine, the journal, the
// plugin host and plugins seal through this package, never the reverse.
func TestImportBoundary(t *testing.T) {
	allowed := map[string]bool{
		"github.com/gowebpki/jcs":               true,
		"github.com/runxhq/runx/sdk/canon":      true,
		"github.com/runxhq/runx/sdk/atomicfile": true,
		// Outcomes and seal reasons, listed once: a leaf importing only
		// the error-code registry, which imports nothing.
		"github.com/runxhq/runx/kernel/contract/seal": true,
		"github.com/runxhq/runx/sdk/errcode":          true,
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			stdlib := !strings.Contains(strings.SplitN(path, "/", 2)[0], ".")
			if !stdlib && !allowed[path] {
				t.Errorf("%s imports %s; kernel/receipt imports only the standard library, jcs, sdk/canon, sdk/atomicfile, kernel/contract/seal and sdk/errcode", name, path)
			}
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no source files found")
	}
}
