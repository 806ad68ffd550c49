// Package codewalk measures how far a reader travels to follow a path
// through the code: starting at one function, it reads each call in
// source order, descends into every callee defined in the loaded packages
// the first time it meets it, and counts how often the reading returns to
// a file it had already left. An interface method call descends into
// every loaded type that implements it, so hiding a call behind a port
// does not make a walk look shorter.
//
// The figure is the one issue 22 asks of the engine's carve: the walk from
// the engine's Run through one step.
package codewalk

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"sort"
	"strings"

	"golang.org/x/tools/go/packages"
)

// Walk is what one reading found.
type Walk struct {
	Root string
	// Funcs is how many functions the reading entered, Files how many
	// distinct files it saw.
	Funcs, Files int
	// Returns counts the moves back into a file the reading had left
	// before (a return from a callee into its caller's file included).
	Returns int
	// Reentries counts the functions entered in a file the reading had
	// left before, counting entries only (a jump to a definition), not
	// the returns to callers.
	Reentries int
	// Path is the sequence of files read, consecutive repeats collapsed.
	Path []string
}

// Graph is the loaded code a walk reads.
type Graph struct {
	fset  *token.FileSet
	decls map[*types.Func]*ast.FuncDecl
	info  map[*types.Func]*types.Info
	named []*types.Named
}

// Load reads the packages the patterns name, from dir, with their syntax
// and types.
func Load(dir string, patterns ...string) (*Graph, error) {
	cfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax |
			packages.NeedTypes | packages.NeedTypesInfo,
		Dir: dir,
	}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, err
	}
	g := &Graph{fset: cfg.Fset, decls: map[*types.Func]*ast.FuncDecl{}, info: map[*types.Func]*types.Info{}}
	for _, p := range pkgs {
		if len(p.Errors) > 0 {
			return nil, fmt.Errorf("codewalk: %s: %v", p.PkgPath, p.Errors[0])
		}
		if g.fset == nil {
			g.fset = p.Fset
		}
		for _, f := range p.Syntax {
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Body == nil {
					continue
				}
				if fn, ok := p.TypesInfo.Defs[fd.Name].(*types.Func); ok {
					g.decls[fn] = fd
					g.info[fn] = p.TypesInfo
				}
			}
		}
		scope := p.Types.Scope()
		for _, name := range scope.Names() {
			if tn, ok := scope.Lookup(name).(*types.TypeName); ok {
				if n, ok := tn.Type().(*types.Named); ok {
					g.named = append(g.named, n)
				}
			}
		}
	}
	return g, nil
}

// Find names the function "Type.Method" or "Func" of the loaded packages.
func (g *Graph) Find(root string) (*types.Func, error) {
	var found []*types.Func
	for fn := range g.decls {
		if funcName(fn) == root {
			found = append(found, fn)
		}
	}
	if len(found) != 1 {
		return nil, fmt.Errorf("codewalk: %d functions named %s", len(found), root)
	}
	return found[0], nil
}

// funcName is "Type.Method" for a method, the name for a function.
func funcName(fn *types.Func) string {
	sig := fn.Type().(*types.Signature)
	if r := sig.Recv(); r != nil {
		t := r.Type()
		if p, ok := t.(*types.Pointer); ok {
			t = p.Elem()
		}
		if n, ok := t.(*types.Named); ok {
			return n.Obj().Name() + "." + fn.Name()
		}
	}
	return fn.Name()
}

// Walk reads from root.
func (g *Graph) Walk(root *types.Func) Walk {
	w := &walker{g: g, seen: map[*types.Func]bool{}, files: map[string]bool{}}
	w.visit(root)
	return Walk{Root: funcName(root), Funcs: len(w.seen), Files: len(w.files),
		Returns: revisits(w.path), Reentries: revisits(w.entered), Path: w.path}
}

// revisits counts the places in a sequence of files where the reading
// moves into a file it had already left.
func revisits(seq []string) int {
	n := 0
	left := map[string]bool{}
	for i, f := range seq {
		if i > 0 && seq[i-1] != f {
			if left[f] {
				n++
			}
			left[seq[i-1]] = true
		}
	}
	return n
}

type walker struct {
	g     *Graph
	seen  map[*types.Func]bool
	files map[string]bool
	path  []string
	// entered is the file of each function in the order it was entered.
	entered []string
}

func (w *walker) read(file string) {
	if n := len(w.path); n == 0 || w.path[n-1] != file {
		w.path = append(w.path, file)
	}
	w.files[file] = true
}

func (w *walker) visit(fn *types.Func) {
	w.seen[fn] = true
	decl := w.g.decls[fn]
	file := w.g.fset.Position(decl.Pos()).Filename
	w.entered = append(w.entered, file)
	w.read(file)
	info := w.g.info[fn]
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		for _, callee := range w.g.callees(info, call) {
			if w.seen[callee] {
				continue
			}
			w.visit(callee)
			w.read(file)
		}
		return true
	})
}

// callees resolves a call to the loaded functions it may enter: the
// function or method named, or for an interface method every loaded
// type's method that implements it, in a stable order.
func (g *Graph) callees(info *types.Info, call *ast.CallExpr) []*types.Func {
	var id *ast.Ident
	switch f := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		id = f
	case *ast.SelectorExpr:
		id = f.Sel
	case *ast.IndexExpr:
		if x, ok := f.X.(*ast.Ident); ok {
			id = x
		}
	}
	if id == nil {
		return nil
	}
	fn, ok := info.Uses[id].(*types.Func)
	if !ok {
		return nil
	}
	fn = fn.Origin()
	if _, ok := g.decls[fn]; ok {
		return []*types.Func{fn}
	}
	sig := fn.Type().(*types.Signature)
	if sig.Recv() == nil || !types.IsInterface(sig.Recv().Type()) {
		return nil
	}
	iface, _ := sig.Recv().Type().Underlying().(*types.Interface)
	if iface == nil {
		return nil
	}
	var out []*types.Func
	for _, n := range g.named {
		if types.IsInterface(n) {
			continue
		}
		var t types.Type = n
		if !types.Implements(t, iface) {
			t = types.NewPointer(n)
			if !types.Implements(t, iface) {
				continue
			}
		}
		obj, _, _ := types.LookupFieldOrMethod(t, true, fn.Pkg(), fn.Name())
		if m, ok := obj.(*types.Func); ok {
			if _, ok := g.decls[m.Origin()]; ok {
				out = append(out, m.Origin())
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return funcName(out[i]) < funcName(out[j]) })
	return out
}

// String is the walk's figures on one line.
func (w Walk) String() string {
	return fmt.Sprintf("%s: %d functions over %d files; %d jumps into and %d moves back to a file already left",
		w.Root, w.Funcs, w.Files, w.Reentries, w.Returns)
}

// Short trims a path to the part below the module's root, for reports.
func Short(file, root string) string {
	return strings.TrimPrefix(file, root+"/")
}
