package run

import (
	"context"
	"encoding/json"
	"errors"

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
	res, _, err := rc.e.Host.Preview(context.WithoutCancel(ctx), &sdk.Call{Capability: capability, Input: input, Context: rc.calls().Context("", gate.Effective(rc.Base, rc.method, step).Reach, nil, nil, rc.e.Clock())}, operationMaxAnswer)
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

// calls are what rc's capability calls are held to and told of the run
// (gate.Calls).
func (rc *runCtx) calls() gate.Calls {
	return gate.Calls{RunID: rc.rec.RunID, Workspace: rc.e.Workspace, PackageDir: rc.pkg.Dir, ProjectDir: rc.e.ProjectDir,
		Actor: rc.actor(), Protected: rc.e.protectedRoots(), Inputs: rc.inputs}
}
