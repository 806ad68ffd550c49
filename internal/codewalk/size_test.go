package codewalk

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 22's bounds on the whole tree: no type with more than maxMethods
// methods, no package over maxLines non-test lines.
const (
	maxMethods = 45
	maxLines   = 6000
)

// over lists what is still over a bound, at most at the figure given: the
// carve of kernel/run is not finished (issue 22). A figure here may only
// come down; the test fails when one grows, and asks for the entry to be
// lowered (or removed) when the code comes under it.
var over = map[string]int{
	"kernel/run": 7547, // lines
}

// TestTreeFitsItsBounds holds every package of the module to the bounds.
func TestTreeFitsItsBounds(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
			return filepath.SkipDir
		}
		size, err := Measure(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		seen++
		check(t, rel, size.Lines, maxLines, "non-test lines")
		for typ, n := range size.Methods {
			check(t, rel+"."+typ, n, maxMethods, "methods")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen < 50 {
		t.Fatalf("measured %d directories: the walk reads the wrong tree", seen)
	}
}

func check(t *testing.T, name string, n, bound int, what string) {
	t.Helper()
	if allowed, ok := over[name]; ok {
		switch {
		case n > allowed:
			t.Errorf("%s has %d %s, over the %d it is held at while its carve goes on: carve a concern out", name, n, what, allowed)
		case n <= bound:
			t.Errorf("%s has %d %s, within the bound of %d: remove its entry from over", name, n, what, bound)
		}
		return
	}
	if n > bound {
		t.Errorf("%s has %d %s, over the bound of %d: give a concern a package or a named part of its own", name, n, what, bound)
	}
}

// TestMeasureCountsOnlyCode keeps the counts honest: value, pointer and
// generic receivers count; functions, test files and directories below
// do not; every line of a code file does.
func TestMeasureCountsOnlyCode(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{
		"a.go":      "package a\n\ntype T struct{}\n\nfunc (T) A() {}\nfunc (t *T) B() {}\nfunc F() {}\n",
		"g.go":      "package a\n\ntype G[K any] struct{}\n\nfunc (g *G[K]) C() {}\n",
		"a_test.go": "package a\n\nfunc (T) C() {}\n",
		"sub/c.go":  "package c\n\ntype T struct{}\n\nfunc (T) D() {}\n",
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := Measure(dir)
	if err != nil || s.Methods["T"] != 2 || s.Methods["G"] != 1 || len(s.Methods) != 2 || s.Lines != 12 {
		t.Fatalf("measured %+v (%v), want T: 2, G: 1 and 12 lines", s, err)
	}
}
