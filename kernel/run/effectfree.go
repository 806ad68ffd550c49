package run

import (
	"context"

	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/run/native"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// effectFree reports whether every step of the run's method is one that
// changes nothing and never waits: a module step, or a plugin capability
// whose description declares no effect or only reading (not a data
// operation, not a native tool). Such a run, cut short before its seal,
// loses nothing an operator relies on: it is run again. Its journal
// transitions before the seal are deferred to the seal's fsync; its
// receipts are put as every run's are, durable before the answer.
func (rc *runCtx) effectFree(ctx context.Context) bool {
	return effectFreeSteps(rc.method.Steps,
		func(id string) bool { return native.Lookup(id) != nil },
		func(id string) *sdk.Definition { return rc.e.definition(ctx, id) })
}

// effectFreeSteps is effectFree's rule over the steps alone, given how to
// tell a native tool and read a capability's description: pure, so the
// rule that picks which runs defer their syncs is tested as a table.
func effectFreeSteps(steps []*pkg.Step, native func(string) bool, definition func(string) *sdk.Definition) bool {
	for _, s := range steps {
		if s.Retry != nil || s.ForEach != "" {
			// A retry waits between attempts and records each; a fan-out
			// records its items in batches of its own.
			return false
		}
		switch s.Kind {
		case pkg.KindModule:
			continue
		case pkg.KindTool:
			if native(s.Tool.Capability) {
				// A native tool is kernel code with no plugin description
				// to read its effect from: left out, not assumed.
				return false
			}
			def := definition(s.Tool.Capability)
			if def == nil || def.Effect != sdk.EffectNone && def.Effect != sdk.EffectRead || def.HasRole(sdk.RoleDataOperation) {
				return false
			}
		default:
			// Commands, operations, child skills, scripts and every gate
			// may change something or wait on someone.
			return false
		}
	}
	return len(steps) > 0
}
