package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The two import rules of docs/architecture.md ("What may import what")
// about the first-party plugins, held here because this package is where
// they are registered (plugins.go).

const pluginsImport = "github.com/runxhq/runx/plugins/"

// TestOnlyPluginsGoLinksPlugins: no kernel package imports a plugin (the
// kernel knows a capability only by its Describe answer), and in cmd/runx
// only plugins.go and its platform files (plugins_unix.go) do, to serve
// them when runx is re-executed as
// `runx plugin serve <name>`. Tests may link plugins to serve them from
// the test binary, as runx does.
func TestOnlyPluginsGoLinksPlugins(t *testing.T) {
	root := filepath.Join("..", "..")
	for _, dir := range []string{"kernel", "cmd"} {
		for _, v := range pluginImports(t, filepath.Join(root, dir)) {
			t.Error(v)
		}
	}
	if n := len(goFiles(t, filepath.Join(root, "kernel"))); n < 100 {
		t.Fatalf("found only %d kernel files; is the walk rooted at the module?", n)
	}
}

// The import check finds a planted plugin import, and allows plugins.go.
func TestOnlyPluginsGoLinksPluginsFindsOne(t *testing.T) {
	tree := t.TempDir()
	plant(t, tree, "kernel/run/planted.go", "package run\n\nimport _ \"github.com/runxhq/runx/plugins/fs\"\n")
	plant(t, tree, "cmd/runx/plugins.go", "package main\n\nimport _ \"github.com/runxhq/runx/plugins/fs\"\n")
	plant(t, tree, "cmd/runx/plugins_unix.go", "package main\n\nimport _ \"github.com/runxhq/runx/plugins/fs\"\n")
	plant(t, tree, "cmd/runx/other.go", "package main\n\nimport _ \"github.com/runxhq/runx/plugins/fs\"\n")
	plant(t, tree, "kernel/mcp/harness_test.go", "package mcp\n\nimport _ \"github.com/runxhq/runx/plugins/fs\"\n")
	var found []string
	for _, dir := range []string{"kernel", "cmd"} {
		found = append(found, pluginImports(t, filepath.Join(tree, dir))...)
	}
	joined := strings.Join(found, "\n")
	if len(found) != 2 || !strings.Contains(joined, "cmd/runx/other.go imports github.com/runxhq/runx/plugins/fs") || !strings.Contains(joined, "kernel/run/planted.go imports github.com/runxhq/runx/plugins/fs") {
		t.Fatalf("want the planted cmd/runx/other.go and kernel imports found, got %v", found)
	}
}

// registrationFile reports whether p, found under dir, is one of the
// files that register the first-party plugins: cmd/runx/plugins.go and
// its platform files, plugins_<os>.go (the plugins built on POSIX calls
// are registered only where they build).
func registrationFile(p, dir string) bool {
	base := filepath.Base(p)
	return filepath.ToSlash(filepath.Dir(p)) == filepath.ToSlash(filepath.Join(filepath.Dir(dir), "cmd", "runx")) &&
		(base == "plugins.go" || strings.HasPrefix(base, "plugins_") && strings.HasSuffix(base, ".go"))
}

// pluginImports lists the non-test files under dir, other than the
// registration files (registrationFile), that import a plugin.
func pluginImports(t *testing.T, dir string) []string {
	t.Helper()
	var found []string
	for _, p := range goFiles(t, dir) {
		if strings.HasSuffix(p, "_test.go") || registrationFile(p, dir) {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if path, _ := strconv.Unquote(imp.Path.Value); strings.HasPrefix(path, pluginsImport) {
				found = append(found, filepath.ToSlash(p)+" imports "+path+": only cmd/runx/plugins.go and its platform files link a plugin")
			}
		}
	}
	return found
}

// TestKernelNamesNoFirstPartyCapability: non-test kernel code names no
// first-party plugin, capability or adapter, so a third-party plugin gets
// exactly what a first-party one gets. The names come from the first-party
// registration itself (plugins.go): each plugin's name, "runx-plugin-"
// and its name, every capability id it describes, every adapter id, and
// any string beginning with a plugin's name and "." or "/" (how a
// capability or an operation is named). A kernel string equal to a bare
// plugin name is not flagged: "process", "command", "store" and "http"
// are also words of runx's own vocabulary (an effect, a step kind, a
// directory, a URL scheme).
func TestKernelNamesNoFirstPartyCapability(t *testing.T) {
	// The names cover every plugin in plugins/: each is registered.
	registered := map[string]bool{}
	for _, file := range []string{"plugins.go", "plugins_unix.go"} {
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if path, _ := strconv.Unquote(imp.Path.Value); strings.HasPrefix(path, pluginsImport) {
				registered[strings.TrimPrefix(path, pluginsImport)] = true
			}
		}
	}
	dirs, err := os.ReadDir(filepath.Join("..", "..", "plugins"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if d.IsDir() && !registered[d.Name()] {
			t.Errorf("plugins/%s is not registered in plugins.go or plugins_unix.go, so its names are not checked here", d.Name())
		}
	}
	names := firstPartyNames()
	if len(names.exact) < 20 || len(names.prefixes) < 8 {
		t.Fatalf("the first-party registration gave too few names: %d exact, %d prefixes", len(names.exact), len(names.prefixes))
	}
	files := goFiles(t, filepath.Join("..", "..", "kernel"))
	if len(files) < 100 {
		t.Fatalf("found only %d kernel files; is the walk rooted at the module?", len(files))
	}
	for _, p := range files {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		for _, v := range names.in(t, p) {
			t.Error(v)
		}
	}
}

// The name check finds each kind of name planted in kernel code, and not in
// a test.
func TestKernelNamesNoFirstPartyCapabilityFindsOne(t *testing.T) {
	names := firstPartyNames()
	dir := t.TempDir()
	src := "package run\n\nvar planted = []string{\"fs.read\", \"data.sqlite\", \"runx-plugin-git\", \"git/status\", \"process\", \"a fs.read in prose\"}\n"
	plant(t, dir, "run/planted.go", src)
	got := names.in(t, filepath.Join(dir, "run", "planted.go"))
	if len(got) != 4 {
		t.Fatalf("want the four planted names found (not the bare word or the prose), got %d: %v", len(got), got)
	}
}

type nameSet struct {
	exact    map[string]bool
	prefixes []string
}

// firstPartyNames is what the first-party registration names.
func firstPartyNames() nameSet {
	s := nameSet{exact: map[string]bool{}}
	for name, info := range firstPartyInfo() {
		in := info()
		for _, n := range []string{name, in.Name} {
			s.exact["runx-plugin-"+n] = true
			s.prefixes = append(s.prefixes, n+".", n+"/")
		}
		for _, c := range in.Capabilities {
			s.exact[c.ID] = true
		}
		for _, a := range in.Adapters {
			s.exact[a.ID] = true
		}
	}
	slices.Sort(s.prefixes)
	s.prefixes = slices.Compact(s.prefixes)
	return s
}

// in lists the string literals of file that name a first-party plugin,
// capability or adapter.
func (s nameSet) in(t *testing.T, file string) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		v, err := strconv.Unquote(lit.Value)
		if err != nil {
			return true
		}
		named := s.exact[v]
		for _, p := range s.prefixes {
			named = named || strings.HasPrefix(v, p)
		}
		if named {
			found = append(found, fset.Position(lit.Pos()).String()+": "+strconv.Quote(v)+" names a first-party plugin, capability or adapter; the kernel knows capabilities only by Describe")
		}
		return true
	})
	return found
}

func goFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && p != dir {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".go") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func plant(t *testing.T, root, rel, src string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
}
