package journal

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxMethods is issue 22's bound on a type: no type with more than 45
// methods.
const maxMethods = 45

// TestJournalFitsItsBound holds Journal, and each part reached from it, to
// the bound. Past it, give the concern a named part of its own, as Asks,
// OperationKeys and ReceiptLog are.
func TestJournalFitsItsBound(t *testing.T) {
	counts, err := methodCounts(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, typ := range []string{"Journal", "Asks", "OperationKeys", "ReceiptLog"} {
		if counts[typ] == 0 {
			t.Errorf("%s has no methods: the count reads the wrong files", typ)
		}
	}
	for typ, n := range counts {
		if n > maxMethods {
			t.Errorf("%s has %d methods, over the bound of %d: give a concern a named part of its own", typ, n, maxMethods)
		}
	}
	t.Logf("Journal: %d methods (bound %d)", counts["Journal"], maxMethods)
}

// TestMethodCountsCountsBothReceivers keeps the count honest: value and
// pointer receivers count, functions and test files do not.
func TestMethodCountsCountsBothReceivers(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{
		"a.go":      "package a\n\ntype T struct{}\n\nfunc (T) A() {}\nfunc (t *T) B() {}\nfunc F() {}\n",
		"a_test.go": "package a\n\nfunc (T) C() {}\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	counts, err := methodCounts(dir)
	if err != nil || counts["T"] != 2 || len(counts) != 1 {
		t.Fatalf("counted %v (%v), want T: 2", counts, err)
	}
}

// methodCounts counts the methods each type of dir's non-test files has.
func methodCounts(dir string) (map[string]int, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	counts := map[string]int{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || len(fn.Recv.List) == 0 {
				continue
			}
			typ := fn.Recv.List[0].Type
			if star, ok := typ.(*ast.StarExpr); ok {
				typ = star.X
			}
			if id, ok := typ.(*ast.Ident); ok {
				counts[id.Name]++
			}
		}
	}
	return counts, nil
}
