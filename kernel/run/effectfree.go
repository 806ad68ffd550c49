package run

import (
	"context"

	"github.com/runxhq/runx/kernel/pkg"
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
	for _, s := range rc.method.Steps {
		if s.Retry != nil || s.ForEach != "" {
			return false
		}
		switch s.Kind {
		case pkg.KindModule:
			continue
		case pkg.KindTool:
			if rc.e.nativeTool(s.Tool.Capability) != nil {
				return false
			}
			def := rc.e.definition(ctx, s.Tool.Capability)
			// A priced call records its reservation before it is sent.
			if def == nil || def.Effect != sdk.EffectNone && def.Effect != sdk.EffectRead || def.HasRole(sdk.RoleDataOperation) || def.Cost != nil {
				return false
			}
		default:
			return false
		}
	}
	return len(rc.method.Steps) > 0
}
