package docpaths

import (
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// The documents whose paths are held to the tree, from the module root.
var documents = []string{"README.md", "docs/architecture.md", "docs/registry.md", "docs/decisions.md", "docs/decisions/*.md",
	"docs/cli.md", "docs/mcp.md", "docs/connectors.md", "docs/agents.md", "docs/getting-started.md", "docs/private.md"}

// pathRE finds a repository path: a word starting at one of the top-level
// directories whose code or docs the prose names, followed by a slash.
// Placeholders (<verb>, {a,b}, *.go) are expanded or globbed by exists.
var pathRE = regexp.MustCompile(`(?:kernel|sdk|plugins|cmd|internal|bench|docs)/[A-Za-z0-9_./{},*<>-]*`)

// TestDocsNameRealPaths: a path the docs name is a file or directory of the
// repository, so a file that moved or went away cannot leave a newcomer
// following a map of a tree that is no longer there.
func TestDocsNameRealPaths(t *testing.T) {
	root := filepath.Join("..", "..")
	files := documentFiles(t, root)
	if len(files) < 10 {
		t.Fatalf("found only %d documents; is the test rooted at the module?", len(files))
	}
	total := 0
	for _, doc := range files {
		body, err := os.ReadFile(filepath.Join(root, doc))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range namedPaths(string(body)) {
			total++
			if !exists(root, m.path) {
				t.Errorf("%s:%d names %s, which is not in the repository", doc, m.line, m.path)
			}
		}
	}
	if total < 200 {
		t.Fatalf("found only %d named paths; is the pattern finding them?", total)
	}
}

// The check finds a planted stale path and passes the shapes the docs use.
func TestDocsNameRealPathsFindsOne(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{"kernel/run/step/unit.go", "plugins/store/driver/sqlite/migrate.go", "plugins/store/driver/postgres/x.go", "cmd/runx/internal/skill/skill.go"} {
		p := filepath.Join(root, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	text := "The step (kernel/run/step/unit.go, seal.go), `kernel/run/steps.go`, plugins/store/driver/{sqlite,postgres},\n" +
		"plugins/store/driver/sqlite/migrate*.go and cmd/runx/internal/<verb>; kernel/run/... and\n" +
		"github.com/runxhq/runx/plugins/gone, .runx/plugins/ and <runx home>/plugins/ are not repository paths;\n" +
		"plugins/store/driver/{sqlite,redis} names one that is missing; `doc.go` is a name.\n\n" +
		"A new paragraph: unit.go is read against no directory.\n"
	var missing []string
	for _, m := range namedPaths(text) {
		if !exists(root, m.path) {
			missing = append(missing, m.path)
		}
	}
	want := []string{"kernel/run/step/seal.go", "kernel/run/steps.go", "plugins/store/driver/{sqlite,redis}"}
	if !slices.Equal(missing, want) {
		t.Fatalf("want %v found missing, got %v", want, missing)
	}
}

type namedPath struct {
	path string
	line int
	at   int
}

// bareRE finds a Go file named without its directory ("load.go" in
// "kernel/pkg (load.go, refs.go)"); it is read in the directory of the last
// path named before it in the same paragraph, or the same table row. A
// name in backticks (`doc.go`) is a name, not a location, and is not read.
var bareRE = regexp.MustCompile(`[A-Za-z0-9_]+\.go\b`)

// namedPaths lists the repository paths text names. A match preceded by a
// word character, a slash, a dot or a placeholder's end is part of something
// else (an import path, `.runx/plugins/`, `<runx home>/plugins/`). A
// package path followed by an exported name (sdk/plugin.Serve) names the
// package.
func namedPaths(text string) []namedPath {
	var found []namedPath
	line := 1
	for _, para := range strings.SplitAfter(text, "\n") {
		if strings.TrimSpace(para) == "" || strings.HasPrefix(strings.TrimSpace(para), "|") {
			found = append(found, namedPath{line: line}) // a paragraph or a table row ends
		}
		found = append(found, lineShapes(para, line)...)
		line++
	}
	// Resolve bare file names against the last full path before them.
	var out []namedPath
	dir := ""
	for _, p := range found {
		switch {
		case p.path == "":
			dir = ""
		case strings.Contains(p.path, "/"):
			out = append(out, p)
			dir = p.path
			if strings.Contains(path.Base(dir), ".") || strings.ContainsAny(dir, "<{*") {
				dir = path.Dir(dir)
			}
			if strings.ContainsAny(dir, "<{*") {
				dir = ""
			}
		case dir != "":
			out = append(out, namedPath{path: path.Join(dir, p.path), line: p.line})
		}
	}
	return out
}

// lineShapes lists, in order, the full paths and the bare Go file names of
// one line.
func lineShapes(text string, line int) []namedPath {
	var found []namedPath
	full := pathRE.FindAllStringIndex(text, -1)
	for _, loc := range full {
		if loc[0] > 0 && strings.ContainsRune("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_/.>-~$", rune(text[loc[0]-1])) {
			continue
		}
		p := strings.TrimRight(text[loc[0]:loc[1]], ".,")
		if i := strings.LastIndexByte(p, '.'); i > strings.LastIndexByte(p, '/') && i+1 < len(p) && unicode.IsUpper(rune(p[i+1])) {
			p = p[:i]
		}
		found = append(found, namedPath{path: p, line: line, at: loc[0]})
	}
	for _, loc := range bareRE.FindAllStringIndex(text, -1) {
		if loc[0] > 0 && strings.ContainsRune("/.-*{,`", rune(text[loc[0]-1])) {
			continue // part of a path or a brace list, or a file's name in code
		}
		found = append(found, namedPath{path: text[loc[0]:loc[1]], line: line, at: loc[0]})
	}
	slices.SortFunc(found, func(a, b namedPath) int { return a.at - b.at })
	return found
}

// exists says whether a named path is in the tree below root: a
// placeholder (<verb>) stands for any name, so the directory before it
// must exist; {a,b} must exist for every alternative; a glob must match.
func exists(root, p string) bool {
	if i := strings.IndexByte(p, '<'); i >= 0 {
		p = p[:i]
	}
	if i := strings.IndexByte(p, '{'); i >= 0 {
		j := strings.IndexByte(p[i:], '}')
		if j < 0 {
			return false
		}
		for _, alt := range strings.Split(p[i+1:i+j], ",") {
			if !exists(root, p[:i]+alt+p[i+j+1:]) {
				return false
			}
		}
		return true
	}
	full := filepath.Join(root, filepath.FromSlash(p))
	if strings.ContainsAny(p, "*") {
		m, err := filepath.Glob(full)
		return err == nil && len(m) > 0
	}
	_, err := os.Stat(full)
	return err == nil
}

func documentFiles(t *testing.T, root string) []string {
	t.Helper()
	var files []string
	for _, pattern := range documents {
		m, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(pattern)))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range m {
			rel, err := filepath.Rel(root, f)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, filepath.ToSlash(rel))
		}
	}
	return files
}
