package plugin_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The dependency rules of docs/architecture.md ("What may import what")
// for the SDK and the plugins: sdk/
// imports no kernel and no plugin (its conformance tests may start runx's
// own drivers); a plugin imports no kernel and no other plugin.
func TestSDKAndPluginImports(t *testing.T) {
	const module = "github.com/runxhq/runx/"
	root := filepath.Join("..", "..")
	checked := 0
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		inSDK, inPlugins := strings.HasPrefix(rel, "sdk/"), strings.HasPrefix(rel, "plugins/")
		if !inSDK && !inPlugins {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		checked++
		test := strings.HasSuffix(p, "_test.go")
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			dep, ours := strings.CutPrefix(path, module)
			if !ours {
				continue
			}
			switch {
			case strings.HasPrefix(dep, "kernel/"):
				t.Errorf("%s imports %s: sdk and plugins never import the kernel", rel, path)
			case inSDK && strings.HasPrefix(dep, "plugins/") && !(test && strings.HasPrefix(rel, "sdk/conformance/store/")):
				t.Errorf("%s imports %s: sdk imports no plugin", rel, path)
			case inPlugins && strings.HasPrefix(dep, "plugins/") && pluginOf(dep) != pluginOf(rel):
				t.Errorf("%s imports %s: a plugin imports no other plugin", rel, path)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 50 {
		t.Fatalf("checked only %d files; is the walk rooted at the module?", checked)
	}
}

// pluginOf is the plugin directory of a plugins/... path.
func pluginOf(p string) string {
	parts := strings.SplitN(p, "/", 3)
	if len(parts) < 2 {
		return p
	}
	return parts[1]
}
