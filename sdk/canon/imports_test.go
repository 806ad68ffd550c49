package canon

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImportsArePure holds the package to what doc.go promises: pure
// computation over the standard library and jcs, with no I/O, since every
// contract package depends on it.
func TestImportsArePure(t *testing.T) {
	allowed := map[string]bool{
		"bytes": true, "crypto/sha256": true, "encoding/hex": true, "encoding/json": true,
		"fmt": true, "strconv": true, "unicode/utf8": true,
		// sync only for the pool of digest scratch buffers: no I/O, no clock.
		"sync":                    true,
		"github.com/gowebpki/jcs": true, "github.com/runxhq/runx/internal/jsonscan": true, "slices": true,
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
			if !allowed[path] {
				t.Errorf("%s imports %s; sdk/canon is pure and imports only %v", name, path, allowed)
			}
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no source files found")
	}
}
