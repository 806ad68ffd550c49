package run

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/runxhq/runx/kernel/authority"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/run/gate"
	"github.com/runxhq/runx/kernel/run/native"
	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/errcode"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// preview asks the plugin for exactly what a call would change, changing
// nothing: its runx.change_set.v1, every target with its complete diff and
// the digests it replaces and becomes. A refusal is what the gate shows.
func (rc *runCtx) preview(ctx context.Context, step *pkg.Step, capability string, inputs map[string]any) (any, error) {
	input, err := canon.Canonical(orEmpty(inputs))
	if err != nil {
		return nil, err
	}
	res, _, err := rc.e.Host.Preview(context.WithoutCancel(ctx), &sdk.Call{Capability: capability, Input: input, Context: rc.stepContext(step, "", nil, nil)}, operationMaxAnswer)
	if errors.Is(err, sdk.ErrNotImplemented) {
		return map[string]any{"refused": map[string]any{"code": string(errcode.PreviewUnsupported), "message": "capability " + capability + " declares that it previews, but its plugin does not answer Preview"}}, nil
	}
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
	return sdk.Context{
		RunID:         rc.rec.RunID,
		StepAddress:   local,
		CallID:        rc.rec.RunID + "#" + local + "@1",
		Attempt:       1,
		WorkspaceRoot: rc.e.Workspace,
		PackageRoot:   rc.pkg.Dir,
		Reach:         "inputs",
		Binding:       rc.defaultBinding(),
		// At any reach, no path of the call reaches runx's own places.
		ProtectedRoots: rc.e.protectedRoots(),
	}
}

// defaultBinding is what a call is told beyond its input when it is bound to
// nothing else: the project directory, where a plugin journals its
// changes, and whose run it is.
func (rc *runCtx) defaultBinding() json.RawMessage {
	raw, _ := json.Marshal(map[string]any{"project_dir": rc.e.ProjectDir, "actor": rc.actor()})
	return raw
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

// inputChange is the floor's view of a tool whose target is in its input:
// the argv a process capability's argv_input names, or the paths a file
// change's path inputs name.
func (rc *runCtx) inputChange(ctx context.Context, step *pkg.Step, inputs map[string]any) (authority.Change, bool) {
	if step.Kind != pkg.KindTool || step.Tool == nil || step.Tool.Capability == "" {
		return authority.Change{}, false
	}
	def := definitionOf(ctx, rc.e.Host, step.Tool.Capability)
	if def == nil {
		return authority.Change{}, false
	}
	if def.Effect == sdk.EffectProcess && def.ArgvInput != "" {
		return authority.Change{Kind: authority.ChangeCommand, Argv: native.Argv(def, inputs)}, true
	}
	if !changesFiles(def) {
		return authority.Change{}, false
	}
	return authority.Change{Kind: authority.ChangeEdit, Paths: declaredPaths(def, orEmpty(inputs), sdk.PathWrite, sdk.PathDelete)}, true
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
	if gate.Effective(rc.Base, rc.method, step).Reach == authority.ReachWorkspace {
		c.Reach = "workspace"
	} else {
		c.ReachRoots = rc.reachRoots()
	}
	return c
}
