package codewalk

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
)

// Size is what one package directory holds: its non-test lines (as wc -l
// counts them) and how many methods each of its types has.
type Size struct {
	Lines   int
	Methods map[string]int
}

// Measure reads the non-test Go files directly in dir (not below it).
// Value and pointer receivers both count as the type's methods.
func Measure(dir string) (Size, error) {
	s := Size{Methods: map[string]int{}}
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return s, err
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			return s, err
		}
		s.Lines += bytes.Count(src, []byte("\n"))
		f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.SkipObjectResolution)
		if err != nil {
			return s, err
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
			if index, ok := typ.(*ast.IndexExpr); ok { // a generic receiver, T[K]
				typ = index.X
			}
			if id, ok := typ.(*ast.Ident); ok {
				s.Methods[id.Name]++
			}
		}
	}
	return s, nil
}
