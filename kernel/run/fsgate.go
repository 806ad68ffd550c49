package run

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/runxhq/runx/kernel/authority"
	"github.com/runxhq/runx/kernel/contract/canon"
	"github.com/runxhq/runx/kernel/pkg"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// fsWrites are the native file changes whose paths the floor reads from the
// call's input, so standing approvals of edits.paths can cover them.
var fsWrites = map[string]string{"fs.write": "write", "fs.edit": "edit", "fs.apply_bundle": "apply_bundle"}

// editPaths lists the workspace-relative paths an fs write names.
func editPaths(capability string, inputs map[string]any) []string {
	var paths []string
	add := func(v any) {
		if s, ok := v.(string); ok && s != "" {
			paths = append(paths, filepath.ToSlash(filepath.Clean(s)))
		}
	}
	if capability == "fs.apply_bundle" {
		changes, _ := inputs["changes"].([]any)
		for _, c := range changes {
			if m, ok := c.(map[string]any); ok {
				add(m["path"])
			}
		}
	} else {
		add(inputs["path"])
	}
	sort.Strings(paths)
	return paths
}

// preview asks the fs plugin for exactly what a write would do: each file's
// complete unified diff and the digests it replaces and becomes.
func (rc *runCtx) preview(ctx context.Context, step *pkg.Step, inputs map[string]any) (any, error) {
	capability := step.Tool.Capability
	input, err := canon.Canonical(map[string]any{"op": fsWrites[capability], "input": orEmpty(inputs)})
	if err != nil {
		return nil, err
	}
	res, _, err := rc.e.Host.Invoke(context.WithoutCancel(ctx), &sdk.Call{Capability: "fs.preview", Input: input, Context: rc.stepContext(step, "", nil, nil)}, operationMaxAnswer)
	if err != nil {
		return nil, err
	}
	if res.Status != sdk.StatusOK {
		return map[string]any{"refused": map[string]any{"code": res.Code, "message": res.Message}}, nil
	}
	var out any
	return out, json.Unmarshal(res.Output, &out)
}

// callContext is what every capability call is told about the run.
func (rc *runCtx) callContext(local string, _ any) sdk.Context {
	binding, _ := json.Marshal(map[string]any{"project_dir": rc.e.ProjectDir, "actor": rc.actor()})
	return sdk.Context{
		RunID:         rc.rec.RunID,
		StepAddress:   local,
		CallID:        rc.rec.RunID + "#" + local + "@1",
		Attempt:       1,
		WorkspaceRoot: rc.e.Workspace,
		PackageRoot:   rc.pkg.Dir,
		Reach:         "inputs",
		Binding:       binding,
	}
}

// reachRoots are the directories the run's inputs name: under reach inputs
// they are where tools may go.
func (rc *runCtx) reachRoots() []string {
	var roots []string
	for _, v := range rc.inputs {
		s, ok := v.(string)
		if !ok || s == "" || strings.ContainsRune(s, '\n') {
			continue
		}
		p := s
		if !filepath.IsAbs(p) {
			p = filepath.Join(rc.e.Workspace, p)
		}
		if info, err := os.Stat(p); err == nil && info.IsDir() {
			roots = append(roots, filepath.Clean(p))
		}
	}
	sort.Strings(roots)
	return roots
}

// inputChange is the floor's view of a native change whose target is in
// its input: an fs write's paths, or command.execute's argv.
func inputChange(step *pkg.Step, inputs map[string]any) (authority.Change, bool) {
	if step.Kind != pkg.KindTool || step.Tool == nil {
		return authority.Change{}, false
	}
	if step.Tool.Capability == "command.execute" {
		return authority.Change{Kind: authority.ChangeCommand, Argv: argvOf(inputs)}, true
	}
	if fsWrites[step.Tool.Capability] == "" {
		return authority.Change{}, false
	}
	return authority.Change{Kind: authority.ChangeEdit, Paths: editPaths(step.Tool.Capability, inputs)}, true
}

func argvOf(inputs map[string]any) []string {
	raw, _ := inputs["argv"].([]any)
	argv := make([]string, 0, len(raw))
	for _, a := range raw {
		s, ok := a.(string)
		if !ok {
			return nil
		}
		argv = append(argv, s)
	}
	return argv
}

// stepContext is the call context of one step's capability call: the
// step's effective reach and the roots the run's inputs name.
func (rc *runCtx) stepContext(step *pkg.Step, local string, binding json.RawMessage, creds map[string]string) sdk.Context {
	c := rc.callContext(local, nil)
	c.Clock = rc.e.Clock()
	if binding != nil {
		c.Binding = binding
	}
	c.Credentials = creds
	if rc.effective(step).Reach == authority.ReachWorkspace {
		c.Reach = "workspace"
	} else {
		c.ReachRoots = rc.reachRoots()
	}
	return c
}
