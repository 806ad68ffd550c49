package authority

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// allowedImports is everything the package's own (non-test) code may
// import: pure computation only. Adding an entry here is a design change;
// it needs a reason that the authority algebra must do I/O, and it has none.
var allowedImports = map[string]bool{
	"bytes":                            true,
	"encoding/json":                    true,
	"errors":                           true,
	"fmt":                              true,
	"io":                               true, // io.EOF from json.Decoder; no reader is ever opened
	"path":                             true,
	"slices":                           true,
	"strconv":                          true,
	"strings":                          true,
	"unicode/utf8":                     true,
	"github.com/runxhq/runx/sdk/canon": true,
	// The shared secret-name rules; authority calls only its pure
	// name functions, never Scope, which is the part that reads files.
	"github.com/runxhq/runx/sdk/pathpolicy": true,
	// The error-code registry: constants and a string type, nothing else.
	"github.com/runxhq/runx/sdk/errcode": true,
}

// TestImportsArePure keeps I/O out of the package: no os, net, filesystem,
// clock, kernel/run, kernel/host or plugins.
func TestImportsArePure(t *testing.T) {
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
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if !allowedImports[path] {
				t.Errorf("%s imports %s; kernel/authority is pure and imports only %v", name, path, allowedImports)
			}
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no source files found")
	}
}
