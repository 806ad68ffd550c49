package gate

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/runxhq/runx/kernel/authority"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/sdk/errcode"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// TestReach holds each path a capability's path_inputs name to the step's
// reach: a path in the workspace passes, one in runx's own places is
// refused at any reach, and one outside the workspace is refused under
// reach workspace.
func TestReach(t *testing.T) {
	dir := t.TempDir()
	ws, home := filepath.Join(dir, "ws"), filepath.Join(dir, "home")
	for _, d := range []string{filepath.Join(ws, "docs"), home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	step := &pkg.Step{ID: "read", Kind: pkg.KindTool, Tool: &pkg.ToolStep{Capability: "x.read"}}
	def := &sdk.Definition{ID: "x.read", PathInputs: []sdk.PathInput{{Pointer: "/paths/*", Role: sdk.PathRead}}}
	at := Places{Workspace: ws, Protected: []string{home}}
	eff := authority.Effective{Reach: authority.ReachWorkspace}
	for _, c := range []struct {
		name  string
		paths []any
		code  errcode.Code
	}{
		{"in the workspace", []any{"docs", "docs/a.md"}, ""},
		{"runx's own places", []any{"docs", filepath.Join(home, "keys")}, errcode.ReachProtectedDir},
		{"outside the workspace", []any{filepath.Join(dir, "elsewhere")}, errcode.ReachOutsideWorkspace},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := Reach(step, def, map[string]any{"paths": c.paths}, eff, at)
			switch {
			case c.code == "" && got != nil:
				t.Fatalf("refused: %+v", got)
			case c.code != "" && (got == nil || got.Code != c.code):
				t.Fatalf("got %+v, want %s", got, c.code)
			}
		})
	}
}

// TestPointerValues names the values a JSON pointer reaches, a "*" token
// every element at its place.
func TestPointerValues(t *testing.T) {
	v := map[string]any{"a": []any{map[string]any{"p": "x"}, map[string]any{"p": "y"}}, "b": "z"}
	for pointer, want := range map[string]int{"": 1, "/b": 1, "/a/*/p": 2, "/a/1/p": 1, "/a/2/p": 0, "/c": 0} {
		if got := PointerValues(v, pointer); len(got) != want {
			t.Errorf("%q: got %v, want %d values", pointer, got, want)
		}
	}
}
