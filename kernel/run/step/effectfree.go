package step

import (
	"github.com/runxhq/runx/kernel/pkg"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// EffectFreeSteps reports whether every step of a method is one that
// changes nothing and never waits (kernel/run's effectFree), over the
// steps alone, given how to
// tell a native tool and read a capability's description: pure, so the
// rule that picks which runs defer their syncs is tested as a table.
func EffectFreeSteps(steps []*pkg.Step, native func(string) bool, definition func(string) *sdk.Definition) bool {
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
