package registry

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// The rules the walk enforces on non-test Go code outside the registry.
const (
	// RuleRegisteredLiteral: a string literal spelled like a registered
	// code. The call site names the registry's constant instead.
	RuleRegisteredLiteral = "registered code as a literal"
	// RuleLiteralAsCode: a string literal where a Code is expected (a Code
	// or ErrorCode field, a parameter or result of type Code, a conversion
	// to Code), registered or not: a new code is registered first.
	RuleLiteralAsCode = "literal where a Code is expected"
)

// Finding is one place a rule refuses.
type Finding struct {
	Pos  token.Position
	Rule string
	Text string
}

func (f Finding) String() string { return fmt.Sprintf("%s: %s: %s", f.Pos, f.Rule, f.Text) }

// Walk is what one pass over a tree found.
type Walk struct {
	Files    int            // non-test Go files read
	Findings []Finding      // what the rules refuse
	Uses     map[string]int // registry constant name -> references outside the registry
}

// Check walks every non-test Go file under root, whose module path is
// module, except the registry package itself (registryDir, relative to
// root, slash-separated) and testdata directories, which hold test
// fixtures. codes maps each registered spelling to its constant's name.
// There is no other exception.
func Check(root, module, registryDir string, codes map[string]string) (*Walk, error) {
	regPath := module + "/" + registryDir
	type file struct {
		rel string
		f   *ast.File
	}
	fset := token.NewFileSet()
	byDir := map[string][]file{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			name := d.Name()
			if rel != "." && (name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") || path.Dir(rel) == registryDir {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		byDir[path.Dir(rel)] = append(byDir[path.Dir(rel)], file{rel, f})
		return nil
	})
	if err != nil {
		return nil, err
	}

	// Which parameters take a Code: per package (import path) and function
	// name, and per method name across the tree.
	funcs := map[string]map[int]bool{}   // "importpath.Func" -> param indexes
	methods := map[string]map[int]bool{} // "Method" -> param indexes
	for dir, files := range byDir {
		pkgPath := module + "/" + dir
		for _, fl := range files {
			imports := importNames(fl.f)
			for _, decl := range fl.f.Decls {
				fd, ok := decl.(*ast.FuncDecl)
				if !ok {
					continue
				}
				idx := map[int]bool{}
				i := 0
				for _, field := range fd.Type.Params.List {
					n := max(len(field.Names), 1)
					if isCodeType(field.Type, imports, regPath) {
						for k := range n {
							idx[i+k] = true
						}
					}
					i += n
				}
				if len(idx) == 0 {
					continue
				}
				if fd.Recv != nil {
					if methods[fd.Name.Name] == nil {
						methods[fd.Name.Name] = map[int]bool{}
					}
					for k := range idx {
						methods[fd.Name.Name][k] = true
					}
				} else {
					funcs[pkgPath+"."+fd.Name.Name] = idx
				}
			}
		}
	}

	w := &Walk{Uses: map[string]int{}}
	dirs := make([]string, 0, len(byDir))
	for d := range byDir {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	for _, dir := range dirs {
		pkgPath := module + "/" + dir
		for _, fl := range byDir[dir] {
			w.Files++
			imports := importNames(fl.f)
			refuse := func(n ast.Node, rule, text string) {
				w.Findings = append(w.Findings, Finding{Pos: fset.Position(n.Pos()), Rule: rule, Text: text})
			}
			literal := func(e ast.Expr) (*ast.BasicLit, string, bool) {
				lit, ok := ast.Unparen(e).(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					return nil, "", false
				}
				s, err := strconv.Unquote(lit.Value)
				return lit, s, err == nil
			}
			asCode := func(e ast.Expr, where string) {
				// "" is the zero Code: no code at all, never a spelling.
				if lit, s, ok := literal(e); ok && s != "" {
					refuse(lit, RuleLiteralAsCode, fmt.Sprintf("%q given as %s; name a registered constant (errcode.%s)", s, where, suggest(codes, s)))
				}
			}
			var results []*ast.FieldList // enclosing functions' results
			var visit func(n ast.Node) bool
			visit = func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.FuncDecl:
					results = append(results, n.Type.Results)
					if n.Body != nil {
						ast.Inspect(n.Body, visit)
					}
					results = results[:len(results)-1]
					return false
				case *ast.FuncLit:
					results = append(results, n.Type.Results)
					ast.Inspect(n.Body, visit)
					results = results[:len(results)-1]
					return false
				case *ast.BasicLit:
					if _, s, ok := literal(n); ok {
						if name, reg := codes[s]; reg {
							refuse(n, RuleRegisteredLiteral, fmt.Sprintf("%q is registered; write errcode.%s", s, name))
						}
					}
				case *ast.SelectorExpr:
					if id, ok := n.X.(*ast.Ident); ok && imports[id.Name] == regPath {
						w.Uses[n.Sel.Name]++
					}
				case *ast.KeyValueExpr:
					if id, ok := n.Key.(*ast.Ident); ok && codeField(id.Name) {
						asCode(n.Value, "field "+id.Name)
					}
				case *ast.AssignStmt:
					for i, l := range n.Lhs {
						if se, ok := l.(*ast.SelectorExpr); ok && codeField(se.Sel.Name) && len(n.Lhs) == len(n.Rhs) {
							asCode(n.Rhs[i], "field "+se.Sel.Name)
						}
					}
				case *ast.ReturnStmt:
					if len(results) == 0 || results[len(results)-1] == nil {
						break
					}
					i := 0
					for _, field := range results[len(results)-1].List {
						k := max(len(field.Names), 1)
						if isCodeType(field.Type, imports, regPath) {
							for j := i; j < i+k && j < len(n.Results); j++ {
								asCode(n.Results[j], "a result of type Code")
							}
						}
						i += k
					}
				case *ast.CallExpr:
					var idx map[int]bool
					var name string
					switch fn := n.Fun.(type) {
					case *ast.Ident:
						idx, name = funcs[pkgPath+"."+fn.Name], fn.Name
					case *ast.SelectorExpr:
						name = fn.Sel.Name
						if id, ok := fn.X.(*ast.Ident); ok && imports[id.Name] != "" {
							if imports[id.Name] == regPath && fn.Sel.Name == "Code" {
								for _, a := range n.Args {
									asCode(a, "a conversion to Code")
								}
								break
							}
							idx = funcs[imports[id.Name]+"."+fn.Sel.Name]
						} else {
							idx = methods[fn.Sel.Name]
						}
					}
					for i, a := range n.Args {
						if idx[i] {
							asCode(a, fmt.Sprintf("argument %d of %s, a Code", i+1, name))
						}
					}
				}
				return true
			}
			ast.Inspect(fl.f, visit)
		}
	}
	sort.Slice(w.Findings, func(i, j int) bool {
		a, b := w.Findings[i].Pos, w.Findings[j].Pos
		return a.Filename < b.Filename || a.Filename == b.Filename && a.Offset < b.Offset
	})
	return w, nil
}

func codeField(name string) bool { return name == "Code" || name == "ErrorCode" }

func suggest(codes map[string]string, s string) string {
	if name, ok := codes[s]; ok {
		return name
	}
	return "<a new constant>"
}

// importNames maps each import's local name to its path.
func importNames(f *ast.File) map[string]string {
	m := map[string]string{}
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		name := path.Base(p)
		if imp.Name != nil {
			name = imp.Name.Name
		}
		m[name] = p
	}
	return m
}

// isCodeType reports whether a type expression is the registry's Code.
func isCodeType(e ast.Expr, imports map[string]string, regPath string) bool {
	se, ok := e.(*ast.SelectorExpr)
	if !ok || se.Sel.Name != "Code" {
		return false
	}
	id, ok := se.X.(*ast.Ident)
	return ok && imports[id.Name] == regPath
}
