package fs

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/plugin"
)

func searchOK(tb testing.TB, root string, req SearchRequest) SearchResponse {
	tb.Helper()
	var resp SearchResponse
	mustOK(tb, call(tb, wsContext(root), CapabilitySearch, req, &resp))
	return resp
}

func matchPaths(resp SearchResponse) []string {
	var out []string
	for _, m := range resp.Matches {
		out = append(out, fmt.Sprintf("%s:%d:%d", m.Path, m.Line, m.Column))
	}
	return out
}

func TestSearchLiteralReportsLineAndColumn(t *testing.T) {
	root := workspace(t, map[string]string{
		"a.go":     "package a\n\nfunc Needle() {}\n\tneedle Needle Needle\n",
		"sub/b.go": "Needle",
		"c.txt":    "nothing here",
	})
	resp := searchOK(t, root, SearchRequest{Query: "Needle"})
	want := []string{"a.go:3:6", "a.go:4:9", "sub/b.go:1:1"}
	if got := matchPaths(resp); !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	if resp.Matches[1].Text != "\tneedle Needle Needle" || resp.Count != 3 || resp.FilesSearched != 3 || resp.FilesMatched != 2 || resp.Truncated {
		t.Fatalf("got %+v", resp)
	}
}

func TestSearchRegex(t *testing.T) {
	root := workspace(t, map[string]string{"a.go": "func A() {}\n  func B() {}\nfunc C() {}\n"})
	resp := searchOK(t, root, SearchRequest{Query: `^func [A-Z]`, Regex: true})
	if got := matchPaths(resp); !slices.Equal(got, []string{"a.go:1:1", "a.go:3:1"}) {
		t.Fatalf("got %q", got)
	}
	wantCode(t, call(t, wsContext(root), CapabilitySearch, SearchRequest{Query: "(", Regex: true}, nil), errcode.FSSearchRegexInvalid)
	wantCode(t, call(t, wsContext(root), CapabilitySearch, SearchRequest{}, nil), errcode.FSSearchQueryEmpty)
}

func TestSearchTheOneFileItsPathNames(t *testing.T) {
	root := workspace(t, map[string]string{".gitignore": "gen.go\n", "gen.go": "x := 1", "other.go": "x := 2"})
	resp := searchOK(t, root, SearchRequest{Path: "gen.go", Query: "x :="})
	if got := matchPaths(resp); !slices.Equal(got, []string{"gen.go:1:1"}) {
		t.Fatalf("a named file is searched even when ignored: got %q", got)
	}
	resp = searchOK(t, root, SearchRequest{Query: "x :="})
	if got := matchPaths(resp); !slices.Equal(got, []string{"other.go:1:1"}) {
		t.Fatalf("a walk honours the ignore file: got %q", got)
	}
}

func TestSearchNeverSearchesSecrets(t *testing.T) {
	root := workspace(t, map[string]string{
		".env": "TOKEN=abc", "cfg/prod.env": "TOKEN=abc", ".env.example": "TOKEN=", "tls/key.crt": testPrivateKey + "TOKEN",
		".git/config": "TOKEN", ".runx/x": "TOKEN", "app.go": "os.Getenv(\"TOKEN\")",
	})
	resp := searchOK(t, root, SearchRequest{Query: "TOKEN"})
	if got := matchPaths(resp); !slices.Equal(got, []string{".env.example:1:1", "app.go:1:12"}) {
		t.Fatalf("got %q", got)
	}
	wantCode(t, call(t, wsContext(root), CapabilitySearch, SearchRequest{Path: ".env", Query: "TOKEN"}, nil), errcode.ReachSecretRefused)
	wantCode(t, call(t, wsContext(root), CapabilitySearch, SearchRequest{Path: "tls/key.crt", Query: "TOKEN"}, nil), errcode.ReachSecretRefused)
	wantCode(t, call(t, wsContext(root), CapabilitySearch, SearchRequest{Path: ".git", Query: "TOKEN"}, nil), errcode.ReachProtectedDir)
}

func TestSearchSkipsNestedWorktreesUnlessNamed(t *testing.T) {
	root := workspace(t, map[string]string{"a.txt": "hit", "mod/.git": "gitdir: ../.git/modules/mod", "mod/b.txt": "hit"})
	if got := matchPaths(searchOK(t, root, SearchRequest{Query: "hit"})); !slices.Equal(got, []string{"a.txt:1:1"}) {
		t.Fatalf("got %q", got)
	}
	if got := matchPaths(searchOK(t, root, SearchRequest{Path: "mod", Query: "hit"})); !slices.Equal(got, []string{"mod/b.txt:1:1"}) {
		t.Fatalf("named worktree: got %q", got)
	}
}

func TestSearchSkipsBinaryFiles(t *testing.T) {
	root := workspace(t, map[string]string{"img.png": "\x89PNG\x00\x00needle", "a.txt": "needle"})
	resp := searchOK(t, root, SearchRequest{Query: "needle"})
	if got := matchPaths(resp); !slices.Equal(got, []string{"a.txt:1:1"}) || resp.FilesSkipped != 1 {
		t.Fatalf("got %q %+v", got, resp)
	}
}

func TestSearchInclude(t *testing.T) {
	root := workspace(t, map[string]string{"a.go": "x", "a_test.go": "x", "web/b.ts": "x", "web/deep/c.ts": "x", "d.md": "x"})
	for name, tc := range map[string]struct {
		include any
		want    []string
	}{
		"one glob as a string": {"*.go", []string{"a.go:1:1", "a_test.go:1:1"}},
		"path glob":            {[]string{"web/**/*.ts"}, []string{"web/b.ts:1:1", "web/deep/c.ts:1:1"}},
		"with an exclusion":    {[]string{"*.go", "!*_test.go"}, []string{"a.go:1:1"}},
		"only an exclusion":    {[]string{"!*.ts"}, []string{"a.go:1:1", "a_test.go:1:1", "d.md:1:1"}},
	} {
		t.Run(name, func(t *testing.T) {
			var resp SearchResponse
			mustOK(t, call(t, wsContext(root), CapabilitySearch, map[string]any{"query": "x", "include": tc.include}, &resp))
			if got := matchPaths(resp); !slices.Equal(got, tc.want) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
	// Globs are relative to the directory searched.
	if got := matchPaths(searchOK(t, root, SearchRequest{Path: "web", Query: "x", Include: globList{"deep/*.ts"}})); !slices.Equal(got, []string{"web/deep/c.ts:1:1"}) {
		t.Fatalf("got %q", got)
	}
}

func TestSearchBoundsAreExactAndDeterministic(t *testing.T) {
	files := map[string]string{}
	for i := range 300 {
		files[fmt.Sprintf("f%03d.txt", i)] = "hit\nmiss\nhit\n"
	}
	root := workspace(t, files)
	first := searchOK(t, root, SearchRequest{Query: "hit", MaxMatches: 101})
	if first.Count != 101 || !first.Truncated || first.Matches[100].Path != "f050.txt" || first.Matches[100].Line != 1 {
		t.Fatalf("got count %d truncated %v last %+v", first.Count, first.Truncated, first.Matches[len(first.Matches)-1])
	}
	if first.FilesSearched != 51 || first.FilesMatched != 51 {
		t.Fatalf("counts stop where the cut fell: %+v", first)
	}
	for range 5 {
		again := searchOK(t, root, SearchRequest{Query: "hit", MaxMatches: 101})
		if !slices.Equal(matchPaths(again), matchPaths(first)) || again.FilesSearched != first.FilesSearched {
			t.Fatal("a truncated search differs between runs")
		}
	}
	all := searchOK(t, root, SearchRequest{Query: "hit", MaxMatches: 600})
	if all.Count != 600 || all.Truncated {
		t.Fatalf("exactly enough room is not truncation: count %d truncated %v", all.Count, all.Truncated)
	}
	wantCode(t, call(t, wsContext(root), CapabilitySearch, SearchRequest{Query: "x", MaxMatches: SearchMaxMatches + 1}, nil), errcode.FSRequestInvalid)
}

func TestSearchBoundsLineText(t *testing.T) {
	long := strings.Repeat("a", 5000) + "NEEDLE" + strings.Repeat("é", 3000)
	root := workspace(t, map[string]string{"min.js": long})
	resp := searchOK(t, root, SearchRequest{Query: "NEEDLE"})
	m := resp.Matches[0]
	if !m.TextTruncated || len(m.Text) > maxMatchTextBytes || !strings.Contains(m.Text, "NEEDLE") || m.Column != 5001 {
		t.Fatalf("got %+v (len %d)", m, len(m.Text))
	}
	if strings.ContainsRune(m.Text, '\uFFFD') {
		t.Fatal("clipping split a character")
	}
}

func TestSearchRefusals(t *testing.T) {
	root := workspace(t, nil)
	must(t, os.Symlink("/etc", filepath.Join(root, "etc")))
	pc := wsContext(root)
	wantCode(t, call(t, pc, CapabilitySearch, SearchRequest{Path: "missing", Query: "x"}, nil), errcode.FSNotFound)
	wantCode(t, call(t, pc, CapabilitySearch, SearchRequest{Path: "etc", Query: "x"}, nil), errcode.ReachSymlinkEscape)
	wantCode(t, call(t, pc, CapabilitySearch, SearchRequest{Path: "/", Query: "x"}, nil), errcode.ReachOutsideWorkspace)
	wantCode(t, call(t, pc, CapabilitySearch, map[string]any{"query": "x", "include": 3}, nil), errcode.FSRequestInvalid)
}

func TestSearchStopsWhenCancelled(t *testing.T) {
	root := workspace(t, map[string]string{"a.txt": "x"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	in, _ := json.Marshal(SearchRequest{Query: "x"})
	res := New().Invoke(ctx, &plugin.Call{Capability: CapabilitySearch, Context: wsContext(root), Input: in})
	wantCode(t, res, errcode.FSCancelled)
}

func TestSearchUnderReachInputs(t *testing.T) {
	root := workspace(t, map[string]string{"a.txt": "needle"})
	other := workspace(t, map[string]string{"b.txt": "needle", ".gitignore": "skip/\n", "skip/c.txt": "needle"})
	pc := plugin.Context{WorkspaceRoot: root, Reach: ReachInputs, ReachRoots: []string{other}}
	var resp SearchResponse
	mustOK(t, call(t, pc, CapabilitySearch, SearchRequest{Path: other, Query: "needle"}, &resp))
	if got := matchPaths(resp); !slices.Equal(got, []string{filepath.Join(other, "b.txt") + ":1:1"}) {
		t.Fatalf("got %q", got)
	}
}
