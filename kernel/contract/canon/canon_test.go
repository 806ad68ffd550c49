package canon

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	sdkcanon "github.com/runxhq/runx/sdk/canon"
)

// The kernel's canon holds no implementation of its own: one owner.
func TestOnlyDelegates(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p != "github.com/runxhq/runx/sdk/canon" {
				t.Errorf("%s imports %s; kernel/contract/canon only names sdk/canon", name, p)
			}
		}
	}
	doc := []byte(`{"b":[1,"x"],"a":{"z":true,"y":null}}`)
	got, err := CanonicalJSON(doc)
	want, _ := sdkcanon.CanonicalJSON(doc)
	if err != nil || string(got) != string(want) || string(got) != `{"a":{"y":null,"z":true},"b":[1,"x"]}` {
		t.Fatalf("got %s %v", got, err)
	}
	if d, _ := Digest(map[string]int{"a": 1}); !ValidDigest(d) || d != DigestBytes([]byte(`{"a":1}`)) {
		t.Fatalf("digest %s", d)
	}
}
