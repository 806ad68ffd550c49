package run

import (
	"context"
	"path/filepath"
	"slices"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/run/gate"
	"github.com/runxhq/runx/kernel/run/native"
)

// reachGate holds the paths a tool step's capability names in its input
// to the step's reach before anything is dispatched (gate.Reach).
func (rc *runCtx) reachGate(ctx context.Context, step *pkg.Step, inputs map[string]any) *contract.ErrorBody {
	if step.Kind != pkg.KindTool || step.Tool == nil || step.Tool.Capability == "" || native.Lookup(step.Tool.Capability) != nil {
		return nil
	}
	def := definitionOf(ctx, rc.e.Host, step.Tool.Capability)
	if def == nil || len(def.PathInputs) == 0 {
		return nil // an unknown capability is refused by its dispatch, with its own code
	}
	return gate.Reach(step, def, inputs, gate.Effective(rc.Base, rc.method, step), rc.calls())
}

// protectedRoots are runx's own places, out of every tool's reach at any
// reach and whatever the workspace holds: its home (keys, secrets,
// plugins), the project's state directory (state.sqlite, journals,
// artifacts) and the receipt store. Each is named as configured and as its
// symlinks resolve, so a path reaching one by either form is caught.
func (e *engine) protectedRoots() []string {
	e.protectedOnce.Do(func() { e.protected = e.findProtectedRoots() })
	return e.protected
}

// findProtectedRoots names the places protectedRoots holds, once an engine:
// every call's context carries them.
func (e *engine) findProtectedRoots() []string {
	var roots []string
	for _, dir := range []string{e.HomeDir, e.CredentialHome, e.ProjectDir, e.storeDir()} {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		for _, form := range []string{filepath.Clean(dir), gate.ResolvedPath(dir)} {
			if !slices.Contains(roots, form) {
				roots = append(roots, form)
			}
		}
	}
	return roots
}

func (e *engine) storeDir() string {
	if e.Store == nil {
		return ""
	}
	return e.Store.Dir()
}
