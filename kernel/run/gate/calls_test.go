package gate

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

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
	at := Calls{Workspace: ws, Protected: []string{home}}
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

// TestCallsContext tells a call its run: under reach workspace the
// workspace alone, under reach inputs the directories the run's inputs
// name (never a file or a value that is no path), the default binding
// where none is given, and runx's own places at any reach.
func TestCallsContext(t *testing.T) {
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	c := Calls{RunID: "run_1", Workspace: ws, ProjectDir: filepath.Join(ws, ".runx"), Actor: "me", Protected: []string{"/home/.runx"},
		Inputs: map[string]any{"dir": "docs", "file": "a.txt", "n": 3, "text": "docs\nmore"}}
	in := c.Context("s", authority.ReachInputs, nil, nil, time.Time{})
	if len(in.ReachRoots) != 1 || in.ReachRoots[0] != filepath.Join(ws, "docs") || in.Reach != "inputs" {
		t.Fatalf("reach inputs: %q roots %v", in.Reach, in.ReachRoots)
	}
	var b map[string]any
	if err := json.Unmarshal(in.Binding, &b); err != nil || b["actor"] != "me" || b["project_dir"] != c.ProjectDir {
		t.Fatalf("default binding %s", in.Binding)
	}
	if in.CallID != "run_1#s@1" || in.Attempt != 1 || len(in.ProtectedRoots) != 1 {
		t.Fatalf("context %+v", in)
	}
	w := c.Context("s", authority.ReachWorkspace, json.RawMessage(`{"x":1}`), nil, time.Time{})
	if w.Reach != "workspace" || w.ReachRoots != nil || string(w.Binding) != `{"x":1}` {
		t.Fatalf("reach workspace: %q roots %v binding %s", w.Reach, w.ReachRoots, w.Binding)
	}
}
