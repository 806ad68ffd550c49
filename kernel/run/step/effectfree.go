package step

import (
	"context"

	"github.com/runxhq/runx/kernel/pkg"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// Capabilities is what EffectFreeSteps reads of the capabilities a run
// calls: the port the engine satisfies (kernel/run/gateport.go).
type Capabilities interface {
	// Native reports a tool the kernel answers itself.
	Native(id string) bool
	// Definition is a capability's description from its plugin, or nil.
	Definition(ctx context.Context, id string) *sdk.Definition
}

// EffectFreeSteps reports whether every step of a method is one that
// changes nothing and never waits: a module step, or a plugin capability
// whose description declares no effect or only reading (not a data
// operation, not a native tool). Such a run, cut short before its seal,
// loses nothing an operator relies on: it is run again. Its journal
// transitions before the seal are deferred to the seal's fsync; its
// receipts are put as every run's are, durable before the answer. It is
// pure over the steps and caps, so the rule is tested as a table.
func EffectFreeSteps(ctx context.Context, steps []*pkg.Step, caps Capabilities) bool {
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
			if caps.Native(s.Tool.Capability) {
				// A native tool is kernel code with no plugin description
				// to read its effect from: left out, not assumed.
				return false
			}
			def := caps.Definition(ctx, s.Tool.Capability)
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
